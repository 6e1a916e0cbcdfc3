// Core benchmarks: culling walk vs brute force on one camera path, occlusion after the walk, tree
// build, heightmap load (stb_image and GDAL rasters against the libraries' own reads), level-0
// pages from a GeoTIFF's tiles against its code cache.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gdal_priv.h>
#include <stb/stb_image.h>

#include "core/base/median.h"
#include "core/config.h"
#include "core/cull/cull.h"
#include "core/cull/occlusion.h"
#include "core/io/heightmap_gdal.h"
#include "core/io/load.h"
#include "core/lod/lod.h"
#include "core/lod/lod_error.h"
#include "core/lod/lod_reference.h"
#include "core/streaming/streamed_gdal.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/synthetic.h"
#include "core/view/flight_path.h"
#include "qt_source_paths.h"
#include "shared_maps.h"

namespace qt {
namespace {

constexpr int kPathFrames = 64;

struct Scene {
    Heightmap map;
    WorldMapping mapping;
    Quadtree tree;
    std::map<int, std::vector<Frustum>> paths;  // flight path by its frame count

    const std::vector<Frustum>& path(int frames) {
        std::vector<Frustum>& frusta = paths[frames];
        if (frusta.empty()) {
            for (const Camera& c : flightPath(map, mapping, frames, 16.0f / 9.0f)) {
                frusta.push_back(Frustum::fromViewProjection(c.viewProjection()));
            }
        }
        return frusta;
    }
};

// Scenes are built once per size and shared by every benchmark that uses them.
Scene& scene(int side) {
    static std::map<int, std::unique_ptr<Scene>> cache;
    std::unique_ptr<Scene>& slot = cache[side];
    if (!slot) {
        slot = std::make_unique<Scene>();
        slot->map = syntheticHeightmap(side, side, 1);
        slot->mapping = defaultMapping(slot->map);
        slot->tree = buildQuadtreeExact(slot->map, 4).value();
    }
    return *slot;
}

struct StatSums {
    uint64_t nodesTested = 0;
    uint64_t leavesDrawn = 0;
    uint64_t leavesCulled = 0;
    uint64_t runs = 0;  // draw-list runs of tree-order leaves
};

void reportCounters(benchmark::State& state, const StatSums& sum, int64_t frames) {
    const double n = double(std::max<int64_t>(frames, 1));
    state.counters["nodes_tested"] = double(sum.nodesTested) / n;
    state.counters["leaves_drawn"] = double(sum.leavesDrawn) / n;
    state.counters["leaves_culled"] = double(sum.leavesCulled) / n;
    state.counters["runs"] = double(sum.runs) / n;
}

// One iteration culls every camera of the path, so that each benchmark sees the same frusta.
template <class Cull>
void runPath(benchmark::State& state, Cull&& cull) {
    Scene& s = scene(int(state.range(0)));
    const std::vector<Frustum>& frusta = s.path(int(state.range(1)));
    CullOutput out;
    out.reserveFor(s.tree);
    StatSums sum;
    int64_t frames = 0;
    for (auto _ : state) {
        for (const Frustum& f : frusta) {
            cull(s, f, out);
            benchmark::DoNotOptimize(out.ranges.data());
            sum.nodesTested += out.stats.nodesTested;
            sum.leavesDrawn += out.stats.leavesDrawn;
            sum.leavesCulled += out.stats.leavesCulled;
            sum.runs += out.ranges.size();
            ++frames;
        }
    }
    state.SetItemsProcessed(frames);  // items_per_second: culled frames per second
    reportCounters(state, sum, frames);
}

void BM_Walk(benchmark::State& state) {
    runPath(state, [](const Scene& s, const Frustum& f, CullOutput& out) {
        cullQuadtree(s.tree, s.mapping, f, out);
    });
}

void BM_WalkWarm(benchmark::State& state) {
    Scene& s = scene(int(state.range(0)));
    const std::vector<Frustum>& frusta = s.path(int(state.range(1)));
    CullOutput out;
    out.reserveFor(s.tree);
    for (auto _ : state) {
        for (const Frustum& f : frusta) {
            for (int k = 0; k < 8; ++k) {
                cullQuadtree(s.tree, s.mapping, f, out);
                benchmark::DoNotOptimize(out.ranges.data());
            }
        }
    }
    state.SetItemsProcessed(state.iterations() * int64_t(frusta.size()) * 8);
}
BENCHMARK(BM_WalkWarm)->Args({4097, 64})->Unit(benchmark::kMillisecond);

void BM_WalkNoMaskingNoWhole(benchmark::State& state) {
    runPath(state, [](const Scene& s, const Frustum& f, CullOutput& out) {
        cullQuadtree(s.tree, s.mapping, f, out, {false, false});
    });
}

void BM_BruteForce(benchmark::State& state) {
    runPath(state, [](const Scene& s, const Frustum& f, CullOutput& out) {
        cullBruteForce(s.tree, s.mapping, f, out);
    });
}

// The walk and the brute force on each camera in turn, each timed alone: a burst of machine noise
// lands on a frame of one or the other, not on a whole benchmark, and the medians step over it.
// The walk starts each frame after a brute force has streamed through the nodes, as it would
// after a frame's drawing. Counters: median milliseconds per frame of each, and their ratio.
void BM_WalkVsBruteForce(benchmark::State& state) {
    Scene& s = scene(int(state.range(0)));
    const std::vector<Frustum>& frusta = s.path(int(state.range(1)));
    CullOutput walk;
    walk.reserveFor(s.tree);
    CullOutput brute;
    brute.reserveFor(s.tree);
    std::vector<double> walkMs, bruteMs;
    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    for (auto _ : state) {
        for (const Frustum& f : frusta) {
            const Clock::time_point t0 = Clock::now();
            cullQuadtree(s.tree, s.mapping, f, walk);
            benchmark::DoNotOptimize(walk.ranges.data());
            const Clock::time_point t1 = Clock::now();
            cullBruteForce(s.tree, s.mapping, f, brute);
            benchmark::DoNotOptimize(brute.ranges.data());
            const Clock::time_point t2 = Clock::now();
            walkMs.push_back(ms(t0, t1));
            bruteMs.push_back(ms(t1, t2));
            if (walk.stats.leavesDrawn != brute.stats.leavesDrawn) {
                state.SkipWithError("the walk and the brute force disagree");
                return;
            }
        }
    }
    const double w = median(walkMs), b = median(bruteMs);
    state.counters["walk_ms"] = w;
    state.counters["brute_ms"] = b;
    state.counters["speedup"] = w > 0.0 ? b / w : 0.0;
}

// The walk's leaves of each camera of the path as runs of tree-order leaves.
std::vector<std::vector<LeafRange>> walkRanges(Scene& s, const std::vector<Frustum>& frusta) {
    CullOutput out;
    out.reserveFor(s.tree);
    std::vector<std::vector<LeafRange>> ranges(frusta.size());
    for (size_t f = 0; f < frusta.size(); ++f) {
        cullQuadtree(s.tree, s.mapping, frusta[f], out);
        ranges[f] = out.ranges;
    }
    return ranges;
}

// Occlusion culling of the walk's leaves (computed beforehand) on every camera of the path, for a
// 1280 x 720 view; the counters are per frame.
void BM_Occlusion(benchmark::State& state) {
    Scene& s = scene(int(state.range(0)));
    const int frames = int(state.range(1));
    const std::vector<Camera> cameras = flightPath(s.map, s.mapping, frames, 16.0f / 9.0f);
    const std::vector<std::vector<LeafRange>> candidates = walkRanges(s, s.path(frames));
    OcclusionBuffers buffers;
    buffers.reserveFor(s.tree);
    std::vector<LeafRange> kept;
    kept.reserve(maxLeafRanges(s.tree));
    uint64_t leaves = 0, tested = 0, units = 0, occluded = 0, active = 0, calls = 0;
    for (auto _ : state) {
        for (size_t f = 0; f < cameras.size(); ++f) {
            OcclusionStats stats;
            cullOccluded(s.tree, s.mapping, cameras[f], 720, candidates[f], buffers, kept, stats);
            benchmark::DoNotOptimize(kept.data());
            for (const LeafRange& r : candidates[f]) {
                leaves += r.count;
            }
            tested += stats.leavesTested;
            units += stats.unitsTested;
            occluded += stats.leavesOccluded;
            active += stats.active;
            ++calls;
        }
    }
    state.SetItemsProcessed(int64_t(calls));
    const double n = double(std::max<uint64_t>(calls, 1));
    state.counters["candidates"] = double(leaves) / n;
    state.counters["tested"] = double(tested) / n;
    state.counters["units_tested"] = double(units) / n;
    state.counters["occluded"] = double(occluded) / n;
    state.counters["occluded_share"] = double(occluded) / double(std::max<uint64_t>(leaves, 1));
    state.counters["active_share"] = double(active) / n;
}

// Level-of-detail selection over the path's cameras (culled by the frustum, 720 pixels high), at
// range(2) pixels, by the grid step alone (range(3) == 0) or with each node's coarse error too,
// split over range(4) threads: its time and what it draws, per frame.
void BM_LodSelect(benchmark::State& state) {
    Scene& s = scene(int(state.range(0)));
    const int frames = int(state.range(1));
    const float pixels = float(state.range(2));
    const std::vector<Camera> cameras = flightPath(s.map, s.mapping, frames, 16.0f / 9.0f);
    const std::vector<Frustum>& frusta = s.path(frames);
    LodOutput out;
    out.reserveFor(s.tree);
    LodReach reach;
    reach.reserveFor(s.tree);
    const float minY = s.mapping.worldHeight(s.map.minSample);
    const float maxY = s.mapping.worldHeight(s.map.maxSample);
    uint64_t triangles = 0, nodes = 0, calls = 0;
    for (auto _ : state) {
        for (size_t f = 0; f < cameras.size(); ++f) {
            const Camera& c = cameras[f];
            LodParams params = lodParams(s.tree, s.mapping, c, 720, pixels, minY, maxY);
            if (state.range(3) != 0) {
                updateLodReach(s.tree, s.mapping, params, reach);
                params.reach = &reach;
            }
            params.threads = int(state.range(4));
            selectLod(s.tree, s.mapping, params, &frusta[f], out);
            benchmark::DoNotOptimize(out.nodes.data());
            triangles += out.stats.triangles;
            nodes += out.stats.nodesDrawn;
            ++calls;
        }
    }
    state.SetItemsProcessed(int64_t(calls));
    const double n = double(std::max<uint64_t>(calls, 1));
    state.counters["triangles"] = double(triangles) / n;
    state.counters["nodes"] = double(nodes) / n;
}

// The tree the first frame draws with: nodes, exact bounds, the range error bound.
void BM_BuildTree(benchmark::State& state) {
    const Scene& s = scene(int(state.range(0)));
    for (auto _ : state) {
        Result<Quadtree> tree = buildQuadtree(s.map, 4);
        benchmark::DoNotOptimize(tree.value().nodes.data());
    }
    state.counters["nodes"] = double(s.tree.nodes.size());
}

// The exact coarse errors alone, as the viewer's background job computes them.
void BM_CoarseErrors(benchmark::State& state) {
    const Scene& s = scene(int(state.range(0)));
    for (auto _ : state) {
        const std::vector<uint16_t> errors = exactCoarseErrors(codeGrid(s.map), s.tree);
        benchmark::DoNotOptimize(errors.data());
    }
}

// The default map from data/, loaded by our loader and decoded by stb_image alone.
const std::string kDefaultMap = std::string(QT_SOURCE_DIR) + "/data/default_1025.png";

void BM_LoadHeightmap(benchmark::State& state) {
    for (auto _ : state) {
        Result<Heightmap> map = loadHeightmap(kDefaultMap);
        if (!map.ok()) {
            state.SkipWithError(map.error().c_str());
            return;
        }
        benchmark::DoNotOptimize(map.value().codes.data());
    }
}

void BM_StbDecodeOnly(benchmark::State& state) {
    for (auto _ : state) {
        int w = 0, h = 0, n = 0;
        stbi_us* pixels = stbi_load_16(kDefaultMap.c_str(), &w, &h, &n, 1);
        if (!pixels) {
            state.SkipWithError("cannot decode data/default_1025.png");
            return;
        }
        benchmark::DoNotOptimize(pixels);
        stbi_image_free(pixels);
    }
}

// A 3601 x 3601 float32 GeoTIFF (an SRTM1 tile's size, strips, no compression) of the synthetic
// terrain in metres, written once per run into the temp folder; "" when it cannot be written.
const std::string& geoTiff3601() {
    static const std::string path = [] {
        const char* tmp = std::getenv("TMPDIR");
        const std::string file =
            std::string(tmp && *tmp ? tmp : "/tmp") + "/quadterrain_bench_3601_float32.tif";
        const int side = 3601;
        const std::vector<float> heights = heightmapSamples(syntheticHeightmap(side, side, 7));
        GDALAllRegister();
        GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
        GDALDatasetUniquePtr ds(
            gtiff ? gtiff->Create(file.c_str(), side, side, 1, GDT_Float32, nullptr) : nullptr);
        if (!ds) {
            return std::string();
        }
        double transform[6] = {9.0, 1.0 / 3600, 0.0, 48.0, 0.0, -1.0 / 3600};
        ds->SetGeoTransform(transform);
        if (ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, side, side,
                                           const_cast<float*>(heights.data()), side, side,
                                           GDT_Float32, 0, 0, nullptr) != CE_None) {
            return std::string();
        }
        return file;
    }();
    return path;
}

// In one run, alternately: GDAL's own read of the GeoTIFF (open, one RasterIO of the band into a
// fresh float buffer), our plain load (loadHeightmap: the read in row blocks with the void check
// and range on a helper, quantisation to 16-bit codes written unzeroed), and our load with the
// tree the viewer builds before its first frame (loadGdalHeightmapWithTree, leaves of 4, the
// range bound: the tree's structure built on a thread during the read, the leaves' exact ranges
// taken while quantising, then the nodes' ranges filled in one pass over the node array).
// Counters: the medians of GDAL's read, our plain load, our load with the tree and its ratio to
// GDAL's read; errors_ms, the exact coarse errors that the viewer computes in the background
// after the first frame, timed after the tree and in no other counter.
void BM_GeoTiffLoadAndTreeVsGdalRead(benchmark::State& state) {
    const std::string& path = geoTiff3601();
    if (path.empty()) {
        state.SkipWithError("cannot write the GeoTIFF");
        return;
    }
    using Clock = std::chrono::steady_clock;
    std::vector<double> gdalMs, loadMs, oursMs, errorsMs;
    for (auto _ : state) {
        const auto t0 = Clock::now();
        {
            GDALDatasetUniquePtr ds(GDALDataset::Open(path.c_str(), GDAL_OF_RASTER));
            const int w = ds->GetRasterXSize(), h = ds->GetRasterYSize();
            std::vector<float> samples(size_t(w) * size_t(h));
            if (ds->GetRasterBand(1)->RasterIO(GF_Read, 0, 0, w, h, samples.data(), w, h,
                                               GDT_Float32, 0, 0, nullptr) != CE_None) {
                state.SkipWithError("GDAL cannot read the GeoTIFF");
                return;
            }
            benchmark::DoNotOptimize(samples.data());
        }
        const auto t1 = Clock::now();
        {
            Result<Heightmap> map = loadHeightmap(path);
            if (!map.ok()) {
                state.SkipWithError(map.error().c_str());
                return;
            }
            benchmark::DoNotOptimize(map.value().codes.data());
            loadMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t1).count());
        }
        {
            const auto t2 = Clock::now();
            Result<HeightmapWithTree> loaded = loadGdalHeightmapWithTree(path, path, 4);
            if (!loaded.ok()) {
                state.SkipWithError(loaded.error().c_str());
                return;
            }
            benchmark::DoNotOptimize(loaded.value().tree.nodes.data());
            const auto t3 = Clock::now();
            oursMs.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
            const std::vector<uint16_t> errors =
                exactCoarseErrors(codeGrid(loaded.value().map), loaded.value().tree);
            benchmark::DoNotOptimize(errors.data());
            errorsMs.push_back(
                std::chrono::duration<double, std::milli>(Clock::now() - t3).count());
        }
        gdalMs.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    state.counters["gdal_read_ms"] = median(gdalMs);
    state.counters["load_ms"] = median(loadMs);
    state.counters["load_and_tree_ms"] = median(oursMs);
    state.counters["ratio"] = median(oursMs) / median(gdalMs);
    state.counters["errors_ms"] = median(errorsMs);
}

