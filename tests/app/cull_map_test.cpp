// The --cull-map picture: each leaf in the colour of what happened to it, the frustum's lines
// clipped to the image.
#include "app/cull_map.h"

#include <gtest/gtest.h>

#include "core/synthetic.h"

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
    const Quadtree tree = buildQuadtree(map, 4).value();  // 8 x 8 leaves
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

}  // namespace
}  // namespace qt
