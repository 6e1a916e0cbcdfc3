// The baked layout (quadterrain-bake, bake.h) and its reading side: a map baked once into files a
// viewer can stream by pages without reading it whole, each a standard GeoTIFF where one fits. A
// layout is a folder holding
//   layout.json    the map's size, leaf and page sizes, height coding, georeference and nodata
//                  share, and a checksum for every file and every tile the viewer reads;
//   heights-K.tif  level K (0 to the tree's depth): the map's samples at stride 2^K exactly as
//                  qt::PageLevel takes them (never averaged: the crack-free level of detail and
//                  the occlusion bounds need the samples), 16-bit codes as a Cloud-Optimised
//                  GeoTIFF in tiles of pageSize^2, tile (px, py) holding page (K, px, py)'s
//                  squares; its band's scale and offset give the heights (metres where the map's
//                  are), its geotransform puts each sample where it lies, nodata in its mask;
//   tree.qtree     the tree's bounds and level-of-detail errors (tree_sidecar.h, stamped with no
//                  file: the layout's checksums vouch for it).
// layout.json is written last, so a folder without one is not a layout.
//
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/io/load.h"
#include "core/streaming/tree_sidecar.h"
#include "core/terrain/heightmap.h"

class GDALRasterBand;

namespace qt {

class GdalMessages;
struct GdalRaster;

// The layout's own files' names and its manifest's format.
constexpr const char* kLayoutManifest = "layout.json";
constexpr const char* kLayoutFormat = "quadterrain layout";
constexpr int kLayoutVersion = 2;  // 2: the tiles' checksums hold their masks
constexpr const char* kLayoutTree = "tree.qtree";
// A layout.json larger than this is refused before it is read (about 20 bytes a tile: 2^23 tiles).
constexpr uint64_t kMaxLayoutManifestBytes = uint64_t(256) << 20;
// The most levels above level 0 a layout.json is read for (a map of 262145 a side has 19).
constexpr int kMaxLayoutLevel = 24;

// Level `level`'s file: a COG, or a mosaic of the regions' COGs (a bake by jobs).
std::string layoutLevelFile(int level, bool mosaic = false);

// `name` in the layout `folder` (a path or a URL), as the program names it.
std::string layoutPath(const std::string& folder, const std::string& name);

// A checksum as layout.json writes it: 16 hexadecimal digits.
std::string checksumHex(uint64_t value);

// A tile's checksum chains its rows of codes, each hashed in the machine's byte order (from
// kChecksumSeed), then mixes (mixHash): one row of `count` codes chained onto `h`.
uint64_t chainTileCodes(uint64_t h, const uint16_t* codes, int count);

// The checksum of a tile of w x h codes whose rows are `pitch` codes apart and, in a layout with
// holes, of its mask (`valid`, the same pitch, nonzero for a given sample; null without holes):
// its rows of codes chained one after another (chainTileCodes), then its mask's rows as one byte a
// sample, 1 given and 0 a hole, then mixed. What layout.json holds for each tile, so that a
// tile's holes are held to it as its codes are.
uint64_t tileChecksum(const uint16_t* codes, const uint8_t* valid, int w, int h, size_t pitch);

// The checksum of a file's bytes (the tree's, a region's tree part).
uint64_t bytesChecksum(const std::vector<unsigned char>& bytes);

// Checks the layout in `folder` against its layout.json: every level's size and tiling, every
// tile's codes and the tree's bytes against their checksums, GDAL's block cache capped while it
// reads. One line naming the first file and tile that do not match.
Status verifyLayout(const std::string& folder);

// What a viewer reads first of a layout: its layout.json, held to the format (a regular file of
// at most 256 MiB before it is parsed, of this format and version, a page size a layout can
// have, a file a level).
struct LayoutManifest {
    std::string folder;     // as it was named (a path or a URL)
    std::string levelZero;  // level 0's file (a COG, or a mosaic of the regions' COGs), as named
    int width = 0;          // the map's samples
    int height = 0;
    int leafSize = 0;  // of the tree in tree.qtree
    int pageSize = 0;  // the tiles' side
    int64_t nodataSamples = 0;
    std::vector<std::string> levelZeroTiles;  // level 0's tiles' checksums, row-major
    // Levels 1 and up (upperLevels[K - 1] is level K), for the pyramid's pages of those levels.
    struct Level {
        std::string file;  // as named (a COG, or a mosaic, checked when first opened)
        int columns = 0;   // samples: ceil((width - 1) / 2^K) + 1
        int rows = 0;
        std::vector<std::string> tiles;  // checksums, row-major
    };
    std::vector<Level> upperLevels;
    std::string tree;  // tree.qtree, as named
    uint64_t treeBytes = 0;
    std::string treeChecksum;
};

// Level 0's file's name as the layout's lines name it ("heights-0.tif", or ".vrt").
std::string levelZeroName(const LayoutManifest& layout);

// Whether the level file `name` opened as `raster` is what layout.json says: columns x rows
// 16-bit codes in tiles of the page size (a mosaic's tiles are its regions' files': GDAL takes no
// block under 32 for a VRT). One line naming it when not.
Status levelAsManifestSays(const GdalRaster& raster, const std::string& name, int columns, int rows,
                           int pageSize);

// Reads the w x h codes at column x, row y of a level's band (and, with `mask`, its mask into
// `valid`), tile (tx, ty) of its file, and holds them to `checksum` (tileChecksum). One line
// without the file's name when a read fails ("tile (tx, ty) cannot be read", with GDAL's cause
// from `said`) or they do not match ("tile (tx, ty) does not match its checksum").
Status readCheckedTile(GDALRasterBand& band, GDALRasterBand* mask, int tx, int ty, int x, int y,
                       int w, int h, uint16_t* codes, uint8_t* valid, const std::string& checksum,
                       const GdalMessages& said);

// Reads and checks `folder`'s layout.json (one line, without the folder, when it is not one).
Result<LayoutManifest> readLayoutManifest(const std::string& folder);

// Holds the mosaic `name` (level `level`'s heights-K.vrt) of the layout `folder` to what a join
// writes, before GDAL opens it: a regular file of at most 64 MiB, XML whose every source is one of
// the layout's regions' files by a path relative to it ("regions/X-Z/heights-K.tif"), with no band
// of another kind (raw, or derived by a pixel function). So a mosaic fetched from a server never
// makes GDAL read a file of this machine nor run anything. One line naming what is not.
Status checkLayoutMosaic(const std::string& folder, const std::string& name, int level);

// Where a level's tiles lie: in the level's COG, or for a mosaic (a joined layout's heights-K.vrt)
// in the regions' files its sources name, each holding whole tiles of the level. So a reader of a
// tile opens the one file that holds it (openLayoutLevelFile) and asks nothing of the others:
// a mosaic read through GDAL's VRT driver has every source checked first (gdal_inputs.h), two
// requests a region over HTTP, at each open.
struct LayoutLevelFiles {
    struct File {
        std::string name;    // as lines name it: "heights-0.tif", "regions/2-1/heights-0.tif"
        std::string path;    // as GDAL opens it (a URL through /vsicurl/)
        int x0 = 0, y0 = 0;  // its first sample's place in the level
        int columns = 0, rows = 0;
    };
    std::vector<File> files;
    std::vector<uint32_t> tileFile;  // per tile of the level (row-major), its file's index
    int tilesX = 0;
    int pageSize = 0;
    // A mosaic's XML without its sources: what it says of the level (place, coding, units) read
    // through GDAL with nothing else opened. Empty for a COG.
    std::string sourceless;

