// The object quadtrees (every leaf, incremental and rebuilt every frame; loose): random operation
// sequences checked query by query against brute force, the tree's invariants, depth bounds against
// coincident and tiny objects, emptying back to one root, rejected boxes, order independence,
// frames that allocate nothing, and the loose tree's compaction renumbering its nodes.
#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/heap_count.h"
#include "core/objects/baselines/brute_force.h"
#include "core/objects/baselines/every_leaf_tree.h"
#include "core/objects/baselines/rebuilt_tree.h"
#include "core/objects/loose_tree.h"
#include "core/view/camera.h"
#include "test_files.h"

namespace qt {
namespace {

using test::Random;

enum class Strategy { Incremental, Rebuilt, Loose };

constexpr float kWorld = 1024.0f;

std::unique_ptr<ObjectIndex> makeIndex(Strategy s, const ObjectTreeConfig& c) {
    if (s == Strategy::Incremental) {
        return std::make_unique<ObjectTree>(c);
    }
    if (s == Strategy::Loose) {
        return std::make_unique<LooseObjectTree>(c);
    }
    return std::make_unique<RebuiltObjectTree>(c);
}

// The structure's own statistics and invariants' check, whichever tree it is.
struct TreeView {
    const ObjectTree* tree = nullptr;
    const LooseObjectTree* loose = nullptr;

    std::string check() const { return tree ? tree->check() : loose->check(); }
    bool isEmptyRoot() const { return tree ? tree->isEmptyRoot() : loose->isEmptyRoot(); }
    uint32_t depth() const { return tree ? tree->depth() : loose->depth(); }
    uint32_t nodeCount() const { return tree ? tree->nodeCount() : loose->nodeCount(); }
};

TreeView treeOf(const ObjectIndex& index) {
    if (const auto* rebuilt = dynamic_cast<const RebuiltObjectTree*>(&index)) {
        return {&rebuilt->tree(), nullptr};
    }
    if (const auto* loose = dynamic_cast<const LooseObjectTree*>(&index)) {
        return {nullptr, loose};
    }
    return {&dynamic_cast<const ObjectTree&>(index), nullptr};
}

Box boxAt(float x, float y, float z, float hx, float hy, float hz) {
    return {{x - hx, y - hy, z - hz}, {x + hx, y + hy, z + hz}};
}

// Boxes of every kind the tree must handle: small, points, large, over everything, at a few
// shared points, far off the root square.
Box randomBox(Random& rng) {
    const uint32_t kind = rng.below(100);
    const float y = rng.uniform(-10.0f, 50.0f), hy = rng.uniform(0.0f, 5.0f);
    if (kind < 50) {
        return boxAt(rng.uniform(-50.0f, kWorld + 50.0f), y, rng.uniform(-50.0f, kWorld + 50.0f),
                     rng.uniform(0.0f, 4.0f), hy, rng.uniform(0.0f, 4.0f));
    }
    if (kind < 60) {
        const glm::vec3 p(rng.uniform(0.0f, kWorld), y, rng.uniform(0.0f, kWorld));
        return {p, p};
    }
    if (kind < 66) {
        return boxAt(rng.uniform(0.0f, kWorld), y, rng.uniform(0.0f, kWorld),
                     rng.uniform(10.0f, 120.0f), hy, rng.uniform(10.0f, 120.0f));
    }
    if (kind < 68) {
        return boxAt(kWorld / 2, y, kWorld / 2, 2000.0f, hy, 2000.0f);
    }
    if (kind < 86) {
        const float spots[3][2] = {{512.0f, 512.0f}, {100.25f, 700.5f}, {0.0f, 0.0f}};
        const uint32_t s = rng.below(3);
        return boxAt(spots[s][0], 1.0f, spots[s][1], 0.0f, 0.0f, 0.0f);
    }
    const float far = kind < 93 ? 1e5f : -3e4f;
    return boxAt(far * rng.uniform(0.5f, 1.0f), y, rng.uniform(-1e5f, 1e5f), 3.0f, hy, 3.0f);
}

// A step of a moving object: a few units mostly, sometimes across several nodes at once.
Box stepped(const Box& b, Random& rng) {
    const float reach = rng.below(10) == 0 ? 150.0f : 3.0f;
    const glm::vec3 d(rng.uniform(-reach, reach), rng.uniform(-1.0f, 1.0f),
                      rng.uniform(-reach, reach));
    return {b.min + d, b.max + d};
}

Frustum randomFrustum(Random& rng) {
    Camera c;
    c.fovY = rng.uniform(0.3f, 1.6f);
    c.farPlane = rng.uniform(50.0f, 2000.0f);
    c.lookAt({rng.uniform(-100.0f, kWorld + 100.0f), rng.uniform(-20.0f, 200.0f),
              rng.uniform(-100.0f, kWorld + 100.0f)},
             {rng.uniform(0.0f, kWorld), rng.uniform(-20.0f, 60.0f), rng.uniform(0.0f, kWorld)});
    return Frustum::fromViewProjection(c.viewProjection());
}

Ray randomRay(Random& rng) {
    const glm::vec3 origin(rng.uniform(-100.0f, kWorld + 100.0f), rng.uniform(-20.0f, 80.0f),
                           rng.uniform(-100.0f, kWorld + 100.0f));
    glm::vec3 dir(rng.uniform(-1.0f, 1.0f), rng.uniform(-0.3f, 0.3f), rng.uniform(-1.0f, 1.0f));
    if (rng.below(4) == 0) {
        dir[int(rng.below(3))] = 0.0f;  // parallel to a slab
    }
    const float reach = rng.below(3) == 0 ? std::numeric_limits<float>::infinity() : 800.0f;
    return Ray::make(origin, dir, reach);
}

Rect randomRect(Random& rng) {
    const float x = rng.uniform(-100.0f, kWorld + 100.0f),
                z = rng.uniform(-100.0f, kWorld + 100.0f);
    const float w = rng.below(5) == 0 ? 0.0f : rng.uniform(-5.0f, 300.0f);  // some inverted
    return {x, z, x + w, z + rng.uniform(0.0f, 300.0f)};
}

// The index and the model beside it: every change made to both.
struct Harness {
    std::unique_ptr<ObjectIndex> index;
    ObjectArrays model;
    std::vector<uint32_t> live;

