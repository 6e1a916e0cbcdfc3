// The vertex grid: world mapping, central-difference normals, leaf strip indices.
#include "core/terrain/vertex_grid.h"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "core/terrain/synthetic.h"

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

TEST(TerrainGrid, WorldMappingWithRectangularCells) {
    const Heightmap map = ramp(4, 3, 2.0f);
    const WorldMapping m{2.5f, 4.0f, 0.5f, -10.0f};
    const glm::vec3 p = vertexPosition(map, m, 3, 2);
    EXPECT_FLOAT_EQ(p.x, 7.5f);
    EXPECT_FLOAT_EQ(p.z, 8.0f);
    const WorldExtent e = worldExtent(map, m);
    EXPECT_FLOAT_EQ(e.sizeX, 7.5f);
    EXPECT_FLOAT_EQ(e.sizeZ, 8.0f);
    // A slope along the rows: rises 2 per row of 4 units, so the normal leans back by (0, 4, -2).
    std::vector<float> rows(25);
    for (size_t i = 0; i < rows.size(); ++i) {
        rows[i] = float(i / 5) * 2.0f;
    }
    const Heightmap tilted = makeHeightmap(5, 5, rows).value();
    const glm::vec3 n = vertexNormal(tilted, {0.5f, 4.0f, 1.0f, 0.0f}, 2, 2);
    const glm::vec3 expected = glm::normalize(glm::vec3(0.0f, 4.0f, -2.0f));
    EXPECT_NEAR(n.x, expected.x, 1e-6f);
    EXPECT_NEAR(n.y, expected.y, 1e-6f);
    EXPECT_NEAR(n.z, expected.z, 1e-6f);
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
    // Two rows of squares, (3 columns * 2) indices each, the second from east to west with its
    // bottom vertex first, joined by the last index of the first row and the first of the second.
    const std::vector<uint32_t> expected = {12, 22, 13, 23, 14, 24, 24, 34, 34, 24, 33, 23, 32, 22};
    EXPECT_EQ(idx, expected);
}

using Triangle = std::array<uint32_t, 3>;

// The triangles GL assembles from a strip, in the order it rasterises them: triangle i is
// (v[i], v[i+1], v[i+2]) for even i and (v[i+1], v[i], v[i+2]) for odd i (GL 3.3 core, section
// 2.6.1), so that all face the same way.
std::vector<Triangle> stripTriangles(const std::vector<uint32_t>& v) {
    std::vector<Triangle> out;
    for (size_t i = 0; i + 2 < v.size(); ++i) {
        if (i % 2 == 0) {
            out.push_back({v[i], v[i + 1], v[i + 2]});
        } else {
            out.push_back({v[i + 1], v[i], v[i + 2]});
        }
    }
    return out;
}

// The strip draws each of the leaf's triangles (diagonal (c, r + 1)-(c + 1, r)) exactly once,
// all facing up (the renderer culls the faces that do not face the eye); the others repeat a
// vertex, so have no area, and draw no edge that is not the grid's (wireframe shows no stray line).
TEST(TerrainGrid, LeafStripDrawsEveryTriangleOnceAndNoStrayEdge) {
    for (const int cols : {1, 2, 3, 4, 64}) {
        for (const int rows : {1, 2, 3, 4, 5, 64}) {
            const int col0 = 1, row0 = 2, width = cols + 3;
            const auto id = [&](int c, int r) { return uint32_t(r * width + c); };
            std::vector<Triangle> expected;
            std::set<std::pair<uint32_t, uint32_t>> gridEdges;
            for (int r = row0; r < row0 + rows; ++r) {
                for (int c = col0; c < col0 + cols; ++c) {
                    for (Triangle t : {Triangle{id(c, r), id(c, r + 1), id(c + 1, r)},
                                       Triangle{id(c + 1, r), id(c, r + 1), id(c + 1, r + 1)}}) {
                        std::sort(t.begin(), t.end());
                        expected.push_back(t);
                    }
                    gridEdges.insert({id(c, r), id(c + 1, r)});
                    gridEdges.insert({id(c, r), id(c, r + 1)});
                    gridEdges.insert({id(c + 1, r), id(c, r + 1)});
                    gridEdges.insert({id(c, r + 1), id(c + 1, r + 1)});
                    gridEdges.insert({id(c + 1, r), id(c + 1, r + 1)});
                }
            }
            std::vector<uint32_t> strip;
            appendLeafStrip(col0, row0, col0 + cols, row0 + rows, width, strip);
            std::vector<Triangle> drawn;
            size_t withoutArea = 0;
            for (const Triangle& t : stripTriangles(strip)) {
                for (int k = 0; k < 3; ++k) {
                    const uint32_t a = std::min(t[k], t[(k + 1) % 3]);
                    const uint32_t b = std::max(t[k], t[(k + 1) % 3]);
                    EXPECT_TRUE(a == b || gridEdges.count({a, b}) == 1)
                        << cols << " x " << rows << ": stray edge " << a << "-" << b;
                }
                if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) {
                    ++withoutArea;
                    continue;
                }
                // The y of the world normal cross(b - a, c - a), x the column and z the row: up.
                const auto x = [&](uint32_t v) { return int(v % uint32_t(width)); };
                const auto z = [&](uint32_t v) { return int(v / uint32_t(width)); };
                const int normalY = (z(t[1]) - z(t[0])) * (x(t[2]) - x(t[0])) -
                                    (x(t[1]) - x(t[0])) * (z(t[2]) - z(t[0]));
                EXPECT_GT(normalY, 0) << cols << " x " << rows;
                Triangle sorted = t;
                std::sort(sorted.begin(), sorted.end());
                drawn.push_back(sorted);
            }
            std::sort(expected.begin(), expected.end());
            std::sort(drawn.begin(), drawn.end());
            EXPECT_EQ(drawn, expected) << cols << " x " << rows;
            EXPECT_EQ(withoutArea, size_t(4 * (rows - 1))) << cols << " x " << rows;
        }
    }
}

