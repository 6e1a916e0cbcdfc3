// The streamed open of a .r16: map the file, choose the leaf size, then take the tree's bounds
// from the sidecar or from one banded pass over the map.
#include "core/streaming/streamed_map.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/base/text.h"
#include "core/config.h"
#include "core/io/raw16.h"
#include "core/lod/lod_error.h"
#include "core/streaming/cache_folder.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/layout.h"
#include "core/streaming/mapped_codes.h"
#include "core/streaming/own_files.h"
#include "core/streaming/page_streamer.h"
#include "core/streaming/tree_sidecar.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/leaf_ranges.h"

namespace qt {

LodErrors errorsKind(int exactLevels, int depth) {
    return exactLevels == depth ? LodErrors::Exact
           : exactLevels == 0   ? LodErrors::Range
                                : LodErrors::Mixed;
}

bool mayOpenByTiles(const StreamOptions& stream) {
    return stream.layout != nullptr && stream.layoutByTiles && stream.layout->nodataSamples == 0;
}

bool opensByTiles(const StreamOptions& stream, int leafSize) {
    return mayOpenByTiles(stream) && stream.layout->leafSize == leafSize;
}

Status checkStreamedSize(int width, int height, const StreamOptions& stream, int leafSize) {
    if (opensByTiles(stream, leafSize)) {
        return checkDimensions(width, height, kLayoutByTilesSizeLimit);
    }
    Status fits = checkDimensions(width, height);
    if (!fits && stream.layout != nullptr) {
        const int baked = stream.layout->leafSize;
        return Status::failure(
            fits.error() +
            "; a layout of more opens by tiles alone: without --objects, with no nodata, in its "
            "leaves of " +
            std::to_string(baked) +
            (leafSize != baked ? " (leaves of " + std::to_string(leafSize) +
                                     " planned here, from --leaf-size or the memory budget)"
                               : std::string()));
    }
    return fits;
}

namespace {

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

// The banded pass: the bands are the rows of nodes of level `bandLevel` (leafSize << bandLevel
// sample rows each, plus the row they share with the next band). Per band: its rows made (when
// makeRows is set), its leaves' code ranges, then the exact errors of its nodes on levels
// 1..exactLevels (all inside the band) and, with any, its leaves' fold errors, then its pages
// dropped. Each sample is read from the file once per band it lies in. Fills `saved`'s leaf
// ranges and errors.
Status bandedPass(const Heightmap& map, const Quadtree& tree, int bandLevel, int exactLevels,
                  TreeSidecar& saved, const BandRows& makeRows,
                  const std::atomic<bool>* cancel = nullptr) {
    const int leafSize = tree.leafSize;
    const size_t width = size_t(map.width);
    std::vector<CodeRange>& leafRanges = saved.leafRanges;
    std::vector<uint16_t>& exactErrors = saved.coarseErrors;
    std::vector<uint16_t>& foldErrors = saved.foldErrors;
    leafRanges.resize(size_t(tree.leavesX) * size_t(tree.leavesZ));
    exactErrors.assign(tree.levelStart.back(), 0);
    foldErrors.assign(tree.levelStart.back(), 0);
    if (exactLevels > 0) {
        saved.leafFoldErrors.assign(leafRanges.size(), 0);
    } else {
        saved.leafFoldErrors.clear();
    }
    const int bandRows = ((tree.leavesZ - 1) >> bandLevel) + 1;
    const CodeGrid grid = codeGrid(map);
    for (int band = 0; band < bandRows; ++band) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            return Status::failure("cancelled");
        }
        const int firstLeafRow = band << bandLevel;
        const int lastLeafRow = std::min((band + 1) << bandLevel, tree.leavesZ);
        const size_t z0 = size_t(firstLeafRow) * size_t(leafSize);
        const size_t z1 = std::min(size_t(lastLeafRow) * size_t(leafSize), size_t(map.height - 1));
        if (makeRows) {
            if (Status rows = makeRows(int(z1) + 1); !rows) {
                return rows;
            }
        }
        leafRangesOfRows(map.codes.data(), map.width, map.height, leafSize, firstLeafRow,
                         lastLeafRow, leafRanges.data());
        for (int level = 1; level <= exactLevels; ++level) {
            const int levelRows = ((tree.leavesZ - 1) >> level) + 1;
            const int shift = bandLevel - level;
            exactCoarseErrorsOfRows(grid, tree, level, band << shift,
                                    std::min((band + 1) << shift, levelRows), exactErrors.data(),
                                    cancel, foldErrors.data());
        }
        if (exactLevels > 0) {
            exactLeafFoldErrorsOfRows(grid, tree, firstLeafRow, lastLeafRow,
                                      saved.leafFoldErrors.data(), cancel);
        }
        // Every row of the band but the one it shares with the next (the last band: all).
        const size_t end = band == bandRows - 1 ? size_t(map.height) : z1;
        map.codes.dropResident(z0 * width, (end - z0) * width);
    }
    return {};
}

