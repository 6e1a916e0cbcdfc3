// The culling walk equals a brute-force test of every leaf, exactly, over thousands of cameras;
// and every culled leaf is really outside the clip volume.
#include "core/cull/cull.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>
#include <glm/gtc/constants.hpp>
#include <glm/trigonometric.hpp>

#include "core/terrain/synthetic.h"
#include "core/terrain/vertex_grid.h"
#include "core/view/camera.h"
#include "qt_source_paths.h"
#include "test_files.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::anyCamera;
using test::makeScene;
using test::Random;
using test::Scene;

bool sameLeaves(const std::vector<LeafRange>& a, const std::vector<LeafRange>& b) {
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const LeafRange& x, const LeafRange& y) {
               return x.first == y.first && x.count == y.count;
           });
}

// Runs in increasing order, none empty, none touching the next (else they would be one run).
bool sortedMaximalRuns(const std::vector<LeafRange>& ranges) {
    for (size_t i = 0; i < ranges.size(); ++i) {
        if (ranges[i].count == 0 ||
            (i > 0 && ranges[i - 1].first + ranges[i - 1].count >= ranges[i].first)) {
            return false;
        }
    }
    return true;
}

std::vector<LeafCoord> leafCoords(const Quadtree& tree, const std::vector<LeafRange>& ranges) {
    std::vector<LeafCoord> leaves;
    appendLeafCoords(tree, ranges, leaves);
    return leaves;
}

// Walk (all option combinations) against brute force for one frustum; `drawn`, when given, gets
// the leaves both draw.
void expectWalkEqualsBruteForce(const Scene& s, const Frustum& f, const std::string& what,
                                std::vector<LeafRange>* drawn = nullptr) {
    CullOutput walk, brute;
    walk.reserveFor(s.tree);
    brute.reserveFor(s.tree);
    cullBruteForce(s.tree, s.mapping, f, brute);
    uint32_t nodesTested[2][2] = {};
    for (const bool lanes : {true, false}) {  // SSE lanes, and the portable one-by-one test
        for (const bool masking : {true, false}) {
            for (const bool whole : {true, false}) {
                cullQuadtree(s.tree, s.mapping, f, walk, CullOptions{masking, whole, lanes});
                ASSERT_TRUE(sameLeaves(walk.ranges, brute.ranges))
                    << what << " masking " << masking << " whole " << whole << " lanes " << lanes
                    << ": walk " << walk.ranges.size() << " runs, brute " << brute.ranges.size();
                ASSERT_TRUE(sortedMaximalRuns(walk.ranges)) << what;
                ASSERT_EQ(walk.stats.leavesDrawn, brute.stats.leavesDrawn);
                ASSERT_EQ(walk.stats.leavesDrawn + walk.stats.leavesCulled, s.tree.leaves.size());
                ASSERT_EQ(walk.stats.triangles, brute.stats.triangles);
                if (lanes) {
                    nodesTested[masking][whole] = walk.stats.nodesTested;
                } else {  // the same decisions, so the same nodes tested
                    ASSERT_EQ(walk.stats.nodesTested, nodesTested[masking][whole]) << what;
                }
            }
        }
    }
    if (drawn != nullptr) {
        *drawn = brute.ranges;
    }
}

void runRandomCameras(const Scene& s, int count, uint32_t seed, const std::string& name) {
    Random rng(seed);
    for (int i = 0; i < count; ++i) {
        const Camera c = anyCamera(s, rng);
        expectWalkEqualsBruteForce(s, Frustum::fromViewProjection(c.viewProjection()),
                                   name + " camera " + std::to_string(i));
        if (::testing::Test::HasFatalFailure()) {
            return;
        }
    }
}

TEST(Cull, WalkEqualsBruteForceOnSyntheticMaps) {
    uint32_t seed = 1;
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const Scene s = makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        runRandomCameras(s, 600, seed++, std::to_string(c.width) + "x" + std::to_string(c.height));
    }
}

// Nodata leaves the walk's boxes as they are: they hold the fill, which the drawn surface over
// the squares around a hole interpolates at coarser levels of detail.
TEST(Cull, WalkEqualsBruteForceOnMapsWithHoles) {
    const Scene s = makeScene(
        test::withNodata(syntheticHeightmap(203, 141, 9),
                         [](int col, int row) {
                             return col > 150 + row / 10 ||
                                    (col - 60) * (col - 60) + (row - 70) * (row - 70) < 400 ||
                                    (col * 7 + row * 13) % 101 == 0;
                         }),
        {1.0f, 0.02f, 0.0f}, 4);
    ASSERT_TRUE(s.tree.hasHoles());
    runRandomCameras(s, 400, 77, "holes");
}

