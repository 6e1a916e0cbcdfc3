// Level of detail: the drawn nodes tile the map, culling keeps exactly the drawn nodes whose box
// is not outside the frustum, neighbours differ by one level at most, the edge bits say which,
// and the folded strips of all drawn nodes form one surface without cracks.
#include "core/lod.h"

#include <algorithm>
#include <utility>

#include <gtest/gtest.h>

#include "core/cull.h"
#include "core/synthetic.h"
#include "test_files.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::anyCamera;
using test::makeScene;
using test::Random;
using test::Scene;

LodParams paramsFor(const Scene& s, const Camera& camera, int viewportHeight, float pixels) {
    return lodParams(s.tree, s.mapping, camera.position, camera.fovY, viewportHeight, pixels,
                     s.mapping.worldHeight(s.map.minSample),
                     s.mapping.worldHeight(s.map.maxSample));
}

// The tree node a drawn node stands for, by a descent from the root.
const QuadtreeNode& treeNode(const Quadtree& tree, const DrawNode& drawn) {
    uint32_t index = tree.rootIndex();
    for (int level = tree.depth; level > drawn.level;) {
        --level;
        const int q = ((drawn.col >> level) & 1) | ((drawn.row >> level) & 1) << 1;
        index = tree.nodes[index].child(q);
    }
    return tree.nodes[index];
}

// Leaves [col, col + 2^level) x [row, row + 2^level), clipped to the tree.
template <typename F>
void forEachLeaf(const Quadtree& tree, const DrawNode& drawn, F f) {
    const int size = 1 << drawn.level;
    for (int row = drawn.row; row < std::min(drawn.row + size, tree.leavesZ); ++row) {
        for (int col = drawn.col; col < std::min(drawn.col + size, tree.leavesX); ++col) {
            f(col, row);
        }
    }
}

// Every leaf under exactly one drawn node, each drawn at the level a descent finds there, and
// neighbours at most one level apart with the edge bits set exactly where the neighbour is the
// coarser one.
void expectTilingAndEdges(const Scene& s, const LodParams& params, const LodOutput& out,
                          const std::string& what) {
    const Quadtree& tree = s.tree;
    std::vector<int> levelAt(size_t(tree.leavesX) * size_t(tree.leavesZ), -1);
    for (const DrawNode& drawn : out.nodes) {
        forEachLeaf(tree, drawn, [&](int col, int row) {
            int& level = levelAt[size_t(row) * size_t(tree.leavesX) + size_t(col)];
            ASSERT_EQ(level, -1) << what << ": leaf " << col << "," << row << " drawn twice";
            level = drawn.level;
        });
        ASSERT_EQ(drawnLevelAt(tree, params, drawn.col, drawn.row), drawn.level) << what;
    }
    for (size_t i = 0; i < levelAt.size(); ++i) {
        ASSERT_NE(levelAt[i], -1) << what << ": leaf " << i << " not drawn";
    }
    const auto level = [&](int col, int row) {
        return levelAt[size_t(row) * size_t(tree.leavesX) + size_t(col)];
    };
    for (const DrawNode& drawn : out.nodes) {
        const int size = 1 << drawn.level;
        const int colEnd = std::min(drawn.col + size, tree.leavesX);
        const int rowEnd = std::min(drawn.row + size, tree.leavesZ);
        // Each edge: the neighbouring leaves along it, and the bit that should say "coarser".
        struct Edge {
            bool present;
            int col0, row0, col1, row1;  // neighbouring leaves, inclusive
            uint8_t bit;
        };
        const Edge edges[] = {
            {drawn.col > 0, drawn.col - 1, drawn.row, drawn.col - 1, rowEnd - 1, kEdgeWest},
            {colEnd < tree.leavesX, colEnd, drawn.row, colEnd, rowEnd - 1, kEdgeEast},
            {drawn.row > 0, drawn.col, drawn.row - 1, colEnd - 1, drawn.row - 1, kEdgeNorth},
            {rowEnd < tree.leavesZ, drawn.col, rowEnd, colEnd - 1, rowEnd, kEdgeSouth},
        };
        for (const Edge& e : edges) {
            if (!e.present) {
                ASSERT_EQ(drawn.coarser & e.bit, 0) << what << ": edge on the map border";
                continue;
            }
            bool coarser = false;
            for (int row = e.row0; row <= e.row1; ++row) {
                for (int col = e.col0; col <= e.col1; ++col) {
                    const int neighbour = level(col, row);
                    ASSERT_LE(std::abs(neighbour - int(drawn.level)), 1)
                        << what << ": level " << int(drawn.level) << " beside " << neighbour;
                    coarser = coarser || neighbour > drawn.level;
                }
            }
            ASSERT_EQ((drawn.coarser & e.bit) != 0, coarser) << what << " edge " << int(e.bit);
        }
    }
}