// The highest level (at most the tree's depth) whose rows of nodes, leafSize << level + 1 sample
// rows, fit in bandBytes; 0 when not even a row of leaves does (bands of one leaf row then).
int bandLevelFor(const Quadtree& tree, int width, uint64_t bandBytes) {
    int level = 0;
    while (level < tree.depth &&
           (uint64_t(tree.leafSize << (level + 1)) + 1) * uint64_t(width) * 2 <= bandBytes) {
        ++level;
    }
    return level;
}

// Copies the banded pass's exact errors (levels 1..exactLevels of `pass`) over `coarse` and
// `fold`, which hold the range bound: the errors a streamed tree flies with.
void overlayExact(const TreeSidecar& pass, const Quadtree& levels, int exactLevels,
                  std::vector<uint16_t>& coarse, std::vector<uint16_t>& fold) {
    const auto exactEnd = ptrdiff_t(levels.levelStart[size_t(exactLevels) + 1]);
    std::copy(pass.coarseErrors.begin(), pass.coarseErrors.begin() + exactEnd, coarse.begin());
    std::copy(pass.foldErrors.begin(), pass.foldErrors.begin() + exactEnd, fold.begin());
}

// The range bound everywhere (its fold errors 0) from the saved leaf ranges, then the exact
// errors, folds apart, over it on levels 1..exactLevels (a sidecar's errors hold the same range
// bound above them).
void boundsFromSidecar(Quadtree& tree, const Heightmap& map, const TreeSidecar& saved) {
    fillQuadtreeBounds(tree, map, &saved.leafRanges);
    overlayExact(saved, tree, saved.exactLevels, tree.coarseErrors, tree.foldErrors);
    tree.lodErrors = saved.lodErrors;
    tree.exactLevels = saved.exactLevels;
    tree.leafFoldErrors = saved.leafFoldErrors;
}

// The header fields of a banded pass's sidecar (its leaf ranges in `saved`): the map's stamp and
// size, the tree's leaf size, the error kind and the range of the codes.
void describePass(TreeSidecar& saved, const FileStamp& stamp, int width, int height, int leafSize,
                  int exactLevels, int depth) {
    saved.map = stamp;
    saved.width = width;
    saved.height = height;
    saved.leafSize = leafSize;
    saved.exactLevels = exactLevels;
    saved.lodErrors = errorsKind(exactLevels, depth);
    saved.minCode = 0xFFFF;
    saved.maxCode = 0;
    for (const CodeRange& range : saved.leafRanges) {
        saved.minCode = std::min(saved.minCode, range.minCode);
        saved.maxCode = std::max(saved.maxCode, range.maxCode);
    }
}

Result<StreamedMap> fail(const std::string& name, const std::string& problem) {
    return Result<StreamedMap>::failure(name + ": " + problem);
}

// Whether the sidecar path `sidecar` may be read and written: nothing is there, or a sidecar of the
// program's own (own_files.h). Anything else is left alone, said on stderr in one line (kept in
// out.sidecarProblem), and the map opens without a sidecar.
bool sidecarIsUsable(StreamedMap& out, const std::string& sidecar) {
    const PathClaim claim = claimPath(sidecar, kTreeSidecarMagic);
    if (!claim.other()) {
        return true;
    }
    out.sidecarProblem =
        escapedPath(sidecar) + ": left alone (" + claim.why + "); continuing without a sidecar";
    std::fprintf(stderr, "%s\n", out.sidecarProblem.c_str());
    return false;
}