TEST(TerrainGrid, DefaultMappings) {
    Heightmap hgt = flatHeightmap(1201, 2);
    hgt.format = HeightmapFormat::Hgt;
    EXPECT_NEAR(defaultMapping(hgt).spacingX, 92.61f, 0.01f);
    EXPECT_NEAR(defaultMapping(hgt).spacingZ, 92.61f, 0.01f);
    EXPECT_EQ(defaultMapping(hgt).heightScale, 1.0f);
    // Named by its corner: metres per degree at 47.5 N on each axis (3 arc-seconds a sample).
    hgt.geo = hgtGeoreference("/maps/N47E009.hgt", 1201);
    hgt.metres = true;
    const MetresPerDegree m = metresPerDegree(47.5);
    EXPECT_NEAR(defaultMapping(hgt).spacingX, m.eastWest / 1200.0, 1e-3);
    EXPECT_NEAR(defaultMapping(hgt).spacingZ, m.northSouth / 1200.0, 1e-3);
    EXPECT_NEAR(defaultMapping(hgt).spacingX, 62.8, 0.1);
    EXPECT_NEAR(defaultMapping(hgt).spacingZ, 92.6, 0.1);
    EXPECT_FALSE(hgtGeoreference("/maps/tile.hgt", 1201).present);
    EXPECT_FALSE(hgtGeoreference("/maps/N47E009x.hgt", 1201).present);
    EXPECT_TRUE(hgtGeoreference("s12w077.hgt", 3601).present);
    EXPECT_DOUBLE_EQ(hgtGeoreference("s12w077.hgt", 3601).west, -77.0 - 0.5 / 3600.0);
    // Unitless samples: their own range, not the format's, spans an eighth of the longer side.
    std::vector<float> samples(size_t(1025) * 513, 200.0f);
    samples.back() = 1000.0f;
    const Heightmap png = makeHeightmap(1025, 513, samples).value();
    EXPECT_EQ(defaultMapping(png).spacingX, 1.0f);
    EXPECT_EQ(defaultMapping(png).spacingZ, 1.0f);
    EXPECT_NEAR(defaultMapping(png).heightScale * 800.0f, 128.0f, 1e-3f);
}

TEST(TerrainGrid, CheckWorldFiniteNamesTheOption) {
    // A 1025 x 1025 map of 16-bit samples from 0 to 65535.
    std::vector<float> samples(size_t(1025) * 1025, 0.0f);
    samples.back() = 65535.0f;
    const Heightmap map = makeHeightmap(1025, 1025, samples).value();
    WorldMapping ok;
    EXPECT_TRUE(checkWorldFinite(map, ok).ok());
    auto with = [](float spacing, float scale, float offset) {
        WorldMapping m;
        m.spacingX = m.spacingZ = spacing;
        m.heightScale = scale;
        m.heightOffset = offset;
        return m;
    };
    EXPECT_EQ(checkWorldFinite(map, with(1e20f, 1, 0)).error(),
              "--spacing 1e+20 makes the map 1.024e+23 world units wide, over the limit of 1e+09");
    EXPECT_EQ(checkWorldFinite(map, with(1e-9f, 1, 0)).error(),
              "--spacing 1e-09 is below the least spacing of 1e-06");
    EXPECT_TRUE(checkWorldFinite(map, with(1e-6f, 1, 0)).ok());
    EXPECT_TRUE(checkWorldFinite(map, with(976562.0f, 1, 0)).ok());  // 999,999,488 wide
    EXPECT_EQ(checkWorldFinite(map, with(1, 1e38f, 0)).error(),
              "--height-scale 1e+38 makes heights reach 6.5535e+42 world units, over the limit of "
              "1e+09");
    EXPECT_EQ(checkWorldFinite(map, with(1, -1e5f, 0)).error(),
              "--height-scale -100000 makes heights reach 6.5535e+09 world units, over the limit "
              "of 1e+09");
    EXPECT_EQ(checkWorldFinite(map, with(1, 1, 3e38f)).error(),
              "--height-offset 3e+38 makes heights reach 3e+38 world units, over the limit of "
              "1e+09");
    // Each part fits; their sum does not.
    EXPECT_EQ(checkWorldFinite(map, with(1, 15000, 9e8f)).error(),
              "--height-offset 9e+08 makes heights reach 1.88302e+09 world units, over the limit "
              "of 1e+09");
    EXPECT_TRUE(checkWorldFinite(map, with(1, 15000, -9e8f)).ok());
    // A map whose samples alone are far from zero: the scale applies to them, not to the range.
    const Heightmap high = makeHeightmap(2, 2, {5e8f, 5e8f, 5e8f, 6e8f}).value();
    EXPECT_TRUE(checkWorldFinite(high, ok).ok());
    EXPECT_FALSE(checkWorldFinite(high, with(1, 2, 0)).ok());
    EXPECT_FALSE(makeHeightmap(2, 2, {0, 0, 0, 2e9f}).ok());
}

}  // namespace
}  // namespace qt
