// The flat node array: links, sibling groups, exact 3D bounds, tiling by leaves, partial borders.
#include "core/terrain/quadtree.h"
#include "core/terrain/leaf_ranges.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/lod/lod_error.h"
#include "core/terrain/quantise.h"
#include "core/terrain/synthetic.h"
#include "test_nodata.h"

namespace qt {
namespace {

void expectExactRange(const Heightmap& map, const Quadtree& tree, const QuadtreeNode& node) {
    float lo = map.at(node.x0, node.z0);
    float hi = lo;
    for (int row = node.z0; row <= node.z1(); ++row) {
        for (int col = node.x0; col <= node.x1(); ++col) {
            lo = std::min(lo, map.at(col, row));
            hi = std::max(hi, map.at(col, row));
        }
    }
    ASSERT_EQ(tree.minSample(node), lo);
    ASSERT_EQ(tree.maxSample(node), hi);
}

// The node's level, 0 for a leaf: steps down its always-present north-west children to a leaf.
int levelOf(const Quadtree& tree, uint32_t index) {
    int level = 0;
    for (; !tree.nodes[index].isLeaf(); index = tree.nodes[index].firstChild()) {
        ++level;
    }
    return level;
}

void checkTree(const Heightmap& map, int leafSize) {
    SCOPED_TRACE(std::to_string(map.width) + "x" + std::to_string(map.height) + " leaf " +
                 std::to_string(leafSize));
    const Result<Quadtree> built = buildQuadtreeExact(map, leafSize);
    ASSERT_TRUE(built.ok());
    const Quadtree& tree = built.value();
    ASSERT_EQ(tree.leavesX, (map.width - 2) / leafSize + 1);
    ASSERT_EQ(tree.leaves.size(), size_t(tree.leavesX) * size_t(tree.leavesZ));
    ASSERT_EQ(tree.nodes.capacity(), tree.nodes.size());  // counted exactly, one allocation
    ASSERT_EQ(tree.levelNodes.size(), tree.nodes.size() - tree.leaves.size());
    EXPECT_EQ(tree.nodeAt(tree.depth, 0, 0), tree.rootIndex());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tree.nodes.data()) % 64, 0u);
    ASSERT_EQ(tree.leafCodes.size(), tree.leaves.size());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(tree.leafCodes.data()) % 64, 0u);  // 16 to a line
    EXPECT_EQ(tree.root().x0, 0);
    EXPECT_EQ(tree.root().x1(), map.width - 1);
    EXPECT_EQ(tree.root().z1(), map.height - 1);
    EXPECT_EQ(tree.leafCount(tree.root()), tree.leaves.size());
    EXPECT_EQ(tree.firstLeaf(tree.root()), 0u);

    // Every square of the map lies in exactly one leaf.
    std::vector<int> cover(size_t(map.width - 1) * size_t(map.height - 1), 0);
    for (uint32_t i = 0; i < tree.nodes.size(); ++i) {
        const QuadtreeNode& node = tree.nodes[i];
        expectExactRange(map, tree, node);
        // Found again from its level and its first leaf (so each child's parent from the child).
        const int level = levelOf(tree, i);
        ASSERT_EQ(tree.nodeAt(level, node.x0 >> tree.leafShift, node.z0 >> tree.leafShift), i);
        ASSERT_LT(node.x0, node.x1());
        ASSERT_LT(node.z0, node.z1());
        if (node.isLeaf()) {
            ASSERT_EQ(tree.leafCount(node), 1u);
            const LeafCoord leaf = tree.leaves[tree.firstLeaf(node)];
            ASSERT_EQ(tree.leafNodes[tree.firstLeaf(node)], i);
            const LeafCodes& codes = tree.leafCodes[tree.firstLeaf(node)];
            ASSERT_EQ(codes.minCode, node.minCode);  // the compact copy the walk reads
            ASSERT_EQ(codes.maxCode, node.maxCode);
            ASSERT_EQ(node.x0, leaf.col * leafSize);
            ASSERT_EQ(node.z0, leaf.row * leafSize);
            ASSERT_EQ(tree.leafIndexAt(leaf.col, leaf.row), tree.firstLeaf(node));
            ASSERT_LE(node.x1() - node.x0, leafSize);
            for (int z = node.z0; z < node.z1(); ++z) {
                for (int x = node.x0; x < node.x1(); ++x) {
                    ++cover[size_t(z) * size_t(map.width - 1) + size_t(x)];
                }
            }
            continue;
        }
        uint32_t leaves = 0;
        uint32_t expectedFirst = tree.firstLeaf(node);
        ASSERT_TRUE(node.hasChild(0));
        uint32_t nextInGroup = node.firstChild();
        for (int q = 0; q < 4; ++q) {
            if (!node.hasChild(q)) {
                continue;
            }
            const uint32_t c = node.child(q);
            ASSERT_EQ(c, nextInGroup++);  // siblings side by side, in child order
            const QuadtreeNode& child = tree.nodes[c];
            ASSERT_EQ(tree.nodeAt(level, child.x0 >> tree.leafShift, child.z0 >> tree.leafShift),
                      i);
            ASSERT_TRUE(i == tree.rootIndex() ? c < i : c > i);
            // Child q is the quadrant of its bit: east ones start right of the west ones.
            ASSERT_EQ(child.x0 > node.x0, (q & 1) != 0);
            ASSERT_EQ(child.z0 > node.z0, (q & 2) != 0);
            ASSERT_EQ(tree.firstLeaf(child), expectedFirst);  // subtrees' leaves are contiguous
            expectedFirst += tree.leafCount(child);
            leaves += tree.leafCount(child);
            ASSERT_GE(child.x0, node.x0);
            ASSERT_LE(child.x1(), node.x1());
            ASSERT_GE(child.z0, node.z0);
            ASSERT_LE(child.z1(), node.z1());
            ASSERT_GE(child.minCode, node.minCode);
            ASSERT_LE(child.maxCode, node.maxCode);
        }
        ASSERT_EQ(leaves, tree.leafCount(node));
        // The range holds exactly the leaves whose nodes lie in this subtree's box.
        for (uint32_t k = tree.firstLeaf(node); k < tree.firstLeaf(node) + leaves; ++k) {
            const QuadtreeNode& leaf = tree.nodes[tree.leafNodes[k]];
            ASSERT_TRUE(leaf.x0 >= node.x0 && leaf.x1() <= node.x1() && leaf.z0 >= node.z0 &&
                        leaf.z1() <= node.z1());
        }
    }
    for (int c : cover) {
        ASSERT_EQ(c, 1);
    }
    // The groups fill the array from its start in depth-first order: a node's children, then
    // each child's subtree; the root comes last.
    uint32_t nextGroup = 0;
    std::vector<uint32_t> stack = {tree.rootIndex()};
    while (!stack.empty()) {
        const QuadtreeNode node = tree.nodes[stack.back()];
        stack.pop_back();
        if (node.isLeaf()) {
            continue;
        }
        ASSERT_EQ(node.firstChild(), nextGroup);
        nextGroup += bitCount4(node.childMask());
        for (int q = 3; q >= 0; --q) {
            if (node.hasChild(q)) {
                stack.push_back(node.child(q));
            }
        }
    }
    ASSERT_EQ(nextGroup, tree.rootIndex());
}