// The strip of every drawn node, folded as the vertex shader folds them, as triangles of
// samples: every edge inside the map is shared by exactly two triangles that are not degenerate,
// and every edge on the map's border belongs to one. A crack (a T-junction, a gap) leaves an inner
// edge with one triangle.
void expectWatertight(const Scene& s, const LodOutput& out, const std::string& what) {
    const int leafSize = s.tree.leafSize;
    const int width = s.map.width;
    const int height = s.map.height;
    std::vector<uint32_t> strip;
    appendLeafStrip(0, 0, leafSize, leafSize, leafSize + 1, strip);
    using Sample = std::pair<int, int>;
    std::vector<std::pair<Sample, Sample>> edges;
    for (const DrawNode& drawn : out.nodes) {
        Sample window[3];
        int inStrip = 0;
        for (const uint32_t id : strip) {
            Sample& v = window[inStrip % 3];
            lodVertexSample(drawn, int(id % uint32_t(leafSize + 1)),
                            int(id / uint32_t(leafSize + 1)), leafSize, width, height, v.first,
                            v.second);
            if (++inStrip < 3) {
                continue;
            }
            const Sample a = window[0], b = window[1], c = window[2];
            if (a == b || b == c || a == c) {
                continue;  // a join between rows, or folded or clamped away: no area
            }
            // Collinear triangles would have no area either; the grid gives none here.
            for (std::pair<Sample, Sample> e :
                 {std::make_pair(a, b), std::make_pair(b, c), std::make_pair(c, a)}) {
                if (e.second < e.first) {
                    std::swap(e.first, e.second);
                }
                edges.push_back(e);
            }
        }
    }
    ASSERT_FALSE(edges.empty()) << what;
    std::sort(edges.begin(), edges.end());
    const auto onBorder = [&](const Sample& a, const Sample& b) {
        return (a.first == b.first && (a.first == 0 || a.first == width - 1)) ||
               (a.second == b.second && (a.second == 0 || a.second == height - 1));
    };
    for (size_t first = 0, end = 0; first < edges.size(); first = end) {
        while (end < edges.size() && edges[end] == edges[first]) {
            ++end;
        }
        const std::pair<Sample, Sample>& edge = edges[first];
        ASSERT_EQ(end - first, onBorder(edge.first, edge.second) ? 1u : 2u)
            << what << ": edge (" << edge.first.first << "," << edge.first.second << ")-("
            << edge.second.first << "," << edge.second.second << ")";
    }
}

