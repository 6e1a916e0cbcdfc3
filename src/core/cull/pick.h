// Picking: the first point of the terrain's triangles along a ray, found by a front-to-back walk
// of the culling quadtree (node boxes, then the exact triangles of the leaves it reaches), and the
// brute-force test of every triangle that it must equal.
#pragma once

#include <cstdint>

#include <glm/vec3.hpp>

#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/vertex_grid.h"
#include "core/view/camera.h"

namespace qt {

struct PickRay {
    glm::vec3 origin{0.0f};
    glm::vec3 direction{0.0f, 0.0f, 1.0f};  // any length but zero
};

// The ray through a window pixel (origin top-left, pixel centres at +0.5) of a camera drawing a
// viewport width x height pixels: from the eye, along the pixel's line of sight.
PickRay pixelRay(const Camera& camera, float pixelX, float pixelY, int width, int height);

struct PickHit {
    bool hit = false;
    double t = 0.0;             // distance along the ray in units of its direction's length
    glm::vec3 world{0.0f};      // the point hit
    int col = 0, row = 0;       // the sample nearest the point hit
    uint32_t triangle = 0;      // 2 (row * (width - 1) + col) + k of the square (col, row) hit
    uint32_t leavesTested = 0;  // leaves whose triangles were tested
    uint32_t nodesTested = 0;   // nodes whose box met the ray test
};

// The first triangle the ray meets, from either side, at t >= 0: the least t, and among equal
// t the lowest triangle number. Triangles are the drawn ones: two a grid square, split by the
// diagonal (col, row + 1)-(col + 1, row), at vertexPosition()'s float positions. The map's codes
// must be present. Visits nodes nearest first and stops at a node farther than the best hit.
PickHit pickTerrain(const Heightmap& map, const Quadtree& tree, const WorldMapping& mapping,
                    const PickRay& ray);

// Every triangle of the map, the reference pickTerrain must equal (leavesTested counts them all).
PickHit pickBruteForce(const Heightmap& map, const WorldMapping& mapping, const PickRay& ray);

}  // namespace qt
