// Object benchmarks: rolling balls among static objects over a 4097 x 4097 map, one step = move
// every ball and find every candidate pair, for the object quadtree (incremental and rebuilt every
// frame), the loose quadtree, a uniform grid, Box2D's broad phase and brute force; the rectangle
// and frustum queries; memory; and a check that they all find the same pairs.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <vector>

#if defined(QT_HAVE_BOX2D)
#include <box2d/b2_broad_phase.h>
#endif

#include "core/objects/baselines/brute_force.h"
#include "core/objects/baselines/every_leaf_tree.h"
#include "core/objects/baselines/rebuilt_tree.h"
#include "core/objects/baselines/uniform_grid.h"
#include "core/objects/loose_tree.h"
#include "core/view/camera.h"

namespace qt {
namespace {

constexpr float kMap = 4097.0f;        // the terrain's extent, units
constexpr uint32_t kGridCells = 1024;  // 4-unit cells: a ball's swept box spans 1 to 4

// Deterministic hash to [0, 1): the same motion for every structure, whatever it runs on.
float hash01(uint32_t a, uint32_t b) {
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return float(h >> 8) / 16777216.0f;
}

// The scene: objects 0..statics-1 static (trees and rocks, half-size 0.5 to 3 units), then the
// balls (radius 1 to 2) rolling 1 to 4 units a step, turning a little each step, bouncing off the
// map's edges. Ten static objects to one ball.
struct Scene {
    uint32_t statics = 0;
    std::vector<Box> boxes;  // the boxes at step 0
    std::vector<Motion> motions;
    std::vector<float> radius;  // per ball

    explicit Scene(uint32_t count) {
        statics = count - count / 11;
        boxes.resize(count);
        motions.resize(count, Motion::Static);
        for (uint32_t i = 0; i < count; ++i) {
            const float x = hash01(i, 1) * kMap, z = hash01(i, 2) * kMap;
            if (i < statics) {
                const float h = 0.5f + 2.5f * hash01(i, 3);
                boxes[i] = {{x - h, 0.0f, z - h}, {x + h, 4.0f * h, z + h}};
            } else {
                const float r = 1.0f + hash01(i, 3);
                radius.push_back(r);
                boxes[i] = {{x - r, 0.0f, z - r}, {x + r, 2.0f * r, z + r}};
                motions[i] = Motion::Moving;
            }
        }
    }
    uint32_t count() const { return uint32_t(boxes.size()); }
};

Scene& scene(uint32_t count) {
    static std::map<uint32_t, std::unique_ptr<Scene>> cache;
    std::unique_ptr<Scene>& s = cache[count];
    if (!s) {
        s = std::make_unique<Scene>(count);
    }
    return *s;
}

// The balls in motion: centre, heading, speed; step() writes every ball's new box.
struct Balls {
    const Scene& scene;
    std::vector<float> x, z, heading, speed;
    uint32_t stepNumber = 0;
    std::vector<Box> next;  // ball k's box after the step

