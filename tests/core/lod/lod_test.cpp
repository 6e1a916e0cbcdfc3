// Level of detail: the drawn nodes tile the map, culling keeps exactly the drawn nodes whose box
// is not outside the frustum, neighbours differ by one level at most, the edge bits say which,
// and the folded strips of all drawn nodes form one surface without cracks.
#include "core/lod/lod.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include <gtest/gtest.h>

#include "core/cull/cull.h"
#include "core/io/load.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/synthetic.h"
#include "core/terrain/vertex_grid.h"
#include "qt_source_paths.h"
#include "test_files.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::anyCamera;
using test::makeScene;
using test::Random;
using test::Scene;

// The frame's parameters; with `reach`, the split rule with each node's coarse error (made there
// for the camera), without it the grid step alone.
LodParams paramsFor(const Scene& s, const Camera& camera, int viewportHeight, float pixels,
                    LodReach* reach = nullptr) {
    LodParams params =
        lodParams(s.tree, s.mapping, camera, viewportHeight, pixels,
                  s.mapping.worldHeight(s.map.minSample), s.mapping.worldHeight(s.map.maxSample));
    if (reach != nullptr) {
        updateLodReach(s.tree, s.mapping, params, *reach);
        params.reach = reach;
    }
    return params;
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
    // Edge morphs: the same from both nodes of an edge at one level, 0 beside a finer node.
    std::vector<const DrawNode*> nodeAt(levelAt.size(), nullptr);
    for (const DrawNode& drawn : out.nodes) {
        forEachLeaf(tree, drawn, [&](int col, int row) {
            nodeAt[size_t(row) * size_t(tree.leavesX) + size_t(col)] = &drawn;
        });
    }
    for (const DrawNode& drawn : out.nodes) {
        const int size = 1 << drawn.level;
        // West, east, north, south: a leaf beside the edge's first leaf, and the opposite edge.
        const int side[4][3] = {{drawn.col - 1, drawn.row, 1},
                                {drawn.col + size, drawn.row, 0},
                                {drawn.col, drawn.row - 1, 3},
                                {drawn.col, drawn.row + size, 2}};
        for (int k = 0; k < 4; ++k) {
            const int col = side[k][0], row = side[k][1];
            if (col < 0 || row < 0 || col >= tree.leavesX || row >= tree.leavesZ ||
                (drawn.coarser & (1 << k)) != 0) {
                continue;
            }
            const DrawNode& other = *nodeAt[size_t(row) * size_t(tree.leavesX) + size_t(col)];
            if (other.level < drawn.level) {
                ASSERT_EQ(drawn.edgeMorph[k], 0) << what << ": edge beside a finer node";
            } else {
                ASSERT_EQ(other.level, drawn.level) << what;
                ASSERT_EQ(drawn.edgeMorph[k], other.edgeMorph[side[k][2]]) << what << " edge " << k;
                ASSERT_GE(drawn.edgeMorph[k], drawn.morph) << what;
            }
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

// Cameras anywhere (anyCamera), or with farCornerReach, within that many world units of the map's
// far corner (cameraNearTheFarCorner).
void checkCameras(const Scene& s, int count, uint32_t seed, const std::string& name,
                  bool watertight, float farCornerReach = 0.0f) {
    Random rng(seed);
    for (int i = 0; i < count; ++i) {
        const Camera camera = farCornerReach > 0.0f
                                  ? test::cameraNearTheFarCorner(s, rng, farCornerReach)
                                  : anyCamera(s, rng);
        const float pixels = rng.uniform(0.25f, 40.0f);
        const int viewportHeight = int(rng.uniform(1.0f, 2160.0f));
        // Odd cameras by the grid step alone, even ones with each node's coarse error too.
        LodReach reach;
        const LodParams params =
            paramsFor(s, camera, viewportHeight, pixels, i % 2 == 0 ? &reach : nullptr);
        const std::string what = name + " camera " + std::to_string(i);
        LodOutput out;
        out.reserveFor(s.tree);
        selectLod(s.tree, s.mapping, params, nullptr, out);
        expectTilingAndEdges(s, params, out, what);
        if (watertight && i % 8 < 2) {  // the slowest check, on a quarter of the cameras
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

// Maps kMaxSide samples wide and long (test::longestSideScenes): cameras anywhere, and near the
// far corner.
TEST(Lod, TilesTheMapWithNeighboursOneLevelApartOnAMapTheLongestSideWide) {
    uint32_t seed = 400;
    for (const auto& [s, name] : test::longestSideScenes(21)) {
        checkCameras(s, 24, seed++, name, true);
        checkCameras(s, 40, seed++, name + " far corner", true, 400.0f);
        ASSERT_FALSE(HasFatalFailure());
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
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map checks skipped";
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

// The stretch bounds how long a vertical length looks anywhere in view (lod.h): for points
// all over the view of any camera, a short vertical segment projected through the camera's own
// matrix is at most pixelsPerRadian * length * stretch / depth pixels long, and the bound is
// reached near a corner of the view.
TEST(Lod, TheVerticalStretchBoundsAVerticalLengthAnywhereInView) {
    const Scene s = makeScene(syntheticHeightmap(65, 65, 2), {1.0f, 0.1f, 0.0f}, 16);
    Random rng(41);
    for (int i = 0; i < 400; ++i) {
        Camera camera = anyCamera(s, rng);
        camera.fovY = glm::radians(rng.uniform(10.0f, 120.0f));
        const float stretch = lodVerticalStretch(camera);
        const float t = std::tan(0.5f * camera.fovY);
        const float tanCorner = t * std::sqrt(1.0f + camera.aspect * camera.aspect);
        ASSERT_LE(stretch, std::sqrt(1.0f + tanCorner * tanCorner) * 1.0001f) << i;
        ASSERT_GE(stretch, std::min(1.0f, tanCorner) * 0.9999f) << i;
        const glm::dmat4 viewProjection = camera.viewProjectionDouble();
        const glm::dvec3 forward(camera.forward()), right(camera.right()), up(camera.up());
        const double halfHeight = 360.0;  // pixels: a 720-pixel-high view
        const double pixelsPerRadian = halfHeight / double(t);
        double most = 0.0;
        for (int p = 0; p < 200; ++p) {
            // A point in view (with its corners) and a vertical step from it of 1e-4 its depth,
            // in double: a float would round the step's end by more than the bound's margin.
            const double a = p < 4 ? (p & 1 ? 1.0 : -1.0) : double(rng.uniform(-1.0f, 1.0f));
            const double b = p < 4 ? (p & 2 ? 1.0 : -1.0) : double(rng.uniform(-1.0f, 1.0f));
            const double depth = double(rng.uniform(1.0f, 100.0f));
            const glm::dvec3 point = glm::dvec3(camera.position) + depth * forward +
                                     depth * a * double(t * camera.aspect) * right +
                                     depth * b * double(t) * up;
            const double length = 1e-4 * depth;
            const auto pixel = [&](const glm::dvec3& q) {
                const glm::dvec4 clip = viewProjection * glm::dvec4(q, 1.0);
                return glm::dvec2(clip.x / clip.w * halfHeight * double(camera.aspect),
                                  clip.y / clip.w * halfHeight);
            };
            const double shown =
                glm::length(pixel(point + glm::dvec3(0.0, length, 0.0)) - pixel(point));
            const double bound = pixelsPerRadian * length * double(stretch) / depth;
            ASSERT_LE(shown, bound * 1.001 + 1e-9) << i << " " << p;
            most = std::max(most, shown / bound);
        }
        EXPECT_GT(most, 0.99) << i;  // a corner shows the largest stretch
    }
}

// The stretch goes into stepsAway: 1 looking level, tan(theta_c) straight down; the least
// stepsAway, for which the reach's margins are made, is the same at every orientation of a lens
// and never above stepsAway.
TEST(Lod, StepsAwayFollowTheStretchAndTheirLeastOnlyTheLens) {
    const Scene s = makeScene(syntheticHeightmap(65, 65, 2), {1.0f, 0.1f, 0.0f}, 4);
    Camera camera;  // 60 degrees, 16:9
    const float level = paramsFor(s, camera, 720, 1.0f).stepsAway;
    EXPECT_NEAR(level, 360.0f / std::tan(glm::radians(30.0f)), 0.01f);
    camera.pitch = -glm::half_pi<float>();
    const float t = std::tan(glm::radians(30.0f));
    EXPECT_NEAR(paramsFor(s, camera, 720, 1.0f).stepsAway / level,
                t * std::sqrt(1.0f + 16.0f * 16.0f / 81.0f), 1e-4f);
    Random rng(43);
    // At 200 orientations of `camera`'s lens: the least stepsAway is `least`, stepsAway at least
    // it.
    const auto expectLeastAtEveryOrientation = [&](float least) {
        for (int i = 0; i < 200; ++i) {
            camera.yaw = rng.uniform(-glm::pi<float>(), glm::pi<float>());
            camera.pitch = rng.uniform(-glm::half_pi<float>(), glm::half_pi<float>());
            const LodParams params = paramsFor(s, camera, 720, 1.0f);
            ASSERT_EQ(params.leastStepsAway, least) << i;
            ASSERT_GE(params.stepsAway, least) << i;
        }
    };
    const float least = paramsFor(s, camera, 720, 1.0f).leastStepsAway;
    EXPECT_EQ(least, level);  // tan(theta_c) = 1.18 > 1: the least stretch is 1
    expectLeastAtEveryOrientation(least);
    camera.fovY = glm::radians(20.0f);  // a narrow lens: the least stretch is tan(theta_c) < 1
    const float narrow = paramsFor(s, camera, 720, 1.0f).leastStepsAway;
    expectLeastAtEveryOrientation(narrow);
    EXPECT_LT(narrow, 360.0f / std::tan(glm::radians(10.0f)));
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

// The reach is made for a power of two times minStepsAway not above stepsAway: the same for
// stepsAway in one such octave (no pass over the tree at every step of PIXELS), with the wider
// margins of the lower one, and remade in the next.
TEST(Lod, TheReachIsRemadeOnlyWhenStepsAwayCrossesAnOctave) {
    const Scene s = makeScene(syntheticHeightmap(257, 257, 3), {1.0f, 0.01f, 0.0f}, 4);
    LodReach low, same, next;
    updateLodReach(s.tree, 0.5f, 100.0f, low);  // 6 * 16 = 96 <= 100 < 192
    updateLodReach(s.tree, 0.5f, 190.0f, same);
    updateLodReach(s.tree, 0.5f, 200.0f, next);
    EXPECT_EQ(low.stepsAway, 96.0f);
    EXPECT_EQ(same.steps, low.steps);
    EXPECT_EQ(next.stepsAway, 192.0f);
    EXPECT_NE(next.steps, low.steps);
    for (size_t i = 0; i < low.steps.size(); ++i) {
        ASSERT_LE(next.steps[i], low.steps[i]) << i;  // narrower margins for the larger stepsAway
    }
}

TEST(Lod, LeavesNeverSplitAndTheRootStandsAloneFromAfar) {
    const Scene s = makeScene(syntheticHeightmap(257, 257, 3), {1.0f, 0.01f, 0.0f}, 4);
    LodParams params;
    params.stepsAway = 100.0f;
    params.eye = {128.0f, 0.0f, 128.0f};
    EXPECT_FALSE(lodSplits(s.tree, params, 0, 0, 0, 4, 4));
    EXPECT_TRUE(lodSplits(s.tree, params, 1, 0, 0, 8, 8));
    params.eye = {1e7f, 1e7f, 1e7f};
    LodOutput out;
    out.reserveFor(s.tree);
    selectLod(s.tree, s.mapping, params, nullptr, out);
    ASSERT_EQ(out.nodes.size(), 1u);
    EXPECT_EQ(out.nodes[0].level, s.tree.depth);
    EXPECT_EQ(out.nodes[0].coarser, 0);
    EXPECT_EQ(out.stats.leavesCovered, s.tree.leaves.size());
}

// A camera anywhere over the map, within twice its relief above it, looking from 60 degrees down
// to 20 up, with views from 30 to 90 degrees high and aspects from 0.5 to 2.5.
Camera viewingCamera(const Scene& s, Random& rng) {
    const WorldExtent e = worldExtent(s.map, s.mapping);
    const float relief = std::max(e.maxY - e.minY, 1.0f);
    Camera c;
    c.position = {rng.uniform(0.0f, e.sizeX), rng.uniform(e.minY, e.maxY + 2.0f * relief),
                  rng.uniform(0.0f, e.sizeZ)};
    c.yaw = rng.uniform(-3.14159f, 3.14159f);
    c.pitch = rng.uniform(-1.05f, 0.35f);
    c.fovY = rng.uniform(0.52f, 1.57f);
    c.aspect = rng.uniform(0.5f, 2.5f);
    c.nearPlane = 1e-3f * std::max(e.sizeX, e.sizeZ);
    c.farPlane = 4.0f * std::max({e.sizeX, e.sizeZ, relief});
    return c;
}

// The full-detail surface at (x, z), in codes: the leaves' triangles between samples, each
// square's diagonal from (col, row + 1) to (col + 1, row).
float fullDetailCode(const Heightmap& map, float x, float z) {
    const int col = std::clamp(int(std::floor(x)), 0, map.width - 2);
    const int row = std::clamp(int(std::floor(z)), 0, map.height - 2);
    const float u = x - float(col), v = z - float(row);
    const float h00 = map.codeAt(col, row), h10 = map.codeAt(col + 1, row);
    const float h01 = map.codeAt(col, row + 1), h11 = map.codeAt(col + 1, row + 1);
    if (u + v <= 1.0f) {
        return h00 + (h10 - h00) * u + (h01 - h00) * v;
    }
    return h11 + (h01 - h11) * (1.0f - u) + (h10 - h11) * (1.0f - v);
}

// At every sample under every coarse node drawn (its edges folded and its vertices morphed as
// drawn), at its morphed vertices and where its triangles' edges cross the full-detail ones, the
// drawn surface's point and the full-detail one at the same x and z project at most `pixels`
// apart, wherever both are in view. Returns the largest
// distance seen, in pixels.
float expectWithinPixelsOnScreen(const Scene& s, const Camera& camera, int viewportHeight,
                                 float pixels, const std::string& what) {
    LodReach reach;
    const LodParams params = paramsFor(s, camera, viewportHeight, pixels, &reach);
    LodOutput out;
    out.reserveFor(s.tree);
    selectLod(s.tree, s.mapping, params, nullptr, out);
    const glm::mat4 viewProjection = camera.viewProjection();
    const HeightTransform heights = heightTransform(s.map.coding, s.mapping);
    const float halfHeight = 0.5f * float(viewportHeight);
    const float halfWidth = halfHeight * camera.aspect;
    const auto project = [&](float x, float code, float z, glm::vec2& pixel) {
        const glm::vec4 clip =
            viewProjection * glm::vec4(x * s.mapping.spacingX, heights.worldHeight(code),
                                       z * s.mapping.spacingZ, 1.0f);
        if (!(clip.w > 0.0f)) {
            return false;
        }
        pixel = {clip.x / clip.w * halfWidth, clip.y / clip.w * halfHeight};
        return std::abs(pixel.x) <= halfWidth && std::abs(pixel.y) <= halfHeight;
    };
    const int leafSize = s.tree.leafSize;
    std::vector<uint32_t> strip;
    appendLeafStrip(0, 0, leafSize, leafSize, leafSize + 1, strip);
    float largest = 0.0f;
    for (const DrawNode& drawn : out.nodes) {
        if (drawn.level == 0 && drawn.morph == 0 && drawn.edgeMorph[0] == 0 &&
            drawn.edgeMorph[1] == 0 && drawn.edgeMorph[2] == 0 && drawn.edgeMorph[3] == 0) {
            continue;  // full detail
        }
        // The strip's vertices as the shader morphs them: (x, code, z), x and z in samples.
        glm::vec3 v[3];
        for (size_t n = 0; n < strip.size(); ++n) {
            const int id = int(strip[n]);
            const MorphedVertex m = lodVertexMorph(drawn, id % (leafSize + 1), id / (leafSize + 1),
                                                   leafSize, s.map.width, s.map.height);
            const glm::vec3 own(float(m.ownCol), float(s.map.codeAt(m.ownCol, m.ownRow)),
                                float(m.ownRow));
            glm::vec3 target(0.0f);
            for (int k = 0; k < 2; ++k) {
                target +=
                    m.weight[k] * glm::vec3(float(m.cornerCol[k]),
                                            float(s.map.codeAt(m.cornerCol[k], m.cornerRow[k])),
                                            float(m.cornerRow[k]));
            }
            if (m.vertical) {
                target.x = own.x, target.z = own.z;  // in place (lodVertexMorph)
            }
            v[n % 3] = m.morph == 255 ? target : own + (target - own) * (float(m.morph) / 255.0f);
            if (n < 2) {
                continue;
            }
            const glm::vec3 a = v[0], b = v[1] - v[0], c = v[2] - v[0];
            const float det = b.x * c.z - b.z * c.x;
            if (std::abs(det) < 1e-6f) {
                continue;  // a join between rows, folded or clamped away: no area
            }
            // Samples inside the triangle, and its corners (on the full-detail surface between
            // samples when morphed).
            const auto check = [&](float x, float z, float full) {
                const float u = ((x - a.x) * c.z - (z - a.z) * c.x) / det;
                const float w = (b.x * (z - a.z) - b.z * (x - a.x)) / det;
                if (u < -1e-4f || w < -1e-4f || u + w > 1.0f + 1e-4f) {
                    return true;
                }
                glm::vec2 coarse, exact;
                if (project(x, a.y + u * b.y + w * c.y, z, coarse) && project(x, full, z, exact)) {
                    const float apart = glm::length(coarse - exact);
                    largest = std::max(largest, apart);
                    if (apart > pixels * 1.001f + 1e-3f) {
                        ADD_FAILURE() << what << ": point " << x << "," << z << " of a level "
                                      << int(drawn.level) << " node (morph " << int(drawn.morph)
                                      << ") is " << apart << " pixels off";
                        return false;
                    }
                }
                return true;
            };
            for (const glm::vec3& corner : v) {
                if (!check(corner.x, corner.z, fullDetailCode(s.map, corner.x, corner.z))) {
                    return largest;
                }
            }
            // Where its edges cross the full-detail triangles' edges (columns, rows and the
            // anti-diagonals x + z = constant): with the samples and corners, every vertex of
            // the two surfaces' overlay, where the largest distance between them lies.
            for (int k = 0; k < 3; ++k) {
                const glm::vec3 from = v[k], to = v[(k + 1) % 3];
                const auto crossings = [&](float p0, float p1) {
                    if (std::abs(p1 - p0) < 1e-6f) {
                        return true;
                    }
                    for (float q = std::ceil(std::min(p0, p1)); q <= std::max(p0, p1); q += 1.0f) {
                        const float t = (q - p0) / (p1 - p0);
                        const float x = from.x + t * (to.x - from.x);
                        const float z = from.z + t * (to.z - from.z);
                        if (!check(x, z, fullDetailCode(s.map, x, z))) {
                            return false;
                        }
                    }
                    return true;
                };
                if (!crossings(from.x, to.x) || !crossings(from.z, to.z) ||
                    !crossings(from.x + from.z, to.x + to.z)) {
                    return largest;
                }
            }
            const int x0 = int(std::floor(std::min({v[0].x, v[1].x, v[2].x})));
            const int x1 = int(std::ceil(std::max({v[0].x, v[1].x, v[2].x})));
            const int z0 = int(std::floor(std::min({v[0].z, v[1].z, v[2].z})));
            const int z1 = int(std::ceil(std::max({v[0].z, v[1].z, v[2].z})));
            for (int row = z0; row <= z1; ++row) {
                for (int col = x0; col <= x1; ++col) {
                    if (!check(float(col), float(row), float(s.map.codeAt(col, row)))) {
                        return largest;
                    }
                }
            }
        }
    }
    return largest;
}

// A drawn node's unmorphed, unfolded strip as a surface: its height code at (x, z), in samples,
// from the strip triangle with area that holds the point (vertices where lodVertexSample puts
// them, clamped to the map); false where none does.
bool stripCodeAt(const Heightmap& map, const DrawNode& node, int leafSize, float x, float z,
                 float& code) {
    std::vector<uint32_t> strip;
    appendLeafStrip(0, 0, leafSize, leafSize, leafSize + 1, strip);
    glm::vec3 v[3];
    for (size_t n = 0; n < strip.size(); ++n) {
        int col, row;
        lodVertexSample(node, int(strip[n]) % (leafSize + 1), int(strip[n]) / (leafSize + 1),
                        leafSize, map.width, map.height, col, row);
        v[n % 3] = glm::vec3(float(col), float(map.codeAt(col, row)), float(row));
        if (n < 2) {
            continue;
        }
        const glm::vec3 a = v[0], b = v[1] - v[0], c = v[2] - v[0];
        const float det = b.x * c.z - b.z * c.x;
        if (det == 0.0f) {
            continue;
        }
        const float u = ((x - a.x) * c.z - (z - a.z) * c.x) / det;
        const float w = (b.x * (z - a.z) - b.z * (x - a.x)) / det;
        if (u >= -1e-5f && w >= -1e-5f && u + w <= 1.0f + 1e-5f) {
            code = a.y + u * b.y + w * c.y;
            return true;
        }
    }
    return false;
}

// Inside a drawn node (every triangle none of whose vertices slides along the boundary), the
// morphed surface at morph m is (1 - m) times the node's own surface plus m times its parent's,
// at every point: what the split rule's bound for a node part way through its morph rests on
// (docs/design/lod.md, Geomorphing). Nodes of every level, on a map whose sides leave partial
// border nodes (clamped vertices) and on one of whole nodes.
TEST(Lod, InsideANodeTheMorphedSurfaceIsTheBlendOfItsOwnAndItsParents) {
    Random rng(314);
    int checked = 0, clampedChecked = 0;
    for (const auto& [width, height] : {std::pair<int, int>{203, 141}, {129, 129}}) {
        const Scene s = makeScene(syntheticHeightmap(width, height, 12), {1.0f, 0.05f, 0.0f}, 4);
        const int leafSize = s.tree.leafSize;
        std::vector<uint32_t> strip;
        appendLeafStrip(0, 0, leafSize, leafSize, leafSize + 1, strip);
        for (int trial = 0; trial < 300; ++trial) {
            const int level = int(rng.below(uint32_t(s.tree.depth)));
            const int size = 1 << level;
            const int col = int(rng.below(uint32_t(s.tree.leavesX))) & ~(size - 1);
            const int row = int(rng.below(uint32_t(s.tree.leavesZ))) & ~(size - 1);
            const uint8_t m = uint8_t(trial % 3 == 0 ? 255 : 1 + rng.below(254));
            const DrawNode node{uint16_t(col), uint16_t(row), uint8_t(level), 0, m, 0,
                                {m, m, m, m}};
            const DrawNode parent{uint16_t(col & ~(2 * size - 1)),
                                  uint16_t(row & ~(2 * size - 1)),
                                  uint8_t(level + 1),
                                  0,
                                  0,
                                  0,
                                  {0, 0, 0, 0}};
            const bool clamped =
                (col + size) * leafSize > width - 1 || (row + size) * leafSize > height - 1;
            glm::vec3 v[3];
            bool slides[3] = {false, false, false};
            for (size_t n = 0; n < strip.size(); ++n) {
                const MorphedVertex mv =
                    lodVertexMorph(node, int(strip[n]) % (leafSize + 1),
                                   int(strip[n]) / (leafSize + 1), leafSize, width, height);
                const glm::vec3 own(float(mv.ownCol), float(s.map.codeAt(mv.ownCol, mv.ownRow)),
                                    float(mv.ownRow));
                float target = 0.0f;
                for (int k = 0; k < 2; ++k) {
                    target += mv.weight[k] * float(s.map.codeAt(mv.cornerCol[k], mv.cornerRow[k]));
                }
                slides[n % 3] =
                    !mv.vertical && (mv.cornerCol[0] != mv.ownCol || mv.cornerRow[0] != mv.ownRow);
                v[n % 3] = own;
                v[n % 3].y = m == 255 ? target : own.y + (target - own.y) * (float(m) / 255.0f);
                if (n < 2 || slides[0] || slides[1] || slides[2]) {
                    continue;
                }
                const glm::vec3 a = v[0], b = v[1] - v[0], c = v[2] - v[0];
                if (b.x * c.z - b.z * c.x == 0.0f) {
                    continue;  // a join between rows or clamped away: no area
                }
                for (int p = 0; p < 4; ++p) {
                    const float u = rng.uniform(0.05f, 0.9f);
                    const float w = rng.uniform(0.05f, 0.95f - u);
                    const float x = a.x + u * b.x + w * c.x, z = a.z + u * b.z + w * c.z;
                    const float drawn = a.y + u * b.y + w * c.y;
                    float ownCode = 0.0f, parentCode = 0.0f;
                    ASSERT_TRUE(stripCodeAt(s.map, node, leafSize, x, z, ownCode));
                    ASSERT_TRUE(stripCodeAt(s.map, parent, leafSize, x, z, parentCode));
                    const float m01 = float(m) / 255.0f;
                    const float blend = (1.0f - m01) * ownCode + m01 * parentCode;
                    // Float roundings on steep squares: up to 1.7e-5 of the code seen.
                    ASSERT_NEAR(drawn, blend, 1e-4f * (1.0f + std::abs(blend)))
                        << width << "x" << height << " level " << level << " node " << col << ","
                        << row << " morph " << int(m) << " at " << x << "," << z;
                    ++checked;
                    clampedChecked += clamped ? 1 : 0;
                }
            }
        }
    }
    EXPECT_GT(checked, 10000);
    EXPECT_GT(clampedChecked, 100);  // partial border nodes among them
}

TEST(Lod, DrawnSurfaceStaysWithinPixelsOfFullDetailOnScreen) {
    std::vector<std::pair<Scene, std::string>> scenes;
    scenes.emplace_back(makeScene(syntheticHeightmap(513, 513, 5), {1.0f, 0.02f, 0.0f}, 4),
                        "synthetic 513x513");
    scenes.emplace_back(makeScene(syntheticHeightmap(601, 401, 6), {2.0f, -0.05f, 10.0f}, 8),
                        "synthetic 601x401");
    for (const char* name : {"jacksboro_fault_403x344.png", "N47E009.hgt"}) {
        const std::string path = test::sharedHeightmap(name);
        if (!path.empty()) {
            Heightmap map = loadHeightmap(path).value();
            const WorldMapping mapping = defaultMapping(map);
            scenes.emplace_back(makeScene(std::move(map), mapping, 4), name);
        }
    }
    Random rng(2024);
    for (const auto& [s, name] : scenes) {
        float largest = 0.0f;
        for (int i = 0; i < 16; ++i) {
            const float pixels = rng.uniform(0.5f, 8.0f);
            const Camera camera = viewingCamera(s, rng);
            largest = std::max(largest,
                               expectWithinPixelsOnScreen(s, camera, 360, pixels,
                                                          name + " camera " + std::to_string(i)) /
                                   pixels);
            if (HasFailure()) {
                return;
            }
        }
        // Coarse nodes in view that stand off the full-detail surface: the check checked some.
        std::printf("%s: the drawn surface's largest distance from full detail: %.2f of PIXELS\n",
                    name.c_str(), double(largest));
        EXPECT_GT(largest, 0.01f) << name;
    }
    if (scenes.size() < 4) {
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map checks skipped";
    }
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
        LodReach reach;
        const LodParams params = paramsFor(s, camera, 720, rng.uniform(0.5f, 8.0f), &reach);
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
            triangles += 2u * uint64_t((box.x1() - box.x0 + step - 1) / step) *
                         uint64_t((box.z1() - box.z0 + step - 1) / step);
            covered += s.tree.leafCount(box);
        }
        EXPECT_EQ(lod.stats.nodesDrawn, lod.nodes.size());
        EXPECT_EQ(lod.stats.triangles, triangles);
        EXPECT_EQ(lod.stats.leavesCovered, covered);
        EXPECT_EQ(lod.stats.leavesOccluded, before.nodesDrawn - lod.stats.nodesDrawn);
    }
    EXPECT_GT(fullDetailSeen, 1000u);  // the cameras did draw full-detail nodes
}

// Streamed: a random pattern of resident pages of the pooled levels 0 .. levels - 1 (pages of
// twice the leaf size or more; `levels` capped to leave a level above them), `share` of level 0's
// and `aboveShare` of the others' (above 1: every page).
struct Residency {
    PageResidency pages;

    const LodResidency& view() const { return pages.view(); }
    // Makes resident the page PageRequest numbers `page`.
    void take(uint32_t page) { pages.set(page, true); }
    bool resident(uint32_t page) const { return pages.resident(page); }
};

void randomResidency(const Scene& s, int pageSize, float share, Random& rng, Residency& r,
                     int levels = 1, float aboveShare = 0.0f) {
    const HeightPages pages = planHeightPages(s.map.width, s.map.height, s.tree.leafSize, pageSize);
    levels = std::max(1, std::min(levels, int(pages.level.size()) - 1));
    std::vector<PageResidency::Size> sizes;
    for (int j = 0; j < levels; ++j) {
        sizes.push_back({pages.level[size_t(j)].pagesX, pages.level[size_t(j)].pagesY});
    }
    r.pages.reset(pages.pageShift, sizes);
    for (uint32_t page = 0; page < r.view().pageCount(); ++page) {
        if (rng.uniform(0.0f, 1.0f) <
            (page < r.view().level[1].first || levels == 1 ? share : aboveShare)) {
            r.take(page);
        }
    }
}

// Whether page (px, py) of pooled level j lets nodes split, by the rule's definition
// (core/lod/lod_residency.h): resident, and the 3 x 3 pages of level j + 1 around its parent too.
bool effectiveByDefinition(const Residency& r, int j, int px, int py) {
    const LodResidency& v = r.view();
    const ResidentLevel& at = v.level[size_t(j)];
    if (!r.resident(at.first + uint32_t(py) * uint32_t(at.pagesX) + uint32_t(px))) {
        return false;
    }
    if (j + 1 >= v.levels) {
        return true;
    }
    const ResidentLevel& up = v.level[size_t(j + 1)];
    for (int y = py / 2 - 1; y <= py / 2 + 1; ++y) {
        for (int x = px / 2 - 1; x <= px / 2 + 1; ++x) {
            if (x >= 0 && y >= 0 && x < up.pagesX && y < up.pagesY &&
                !effectiveByDefinition(r, j + 1, x, y)) {
                return false;
            }
        }
    }
    return true;
}

// The pages PageRequest numbers that hold back the node at `level` (1 .. pooled levels) whose
// first sample is (x0, z0), by brute force: the pages not resident among those its level-(level -
// 1) page's effectiveness depends on, followed page by page.
void missingPages(const Residency& r, int level, int x0, int z0, std::vector<uint32_t>& out) {
    const LodResidency& v = r.view();
    std::vector<std::array<int, 3>> todo{
        {level - 1, x0 >> (v.pageShift + level - 1), z0 >> (v.pageShift + level - 1)}};
    std::vector<uint8_t> seen(v.pageCount(), 0);
    while (!todo.empty()) {
        const auto [j, px, py] = todo.back();
        todo.pop_back();
        const ResidentLevel& at = v.level[size_t(j)];
        const uint32_t page = at.first + uint32_t(py) * uint32_t(at.pagesX) + uint32_t(px);
        if (seen[page] != 0) {
            continue;
        }
        seen[page] = 1;
        if (!r.resident(page)) {
            out.push_back(page);
        }
        if (j + 1 < v.levels) {
            const ResidentLevel& up = v.level[size_t(j + 1)];
            for (int y = py / 2 - 1; y <= py / 2 + 1; ++y) {
                for (int x = px / 2 - 1; x <= px / 2 + 1; ++x) {
                    if (x >= 0 && y >= 0 && x < up.pagesX && y < up.pagesY) {
                        todo.push_back({j + 1, x, y});
                    }
                }
            }
        }
    }
}

// Pages made resident and evicted in random order, over 1 to 5 pooled levels: after every change
// each page's effective bit is the rule's definition, which holds a node back exactly when one of
// the pages forEachNeeded names is missing.
TEST(LodResidency, EffectivePagesFollowEveryChange) {
    Random rng(5);
    int effectiveSeen = 0, heldBackSeen = 0;
    for (const int levels : {1, 2, 3, 4, 5}) {
        for (const auto& [width, height] : {std::pair<int, int>{129, 129}, {77, 53}}) {
            const HeightPages pages = planHeightPages(width, height, 2, 4);
            ASSERT_GT(int(pages.level.size()), levels);
            Residency r;
            std::vector<PageResidency::Size> sizes;
            for (int j = 0; j < levels; ++j) {
                sizes.push_back({pages.level[size_t(j)].pagesX, pages.level[size_t(j)].pagesY});
            }
            r.pages.reset(pages.pageShift, sizes);
            const LodResidency& v = r.view();
            ASSERT_EQ(v.pageCount(), uint32_t(pages.level[size_t(levels - 1)].firstPage +
                                              pages.level[size_t(levels - 1)].pagesX *
                                                  pages.level[size_t(levels - 1)].pagesY));
            // The upper levels' pages mostly in, so that their rings are often whole.
            for (int change = 0; change < 4000; ++change) {
                const uint32_t page =
                    uint32_t(rng.uniform(0.0f, float(v.pageCount()))) % v.pageCount();
                r.pages.set(page,
                            rng.uniform(0.0f, 1.0f) <
                                (page < v.level[1 % levels].first || levels == 1 ? 0.6f : 0.97f));
                if (change % 200 != 199) {
                    continue;
                }
                const std::string what = std::to_string(levels) + " levels, " +
                                         std::to_string(width) + "x" + std::to_string(height) +
                                         ", change " + std::to_string(change);
                for (int j = 0; j < levels; ++j) {
                    const ResidentLevel& at = v.level[size_t(j)];
                    for (int py = 0; py < at.pagesY; ++py) {
                        for (int px = 0; px < at.pagesX; ++px) {
                            const uint32_t q =
                                at.first + uint32_t(py) * uint32_t(at.pagesX) + uint32_t(px);
                            const bool effective = effectiveByDefinition(r, j, px, py);
                            ASSERT_EQ(r.pages.effective(q), effective)
                                << what << ", level " << j << " page " << px << "," << py;
                            effectiveSeen += effective ? 1 : 0;
                            // A level-(j + 1) node at the page's corner: held back exactly when
                            // a page its split needs is missing.
                            const int x0 = px << (pages.pageShift + j);
                            const int z0 = py << (pages.pageShift + j);
                            std::vector<uint32_t> missing;
                            missingPages(r, j + 1, x0, z0, missing);
                            ASSERT_EQ(v.splits(j + 1, x0, z0), missing.empty()) << what;
                            heldBackSeen += missing.empty() ? 0 : 1;
                            std::vector<uint32_t> named;
                            v.forEachNeeded(
                                j + 1, x0, z0, [&](int k, int qx0, int qy0, int qx1, int qy1) {
                                    const ResidentLevel& l = v.level[size_t(k)];
                                    for (int y = qy0; y <= qy1; ++y) {
                                        for (int x = qx0; x <= qx1; ++x) {
                                            const uint32_t n = l.first +
                                                               uint32_t(y) * uint32_t(l.pagesX) +
                                                               uint32_t(x);
                                            if (!r.resident(n)) {
                                                named.push_back(n);
                                            }
                                        }
                                    }
                                });
                            std::sort(missing.begin(), missing.end());
                            std::sort(named.begin(), named.end());
                            ASSERT_EQ(named, missing) << what;
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(effectiveSeen, 1000);
    EXPECT_GT(heldBackSeen, 1000);
}

// With pages missing: the drawn nodes still tile the map one level apart with matching edges and
// no cracks, no node of a pooled level is drawn from a page that is not resident, culled equals
// unculled, and the requests are exactly the missing pages of the held-back nodes within the
// prefetch distance (those their splits need, missingPages) and of the chains of nodes below them
// within theirs, each page once; over 1 to 4 pooled levels.
TEST(Lod, StreamedSelectionDrawsOnlyResidentPagesWithoutCracks) {
    uint32_t seed = 7;
    int fullDetail = 0, requested = 0, upperDrawn = 0, upperRequested = 0, shadingSeen = 0;
    int deepPooledDrawn = 0;  // nodes drawn from pooled levels 2 and up
    int deepShading = 0;      // shading pages of pooled levels 2 and up
    int prefetched = 0;       // nodes asking for their pages below a held-back node
    for (const test::SyntheticCase& c : {test::kSyntheticCases[0], test::kSyntheticCases[1],
                                         test::kSyntheticCases[2], test::kSyntheticCases[3]}) {
        const Scene s = makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        Random rng(seed++);
        for (int i = 0; i < 60; ++i) {
            const Camera camera = anyCamera(s, rng);
            LodReach reach;
            LodParams params = paramsFor(s, camera, int(rng.uniform(100.0f, 2160.0f)),
                                         rng.uniform(0.25f, 8.0f), i % 2 == 0 ? &reach : nullptr);
            const int pageSize = 2 * c.leaf << (i % 2);
            Residency r;
            randomResidency(s, pageSize, rng.uniform(0.0f, 1.0f), rng, r,
                            i % 3 == 2 ? 2 + i / 3 % 3 : 1, rng.uniform(0.3f, 1.0f));
            params.residency = &r.view();
            const int levels = r.view().levels;
            const std::string what =
                "streamed camera " + std::to_string(i) + ", " + std::to_string(levels) + " levels";
            LodOutput out;
            out.reserveFor(s.tree);
            selectLod(s.tree, s.mapping, params, nullptr, out);
            expectTilingAndEdges(s, params, out, what);
            if (i % 4 == 0) {
                expectWatertight(s, out, what);
            }
            expectCulledIsUnculledInFrustum(
                s, params, Frustum::fromViewProjection(camera.viewProjection()), what);
            for (const DrawNode& drawn : out.nodes) {
                ASSERT_TRUE(r.view().holds(drawn.level, drawn.col * c.leaf, drawn.row * c.leaf))
                    << what;
                fullDetail += drawn.level == 0 ? 1 : 0;
                upperDrawn += drawn.level >= 1 && drawn.level < levels ? 1 : 0;
                deepPooledDrawn += drawn.level >= 2 && drawn.level < levels ? 1 : 0;
            }
            // Requests, brute force over every node of levels 1 .. levels (nothing culled here):
            // a node near enough to want its pages (residency aside) asks for them when the walk
            // reaches it (its parent splits), or when the node drawn over it is held back and near
            // enough, with every node between the two near enough too.
            std::vector<uint32_t> expected, got;
            LodParams all = params;
            all.residency = nullptr;
            const auto near = [&](int level, int col, int row) {
                const SampleBox b = levelNodeBox(s.tree, level, col, row);
                const LodDistance d = lodDistance(s.tree, all, level, b.x0, b.z0, b.x1, b.z1);
                const float prefetch = kStreamPrefetch * d.reach;
                return d.squared < prefetch * prefetch;
            };
            for (int level = 1; level <= std::min(levels, s.tree.depth); ++level) {
                const int step = 1 << level;
                for (int row = 0; row < s.tree.leavesZ; row += step) {
                    for (int col = 0; col < s.tree.leavesX; col += step) {
                        if (!near(level, col, row)) {
                            continue;
                        }
                        const int drawnLevel = drawnLevelAt(s.tree, params, col, row);
                        bool asks = drawnLevel <= level;
                        if (!asks) {
                            const int mask = ~((1 << drawnLevel) - 1);
                            const SampleBox over =
                                levelNodeBox(s.tree, drawnLevel, col & mask, row & mask);
                            asks = !r.view().splits(drawnLevel, over.x0, over.z0) &&
                                   near(drawnLevel, col & mask, row & mask);
                            for (int k = level + 1; asks && k < drawnLevel; ++k) {
                                const int m = ~((1 << k) - 1);
                                asks = near(k, col & m, row & m);
                            }
                            prefetched += asks ? 1 : 0;
                        }
                        const SampleBox b = levelNodeBox(s.tree, level, col, row);
                        std::vector<uint32_t> missing;
                        missingPages(r, level, b.x0, b.z0, missing);
                        if (asks) {
                            expected.insert(expected.end(), missing.begin(), missing.end());
                        }
                    }
                }
            }
            // For each pooled level j from 1, its pages under the drawn nodes of level j + 1 and
            // up (their squares and a sample either side) within 2^(j - 1) times the shading
            // reach (a hundredth and a step of margin), resident or not, and those not resident
            // asked for.
            std::vector<uint32_t> shading;
            for (int j = 1; j < levels; ++j) {
                const float side = float(1 << (r.view().pageShift + j));
                const ResidentLevel& at = r.view().level[size_t(j)];
                const float reachSteps = params.shadingReach * float(1 << (j - 1)) * 1.01f + 1.0f;
                const auto within = [&](float x0, float z0, float x1, float z1) {
                    const float dx = std::max({x0 * params.stepsPerColumn - params.eye.x,
                                               params.eye.x - x1 * params.stepsPerColumn, 0.0f});
                    const float dz = std::max({z0 * params.stepsPerRow - params.eye.z,
                                               params.eye.z - z1 * params.stepsPerRow, 0.0f});
                    return dx * dx + dz * dz < reachSteps * reachSteps;
                };
                for (const DrawNode& drawn : out.nodes) {
                    if (drawn.level <= j) {
                        continue;
                    }
                    const SampleBox b = levelNodeBox(s.tree, drawn.level, drawn.col, drawn.row);
                    if (!within(float(b.x0), float(b.z0), float(b.x1), float(b.z1))) {
                        continue;
                    }
                    for (int y = 0; y < at.pagesY; ++y) {
                        for (int x = 0; x < at.pagesX; ++x) {
                            const float x0 = float(x) * side, z0 = float(y) * side;
                            const bool under = x0 <= float(b.x1 + 1) &&
                                               x0 + side > float(b.x0 - 1) &&
                                               z0 <= float(b.z1 + 1) && z0 + side > float(b.z0 - 1);
                            if (under && within(x0, z0, x0 + side, z0 + side)) {
                                shading.push_back(at.first + uint32_t(y) * uint32_t(at.pagesX) +
                                                  uint32_t(x));
                                deepShading += j >= 2 ? 1 : 0;
                            }
                        }
                    }
                }
            }
            std::sort(shading.begin(), shading.end());
            shading.erase(std::unique(shading.begin(), shading.end()), shading.end());
            for (const uint32_t page : shading) {
                if (!r.resident(page)) {
                    expected.push_back(page);
                }
            }
            std::vector<uint32_t> gotShading = out.shadingPages;
            std::sort(gotShading.begin(), gotShading.end());
            ASSERT_EQ(gotShading, shading) << what;
            shadingSeen += int(shading.size());
            for (const PageRequest& req : out.requests) {
                got.push_back(req.page);
                upperRequested += levels >= 2 && req.page >= r.view().level[1].first ? 1 : 0;
            }
            std::sort(expected.begin(), expected.end());
            expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
            std::sort(got.begin(), got.end());
            ASSERT_EQ(got, expected) << what << " (each page once)";
            requested += int(got.size());
            if (::testing::Test::HasFatalFailure()) {
                return;
            }
        }
    }
    EXPECT_GT(fullDetail, 100);
    EXPECT_GT(requested, 100);
    EXPECT_GT(upperDrawn, 100);
    EXPECT_GT(deepPooledDrawn, 20);
    EXPECT_GT(deepShading, 20);
    EXPECT_GT(upperRequested, 50);
    EXPECT_GT(shadingSeen, 50);
    EXPECT_GT(prefetched, 50);
}

// Culled by the frustum, asking again until nothing more is asked (as Terrain::settleStreaming
// does) leaves the same selection as without streaming, byte for byte: held-back level-1 nodes
// outside the frustum that border a drawn node ask for their pages too, so none of them folds or
// morphs a drawn node's edge differently. Each page is asked for once, at its nearest distance.
TEST(Lod, SettledStreamedSelectionIsTheSameCulledOrNot) {
    uint32_t seed = 29;
    int asked = 0, fullDetail = 0;  // the cases are not vacuous
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const Scene s = makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        Random rng(seed++);
        for (int i = 0; i < 12; ++i) {
            const Camera camera = anyCamera(s, rng);
            LodReach reach;
            LodParams params = paramsFor(s, camera, int(rng.uniform(100.0f, 1080.0f)),
                                         rng.uniform(0.5f, 4.0f), &reach);
            const Frustum frustum = Frustum::fromViewProjection(camera.viewProjection());
            LodOutput plain, streamed, walked;
            plain.reserveFor(s.tree);
            streamed.reserveFor(s.tree);
            walked.reserveFor(s.tree);
            selectLod(s.tree, s.mapping, params, &frustum, plain);
            // One to three pooled levels, none of their pages resident at first.
            Residency r;
            randomResidency(s, 2 * c.leaf << (i % 4 / 2), 0.0f, rng, r, 1 + i % 3, 0.0f);
            params.residency = &r.view();
            const std::string what = std::to_string(c.width) + "x" + std::to_string(c.height) +
                                     " camera " + std::to_string(i) + ", " +
                                     std::to_string(r.view().levels) + " levels";
            for (int pass = 0; pass < 6; ++pass) {
                selectLod(s.tree, s.mapping, params, &frustum, streamed);
                std::vector<uint32_t> pages;
                for (const PageRequest& q : streamed.requests) {
                    pages.push_back(q.page);
                    ASSERT_FALSE(r.resident(q.page)) << what;
                }
                std::sort(pages.begin(), pages.end());
                ASSERT_EQ(std::adjacent_find(pages.begin(), pages.end()), pages.end()) << what;
                asked += int(pages.size());
                if (pages.empty()) {
                    break;
                }
                for (const uint32_t page : pages) {
                    r.take(page);
                }
            }
            ASSERT_TRUE(streamed.requests.empty()) << what << ": still asking after 6 passes";
            ASSERT_EQ(plain.nodes.size(), streamed.nodes.size()) << what;
            ASSERT_EQ(0, std::memcmp(plain.nodes.data(), streamed.nodes.data(),
                                     plain.nodes.size() * sizeof(DrawNode)))
                << what;
            for (const DrawNode& n : plain.nodes) {
                fullDetail += n.level == 0 ? 1 : 0;
            }
        }
    }
    EXPECT_GT(asked, 100);
    EXPECT_GT(fullDetail, 100);
}

// Every page resident: the same selection as without streaming, byte for byte.
TEST(Lod, StreamedSelectionWithEveryPageResidentIsTheSame) {
    uint32_t seed = 11;
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const Scene s = makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        Random rng(seed++);
        for (int i = 0; i < 8; ++i) {
            const Camera camera = anyCamera(s, rng);
            LodReach reach;
            LodParams params = paramsFor(s, camera, 1080, rng.uniform(0.25f, 8.0f), &reach);
            const Frustum frustum = Frustum::fromViewProjection(camera.viewProjection());
            LodOutput plain, streamed;
            plain.reserveFor(s.tree);
            streamed.reserveFor(s.tree);
            selectLod(s.tree, s.mapping, params, &frustum, plain);
            Residency r;  // every page, of one to four pooled levels
            randomResidency(s, 2 * c.leaf, 2.0f, rng, r, 1 + i % 4, 2.0f);
            params.residency = &r.view();
            selectLod(s.tree, s.mapping, params, &frustum, streamed);
            ASSERT_EQ(plain.nodes.size(), streamed.nodes.size());
            ASSERT_EQ(0, std::memcmp(plain.nodes.data(), streamed.nodes.data(),
                                     plain.nodes.size() * sizeof(DrawNode)));
            EXPECT_TRUE(streamed.requests.empty());
        }
    }
}

// Split over threads, the selection is the one-thread walk's bit for bit: the drawn nodes in tree
// order, the requests in walk order with their distances, the counts; culled or not, with each
// node's error or the grid step alone, with pages missing or not, on trees deep enough to split.
TEST(Lod, SelectionSplitOverThreadsIsTheOneThreadWalks) {
    // Byte for byte (an empty vector's data() may be null, which memcmp may not take).
    const auto sameNodes = [](const std::vector<DrawNode>& a, const std::vector<DrawNode>& b) {
        return a.size() == b.size() &&
               (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(DrawNode)) == 0);
    };
    uint32_t seed = 31;
    struct Case {
        int width, height, leaf;
    };
    int requested = 0;
    for (const Case& c : {Case{1025, 1025, 4}, Case{777, 1500, 2}, Case{2049, 1100, 8},
                          Case{257, 257, 4}, Case{129, 300, 8}}) {
        const Scene s = makeScene(syntheticHeightmap(c.width, c.height, seed),
                                  test::kSyntheticCases[0].mapping, c.leaf);
        Random rng(seed++);
        LodOutput one, split;
        one.reserveFor(s.tree);
        split.reserveFor(s.tree);
        for (int i = 0; i < 24; ++i) {
            const Camera camera = anyCamera(s, rng);
            LodReach reach;
            LodParams params = paramsFor(s, camera, int(rng.uniform(100.0f, 2160.0f)),
                                         rng.uniform(0.25f, 8.0f), i % 2 == 0 ? &reach : nullptr);
            Residency r;  // more levels pooled on one camera in four
            randomResidency(s, 2 * c.leaf, rng.uniform(0.0f, 1.0f), rng, r,
                            i % 4 == 1 ? 2 + i / 4 % 2 : 1, rng.uniform(0.5f, 1.0f));
            if (i % 3 != 0) {
                params.residency = &r.view();
            }
            const Frustum frustum = Frustum::fromViewProjection(camera.viewProjection());
            const Frustum* culling = i % 4 != 3 ? &frustum : nullptr;
            params.threads = 1;
            selectLod(s.tree, s.mapping, params, culling, one);
            requested += int(one.requests.size());
            if (i == 0) {  // an output never reserved: its first split selection reserves
                LodOutput fresh;
                params.threads = 3;
                selectLod(s.tree, s.mapping, params, culling, fresh);
                ASSERT_TRUE(sameNodes(fresh.nodes, one.nodes));
            }
            for (const int threads : {2, 3, kMaxSelectThreads}) {
                params.threads = threads;
                selectLod(s.tree, s.mapping, params, culling, split);
                const std::string what = std::to_string(c.width) + "x" + std::to_string(c.height) +
                                         " camera " + std::to_string(i) + ", " +
                                         std::to_string(threads) + " threads";
                ASSERT_TRUE(sameNodes(split.nodes, one.nodes)) << what;
                ASSERT_EQ(split.requests.size(), one.requests.size()) << what;
                for (size_t k = 0; k < one.requests.size(); ++k) {
                    ASSERT_EQ(split.requests[k].page, one.requests[k].page) << what;
                    ASSERT_EQ(split.requests[k].squared, one.requests[k].squared) << what;
                }
                EXPECT_EQ(split.stats.nodesTested, one.stats.nodesTested) << what;
                EXPECT_EQ(split.stats.nodesDrawn, one.stats.nodesDrawn) << what;
                EXPECT_EQ(split.stats.leavesCovered, one.stats.leavesCovered) << what;
                EXPECT_EQ(split.stats.triangles, one.stats.triangles) << what;
                EXPECT_EQ(split.stats.deepestLevel, one.stats.deepestLevel) << what;
            }
        }
    }
    EXPECT_GT(requested, 0) << "no selection asked for a page";
}

// Culled by the frustum, the streamed selection covers the same visible ground as the full one:
// every leaf the full selection draws is under a streamed drawn node, and a leaf only the
// streamed selection covers lies in a held-back level-1 node and is itself outside the frustum
// (the full selection culled it as a leaf of that node's split).
TEST(Lod, StreamedSelectionCoversTheSameVisibleGround) {
    uint32_t seed = 21;
    int extra = 0;
    for (const test::SyntheticCase& c : {test::kSyntheticCases[0], test::kSyntheticCases[1]}) {
        const Scene s = makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        Random rng(seed++);
        for (int i = 0; i < 30; ++i) {
            const Camera camera = anyCamera(s, rng);
            LodReach reach;
            LodParams params = paramsFor(s, camera, 1080, rng.uniform(0.25f, 4.0f), &reach);
            const Frustum frustum = Frustum::fromViewProjection(camera.viewProjection());
            const Frustum grid = gridFrustum(frustum, s.tree, s.mapping);
            LodOutput full, streamed;
            full.reserveFor(s.tree);
            streamed.reserveFor(s.tree);
            selectLod(s.tree, s.mapping, params, &frustum, full);
            Residency r;  // more levels pooled on every other camera
            randomResidency(s, 2 * c.leaf, rng.uniform(0.0f, 1.0f), rng, r,
                            i % 2 == 1 ? 2 + i / 2 % 2 : 1, rng.uniform(0.5f, 1.0f));
            params.residency = &r.view();
            selectLod(s.tree, s.mapping, params, &frustum, streamed);
            const size_t leaves = size_t(s.tree.leavesX) * size_t(s.tree.leavesZ);
            std::vector<uint8_t> inFull(leaves, 0), inStreamed(leaves, 0), heldBack(leaves, 0);
            for (const DrawNode& d : full.nodes) {
                forEachLeaf(s.tree, d, [&](int col, int row) {
                    inFull[size_t(row) * size_t(s.tree.leavesX) + size_t(col)] = 1;
                });
            }
            for (const DrawNode& d : streamed.nodes) {
                const bool held = d.level >= 1 && d.level <= r.view().levels &&
                                  !r.view().splits(d.level, d.col * c.leaf, d.row * c.leaf);
                forEachLeaf(s.tree, d, [&](int col, int row) {
                    const size_t at = size_t(row) * size_t(s.tree.leavesX) + size_t(col);
                    inStreamed[at] = 1;
                    heldBack[at] = held ? 1 : 0;
                });
            }
            for (int row = 0; row < s.tree.leavesZ; ++row) {
                for (int col = 0; col < s.tree.leavesX; ++col) {
                    const size_t at = size_t(row) * size_t(s.tree.leavesX) + size_t(col);
                    if (inFull[at]) {
                        ASSERT_TRUE(inStreamed[at])
                            << "camera " << i << " leaf " << col << "," << row << " lost";
                    } else if (inStreamed[at]) {
                        ++extra;
                        ASSERT_TRUE(heldBack[at]) << "camera " << i;
                        DrawNode leaf{};
                        leaf.col = uint16_t(col);
                        leaf.row = uint16_t(row);
                        bool outside = false;
                        grid.classify(gridBox(treeNode(s.tree, leaf)), kAllPlanes, outside);
                        ASSERT_TRUE(outside) << "camera " << i;
                    }
                }
            }
        }
    }
    std::printf("leaves covered by held-back nodes outside the frustum: %d\n", extra);
}

}  // namespace
}  // namespace qt
