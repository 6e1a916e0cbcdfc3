// The nodata sidecar's file format, read and written.
#include "core/streaming/nodata_sidecar.h"

#include <bitset>
#include <cstring>
#include <vector>

#include "core/base/byte_fields.h"
#include "core/streaming/own_files.h"

namespace qt {
namespace {

// Layout, every number little-endian:
//   0 magic "QTNODATA"   8 version u32           12 zero u32
//  16 cache bytes u64   24 cache mtime ns i64    32 width u32   36 height u32
//  40 nodata samples u64                         48 checksum u64
//  56 the mask: bit (row * width + col) of the words, 64 a word.
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 56;
constexpr size_t kChecksumOffset = 48;

uint64_t maskWords(int width, int height) {
    return (uint64_t(width) * uint64_t(height) + 63) / 64;
}

// FNV-1a over the header before the checksum and the payload, finished with a mix.
uint64_t checksum(const unsigned char* file, size_t count) {
    uint64_t h = 0xcbf29ce484222325ull;
    const auto add = [&h](const unsigned char* bytes, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            h = (h ^ bytes[i]) * 0x100000001b3ull;
        }
    };
    add(file, kChecksumOffset);
    add(file + kHeaderBytes, count - kHeaderBytes);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

}  // namespace

std::string nodataSidecarPath(const std::string& cachePath) {
    return cachePath + ".qtnodata";
}

Result<NodataMask> readNodataSidecar(const std::string& path, const FileStamp& cache, int width,
                                     int height, int64_t samples) {
    using R = Result<NodataMask>;
    const uint64_t words = maskWords(width, height);
    Result<std::vector<unsigned char>> read = readFileOfSize(path, kHeaderBytes + words * 8);
    if (!read) {
        return R::failure(read.error());
    }
    const unsigned char* bytes = read.value().data();
    if (std::memcmp(bytes, kNodataSidecarMagic.bytes, kFileMagicBytes) != 0 ||
        getField<uint32_t>(bytes + 8) != kVersion) {
        return R::failure("not a nodata sidecar of this version");
    }
    if (getField<uint64_t>(bytes + 16) != cache.bytes ||
        getField<int64_t>(bytes + 24) != cache.mtimeNs) {
        return R::failure("stale (made for another code cache)");
    }
    if (getField<uint32_t>(bytes + 32) != uint32_t(width) ||
        getField<uint32_t>(bytes + 36) != uint32_t(height) ||
        getField<uint64_t>(bytes + 40) != uint64_t(samples)) {
        return R::failure("made for another map");
    }
    if (getField<uint64_t>(bytes + kChecksumOffset) != checksum(bytes, read.value().size())) {
        return R::failure("corrupt (checksum)");
    }
    NodataMask mask;
    mask.width = width;
    mask.height = height;
    mask.samples = samples;
    mask.total = int64_t(width) * height;
    mask.bits.resize(size_t(words));
    uint64_t set = 0;
    for (size_t w = 0; w < mask.bits.size(); ++w) {
        mask.bits[w] = getField<uint64_t>(bytes + kHeaderBytes + w * 8);
        set += std::bitset<64>(mask.bits[w]).count();
    }
    const uint64_t tail = uint64_t(width) * uint64_t(height) % 64;
    if (set != uint64_t(samples) || (tail != 0 && (mask.bits.back() >> tail) != 0)) {
        return R::failure("corrupt (its bits are not its count)");
    }
    return mask;
}

Status writeNodataSidecar(const std::string& path, const FileStamp& cache, const NodataMask& mask) {
    const uint64_t words = maskWords(mask.width, mask.height);
    if (mask.bits.size() != words) {
        return Status::failure("no mask to save");
    }
    std::vector<unsigned char> bytes(kHeaderBytes + size_t(words) * 8, 0);
    std::memcpy(bytes.data(), kNodataSidecarMagic.bytes, kFileMagicBytes);
    putField<uint32_t>(&bytes[8], kVersion);
    putField<uint64_t>(&bytes[16], cache.bytes);
    putField<int64_t>(&bytes[24], cache.mtimeNs);
    putField<uint32_t>(&bytes[32], uint32_t(mask.width));
    putField<uint32_t>(&bytes[36], uint32_t(mask.height));
    putField<uint64_t>(&bytes[40], uint64_t(mask.samples));
    for (size_t w = 0; w < mask.bits.size(); ++w) {
        putField<uint64_t>(&bytes[kHeaderBytes + w * 8], mask.bits[w]);
    }
    putField<uint64_t>(&bytes[kChecksumOffset], checksum(bytes.data(), bytes.size()));
    return writeOwnFile(path, kNodataSidecarMagic, bytes.data(), bytes.size());
}

}  // namespace qt
