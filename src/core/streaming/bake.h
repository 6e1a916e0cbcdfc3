// quadterrain-bake: a map baked once into a layout (layout.h) a viewer can stream by pages without
// reading it whole.
//
// A bake split into jobs (BakeOptions::jobs, each run by any job runner, on any machine that sees
// the folder) writes instead, for each region (x, z) of its share,
//   regions/x-z/heights-K.tif   the region's tiles of level K, a COG, for the levels whose
//                               tiles regions hold whole (K <= log2(regionSize / pageSize));
//   regions/x-z/tree.part       its leaves' ranges and its nodes' exact errors;
//   regions/x-z/region.json     the checksums of both and of the plan, written last;
// beside plan.json (the input's size, coding, georeference and the bake's sizes, the same from
// every job). joinLayout then writes those levels as heights-K.vrt, GDAL virtual mosaics of the
// regions' COGs, the levels above as COGs, the tree and layout.json.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/io/load.h"
#include "core/streaming/layout.h"

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
    // Job `job` (1 to jobs) of a bake split into `jobs` independent processes: it bakes its share
    // of the regions (in row-major order, regions (job - 1) R / jobs to job R / jobs - 1 of R)
    // into the folder's regions/ and writes plan.json; joinLayout makes the layout once every job
    // has run. 0: the whole bake in this process.
    int job = 0;
    int jobs = 0;
    // Only the plan of a bake by jobs: plan.json (a float band's pass taken once, here), which
    // the jobs then take rather than each taking the pass again.
    bool planOnly = false;
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
    int regions = 0;      // in the map
    int firstRegion = 0;  // the regions this process baked: firstRegion to endRegion - 1
    int endRegion = 0;    // (none by joinLayout)
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
// for the codes (and the tree) region by region. The tree's nodes are never made (its arrays
// are filled through its level grids), so a GDAL raster to kMaxBakeSide a side bakes. A job of a
// bake by jobs (options.jobs) bakes its share of the regions into regions/, and first writes
// plan.json, or holds its own plan to the folder's (taking a float band's range and voids from
// it, with no pass of its own) and refuses another; options.planOnly writes plan.json alone.
// Refused before anything is written when the layout's file system has less free than
// bakeDiskBytes (a job: its share). One line on failure (without the paths).
Result<BakeSummary> bakeLayout(const std::string& input, const std::string& folder,
                               const BakeOptions& options);

// Joins the regions the jobs of a bake split into jobs (BakeOptions::jobs) wrote into `folder`:
// every region's region.json must be there and of the folder's plan, its tree part of the size
// and checksum it gives, else one line names the first region missing, stale or damaged (the
// folder then holds no layout.json). Reads the regions' tree parts and their highest level
// (1/4^log2(regionSize / pageSize) of the samples), never their level 0; writes the levels the
// regions hold as mosaics of them, the levels above, the tree and layout.json. Run again, it
// gives the same layout. `options` gives the threads and the free disk.
Result<BakeSummary> joinLayout(const std::string& folder, const BakeOptions& options);

}  // namespace qt