// Reads a .r16's sidecar from the first of its places (cachePlaces) that holds a valid one, and
// sets `target` to where a new one goes: the first writable place, "" when it cannot take one (a
// file not the program's own there, a cache folder that cannot be made or written). A place
// that is only read (beside the map, by default) is read when it holds the program's own file
// and is otherwise passed over in silence. One line on stderr (the first kept in
// out.sidecarProblem) for each problem of the writable place.
Result<TreeSidecar> findSidecar(StreamedMap& out, const std::string& path,
                                const LoadOptions& options, const FileStamp& stamp,
                                std::string& target) {
    Result<TreeSidecar> read = Result<TreeSidecar>::failure("missing");
    std::string problemAt;  // the writable place whose sidecar cannot be used
    bool chosen = false;    // the first writable place is behind
    for (const CachePlace& place :
         cachePlaces(path, ".qtree", options.cacheDir, options.cacheBeside)) {
        if (!place.writable || chosen) {
            if (claimPath(place.path, kTreeSidecarMagic).ours()) {
                Result<TreeSidecar> found = readStreamedSidecar(out, place.path, stamp);
                if (found) {
                    out.sidecarPath = place.path;
                    return found;
                }
            }
            continue;
        }
        chosen = true;
        if (!sidecarIsUsable(out, place.path)) {
            continue;
        }
        read = readStreamedSidecar(out, place.path, stamp);
        if (read) {
            out.sidecarPath = place.path;
            return read;
        }
        const std::string folder = std::filesystem::path(place.path).parent_path().string();
        if (place.inCacheFolder) {
            // A cache folder that cannot be made is the one line, not what reading in it found.
            if (Status made = makeCacheFolder(folder); !made) {
                const std::string line = escapedPath(folder) + ": cache folder " + made.error() +
                                         "; continuing without a sidecar";
                std::fprintf(stderr, "%s\n", line.c_str());
                if (out.sidecarProblem.empty()) {
                    out.sidecarProblem = line;
                }
                continue;
            }
        }
        if (place.inCacheFolder && options.cacheSizeBytes > 0) {
            // --cache-size: the least recently used files there make room for the new sidecar.
            if (Status room = makeRoomInCacheFolder(
                    folder, options.cacheSizeBytes,
                    sidecarBytes(out.map.width, out.map.height, out.leafSize), place.path);
                !room) {
                const std::string line = escapedPath(folder) + ": cache folder: " + room.error() +
                                         "; continuing without a sidecar";
                std::fprintf(stderr, "%s\n", line.c_str());
                if (out.sidecarProblem.empty()) {
                    out.sidecarProblem = line;
                }
                continue;
            }
        }
        if (read.error() != "missing") {
            problemAt = place.path;
        }
        target = place.path;
    }
    if (!problemAt.empty()) {
        reportSidecarProblem(out, problemAt, read.error());
    }
    if (!chosen) {
        out.sidecarProblem = escapedPath(path) +
                             ": no cache folder (neither XDG_CACHE_HOME nor HOME is set); "
                             "continuing without a sidecar";
        std::fprintf(stderr, "%s\n", out.sidecarProblem.c_str());
    }
    return read;
}

}  // namespace

uint64_t quadtreeBytes(int width, int height, int leafSize) {
    const uint64_t leavesX = uint64_t(leavesAlong(width, leafSize));
    const uint64_t leavesZ = uint64_t(leavesAlong(height, leafSize));
    const uint64_t leaves = leavesX * leavesZ;
    const uint64_t nodes = quadtreeNodeCount(width, height, leafSize);
    const uint64_t inner = nodes - leaves;
    uint64_t levels = 1;
    while ((uint64_t(1) << (levels - 1)) < std::max(leavesX, leavesZ)) {
        ++levels;
    }
    // Per leaf: its coordinates, node, codes and grid entry. Per inner node: its level grid's
    // entry (levelNodes), coarse and fold errors.
    const uint64_t perLeaf =
        sizeof(LeafCoord) + sizeof(uint32_t) + sizeof(LeafCodes) + sizeof(uint32_t);
    const uint64_t perInner = sizeof(uint32_t) + 2 * sizeof(uint16_t);
    return nodes * sizeof(QuadtreeNode) + leaves * perLeaf + inner * perInner +
           (levels + 1) * 2 * sizeof(uint32_t);  // level grids
}

