// Light benchmarks: the cast shadows of a 4097 x 4097 synthetic map for a new Sun direction each
// iteration, on the machine's threads, with a hard edge (1 band) and the disc's soft edge; the
// horizon angles towards one azimuth (the sky fraction takes one such pass per azimuth).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "core/base/worker_pool.h"
#include "core/light/sky_light.h"
#include "core/light/sunlight.h"
#include "core/terrain/synthetic.h"

namespace qt {
namespace {

// state.range(0): the map's side; range(1): the disc's bands. Each iteration turns the Sun 7.3
// degrees in azimuth and 1.1 in elevation (between 2 and 40), so no two runs share a direction.
void BM_Sunlight(benchmark::State& state) {
    const int side = int(state.range(0));
    const int bands = int(state.range(1));
    static const Heightmap map = syntheticHeightmap(4097, 4097, 11);
    const Heightmap small = side == map.width ? Heightmap() : syntheticHeightmap(side, side, 11);
    const Heightmap& m = side == map.width ? map : small;
    const WorldMapping mapping = defaultMapping(m);
    WorkerPool pool(int(std::max(1u, std::thread::hardware_concurrency())));
    std::vector<uint8_t> lit(size_t(m.sampleCount()));
    double azimuth = 0.0, elevation = 2.0;
    for (auto _ : state) {
        computeSunlight(m, mapping, {azimuth, elevation}, bands, lit.data(), &pool);
        benchmark::DoNotOptimize(lit.data());
        azimuth += 7.3;
        if (azimuth >= 360.0)
            azimuth -= 360.0;
        elevation = elevation >= 40.0 ? 2.0 : elevation + 1.1;
    }
    state.counters["threads"] = pool.threads();
    state.SetItemsProcessed(state.iterations() * m.sampleCount());
}

// state.range(0): the map's side. Each iteration turns the azimuth 7.3 degrees.
void BM_HorizonAngles(benchmark::State& state) {
    const int side = int(state.range(0));
    const Heightmap map = syntheticHeightmap(side, side, 11);
    const WorldMapping mapping = defaultMapping(map);
    WorkerPool pool(int(std::max(1u, std::thread::hardware_concurrency())));
    std::vector<float> angles(size_t(map.sampleCount()));
    double azimuth = 0.0;
    for (auto _ : state) {
        horizonAngles(map, mapping, azimuth, angles.data(), &pool);
        benchmark::DoNotOptimize(angles.data());
        azimuth = std::fmod(azimuth + 7.3, 360.0);
    }
    state.counters["threads"] = pool.threads();
    state.SetItemsProcessed(state.iterations() * map.sampleCount());
}

BENCHMARK(BM_Sunlight)
    ->Args({1025, 1})
    ->Args({4097, 1})
    ->Args({4097, 8})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_HorizonAngles)->Arg(1025)->Arg(4097)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace qt
