// The frame pipeline (core/frame/frame.h) without a window: its output equals the stages run one by
// one (walk, occlusion, level of detail) over many cameras on synthetic and real maps, and a frame
// allocates nothing once its buffers are reserved.
#include "core/frame/frame.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/heap_count.h"
#include "core/config.h"
#include "core/terrain/synthetic.h"
#include "core/view/camera_fit.h"
#include "core/view/flight_path.h"
#include "qt_source_paths.h"
#include "test_files.h"
#include "test_nodata.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::Random;
using test::Scene;

constexpr int kViewportHeight = 720;

// The frame's modes: full detail with and without occlusion, no culling, and level of detail at
// two pixel bounds with occlusion, at one without, and without a frustum.
std::vector<CullView> viewsOf(const Camera& c) {
    return {
        {c, kViewportHeight, true, true, 0.0f},   {c, kViewportHeight, true, false, 0.0f},
        {c, kViewportHeight, false, false, 0.0f}, {c, kViewportHeight, true, true, 1.0f},
        {c, kViewportHeight, true, true, 4.0f},   {c, kViewportHeight, true, false, 2.0f},
        {c, kViewportHeight, false, false, 2.0f},
    };
}

bool sameRuns(const std::vector<LeafRange>& a, const std::vector<LeafRange>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const LeafRange& x, const LeafRange& y) {
               return x.first == y.first && x.count == y.count;
           });
}

bool sameNodes(const std::vector<DrawNode>& a, const std::vector<DrawNode>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const DrawNode& x, const DrawNode& y) {
               return x.col == y.col && x.row == y.row && x.level == y.level &&
                      x.coarser == y.coarser;
           });
}

bool sameLeaves(const std::vector<LeafCoord>& a, const std::vector<LeafCoord>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const LeafCoord& x, const LeafCoord& y) {
               return x.col == y.col && x.row == y.row;
           });
}

// What runFrame must leave, from the stages called one by one as their own headers describe them.
struct Expected {
    std::vector<LeafRange> walk, drawn;
    std::vector<LeafCoord> drawList;
    std::vector<DrawNode> lodNodes;
    std::vector<HoleBox> coarseHoles;  // the coarse drawn nodes with a hole
    size_t selected = 0;     // the leaves or nodes selected, those that draw nothing included
    uint32_t holesFrom = 0;  // the instances over no hole first, then those over one
    uint32_t leavesDrawn = 0, leavesOccluded = 0;
    uint64_t triangles = 0;
};

// Whether the samples under a leaf, or a node `level` levels up, hold nodata: from the map's
// mask directly, not from the tree's hole counts.
bool overHole(const Scene& s, int col, int row, int level) {
    if (!s.map.nodata.holes()) {
        return false;
    }
    const int side = s.tree.leafSize << level;
    const int x0 = col * s.tree.leafSize, z0 = row * s.tree.leafSize;
    return boxHasNodata(s.map.nodata, x0, z0, std::min(x0 + side, s.map.width - 1),
                        std::min(z0 + side, s.map.height - 1));
}

// Whether every square under a leaf, or a node `level` levels up, has a nodata corner: square by
// square from the map's mask.
bool drawsNothing(const Scene& s, int col, int row, int level) {
    if (!s.map.nodata.holes()) {
        return false;
    }
    const int side = s.tree.leafSize << level;
    const int x0 = col * s.tree.leafSize, z0 = row * s.tree.leafSize;
    for (int z = z0; z < std::min(z0 + side, s.map.height - 1); ++z) {
        for (int x = x0; x < std::min(x0 + side, s.map.width - 1); ++x) {
            if (!s.map.nodata.holeSquare(x, z)) {
                return false;
            }
        }
    }
    return true;
}

// The instances over no hole, then those over one, each in its own order, less those that draw
// nothing.
template <typename Instance, typename Level>
uint32_t holesLast(const Scene& s, std::vector<Instance>& instances, Level level) {
    instances.erase(
        std::remove_if(instances.begin(), instances.end(),
                       [&](const Instance& i) { return drawsNothing(s, i.col, i.row, level(i)); }),
        instances.end());
    const auto it = std::stable_partition(
        instances.begin(), instances.end(),
        [&](const Instance& i) { return !overHole(s, i.col, i.row, level(i)); });
    return uint32_t(it - instances.begin());
}

