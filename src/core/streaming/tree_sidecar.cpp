// Reads and writes the tree sidecar: a fixed header, then the leaf ranges, the coarse errors, the
// fold errors and the leaves' fold errors, covered by a checksum.
#include "core/streaming/tree_sidecar.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "core/base/byte_fields.h"
#include "core/base/checksum.h"
#include "core/base/huge_pages.h"
#include "core/streaming/own_files.h"
#include "core/terrain/leaf_ranges.h"

namespace qt {
namespace {

// Header layout (little-endian), kHeaderBytes in all:
//   0 magic "QTSIDECR"          8 version u32        12 lodErrors u8, exactLevels u8,
//                                                     14 leaf folds u8 (0 or 1), 0 u8
//  16 map bytes u64            24 map mtime ns i64  32 width u32  36 height u32  40 leafSize u32
//  44 minCode u16, maxCode u16 48 leaf count u64    56 error count u64         64 checksum u64
// then leaf count x (minCode u16, maxCode u16), error count x u16 coarse errors and as many fold
// errors (Quadtree::foldErrors), and with leaf folds 1, leaf count x u16 leaf fold errors
// (Quadtree::leafFoldErrors). The checksum covers the header's other bytes and the payload.
constexpr uint32_t kVersion = 3;
constexpr size_t kHeaderBytes = 72;
constexpr size_t kChecksumOffset = 64;  // the checksum covers every byte but its own

// A 64-bit hash of the header before the checksum field and the payload: a few milliseconds for
// a 32769-class map's sidecar.
uint64_t checksum(const unsigned char* file, size_t count) {
    const uint64_t h = hashWords(kChecksumSeed, file, kChecksumOffset);
    return mixHash(hashWords(h, file + kHeaderBytes, count - kHeaderBytes));
}

struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

using R = Result<TreeSidecar>;

}  // namespace

std::string sidecarPath(const std::string& mapPath) {
    return mapPath + ".qtree";
}

uint64_t sidecarBytes(int width, int height, int leafSize) {
    return quadtreeNodeCount(width, height, leafSize) * 6 + 4096;
}

Result<TreeSidecar> parseTreeSidecar(const unsigned char* bytes, size_t count, const FileStamp& map,
                                     int width, int height, int leafSize) {
    if (count < kHeaderBytes || std::memcmp(bytes, kTreeSidecarMagic.bytes, kFileMagicBytes) != 0) {
        return R::failure(count < kHeaderBytes ? "truncated" : "not a tree sidecar");
    }
    if (getField<uint32_t>(bytes + 8) != kVersion) {
        return R::failure("version " + std::to_string(getField<uint32_t>(bytes + 8)) + ", not " +
                          std::to_string(kVersion));
    }
    if (getField<uint64_t>(bytes + 16) != map.bytes ||
        getField<int64_t>(bytes + 24) != map.mtimeNs) {
        return R::failure("stale (map changed)");
    }
    if (getField<uint32_t>(bytes + 32) != uint32_t(width) ||
        getField<uint32_t>(bytes + 36) != uint32_t(height)) {
        return R::failure("made for another map size");
    }
    if (getField<uint32_t>(bytes + 40) != uint32_t(leafSize)) {
        return R::failure("made for leaf size " + std::to_string(getField<uint32_t>(bytes + 40)) +
                          ", not " + std::to_string(leafSize));
    }
    const int leavesX = leavesAlong(width, leafSize);
    const int leavesZ = leavesAlong(height, leafSize);
    const uint64_t leaves = uint64_t(leavesX) * uint64_t(leavesZ);
    // Inner nodes, level by level (Quadtree::levelStart): a coarse and a fold error each.
    uint64_t inner = 0;
    int depth = 0;
    for (int level = 1; (std::max(leavesX, leavesZ) - 1) >> (level - 1) > 0; ++level) {
        inner += uint64_t(((leavesX - 1) >> level) + 1) * uint64_t(((leavesZ - 1) >> level) + 1);
        depth = level;
    }
    const uint8_t kind = bytes[12];
    const int exactLevels = bytes[13];
    const uint64_t leafEntries = getField<uint64_t>(bytes + 48);
    const uint64_t errorEntries = getField<uint64_t>(bytes + 56);
    if (leafEntries != leaves) {
        return R::failure("corrupt (" + std::to_string(leafEntries) + " leaves, the map has " +
                          std::to_string(leaves) + ")");
    }
    if (errorEntries != inner) {
        return R::failure("corrupt (" + std::to_string(errorEntries) +
                          " coarse errors, the tree has " + std::to_string(inner) +
                          " inner nodes)");
    }
    const uint8_t leafFolds = bytes[14];
    if (leafFolds > 1) {
        return R::failure("corrupt (leaf folds " + std::to_string(leafFolds) + ")");
    }
    if (kind > uint8_t(LodErrors::Mixed) || exactLevels > depth) {
        return R::failure("corrupt (error kind " + std::to_string(kind) + ", " +
                          std::to_string(exactLevels) + " exact levels)");
    }
    const uint64_t expected = kHeaderBytes + leafEntries * (4 + 2 * leafFolds) + errorEntries * 4;
    if (uint64_t(count) != expected) {
        return R::failure(uint64_t(count) < expected ? "truncated" : "corrupt (trailing bytes)");
    }
    const unsigned char* payload = bytes + kHeaderBytes;
    if (checksum(bytes, count) != getField<uint64_t>(bytes + kChecksumOffset)) {
        return R::failure("corrupt (checksum)");
    }
    TreeSidecar sidecar;
    sidecar.map = map;
    sidecar.width = width;
    sidecar.height = height;
    sidecar.leafSize = leafSize;
    sidecar.lodErrors = LodErrors(kind);
    sidecar.exactLevels = exactLevels;
    sidecar.minCode = getField<uint16_t>(bytes + 44);
    sidecar.maxCode = getField<uint16_t>(bytes + 46);
    // Copied as bytes (a tree of one leaf has no errors, and memcpy may not take an empty
    // vector's null pointer).
    const auto copyInto = [](auto& values, size_t entries, const unsigned char* from) {
        resizeHuge(values, entries);
        std::copy(from, from + entries * sizeof values[0],
                  reinterpret_cast<unsigned char*>(values.data()));
    };
    copyInto(sidecar.leafRanges, size_t(leafEntries), payload);
    copyInto(sidecar.coarseErrors, size_t(errorEntries), payload + leafEntries * 4);
    copyInto(sidecar.foldErrors, size_t(errorEntries),
             payload + leafEntries * 4 + errorEntries * 2);
    if (leafFolds != 0) {
        copyInto(sidecar.leafFoldErrors, size_t(leafEntries),
                 payload + leafEntries * 4 + errorEntries * 4);
    }
    return sidecar;
}

Result<TreeSidecar> readTreeSidecar(const std::string& path, const FileStamp& map, int width,
                                    int height, int leafSize) {
    const Result<int> opened = openRegularFile(path);
    if (!opened) {
        return R::failure(opened.error());
    }
    const int fd = opened.value();
    FilePtr file(::fdopen(fd, "rb"));
    if (!file) {
        const int error = errno;
        ::close(fd);
        return R::failure(std::string("unreadable: ") + std::strerror(error));
    }
    // The header first: its sizes are checked before the payload is allocated.
    std::vector<unsigned char> bytes(kHeaderBytes);
    const size_t got = std::fread(bytes.data(), 1, kHeaderBytes, file.get());
    Result<TreeSidecar> header = parseTreeSidecar(bytes.data(), got, map, width, height, leafSize);
    if (!header && header.error() != "truncated") {
        return header;
    }
    if (got < kHeaderBytes) {
        return R::failure("truncated");
    }
    const uint64_t leafEntries = getField<uint64_t>(bytes.data() + 48);
    const uint64_t errorEntries = getField<uint64_t>(bytes.data() + 56);
    const uint64_t expected =
        kHeaderBytes + leafEntries * (4 + 2 * uint64_t(bytes[14] != 0)) + errorEntries * 4;
    resizeHuge(bytes, size_t(expected) + 1);  // one more: a longer file is found
    const size_t rest =
        std::fread(bytes.data() + kHeaderBytes, 1, bytes.size() - kHeaderBytes, file.get());
    return parseTreeSidecar(bytes.data(), kHeaderBytes + rest, map, width, height, leafSize);
}

Status writeTreeSidecar(const std::string& path, const TreeSidecar& sidecar) {
    const size_t leafBytes = sidecar.leafRanges.size() * 4;
    const size_t errorBytes = sidecar.coarseErrors.size() * 2;
    assert(sidecar.foldErrors.size() == sidecar.coarseErrors.size());
    assert(sidecar.leafFoldErrors.empty() ||
           sidecar.leafFoldErrors.size() == sidecar.leafRanges.size());
    const size_t leafFoldBytes = sidecar.leafFoldErrors.size() * 2;
    std::vector<unsigned char> bytes(kHeaderBytes + leafBytes + 2 * errorBytes + leafFoldBytes, 0);
    std::memcpy(bytes.data(), kTreeSidecarMagic.bytes, kFileMagicBytes);
    putField<uint32_t>(&bytes[8], kVersion);
    bytes[12] = uint8_t(sidecar.lodErrors);
    bytes[13] = uint8_t(sidecar.exactLevels);
    bytes[14] = sidecar.leafFoldErrors.empty() ? 0 : 1;
    putField<uint64_t>(&bytes[16], sidecar.map.bytes);
    putField<int64_t>(&bytes[24], sidecar.map.mtimeNs);
    putField<uint32_t>(&bytes[32], uint32_t(sidecar.width));
    putField<uint32_t>(&bytes[36], uint32_t(sidecar.height));
    putField<uint32_t>(&bytes[40], uint32_t(sidecar.leafSize));
    putField<uint16_t>(&bytes[44], sidecar.minCode);
    putField<uint16_t>(&bytes[46], sidecar.maxCode);
    putField<uint64_t>(&bytes[48], uint64_t(sidecar.leafRanges.size()));
    putField<uint64_t>(&bytes[56], uint64_t(sidecar.coarseErrors.size()));
    unsigned char* payload = bytes.data() + kHeaderBytes;
    // Copied as bytes; a tree of one leaf has no errors (and memcpy may not take the empty
    // vectors' null pointers).
    const auto copyBytes = [](const auto& values, unsigned char* to) {
        const auto* from = reinterpret_cast<const unsigned char*>(values.data());
        std::copy(from, from + values.size() * sizeof values[0], to);
    };
    copyBytes(sidecar.leafRanges, payload);
    copyBytes(sidecar.coarseErrors, payload + leafBytes);
    copyBytes(sidecar.foldErrors, payload + leafBytes + errorBytes);
    copyBytes(sidecar.leafFoldErrors, payload + leafBytes + 2 * errorBytes);
    putField<uint64_t>(&bytes[kChecksumOffset], checksum(bytes.data(), bytes.size()));
    // Only a sidecar of ours is replaced: a file of anyone else's at its path stays as it is.
    return writeOwnFile(path, kTreeSidecarMagic, bytes.data(), bytes.size());
}

}  // namespace qt