// With no partial group, each group of four children is one cache line.
TEST(Quadtree, FullGroupsAreCacheLines) {
    const Quadtree tree = buildQuadtreeExact(syntheticHeightmap(257, 257, 3), 4).value();
    for (const QuadtreeNode& node : tree.nodes) {
        if (!node.isLeaf()) {
            ASSERT_EQ(node.childMask(), 0xFu);
            ASSERT_EQ(reinterpret_cast<uintptr_t>(&tree.nodes[node.firstChild()]) % 64, 0u);
        }
    }
}

// The walk fetches these 20 nodes as five lines ahead of testing them.
TEST(Quadtree, ANodeOfFourLeafParentsOwnsTwentyConsecutiveNodes) {
    for (const auto& size : {std::pair{257, 257}, std::pair{203, 141}}) {
        const Quadtree tree =
            buildQuadtreeExact(syntheticHeightmap(size.first, size.second, 3), 4).value();
        int checked = 0;
        for (const QuadtreeNode& node : tree.nodes) {
            if (node.childMask() != 0xFu) {
                continue;
            }
            const uint32_t group = node.firstChild();
            bool fourLeafParents = true;
            for (uint32_t q = 0; q < 4; ++q) {
                const QuadtreeNode& child = tree.nodes[group + q];
                fourLeafParents = fourLeafParents && child.childMask() == 0xFu &&
                                  tree.nodes[child.firstChild()].isLeaf();
            }
            if (!fourLeafParents) {
                continue;
            }
            for (uint32_t q = 0; q < 4; ++q) {
                ASSERT_EQ(tree.nodes[group + q].firstChild(), group + 4 + 4 * q);
                for (uint32_t k = 0; k < 4; ++k) {
                    ASSERT_EQ(tree.leafNodes[tree.firstLeaf(node) + 4 * q + k],
                              group + 4 + 4 * q + k);
                }
            }
            ++checked;
        }
        EXPECT_GT(checked, 90);  // 256 and 96 such nodes
    }
}

