// The --cull-map picture: each leaf in the colour of what happened to it, the frustum's lines
// clipped to the image.
#include "app/cull_map.h"

#include <algorithm>
#include <cstdio>

#include <gtest/gtest.h>

#include "core/lod/lod_error.h"
#include "core/terrain/synthetic.h"

namespace qt {
namespace {

// The colour at the centre of leaf (col, row) for a tree small enough to get whole pixels per leaf.
std::array<uint8_t, 3> leafColour(const RgbImage& image, const Quadtree& tree, LeafCoord leaf) {
    const int perLeaf = 512 / std::max(tree.leavesX, tree.leavesZ);
    const int margin = (perLeaf * std::max(tree.leavesX, tree.leavesZ)) / 8 + 2;
    const int x = margin + leaf.col * perLeaf + perLeaf / 2;
    const int y = margin + leaf.row * perLeaf + perLeaf / 2;
    const uint8_t* p = &image.rgb[(size_t(y) * size_t(image.width) + size_t(x)) * 3];
    return {p[0], p[1], p[2]};
}

std::array<uint8_t, 3> colour(const uint8_t (&c)[3]) {
    return {c[0], c[1], c[2]};
}

TEST(CullMap, DrawnOccludedAndCulledLeavesInTheirColours) {
    const Heightmap map = syntheticHeightmap(33, 33, 4);
    const Quadtree tree = buildQuadtreeExact(map, 4).value();  // 8 x 8 leaves
    const WorldMapping mapping = defaultMapping(map);
    // In the frustum: tree-order leaves 0..29 and 40..43; drawn: 0..9 and 42.
    const std::vector<LeafRange> inFrustum = {{0, 30}, {40, 4}};
    const std::vector<LeafRange> drawn = {{0, 10}, {42, 1}};
    // Frustum corners and eye far off the picture: nothing drawn over the leaves.
    std::array<glm::vec3, 8> corners;
    corners.fill(glm::vec3(-1e7f, 0.0f, -1e7f));
    const RgbImage image = cullMapImage(tree, mapping, inFrustum, drawn, corners, corners[0]);
    ASSERT_EQ(image.rgb.size(), size_t(image.width) * size_t(image.height) * 3);
    int counts[3] = {0, 0, 0};
    for (uint32_t i = 0; i < tree.leaves.size(); ++i) {
        const bool isDrawn = i < 10 || i == 42;
        const bool isOccluded = !isDrawn && (i < 30 || (i >= 40 && i < 44));
        const auto expected = colour(isDrawn ? kMapDrawn : isOccluded ? kMapOccluded : kMapCulled);
        EXPECT_EQ(leafColour(image, tree, tree.leaves[i]), expected) << "leaf " << i;
        ++counts[isDrawn ? 0 : isOccluded ? 1 : 2];
    }
    EXPECT_EQ(counts[0], 11);
    EXPECT_EQ(counts[1], 23);
    EXPECT_EQ(counts[2], 30);
}

// The minimap's cells cover exactly the accepted nodes' leaves, each cell wholly drawn or wholly
// occluded as the runs say (no merging at minSide 0), and merge below minSide.
TEST(CullMap, MinimapCellsSplitAcceptedNodesByTheDrawnRuns) {
    const Quadtree tree = buildQuadtreeExact(syntheticHeightmap(65, 49, 4), 4).value();  // 16 x 12
    const uint32_t leaves = uint32_t(tree.leaves.size());
    // Accepted: the root's children (they tile every leaf); drawn: three runs.
    std::vector<uint32_t> accepted;
    for (int q = 0; q < 4; ++q) {
        if (tree.root().hasChild(q)) {
            accepted.push_back(tree.root().child(q));
        }
    }
    const std::vector<LeafRange> drawn = {{3, 17}, {64, 64}, {150, 1}};
    std::vector<MapCell> cells;
    minimapCells(tree, accepted, drawn, 0, cells);
    std::vector<int> seen(leaves, 0);
    for (const MapCell& cell : cells) {
        const QuadtreeNode& node = tree.nodes[cell.node];
        const uint32_t first = tree.firstLeaf(node);
        for (uint32_t leaf = first; leaf < first + tree.leafCount(node); ++leaf) {
            ++seen[leaf];
            const bool isDrawn =
                (leaf >= 3 && leaf < 20) || (leaf >= 64 && leaf < 128) || leaf == 150;
            ASSERT_EQ(cell.drawn, isDrawn) << "leaf " << leaf;
        }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), int(leaves));
    // The run of 64 is one node's subtree: one cell, not 64.
    EXPECT_LT(cells.size(), 40u);
    // Nodes of 16 samples (4 x 4 leaves) and less stay whole: drawn if any leaf is.
    std::vector<MapCell> coarse;
    minimapCells(tree, accepted, drawn, 16, coarse);
    EXPECT_LT(coarse.size(), cells.size());
    for (const MapCell& cell : coarse) {
        const QuadtreeNode& node = tree.nodes[cell.node];
        EXPECT_GE(std::max(node.x1() - node.x0, node.z1() - node.z0), 4);
    }
}

TEST(CullMap, WriteErrorsAreOneLineNamingThePath) {
    const std::vector<uint8_t> pixels(4 * 4 * 3, 128);
    // A full device takes the open but fails the write (or the flush, for small buffers).
    EXPECT_EQ(writePng("/dev/full", 4, 4, 3, pixels.data()).error(),
              "/dev/full: cannot write the file (No space left on device)");
    EXPECT_EQ(writeFile("/dev/full", "x", 1).error(),
              "/dev/full: cannot write the file (No space left on device)");
    EXPECT_EQ(writeFile("/nonexistent-dir/a\nb.png", "x", 1).error(),
              "/nonexistent-dir/a\\x0ab.png: cannot create the file (No such file or directory)");
    const std::string path = ::testing::TempDir() + "qt_write_test.png";
    ASSERT_TRUE(writePng(path, 4, 4, 3, pixels.data()).ok());
    std::FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    unsigned char signature[8] = {};
    EXPECT_EQ(std::fread(signature, 1, 8, f), 8u);
    std::fclose(f);
    std::remove(path.c_str());
    EXPECT_EQ(signature[1], 'P');
}

}  // namespace
}  // namespace qt