TEST(Cull, WalkEqualsBruteForceOnTinyAndFlatMaps) {
    const Scene shapes[] = {
        makeScene(syntheticHeightmap(2, 2, 3), {1.0f, 0.01f, 0.0f}, 4),
        makeScene(syntheticHeightmap(5, 3, 4), {1.0f, 0.01f, 0.0f}, 4),
        makeScene(flatHeightmap(129, 129, 0.0f), {1.0f, 1.0f, 0.0f}, 4),
        makeScene(flatHeightmap(100, 37, 300.0f), {2.0f, 0.5f, 0.0f}, 8),
        // Whole trees one, two and three levels deep: the root's children are leaves, the root
        // is a node two levels above the leaves (tested whole, its 16 leaves at once), and one
        // level more.
        makeScene(syntheticHeightmap(9, 9, 5), {1.0f, 0.05f, 0.0f}, 4),
        makeScene(syntheticHeightmap(17, 17, 6), {1.0f, 0.05f, 0.0f}, 4),
        makeScene(syntheticHeightmap(33, 33, 7), {1.0f, 0.05f, 0.0f}, 4),
    };
    uint32_t seed = 100;
    for (const Scene& s : shapes) {
        runRandomCameras(s, 500, seed, "shape " + std::to_string(seed));
        ++seed;
    }
}

// Maps kMaxSide samples wide and long (test::longestSideScenes): cameras anywhere, and near the
// far corner.
TEST(Cull, WalkEqualsBruteForceOnAMapTheLongestSideWide) {
    uint32_t seed = 300;
    for (const auto& [s, name] : test::longestSideScenes(11)) {
        runRandomCameras(s, 60, seed++, name);
        Random rng(seed++);
        int seen = 0;  // cameras whose view holds the last leaf
        for (int i = 0; i < 150; ++i) {
            const Camera c = test::cameraNearTheFarCorner(s, rng, 400.0f);
            const Frustum f = Frustum::fromViewProjection(c.viewProjection());
            std::vector<LeafRange> drawn;
            expectWalkEqualsBruteForce(s, f, name + " far corner camera " + std::to_string(i),
                                       &drawn);
            ASSERT_FALSE(HasFatalFailure());
            const uint32_t last = s.tree.leafIndexAt(s.tree.leavesX - 1, s.tree.leavesZ - 1);
            seen += std::any_of(drawn.begin(), drawn.end(), [&](const LeafRange& r) {
                return r.first <= last && last < r.first + r.count;
            });
        }
        EXPECT_GT(seen, 10) << name;
    }
}

TEST(Cull, WalkEqualsBruteForceOnRealMaps) {
    const int found =
        test::forEachSharedScene({"puget_sound_1025x1025.png", "N47E009.hgt",
                                  "jacksboro_fault_403x344.png", "r_volcano_maunga_whau_87x61.png"},
                                 [](const Scene& s, const std::string& name, int index) {
                                     runRandomCameras(s, 300, 200u + uint32_t(index), name);
                                 });
    if (found == 0) {
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map checks skipped";
    }
}

TEST(Cull, SpecialCameras) {
    const Scene s = makeScene(syntheticHeightmap(257, 257, 9), {1.0f, 0.01f, 0.0f}, 4);
    CullOutput out;
    out.reserveFor(s.tree);
    Camera c;
    c.farPlane = 1000.0f;

    // Far away, looking away: nothing visible, the root alone is tested.
    c.lookAt({-500, 100, -500}, {-1000, 100, -1000});
    cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(c.viewProjection()), out);
    EXPECT_EQ(out.stats.leavesDrawn, 0u);
    EXPECT_EQ(out.stats.nodesTested, 1u);
    EXPECT_EQ(out.stats.leavesCulled, s.tree.leaves.size());

    // High above, looking straight down at the centre with a wide view: everything, taken whole.
    c.lookAt({128, 2000, 128}, {128, 0, 128});
    c.farPlane = 5000.0f;
    c.fovY = glm::radians(90.0f);
    c.aspect = 1.0f;
    EXPECT_TRUE(std::isfinite(c.view()[0][0]));
    cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(c.viewProjection()), out);
    EXPECT_EQ(out.stats.leavesDrawn, s.tree.leaves.size());
    EXPECT_EQ(out.stats.nodesTested, 1u);
    EXPECT_EQ(out.stats.subtreesAccepted, 1u);

    // Looking straight up from above the highest peak: nothing.
    c.lookAt({128, 700, 128}, {128, 800, 128});
    cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(c.viewProjection()), out);
    EXPECT_EQ(out.stats.leavesDrawn, 0u);

    // Inside the terrain, looking along it: the walk still equals brute force.
    c.lookAt({100, 200, 100}, {200, 200, 140});
    c.fovY = glm::radians(60.0f);
    expectWalkEqualsBruteForce(s, Frustum::fromViewProjection(c.viewProjection()), "inside");
}

