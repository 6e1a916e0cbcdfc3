// Core benchmarks: culling walk vs brute force on one camera path, tree build, heightmap load.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include <stb/stb_image.h>

#include "core/cull.h"
#include "core/flight_path.h"
#include "core/quadtree.h"
#include "core/synthetic.h"

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
        slot->tree = buildQuadtree(slot->map, 4).value();
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

void BM_BuildTree(benchmark::State& state) {
    const Scene& s = scene(int(state.range(0)));
    for (auto _ : state) {
        Result<Quadtree> tree = buildQuadtree(s.map, 4);
        benchmark::DoNotOptimize(tree.value().nodes.data());
    }
    state.counters["nodes"] = double(s.tree.nodes.size());
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
BENCHMARK(BM_BuildTree)->Arg(1025)->Arg(4097)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LoadHeightmap)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StbDecodeOnly)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qt

BENCHMARK_MAIN();
