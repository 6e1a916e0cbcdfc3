// Coarse-surface errors: each inner node's stored error bounds the distance between every point of
// every fold of its strip and the full-detail surface, is nearly reached, and is zero on planes.
#include "core/lod/lod_error.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/io/load.h"
#include "core/lod/lod.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/synthetic.h"
#include "core/terrain/vertex_grid.h"
#include "qt_source_paths.h"
#include "test_files.h"

namespace qt {
namespace {

// The full-detail surface at (x, z), between samples as the leaves' strips triangulate each
// square: the diagonal from (col, row + 1) to (col + 1, row).
double fullDetail(const Heightmap& map, double x, double z) {
    const int col = std::min(int(std::floor(x)), map.width - 2);
    const int row = std::min(int(std::floor(z)), map.height - 2);
    const double u = x - col, v = z - row;
    const double h00 = map.codeAt(col, row), h10 = map.codeAt(col + 1, row);
    const double h01 = map.codeAt(col, row + 1), h11 = map.codeAt(col + 1, row + 1);
    if (u + v <= 1.0) {
        return h00 + (h10 - h00) * u + (h01 - h00) * v;
    }
    return h11 + (h01 - h11) * (1.0 - u) + (h10 - h11) * (1.0 - v);
}

// The largest distance between the node's drawn triangles, under the edge masks below `masks`
// (1: the unfolded strip alone; 16: every fold), and the full-detail surface, at points half a
// step apart: the crossings of folded edges with the full-detail diagonals lie on that lattice.
double bruteForceError(const Heightmap& map, const Quadtree& tree, int level, int col, int row,
                       int masks = 16) {
    std::vector<uint32_t> strip;
    appendLeafStrip(0, 0, tree.leafSize, tree.leafSize, tree.leafSize + 1, strip);
    double worst = 0.0;
    for (uint8_t mask = 0; mask < masks; ++mask) {
        const DrawNode node{uint16_t(col), uint16_t(row), uint8_t(level), mask, 0, 0, {0, 0, 0, 0}};
        int x[3] = {}, z[3] = {};
        for (size_t n = 0; n < strip.size(); ++n) {
            const int id = int(strip[n]);
            lodVertexSample(node, id % (tree.leafSize + 1), id / (tree.leafSize + 1), tree.leafSize,
                            map.width, map.height, x[n % 3], z[n % 3]);
            if (n < 2) {
                continue;
            }
            const double ax = x[1] - x[0], az = z[1] - z[0], bx = x[2] - x[0], bz = z[2] - z[0];
            const double det = ax * bz - az * bx;
            if (det == 0.0) {
                continue;
            }
            const double h0 = map.codeAt(x[0], z[0]);
            const double ah = map.codeAt(x[1], z[1]) - h0, bh = map.codeAt(x[2], z[2]) - h0;
            const int x0 = std::min({x[0], x[1], x[2]}), x1 = std::max({x[0], x[1], x[2]});
            const int z0 = std::min({z[0], z[1], z[2]}), z1 = std::max({z[0], z[1], z[2]});
            for (int qz = 2 * z0; qz <= 2 * z1; ++qz) {
                for (int qx = 2 * x0; qx <= 2 * x1; ++qx) {
                    const double px = qx / 2.0 - x[0], pz = qz / 2.0 - z[0];
                    // Barycentric coordinates of the point in the triangle.
                    const double s = (px * bz - pz * bx) / det;
                    const double t = (ax * pz - az * px) / det;
                    if (s < -1e-9 || t < -1e-9 || s + t > 1.0 + 1e-9) {
                        continue;
                    }
                    const double coarse = h0 + s * ah + t * bh;
                    worst = std::max(worst, std::abs(coarse - fullDetail(map, qx / 2.0, qz / 2.0)));
                }
            }
        }
    }
    return worst;
}

// With LodErrors::Exact the stored errors bound the unfolded strip, with the fold errors every
// fold, and both are nearly reached; with the range bound (what the first frames draw with) they
// bound every fold alone (fold errors 0) and are each node's code range, at least the exact error.
void expectErrorsBoundEveryFold(const Heightmap& map, int leafSize, const std::string& what,
                                LodErrors errors = LodErrors::Exact) {
    const Quadtree tree = (errors == LodErrors::Exact ? buildQuadtreeExact(map, leafSize)
                                                      : buildQuadtree(map, leafSize))
                              .value();
    ASSERT_EQ(tree.lodErrors, errors) << what;
    ASSERT_EQ(tree.coarseErrors.size(), tree.levelStart.back()) << what;
    ASSERT_EQ(tree.foldErrors.size(), tree.levelStart.back()) << what;
    std::vector<uint16_t> exact;
    if (errors == LodErrors::Range) {
        exact = exactCoarseErrors(codeGrid(map), tree);
    }
    int folded = 0;  // nodes whose folds stand further off than their unfolded strip
    // Inner nodes by their level-grid index, for their code ranges: levels counted down from the
    // root's, tree.depth.
    std::vector<const QuadtreeNode*> byLevelIndex(tree.levelStart.back(), nullptr);
    const auto visit = [&](const auto& self, uint32_t index, int level) -> void {
        const QuadtreeNode& node = tree.nodes[index];
        if (node.isLeaf()) {
            return;
        }
        byLevelIndex[tree.levelIndex(level, node.x0 >> tree.leafShift, node.z0 >> tree.leafShift)] =
            &node;
        for (int q = 0; q < 4; ++q) {
            if (node.hasChild(q)) {
                self(self, node.child(q), level - 1);
            }
        }
    };
    visit(visit, tree.rootIndex(), tree.depth);
    int checked = 0;
    for (int level = 1; level <= tree.depth; ++level) {
        for (int row = 0; row < tree.leavesZ; row += 1 << level) {
            for (int col = 0; col < tree.leavesX; col += 1 << level) {
                const double brute = bruteForceError(map, tree, level, col, row);
                const size_t at = tree.levelIndex(level, col, row);
                const double own = tree.coarseErrors[at];
                const double stored = std::max(own, double(tree.foldErrors[at]));
                ASSERT_GE(stored + 1e-6, brute)
                    << what << ": level " << level << " node " << col << "," << row;
                if (errors == LodErrors::Exact) {
                    // Reached within rounding up, but for clamped edges' crossings off the lattice;
                    // the node's own error, the unfolded strip's, likewise.
                    ASSERT_LE(stored, std::ceil(brute * 1.05) + 1.0)
                        << what << ": level " << level << " node " << col << "," << row;
                    const double unfolded = bruteForceError(map, tree, level, col, row, 1);
                    ASSERT_GE(own + 1e-6, unfolded)
                        << what << ": level " << level << " node " << col << "," << row;
                    ASSERT_LE(own, std::ceil(unfolded * 1.05) + 1.0)
                        << what << ": level " << level << " node " << col << "," << row;
                    folded += tree.foldErrors[at] > own ? 1 : 0;
                } else {
                    ASSERT_EQ(tree.foldErrors[at], 0) << what;
                    const size_t index = tree.levelIndex(level, col, row);
                    ASSERT_NE(byLevelIndex[index], nullptr) << what;
                    ASSERT_EQ(stored, byLevelIndex[index]->maxCode - byLevelIndex[index]->minCode)
                        << what << ": level " << level << " node " << col << "," << row;
                    ASSERT_GE(stored, exact[index])
                        << what << ": level " << level << " node " << col << "," << row;
                }
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, int(tree.coarseErrors.size())) << what;
    if (errors == LodErrors::Exact) {
        EXPECT_GT(folded, 0) << what << ": no fold stood further off than its unfolded strip";
    }
}

// The synthetic maps the checks below run on: square and not, leaves of 2, 4 and 8, each with its
// leaf size and a name.
template <typename Check>
void onSyntheticMaps(const Check& check) {
    const int shapes[][3] = {{65, 65, 4}, {50, 37, 2}, {203, 141, 8}, {129, 77, 4}};
    uint32_t seed = 11;
    for (const auto& shape : shapes) {
        check(syntheticHeightmap(shape[0], shape[1], seed++), shape[2],
              std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + " leaf " +
                  std::to_string(shape[2]));
    }
}

TEST(CoarseErrors, BoundEveryFoldOfEveryNodeOnSyntheticMaps) {
    onSyntheticMaps([](const Heightmap& map, int leafSize, const std::string& what) {
        expectErrorsBoundEveryFold(map, leafSize, what);
    });
}

TEST(CoarseErrors, BoundEveryFoldOfEveryNodeOnARealMap) {
    const std::string path = test::sharedHeightmap("jacksboro_fault_403x344.png");
    if (path.empty()) {
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map check skipped";
    }
    expectErrorsBoundEveryFold(loadHeightmap(path).value(), 4, "jacksboro_fault_403x344.png");
}

// Each leaf's fold error bounds every point of the triangles its strip draws only where an edge
// folds, under every mask, and is nearly reached; its unfolded strip is the full-detail surface.
void expectLeafFoldErrorsBoundEveryFold(const Heightmap& map, int leafSize,
                                        const std::string& what) {
    const Quadtree tree = buildQuadtreeExact(map, leafSize).value();
    ASSERT_EQ(tree.leafFoldErrors.size(), size_t(tree.leavesX) * size_t(tree.leavesZ)) << what;
    int folded = 0;
    for (int row = 0; row < tree.leavesZ; ++row) {
        for (int col = 0; col < tree.leavesX; ++col) {
            ASSERT_EQ(bruteForceError(map, tree, 0, col, row, 1), 0.0) << what;
            const double brute = bruteForceError(map, tree, 0, col, row);
            const double stored = tree.leafFoldErrors[size_t(row) * size_t(tree.leavesX) + col];
            ASSERT_GE(stored + 1e-6, brute) << what << ": leaf " << col << "," << row;
            ASSERT_LE(stored, std::ceil(brute * 1.05) + 1.0)
                << what << ": leaf " << col << "," << row;
            folded += stored > 0.0 ? 1 : 0;
        }
    }
    EXPECT_GT(folded, 0) << what << ": no leaf's folds stood off the full-detail surface";
}

TEST(CoarseErrors, LeafFoldErrorsBoundEveryFoldOfEveryLeaf) {
    onSyntheticMaps(expectLeafFoldErrorsBoundEveryFold);
    const std::string path = test::sharedHeightmap("jacksboro_fault_403x344.png");
    if (!path.empty()) {
        expectLeafFoldErrorsBoundEveryFold(loadHeightmap(path).value(), 4,
                                           "jacksboro_fault_403x344.png");
    }
}

// The range bound, live from the tree's build until the exact errors are swapped in, bounds
// every fold of every node too.
TEST(CoarseErrors, TheRangeBoundBoundsEveryFoldOfEveryNode) {
    onSyntheticMaps([](const Heightmap& map, int leafSize, const std::string& what) {
        expectErrorsBoundEveryFold(map, leafSize, what + " range", LodErrors::Range);
    });
    const std::string path = test::sharedHeightmap("jacksboro_fault_403x344.png");
    if (!path.empty()) {
        expectErrorsBoundEveryFold(loadHeightmap(path).value(), 4,
                                   "jacksboro_fault_403x344.png range", LodErrors::Range);
    }
}

// A plane is drawn exactly at every stride and fold: every error is zero, clamped border nodes
// included.
TEST(CoarseErrors, PlanesHaveNone) {
    std::vector<float> samples;
    const int width = 77, height = 50;
    for (int row = 0; row < height; ++row) {
        for (int col = 0; col < width; ++col) {
            samples.push_back(float(3 * col + 7 * row));
        }
    }
    const Heightmap map = makeHeightmap(width, height, samples).value();
    for (int leafSize : {2, 4, 16}) {
        const Quadtree tree = buildQuadtreeExact(map, leafSize).value();
        ASSERT_FALSE(tree.coarseErrors.empty());
        EXPECT_EQ(*std::max_element(tree.coarseErrors.begin(), tree.coarseErrors.end()), 0)
            << "leaf " << leafSize;
        EXPECT_EQ(*std::max_element(tree.foldErrors.begin(), tree.foldErrors.end()), 0)
            << "leaf " << leafSize;
    }
}

// One raised sample between a level's vertices costs that level its full height; at a vertex of
// every level it is drawn at every stride, and only the triangles around it lean.
TEST(CoarseErrors, APeakBetweenVerticesIsTheWholeError) {
    std::vector<float> samples(33 * 33, 0.0f);
    samples[size_t(5) * 33 + 5] = 1000.0f;  // odd: skipped from level 1 up
    const Heightmap map = makeHeightmap(33, 33, samples).value();
    const Quadtree tree = buildQuadtreeExact(map, 4).value();
    const uint16_t peak = map.codeAt(5, 5);
    for (int level = 1; level <= tree.depth; ++level) {
        EXPECT_EQ(tree.coarseErrors[tree.levelIndex(level, 0, 0)], peak) << level;
    }
    EXPECT_EQ(tree.coarseErrors[tree.levelIndex(1, 6, 6)], 0);  // far from the peak
}

// Every triangle the strip draws under some edge mask, once: the unfolded strip's 2 leafSize^2
// among them, and more from the folds.
TEST(CoarseErrors, FoldedTrianglesAreTheUnfoldedStripAndMoreEachOnce) {
    const auto same = [](const LocalTriangle& a, const LocalTriangle& b) {
        return std::equal(a.i, a.i + 3, b.i) && std::equal(a.j, a.j + 3, b.j);
    };
    for (int leafSize : {2, 4, 8}) {
        const std::vector<LocalTriangle> triangles = foldedStripTriangles(leafSize);
        for (size_t a = 0; a < triangles.size(); ++a) {
            for (size_t b = a + 1; b < triangles.size(); ++b) {
                ASSERT_FALSE(same(triangles[a], triangles[b])) << leafSize;
            }
        }
        // The unfolded squares: (i, j), (i, j + 1), (i + 1, j) and (i, j + 1), (i + 1, j),
        // (i + 1, j + 1), corners sorted by j, then i.
        int found = 0;
        for (int j = 0; j < leafSize; ++j) {
            for (int i = 0; i < leafSize; ++i) {
                const uint8_t i0 = uint8_t(i), i1 = uint8_t(i + 1);
                const uint8_t j0 = uint8_t(j), j1 = uint8_t(j + 1);
                const LocalTriangle upper{{i0, i1, i0}, {j0, j0, j1}};
                const LocalTriangle lower{{i1, i0, i1}, {j0, j1, j1}};
                for (const LocalTriangle& t : {upper, lower}) {
                    found += int(std::count_if(triangles.begin(), triangles.end(),
                                               [&](const LocalTriangle& u) { return same(u, t); }));
                }
            }
        }
        EXPECT_EQ(found, 2 * leafSize * leafSize) << leafSize;
        // The unfolded strip's come first (exactCoarseErrors tells them from the folds' so).
        for (size_t n = 0; n < size_t(2 * leafSize * leafSize); ++n) {
            const LocalTriangle& t = triangles[n];
            const int i0 = std::min({t.i[0], t.i[1], t.i[2]});
            const int j0 = std::min({t.j[0], t.j[1], t.j[2]});
            const LocalTriangle upper{{uint8_t(i0), uint8_t(i0 + 1), uint8_t(i0)},
                                      {uint8_t(j0), uint8_t(j0), uint8_t(j0 + 1)}};
            const LocalTriangle lower{{uint8_t(i0 + 1), uint8_t(i0), uint8_t(i0 + 1)},
                                      {uint8_t(j0), uint8_t(j0 + 1), uint8_t(j0 + 1)}};
            EXPECT_TRUE(same(t, upper) || same(t, lower)) << leafSize << " triangle " << n;
        }
        EXPECT_GT(triangles.size(), size_t(2 * leafSize * leafSize)) << leafSize;
    }
}

}  // namespace
}  // namespace qt