TEST(Cull, ArticleExampleNarrowFrustumOverSixteenBySixteenCells) {
    // 16 x 16 cells of 4 x 4 squares on a flat map; a narrow frustum looking straight down sees a
    // footprint of +-1.76 units around (24, 24): exactly the four cells meeting there.
    const Scene s = makeScene(flatHeightmap(65, 65, 0.0f), {1.0f, 1.0f, 0.0f}, 4);
    ASSERT_EQ(s.tree.leaves.size(), 256u);
    Camera c;
    c.lookAt({24.0f, 10.0f, 24.0f}, {24.0f, 0.0f, 24.0f});
    c.fovY = glm::radians(20.0f);
    c.aspect = 1.0f;
    c.nearPlane = 0.1f;
    c.farPlane = 20.0f;
    CullOutput out;
    out.reserveFor(s.tree);
    cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(c.viewProjection()), out);
    std::vector<std::pair<int, int>> seen;
    for (const LeafCoord& leaf : leafCoords(s.tree, out.ranges)) {
        seen.emplace_back(leaf.col, leaf.row);
    }
    std::sort(seen.begin(), seen.end());
    const std::vector<std::pair<int, int>> expected = {{5, 5}, {5, 6}, {6, 5}, {6, 6}};
    EXPECT_EQ(seen, expected);
    // The footprint sits on the corner where four quadrants meet at every level, so each level
    // tests up to four straddling nodes and their siblings: still far fewer than 256.
    EXPECT_LE(out.stats.nodesTested, 32u);
    EXPECT_EQ(out.stats.leavesCulled, 252u);

    // The figure of Ferraris 2001, "Quadtrees": a camera at one corner looking a few cells in.
    c.lookAt({62.0f, 1.0f, 62.0f}, {40.0f, 0.0f, 50.0f});
    c.fovY = glm::radians(30.0f);
    c.farPlane = 16.0f;
    cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(c.viewProjection()), out);
    EXPECT_GT(out.stats.leavesDrawn, 0u);
    EXPECT_LT(out.stats.leavesDrawn, 16u);
    // A node two levels above the leaves that the frustum straddles tests its 16 leaves at once.
    EXPECT_LE(out.stats.nodesTested, 48u);
    expectWalkEqualsBruteForce(s, Frustum::fromViewProjection(c.viewProjection()), "corner");
}

// Independent of the box test: every culled leaf has all its vertices outside one clip plane.
TEST(Cull, EveryCulledLeafIsOutsideTheClipVolume) {
    const Scene s = makeScene(syntheticHeightmap(97, 61, 5), {1.0f, 0.01f, 0.0f}, 4);
    Random rng(77);
    CullOutput out;
    out.reserveFor(s.tree);
    std::vector<uint8_t> drawn(s.tree.leaves.size());
    for (int i = 0; i < 300; ++i) {
        const Camera c = anyCamera(s, rng);
        const glm::mat4 vp = c.viewProjection();
        cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(vp), out);
        std::fill(drawn.begin(), drawn.end(), 0);
        for (const LeafRange& range : out.ranges) {
            std::fill_n(drawn.begin() + range.first, range.count, 1);
        }
        for (size_t l = 0; l < drawn.size(); ++l) {
            if (drawn[l]) {
                continue;
            }
            const QuadtreeNode& node = s.tree.nodes[s.tree.leafNodes[l]];
            uint8_t outsideAll = 0x3F;  // clip planes every vertex so far is outside of
            for (int row = node.z0; row <= node.z1(); ++row) {
                for (int col = node.x0; col <= node.x1(); ++col) {
                    const glm::vec4 p =
                        vp * glm::vec4(vertexPosition(s.map, s.mapping, col, row), 1);
                    const uint8_t o =
                        uint8_t((p.x < -p.w) | (p.x > p.w) << 1 | (p.y < -p.w) << 2 |
                                (p.y > p.w) << 3 | (p.z < -p.w) << 4 | (p.z > p.w) << 5);
                    outsideAll &= o;
                }
            }
            ASSERT_NE(outsideAll, 0) << "camera " << i << " culled a leaf the GPU could draw";
        }
    }
}