    void insert(const Box& b, Motion m) {
        const Result<uint32_t> id = index->insert(b, m);
        ASSERT_TRUE(id.ok());
        const uint32_t i = id.value();
        if (i >= model.box.size()) {
            ASSERT_EQ(i, model.box.size());
            model.box.emplace_back();
            model.swept.emplace_back();
            model.moving.push_back(0);
            model.alive.push_back(0);
        }
        ASSERT_FALSE(model.alive[i]);
        model.box[i] = model.swept[i] = b;
        model.moving[i] = uint8_t(m);
        model.alive[i] = 1;
        live.push_back(i);
    }
    void remove(size_t slot) {
        const uint32_t i = live[slot];
        index->remove(i);
        model.alive[i] = 0;
        live[slot] = live.back();
        live.pop_back();
    }
    void move(uint32_t i, const Box& b) {
        ASSERT_TRUE(index->move(i, b).ok());
        model.swept[i] = model.moving[i] ? unionBox(model.box[i], b) : b;
        model.box[i] = b;
    }
};

void expectQueriesMatch(const ObjectIndex& index, const ObjectArrays& model, Random& rng,
                        const std::string& where) {
    std::vector<uint32_t> got, want;
    for (int k = 0; k < 2; ++k) {
        const Rect r = randomRect(rng);
        index.queryRect(r, got);
        bruteRect(model, r, want);
        ASSERT_EQ(got, want) << where << " rect " << k;
        const Frustum f = randomFrustum(rng);
        index.queryFrustum(f, got);
        bruteFrustum(model, f, want);
        ASSERT_EQ(got, want) << where << " frustum " << k;
        const Ray ray = randomRay(rng);
        const std::optional<RayHit> a = index.queryRay(ray), b = bruteRay(model, ray);
        ASSERT_EQ(a.has_value(), b.has_value()) << where << " ray " << k;
        if (a) {
            ASSERT_EQ(a->object, b->object) << where << " ray " << k;
            ASSERT_EQ(a->distance, b->distance) << where << " ray " << k;
        }
    }
    std::vector<ObjectPair> pairs, brute;
    index.collisionPairs(pairs);
    brutePairs(model, brute);
    ASSERT_EQ(pairs, brute) << where << " pairs";
}

class ObjectTreeTest : public ::testing::TestWithParam<Strategy> {};

// Thousands of inserts, removes and moves with frames between them: after each frame's cleanup
// every query equals brute force and the tree's invariants hold.
TEST_P(ObjectTreeTest, RandomOperationsMatchBruteForce) {
    for (uint32_t seed = 1; seed <= 4; ++seed) {
        Random rng(seed);
        ObjectTreeConfig config;
        config.size = kWorld;
        config.leafLimit = 2 + rng.below(8);
        config.maxDepth = 4 + rng.below(6);
        Harness h{makeIndex(GetParam(), config), {}, {}};
        for (int frame = 0; frame < 20; ++frame) {
            const int ops = 10 + int(rng.below(120));
            for (int k = 0; k < ops; ++k) {
                const uint32_t op = rng.below(10);
                if (op < 4 || h.live.empty()) {
                    h.insert(randomBox(rng), rng.below(3) == 0 ? Motion::Static : Motion::Moving);
                } else if (op < 5) {
                    h.remove(rng.below(uint32_t(h.live.size())));
                } else {
                    const uint32_t i = h.live[rng.below(uint32_t(h.live.size()))];
                    h.move(i, h.model.moving[i] && rng.below(8) ? stepped(h.model.box[i], rng)
                                                                : randomBox(rng));
                }
                if (::testing::Test::HasFatalFailure()) {
                    return;
                }
            }
            h.index->cleanup();
            const std::string where =
                "seed " + std::to_string(seed) + " frame " + std::to_string(frame);
            if (frame % 3 == 2) {  // the invariants' check costs more than the rest of a frame
                ASSERT_EQ(treeOf(*h.index).check(), "") << where;
            }
            expectQueriesMatch(*h.index, h.model, rng, where);
            ASSERT_EQ(h.index->objectCount(), h.live.size());
        }
        // Everything removed: one empty root again.
        while (!h.live.empty()) {
            h.remove(rng.below(uint32_t(h.live.size())));
        }
        h.index->cleanup();
        EXPECT_TRUE(treeOf(*h.index).isEmptyRoot()) << "seed " << seed;
        EXPECT_EQ(treeOf(*h.index).check(), "");
    }
}

// 10,000 objects at one point, and 500 tiny ones within a hundredth of a unit: the depth stays
// at the bound (zombiecalypse) and the queries stay exact; removing them all leaves one empty root.
TEST_P(ObjectTreeTest, CoincidentAndTinyObjectsStopAtTheDepthBound) {
    ObjectTreeConfig config;
    config.size = kWorld;
    config.maxDepth = 10;
    Harness h{makeIndex(GetParam(), config), {}, {}};
    Random rng(7);
    for (int i = 0; i < 10000; ++i) {
        h.insert(boxAt(300.0f, 0.0f, 300.0f, 0.0f, 0.0f, 0.0f), Motion::Static);
    }
    for (int i = 0; i < 500; ++i) {
        const glm::vec3 p(700.0f + rng.uniform(0.0f, 0.01f), 0.0f,
                          20.0f + rng.uniform(0.0f, 0.01f));
        h.insert({p, p + glm::vec3(1e-4f)}, Motion::Moving);
    }
    h.index->cleanup();
    const TreeView tree = treeOf(*h.index);
    EXPECT_EQ(tree.check(), "");
    EXPECT_LE(tree.depth(), config.maxDepth);
    EXPECT_LE(tree.nodeCount(), 1 + 4 * 4 * config.maxDepth);  // a few paths down, no more
    std::vector<uint32_t> got, want;
    const Rect r{299.0f, 299.0f, 301.0f, 301.0f};
    h.index->queryRect(r, got);
    bruteRect(h.model, r, want);
    EXPECT_EQ(got.size(), 10000u);
    EXPECT_EQ(got, want);
    expectQueriesMatch(*h.index, h.model, rng, "coincident");
    while (!h.live.empty()) {
        h.remove(h.live.size() - 1);
    }
    h.index->cleanup();
    EXPECT_TRUE(tree.isEmptyRoot());
}

// A fast object crossing several nodes in one step still meets what lies between (Heroic Virtue
// 2004): its swept box holds the whole path.
TEST_P(ObjectTreeTest, FastObjectDoesNotTunnel) {
    ObjectTreeConfig config;
    config.size = kWorld;
    config.leafLimit = 2;
    Harness h{makeIndex(GetParam(), config), {}, {}};
    for (int i = 0; i < 64; ++i) {  // a wall of static posts across x = 500
        h.insert(boxAt(500.0f, 0.0f, 16.0f * float(i), 0.5f, 1.0f, 0.5f), Motion::Static);
    }
    h.insert(boxAt(100.0f, 0.0f, 96.0f, 1.0f, 1.0f, 1.0f), Motion::Moving);
    const uint32_t ball = h.live.back();
    h.index->cleanup();
    h.move(ball, boxAt(900.0f, 0.0f, 96.0f, 1.0f, 1.0f, 1.0f));
    h.index->cleanup();
    std::vector<ObjectPair> pairs;
    h.index->collisionPairs(pairs);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].a, 6u);  // the post at z = 96, passed between two frames
    EXPECT_EQ(pairs[0].b, ball);
}