// A 4097 x 4097 unsigned 16-bit GeoTIFF in 512 x 512 DEFLATE tiles (a COG's layout) of the
// synthetic terrain, and its code cache beside it (openStreamedGdal), written once per run into
// the temp folder; "" when they cannot be written.
const std::string& tiledGeoTiff4097() {
    static const std::string path = [] {
        const char* tmp = std::getenv("TMPDIR");
        const std::string file =
            std::string(tmp && *tmp ? tmp : "/tmp") + "/quadterrain_bench_4097_tiled.tif";
        const int side = 4097;
        const Heightmap map = syntheticHeightmap(side, side, 11);
        GDALAllRegister();
        GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
        GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
        GDALDatasetUniquePtr source(mem->Create("", side, side, 1, GDT_UInt16, nullptr));
        if (!source || source->GetRasterBand(1)->RasterIO(
                           GF_Write, 0, 0, side, side, const_cast<uint16_t*>(map.codes.data()),
                           side, side, GDT_UInt16, 0, 0, nullptr) != CE_None) {
            return std::string();
        }
        const char* options[] = {"TILED=YES", "BLOCKXSIZE=512", "BLOCKYSIZE=512",
                                 "COMPRESS=DEFLATE", nullptr};
        GDALDatasetUniquePtr copy(gtiff->CreateCopy(file.c_str(), source.get(), FALSE,
                                                    const_cast<char**>(options), nullptr, nullptr));
        if (!copy) {
            return std::string();
        }
        copy.reset();
        std::remove((file + ".qtcodes").c_str());
        std::remove((file + ".qtcodes.qtree").c_str());
        return openStreamedGdal(file, file, {}, 4).ok() ? file : std::string();
    }();
    return path;
}