    const File& fileOf(int tx, int ty) const {
        return files[tileFile[size_t(ty) * size_t(tilesX) + size_t(tx)]];
    }
    uint32_t fileIndex(int tx, int ty) const {
        return tileFile[size_t(ty) * size_t(tilesX) + size_t(tx)];
    }
};

// The files of level `level` of the layout in `folder`, its file `name` (a COG, or a mosaic held
// to what a join writes: checkLayoutMosaic, with every source of the band a region's file placed
// whole, at a multiple of the page size, the sources tiling the level's columns x rows). One line
// naming the level's file when not.
Result<LayoutLevelFiles> layoutLevelFiles(const std::string& folder, const std::string& name,
                                          int level, int columns, int rows, int pageSize);

// Opens `file` of a layout's level as a GeoTIFF and nothing else (a file a server sends as a
// VRT naming this machine's files is refused, not opened: so it needs no check of inputs), with
// no look for sidecar files beside it (a layout has none; over HTTP each is a request), a local
// one a regular file; held to its place: one band of 16-bit codes, its columns x rows in tiles of
// `pageSize`. One line naming the file when not.
Result<GdalRaster> openLayoutLevelFile(const LayoutLevelFiles::File& file, int pageSize,
                                       const GdalMessages& said);

// What identifies a layout's level 0 and tree by their content: a checksum of its sizes, its
// level 0's tiles' checksums and its tree's. A code cache made from them (streamed_gdal.h) is
// known by it wherever the layout is served from, with no request for its files.
uint64_t layoutSignature(const LayoutManifest& layout);

// A layout read as a map held whole: level 0's codes as the bake wrote them and its mask, every
// tile held to its checksum as it is read (one pass through GDAL, a thread a core up to four,
// each on its own dataset), and the bake's tree. Its holes' codes are the bake's fill, which the
// tree's errors were made over.
struct LayoutMap {
    Heightmap map;     // format Elevation; coding, metres and place from level 0's band
    TreeSidecar tree;  // tree.qtree, held to its size and checksum before it is parsed
};

class CodeCacheWriter;

// Opens `layout`'s level 0 for what it says of the map (size, place, coding, units), asking for
// none of a mosaic's regions: its COG as openLayoutLevelFile opens it, or its mosaic's XML
// without its sources (layoutLevelFiles). No sample is to be read through it. One line naming
// level 0's file when it cannot.
Result<GdalRaster> openLayoutLevelZero(const LayoutManifest& layout);

// Opens `layout`'s level 0 (openLayoutLevelZero) and holds its size, type and tiles to
// layout.json's; sets `map`'s size, format (Elevation),
// coding (the band's scale and offset, in metres where its heights are lengths), place and an
// empty nodata mask sized for the layout's holes. Its codes are left as they are.
Status describeLayoutLevelZero(const LayoutManifest& layout, Heightmap& map);

// Reads level 0 of `layout` into `map` (described by describeLayoutLevelZero) by rows of tiles
// through GDAL, a thread a core up to four, each on its own dataset, every tile held to its
// checksum before its rows are kept: into map.codes (sized to the map), or written into `cache`
// when given (map.codes then untouched); the mask's zeros are the holes, whose count must be
// layout.json's. Sets the map's code range and nodata count. One line naming the file and the
// first tile that does not match, or why it cannot be read.
// A cache that resumed an earlier open's partial file (CodeCacheWriter::resumed) keeps each row
// of tiles whose every tile already matches its checksum there, unread but for its mask; their
// count goes to `reusedTileRows` when given. `progress` (LoadOptions::readProgress) is told of
// each row of tiles read or kept.
Status readLayoutLevelZero(const LayoutManifest& layout, Heightmap& map,
                           CodeCacheWriter* cache = nullptr, int* reusedTileRows = nullptr,
                           const ReadProgress& progress = {});

// The layout's tree.qtree: held to layout.json's size before it is read and to its checksum
// after, then parsed for the map's size and the layout's leaf size.
Result<TreeSidecar> readLayoutTreeSidecar(const LayoutManifest& layout);

// Reads `layout` whole: `acceptSize` (when set) and the memory budget (kLoadBytesPerSample)
// checked from its size before anything is read. One line naming the file and the first tile
// that does not match, or why it cannot be read. `progress` as readLayoutLevelZero's.
Result<LayoutMap> readLayoutMap(const LayoutManifest& layout, const SizeCheck& acceptSize,
                                const MemoryBudget& memory, const ReadProgress& progress = {});

// Whether `path` is a folder holding a layout.json (a layout, or what claims to be one).
bool isLayoutFolder(const std::string& path);

// Why the URL `path`, which has no extension and so can only name a layout's folder, does not:
// its layout.json's absence as the server answers it (HTTP 404, curl's line when the server
// cannot be reached), or that it is not a file.
std::string whyNotALayout(const std::string& path);

}  // namespace qt