// In a whole subtree every group sits at a fixed offset: after a node's group of four come its
// children's subtrees in turn, each (4^(h+1) - 4) / 3 nodes for h levels below the child. The
// walk fetches grandchildren's groups by these offsets before it reads their parents.
TEST(Quadtree, WholeSubtreesHaveTheirGroupsAtFixedOffsets) {
    const Quadtree tree =
        buildQuadtreeExact(syntheticHeightmap(257, 257, 3), 4).value();  // 64 x 64
    ASSERT_EQ(tree.depth, 6);
    const auto below = [](int h) { return ((1u << (2 * h + 2)) - 4u) / 3u; };
    int checked = 0;
    // Nodes with their levels, from the root down.
    std::vector<std::pair<uint32_t, int>> pending = {{tree.rootIndex(), 0}};
    while (!pending.empty()) {
        const auto [index, level] = pending.back();
        pending.pop_back();
        const QuadtreeNode& node = tree.nodes[index];
        if (node.isLeaf()) {
            continue;
        }
        const int h = tree.depth - level - 1;  // levels below each child
        for (uint32_t k = 0; k < 4; ++k) {
            const uint32_t child = node.firstChild() + k;
            if (h >= 1) {
                ASSERT_EQ(tree.nodes[child].firstChild(), node.firstChild() + 4 + k * below(h));
                ++checked;
            }
            pending.push_back({child, level + 1});
        }
    }
    EXPECT_EQ(checked, 4 * (1 + 4 + 16 + 64 + 256));  // children of levels 0 to 4
}

TEST(Quadtree, ExactBoundsLinksAndTilingOnManyShapes) {
    const int sizes[][2] = {{2, 2},   {5, 3},     {3, 5},    {17, 17},  {18, 17},
                            {65, 65}, {203, 141}, {130, 33}, {257, 257}};
    for (const auto& size : sizes) {
        const Heightmap map = syntheticHeightmap(size[0], size[1], 7);
        for (int leafSize : {2, 4, 8, 64}) {
            checkTree(map, leafSize);
        }
    }
}

// A map kMaxSide samples wide (or long): the nodes' far sides reach sample 65536, one past what a
// uint16 holds, as their last squares; in leaves of 2 the tree is kMaxTreeDepth levels deep.
TEST(Quadtree, ExactBoundsLinksAndTilingOnAMapTheLongestSideWide) {
    const Heightmap wide = syntheticHeightmap(kMaxSide, 5, 8);
    const Heightmap tall = syntheticHeightmap(3, kMaxSide, 9);
    for (const int leafSize : {2, 4}) {
        checkTree(wide, leafSize);
        checkTree(tall, leafSize);
        ASSERT_FALSE(HasFatalFailure());
    }
    const Quadtree deepest = buildQuadtree(wide, 2).value();
    EXPECT_EQ(deepest.depth, kMaxTreeDepth);
    EXPECT_EQ(deepest.root().x1(), 65536);
    const QuadtreeNode& last = deepest.nodes[deepest.leafNodes.back()];
    EXPECT_EQ(last.x0, 65534);
    EXPECT_EQ(last.x1(), 65536);
    EXPECT_EQ(last.z1(), 4);
}

