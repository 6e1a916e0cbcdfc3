// The vertex grid: world mapping, central-difference normals, leaf strip indices.
#include "core/terrain_grid.h"

#include <array>

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

TEST(TerrainGrid, LeafStripSharesVerticesByIndex) {
    std::vector<uint32_t> idx;
    appendLeafStrip(2, 1, 4, 3, 10, idx);
    // Two rows of squares, (3 columns * 2) indices each, joined by the last index of the first
    // and the first of the second.
    const std::vector<uint32_t> expected = {12, 22, 13, 23, 14, 24, 24, 22, 22, 32, 23, 33, 24, 34};
    EXPECT_EQ(idx, expected);
}

// The triangles GL assembles from a strip, as (a, b, c) in the order it rasterises them: triangle
// i is (v[i], v[i+1], v[i+2]) for even i and (v[i+1], v[i], v[i+2]) for odd i (GL 3.3 core,
// section 2.6.1), so that all face the same way.
std::vector<std::array<uint32_t, 3>> stripTriangles(const std::vector<uint32_t>& v) {
    std::vector<std::array<uint32_t, 3>> out;
    for (size_t i = 0; i + 2 < v.size(); ++i) {
        if (i % 2 == 0) {
            out.push_back({v[i], v[i + 1], v[i + 2]});
        } else {
            out.push_back({v[i + 1], v[i], v[i + 2]});
        }
    }
    return out;
}

// The joined strip draws exactly the triangles of one strip per row, in the same order, each with
// its vertices in the same order (so facing and interpolation are the same); the rest repeat a
// vertex, which gives them no area.
TEST(TerrainGrid, LeafStripIsTheRowsStripsJoinedByTrianglesWithoutArea) {
    for (const int cols : {1, 2, 3, 4, 64}) {
        for (const int rows : {1, 2, 3, 4, 64}) {
            const int width = cols + 3;
            std::vector<uint32_t> joined;
            appendLeafStrip(1, 2, 1 + cols, 2 + rows, width, joined);
            std::vector<std::array<uint32_t, 3>> expected;
            for (int row = 2; row < 2 + rows; ++row) {
                std::vector<uint32_t> strip;
                for (int col = 1; col <= 1 + cols; ++col) {
                    strip.push_back(uint32_t(row * width + col));
                    strip.push_back(uint32_t((row + 1) * width + col));
                }
                for (const auto& t : stripTriangles(strip)) {
                    expected.push_back(t);
                }
            }
            std::vector<std::array<uint32_t, 3>> drawn;
            size_t withoutArea = 0;
            for (const auto& t : stripTriangles(joined)) {
                if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) {
                    ++withoutArea;
                } else {
                    drawn.push_back(t);
                }
            }
            EXPECT_EQ(drawn, expected) << cols << " x " << rows;
            EXPECT_EQ(drawn.size(), size_t(2 * cols * rows));
            EXPECT_EQ(withoutArea, size_t(4 * (rows - 1))) << cols << " x " << rows;
        }
    }
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