// Culled: exactly the unculled selection's nodes whose box is not outside the frustum.
void expectCulledIsUnculledInFrustum(const Scene& s, const LodParams& params,
                                     const Frustum& frustum, const std::string& what) {
    LodOutput all, culled;
    all.reserveFor(s.tree);
    culled.reserveFor(s.tree);
    selectLod(s.tree, s.mapping, params, nullptr, all);
    selectLod(s.tree, s.mapping, params, &frustum, culled);
    const Frustum grid = gridFrustum(frustum, s.tree, s.mapping);
    std::vector<DrawNode> expected;
    for (const DrawNode& drawn : all.nodes) {
        bool outside = false;
        grid.classify(gridBox(treeNode(s.tree, drawn)), kAllPlanes, outside);
        if (!outside) {
            expected.push_back(drawn);
        }
    }
    ASSERT_EQ(culled.nodes.size(), expected.size()) << what;
    for (size_t i = 0; i < expected.size(); ++i) {
        const DrawNode& a = culled.nodes[i];
        const DrawNode& b = expected[i];
        ASSERT_TRUE(a.col == b.col && a.row == b.row && a.level == b.level &&
                    a.coarser == b.coarser)
            << what << ": drawn node " << i;
    }
    EXPECT_EQ(culled.stats.nodesDrawn, culled.nodes.size());
}

void checkCameras(const Scene& s, int count, uint32_t seed, const std::string& name,
                  bool watertight) {
    Random rng(seed);
    for (int i = 0; i < count; ++i) {
        const Camera camera = anyCamera(s, rng);
        const float pixels = rng.uniform(0.25f, 40.0f);
        const int viewportHeight = int(rng.uniform(1.0f, 2160.0f));
        const LodParams params = paramsFor(s, camera, viewportHeight, pixels);
        const std::string what = name + " camera " + std::to_string(i);
        LodOutput out;
        out.reserveFor(s.tree);
        selectLod(s.tree, s.mapping, params, nullptr, out);
        expectTilingAndEdges(s, params, out, what);
        if (watertight && i % 4 == 0) {  // the slowest check, on a quarter of the cameras
            expectWatertight(s, out, what);
        }
        expectCulledIsUnculledInFrustum(s, params,
                                        Frustum::fromViewProjection(camera.viewProjection()), what);
        if (::testing::Test::HasFatalFailure()) {
            return;
        }
    }
}

TEST(Lod, TilesTheMapWithNeighboursOneLevelApartOnSyntheticMaps) {
    std::vector<test::SyntheticCase> cases(std::begin(test::kSyntheticCases),
                                           std::end(test::kSyntheticCases));
    cases.push_back({2, 2, 4, {1.0f, 0.01f, 0.0f}});
    cases.push_back({5, 3, 4, {1.0f, 0.01f, 0.0f}});
    uint32_t seed = 1;
    for (const test::SyntheticCase& c : cases) {
        const Scene s = makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        checkCameras(s, 100, seed++, std::to_string(c.width) + "x" + std::to_string(c.height),
                     true);
    }
}

TEST(Lod, TilesTheMapOnRealMaps) {
    const int found = test::forEachSharedScene(
        {"puget_sound_1025x1025.png", "jacksboro_fault_403x344.png"},
        [](const Scene& s, const std::string& name, int index) {
            // The closed-surface check on the smaller map only: it is the slow one.
            checkCameras(s, 40, 300u + uint32_t(index), name, name.rfind("jacksboro", 0) == 0);
        });
    if (found == 0) {
        GTEST_SKIP() << "../shared/heightmaps not present; real-map checks skipped";
    }
}

// A low camera at the map's edge looking across it, grid steps up to 8 pixels: the nearest
// leaves at full detail, far nodes three levels up or more, and far fewer triangles than the leaves
// in view.
TEST(Lod, FarNodesAreCoarserAndCheaper) {
    const Scene s = makeScene(syntheticHeightmap(1025, 1025, 9), {1.0f, 0.005f, 0.0f}, 4);
    Camera camera;
    camera.fovY = 1.0471976f;
    camera.aspect = 16.0f / 9.0f;
    camera.nearPlane = 0.1f;
    camera.farPlane = 3000.0f;
    const float top = s.mapping.worldHeight(s.map.maxSample);
    camera.lookAt({10.0f, top + 20.0f, 512.0f}, {1024.0f, top - 100.0f, 512.0f});
    const Frustum frustum = Frustum::fromViewProjection(camera.viewProjection());
    LodOutput lod;
    lod.reserveFor(s.tree);
    selectLod(s.tree, s.mapping, paramsFor(s, camera, 720, 8.0f), &frustum, lod);
    CullOutput cull;
    cull.reserveFor(s.tree);
    cullQuadtree(s.tree, s.mapping, frustum, cull);
    EXPECT_GE(lod.stats.deepestLevel, 3);
    int finest = s.tree.depth;
    for (const DrawNode& drawn : lod.nodes) {
        finest = std::min(finest, int(drawn.level));
    }
    EXPECT_EQ(finest, 0);
    // The same ground, every leaf the walk finds inside the frustum lies under a drawn node.
    EXPECT_GE(lod.stats.leavesCovered, cull.stats.leavesDrawn);
    EXPECT_LT(lod.stats.triangles * 4, cull.stats.triangles);
}