TEST(Quadtree, APeakInsideACellKeepsItsLeafTall) {
    std::vector<float> samples(81, 0.0f);
    samples[size_t(2) * 9 + 2] = 500.0f;  // interior sample of leaf (0,0); no corner
    const Heightmap map = makeHeightmap(9, 9, samples).value();
    const Quadtree tree = buildQuadtreeExact(map, 4).value();
    const QuadtreeNode& leaf = tree.nodes[tree.leafNodes[tree.leafIndexAt(0, 0)]];
    EXPECT_EQ(tree.maxSample(leaf), 500.0f);
    EXPECT_EQ(tree.maxSample(tree.root()), 500.0f);
    EXPECT_EQ(tree.maxSample(tree.nodes[tree.leafNodes[tree.leafIndexAt(1, 1)]]), 0.0f);
}

TEST(Quadtree, NodeCountsOfCompleteAndPartialTrees) {
    // 17x17 samples, leaf 4: 16 leaves + 4 + 1 nodes, as in the node-count formula of Ferraris
    // 2001, "Quadtrees".
    const Quadtree full = buildQuadtreeExact(flatHeightmap(17, 17), 4).value();
    EXPECT_EQ(full.nodes.size(), 21u);
    EXPECT_EQ(full.depth, 2);
    // 2x2 samples: one square, one partial leaf that is the root.
    const Quadtree tiny = buildQuadtreeExact(flatHeightmap(2, 2), 4).value();
    ASSERT_EQ(tiny.nodes.size(), 1u);
    EXPECT_TRUE(tiny.root().isLeaf());
    EXPECT_EQ(tiny.root().x1(), 1);
    EXPECT_EQ(tiny.root().triangleCount(), 2u);
    // 5x3 samples: 4x2 squares, one partial leaf of 16 triangles.
    const Quadtree small = buildQuadtreeExact(flatHeightmap(5, 3), 4).value();
    ASSERT_EQ(small.leaves.size(), 1u);
    EXPECT_EQ(small.root().triangleCount(), 16u);
    // 18 samples: 17 squares, the last leaf column holds one square.
    const Quadtree edge = buildQuadtreeExact(flatHeightmap(18, 5), 4).value();
    EXPECT_EQ(edge.leavesX, 5);
    const QuadtreeNode& last = edge.nodes[edge.leafNodes[edge.leafIndexAt(4, 0)]];
    EXPECT_EQ(last.x0, 16);
    EXPECT_EQ(last.x1(), 17);
}

// Each leaf's range over its samples, straight from the map, by row * leavesX + col.
std::vector<CodeRange> bruteLeafRanges(const Heightmap& map, int leafSize) {
    const int leavesX = (map.width - 2) / leafSize + 1;
    const int leavesZ = (map.height - 2) / leafSize + 1;
    std::vector<CodeRange> ranges;
    for (int lz = 0; lz < leavesZ; ++lz) {
        for (int lx = 0; lx < leavesX; ++lx) {
            CodeRange r{0xFFFF, 0};
            for (int z = lz * leafSize; z <= std::min((lz + 1) * leafSize, map.height - 1); ++z) {
                for (int x = lx * leafSize; x <= std::min((lx + 1) * leafSize, map.width - 1);
                     ++x) {
                    r.minCode = std::min(r.minCode, map.codeAt(x, z));
                    r.maxCode = std::max(r.maxCode, map.codeAt(x, z));
                }
            }
            ranges.push_back(r);
        }
    }
    return ranges;
}

bool sameRanges(const std::vector<CodeRange>& a, const std::vector<CodeRange>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](auto x, auto y) {
               return x.minCode == y.minCode && x.maxCode == y.maxCode;
           });
}

// Samples varying in both directions with a peak at every 97th: integers (kept exactly) or
// fractions (quantised).
std::vector<float> bumpySamples(int width, int height, bool integral) {
    std::vector<float> v(size_t(width) * size_t(height));
    for (size_t i = 0; i < v.size(); ++i) {
        const float base = float((i * 2654435761u >> 7) % 3000);
        v[i] = (i % 97 == 0 ? base + 9000.0f : base) + (integral ? 0.0f : 0.37f * float(i % 11));
    }
    return v;
}

