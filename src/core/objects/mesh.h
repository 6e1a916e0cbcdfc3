// The meshes objects are drawn with, in unit shapes that the vertex shader scales into each
// object's box: a sphere (balls, and rocks flattened) and a tree (a trunk and a cone), each as a
// fine mesh and, for objects small on screen, as an impostor: a quad the vertex shader turns to
// face the eye over the object's bounding sphere, on which the fragment shader finds the same
// round shape by a ray cast (shaders/objects.frag). Every mesh vertex lies in the unit shape's
// box, and every impostor fragment drawn on the shape inside it, so a drawn object never leaves
// the box it is culled by.
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

// The quad an impostor is drawn on: corners (+-1, +-1, 0), two triangles.
Mesh impostorQuad();

// The four meshes, in draw order: fine tree, tree impostor, fine sphere, sphere impostor.
enum class ObjectMesh : uint8_t { TreeFine, TreeImpostor, SphereFine, SphereImpostor };
constexpr int kObjectMeshes = 4;
Mesh objectMesh(ObjectMesh which);
bool isImpostor(ObjectMesh which);

// The triangles an object takes as the coarse meshes of a fixed low level (a tree of 4 sides, an
// icosahedron) that impostors replace: what the impostors' triangles are compared with
// (meshOnlyTriangles).
constexpr int kCoarseTreeTriangles = 16;    // treeMesh(4)
constexpr int kCoarseSphereTriangles = 20;  // sphereMesh(0)

}  // namespace qt
