// Objects in the frame: 1,000,000 trees and rocks and 100,000 rolling balls scattered on a
// 4097 x 4097 synthetic map (core/objects/scene.h), at the bench flight's cameras. Per frame: the
// frame pipeline with the objects (the object tree's frustum query and the occlusion horizon's
// box tests) against the same pipeline without them, the object-tree nodes and boxes tested
// against the brute-force test of every object, and one simulation step.
#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "core/cull/pick.h"
#include "core/frame/frame.h"
#include "core/lod/lod_error.h"
#include "core/objects/instances.h"
#include "core/objects/pick.h"
#include "core/objects/scene.h"
#include "core/objects/static_runs.h"
#include "core/terrain/synthetic.h"
#include "core/view/camera_fit.h"
#include "core/view/flight_path.h"

namespace qt {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// This thread's CPU time in milliseconds: the frame pipeline runs on the calling thread, and on a
// machine that other work shares, wall time also counts the slices it waited through.
double cpuMs() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

struct ObjectWorld {
    Heightmap map;
    WorldMapping mapping;
    Quadtree tree;
    std::unique_ptr<ObjectScene> objects;
    std::vector<Camera> cameras;
    FrameBuffers frame;
    ObjectInstances instances;
    ObjectInstances byId;  // the same objects with the static ones sent by id, for the figure
    StaticOrder order;
    StaticRuns runs;
};

// Built once: the map, its tree, the scatter (seed 1) and 64 flight cameras.
ObjectWorld& world(int side, uint32_t count, uint32_t moving) {
    static std::unique_ptr<ObjectWorld> cached;
    if (!cached) {
        cached = std::make_unique<ObjectWorld>();
        ObjectWorld& w = *cached;
        w.map = syntheticHeightmap(side, side, 1);
        w.mapping = defaultMapping(w.map);
        w.tree = buildQuadtreeExact(w.map, 4).value();
        w.objects = std::make_unique<ObjectScene>(
            ObjectScene::scatter(w.map, w.mapping, count, moving, 1).value());
        w.cameras = flightPath(w.map, w.mapping, 64, 16.0f / 9.0f);
        // One thread, as the scene's figures are: the counters time this thread's CPU alone.
        w.frame.lodThreads = 1;
        w.frame.reserveFor(w.tree);
        w.frame.reserveObjects(count);
        w.instances.reserve(count);
        w.byId.reserve(count);
        w.order = StaticOrder(*w.objects);
        w.runs.reserve(w.order.count());
    }
    return *cached;
}

// One iteration: every flight camera's frame with the objects and without, interleaved, and one
// step. Counters per frame: the terrain pipeline's and the objects' milliseconds (wall, and the
// thread's CPU time: objects_cpu_ms is the frame with objects less the frame without, everything
// the objects add, the horizon's box tests and what the renderer sends (instances_cpu_ms: the
// balls' whole instances and the static objects' runs, StaticRuns) included; objects_share its
// part of the frame with objects), the object tests (box against plane) against brute force's one
// an object, the horizon tests, the triangles the drawn objects' meshes and impostors draw and the
// bytes sent the GPU (object_triangles, object_upload_bytes: the balls' instances and the runs,
// static_runs of them, for the drawn `groups`, of whose nodes static_nodes_searched were not known
// from earlier frames), the same with the static objects sent by id instead, untimed by the
// frame (object_upload_bytes_ids, instances_ids_cpu_ms), the triangles the same objects would
// draw as meshes alone, fine near and coarse far (object_triangles_meshes, meshOnlyTriangles: the
// impostors' gain in one run), the static objects whose way their group's box left to their
// record (records_read), and the step's milliseconds (wall, and CPU per step and per ball).
void BM_ObjectFrame(benchmark::State& state) {
    ObjectWorld& w = world(int(state.range(0)), 1100000, 100000);
    const LooseObjectTree& index = w.objects->index();
    double withMs = 0.0, withoutMs = 0.0, objectMs = 0.0, stepMs = 0.0;
    double withCpu = 0.0, withoutCpu = 0.0, stepCpu = 0.0, instancesCpu = 0.0;
    uint64_t tested = 0, nodesTested = 0, drawn = 0, occluded = 0, frames = 0, steps = 0,
             horizonTests = 0, triangles = 0, meshTriangles = 0, uploadBytes = 0, recordsRead = 0,
             staticRuns = 0, nodesSearched = 0, byIdBytes = 0, groups = 0;
    double byIdCpu = 0.0;
    for (auto _ : state) {
        for (const Camera& c : w.cameras) {
            const CullView view{c, 720, true, true, 2.0f};
            FrameStats with;
            const auto frameWith = [&] {
                const Clock::time_point start = Clock::now();
                const double cpu = cpuMs();
                with = runFrame(w.map, w.tree, w.mapping, view, w.frame, &index);
                const double instancesStart = cpuMs();
                buildObjectInstances(*w.objects, w.frame.objectsDrawn, &w.frame.objectsDrawnGroups,
                                     {}, c, view.viewportHeight, StaticsSent::AsRuns, w.instances);
                buildStaticRuns(w.order, *w.objects, w.frame.objectsDrawn,
                                &w.frame.objectsDrawnGroups, c, view.viewportHeight, w.runs);
                countStaticRuns(w.runs, w.instances);
                instancesCpu += cpuMs() - instancesStart;
                triangles += instanceTriangles(w.instances);
                recordsRead += w.instances.recordsRead;
                uploadBytes += runsUploadBytes(w.instances, w.runs);
                withCpu += cpuMs() - cpu;
                withMs += msSince(start);
                for (const std::vector<StaticRun>& list : w.runs.runs) {
                    staticRuns += list.size();
                }
                nodesSearched += w.runs.nodesSearched;
                // Not timed: the same objects with the static ones sent by id.
                const double byIdStart = cpuMs();
                buildObjectInstances(*w.objects, w.frame.objectsDrawn, &w.frame.objectsDrawnGroups,
                                     {}, c, view.viewportHeight, StaticsSent::ById, w.byId);
                byIdCpu += cpuMs() - byIdStart;
                byIdBytes += instanceUploadBytes(w.byId);
                // Not timed: a pass over every drawn object's record, for the figure alone.
                meshTriangles +=
                    meshOnlyTriangles(*w.objects, w.frame.objectsDrawn, c, view.viewportHeight);
            };
            const auto frameWithout = [&] {
                const Clock::time_point start = Clock::now();
                const double cpu = cpuMs();
                runFrame(w.map, w.tree, w.mapping, view, w.frame);
                withoutCpu += cpuMs() - cpu;
                withoutMs += msSince(start);
            };
            // The second frame of a camera finds the terrain's data of the first in the caches:
            // the order alternates from camera to camera, so that neither side has it always.
            if (frames % 2 == 0) {
                frameWith();
                frameWithout();
            } else {
                frameWithout();
                frameWith();
            }
            objectMs += with.objects.cullMs;
            tested += uint64_t(with.objects.nodesTested) + with.objects.objectsTested;
            nodesTested += with.objects.nodesTested;
            drawn += with.objects.drawn;
            occluded += with.objects.occluded;
            horizonTests += with.objects.groupsTested;
            groups += w.frame.objectsDrawnGroups.end.size();
            ++frames;
        }
        const double cpu = cpuMs();
        const StepStats step = w.objects->step(w.map, w.mapping);
        stepCpu += cpuMs() - cpu;
        stepMs += step.updateMs + step.collideMs;
        ++steps;
    }
    const double n = double(std::max<uint64_t>(frames, 1));
    state.counters["pipeline_ms"] = withoutMs / n;
    state.counters["with_objects_ms"] = withMs / n;
    state.counters["object_stage_ms"] = objectMs / n;
    state.counters["pipeline_cpu_ms"] = withoutCpu / n;
    state.counters["with_objects_cpu_ms"] = withCpu / n;
    state.counters["objects_cpu_ms"] = (withCpu - withoutCpu) / n;
    state.counters["instances_cpu_ms"] = instancesCpu / n;
    state.counters["object_triangles"] = double(triangles) / n;
    state.counters["object_triangles_meshes"] = double(meshTriangles) / n;
    state.counters["records_read"] = double(recordsRead) / n;
    state.counters["object_upload_bytes"] = double(uploadBytes) / n;
    state.counters["object_upload_bytes_ids"] = double(byIdBytes) / n;
    state.counters["instances_ids_cpu_ms"] = byIdCpu / n;
    state.counters["static_runs"] = double(staticRuns) / n;
    state.counters["static_nodes_searched"] = double(nodesSearched) / n;
    state.counters["groups"] = double(groups) / n;
    state.counters["objects_share"] = (withCpu - withoutCpu) / std::max(withCpu, 1e-9);
    state.counters["tests"] = double(tested) / n;
    state.counters["node_tests"] = double(nodesTested) / n;
    state.counters["brute_over_tests"] =
        double(index.objectCount()) * n / double(std::max<uint64_t>(tested, 1));
    state.counters["drawn"] = double(drawn) / n;
    state.counters["occluded"] = double(occluded) / n;
    // Box-vs-horizon tests: one a group (a node's objects in the frustum), against one an object
    // in the frustum for a per-object test.
    state.counters["horizon_tests"] = double(horizonTests) / n;
    state.counters["in_frustum"] = double(drawn + occluded) / n;
    state.counters["step_ms"] = stepMs / double(std::max<uint64_t>(steps, 1));
    state.counters["step_cpu_ms"] = stepCpu / double(std::max<uint64_t>(steps, 1));
    state.counters["step_cpu_us_per_ball"] =
        1e3 * stepCpu / double(std::max<uint64_t>(steps, 1)) / double(w.objects->movingCount());
}

BENCHMARK(BM_ObjectFrame)->Arg(4097)->Iterations(3)->Unit(benchmark::kMillisecond);

// The frame bench's scene made anew, as the viewer's HUD and a new map's objects make it, off the
// frame's thread (core/objects/scatter_job.h): the scatter (scatter_ms) and the static objects'
// order (static_order_ms), the thread's CPU time of each; what a frame would wait made on its
// thread.
void BM_ObjectScatter(benchmark::State& state) {
    const int side = int(state.range(0));
    const Heightmap map = syntheticHeightmap(side, side, 1);
    const WorldMapping mapping = defaultMapping(map);
    double scatterMs = 0.0, orderMs = 0.0;
    for (auto _ : state) {
        const double start = cpuMs();
        Result<ObjectScene> scene = ObjectScene::scatter(map, mapping, 1100000, 100000, 1);
        const double scattered = cpuMs();
        if (!scene) {
            state.SkipWithError(scene.error().c_str());
            return;
        }
        const StaticOrder order(scene.value());
        orderMs += cpuMs() - scattered;
        scatterMs += scattered - start;
        benchmark::DoNotOptimize(order.count());
    }
    const double n = double(std::max<int64_t>(state.iterations(), 1));
    state.counters["scatter_ms"] = scatterMs / n;
    state.counters["static_order_ms"] = orderMs / n;
}

BENCHMARK(BM_ObjectScatter)->Arg(4097)->Iterations(2)->Unit(benchmark::kMillisecond);

// Picking what the cursor shows, as the viewer does every frame: the terrain under a pixel, then
// the object in front of it (core/objects/pick.h), through a 5 x 5 grid of pixels of a 1280 x 720
// window at each flight camera. Counters per pick: the objects' microseconds and the terrain's;
// against brute force (every object's shape tested, up to the terrain's hit) on the first two
// cameras' rays, whose answers must agree (mismatches).
void BM_ObjectPick(benchmark::State& state) {
    ObjectWorld& w = world(4097, 1100000, 100000);
    double objectUs = 0.0, terrainUs = 0.0, bruteUs = 0.0;
    uint64_t picks = 0, hits = 0, brutePicks = 0, mismatches = 0;
    for (auto _ : state) {
        for (size_t i = 0; i < w.cameras.size(); ++i) {
            for (int k = 0; k < 25; ++k) {
                const PickRay ray = pixelRay(w.cameras[i], 1280.0f * float(k % 5 * 2 + 1) / 10.0f,
                                             720.0f * float(k / 5 * 2 + 1) / 10.0f, 1280, 720);
                Clock::time_point start = Clock::now();
                const PickHit ground = pickTerrain(w.map, w.tree, w.mapping, ray);
                terrainUs += 1e3 * msSince(start);
                start = Clock::now();
                const std::optional<ObjectPickHit> object =
                    pickObjectBefore(*w.objects, ray, ground);
                objectUs += 1e3 * msSince(start);
                ++picks;
                hits += object ? 1 : 0;
                if (i < 2) {
                    const float reach = ground.hit ? float(ground.t) : 1e30f;
                    start = Clock::now();
                    const std::optional<RayHit> brute =
                        pickObjectBruteForce(*w.objects, ray, reach);
                    bruteUs += 1e3 * msSince(start);
                    ++brutePicks;
                    mismatches += brute.has_value() != object.has_value() ||
                                  (brute && brute->object != object->id);
                }
            }
        }
    }
    const double n = double(std::max<uint64_t>(picks, 1));
    state.counters["object_us"] = objectUs / n;
    state.counters["terrain_us"] = terrainUs / n;
    state.counters["brute_us"] = bruteUs / double(std::max<uint64_t>(brutePicks, 1));
    state.counters["object_hits"] = double(hits) / n;
    state.counters["mismatches"] = double(mismatches);
}

BENCHMARK(BM_ObjectPick)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qt