uint64_t streamedPeakBytes(int width, int height, int leafSize) {
    // The levels held whole, those above the pooled ones (streamedLevels, at the default page
    // size): levels m.. hold 4^-m * 4/3 of the samples, two bytes each (a sixth of the samples
    // above the two levels pooled at least), in pages with borders.
    const HeightPages full =
        planHeightPages(width, height, leafSize, std::max(kDefaultPageSize, 2 * leafSize));
    const int pooled = streamedLevels(full);
    const uint64_t samples = uint64_t(width) * uint64_t(height);
    const uint64_t held = samples * 8 / (3 * (uint64_t(1) << (2 * pooled)));
    // The pool: the layers of levels 0 and 1 within kStreamedFixedBytes, and those the view asks
    // for of each level pooled above them (streamPoolLayers).
    const uint64_t pageBytes = uint64_t(full.texels) * uint64_t(full.texels) * 2;
    const auto poolLayers = [&](int levels) {
        return uint64_t(streamPoolLayers(streamedHeightPages(full, 1, levels), 1.04719755f,
                                         kStreamPoolViewport, kStreamFinestPixels, leafSize));
    };
    const uint64_t above = pooled > 2 ? (poolLayers(pooled) - poolLayers(2)) * pageBytes : 0;
    const uint64_t inFlight =
        std::min(kStreamedFixedBytes, samples * 5 / 2 + samples / 32 + kStreamedSmallBytes) + above;
    return quadtreeBytes(width, height, leafSize) + held + samples / 256 + inFlight;
}

Result<int> streamedLeafSize(int width, int height, int requestedLeafSize, uint64_t treeBudget) {
    if (requestedLeafSize > kMaxLeafSize) {
        return Result<int>::failure("leaf size " + std::to_string(requestedLeafSize) +
                                    " is over the largest, " + std::to_string(kMaxLeafSize));
    }
    int leafSize = kMinLeafSize;
    while (leafSize < requestedLeafSize) {
        leafSize *= 2;
    }
    for (; leafSize <= kMaxLeafSize; leafSize *= 2) {
        const bool fits = treeBudget == 0 || quadtreeBytes(width, height, leafSize) <= treeBudget;
        if (fits && quadtreeNodeCount(width, height, leafSize) <= kMaxNodes) {
            return leafSize;
        }
    }
    return Result<int>::failure(
        "its quadtree takes " + std::to_string(quadtreeBytes(width, height, kMaxLeafSize) >> 10) +
        " KiB even in leaves of " + std::to_string(kMaxLeafSize) + ", over its share (" +
        std::to_string(treeBudget >> 10) + " KiB) of the memory budget; raise --memory-budget");
}

Result<int> planStreamedMap(int width, int height, int requestedLeafSize,
                            const MemoryBudget& budget, uint64_t extraBytes) {
    using R = Result<int>;
    const uint64_t free =
        budget.limitBytes > budget.heldBytes ? budget.limitBytes - budget.heldBytes : 0;
    if (budget.limitBytes != 0 && free == 0) {
        return R::failure("nothing of the memory budget is left for it; raise --memory-budget");
    }
    const Result<int> leafSize =
        streamedLeafSize(width, height, requestedLeafSize,
                         budget.limitBytes == 0 ? 0 : uint64_t(double(free) * kStreamedTreeShare));
    if (!leafSize) {
        return leafSize;
    }
    if (const uint64_t peak = streamedPeakBytes(width, height, leafSize.value()) + extraBytes;
        budget.limitBytes != 0 && peak > free) {
        return R::failure("size " + std::to_string(width) + "x" + std::to_string(height) +
                          " needs about " + std::to_string(peak >> 20) +
                          " MiB streamed (its tree, the coarse levels of its heights" +
                          std::string(extraBytes > 0 ? ", the pages in flight and its nodata mask"
                                                     : " and the pages in flight") +
                          "), "
                          "over the memory budget of " +
                          std::to_string(free >> 20) + " MiB (raise it with --memory-budget MB)");
    }
    return leafSize;
}

