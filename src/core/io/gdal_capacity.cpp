// A raster's declared size against the bytes its files hold: GeoTIFF block by block, ESRI ASCII
// grids by their text, anything else by the files' total.
#include "core/io/gdal_capacity.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cpl_string.h>
#include <cpl_vsi.h>

#include "core/io/ascii_grid.h"

namespace qt {
namespace {

// The file's length through GDAL's file layer; 0 when it cannot say.
uint64_t fileBytes(const char* gdalPath) {
    VSIStatBufL st{};
    return VSIStatL(gdalPath, &st) == 0 ? uint64_t(st.st_size) : 0;
}

// The most a byte of a TIFF codec's data expands to; 0 for codecs not checked.
uint64_t tiffExpansion(const char* codec) {
    if (codec == nullptr || EQUAL(codec, "NONE")) {
        return 1;
    }
    if (EQUAL(codec, "PACKBITS")) {
        return 64;  // a run of 128 bytes in 2
    }
    if (EQUAL(codec, "LZW")) {
        return 4096;  // a code of at least 9 bits for a string of at most 4096 bytes
    }
    if (EQUAL(codec, "DEFLATE") || EQUAL(codec, "ADOBE_DEFLATE")) {
        return 1032;  // 258 bytes a match, in no fewer than 2 bits
    }
    if (EQUAL(codec, "ZSTD")) {
        return 32768;  // a run-length block: 4 bytes for up to 128 KiB
    }
    return 0;
}

std::string number(uint64_t v) {
    return std::to_string(v);
}

// An unsigned integer of `bytes` bytes at `p`, in the file's byte order.
uint64_t readUnsigned(const unsigned char* p, int bytes, bool bigEndian) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) {
        v |= uint64_t(p[bigEndian ? bytes - 1 - i : i]) << (8 * i);
    }
    return v;
}

// The first directory's arrays of block offsets and sizes (StripOffsets, StripByteCounts,
// TileOffsets, TileByteCounts) inside the file: libtiff reads them lazily and takes a block whose
// entry it cannot read for one left out, so a TIFF declaring thousands of blocks in a kilobyte
// would read as a sparse one.
Status checkTiffArrays(const char* gdalPath, uint64_t length) {
    VSILFILE* file = VSIFOpenL(gdalPath, "rb");
    if (file == nullptr || length == 0) {
        if (file != nullptr) {
            VSIFCloseL(file);
        }
        return {};
    }
    auto read = [&](uint64_t at, unsigned char* into, size_t n) {
        return VSIFSeekL(file, at, SEEK_SET) == 0 && VSIFReadL(into, 1, n, file) == n;
    };
    Status result;
    unsigned char head[16] = {};
    const bool bigEndian = read(0, head, 8) && head[0] == 'M';
    const uint64_t magic = readUnsigned(head + 2, 2, bigEndian);
    const bool big = magic == 43;  // BigTIFF: 8-byte counts and offsets
    const int word = big ? 8 : 4;
    uint64_t ifd = 0;
    if ((magic == 42 || (big && read(8, head + 8, 8))) &&
        (ifd = readUnsigned(head + (big ? 8 : 4), word, bigEndian)) != 0) {
        unsigned char countBytes[8] = {};
        const int countSize = big ? 8 : 2;
        const uint64_t entries = read(ifd, countBytes, size_t(countSize))
                                     ? readUnsigned(countBytes, countSize, bigEndian)
                                     : 0;
        const int entrySize = big ? 20 : 12;
        for (uint64_t e = 0; e < std::min<uint64_t>(entries, 4096) && result.ok(); ++e) {
            unsigned char entry[20] = {};
            if (!read(ifd + uint64_t(countSize) + e * entrySize, entry, size_t(entrySize))) {
                break;
            }
            const uint64_t tag = readUnsigned(entry, 2, bigEndian);
            if (tag != 273 && tag != 279 && tag != 324 && tag != 325) {
                continue;
            }
            const uint64_t type = readUnsigned(entry + 2, 2, bigEndian);
            const uint64_t size = type == 3 ? 2 : type == 4 ? 4 : type == 16 ? 8 : 0;
            const uint64_t count = readUnsigned(entry + 4, word, bigEndian);
            if (size == 0 || count > (uint64_t(1) << 40) || count * size <= uint64_t(word)) {
                continue;  // another type (GDAL refuses it), or held in the entry itself
            }
            const uint64_t at = readUnsigned(entry + 4 + word, word, bigEndian);
            if (at > length || count * size > length - at) {
                result = Status::failure(
                    std::string("TIFF: truncated: the ") +
                    (tag == 273 || tag == 324 ? "offsets" : "sizes") + " of its " + number(count) +
                    (tag < 300 ? " strips" : " tiles") + " (" + number(count * size) +
                    " bytes at offset " + number(at) + ") run past the end of the file (" +
                    number(length) + " bytes)");
            }
        }
    }
    VSIFCloseL(file);
    return result;
}