// What a page fill would cost if level-0 pages were read from the GeoTIFF's tiles on the page
// worker instead of the code cache: the same pseudo-random level-0 pages of 256 (259 x 259 texels
// with their borders) filled alternately by GDAL (a windowed RasterIO, GDAL's block cache emptied
// first: on a map larger than memory a page seldom finds its tiles decoded) and by fillHeightPage
// from the mapped code cache, both files in the page cache. Counters: the medians per page in
// microseconds and their ratio; the whole band's decode through GDAL once (gdal_band_ms, the pass's
// GDAL share).
void BM_Level0PageFromGeoTiffVsCodeCache(benchmark::State& state) {
    const std::string& path = tiledGeoTiff4097();
    if (path.empty()) {
        state.SkipWithError("cannot write the GeoTIFF and its code cache");
        return;
    }
    Result<StreamedMap> streamed = openStreamedGdal(path, path, {}, 4);
    if (!streamed.ok() || streamed.value().codes != CodeSource::CacheRead) {
        state.SkipWithError("the code cache was not read");
        return;
    }
    const Heightmap& map = streamed.value().map;
    const HeightPages layout = planHeightPages(map.width, map.height, 4, kDefaultPageSize);
    const int across = layout.level[0].pagesX;
    const int down = layout.level[0].pagesY;
    const int texels = layout.texels;
    GDALSetCacheMax64(int64_t(64) << 20);
    GDALDatasetUniquePtr ds(GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY));
    GDALRasterBand* band = ds->GetRasterBand(1);
    std::vector<uint16_t> out(size_t(texels) * size_t(texels));
    std::vector<double> gdalUs, cacheUs, bandMs;
    uint32_t seed = 1;
    using Clock = std::chrono::steady_clock;
    for (auto _ : state) {
        for (int i = 0; i < 64; ++i) {
            seed = seed * 1664525u + 1013904223u;
            const int px = int((seed >> 8) % uint32_t(across));
            const int py = int((seed >> 20) % uint32_t(down));
            const int x0 = std::max(0, px * layout.pageSize - 1);
            const int y0 = std::max(0, py * layout.pageSize - 1);
            const int w = std::min(texels, map.width - x0);
            const int h = std::min(texels, map.height - y0);
            band->FlushCache();  // a page of a map larger than memory finds its tiles decoded
            const auto t0 = Clock::now();
            if (band->RasterIO(GF_Read, x0, y0, w, h, out.data(), w, h, GDT_UInt16, 0,
                               sizeof(uint16_t) * size_t(texels), nullptr) != CE_None) {
                state.SkipWithError("GDAL cannot read a page");
                return;
            }
            benchmark::DoNotOptimize(out.data());
            const auto t1 = Clock::now();
            fillHeightPage(map, layout, 0, px, py, out.data());
            benchmark::DoNotOptimize(out.data());
            const auto t2 = Clock::now();
            // The worker gives the rows back behind each fill: the next fill faults them in.
            map.codes.dropResident(0, map.codes.size());
            gdalUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            cacheUs.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
        }
        const auto t3 = Clock::now();
        band->FlushCache();
        std::vector<uint16_t> rows(size_t(map.width) * 512);
        for (int row = 0; row < map.height; row += 512) {
            const int n = std::min(512, map.height - row);
            if (band->RasterIO(GF_Read, 0, row, map.width, n, rows.data(), map.width, n, GDT_UInt16,
                               0, 0, nullptr) != CE_None) {
                state.SkipWithError("GDAL cannot read the band");
                return;
            }
        }
        bandMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t3).count());
    }
    state.counters["gdal_page_us"] = median(gdalUs);
    state.counters["cache_page_us"] = median(cacheUs);
    state.counters["ratio"] = median(gdalUs) / median(cacheUs);
    state.counters["gdal_band_ms"] = median(bandMs);
}