// The triangles of instances, counted here from the tree: two a square of a leaf, or of a node
// at its level's step (the node `level` levels above the leaf at its corner).
uint64_t drawnTriangles(const Quadtree& tree, const std::vector<LeafCoord>& leaves) {
    uint64_t sum = 0;
    for (const LeafCoord& leaf : leaves) {
        sum += tree.nodes[tree.leafNodes[tree.leafIndexAt(leaf.col, leaf.row)]].triangleCount();
    }
    return sum;
}
uint64_t drawnTriangles(const Quadtree& tree, const std::vector<DrawNode>& nodes) {
    uint64_t sum = 0;
    for (const DrawNode& node : nodes) {
        const QuadtreeNode& n = tree.nodes[tree.nodeAt(node.level, node.col, node.row)];
        const uint64_t step = uint64_t(1) << node.level;
        sum += 2 * ((n.x1() - n.x0 + step - 1) / step) * ((n.z1() - n.z0 + step - 1) / step);
    }
    return sum;
}

Expected stagesOneByOne(const Scene& s, const CullView& view) {
    Expected e;
    const Camera& c = view.camera;
    const Frustum frustum = Frustum::fromViewProjection(
        c.viewProjectionDouble(), cullMargin(c, s.mapping, worldExtent(s.map, s.mapping)));
    CullOutput walk;
    walk.reserveFor(s.tree);
    if (view.frustum) {
        cullQuadtree(s.tree, s.mapping, frustum, walk);
    } else {
        selectAll(s.tree, walk);
    }
    e.walk = walk.ranges;
    OcclusionBuffers scratch;
    scratch.reserveFor(s.tree);
    OcclusionStats occlusion;
    if (view.lodPixels <= 0.0f) {
        e.drawn = walk.ranges;
        if (view.frustum && view.occlusion) {
            std::vector<LeafRange> kept;
            cullOccluded(s.tree, s.mapping, c, view.viewportHeight, walk.ranges, scratch, kept,
                         occlusion);
            e.drawn = kept;
        }
        appendLeafCoords(s.tree, e.drawn, e.drawList);
        e.selected = e.drawList.size();
        e.holesFrom = holesLast(s, e.drawList, [](LeafCoord) { return 0; });
        e.leavesOccluded = occlusion.leavesOccluded;
        e.leavesDrawn = walk.stats.leavesDrawn - occlusion.leavesOccluded;
        e.triangles = drawnTriangles(s.tree, e.drawList);  // the empty leaves' left out
        return e;
    }
    LodParams params =
        lodParams(s.tree, s.mapping, c, view.viewportHeight, view.lodPixels,
                  s.mapping.worldHeight(s.map.minSample), s.mapping.worldHeight(s.map.maxSample));
    LodReach reach;
    updateLodReach(s.tree, s.mapping, params, reach);
    params.reach = &reach;
    LodOutput lod;
    lod.reserveFor(s.tree);
    selectLod(s.tree, s.mapping, params, view.frustum ? &frustum : nullptr, lod);
    e.drawn = walk.ranges;
    // For the occlusion stage, the coarse drawn nodes with a square with a nodata corner, found
    // square by square, as their children with such a square (the boxes a ray may dive through,
    // NW NE SW SE; the node whole for leaves under 4 squares), as their sample boxes and the
    // codes of their samples.
    const auto holedBox = [&](int x0, int z0, int x1, int z1, HoleBox& box) {
        bool holes = false;
        box = {uint16_t(x0), uint16_t(z0), uint16_t(x1), uint16_t(z1), 0xFFFF, 0};
        for (int z = z0; z <= z1; ++z) {
            for (int x = x0; x <= x1; ++x) {
                holes = holes ||
                        (x < x1 && z < z1 && s.map.nodata.holes() && s.map.nodata.holeSquare(x, z));
                box.minCode = std::min(box.minCode, s.map.codeAt(x, z));
                box.maxCode = std::max(box.maxCode, s.map.codeAt(x, z));
            }
        }
        return holes;
    };
    for (const DrawNode& n : lod.nodes) {
        if (!view.frustum || !view.occlusion) {
            break;
        }
        const int x0 = n.col << s.tree.leafShift, z0 = n.row << s.tree.leafShift;
        const int x1 = std::min(x0 + (s.tree.leafSize << n.level), s.map.width - 1);
        const int z1 = std::min(z0 + (s.tree.leafSize << n.level), s.map.height - 1);
        HoleBox box;
        if (n.level == 0 || !holedBox(x0, z0, x1, z1, box)) {
            continue;
        }
        if (s.tree.leafSize < 4) {
            e.coarseHoles.push_back(box);
            continue;
        }
        const int half = s.tree.leafSize << (n.level - 1);
        for (int q = 0; q < 4; ++q) {
            const int cx0 = x0 + (q & 1) * half, cz0 = z0 + (q >> 1) * half;
            if (cx0 < x1 && cz0 < z1 &&
                holedBox(cx0, cz0, std::min(cx0 + half, x1), std::min(cz0 + half, z1), box)) {
                e.coarseHoles.push_back(box);
            }
        }
    }
    if (view.frustum && view.occlusion) {
        std::vector<LeafRange> fullDetail, kept, removed;
        appendFullDetailLeaves(s.tree, lod, fullDetail);
        cullOccluded(s.tree, s.mapping, c, view.viewportHeight, fullDetail, scratch, kept,
                     occlusion, {}, {true, e.coarseHoles.data(), uint32_t(e.coarseHoles.size())});
        keepFullDetailLeaves(s.tree, kept, lod);
        subtractLeafRuns(fullDetail, kept, removed);
        subtractLeafRuns(walk.ranges, removed, e.drawn);
    }
    e.lodNodes = lod.nodes;
    e.selected = lod.nodes.size();
    e.holesFrom = holesLast(s, e.lodNodes, [](const DrawNode& n) { return int(n.level); });
    e.leavesOccluded = occlusion.leavesOccluded;
    e.leavesDrawn = walk.stats.leavesDrawn - occlusion.leavesOccluded;
    e.triangles = drawnTriangles(s.tree, e.lodNodes);  // the empty nodes' left out
    return e;
}