Result<int> planLayoutByTiles(int width, int height, int requestedLeafSize, int baked,
                              const MemoryBudget& budget, uint64_t extraBytes) {
    const uint64_t free =
        budget.limitBytes > budget.heldBytes ? budget.limitBytes - budget.heldBytes : 0;
    if (requestedLeafSize <= baked && quadtreeNodeCount(width, height, baked) <= kMaxNodes &&
        (budget.limitBytes == 0 || streamedPeakBytes(width, height, baked) + extraBytes <= free)) {
        return baked;
    }
    return planStreamedMap(width, height, requestedLeafSize, budget, extraBytes);
}

Result<TreeSidecar> readStreamedSidecar(StreamedMap& out, const std::string& sidecar,
                                        const FileStamp& stamp) {
    const auto start = std::chrono::steady_clock::now();
    Result<TreeSidecar> read =
        readTreeSidecar(sidecar, stamp, out.map.width, out.map.height, out.leafSize);
    out.sidecarReadMs = msSince(start);
    return read;
}

void reportSidecarProblem(StreamedMap& out, const std::string& sidecar,
                          const std::string& problem) {
    out.sidecarProblem = escapedPath(sidecar) + ": " + problem + ", rebuilding";
    std::fprintf(stderr, "%s\n", out.sidecarProblem.c_str());
}

Status streamedTree(StreamedMap& out, TreeSidecar& saved, bool fromSidecar, const FileStamp& stamp,
                    const StreamOptions& stream, const BandRows& makeRows,
                    Result<Quadtree>* built) {
    Heightmap& map = out.map;
    const int width = map.width;
    const int height = map.height;
    Result<Quadtree> structure =
        built != nullptr ? std::move(*built) : buildQuadtreeStructure(width, height, out.leafSize);
    if (!structure) {
        return Status::failure(structure.error());
    }
    out.tree = std::move(structure.value());
    Quadtree& tree = out.tree;
    out.sidecarUsed = fromSidecar;
    if (!out.sidecarUsed) {
        const auto start = std::chrono::steady_clock::now();
        const int bandLevel = bandLevelFor(tree, width, stream.bandBytes);
        const int exactLevels = stream.deferExactErrors ? 0 : std::min(bandLevel, tree.depth);
        out.deferred.pending = stream.deferExactErrors && tree.depth > 0;
        out.deferred.bandLevel = bandLevel;
        out.deferred.stamp = stamp;
        if (Status pass = bandedPass(map, tree, bandLevel, exactLevels, saved, makeRows); !pass) {
            return pass;
        }
        describePass(saved, stamp, width, height, out.leafSize, exactLevels, tree.depth);
        out.prepassMs = msSince(start);
    }
    map.minCode = saved.minCode;
    map.maxCode = saved.maxCode;
    map.minSample = map.coding.sample(saved.minCode);
    map.maxSample = map.coding.sample(saved.maxCode);

    boundsFromSidecar(tree, map, saved);
    if (!out.sidecarUsed) {
        saved.coarseErrors = tree.coarseErrors;
        saved.foldErrors = tree.foldErrors;
    }
    return {};
}

Result<Quadtree> quadtreeFromSidecar(const Heightmap& map, const TreeSidecar& saved) {
    assert(saved.width == map.width && saved.height == map.height);
    Result<Quadtree> tree = buildQuadtreeStructure(map.width, map.height, saved.leafSize);
    if (tree) {
        boundsFromSidecar(tree.value(), map, saved);
    }
    return tree;
}

