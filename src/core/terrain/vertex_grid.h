// The indexed vertex grid: one vertex per sample, its position and normal, and leaf strip indices.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"

namespace qt {

// Vertex v of the grid is sample (v % width, v / width).
inline uint32_t vertexIndex(int col, int row, int width) {
    return uint32_t(row) * uint32_t(width) + uint32_t(col);
}

glm::vec3 vertexPosition(const Heightmap& map, const WorldMapping& mapping, int col, int row);

// Unit normal from central differences of the neighbours (one-sided on the border).
glm::vec3 vertexNormal(const Heightmap& map, const WorldMapping& mapping, int col, int row);

// Appends the indices of one triangle strip over the leaf's grid squares, which cover samples
// [col0, col1] x [row0, row1]: two triangles a square with the diagonal (c, r + 1)-(c + 1, r),
// the rows in turn, every other one from east to west (bottom vertex first, which keeps the
// diagonal), so that each row starts beside where the last one ended. The rows are joined by
// repeating the last index of one and the first of the next: four triangles with a repeated
// vertex, which have no area, whose edges are grid edges (no stray line in wireframe), and which
// keep every triangle facing the same way (a row has an even number of indices): up, in GL's
// winding (a triangle's normal cross(b - a, c - a) has y > 0, x being the column and z the row),
// so seen from above every triangle is counter-clockwise on screen, GL's front face. No restart
// index: Mesa's draw module runs its vertex pipeline once per restart segment, which for rows of
// four squares costs llvmpipe about a third of a frame.
void appendLeafStrip(int col0, int row0, int col1, int row1, int width, std::vector<uint32_t>& out);

}  // namespace qt