TEST(Quadtree, LeafRangesTakenWhileQuantisingEqualThePassOverTheCodes) {
    // Partial border leaves on one side, both and neither; the largest is split between threads.
    const int sizes[][2] = {{2, 2}, {5, 3}, {18, 17}, {203, 141}, {257, 257}, {1101, 1003}};
    for (const auto& size : sizes) {
        for (bool integral : {true, false}) {
            const std::vector<float> samples = bumpySamples(size[0], size[1], integral);
            const float lo = *std::min_element(samples.begin(), samples.end());
            const float hi = *std::max_element(samples.begin(), samples.end());
            for (int leafSize : {2, 4, 64}) {
                SCOPED_TRACE(std::to_string(size[0]) + "x" + std::to_string(size[1]) + " leaf " +
                             std::to_string(leafSize) + (integral ? " integral" : " float"));
                Heightmap plain;
                plain.width = size[0];
                plain.height = size[1];
                encodeSamples(plain, samples.data(), samples.size(), lo, hi, integral);
                Heightmap taken;
                taken.width = size[0];
                taken.height = size[1];
                std::vector<CodeRange> ranges;
                encodeSamples(taken, samples.data(), samples.size(), lo, hi, integral, leafSize,
                              &ranges);
                ASSERT_EQ(taken.codes.size(), plain.codes.size());
                EXPECT_TRUE(
                    std::equal(taken.codes.begin(), taken.codes.end(), plain.codes.begin()));
                EXPECT_EQ(taken.coding.step, plain.coding.step);
                EXPECT_EQ(taken.maxCode, plain.maxCode);
                const std::vector<CodeRange> pass = leafCodeRanges(plain, leafSize);
                EXPECT_TRUE(sameRanges(pass, bruteLeafRanges(plain, leafSize)));
                EXPECT_TRUE(sameRanges(ranges, pass));
            }
        }
    }
}

TEST(Quadtree, StructureThenBoundsFromGivenLeafRangesEqualsTheWholeBuild) {
    const int sizes[][2] = {{2, 2}, {5, 3}, {18, 17}, {203, 141}, {130, 33}};
    for (const auto& size : sizes) {
        const Heightmap map = syntheticHeightmap(size[0], size[1], 11);
        for (int leafSize : {2, 4, 8}) {
            SCOPED_TRACE(std::to_string(size[0]) + "x" + std::to_string(size[1]) + " leaf " +
                         std::to_string(leafSize));
            const Quadtree whole = buildQuadtree(map, leafSize).value();
            Quadtree split = buildQuadtreeStructure(map.width, map.height, leafSize).value();
            const std::vector<CodeRange> ranges = leafCodeRanges(map, leafSize);
            fillQuadtreeBounds(split, map, &ranges);
            ASSERT_EQ(split.nodes.size(), whole.nodes.size());
            for (size_t i = 0; i < whole.nodes.size(); ++i) {
                const QuadtreeNode& a = split.nodes[i];
                const QuadtreeNode& b = whole.nodes[i];
                ASSERT_TRUE(a.x0 == b.x0 && a.z0 == b.z0 && a.x1() == b.x1() && a.z1() == b.z1() &&
                            a.minCode == b.minCode && a.maxCode == b.maxCode && a.links == b.links)
                    << "node " << i;
            }
            EXPECT_EQ(split.levelNodes, whole.levelNodes);
            EXPECT_EQ(split.leafNodes, whole.leafNodes);
            EXPECT_EQ(split.leafGrid, whole.leafGrid);
            EXPECT_EQ(split.coarseErrors, whole.coarseErrors);
            EXPECT_EQ(split.levelStart, whole.levelStart);
            EXPECT_TRUE(sameRanges({split.leafCodes.begin(), split.leafCodes.end()},
                                   {whole.leafCodes.begin(), whole.leafCodes.end()}));
            EXPECT_EQ(split.coding.step, whole.coding.step);
            EXPECT_EQ(split.lodErrors, LodErrors::Range);
        }
    }
}