    explicit Balls(const Scene& s) : scene(s) {
        const uint32_t n = s.count() - s.statics;
        for (uint32_t k = 0; k < n; ++k) {
            const Box& b = s.boxes[s.statics + k];
            x.push_back(0.5f * (b.min.x + b.max.x));
            z.push_back(0.5f * (b.min.z + b.max.z));
            heading.push_back(6.2831853f * hash01(k, 4));
            speed.push_back(1.0f + 3.0f * hash01(k, 5));
        }
        next.resize(n);
    }
    void step() {
        ++stepNumber;
        for (uint32_t k = 0; k < x.size(); ++k) {
            heading[k] += 0.4f * (hash01(k, stepNumber) - 0.5f);
            float nx = x[k] + speed[k] * std::cos(heading[k]);
            float nz = z[k] + speed[k] * std::sin(heading[k]);
            if (nx < 0.0f || nx > kMap) {
                heading[k] = 3.1415927f - heading[k];
                nx = std::clamp(nx, 0.0f, kMap);
            }
            if (nz < 0.0f || nz > kMap) {
                heading[k] = -heading[k];
                nz = std::clamp(nz, 0.0f, kMap);
            }
            x[k] = nx;
            z[k] = nz;
            const float r = scene.radius[k];
            next[k] = {{nx - r, 0.0f, nz - r}, {nx + r, 2.0f * r, nz + r}};
        }
    }
};

ObjectTreeConfig mapConfig() {
    ObjectTreeConfig c;
    c.size = kMap;
    c.maxDepth = 12;
    return c;
}

void pairCounters(benchmark::State& state, uint64_t pairs, const Scene& s) {
    const double steps = double(std::max<int64_t>(state.iterations(), 1));
    state.counters["pairs"] = double(pairs) / steps;
    state.counters["objects"] = double(s.count());
    state.counters["moving"] = double(s.count() - s.statics);
}

// The timed steps: every ball moved through move(id, box), then finish(pairs) gives the step's
// candidate pairs; the pair counters at the end.
template <class Move, class Finish>
void stepBalls(benchmark::State& state, const Scene& s, Move&& move, Finish&& finish) {
    Balls balls(s);
    std::vector<ObjectPair> pairs;
    uint64_t found = 0;
    for (auto _ : state) {
        balls.step();
        for (uint32_t k = 0; k < balls.next.size(); ++k) {
            move(s.statics + k, balls.next[k]);
        }
        finish(pairs);
        found += pairs.size();
    }
    pairCounters(state, found, s);
}

// One step: every ball moved, the frame's cleanup, every candidate pair.
template <class Index>
void stepIndex(benchmark::State& state, Index& index) {
    const Scene& s = scene(uint32_t(state.range(0)));
    if (!index.build(s.boxes.data(), s.motions.data(), s.count()).ok()) {
        state.SkipWithError("build failed");
        return;
    }
    stepBalls(
        state, s, [&](uint32_t id, const Box& box) { (void)index.move(id, box); },
        [&](std::vector<ObjectPair>& pairs) {
            index.cleanup();
            index.collisionPairs(pairs);
        });
    state.counters["index_bytes_per_object"] = double(index.indexBytes()) / double(s.count());
}

void BM_StepTree(benchmark::State& state) {
    ObjectTree tree(mapConfig());
    stepIndex(state, tree);
    const double objects = double(tree.objectCount());
    state.counters["elements_per_object"] = double(tree.elementCount()) / objects;
    state.counters["nodes"] = double(tree.nodeCount());
    // Nodes and elements in use (index_bytes_per_object counts the pools' capacity, with the
    // compaction's second element buffer).
    state.counters["used_bytes_per_object"] =
        (double(tree.nodeCount()) * sizeof(ObjectTree::Node) +
         double(tree.elementCount()) * sizeof(ObjectTree::Element)) /
        objects;
}

// The loose tree (each object once, in the deepest node whose doubled square holds it): the same
// scene and steps as BM_StepTree, and the same memory counters.
void BM_StepLoose(benchmark::State& state) {
    LooseObjectTree tree(mapConfig());
    stepIndex(state, tree);
    const double objects = double(tree.objectCount());
    state.counters["elements_per_object"] = double(tree.elementCount()) / objects;
    state.counters["nodes"] = double(tree.nodeCount());
    // Nodes in use with each node's subtree run (two indices), elements in use with each
    // element's id, and the object's node and element links.
    state.counters["used_bytes_per_object"] =
        (double(tree.nodeCount()) * (sizeof(LooseObjectTree::Node) + 2 * sizeof(uint32_t)) +
         double(tree.elementCount()) * (sizeof(LooseObjectTree::Element) + sizeof(uint32_t))) /
            objects +
        2.0 * sizeof(uint32_t);
}

void BM_StepRebuilt(benchmark::State& state) {
    RebuiltObjectTree tree(mapConfig());
    stepIndex(state, tree);
}

void BM_StepGrid(benchmark::State& state) {
    const Scene& s = scene(uint32_t(state.range(0)));
    UniformGrid grid(0.0f, 0.0f, kMap, kGridCells);
    grid.build(s.boxes.data(), s.motions.data(), s.count());
    stepBalls(
        state, s, [&](uint32_t id, const Box& box) { grid.move(id, box); },
        [&](std::vector<ObjectPair>& pairs) { grid.collisionPairs(pairs); });
    state.counters["index_bytes_per_object"] = double(grid.indexBytes()) / double(s.count());
}

// The scene as the brute-force reference's arrays: every object present, the balls moving.
ObjectArrays bruteArrays(const Scene& s) {
    ObjectArrays objects{s.boxes, s.boxes, {}, std::vector<uint8_t>(s.count(), 1)};
    for (const Motion m : s.motions) {
        objects.moving.push_back(uint8_t(m));
    }
    return objects;
}

// Brute force, every ball against every object: the whole step, for the sizes where it is sane.
void BM_StepBrute(benchmark::State& state) {
    const Scene& s = scene(uint32_t(state.range(0)));
    ObjectArrays objects = bruteArrays(s);
    stepBalls(
        state, s,
        [&](uint32_t i, const Box& box) {
            objects.swept[i] = unionBox(objects.box[i], box);
            objects.box[i] = box;
        },
        [&](std::vector<ObjectPair>& pairs) { brutePairs(objects, pairs); });
}

// Brute force at sizes where a whole step takes minutes: the first `subset` balls against every
// object, timed, and the time scaled by balls / subset (each ball costs the same N tests). Pairs
// are those of the subset, scaled the same way.
void BM_StepBruteSubset(benchmark::State& state) {
    const Scene& s = scene(uint32_t(state.range(0)));
    const auto subset = uint32_t(state.range(1));
    const ObjectArrays objects = bruteArrays(s);
    const uint32_t balls = s.count() - s.statics;
    std::vector<uint32_t> movers;
    for (uint32_t k = 0; k < subset; ++k) {
        movers.push_back(s.statics + k);
    }
    const double scale = double(balls) / double(subset);
    std::vector<ObjectPair> pairs;
    uint64_t found = 0;
    for (auto _ : state) {
        pairs.clear();
        const auto t0 = std::chrono::steady_clock::now();
        brutePairsOf(objects, movers.data(), movers.size(), pairs);
        const auto t1 = std::chrono::steady_clock::now();
        state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count() * scale);
        found += pairs.size();
    }
    pairCounters(state, uint64_t(double(found) * scale), s);
    state.counters["timed_balls"] = double(subset);
}

#if defined(QT_HAVE_BOX2D)
// Box2D's broad phase (a dynamic AABB tree with fat boxes) over x/z, the same objects and motion.
// MoveProxy only queues a proxy whose box left its fat box; TouchProxy queues the others, so that
// UpdatePairs reports every pair of every moving proxy each step, as collisionPairs does (Box2D's
// world keeps the rest in its contact list instead). Its pairs are fat-box overlaps: a superset
// of the exact ones (BM_PairsAgree checks that).
struct Box2DScene {
    b2BroadPhase broadPhase;
    std::vector<int32> proxy;
    uint64_t pairs = 0;

