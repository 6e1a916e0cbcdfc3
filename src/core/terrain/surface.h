// The drawn surface under a point: the height and upward normal of the same two triangles a grid
// square that the strips draw and picking tests, read in O(1) from the codes.
#pragma once

#include <optional>

#include <glm/vec3.hpp>

#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/sample_presence.h"
#include "core/terrain/world.h"

namespace qt {

// The drawn triangles of grid square (col, row): (a, b, c) and (b, d, c), a its north-west
// corner, b east of it, c south of it, d south-east; the diagonal b-c is the strip's. Corners at
// vertexPosition()'s floats, held in doubles.
struct GridSquare {
    glm::dvec3 a, b, c, d;
};
GridSquare gridSquare(const Heightmap& map, const WorldMapping& mapping, int col, int row);

// The grid square under world (x, z): its column and row (the last square for a point on the
// map's far edge) and the point in sample coordinates; none off the map, or for a point not a
// number.
struct SquareUnder {
    int col, row;
    double fx, fz;
};
std::optional<SquareUnder> squareUnder(const Heightmap& map, const WorldMapping& mapping, float x,
                                       float z);

// Height of the drawn surface (the same two triangles a square as pickTerrain) at world (x, z);
// none off the map. O(1): the ground under the eye for the camera's floor and ground-follow.
std::optional<float> surfaceHeight(const Heightmap& map, const WorldMapping& mapping, float x,
                                   float z);

// The ground under world (x, z) as far as the present samples tell (SamplePresence; none: every
// sample present): the drawn surface's height (surfaceHeight) where the square's four corners are
// present, `exact`; else the height of the highest sample of the tree's leaf holding the square,
// which the surface there never passes, so that a floor above it keeps the eye above the ground
// while the square's samples arrive. None off the map.
struct GroundBound {
    float height;
    bool exact;
};
std::optional<GroundBound> groundBound(const Heightmap& map, const Quadtree& tree,
                                       const WorldMapping& mapping, const SamplePresence* presence,
                                       float x, float z);

// The same surface's height and unit upward normal at world (x, z), points off the map taking
// the nearest point of its border: where objects stand and which way the balls roll.
struct SurfacePoint {
    float height;
    glm::vec3 normal;
};
SurfacePoint surfaceAt(const Heightmap& map, const WorldMapping& mapping, float x, float z);

}  // namespace qt