// The level grids alone are the structure's, and the range bound merged level by level from the
// leaves' ranges through them is fillQuadtreeBounds's coarse errors, node for node.
TEST(Quadtree, LevelGridsAndTheirRangeBoundEqualTheWholeBuilds) {
    const int sizes[][2] = {{2, 2}, {5, 3}, {18, 17}, {203, 141}, {130, 33}, {3, 257}};
    for (const auto& size : sizes) {
        const Heightmap map = syntheticHeightmap(size[0], size[1], 7);
        for (int leafSize : {2, 4, 8}) {
            SCOPED_TRACE(std::to_string(size[0]) + "x" + std::to_string(size[1]) + " leaf " +
                         std::to_string(leafSize));
            const Quadtree whole = buildQuadtree(map, leafSize).value();
            const Quadtree grids = buildQuadtreeLevelGrids(map.width, map.height, leafSize).value();
            EXPECT_TRUE(grids.nodes.empty());
            EXPECT_EQ(grids.depth, whole.depth);
            EXPECT_EQ(grids.leavesX, whole.leavesX);
            EXPECT_EQ(grids.leavesZ, whole.leavesZ);
            EXPECT_EQ(grids.leafShift, whole.leafShift);
            EXPECT_EQ(grids.levelStart, whole.levelStart);
            EXPECT_EQ(grids.levelWidth, whole.levelWidth);
            EXPECT_EQ(rangeBoundErrors(grids, leafCodeRanges(map, leafSize)), whole.coarseErrors);
        }
    }
}

TEST(Quadtree, RejectsLeafSizesOutOfRange) {
    const Heightmap map = flatHeightmap(9, 9);
    for (int bad : {0, 1, 3, 6, 128, -4}) {
        EXPECT_FALSE(buildQuadtree(map, bad).ok()) << bad;
    }
    EXPECT_EQ(buildQuadtree(map, 3).error(), "leaf size 3 is not a power of two from 2 to 64");
}

// Per leaf with a hole, the rectangle of squares without a nodata corner that the occlusion stage
// occludes with: free of holes, and as large as the largest such rectangle found by trying every
// one; a leaf draws nothing exactly when it has no such square. Maps of specks, a disc, a wedge
// and a leaf-sized block of nodata, over leaves of 4 and 8.
// Nodata specks, a disc, a wedge along the east side and a block, on a small map and at the east
// end of a map kMaxSide wide (its boxes reaching sample 65536).
std::vector<Heightmap> mapsWithHoles(uint32_t seed) {
    std::vector<Heightmap> maps;
    for (const int w : {77, kMaxSide}) {
        const int h = w == kMaxSide ? 21 : 61;
        const int west = w - 77;  // the pattern's left edge
        const int discRow = w == kMaxSide ? 10 : 30;
        maps.push_back(test::withNodata(syntheticHeightmap(w, h, seed), [&](int col, int row) {
            col -= west;
            const bool speck = col >= 0 && (col * 31 + row * 17) % 53 == 0;
            const int dx = col - 25, dz = row - discRow;  // squared only near the disc
            const bool disc = std::abs(dx) < 9 && dx * dx + dz * dz < 81;
            const bool wedge = col > 77 - 8 + row / 10;
            const bool block = col >= 48 && col <= 58 && row >= 8 && row <= 18;
            return speck || disc || wedge || block;
        }));
    }
    return maps;
}