void writeStreamedSidecar(StreamedMap& out, const std::string& sidecar, const FileStamp& stamp,
                          TreeSidecar& saved) {
    saved.map = stamp;
    const Status written = writeTreeSidecar(sidecar, saved);
    if (written) {
        out.sidecarWritten = true;
        return;
    }
    const std::string line =
        escapedPath(sidecar) + ": " + written.error() + "; continuing without a sidecar";
    std::fprintf(stderr, "%s\n", line.c_str());
    if (out.sidecarProblem.empty()) {
        out.sidecarProblem = line;
    }
}

Result<StreamedMap> openStreamedRaw16(const std::string& path, const LoadOptions& options,
                                      int requestedLeafSize, const StreamOptions& stream) {
    const std::string name = escapedPath(path);
    const Result<FileStamp> stamp = fileStamp(path);
    if (!stamp) {
        return fail(name, stamp.error());
    }
    const Result<RawGrid> grid = rawGrid(false, stamp.value().bytes, options);
    if (!grid) {
        return fail(name, grid.error());
    }
    const int width = grid.value().width;
    const int height = grid.value().height;
    const Result<int> leafSize = planStreamedMap(width, height, requestedLeafSize, options.memory);
    if (!leafSize) {
        return fail(name, leafSize.error());
    }
    Result<MappedCodes> mapped = mapCodes(path, stamp.value().bytes);
    if (!mapped) {
        return fail(name, mapped.error());
    }
    StreamedMap out;
    out.leafSize = leafSize.value();
    Heightmap& map = out.map;
    map.width = width;
    map.height = height;
    map.format = HeightmapFormat::Raw16;
    map.codes = std::move(mapped.value().codes);
    map.coding = HeightCoding{0.0f, 1.0f};
    const FileStamp fileStamp = mapped.value().stamp;
    std::string target;
    Result<TreeSidecar> read = stream.useSidecar
                                   ? findSidecar(out, path, options, fileStamp, target)
                                   : Result<TreeSidecar>::failure("missing");
    TreeSidecar saved = read ? std::move(read.value()) : TreeSidecar{};
    if (Status tree = streamedTree(out, saved, read.ok(), fileStamp, stream); !tree) {
        return fail(name, tree.error());
    }
    if (out.deferred.pending) {
        out.deferred.sidecar = target;
        out.sidecarPath = target;
    } else if (!target.empty() && !out.sidecarUsed) {
        writeStreamedSidecar(out, target, fileStamp, saved);
        out.sidecarPath = out.sidecarWritten ? target : std::string();
    }
    return out;
}

Result<StreamedErrors> streamedExactErrors(const Heightmap& map, const Quadtree& levels,
                                           const DeferredErrors& deferred,
                                           std::vector<uint16_t> rangeCoarse,
                                           std::vector<uint16_t> rangeFold,
                                           const std::atomic<bool>* cancel) {
    using R = Result<StreamedErrors>;
    TreeSidecar saved;
    const int exactLevels = std::min(deferred.bandLevel, levels.depth);
    if (Status pass = bandedPass(map, levels, deferred.bandLevel, exactLevels, saved, {}, cancel);
        !pass) {
        return R::failure(pass.error());
    }
    if (cancel && cancel->load(std::memory_order_relaxed)) {
        return R::failure("cancelled");
    }
    overlayExact(saved, levels, exactLevels, rangeCoarse, rangeFold);
    describePass(saved, deferred.stamp, map.width, map.height, levels.leafSize, exactLevels,
                 levels.depth);
    StreamedErrors out;
    out.kind = saved.lodErrors;
    out.exactLevels = exactLevels;
    if (!deferred.sidecar.empty()) {
        saved.coarseErrors = rangeCoarse;
        saved.foldErrors = rangeFold;
        StreamedMap report;
        writeStreamedSidecar(report, deferred.sidecar, deferred.stamp, saved);
        out.sidecarWritten = report.sidecarWritten;
    }
    out.coarse = std::move(rangeCoarse);
    out.fold = std::move(rangeFold);
    out.leafFold = std::move(saved.leafFoldErrors);
    return out;
}

}  // namespace qt