BENCHMARK(BM_Walk)
    ->Args({1025, 64})
    ->Args({4097, 64})
    ->Args({4097, 1024})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WalkNoMaskingNoWhole)
    ->Args({1025, 64})
    ->Args({4097, 64})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BruteForce)
    ->Args({1025, 64})
    ->Args({4097, 64})
    ->Args({4097, 1024})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WalkVsBruteForce)
    ->Args({1025, 64})
    ->Args({4097, 64})
    ->Args({4097, 1024})
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Occlusion)->Args({1025, 64})->Args({4097, 64})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BuildTree)->Arg(1025)->Arg(4097)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoarseErrors)->Arg(1025)->Arg(4097)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LodSelect)
    ->ArgsProduct({{4097}, {16}, {1, 2, 4}, {0, 1}, {1, 2}})
    ->Unit(benchmark::kMillisecond);

// A real map from the shared heightmaps ($QT_SHARED_HEIGHTMAPS, else CMake's) by number (1:
// N47E009, 2: ETOPO5), the map file named by $QT_LOD_MAP (0; the viewer's bench map, terrain_gen's
// gen_4097.png), or the synthetic map of that side; null when the file is absent.
Scene* lodScene(int map) {
    if (map > 2) {
        return &scene(map);
    }
    static std::map<int, std::unique_ptr<Scene>> cache;
    std::unique_ptr<Scene>& slot = cache[map];
    if (!slot) {
        const char* named = std::getenv("QT_LOD_MAP");
        if (map == 0 && named == nullptr) {
            return nullptr;
        }
        const std::string path =
            map == 0 ? std::string(named)
                     : test::sharedHeightmapsFolder() + "/" +
                           (map == 1 ? "N47E009.hgt" : "etopo5_world_4320x2161.png");
        Result<Heightmap> loaded = loadHeightmap(path);
        if (!loaded.ok()) {
            return nullptr;
        }
        slot = std::make_unique<Scene>();
        slot->map = std::move(loaded.value());
        slot->mapping = defaultMapping(slot->map);
        slot->tree = buildQuadtreeExact(slot->map, 4).value();
    }
    return slot.get();
}

