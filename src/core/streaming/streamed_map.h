// Opens a map larger than memory: its codes mapped read-only (a .r16's own file, or a GDAL raster's
// code cache), its tree built in bands of rows (or read from its sidecar) without the whole map
// resident at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/io/load.h"
#include "core/streaming/mapped_codes.h"
#include "core/streaming/tree_sidecar.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"

namespace qt {

struct LayoutManifest;
class LayoutStream;

// Share of the memory budget the streamed tree may take (the rest: the GPU's pages and pyramid).
constexpr double kStreamedTreeShare = 0.125;
// Bytes of samples a band of the prepass may hold resident: levels whose rows of nodes span
// more get the range bound, not the exact errors.
constexpr uint64_t kStreamBandBytes = uint64_t(256) << 20;

// Resident bytes of a streamed map beside its tree and coarse levels: the pool of level-0 and
// level-1 pages (about 900 layers of 259^2 texels for a window 1080 pixels high), the staging
// pages, the frame's buffers (llvmpipe keeps the pool in host memory). At most this much, and
// never more than the map's whole levels 0 and 1 in pages (2.5 bytes a sample, a 32nd for
// borders) and kStreamedSmallBytes for the rest: a small map streamed needs little.
constexpr uint64_t kStreamedFixedBytes = uint64_t(192) << 20;
constexpr uint64_t kStreamedSmallBytes = uint64_t(8) << 20;

struct StreamOptions {
    uint64_t bandBytes = kStreamBandBytes;  // the band cap (tests use tiny ones)
    bool useSidecar = true;                 // read and write the tree sidecar
    // The free bytes of a folder a GDAL raster's code cache may go to (null: statvfs; tests give
    // less). Where the cache and sidecar go is LoadOptions::cacheDir and cacheBeside's.
    std::function<uint64_t(const std::string& dir)> freeDiskBytes;
    // A .r16's first open (no usable sidecar) takes only the leaf ranges and the range bound, and
    // leaves its exact errors and its sidecar to streamedExactErrors (out.deferred): its first
    // frame then waits for one quick pass over the map, not for the errors.
    bool deferExactErrors = false;
    // A baked layout's level 0 (layout.h) opened streamed: its code cache is made from its tiles,
    // each held to its checksum, with the codes as the bake wrote them, and its tree is the
    // layout's (no pass over the map) when of the leaf size planned. Null for any other raster.
    const LayoutManifest* layout = nullptr;
    // ... and its level 0 fetched by tiles as readers ask for them (StreamedMap::tiles), none at
    // open, when the layout has no holes and its tree is of the leaf size planned (else it is read
    // whole into the cache at open, as without).
    bool layoutByTiles = false;
};

// What a first open with deferExactErrors leaves for streamedExactErrors.
struct DeferredErrors {
    bool pending = false;
    int bandLevel = 0;    // the bands of the pass (bandLevelFor's)
    std::string sidecar;  // where the sidecar goes ("": none is written)
    FileStamp stamp;      // of the map file
};

// The kind of a tree's errors when levels 1..exactLevels are exact and the range bound is above.
LodErrors errorsKind(int exactLevels, int depth);

// Whether a map opened streamed is a layout that may go by tiles (StreamOptions::layoutByTiles
// asked for, no holes), and whether it does in leaves of leafSize (the layout's tree's).
bool mayOpenByTiles(const StreamOptions& stream);
bool opensByTiles(const StreamOptions& stream, int leafSize);

// The size check of a map opened streamed in leaves of leafSize: a layout that goes by tiles
// never holds its level 0, so its side alone is limited (kLayoutByTilesSizeLimit); any other map
// is read whole into its code cache and its tree made from it (kMapSizeLimit). The line says how
// a layout over that limit opens.
Status checkStreamedSize(int width, int height, const StreamOptions& stream, int leafSize);

// Where a streamed map's mapped codes come from.
enum class CodeSource {
    MapFile,       // the map's own file (a .r16)
    CacheWritten,  // a GDAL raster's code cache, written by this open
    CacheRead,     // a GDAL raster's code cache from an earlier open
    CacheNotKept,  // a GDAL raster's codes in a file this open made and no later open finds
    CacheByTiles,  // a layout's code cache filled by tiles as they are asked for
                   // (StreamedMap::tiles)
};

struct StreamedMap {
    Heightmap map;                // range set, codes a read-only mapping; format Raw16 or Elevation
    Quadtree tree;                // bounds and coarse errors (tree.lodErrors says which)
    int leafSize = 0;             // the leaf size chosen (streamedLeafSize)
    bool sidecarUsed = false;     // the tree came from its sidecar: no pass over the map
    bool sidecarWritten = false;  // the sidecar was (re)written by this open
    std::string sidecarProblem;   // why an existing sidecar was not used or not written; "" if none
    // The sidecar read or written (for a deferred first open: where streamedExactErrors writes
    // it); "" when none is.
    std::string sidecarPath;
    double prepassMs = 0.0;      // the banded pass over the map (0 with the sidecar)
    double sidecarReadMs = 0.0;  // reading and checking the sidecar
    CodeSource codes = CodeSource::MapFile;
    std::string cachePath;  // a GDAL raster's code cache; "" for a .r16
    std::string
        cacheProblem;      // why an existing code cache was not used or none is kept; "" if none
    double cacheMs = 0.0;  // reading the raster through GDAL into the cache (0 when read)
    // A layout's rows of tiles found in an earlier open's unfinished cache and kept, unread.
    int tileRowsReused = 0;
    DeferredErrors deferred;  // pending when the exact errors were left for later
    // CacheByTiles: level 0's tiles, fetched as readers ask; a sample's code is the layout's once
    // its tile is present (before, zero). Shared by the map's readers, so it outlives each.
    std::shared_ptr<LayoutStream> tiles;
};

// The exact errors a deferred first open left out, as an open that does not defer makes them:
// whole arrays for tree.coarseErrors and tree.foldErrors, exact on levels 1..exactLevels and
// the tree's range bound above.
struct StreamedErrors {
    std::vector<uint16_t> coarse;
    std::vector<uint16_t> fold;
    std::vector<uint16_t> leafFold;  // Quadtree::leafFoldErrors
    LodErrors kind = LodErrors::Range;
    int exactLevels = 0;
    bool sidecarWritten = false;
};

// Computes them: the banded pass over the map's mapped codes (each band's pages dropped behind
// it), on levels whose rows of nodes fit a band, over `rangeCoarse` and `rangeFold` (the tree's
// range bound, which the result keeps above them); then writes the sidecar when
// deferred.sidecar is set (a failure is one line on stderr, and the map goes on without). Reads
// only the codes and `levels`' level grids (leafSize, leavesX, leavesZ, depth, levelStart,
// levelWidth), so it runs on any thread. Fails when `cancel` is set before it ends.
Result<StreamedErrors> streamedExactErrors(const Heightmap& map, const Quadtree& levels,
                                           const DeferredErrors& deferred,
                                           std::vector<uint16_t> rangeCoarse,
                                           std::vector<uint16_t> rangeFold,
                                           const std::atomic<bool>* cancel = nullptr);

// Makes the sample rows of a streamed map's codes up to lastRow (exclusive) before the banded pass
// reads them, in order (a GDAL raster's cache is written band by band); a failure stops the pass
// with its line.
using BandRows = std::function<Status(int lastRow)>;

// Bytes of a quadtree's arrays (nodes, leaves, leaf nodes, leaf codes, leaf grid, level grids and
// their nodes, coarse errors) for a width x height map in leaves of leafSize squares.
uint64_t quadtreeBytes(int width, int height, int leafSize);

// Estimated resident bytes of a streamed width x height map in leaves of leafSize: its tree, the
// pyramid's levels above the pooled ones on the GPU (streamedLevels: a twelfth of the samples, 2
// bytes each, and the pages' borders above two pooled levels) and the pages in flight
// (kStreamedFixedBytes, less for a small map, and the pool's layers of the levels pooled above
// two); checked against the budget before the map is mapped.
uint64_t streamedPeakBytes(int width, int height, int leafSize);

// The smallest power of two >= requestedLeafSize (and >= kMinLeafSize) whose tree takes at most
// treeBudget bytes (0: no limit) and has at most kMaxNodes nodes; fails when none up to
// kMaxLeafSize does.
Result<int> streamedLeafSize(int width, int height, int requestedLeafSize, uint64_t treeBudget);

// The leaf size of a streamed width x height map: streamedLeafSize(requestedLeafSize,
// kStreamedTreeShare of what the budget leaves), its streamedPeakBytes checked against the
// budget with `extraBytes` held besides (a raster's nodata mask). Refused with one line (without
// the path).
Result<int> planStreamedMap(int width, int height, int requestedLeafSize,
                            const MemoryBudget& budget, uint64_t extraBytes = 0);

// The leaf size of a baked layout that may go by tiles in the bake's leaves (`baked`): those,
// when no finer than asked, the tree within kMaxNodes and the map's streamedPeakBytes in them
// (with `extraBytes`) within the budget, as its tree is the bake's, read rather than made, so no
// share of the budget decides its leaves; else planStreamedMap's.
Result<int> planLayoutByTiles(int width, int height, int requestedLeafSize, int baked,
                              const MemoryBudget& budget, uint64_t extraBytes = 0);

// Reads the sidecar `sidecar` of a streamed map (out.map's size, out.leafSize) made from the map
// file of `stamp`: fails with readTreeSidecar's line ("missing", stale, leaf size, damage).
// Times the read (out.sidecarReadMs).
Result<TreeSidecar> readStreamedSidecar(StreamedMap& out, const std::string& sidecar,
                                        const FileStamp& stamp);

// Says on stderr (one line, kept in out.sidecarProblem) that the sidecar cannot be used and is
// rebuilt.
void reportSidecarProblem(StreamedMap& out, const std::string& sidecar, const std::string& problem);

// The tree of a streamed map whose size, coding and mapped codes are in out.map, of leaf size
// out.leafSize. Its bounds come from `saved` when fromSidecar (a sidecar read); else from one
// pass over the map in bands of rows of at most stream.bandBytes, each band's rows made first
// by `makeRows` (when set) and its pages dropped from the process behind it, into `saved` (what
// writeStreamedSidecar writes, for the map of `stamp`). The coarse errors are exact on the levels
// whose rows of nodes fit a band and the range bound above (LodErrors::Mixed,
// Quadtree::exactLevels). Sets out.tree and the map's range; a failure of makeRows is the
// result's. `built`, when given, is the structure for the map's size (buildQuadtreeStructure)
// made beforehand, side by side with the sidecar's read, taken instead of building one.
Status streamedTree(StreamedMap& out, TreeSidecar& saved, bool fromSidecar, const FileStamp& stamp,
                    const StreamOptions& stream, const BandRows& makeRows = {},
                    Result<Quadtree>* built = nullptr);

// The tree of `map` (its size, coding and holes; leaves of saved.leafSize) from a sidecar of its
// codes: the range bound of its leaf ranges, its exact errors over it on levels 1..exactLevels.
// Reads no code but the holes' boxes (markLeafHoles).
Result<Quadtree> quadtreeFromSidecar(const Heightmap& map, const TreeSidecar& saved);

// Writes `saved`, for the map file of `stamp`, to the sidecar `sidecar` (out.sidecarWritten);
// one line on stderr (and in out.sidecarProblem) when it cannot, and the map opens without.
void writeStreamedSidecar(StreamedMap& out, const std::string& sidecar, const FileStamp& stamp,
                          TreeSidecar& saved);

// Opens a .r16 (raw little-endian 16-bit, square or options.rawWidth x rawHeight) without
// reading it whole. Codes equal the file's values (coding offset 0, step 1). The tree's leaf size
// is planStreamedMap's; its bounds come from streamedTree with the sidecar (cachePlaces of
// ".qtree": the cache folder's, else one of the program's own beside the map), which is written
// to the first writable place when it was not used. A cache folder that cannot be made or
// written is one line on stderr, and the map opens without a sidecar. Bad input (length, size,
// unreadable file) is one line starting with the path.
Result<StreamedMap> openStreamedRaw16(const std::string& path, const LoadOptions& options,
                                      int requestedLeafSize, const StreamOptions& stream = {});

}  // namespace qt
