// The indexed vertex grid: positions, central-difference normals, leaf triangle strips.
#include "core/terrain/vertex_grid.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

namespace qt {

glm::vec3 vertexPosition(const Heightmap& map, const WorldMapping& mapping, int col, int row) {
    const HeightTransform height = heightTransform(map.coding, mapping);
    return {float(col) * mapping.spacingX, height.worldHeight(float(map.codeAt(col, row))),
            float(row) * mapping.spacingZ};
}

glm::vec3 vertexNormal(const Heightmap& map, const WorldMapping& mapping, int col, int row) {
    const int c0 = std::max(col - 1, 0);
    const int c1 = std::min(col + 1, map.width - 1);
    const int r0 = std::max(row - 1, 0);
    const int r1 = std::min(row + 1, map.height - 1);
    const float scale = heightTransform(map.coding, mapping).scale;
    const float dx = (float(map.codeAt(c1, row)) - float(map.codeAt(c0, row))) * scale;
    const float dz = (float(map.codeAt(col, r1)) - float(map.codeAt(col, r0))) * scale;
    // Tangents (sx, dx, 0) and (0, dz, sz); their cross product, scaled by 1 / (sx sz).
    const float sx = float(c1 - c0) * mapping.spacingX;
    const float sz = float(r1 - r0) * mapping.spacingZ;
    return glm::normalize(glm::vec3(-dx * sz, sx * sz, -dz * sx));
}

void appendLeafStrip(int col0, int row0, int col1, int row1, int width,
                     std::vector<uint32_t>& out) {
    for (int row = row0; row < row1; ++row) {
        // Vertex `side` (0 first) of the row's k-th column pair: every other row east to west,
        // bottom vertex first, which keeps the diagonal.
        const bool back = (row - row0) % 2 == 1;
        const auto vertex = [&](int k, int side) {
            return back ? vertexIndex(col1 - k, row + 1 - side, width)
                        : vertexIndex(col0 + k, row + side, width);
        };
        if (row > row0) {
            const uint32_t last = out.back();
            out.push_back(last);
            out.push_back(vertex(0, 0));
        }
        for (int k = 0; k <= col1 - col0; ++k) {
            out.push_back(vertex(k, 0));
            out.push_back(vertex(k, 1));
        }
    }
}

}  // namespace qt
