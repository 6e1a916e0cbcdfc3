// The drawn surface under a point: the two triangles a grid square as the strips draw them, the
// height and normal there (the camera's floor, ground-follow, where objects stand and roll).
#include "core/terrain/surface.h"

#include <algorithm>

#include <glm/geometric.hpp>

#include "core/terrain/vertex_grid.h"

namespace qt {

GridSquare gridSquare(const Heightmap& map, const WorldMapping& mapping, int col, int row) {
    return {glm::dvec3(vertexPosition(map, mapping, col, row)),
            glm::dvec3(vertexPosition(map, mapping, col + 1, row)),
            glm::dvec3(vertexPosition(map, mapping, col, row + 1)),
            glm::dvec3(vertexPosition(map, mapping, col + 1, row + 1))};
}

namespace {

// The drawn triangle under sample coordinates (fx, fz) on the map: its height there and its
// (unnormalised) upward normal, from its slopes per column (dx) and per row (dz). (A, B, C) below
// the diagonal B-C, (B, D, C) beyond it: planes through their corners.
SurfacePoint triangleAt(const Heightmap& map, const WorldMapping& mapping, double fx, double fz) {
    const int col = std::min(int(fx), map.width - 2);
    const int row = std::min(int(fz), map.height - 2);
    const GridSquare s = gridSquare(map, mapping, col, row);
    const double u = fx - col, v = fz - row;
    const double sx = mapping.spacingX, sz = mapping.spacingZ;
    if (u + v <= 1.0) {
        const double dx = s.b.y - s.a.y, dz = s.c.y - s.a.y;
        return {float(s.a.y + dx * u + dz * v),
                glm::vec3(float(-dx * sz), float(sx * sz), float(-dz * sx))};
    }
    const double dx = s.d.y - s.c.y, dz = s.d.y - s.b.y;
    return {float(s.d.y + (s.c.y - s.d.y) * (1.0 - u) + (s.b.y - s.d.y) * (1.0 - v)),
            glm::vec3(float(-dx * sz), float(sx * sz), float(-dz * sx))};
}

}  // namespace

std::optional<SquareUnder> squareUnder(const Heightmap& map, const WorldMapping& mapping, float x,
                                       float z) {
    const double fx = double(x) / double(mapping.spacingX);
    const double fz = double(z) / double(mapping.spacingZ);
    if (!(fx >= 0.0 && fz >= 0.0 && fx <= double(map.width - 1) && fz <= double(map.height - 1))) {
        return std::nullopt;  // off the map, or not a number
    }
    return SquareUnder{std::min(int(fx), map.width - 2), std::min(int(fz), map.height - 2), fx, fz};
}

std::optional<float> surfaceHeight(const Heightmap& map, const WorldMapping& mapping, float x,
                                   float z) {
    const std::optional<SquareUnder> at = squareUnder(map, mapping, x, z);
    if (!at) {
        return std::nullopt;
    }
    return triangleAt(map, mapping, at->fx, at->fz).height;
}

std::optional<GroundBound> groundBound(const Heightmap& map, const Quadtree& tree,
                                       const WorldMapping& mapping, const SamplePresence* presence,
                                       float x, float z) {
    const std::optional<SquareUnder> at = squareUnder(map, mapping, x, z);
    if (!at) {
        return std::nullopt;
    }
    const int col = at->col, row = at->row;
    if (presence == nullptr || presence->present(col, row, col + 1, row + 1)) {
        return GroundBound{triangleAt(map, mapping, at->fx, at->fz).height, true};
    }
    // The leaf's box holds the square's corners; its codes bound theirs, and the triangles'
    // heights lie between their corners' (either sign of heightScale: the larger end).
    const CodeRange leaf =
        tree.leafCodes[tree.leafIndexAt(col >> tree.leafShift, row >> tree.leafShift)];
    const float low = mapping.worldHeight(tree.coding.sample(leaf.minCode));
    const float high = mapping.worldHeight(tree.coding.sample(leaf.maxCode));
    return GroundBound{std::max(low, high), false};
}

SurfacePoint surfaceAt(const Heightmap& map, const WorldMapping& mapping, float x, float z) {
    const double fx = std::clamp(double(x) / double(mapping.spacingX), 0.0, double(map.width - 1));
    const double fz = std::clamp(double(z) / double(mapping.spacingZ), 0.0, double(map.height - 1));
    SurfacePoint p = triangleAt(map, mapping, fx, fz);
    p.normal = glm::normalize(p.normal);
    return p;
}

}  // namespace qt
