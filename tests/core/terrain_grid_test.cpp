// The vertex grid: world mapping, central-difference normals, leaf strip indices.
#include "core/terrain_grid.h"

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "core/synthetic.h"

namespace qt {
namespace {

Heightmap ramp(int width, int height, float slope) {
    std::vector<float> s(size_t(width) * size_t(height));
    for (int row = 0; row < height; ++row) {
        for (int col = 0; col < width; ++col) {
            s[size_t(row) * size_t(width) + size_t(col)] = float(col) * slope + 100.0f;
        }
    }
    return makeHeightmap(width, height, std::move(s)).value();
}

TEST(TerrainGrid, WorldMapping) {
    const Heightmap map = ramp(4, 3, 2.0f);
    const WorldMapping m{2.5f, 0.5f, -10.0f};
    const glm::vec3 p = vertexPosition(map, m, 3, 2);
    EXPECT_FLOAT_EQ(p.x, 7.5f);
    EXPECT_FLOAT_EQ(p.z, 5.0f);
    EXPECT_FLOAT_EQ(p.y, (106.0f) * 0.5f - 10.0f);
    EXPECT_EQ(vertexIndex(3, 2, 4), 11u);
}

TEST(TerrainGrid, NormalsFromCentralDifferences) {
    const Heightmap map = ramp(5, 5, 2.0f);
    const WorldMapping m{4.0f, 1.0f, 0.0f};
    // Height rises 2 per 4 units of x: normal is (-2, 4, 0) normalised, everywhere incl. borders.
    const glm::vec3 expected = glm::normalize(glm::vec3(-2.0f, 4.0f, 0.0f));
    for (int row = 0; row < 5; ++row) {
        for (int col = 0; col < 5; ++col) {
            const glm::vec3 n = vertexNormal(map, m, col, row);
            EXPECT_NEAR(n.x, expected.x, 1e-6f);
            EXPECT_NEAR(n.y, expected.y, 1e-6f);
            EXPECT_NEAR(n.z, 0.0f, 1e-6f);
        }
    }
    const Heightmap flat = flatHeightmap(3, 3);
    EXPECT_EQ(vertexNormal(flat, m, 1, 1), glm::vec3(0, 1, 0));
}

TEST(TerrainGrid, LeafStripsShareVerticesByIndex) {
    std::vector<uint32_t> idx;
    appendLeafStrips(2, 1, 4, 3, 10, 0xFFFFFFFFu, idx);
    // Two rows of squares -> two strips of (3 columns * 2) indices, each ended by a restart.
    const std::vector<uint32_t> expected = {12, 22, 13, 23, 14, 24, 0xFFFFFFFFu,
                                            22, 32, 23, 33, 24, 34, 0xFFFFFFFFu};
    EXPECT_EQ(idx, expected);
}

TEST(TerrainGrid, DefaultMappings) {
    Heightmap hgt = flatHeightmap(1201, 2);
    hgt.format = HeightmapFormat::Hgt;
    EXPECT_NEAR(defaultMapping(hgt).spacing, 92.61f, 0.01f);
    EXPECT_EQ(defaultMapping(hgt).heightScale, 1.0f);
    Heightmap png = flatHeightmap(1025, 1025);
    png.format = HeightmapFormat::Image16;
    EXPECT_EQ(defaultMapping(png).spacing, 1.0f);
    EXPECT_NEAR(defaultMapping(png).heightScale * 65535.0f, 128.0f, 1e-3f);
}

}  // namespace
}  // namespace qt