TEST(Cull, PlaneMaskingAndWholeSubtreesSaveTests) {
    const Scene s = makeScene(syntheticHeightmap(1025, 1025, 11), {1.0f, 0.004f, 0.0f}, 4);
    Camera c;
    c.lookAt({0.0f, 150.0f, 0.0f}, {1024.0f, 0.0f, 1024.0f});
    c.farPlane = 3000.0f;
    CullOutput fast, slow;
    fast.reserveFor(s.tree);
    slow.reserveFor(s.tree);
    const Frustum f = Frustum::fromViewProjection(c.viewProjection());
    cullQuadtree(s.tree, s.mapping, f, fast);
    cullQuadtree(s.tree, s.mapping, f, slow, {false, false});
    EXPECT_TRUE(sameLeaves(fast.ranges, slow.ranges));
    EXPECT_GT(fast.stats.subtreesAccepted, 0u);
    EXPECT_LT(fast.stats.nodesTested * 3, slow.stats.nodesTested);
}

TEST(Cull, SelectAllAndDecisions) {
    const Scene s = makeScene(syntheticHeightmap(130, 70, 2), {1.0f, 0.01f, 0.0f}, 4);
    CullOutput out;
    out.recordDecisions = true;
    out.reserveFor(s.tree);
    selectAll(s.tree, out);
    ASSERT_EQ(out.ranges.size(), 1u);
    EXPECT_EQ(out.ranges[0].first, 0u);
    EXPECT_EQ(out.ranges[0].count, s.tree.leaves.size());
    EXPECT_EQ(out.stats.triangles, 2ull * 129 * 69);
    Camera c;
    c.lookAt({-20.0f, 30.0f, 35.0f}, {60.0f, 0.0f, 35.0f});
    cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(c.viewProjection()), out);
    uint32_t culledLeaves = 0, drawnLeaves = 0;
    for (uint32_t n : out.culledNodes) {
        culledLeaves += s.tree.leafCount(s.tree.nodes[n]);
    }
    for (uint32_t n : out.acceptedNodes) {
        drawnLeaves += s.tree.leafCount(s.tree.nodes[n]);
    }
    EXPECT_EQ(culledLeaves, out.stats.leavesCulled);
    EXPECT_EQ(drawnLeaves, out.stats.leavesDrawn);
}

// The recorded decisions (for the minimap and the cull map) are the walk's: the accepted nodes'
// leaves are exactly the drawn runs, the culled nodes' leaves the rest, no leaf twice.
TEST(Cull, DecisionsPartitionTheLeavesAsTheRunsDo) {
    const Scene scenes[] = {
        makeScene(syntheticHeightmap(257, 257, 3), {1.0f, 0.01f, 0.0f}, 4),  // every node whole
        makeScene(syntheticHeightmap(203, 141, 4), {2.0f, 0.02f, -50.0f}, 4),
        makeScene(syntheticHeightmap(129, 300, 5), {0.5f, 0.005f, 10.0f}, 2),
    };
    Random rng(77);
    for (const Scene& s : scenes) {
        CullOutput out;
        out.recordDecisions = true;
        out.reserveFor(s.tree);
        for (int i = 0; i < 200; ++i) {
            const Camera c = anyCamera(s, rng);
            cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(c.viewProjection()), out);
            // 1: drawn by a decision, 2: culled by one; 0 left over or 3 would be wrong.
            std::vector<uint8_t> mark(s.tree.leaves.size(), 0);
            const auto markLeaves = [&](uint32_t node, uint8_t value) {
                const QuadtreeNode& n = s.tree.nodes[node];
                const uint32_t first = s.tree.firstLeaf(n);
                for (uint32_t leaf = first; leaf < first + s.tree.leafCount(n); ++leaf) {
                    ASSERT_EQ(mark[leaf], 0) << "leaf " << leaf << " decided twice";
                    mark[leaf] = value;
                }
            };
            for (const uint32_t node : out.acceptedNodes) {
                markLeaves(node, 1);
            }
            for (const uint32_t node : out.culledNodes) {
                markLeaves(node, 2);
            }
            std::vector<uint8_t> drawn(s.tree.leaves.size(), 2);
            for (const LeafRange& r : out.ranges) {
                std::fill(drawn.begin() + r.first, drawn.begin() + r.first + r.count, 1);
            }
            ASSERT_EQ(mark, drawn) << "camera " << i;
        }
    }
}

}  // namespace
}  // namespace qt