TEST(Lod, ParamsKeepNeighboursOneLevelApart) {
    const Scene s = makeScene(syntheticHeightmap(65, 65, 2), {1.0f, 0.1f, 0.0f}, 16);
    Camera camera;
    for (const float pixels : {1e9f, 0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN()}) {
        EXPECT_EQ(paramsFor(s, camera, 720, pixels).stepsAway, minStepsAway(16)) << pixels;
    }
    EXPECT_EQ(paramsFor(s, camera, 0, 1.0f).stepsAway, minStepsAway(16));
    EXPECT_GT(paramsFor(s, camera, 720, 0.5f).stepsAway, paramsFor(s, camera, 720, 1.0f).stepsAway);
}

TEST(Lod, LeavesNeverSplitAndTheRootStandsAloneFromAfar) {
    const Scene s = makeScene(syntheticHeightmap(257, 257, 3), {1.0f, 0.01f, 0.0f}, 4);
    LodParams params;
    params.stepsAway = 100.0f;
    params.eye = {128.0f, 0.0f, 128.0f};
    EXPECT_FALSE(lodSplits(params, 0, 0, 0, 4, 4));
    EXPECT_TRUE(lodSplits(params, 1, 0, 0, 8, 8));
    params.eye = {1e7f, 1e7f, 1e7f};
    LodOutput out;
    out.reserveFor(s.tree);
    selectLod(s.tree, s.mapping, params, nullptr, out);
    ASSERT_EQ(out.nodes.size(), 1u);
    EXPECT_EQ(out.nodes[0].level, s.tree.depth);
    EXPECT_EQ(out.nodes[0].coarser, 0);
    EXPECT_EQ(out.stats.leavesCovered, s.tree.leaves.size());
}

// Runs as a set of leaves, for the reference checks below.
std::vector<bool> leafSet(const std::vector<LeafRange>& runs, size_t leaves) {
    std::vector<bool> set(leaves, false);
    for (const LeafRange& run : runs) {
        for (uint32_t leaf = run.first; leaf < run.first + run.count; ++leaf) {
            set[leaf] = true;
        }
    }
    return set;
}

// Random sorted runs over [0, leaves): each leaf in with probability `share`.
std::vector<LeafRange> randomRuns(Random& rng, uint32_t leaves, float share) {
    std::vector<LeafRange> runs;
    for (uint32_t leaf = 0; leaf < leaves; ++leaf) {
        if (rng.uniform(0.0f, 1.0f) < share) {
            appendLeafRange(runs, leaf, 1);
        }
    }
    return runs;
}

TEST(Lod, SubtractLeafRunsIsSetDifference) {
    Random rng(77);
    for (int trial = 0; trial < 200; ++trial) {
        const uint32_t leaves = 1 + rng.below(300);
        const std::vector<LeafRange> from = randomRuns(rng, leaves, rng.uniform(0.0f, 1.0f));
        const std::vector<LeafRange> removed = randomRuns(rng, leaves, rng.uniform(0.0f, 1.0f));
        std::vector<LeafRange> out;
        subtractLeafRuns(from, removed, out);
        const std::vector<bool> a = leafSet(from, leaves);
        const std::vector<bool> b = leafSet(removed, leaves);
        const std::vector<bool> c = leafSet(out, leaves);
        for (uint32_t leaf = 0; leaf < leaves; ++leaf) {
            ASSERT_EQ(c[leaf], a[leaf] && !b[leaf]) << "trial " << trial << " leaf " << leaf;
        }
        for (size_t i = 1; i < out.size(); ++i) {  // sorted and maximal
            ASSERT_LT(out[i - 1].first + out[i - 1].count, out[i].first);
        }
    }
}

