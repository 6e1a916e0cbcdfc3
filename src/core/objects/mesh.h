// The meshes objects are drawn with, in unit shapes that the vertex shader scales into each
// object's box: a sphere (balls, and rocks flattened) and a tree (a trunk and a cone), each at
// a fine and a coarse level for objects far away. Every vertex lies in the unit shape's box,
// so a drawn object never leaves the box it is culled by.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

namespace qt {

struct MeshVertex {
    glm::vec3 position;
    glm::vec3 normal;  // unit, in the unit shape's space
    float material;    // 0: the kind's main colour; 1: a tree's trunk
};

struct Mesh {
    std::vector<MeshVertex> vertices;
    std::vector<uint16_t> indices;  // triangles, counter-clockwise seen from outside
};

// A sphere of radius 1 about the origin: an icosahedron subdivided `level` times (20 * 4^level
// triangles), its vertices on the sphere.
Mesh sphereMesh(int level);

// The unit tree: a trunk of radius kTrunkRadius from y = 0 up to kTrunkTop, and a cone from
// kConeBase (radius 1) up to its apex at y = 1.
constexpr float kTrunkRadius = 0.18f;
constexpr float kTrunkTop = 0.35f;
constexpr float kConeBase = 0.25f;

// The unit tree in the cylinder of radius 1 over y in [0, 1], trunk and cone each with
// `segments` sides, their corners on the round shapes.
Mesh treeMesh(int segments);

// The four meshes, in draw order: fine tree, coarse tree, fine sphere, coarse sphere.
enum class ObjectMesh : uint8_t { TreeFine, TreeCoarse, SphereFine, SphereCoarse };
constexpr int kObjectMeshes = 4;
Mesh objectMesh(ObjectMesh which);

}  // namespace qt