TEST(Quadtree, HoleLeavesKeepTheirLargestSolidRectangleAndEmptyLeavesAreCounted) {
    int empty = 0, partial = 0;
    for (const Heightmap& map : mapsWithHoles(5)) {
        for (const int leafSize : {4, 8}) {
            const Quadtree tree = buildQuadtree(map, leafSize).value();
            ASSERT_TRUE(tree.hasHoles());
            ASSERT_EQ(tree.holeLeafSolid.size(), tree.holeLeavesBefore.back());
            for (uint32_t leaf = 0; leaf < tree.leaves.size(); ++leaf) {
                const QuadtreeNode& node = tree.nodes[tree.leafNodes[leaf]];
                const auto solid = [&](int x0, int z0, int x1, int z1) {  // squares [x0, x1) x ...
                    for (int z = z0; z < z1; ++z) {
                        for (int x = x0; x < x1; ++x) {
                            if (map.nodata.holeSquare(x, z)) {
                                return false;
                            }
                        }
                    }
                    return true;
                };
                int largest = 0;
                for (int z0 = node.z0; z0 < node.z1(); ++z0) {
                    for (int z1 = z0 + 1; z1 <= node.z1(); ++z1) {
                        for (int x0 = node.x0; x0 < node.x1(); ++x0) {
                            for (int x1 = x0 + 1; x1 <= node.x1() && solid(x0, z0, x1, z1); ++x1) {
                                largest = std::max(largest, (x1 - x0) * (z1 - z0));
                            }
                        }
                    }
                }
                const bool holes = !solid(node.x0, node.z0, node.x1(), node.z1());
                ASSERT_EQ(tree.holesIn(leaf, 1), holes) << "leaf " << leaf;
                ASSERT_EQ(tree.emptyIn(leaf, 1), largest == 0) << "leaf " << leaf;
                if (!holes) {
                    continue;
                }
                const SolidBox box = tree.holeLeafSolid[tree.holeLeavesBefore[leaf]];
                EXPECT_EQ((box.x1 - box.x0) * (box.z1 - box.z0), largest) << "leaf " << leaf;
                empty += largest == 0;
                partial += largest > 0;
                if (largest == 0) {
                    EXPECT_EQ(box.x0, box.x1);
                    continue;
                }
                EXPECT_TRUE(box.x0 >= node.x0 && box.x1 <= node.x1() && box.z0 >= node.z0 &&
                            box.z1 <= node.z1());
                EXPECT_TRUE(solid(box.x0, box.z0, box.x1, box.z1)) << "leaf " << leaf;
            }
            // A run of leaves is empty only when all of them are.
            EXPECT_FALSE(tree.emptyIn(0, uint32_t(tree.leaves.size())));
        }
    }
    EXPECT_GT(empty, 0);
    EXPECT_GT(partial, 0);
}

// A leaf's hole box holds exactly its squares with a nodata corner: their bounding box, and the
// least and greatest code of their corners (fills included), found here square by square.
TEST(Quadtree, HoleBoxesBoundTheSquaresWithANodataCornerAndTheirCorners) {
    int small = 0, reachingTheLastSample = 0;
    for (const Heightmap& map : mapsWithHoles(6)) {
        for (const int leafSize : {4, 8}) {
            const Quadtree tree = buildQuadtree(map, leafSize).value();
            ASSERT_EQ(tree.holeLeafBox.size(), tree.holeLeavesBefore.back());
            for (uint32_t leaf = 0; leaf < tree.leaves.size(); ++leaf) {
                if (!tree.holesIn(leaf, 1)) {
                    continue;
                }
                const QuadtreeNode& node = tree.nodes[tree.leafNodes[leaf]];
                HoleBox want{node.x1(), node.z1(), node.x0, node.z0, 0xFFFF, 0};
                for (int z = node.z0; z < node.z1(); ++z) {
                    for (int x = node.x0; x < node.x1(); ++x) {
                        if (!map.nodata.holeSquare(x, z)) {
                            continue;
                        }
                        want.x0 = std::min(want.x0, x);
                        want.z0 = std::min(want.z0, z);
                        want.x1 = std::max(want.x1, x + 1);
                        want.z1 = std::max(want.z1, z + 1);
                        for (int c = 0; c < 4; ++c) {
                            const uint16_t code = map.codeAt(x + (c & 1), z + (c >> 1));
                            want.minCode = std::min(want.minCode, code);
                            want.maxCode = std::max(want.maxCode, code);
                        }
                    }
                }
                const HoleBox box = tree.holeLeafBox[tree.holeLeavesBefore[leaf]];
                EXPECT_EQ(box.x0, want.x0) << "leaf " << leaf;
                EXPECT_EQ(box.z0, want.z0) << "leaf " << leaf;
                EXPECT_EQ(box.x1, want.x1) << "leaf " << leaf;
                EXPECT_EQ(box.z1, want.z1) << "leaf " << leaf;
                EXPECT_EQ(box.minCode, want.minCode) << "leaf " << leaf;
                EXPECT_EQ(box.maxCode, want.maxCode) << "leaf " << leaf;
                small += (box.x1 - box.x0) * (box.z1 - box.z0) <
                         (node.x1() - node.x0) * (node.z1() - node.z0);
                reachingTheLastSample += box.x1 == 65536;
            }
        }
    }
    EXPECT_GT(small, 0) << "no hole box smaller than its leaf";
    EXPECT_GT(reachingTheLastSample, 0) << "no hole box at the wide map's east end";
}

}  // namespace
}  // namespace qt
