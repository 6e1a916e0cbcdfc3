// Picking: the first point of the terrain's triangles along a ray, found by a front-to-back walk
// of the culling quadtree (node boxes, then the exact triangles of the leaves it reaches), and the
// brute-force test of every triangle that it must equal.
#pragma once

#include <cstdint>

#include <glm/vec3.hpp>

#include "core/base/result.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/sample_presence.h"
#include "core/terrain/vertex_grid.h"
#include "core/view/camera.h"

namespace qt {

struct PickRay {
    glm::vec3 origin{0.0f};
    glm::vec3 direction{0.0f, 0.0f, 1.0f};  // any length but zero
    // Only the triangles facing the ray (met from above: every drawn triangle faces up), as the
    // renderer draws the terrain when drawsFrontFacesOnly() holds (core/cull/occlusion.h); else
    // from either side.
    bool frontFacesOnly = false;
};

// The ray through a window pixel (origin top-left, pixel centres at +0.5) of a camera drawing a
// viewport width x height pixels: from the eye, along the pixel's line of sight.
PickRay pixelRay(const Camera& camera, float pixelX, float pixelY, int width, int height);

struct PickHit {
    bool hit = false;
    double t = 0.0;         // distance along the ray in units of its direction's length
    glm::vec3 world{0.0f};  // the point hit
    int col = 0, row = 0;   // the sample nearest the point hit
    // 2 (row * (width - 1) + col) + k of the square (col, row) hit: up to 2^33 on a map kMaxSide
    // a side.
    uint64_t triangle = 0;
    uint64_t leavesTested = 0;  // leaves whose triangles were tested (the brute force: triangles)
    uint32_t nodesTested = 0;   // nodes whose box met the ray test
    // With a SamplePresence (pickTerrain's `presence`): the ray meets a leaf whose samples are not
    // all present no farther than its first present hit, so the first hit is not known (`hit`
    // false). The nearest such leaf's sample box, columns [absentX0, absentX1] and rows
    // [absentZ0, absentZ1], is the one to ask for.
    bool arriving = false;
    int absentX0 = 0, absentZ0 = 0, absentX1 = 0, absentZ1 = 0;
};

// The first triangle the ray meets, from either side (or from above: ray.frontFacesOnly), at t >=
// 0: the least t, and among equal
// t the lowest triangle number. Triangles are the drawn ones: two a grid square, split by the
// diagonal (col, row + 1)-(col + 1, row), at vertexPosition()'s float positions. The map's codes
// must be present, or `presence` say which are: a leaf not all present is not tested, and a hit
// beyond where the ray enters its box is not taken as the first (PickHit::arriving). Visits nodes
// nearest first and stops at a node farther than the best hit.
PickHit pickTerrain(const Heightmap& map, const Quadtree& tree, const WorldMapping& mapping,
                    const PickRay& ray, const SamplePresence* presence = nullptr);

// pickTerrain on a map whose samples arrive as they are asked for: the leaves it meets before its
// first hit made present (presence.ensure) until the hit is known, so that it is pickTerrain's on
// the map held whole. The first failure's line when a leaf's samples cannot be read. Blocks while
// they are read: for a pick a user asked for, not the one a frame makes.
Result<PickHit> pickPresent(const Heightmap& map, const Quadtree& tree, const WorldMapping& mapping,
                            const PickRay& ray, const SamplePresence& presence);

// Every triangle of the map, the reference pickTerrain must equal (leavesTested counts them all).
PickHit pickBruteForce(const Heightmap& map, const WorldMapping& mapping, const PickRay& ray);

}  // namespace qt
