// quadterrain-bake's layout: a map baked once into files a viewer can stream by pages without
// reading it whole, each a standard GeoTIFF where one fits. A layout is a folder holding
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
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/base/result.h"
#include "core/io/load.h"

namespace qt {

// Squares along a region's side (bakeLayout), by default and at most: a region's window of
// samples is read whole, about 7 bytes a sample with its floats, mask and levels.
constexpr int kDefaultBakeRegion = 2048;
constexpr int kMaxBakeRegion = 16384;

struct BakeOptions {
    int leafSize = 4;  // asked; a map too big for its tree's budget gets larger leaves
    int pageSize = 0;  // squares along a tile side, a power of two, 16 to 4096; 0: kDefaultPageSize
    // Squares along a region's side: a power of two from the page size to kMaxBakeRegion; 0:
    // kDefaultBakeRegion, or the page size when larger.
    int regionSize = 0;
    // Regions baked at once, bands of a float band's plan pass, threads compressing the COGs;
    // 0: one a core.
    int threads = 0;
    // Called after each region with the regions baked so far and their count, from the thread
    // that baked it, one call at a time (null: none).
    std::function<void(int done, int total)> progress;
    LoadOptions load;  // the memory budget (the tree's leaf size), a .r16's size
    // The free bytes of the layout's file system (null: statvfs; tests give less).
    std::function<uint64_t(const std::string& dir)> freeDiskBytes;
};

// The most disk a bake of a width x height map in `levels` levels may take while it runs: every
// level at 2 bytes a sample (3 with a nodata mask) as if nothing compressed, and level 0 once more
// for the GeoTIFF each level is written through before its COG copy, and 16 MiB for the rest.
uint64_t bakeDiskBytes(int width, int height, int levels, bool mask);

struct BakeSummary {
    int width = 0;
    int height = 0;
    int leafSize = 0;
    int pageSize = 0;
    int levels = 0;
    int64_t tiles = 0;   // in every level
    uint64_t bytes = 0;  // of the layout's files
    int regionSize = 0;
    int regions = 0;
    int threads = 0;      // regions baked at once
    int exactLevels = 0;  // the tree's levels 1..exactLevels hold exact errors, the rest the range
    int treeDepth = 0;    // bound
};

// Bakes the raster at `input` (anything the viewer opens streamed: a GDAL raster or a .r16) into
// the layout folder `folder`: made when absent; an empty folder, or a layout of an earlier bake
// (its files replaced, so a bake run again gives the same layout), is written; a folder holding
// anything else is refused and left as it is. Reads the input by regions (bake_input.h: a plan
// pass first for a band read as floats), `threads` at once, never whole and through no cache;
// each region gives its tiles of the levels whose tiles it holds whole and the exact errors of
// the tree's nodes it holds whole (levels 1 to log2(regionSize / leafSize)); the levels above
// come from the regions' highest, the tree's levels above from the range bound. Voids are filled
// for the codes (and the tree) region by region. Refused before anything is written when the
// layout's file system has less free than bakeDiskBytes. One line on failure (without the
// paths).
Result<BakeSummary> bakeLayout(const std::string& input, const std::string& folder,
                               const BakeOptions& options);

// What verifyLayout checks: every level and the tree, or level 0 alone (what the viewer reads of
// a layout: openMap opens a layout's folder as its heights-0.tif).
enum class LayoutCheck { Everything, LevelZero };

// Checks the layout in `folder` against its layout.json: every level's size and tiling, every
// tile's codes and the tree's bytes against their checksums. One line naming the first file and
// tile that do not match.
Status verifyLayout(const std::string& folder, LayoutCheck what = LayoutCheck::Everything);

// Whether `path` is a folder holding a layout.json (a layout, or what claims to be one).
bool isLayoutFolder(const std::string& path);

// Why the URL `path`, which has no extension and so can only name a layout's folder, does not:
// its layout.json's absence as the server answers it (HTTP 404, curl's line when the server
// cannot be reached), or that it is not a file.
std::string whyNotALayout(const std::string& path);

// The path of the layout's level `level` file.
std::string layoutLevelPath(const std::string& folder, int level);

}  // namespace qt
