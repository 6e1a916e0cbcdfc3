// Opening a heightmap file of any format: the format chosen by its extension, its length and
// header checked before its pixels are read, then the decoder for it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/io/memory_budget.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"

namespace qt {

// How a PNG packs a height into its red, green and blue bytes (--encoding).
enum class HeightEncoding {
    Gray,        // one channel (luminance of colour images)
    TerrainRgb,  // Mapbox: -10000 + (R * 65536 + G * 256 + B) * 0.1 metres
    Terrarium,   // Mapzen: R * 256 + G + B / 256 - 32768 metres
};

// How far a long first read has gone, `done` of `total` steps, told after each step: a baked
// layout's level 0 by rows of tiles (those kept from an earlier open's partial cache included), a
// GDAL raster's pass into its code cache by rows (a float band's two passes, the read and the
// quantisation, one after the other: 2 x its rows). Called from the reading threads, one call at
// a time; empty: nobody is told.
using ReadProgress = std::function<void(int64_t done, int64_t total)>;

// `done` of `total` in whole percents, 0 to 100 (0 while the total is unknown).
inline int readPercent(int64_t done, int64_t total) {
    return total > 0 ? int(std::min<int64_t>(std::max<int64_t>(done, 0) * 100 / total, 100)) : 0;
}

struct LoadOptions {
    // Size of a headerless .r16/.raw file; 0 x 0 infers a square from the file length.
    int rawWidth = 0;
    int rawHeight = 0;
    // How a PNG's channels hold heights; anything but Gray applies to 8-bit RGB(A) PNGs only.
    HeightEncoding encoding = HeightEncoding::Gray;
    // Bytes the loaded map may take at its peak (checkMemoryBudget, before the pixels are read).
    MemoryBudget memory{};
    // An SRTM tile's name ("N47E009") that gives an .hgt its georeference whatever the file is
    // called; empty: the file's own name does, when it is a tile's.
    std::string hgtTile{};
    // Nodata samples (Heightmap::nodata) drawn as their fill, as terrain; false: as holes.
    bool fillNodata = false;
    // Where a streamed map's code cache and tree sidecar go (core/streaming/cache_folder.h): the
    // cache folder cacheDir ("": $XDG_CACHE_HOME/quadterrain, else ~/.cache/quadterrain), or
    // beside the map when cacheBeside.
    std::string cacheDir{};
    bool cacheBeside = false;
    // --cache-size: the cache folder's own files at most this many bytes, the least recently used
    // code caches removed to make room for a new one (trimCacheFolder); 0: no bound.
    uint64_t cacheSizeBytes = 0;
    // A baked layout opened streamed: its level 0 fetched by tiles as readers ask for them
    // (OpenedMap::tiles), none at open (StreamOptions::layoutByTiles).
    bool layoutByTiles = false;
    // Told how far a long first read has gone (ReadProgress).
    ReadProgress readProgress{};
};

// Called with a map's size once the file's header (or length, or GDAL's raster) gives it, before
// the samples are read; a failure refuses the map with its line. The viewer checks there that the
// GPU can hold the map.
using SizeCheck = std::function<Status(int width, int height)>;

// Loads PNG (8/16-bit), JPEG, BMP, TGA, PGM/PPM, GIF, PSD, HDR, SRTM .hgt and raw 16-bit LE.
// Colour images become one channel by stb_image's luminance (77 R + 150 G + 29 B) / 256;
// alpha is ignored. Errors are one line that starts with the path (control bytes escaped). The
// file's length and header are checked before its pixels are read (kMaxFileBytes, the size
// limits, truncation), and the compressed data is walked before stb_image decodes it.
// `acceptSize`, when set, may refuse the map from its size before its samples are read.
// With `tree` set, a GDAL raster also gets the first frame's tree, buildQuadtree(map,
// treeLeafSize), built during its read (loadGdalHeightmapWithTree) into *tree;
// other formats leave *tree untouched, for the caller to build.
Result<Heightmap> loadHeightmap(const std::string& path, const LoadOptions& options = {},
                                const SizeCheck& acceptSize = {}, int treeLeafSize = 0,
                                Quadtree* tree = nullptr);

// Decodes bytes already in memory as the format `extension` names (".png", ".hgt", ...); `name`
// starts every error line. loadHeightmap() checks the length and header of the file,
// reads it and calls this, which runs every image check again on the whole file.
Result<Heightmap> decodeHeightmap(const std::string& name, const std::string& extension,
                                  const std::vector<unsigned char>& bytes,
                                  const LoadOptions& options = {});

// The path's extension from its last dot, lower-case (".png"); "" when it has none.
std::string lowerExtension(const std::string& path);

}  // namespace qt