// Non-finite and inverted boxes are user errors: a Status, and nothing changes.
TEST_P(ObjectTreeTest, RejectsBoxesThatAreNotFiniteOrOrdered) {
    auto index = makeIndex(GetParam(), {});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const Box bad[] = {{{nan, 0, 0}, {1, 1, 1}},
                       {{0, 0, 0}, {inf, 1, 1}},
                       {{-inf, 0, 0}, {1, 1, 1}},
                       {{2, 0, 0}, {1, 1, 1}},
                       {{0, 0, 0}, {1, -1, 1}}};
    for (const Box& b : bad) {
        const Result<uint32_t> r = index->insert(b, Motion::Moving);
        EXPECT_FALSE(r.ok());
        EXPECT_FALSE(r.error().empty());
    }
    EXPECT_EQ(index->objectCount(), 0u);
    const uint32_t id = index->insert(boxAt(5, 5, 5, 1, 1, 1), Motion::Moving).value();
    for (const Box& b : bad) {
        EXPECT_FALSE(index->move(id, b).ok());
    }
    index->cleanup();
    EXPECT_EQ(index->box(id).min.x, 4.0f);
    const Motion motions[2] = {Motion::Static, Motion::Static};
    const Box two[2] = {boxAt(1, 1, 1, 1, 1, 1), bad[0]};
    EXPECT_FALSE(index->build(two, motions, 2).ok());
    EXPECT_EQ(index->objectCount(), 0u);
}