// Adds to occludingViews the views in which the occlusion stage removed something, so that a
// test can say the comparison covered it.
void expectPipelineEqualsStages(const Scene& s, const std::vector<Camera>& cameras,
                                const std::string& what, int& occludingViews) {
    FrameBuffers frame;
    frame.reserveFor(s.tree);
    for (size_t i = 0; i < cameras.size(); ++i) {
        for (const CullView& view : viewsOf(cameras[i])) {
            const FrameStats stats = runFrame(s.map, s.tree, s.mapping, view, frame);
            const Expected e = stagesOneByOne(s, view);
            const std::string where = what + " camera " + std::to_string(i) + " lod " +
                                      std::to_string(view.lodPixels) + " frustum " +
                                      std::to_string(view.frustum) + " occlusion " +
                                      std::to_string(view.occlusion);
            ASSERT_TRUE(sameRuns(frame.walk.ranges, e.walk)) << where;
            ASSERT_TRUE(sameRuns(frame.drawn, e.drawn)) << where;
            ASSERT_TRUE(sameLeaves(frame.drawList, e.drawList)) << where;
            ASSERT_EQ(stats.lod, view.lodPixels > 0.0f) << where;
            if (stats.lod) {
                ASSERT_TRUE(sameNodes(frame.lod.nodes, e.lodNodes)) << where;
                ASSERT_EQ(frame.coarseHoles.size(), e.coarseHoles.size()) << where;
                for (size_t k = 0; k < e.coarseHoles.size(); ++k) {
                    const HoleBox& a = frame.coarseHoles[k];
                    const HoleBox& b = e.coarseHoles[k];
                    ASSERT_TRUE(a.x0 == b.x0 && a.z0 == b.z0 && a.x1 == b.x1 && a.z1 == b.z1 &&
                                a.minCode == b.minCode && a.maxCode == b.maxCode)
                        << where << " coarse node with a hole " << k;
                }
                ASSERT_EQ(stats.lodStats.nodesDrawn, e.selected) << where;
            }
            ASSERT_EQ(frame.holesFrom, e.holesFrom) << where;
            const size_t instances = stats.lod ? frame.lod.nodes.size() : frame.drawList.size();
            ASSERT_EQ(stats.instancesOverHoles, instances - e.holesFrom) << where;
            ASSERT_EQ(stats.instancesEmpty, e.selected - instances) << where;
            ASSERT_EQ(stats.cull.leavesDrawn, e.leavesDrawn) << where;
            ASSERT_EQ(stats.cull.leavesOccluded, e.leavesOccluded) << where;
            ASSERT_EQ(stats.cull.triangles, e.triangles) << where;
            ASSERT_EQ(stats.cull.leavesDrawn + stats.cull.leavesCulled + stats.cull.leavesOccluded,
                      s.tree.leaves.size())
                << where;
            ASSERT_EQ(stats.leavesTotal, s.tree.leaves.size());
            ASSERT_EQ(stats.nodesTotal, s.tree.nodes.size());
            occludingViews += e.leavesOccluded > 0;
        }
    }
}