// The occlusion stage's candidates with level of detail are exactly the full-detail nodes' leaves,
// and keeping a subset of them drops exactly the other full-detail nodes, coarser ones untouched,
// with the stats following.
TEST(Lod, FullDetailLeavesGoThroughTheOcclusionStageAlone) {
    const Scene s = makeScene(syntheticHeightmap(203, 141, 4), {1.0f, 0.01f, 0.0f}, 4);
    Random rng(78);
    size_t fullDetailSeen = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const Camera camera = anyCamera(s, rng);
        const LodParams params = paramsFor(s, camera, 720, rng.uniform(0.5f, 8.0f));
        LodOutput lod;
        lod.reserveFor(s.tree);
        const Frustum frustum = Frustum::fromViewProjection(camera.viewProjection());
        selectLod(s.tree, s.mapping, params, &frustum, lod);
        std::vector<LeafRange> candidates;
        appendFullDetailLeaves(s.tree, lod, candidates);
        const std::vector<bool> isCandidate = leafSet(candidates, s.tree.leaves.size());
        size_t fullDetail = 0;
        for (const DrawNode& node : lod.nodes) {
            if (node.level == 0) {
                ++fullDetail;
                ASSERT_TRUE(isCandidate[s.tree.leafIndexAt(node.col, node.row)]);
            }
        }
        ASSERT_EQ(size_t(std::count(isCandidate.begin(), isCandidate.end(), true)), fullDetail);
        fullDetailSeen += fullDetail;

        // Keep a random half of the candidates.
        std::vector<LeafRange> kept;
        for (const LeafRange& run : candidates) {
            for (uint32_t leaf = run.first; leaf < run.first + run.count; ++leaf) {
                if (rng.below(2) == 0) {
                    appendLeafRange(kept, leaf, 1);
                }
            }
        }
        const std::vector<bool> isKept = leafSet(kept, s.tree.leaves.size());
        std::vector<DrawNode> expected;
        for (const DrawNode& node : lod.nodes) {
            if (node.level > 0 || isKept[s.tree.leafIndexAt(node.col, node.row)]) {
                expected.push_back(node);
            }
        }
        const LodStats before = lod.stats;
        keepFullDetailLeaves(s.tree, kept, lod);
        ASSERT_EQ(lod.nodes.size(), expected.size());
        uint64_t triangles = 0;
        uint32_t covered = 0;
        for (size_t i = 0; i < expected.size(); ++i) {
            const DrawNode& node = lod.nodes[i];
            ASSERT_TRUE(node.col == expected[i].col && node.row == expected[i].row &&
                        node.level == expected[i].level);
            const QuadtreeNode& box = treeNode(s.tree, node);
            const int step = 1 << node.level;
            triangles += 2u * uint64_t((box.x1 - box.x0 + step - 1) / step) *
                         uint64_t((box.z1 - box.z0 + step - 1) / step);
            covered += s.tree.leafCount(box);
        }
        EXPECT_EQ(lod.stats.nodesDrawn, lod.nodes.size());
        EXPECT_EQ(lod.stats.triangles, triangles);
        EXPECT_EQ(lod.stats.leavesCovered, covered);
        EXPECT_EQ(lod.stats.leavesOccluded, before.nodesDrawn - lod.stats.nodesDrawn);
    }
    EXPECT_GT(fullDetailSeen, 1000u);  // the cameras did draw full-detail nodes
}

}  // namespace
}  // namespace qt