// The same objects reached by different histories (a build, inserts in id order, inserts in a
// shuffled order after removing everything) give the same answers.
TEST_P(ObjectTreeTest, ResultsDoNotDependOnInsertionOrder) {
    Random rng(11);
    const uint32_t n = 2000;
    std::vector<Box> boxes(n);
    std::vector<Motion> motions(n);
    for (uint32_t i = 0; i < n; ++i) {
        boxes[i] = randomBox(rng);
        motions[i] = rng.below(4) == 0 ? Motion::Moving : Motion::Static;
    }
    ObjectTreeConfig config;
    config.size = kWorld;
    auto built = makeIndex(GetParam(), config);
    ASSERT_TRUE(built->build(boxes.data(), motions.data(), n).ok());
    auto shuffled = makeIndex(GetParam(), config);
    for (uint32_t i = 0; i < n; ++i) {
        ASSERT_EQ(shuffled->insert(randomBox(rng), motions[i]).value(), i);
    }
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    for (uint32_t i = n; i > 1; --i) {
        std::swap(order[i - 1], order[rng.below(i)]);
    }
    for (const uint32_t i : order) {
        shuffled->remove(i);
    }
    shuffled->cleanup();
    for (uint32_t k = 0; k < n; ++k) {  // the free list gives back the last removed first
        const uint32_t i = order[n - 1 - k];
        ASSERT_EQ(shuffled->insert(boxes[i], motions[i]).value(), i);
    }
    built->cleanup();
    shuffled->cleanup();
    std::vector<ObjectPair> a, b;
    built->collisionPairs(a);
    shuffled->collisionPairs(b);
    EXPECT_EQ(a, b);
    EXPECT_FALSE(a.empty());
    std::vector<uint32_t> x, y;
    for (int k = 0; k < 20; ++k) {
        const Rect r = randomRect(rng);
        built->queryRect(r, x);
        shuffled->queryRect(r, y);
        EXPECT_EQ(x, y);
        const Frustum f = randomFrustum(rng);
        built->queryFrustum(f, x);
        shuffled->queryFrustum(f, y);
        EXPECT_EQ(x, y);
    }
}