// Every block of a GeoTIFF's band inside its file and big enough for what it decodes to.
Status checkTiffBlocks(GDALDataset& dataset, GDALRasterBand& band) {
    const uint64_t length = fileBytes(dataset.GetDescription());
    const char* codec = dataset.GetMetadataItem("COMPRESSION", "IMAGE_STRUCTURE");
    const uint64_t expansion = tiffExpansion(codec);
    const uint64_t sampleBytes = uint64_t(GDALGetDataTypeSizeBytes(band.GetRasterDataType()));
    const int width = band.GetXSize();
    const int height = band.GetYSize();
    int blockWidth = 0;
    int blockHeight = 0;
    band.GetBlockSize(&blockWidth, &blockHeight);
    if (blockWidth <= 0 || blockHeight <= 0) {
        return {};
    }
    const int across = (width - 1) / blockWidth + 1;
    const int down = (height - 1) / blockHeight + 1;
    const bool strips = blockWidth == width;
    if (Status arrays = checkTiffArrays(dataset.GetDescription(), length); !arrays) {
        return arrays;
    }
    char key[64];
    for (int y = 0; y < down; ++y) {
        // Strips end with the image; tiles are stored whole.
        const uint64_t rows = strips ? uint64_t(std::min(blockHeight, height - y * blockHeight))
                                     : uint64_t(blockHeight);
        const uint64_t decoded = rows * uint64_t(blockWidth) * sampleBytes;
        for (int x = 0; x < across; ++x) {
            std::snprintf(key, sizeof key, "BLOCK_OFFSET_%d_%d", x, y);
            const char* offsetText = band.GetMetadataItem(key, "TIFF");
            std::snprintf(key, sizeof key, "BLOCK_SIZE_%d_%d", x, y);
            const char* sizeText = band.GetMetadataItem(key, "TIFF");
            if (offsetText == nullptr || sizeText == nullptr) {
                continue;  // left out of the file: GDAL reads it as nodata
            }
            const uint64_t offset = std::strtoull(offsetText, nullptr, 10);
            const uint64_t size = std::strtoull(sizeText, nullptr, 10);
            const std::string block = "block " + std::to_string(x) + "," + std::to_string(y);
            if (length > 0 && (offset > length || size > length - offset)) {
                return Status::failure("TIFF: truncated: " + block + " of " + number(size) +
                                       " bytes at offset " + number(offset) +
                                       " runs past the end of the file (" + number(length) +
                                       " bytes)");
            }
            if (expansion > 0 && size < (decoded + expansion - 1) / expansion) {
                return Status::failure(
                    "TIFF: " + block + " holds " + number(size) + " bytes, too few for the " +
                    number(decoded) + " bytes of samples it stands for (" +
                    (expansion == 1
                         ? std::string("uncompressed")
                         : std::string(codec) + " expands at most " + number(expansion) + " to 1") +
                    ")");
            }
        }
    }
    return {};
}

}  // namespace

Status checkGdalCapacity(GDALDataset& dataset, GDALRasterBand& band) {
    GDALDriver* driver = dataset.GetDriver();
    const char* format = driver != nullptr ? driver->GetDescription() : "";
    const int width = band.GetXSize();
    const int height = band.GetYSize();
    if (EQUAL(format, "GTiff")) {
        return checkTiffBlocks(dataset, band);
    }
    if (EQUAL(format, "AAIGrid")) {
        const uint64_t length = fileBytes(dataset.GetDescription());
        const uint64_t least = asciiGridLeastBytes(width, height);
        if (length < least) {
            return Status::failure("ESRI ASCII grid: truncated: " + std::to_string(width) + "x" +
                                   std::to_string(height) + " samples need at least " +
                                   number(least) + " bytes of text, the file has " +
                                   number(length));
        }
        return checkAsciiGrid(dataset.GetDescription(), width, height,
                              band.GetRasterDataType() == GDT_Int32);
    }
    uint64_t bytes = 0;
    char** files = dataset.GetFileList();
    for (char** f = files; f != nullptr && *f != nullptr; ++f) {
        bytes += fileBytes(*f);
    }
    CSLDestroy(files);
    const uint64_t samples = uint64_t(width) * uint64_t(height) *
                             uint64_t(GDALGetDataTypeSizeBytes(band.GetRasterDataType()));
    if (bytes < (samples + kMaxGdalExpansion - 1) / kMaxGdalExpansion) {
        return Status::failure("its files hold " + number(bytes) + " bytes, too few for " +
                               std::to_string(width) + "x" + std::to_string(height) +
                               " samples of " + number(samples / (uint64_t(width) * height)) +
                               " bytes (no format read here expands more than " +
                               number(kMaxGdalExpansion) + " to 1)");
    }
    return {};
}

}  // namespace qt
