// Internal to the loaders (core/io/*.cpp): each format's decoder from bytes in memory, and what
// they share. Not installed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/io/image_header.h"
#include "core/io/load.h"
#include "core/io/raw16.h"
#include "core/terrain/heightmap.h"

namespace qt {

struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

inline Result<Heightmap> loadFailure(const std::string& path, const std::string& problem) {
    return Result<Heightmap>::failure(path + ": " + problem);
}

// No format here packs more than kMaxPixelsPerByte pixels in a byte (deflate 1032:1, GIF's LZW
// about 1400:1, RLE 128:1): a smaller file is truncated, and some stb decoders would allocate and
// zero-fill the whole claimed image before noticing.
Status checkDensity(const ImageInfo& info, uint64_t fileSize);

// Whether stb_image (or, for PGM/PPM, decodePnm) reads files with this extension.
bool isStbExtension(const std::string& ext);

// The header checks, then stb_image (PGM/PPM are decoded by decodePnm); 16-bit grayscale PNG
// straight into the codes (core/io/png_gray16.h).
Result<Heightmap> decodeStbImage(const std::string& path, const std::vector<unsigned char>& bytes,
                                 const LoadOptions& options);

// Binary PGM (P5) and PPM (P6), 8- or 16-bit. Decoded here because stb_image's 16-bit PNM path
// (Debian's 2022 stb) reports 16 bits but returns an 8-bit buffer.
Result<Heightmap> decodePnm(const std::string& path, const std::vector<unsigned char>& bytes);

// SRTM .hgt: big-endian signed 16-bit, square; voids filled; georeferenced from its name.
// The georeference comes from options.hgtTile when set, else from the file's name; a tile-sized
// file (1201 or 3601 a side) whose name is not a tile's says so in one line on stderr.
Result<Heightmap> decodeHgt(const std::string& path, const std::vector<unsigned char>& bytes,
                            const LoadOptions& options);

// Headerless little-endian 16-bit samples of the size options give (or a square).
Result<Heightmap> decodeRaw16(const std::string& path, const std::vector<unsigned char>& bytes,
                              const LoadOptions& options);

// A .r16/.raw file read straight into the codes (its little-endian samples swapped on a big-endian
// host): 2 bytes a sample, no copy of the file beside them.
Result<Heightmap> readRaw16File(const std::string& path, const std::string& name,
                                const RawGrid& grid);

}  // namespace qt