// Frames of moves, cleanup and every query allocate nothing once the pools and the output
// buffers have grown (the balls swing back and forth, so the frames repeat).
TEST_P(ObjectTreeTest, FramesAllocateNothingAfterWarmUp) {
    Random rng(5);
    const uint32_t n = 4000;
    std::vector<Box> boxes(n);
    std::vector<Motion> motions(n);
    std::vector<glm::vec3> velocity(n);
    for (uint32_t i = 0; i < n; ++i) {
        boxes[i] = boxAt(rng.uniform(0, kWorld), 0, rng.uniform(0, kWorld), 1.5f, 1.5f, 1.5f);
        motions[i] = i % 4 == 0 ? Motion::Moving : Motion::Static;
        velocity[i] = {rng.uniform(-4, 4), 0, rng.uniform(-4, 4)};
    }
    ObjectTreeConfig config;
    config.size = kWorld;
    auto index = makeIndex(GetParam(), config);
    ASSERT_TRUE(index->build(boxes.data(), motions.data(), n).ok());
    std::vector<uint32_t> found;
    std::vector<ObjectPair> pairs;
    found.reserve(n);
    pairs.reserve(size_t(n) * 8);
    Random queries(9);
    const Frustum frustum = randomFrustum(queries);
    const Ray ray = randomRay(queries);
    auto frame = [&](int step) {
        const float sign = (step / 8) % 2 == 0 ? 1.0f : -1.0f;  // 8 steps out, 8 back
        for (uint32_t i = 0; i < n; i += 4) {
            Box b = index->box(i);
            b.min += sign * velocity[i];
            b.max += sign * velocity[i];
            (void)index->move(i, b);
        }
        index->cleanup();
        index->collisionPairs(pairs);
        index->queryRect({100, 100, 400, 300}, found);
        index->queryFrustum(frustum, found);
        (void)index->queryRay(ray);
    };
    for (int step = 0; step < 32; ++step) {
        frame(step);
    }
    const size_t before = heapCount().allocations;
    for (int step = 32; step < 64; ++step) {
        frame(step);
    }
    EXPECT_EQ(heapCount().allocations, before);
}

// compact() renumbers the loose tree's nodes in place. Called straight after removals, with groups
// freed by earlier merges and nodes still queued to merge, it leaves a tree whose invariants hold
// and whose queries equal brute force; the next cleanup then merges exactly what it merges in a
// twin tree that was not compacted (the same node count).
TEST(LooseObjectTree, CompactionRenumbersAroundFreedGroupsAndQueuedMerges) {
    ObjectTreeConfig config;
    config.size = kWorld;
    config.leafLimit = 4;
    Harness h{makeIndex(Strategy::Loose, config), {}, {}};
    LooseObjectTree twin(config);
    Random rng(17);
    auto insert = [&](Motion motion) {
        const Box b = randomBox(rng);
        h.insert(b, motion);
        ASSERT_TRUE(twin.insert(b, motion).ok());
    };
    auto remove = [&]() {
        const uint32_t slot = rng.below(uint32_t(h.live.size()));
        twin.remove(h.live[slot]);
        h.remove(slot);
    };
    for (int i = 0; i < 3000; ++i) {
        insert(i % 3 == 0 ? Motion::Moving : Motion::Static);
    }
    h.index->cleanup();
    twin.cleanup();
    auto& tree = dynamic_cast<LooseObjectTree&>(*h.index);
    for (int round = 0; round < 3; ++round) {
        for (int k = 0; k < 700; ++k) {  // thins leaves: merges queued, then groups freed
            remove();
        }
        h.index->cleanup();
        twin.cleanup();
        for (int k = 0; k < 300; ++k) {  // queues more merges, not done yet
            remove();
        }
        const uint32_t nodes = tree.nodeCount();
        tree.compact();
        const std::string where = "round " + std::to_string(round);
        ASSERT_EQ(tree.check(), "") << where;
        ASSERT_EQ(tree.nodeCount(), nodes) << where;
        expectQueriesMatch(tree, h.model, rng, where);
        h.index->cleanup();
        twin.cleanup();
        ASSERT_EQ(tree.check(), "") << where;
        ASSERT_EQ(tree.nodeCount(), twin.nodeCount()) << where;
        expectQueriesMatch(tree, h.model, rng, where + " after cleanup");
        for (int k = 0; k < 600; ++k) {
            insert(k % 3 == 0 ? Motion::Moving : Motion::Static);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Strategies, ObjectTreeTest,
                         ::testing::Values(Strategy::Incremental, Strategy::Rebuilt,
                                           Strategy::Loose),
                         [](const ::testing::TestParamInfo<Strategy>& param) {
                             switch (param.param) {
                                 case Strategy::Incremental:
                                     return "Incremental";
                                 case Strategy::Rebuilt:
                                     return "Rebuilt";
                                 case Strategy::Loose:
                                     break;
                             }
                             return "Loose";
                         });

}  // namespace
}  // namespace qt
