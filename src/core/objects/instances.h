// The drawn objects as the renderer uploads them, grouped by mesh: the static ones (trees and
// rocks) as their ids alone, 4 bytes each, their records read on the GPU from a copy uploaded
// once (ObjectRecordTexels); the moving ones, whose records change every step, as whole 24-byte
// instances. Each object's unit mesh is chosen by its size on screen. GL-free, so that the object
// frame bench counts it among the objects' CPU stages.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/objects/loose_tree.h"
#include "core/objects/mesh.h"
#include "core/objects/scene.h"
#include "core/view/camera.h"

namespace qt {

// One object as the vertex shader reads it: the unit mesh scaled by (radius, height, radius)
// and moved to base; look: its kind in bits 0-7, bit 8 when selected.
struct ObjectInstance {
    float x, y, z;
    float radius;
    float height;
    uint32_t look;
};
static_assert(sizeof(ObjectInstance) == 24, "the instance layout the shader reads");

constexpr uint32_t kSelectedLook = 0x100;
// A static object's id as uploaded: bit 31 when selected (ids stay below kMaxObjects).
constexpr uint32_t kSelectedId = 0x80000000u;

// Objects whose radius spans fewer pixels than this on screen take the coarse meshes.
constexpr float kCoarseObjectPixels = 6.0f;

// Each object's mesh: coarse when max(radius, height) spans fewer than kCoarseObjectPixels,
// that is when (size * coarseBeyond)^2 < |base - eye|^2, for the camera's coarseBeyond.
struct MeshChoice {
    glm::vec3 eye{0.0f};
    float coarseBeyond = 0.0f;  // distance, per unit of size, past which the coarse mesh is used

    MeshChoice(const Camera& camera, int viewportHeight);
    bool coarse(float size, const glm::vec3& base) const {
        const glm::vec3 d = base - eye;
        return size * coarseBeyond * size * coarseBeyond < glm::dot(d, d);
    }
};

ObjectMesh meshOf(ObjectKind kind, bool coarse);
static_assert(int(ObjectMesh::TreeFine) == 0 && int(ObjectMesh::TreeCoarse) == 1 &&
                  int(ObjectMesh::SphereFine) == 2 && int(ObjectMesh::SphereCoarse) == 3,
              "buildObjectInstances computes a static object's mesh as 2 * rock + coarse");

// A frame's instances, each mesh's in the drawn list's order, so that a culled frame's are a
// subsequence of the unculled frame's (LooseObjectTree::allInTreeOrder) and objects meeting at
// equal depth win the same pixels in both: the static objects' ids, idCounts[m] of mesh m from
// ids(m); the whole instances, counts[0] of mesh 0 first in `sorted`, then counts[1] of mesh 1,
// and so on.
struct ObjectInstances {
    std::array<uint32_t, kObjectMeshes> idCounts{};
    uint32_t recordsRead = 0;  // static objects whose mesh their group left to their record
    std::vector<ObjectInstance> sorted;
    std::array<uint32_t, kObjectMeshes> counts{};
    // Scratch: the ids of those drawn whole (kSelectedId marking the selected), and, in that
    // order, their instances and meshes.
    std::vector<uint32_t> wholeIds;
    std::vector<ObjectInstance> unsorted;
    std::vector<uint8_t> meshOf;

    // kObjectMeshes runs of idStride ids, mesh m's from m * idStride; left uninitialised, so that
    // only the pages a frame writes become resident.
    std::unique_ptr<uint32_t[]> idSpace;
    size_t idStride = 0;

    const uint32_t* ids(int mesh) const { return idSpace.get() + size_t(mesh) * idStride; }
    // Room for `count` objects, so that no frame allocates.
    void reserve(uint32_t count);
};

// Fills `out` with `drawn` (ids of `scene`), `selected` (per id, may be empty) marked, the mesh of
// each by its size in pixels seen from `camera` in a viewport `viewportHeight` pixels high (a
// static object's kind from its id's range). `groups` (may be null or empty) splits `drawn` into
// the frame's groups (ObjectGroups, each box holding its objects' boxes): a static object whose
// size (ObjectScene::staticSize) puts its mesh change nearer than its group's box, or farther,
// takes its mesh without its record being read; the others, and all without groups, read it.
// The choice is each object's either way (tested), so a culled frame with groups and an unculled
// one without draw each object with the same mesh. With `staticById` false the static objects go
// to `sorted` as whole instances too.
void buildObjectInstances(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                          const ObjectGroups* groups, const std::vector<uint8_t>& selected,
                          const Camera& camera, int viewportHeight, bool staticById,
                          ObjectInstances& out);

// The triangles `in` draws: each mesh's triangles (objectMesh) times its instances, whole and by
// id.
uint64_t instanceTriangles(const ObjectInstances& in);
// The bytes a frame sends the GPU for `in`: the whole instances' records and the ids.
uint64_t instanceUploadBytes(const ObjectInstances& in);

// The static objects' records as the vertex shader fetches them by id: two RGBA32F texels each,
// (base x, y, z, radius) and (height, kind, 0, 0).
constexpr int kTexelsPerRecord = 2;
void objectRecordTexels(const ObjectScene& scene, std::vector<float>& out);

}  // namespace qt