// The benchmark's flight, eyes just above the ground looking across it (where nearer terrain
// hides the most), and anywhere around the map.
std::vector<Camera> camerasFor(const Scene& s, int count, uint32_t seed) {
    Random rng(seed);
    std::vector<Camera> cameras = flightPath(s.map, s.mapping, count / 4, 16.0f / 9.0f);
    const WorldExtent e = worldExtent(s.map, s.mapping);
    for (int i = 0; i < count / 4; ++i) {
        const int col = int(rng.below(uint32_t(s.map.width)));
        const int row = int(rng.below(uint32_t(s.map.height)));
        Camera c;
        c.position = {float(col) * s.mapping.spacingX,
                      float(s.height(col, row)) + 0.02f * (e.maxY - e.minY),
                      float(row) * s.mapping.spacingZ};
        c.yaw = rng.uniform(-3.14f, 3.14f);
        c.pitch = rng.uniform(-0.3f, 0.1f);
        c.fovY = rng.uniform(0.5f, 1.5f);
        fitClipPlanes(c, s.map, s.mapping);
        cameras.push_back(c);
    }
    while (int(cameras.size()) < count) {
        cameras.push_back(test::anyCamera(s, rng));
    }
    return cameras;
}

TEST(FramePipeline, EqualsTheStagesRunOneByOneOnSyntheticMaps) {
    int occluding = 0;
    uint32_t seed = 700;
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const Scene s =
            test::makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        expectPipelineEqualsStages(s, camerasFor(s, 40, seed), "synthetic " + std::to_string(seed),
                                   occluding);
        ASSERT_FALSE(HasFatalFailure());
        ++seed;
    }
    EXPECT_GT(occluding, 0) << "no view exercised the occlusion stage";
}

TEST(FramePipeline, EqualsTheStagesRunOneByOneOnRealMaps) {
    int occluding = 0;
    const int found = test::forEachSharedScene(
        {"puget_sound_1025x1025.png", "N47E009.hgt", "jacksboro_fault_403x344.png"},
        [&](const Scene& s, const std::string& name, int index) {
            expectPipelineEqualsStages(s, camerasFor(s, 24, 800u + uint32_t(index)), name,
                                       occluding);
        });
    if (found == 0) {
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map checks skipped";
    }
    EXPECT_GT(occluding, 0) << "no view exercised the occlusion stage";
}

// On maps with holes the frame's instances come hole-free first (drawn without the hole test),
// then those over a hole, each part in tree order: the stages' lists partitioned by the mask,
// less the instances every square of which has a nodata corner (they would draw nothing).
TEST(FramePipeline,
     EqualsTheStagesRunOneByOneWithTheInstancesOverHolesLastAndNoEmptyOnesOrTheirTriangles) {
    int occluding = 0;
    int split = 0;    // views with instances on both sides of holesFrom
    int dropped = 0;  // views with nodes that draw nothing left out
    uint32_t seed = 750;
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const int w = c.width, h = c.height;
        const Scene s =
            test::makeScene(test::withNodata(syntheticHeightmap(w, h, seed),
                                             [&](int col, int row) {
                                                 const int dx = col - w / 3, dz = row - h / 2;
                                                 return dx * dx + dz * dz < (h / 6) * (h / 6) ||
                                                        (col * 31 + row * 17) % 211 == 0;
                                             }),
                            c.mapping, c.leaf);
        ASSERT_TRUE(s.tree.hasHoles());
        FrameBuffers frame;
        frame.reserveFor(s.tree);
        for (const Camera& camera : camerasFor(s, 12, seed)) {
            for (const CullView& view : viewsOf(camera)) {
                const FrameStats stats = runFrame(s.map, s.tree, s.mapping, view, frame);
                const size_t instances = stats.lod ? frame.lod.nodes.size() : frame.drawList.size();
                split += frame.holesFrom > 0 && frame.holesFrom < instances;
                dropped += stats.lod && instances < stats.lodStats.nodesDrawn;
                // The triangles counted are those the instances left draw.
                EXPECT_EQ(stats.cull.triangles, stats.lod ? drawnTriangles(s.tree, frame.lod.nodes)
                                                          : drawnTriangles(s.tree, frame.drawList));
                EXPECT_EQ(
                    stats.instancesEmpty,
                    (stats.lod ? stats.lodStats.nodesDrawn : stats.cull.leavesDrawn) - instances);
            }
        }
        expectPipelineEqualsStages(s, camerasFor(s, 12, seed), "holes " + std::to_string(seed),
                                   occluding);
        ASSERT_FALSE(HasFatalFailure());
        ++seed;
    }
    EXPECT_GT(split, 0) << "no view drew instances both over holes and not";
    EXPECT_GT(dropped, 0) << "no view left out a node that draws nothing";
}