    void AddPair(void*, void*) { ++pairs; }

    static b2AABB aabb(const Box& b) {
        b2AABB a;
        a.lowerBound.Set(b.min.x, b.min.z);
        a.upperBound.Set(b.max.x, b.max.z);
        return a;
    }
    explicit Box2DScene(const Scene& s) {
        for (uint32_t i = 0; i < s.count(); ++i) {
            proxy.push_back(
                broadPhase.CreateProxy(aabb(s.boxes[i]), reinterpret_cast<void*>(uintptr_t(i))));
        }
        broadPhase.UpdatePairs(this);  // the static objects' first pairs, not timed
        pairs = 0;
    }
    void move(uint32_t i, const Box& from, const Box& to) {
        const b2AABB before = broadPhase.GetFatAABB(proxy[i]);
        broadPhase.MoveProxy(proxy[i], aabb(to),
                             b2Vec2(to.min.x - from.min.x, to.min.z - from.min.z));
        const b2AABB& after = broadPhase.GetFatAABB(proxy[i]);
        if (after.lowerBound == before.lowerBound && after.upperBound == before.upperBound) {
            broadPhase.TouchProxy(proxy[i]);
        }
    }
};

void BM_StepBox2D(benchmark::State& state) {
    const Scene& s = scene(uint32_t(state.range(0)));
    auto box2d = std::make_unique<Box2DScene>(s);
    Balls balls(s);
    std::vector<Box> current(s.boxes.begin() + s.statics, s.boxes.end());
    for (auto _ : state) {
        balls.step();
        for (uint32_t k = 0; k < balls.next.size(); ++k) {
            box2d->move(s.statics + k, current[k], balls.next[k]);
            current[k] = balls.next[k];
        }
        box2d->broadPhase.UpdatePairs(box2d.get());
    }
    pairCounters(state, box2d->pairs, s);
}
#endif

// The same steps through every structure: the trees (every leaf, rebuilt, loose) and the grid must
// equal
// brute force exactly (mismatches counts steps where they differ); Box2D's pairs must hold every
// pair whose current boxes overlap (missing_exact counts those it lacks).
void BM_PairsAgree(benchmark::State& state) {
    const Scene& s = scene(uint32_t(state.range(0)));
    ObjectTree tree(mapConfig());
    RebuiltObjectTree rebuilt(mapConfig());
    LooseObjectTree loose(mapConfig());
    UniformGrid grid(0.0f, 0.0f, kMap, kGridCells);
    (void)tree.build(s.boxes.data(), s.motions.data(), s.count());
    (void)rebuilt.build(s.boxes.data(), s.motions.data(), s.count());
    (void)loose.build(s.boxes.data(), s.motions.data(), s.count());
    grid.build(s.boxes.data(), s.motions.data(), s.count());
    ObjectArrays objects = bruteArrays(s);
    Balls balls(s);
    std::vector<ObjectPair> a, b, c, d, brute;
    uint64_t mismatches = 0, pairs = 0, exactCurrent = 0, missingExact = 0, box2dPairs = 0;
#if defined(QT_HAVE_BOX2D)
    struct Collect {
        std::vector<ObjectPair> pairs;
        void AddPair(void* x, void* y) {
            const auto i = uint32_t(uintptr_t(x)), j = uint32_t(uintptr_t(y));
            pairs.push_back({std::min(i, j), std::max(i, j)});
        }
    } collect;
    Box2DScene box2d(s);
#endif
    for (auto _ : state) {
        balls.step();
        for (uint32_t k = 0; k < balls.next.size(); ++k) {
            const uint32_t i = s.statics + k;
#if defined(QT_HAVE_BOX2D)
            box2d.move(i, objects.box[i], balls.next[k]);
#endif
            (void)tree.move(i, balls.next[k]);
            (void)rebuilt.move(i, balls.next[k]);
            (void)loose.move(i, balls.next[k]);
            grid.move(i, balls.next[k]);
            objects.swept[i] = unionBox(objects.box[i], balls.next[k]);
            objects.box[i] = balls.next[k];
        }
        tree.cleanup();
        rebuilt.cleanup();
        loose.cleanup();
        tree.collisionPairs(a);
        rebuilt.collisionPairs(b);
        grid.collisionPairs(c);
        loose.collisionPairs(d);
        brutePairs(objects, brute);
        mismatches += (a != brute) + (b != brute) + (c != brute) + (d != brute);
        pairs += brute.size();
#if defined(QT_HAVE_BOX2D)
        collect.pairs.clear();
        box2d.broadPhase.UpdatePairs(&collect);
        std::sort(collect.pairs.begin(), collect.pairs.end());
        box2dPairs += collect.pairs.size();
        for (const ObjectPair& p : brute) {
            if (boxesOverlap(objects.box[p.a], objects.box[p.b])) {
                ++exactCurrent;
                missingExact += !std::binary_search(collect.pairs.begin(), collect.pairs.end(), p);
            }
        }
#endif
    }
    state.counters["mismatches"] = double(mismatches);
    state.counters["pairs"] = double(pairs);
    state.counters["exact_current_pairs"] = double(exactCurrent);
    state.counters["box2d_pairs"] = double(box2dPairs);
    state.counters["missing_exact"] = double(missingExact);
}

// ---- the rectangle query over 1% of the map (a 409.7-unit square) at 1,000,000 objects ----

constexpr uint32_t kRectObjects = 1000000;

// Rectangle i of 64: a square of side range(0) / 1000 of the map's (100: 1% of its area).
Rect rectNumber(uint32_t i, int64_t perMille) {
    const float side = float(perMille) / 1000.0f * kMap;
    const float x = hash01(i, 6) * (kMap - side), z = hash01(i, 7) * (kMap - side);
    return {x, z, x + side, z + side};
}

// Times query(rect, out) over 64 rectangles in turn; the hits per query as a counter.
template <class Query>
void timeRectQueries(benchmark::State& state, Query&& query) {
    std::vector<uint32_t> out;
    uint64_t found = 0;
    uint32_t i = 0;
    for (auto _ : state) {
        query(rectNumber(i++ % 64, state.range(0)), out);
        found += out.size();
    }
    state.counters["found"] = double(found) / double(std::max<int64_t>(state.iterations(), 1));
}

void BM_RectTree(benchmark::State& state) {
    const Scene& s = scene(kRectObjects);
    ObjectTree tree(mapConfig());
    (void)tree.build(s.boxes.data(), s.motions.data(), s.count());
    timeRectQueries(state,
                    [&](const Rect& r, std::vector<uint32_t>& out) { tree.queryRect(r, out); });
}

void BM_RectLoose(benchmark::State& state) {
    const Scene& s = scene(kRectObjects);
    LooseObjectTree tree(mapConfig());
    (void)tree.build(s.boxes.data(), s.motions.data(), s.count());
    timeRectQueries(state,
                    [&](const Rect& r, std::vector<uint32_t>& out) { tree.queryRect(r, out); });
}

void BM_RectGrid(benchmark::State& state) {
    const Scene& s = scene(kRectObjects);
    UniformGrid grid(0.0f, 0.0f, kMap, kGridCells);
    grid.build(s.boxes.data(), s.motions.data(), s.count());
    timeRectQueries(state,
                    [&](const Rect& r, std::vector<uint32_t>& out) { grid.queryRect(r, out); });
}

void BM_RectBrute(benchmark::State& state) {
    const Scene& s = scene(kRectObjects);
    const ObjectArrays objects = bruteArrays(s);
    timeRectQueries(state,
                    [&](const Rect& r, std::vector<uint32_t>& out) { bruteRect(objects, r, out); });
}

// ---- the frustum query at 1,000,000 objects, sorted by id as ObjectIndex gives it ----

// Frustum i of 64: a camera 40 units over a point of the map looking 200 units ahead and 20 down
// in a direction of its own, seeing range(0) units far.
Frustum frustumNumber(uint32_t i, int64_t farPlane) {
    Camera c;
    c.farPlane = float(farPlane);
    const float x = hash01(i, 8) * kMap, z = hash01(i, 9) * kMap, a = 6.2831853f * hash01(i, 10);
    c.lookAt({x, 40.0f, z}, {x + 200.0f * std::cos(a), 20.0f, z + 200.0f * std::sin(a)});
    return Frustum::fromViewProjection(c.viewProjection());
}

template <class Index>
void timeFrustumQueries(benchmark::State& state, Index& index) {
    const Scene& s = scene(kRectObjects);
    (void)index.build(s.boxes.data(), s.motions.data(), s.count());
    std::vector<Frustum> frustums;
    for (uint32_t i = 0; i < 64; ++i) {
        frustums.push_back(frustumNumber(i, state.range(0)));
    }
    std::vector<uint32_t> out;
    uint64_t found = 0;
    uint32_t i = 0;
    for (auto _ : state) {
        index.queryFrustum(frustums[i++ % 64], out);
        found += out.size();
    }
    state.counters["found"] = double(found) / double(std::max<int64_t>(state.iterations(), 1));
}

void BM_FrustumTree(benchmark::State& state) {
    ObjectTree tree(mapConfig());
    timeFrustumQueries(state, tree);
}

void BM_FrustumLoose(benchmark::State& state) {
    LooseObjectTree tree(mapConfig());
    timeFrustumQueries(state, tree);
}

// ---- the per-frame rebuild against the incremental tree, by share of moving objects ----

// 1,100,000 objects, of which range(0) percent move (the first ones of the scene's objects move
// with the balls' motion pattern; the rest stay).
template <class Index>
void shareStep(benchmark::State& state, Index& index) {
    const Scene& s = scene(1100000);
    const uint32_t moving = uint32_t(uint64_t(s.count()) * uint64_t(state.range(0)) / 100);
    std::vector<Motion> motions(s.count(), Motion::Static);
    std::fill(motions.begin(), motions.begin() + moving, Motion::Moving);
    (void)index.build(s.boxes.data(), motions.data(), s.count());
    std::vector<Box> current(s.boxes.begin(), s.boxes.begin() + moving);
    std::vector<ObjectPair> pairs;
    uint32_t stepNumber = 0;
    uint64_t found = 0;
    for (auto _ : state) {
        ++stepNumber;
        for (uint32_t i = 0; i < moving; ++i) {
            const float a = 6.2831853f * hash01(i, stepNumber);
            const glm::vec3 d(2.0f * std::cos(a), 0.0f, 2.0f * std::sin(a));
            current[i] = {current[i].min + d, current[i].max + d};
            (void)index.move(i, current[i]);
        }
        index.cleanup();
        index.collisionPairs(pairs);
        found += pairs.size();
    }
    state.counters["pairs"] = double(found) / double(std::max<int64_t>(state.iterations(), 1));
    state.counters["moving"] = double(moving);
}

void BM_ShareIncremental(benchmark::State& state) {
    ObjectTree tree(mapConfig());
    shareStep(state, tree);
}

void BM_ShareRebuilt(benchmark::State& state) {
    RebuiltObjectTree tree(mapConfig());
    shareStep(state, tree);
}

// The step benchmarks at 1,100,000 objects (1,000,000 static, 100,000 balls) by default; the
// scaling sweep (bench/objects_plot.py) selects the other sizes by filter.
void stepSizes(benchmark::internal::Benchmark* b) {
    for (const int n : {1000, 10000, 100000, 1100000, 5000000}) {
        b->Arg(n);
    }
    b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_StepTree)->Apply(stepSizes);
BENCHMARK(BM_StepLoose)->Apply(stepSizes);
BENCHMARK(BM_StepRebuilt)->Apply(stepSizes);
BENCHMARK(BM_StepGrid)->Apply(stepSizes);
#if defined(QT_HAVE_BOX2D)
BENCHMARK(BM_StepBox2D)->Apply(stepSizes);
#endif
// Whole brute-force steps only up to 100,000 objects (9,091 balls x 100,000 tests, about a
// second a step); beyond, only the timed subset.
BENCHMARK(BM_StepBrute)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepBruteSubset)
    ->Args({1100000, 1000})
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PairsAgree)->Arg(20000)->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RectTree)->Arg(100)->Arg(10)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RectLoose)->Arg(100)->Arg(10)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FrustumTree)->Arg(500)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FrustumLoose)->Arg(500)->Arg(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RectGrid)->Arg(100)->Arg(10)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RectBrute)->Arg(100)->Arg(10)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ShareIncremental)->Arg(1)->Arg(10)->Arg(30)->Arg(100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ShareRebuilt)->Arg(1)->Arg(10)->Arg(30)->Arg(100)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qt