// The live selection against the reference (core/lod/lod_reference.h) over range(1) cameras of
// the flight path, 1280x720, at range(2) pixels, on map range(0) (lodScene): per frame the
// triangles of the live selection (`live`) and of the reference, their ratio, and triangles per
// screen pixel. One iteration: the reference takes seconds a frame.
//   QT_LOD_MAP=gen_4097.png ./build/core_bench --benchmark_filter=BM_LodReference
void BM_LodReference(benchmark::State& state) {
    Scene* found = lodScene(int(state.range(0)));
    if (found == nullptr) {
        state.SkipWithError("the map is absent (the shared heightmaps, or $QT_LOD_MAP unset)");
        return;
    }
    Scene& s = *found;
    const int frames = int(state.range(1));
    const float pixels = float(state.range(2));
    const std::vector<Camera> cameras = flightPath(s.map, s.mapping, frames, 16.0f / 9.0f);
    const std::vector<Frustum>& frusta = s.path(frames);
    LodOutput out;
    out.reserveFor(s.tree);
    LodReach reach;
    reach.reserveFor(s.tree);
    LodReference reference;
    const float minY = s.mapping.worldHeight(s.map.minSample);
    const float maxY = s.mapping.worldHeight(s.map.maxSample);
    double live = 0.0, limit = 0.0, splits = 0.0;
    for (auto _ : state) {
        for (size_t f = 0; f < cameras.size(); ++f) {
            const Camera& c = cameras[f];
            LodParams params = lodParams(s.tree, s.mapping, c, 720, pixels, minY, maxY);
            updateLodReach(s.tree, s.mapping, params, reach);
            params.reach = &reach;
            selectLod(s.tree, s.mapping, params, &frusta[f], out);
            live += double(out.stats.triangles);
            selectLodReference({s.map, s.tree, s.mapping, c, 720}, pixels, &frusta[f], reference);
            limit += double(reference.triangles);
            splits += double(reference.neighbourSplits);
        }
    }
    const double n = double(cameras.size()) * double(state.iterations());
    const double screen = 1280.0 * 720.0;
    state.counters["live"] = live / n;
    state.counters["reference"] = limit / n;
    state.counters["neighbour_splits"] = splits / n;
    state.counters["live_per_px"] = live / n / screen;
    state.counters["reference_per_px"] = limit / n / screen;
    state.counters["live_ratio"] = live / std::max(limit, 1.0);
}
BENCHMARK(BM_LodReference)
    ->ArgsProduct({{4097, 0, 1, 2}, {16}, {1, 2, 4}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_LoadHeightmap)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StbDecodeOnly)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeoTiffLoadAndTreeVsGdalRead)->Iterations(9)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Level0PageFromGeoTiffVsCodeCache)->Iterations(5)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qt

BENCHMARK_MAIN();