TEST(FramePipeline, AFrameAllocatesNothingOnceReserved) {
    const Scene s = test::makeScene(
        test::withNodata(syntheticHeightmap(513, 385, 11),
                         [](int col, int row) { return (col * 7 + row * 13) % 401 == 0; }),
        {1.0f, 0.02f, 0.0f}, 4);
    ASSERT_TRUE(s.tree.hasHoles());  // the partition's scratch too
    FrameBuffers frame;
    frame.reserveFor(s.tree);
    std::vector<CullView> views;
    for (const Camera& c : camerasFor(s, 60, 900)) {
        for (const CullView& view : viewsOf(c)) {
            views.push_back(view);
        }
    }
    uint64_t drawn = 0, grouped = 0;
    const size_t before = heapCount().allocations;
    for (const CullView& view : views) {
        const FrameStats stats = runFrame(s.map, s.tree, s.mapping, view, frame);
        drawn += stats.cull.leavesDrawn;
        // The renderer's grouping by program, as a frame's draw takes it.
        if (stats.lod) {
            groupByProgram(frame);
            grouped += frame.lod.nodes.size();
        }
    }
    const size_t after = heapCount().allocations;
    EXPECT_EQ(after, before) << "allocations over " << views.size() << " frames";
    EXPECT_GT(drawn, 0u);
    EXPECT_GT(grouped, 0u);
    // The counter counts: a vector growing past its capacity is seen.
    std::vector<int> grows;
    grows.push_back(1);
    EXPECT_GT(heapCount().allocations, after);
}

// Each part of the level-of-detail list drawn alike (over no hole, over holes) keeps its nodes,
// grouped by the program they take (programKey) in key order, each group in its order: the
// renderer draws a part with at most kProgramKeys programs, and a culled frame's instances stay a
// subsequence of the unculled frame's.
TEST(FramePipeline, EachPartIsGroupedByProgramInTheNodesOrder) {
    FrameBuffers frame;
    Random random(17);
    const uint8_t morphs[] = {0, 255, 1, 128, 254};
    int keysSeen = 0;
    for (int trial = 0; trial < 80; ++trial) {
        const size_t count = size_t(random.below(60));
        frame.lod.nodes.clear();
        for (size_t i = 0; i < count; ++i) {
            // Mostly settled morphs, so that runs of one key and every key occur.
            const auto morph = [&] {
                return morphs[random.below(8u) < 7 ? random.below(2u) : random.below(5u)];
            };
            frame.lod.nodes.push_back(DrawNode{uint16_t(i),
                                               uint16_t(trial),
                                               uint8_t(random.below(5u)),
                                               0,
                                               morph(),
                                               0,
                                               {morph(), morph(), morph(), morph()}});
        }
        const std::vector<DrawNode> before = frame.lod.nodes;
        frame.holesFrom = random.below(uint32_t(count) + 1);
        groupByProgram(frame);
        ASSERT_EQ(frame.lod.nodes.size(), count);
        const size_t bounds[] = {0, frame.holesFrom, count};
        for (int part = 0; part < 2; ++part) {
            std::vector<uint16_t> expected;  // the part's ids, key by key
            for (int key = 0; key < kProgramKeys; ++key) {
                bool seen = false;
                for (size_t i = bounds[part]; i < bounds[part + 1]; ++i) {
                    if (programKey(before[i]) == key) {
                        expected.push_back(before[i].col);
                        seen = true;
                    }
                }
                keysSeen |= seen ? 1 << key : 0;
            }
            std::vector<uint16_t> got;
            for (size_t i = bounds[part]; i < bounds[part + 1]; ++i) {
                got.push_back(frame.lod.nodes[i].col);
            }
            EXPECT_EQ(got, expected) << "trial " << trial << ", part " << part;
        }
    }
    EXPECT_EQ(keysSeen, (1 << kProgramKeys) - 1);
}

TEST(FramePipeline, CullingFrustumMovesEachPlaneOutByTheMargin) {
    Camera c;
    c.lookAt({10, 20, 30}, {100, 0, 100});
    const WorldMapping mapping{1.5f, 2.5f, 1.0f, 0.0f};
    const WorldExtent extent{640.0f, 320.0f, -5.0f, 80.0f};
    const float margin = cullMargin(c, mapping, extent);
    EXPECT_FLOAT_EQ(margin, kCullMarginSpacings * 2.5f +
                                kCullMarginUlps * std::numeric_limits<float>::epsilon() * 640.0f);
    const Frustum tight = Frustum::fromViewProjection(c.viewProjectionDouble());
    const Frustum loose = cullingFrustum(c, mapping, extent);
    for (size_t i = 0; i < 6; ++i) {
        // A point on the tight plane is inside the loose one by the margin (planes are unit).
        const glm::vec3 n(tight.planes[i]);
        const glm::vec3 onPlane = -tight.planes[i].w * n / glm::dot(n, n);
        const float distance = glm::dot(glm::vec3(loose.planes[i]), onPlane) + loose.planes[i].w;
        EXPECT_NEAR(distance, margin, 1e-4f) << "plane " << i;
    }
}

// The margin follows the largest coordinate in play, the eye's or the map's: an ulp of 1e6 is
// 0.0625, and the margin holds kCullMarginUlps of them; a non-finite eye culls nothing.
TEST(FramePipeline, CullMarginFollowsTheSizeOfTheCoordinates) {
    const WorldMapping mapping{1.0f, 1.0f, 1e6f};
    const WorldExtent extent{256.0f, 256.0f, 1e6f, 1e6f + 3.0f};
    Camera c;
    c.position = {128.0f, 1e6f + 0.5f, 20.0f};
    EXPECT_GE(cullMargin(c, mapping, extent), kCullMarginUlps * 0.0625f);
    EXPECT_LE(cullMargin(c, mapping, extent), 2.0f * kCullMarginUlps * 0.0625f);
    c.position = {1e7f, 0.0f, 0.0f};  // an eye far out: its coordinate is the largest
    EXPECT_GE(cullMargin(c, mapping, extent), kCullMarginUlps * 0.5f);
    c.position.y = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(cullMargin(c, mapping, extent), std::numeric_limits<float>::max());
}

// The near plane is made from two rows of the view-projection that cancel to 2 near / far of
// their size: taken in float, an eye 3e5 above the origin put it hundreds of units ahead, and a
// small map in plain view 12 units away was culled whole. Taken in double, the frame keeps the
// same leaves whatever the height the map and the eye are raised by.
TEST(FramePipeline, TheLeavesKeptDoNotDependOnTheHeightOfTheView) {
    std::vector<float> samples(17 * 17);
    for (int r = 0; r < 17; ++r) {
        for (int c = 0; c < 17; ++c) {
            samples[size_t(r) * 17 + size_t(c)] = float((c * 3 + r * 5) % 7);
        }
    }
    const Heightmap map = makeHeightmap(17, 17, samples).value();
    const Quadtree tree = buildQuadtree(map, 4).value();
    FrameBuffers frame;
    frame.reserveFor(tree);
    for (const auto& [eye, target] :
         std::vector<std::pair<glm::vec3, glm::vec3>>{{{-3.0f, 12.0f, -3.0f}, {8.0f, 0.0f, 8.0f}},
                                                      {{8.0f, 1.5f, 20.0f}, {8.0f, 2.0f, 0.0f}},
                                                      {{30.0f, 3.0f, 30.0f}, {0.0f, 0.0f, 0.0f}}}) {
        std::vector<LeafRange> reference;
        for (const float offset : {0.0f, 1e3f, 4e4f, 3e5f, 1e6f, 3e6f}) {
            const WorldMapping mapping{1.0f, 1.0f, offset};
            Camera c;
            const glm::vec3 up(0.0f, offset, 0.0f);
            c.lookAt(eye + up, target + up);
            fitClipPlanes(c, map, mapping);
            const FrameStats stats =
                runFrame(map, tree, mapping, CullView{c, 720, true, false, 0.0f}, frame);
            if (offset == 0.0f) {
                reference = frame.drawn;
                EXPECT_GT(stats.cull.leavesDrawn, 8u);
                continue;
            }
            ASSERT_EQ(frame.drawn.size(), reference.size()) << offset;
            for (size_t k = 0; k < reference.size(); ++k) {
                EXPECT_EQ(frame.drawn[k].first, reference[k].first) << offset;
                EXPECT_EQ(frame.drawn[k].count, reference[k].count) << offset;
            }
        }
    }
}

}  // namespace
}  // namespace qt
