// The drawn objects as the renderer uploads them, grouped by mesh: the static ones (trees and
// rocks) as their ids alone, 4 bytes each, their records read on the GPU from a copy uploaded
// once (ObjectRecordTexels); the moving ones, whose records change every step, as whole 24-byte
// instances. Each object's unit mesh is chosen by its size on screen. GL-free, so that the object
// frame bench counts it among the objects' CPU stages.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "core/config.h"
#include "core/objects/loose_tree.h"
#include "core/objects/mesh.h"
#include "core/objects/scene.h"
#include "core/view/camera.h"

namespace qt {

// One object as the vertex shader reads it: the unit mesh scaled by (radius, height, radius)
// and moved to base; look: its kind in bits 0-7, bit 8 when selected, bit 9 when it lies in the
// band between mesh and impostor (MeshChoice).
struct ObjectInstance {
    float x, y, z;
    float radius;
    float height;
    uint32_t look;
};
static_assert(sizeof(ObjectInstance) == 24, "the instance layout the shader reads");

constexpr uint32_t kSelectedLook = 0x100;
constexpr uint32_t kBandLook = 0x200;
// A static object's id as uploaded: bit 31 when selected, bit 30 when in the band, the id below
// (ids stay below kMaxObjects).
constexpr uint32_t kSelectedId = 0x80000000u;
constexpr uint32_t kBandId = 0x40000000u;
static_assert(kMaxObjects < kBandId, "an id and its marks fit in 32 bits");

// How an object is drawn by its size on screen (max(radius, height), in pixels): its fine mesh at
// kFineObjectPixels or more, its impostor below kImpostorObjectPixels, and in the band between,
// both, each over a share of its pixels: a dither the fragment shaders share, the impostor's
// share growing from none to all of kFadeSteps across the band with the distance, computed by
// the vertex shaders from the distance (objects.vert), so that the change does not pop.
constexpr float kFineObjectPixels = 16.0f;
constexpr float kImpostorObjectPixels = 10.0f;
constexpr uint32_t kFadeSteps = 31;  // the shaders' shares (objects.vert, objects.frag)
// Nearer than this many times its size an object takes its mesh whatever its pixels (a tiny
// viewport): the impostor's quad needs the eye well outside the object's bounding sphere.
constexpr float kNearestImpostor = 4.0f;
struct ObjectDetail {
    float finePixels = kFineObjectPixels;
    float impostorPixels = kImpostorObjectPixels;  // at most finePixels
};

// How an object is drawn: its mesh alone, both ways (in the band), its impostor alone.
enum class DrawnAs : uint8_t { Mesh, Both, Impostor };

// Each object's way, from its size and base, for one camera: its mesh alone when (size
// fineBeyond)^2 >= |base - eye|^2, its impostor alone when (size impostorBeyond)^2 is below it,
// both between.
struct MeshChoice {
    glm::vec3 eye{0.0f};
    float fineBeyond = 0.0f;      // distance, per unit of size, past which the mesh is not alone
    float impostorBeyond = 0.0f;  // ... past which the impostor is alone

    MeshChoice(const Camera& camera, int viewportHeight, const ObjectDetail& detail = {});
    DrawnAs way(float size, const glm::vec3& base) const {
        const glm::vec3 d = base - eye;
        const float d2 = glm::dot(d, d);
        const float fine = size * fineBeyond, impostor = size * impostorBeyond;
        return fine * fine >= d2          ? DrawnAs::Mesh
               : impostor * impostor < d2 ? DrawnAs::Impostor
                                          : DrawnAs::Both;
    }
};

// The squared distances from the eye to a frame group's box (ObjectGroups), each widened by a
// relative 1e-3, far wider than the few roundings on either side: a static object whose base lies
// in the box takes its mesh alone when (size fineBeyond)^2 is at least `farthest`, its impostor
// alone when (size impostorBeyond)^2 falls below `nearest`, both when the band holds the box
// (wayInGroup); its own record decides otherwise. Without a box, [0, infinity): every record.
struct GroupReach {
    float nearest = 0.0f;
    float farthest = std::numeric_limits<float>::infinity();
};
GroupReach groupReach(const Box& box, const glm::vec3& eye);
// The way wayInGroup could not decide (a box across an end of the band).
constexpr int kWayUndecided = 3;
inline int wayInGroup(float size, const MeshChoice& choice, const GroupReach& reach) {
    const float fine = size * choice.fineBeyond, impostor = size * choice.impostorBeyond;
    const float fine2 = fine * fine, impostor2 = impostor * impostor;
    return fine2 >= reach.farthest                                ? int(DrawnAs::Mesh)
           : impostor2 < reach.nearest                            ? int(DrawnAs::Impostor)
           : fine2 < reach.nearest && impostor2 >= reach.farthest ? int(DrawnAs::Both)
                                                                  : kWayUndecided;
}

ObjectMesh meshOf(ObjectKind kind, bool impostor);
static_assert(int(ObjectMesh::TreeFine) == 0 && int(ObjectMesh::TreeImpostor) == 1 &&
                  int(ObjectMesh::SphereFine) == 2 && int(ObjectMesh::SphereImpostor) == 3,
              "buildObjectInstances computes a static object's mesh as 2 * rock + impostor");

// A frame's instances, each mesh's in the drawn list's order, so that a culled frame's are a
// subsequence of the unculled frame's (LooseObjectTree::allInTreeOrder) and objects meeting at
// equal depth win the same pixels in both: the static objects' ids, idCounts[m] of mesh m from
// ids(m); the whole instances, counts[0] of mesh 0 first in `sorted`, then counts[1] of mesh 1,
// and so on. An object in the band between mesh and impostor is in both its shape's lists; in a
// fine mesh's list (TreeFine, SphereFine) the band's objects come last, still in the drawn order
// (a stable partition, the same in culled and unculled frames), so that the renderer draws the
// others with a program that never discards a fragment and keeps the early depth test.
struct ObjectInstances {
    std::array<uint32_t, kObjectMeshes> idCounts{};
    // Of the trees' and the spheres' fine mesh lists, the ids and the whole instances at the end
    // that lie in the band.
    std::array<uint32_t, 2> bandIds{};
    std::array<uint32_t, 2> bandWhole{};
    std::array<uint32_t, 2> inBoth{};  // the trees and the spheres drawn both ways, by id or whole
    uint32_t recordsRead = 0;          // static objects whose mesh their group left to their record
    std::vector<ObjectInstance> sorted;
    std::array<uint32_t, kObjectMeshes> counts{};
    // Scratch: the ids of those drawn whole (kSelectedId marking the selected), and their
    // instances and lists (two for an object drawn both ways): 2 * mesh, plus 1 for a fine mesh's
    // instance in the band.
    std::vector<uint32_t> wholeIds;
    std::vector<ObjectInstance> unsorted;
    std::vector<uint8_t> listOf;

    // kObjectMeshes runs of idStride ids, mesh m's from m * idStride; left uninitialised, so that
    // only the pages a frame writes become resident.
    std::unique_ptr<uint32_t[]> idSpace;
    size_t idStride = 0;

    const uint32_t* ids(int mesh) const { return idSpace.get() + size_t(mesh) * idStride; }
    // Room for `count` objects, so that no frame allocates.
    void reserve(uint32_t count);
};

// Fills `out` with `drawn` (ids of `scene`), `selected` (per id, may be empty) marked, the mesh,
// impostor or both of each by its size in pixels seen from `camera` in a viewport
// `viewportHeight` pixels high (MeshChoice; a static object's kind from its id's range).
// `groups` (may be null or empty) splits `drawn` into the frame's groups (ObjectGroups, each box
// holding its objects' boxes): a static object whose size (ObjectScene::staticSize) puts its
// group's box wholly on one side of the band between mesh and impostor, or wholly inside it, is
// drawn so without its record being read; the others, and all without groups, read it. The choice
// is each object's either way (tested), so a culled frame with groups and an unculled one without
// draw each object alike. `statics`: how the static objects are sent (by id as above, whole in
// `sorted` as the balls are, or left out for a caller that sends them as runs: StaticRuns).
enum class StaticsSent : uint8_t { ById, Whole, AsRuns };
void buildObjectInstances(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                          const ObjectGroups* groups, const std::vector<uint8_t>& selected,
                          const Camera& camera, int viewportHeight, StaticsSent statics,
                          ObjectInstances& out, const ObjectDetail& detail = {});

// The triangles `in` draws: each mesh's triangles (objectMesh) times its instances, whole and by
// id.
uint64_t instanceTriangles(const ObjectInstances& in);
// The size on screen below which a renderer of meshes alone draws an object with a coarse mesh of
// a fixed low level (kCoarseTreeTriangles, kCoarseSphereTriangles) rather than its fine one.
constexpr float kCoarseMeshPixels = 6.0f;
// The triangles `drawn` (ids of `scene`) would draw as meshes alone, seen from `camera` in a
// viewport `viewportHeight` pixels high: each its fine mesh at kCoarseMeshPixels or more, its
// coarse mesh below. What the impostors are measured against: it reads every drawn object's
// record, for figures and --stats-json, not for a frame.
uint64_t meshOnlyTriangles(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                           const Camera& camera, int viewportHeight);
// The bytes a frame sends the GPU for `in`: the whole instances' records and the ids.
uint64_t instanceUploadBytes(const ObjectInstances& in);

// The static objects' records as the vertex shader fetches them by id: two RGBA32F texels each,
// (base x, y, z, radius) and (height, kind, 0, 0); with `idAt`, record k is object idAt[k]'s
// (StaticOrder::ids: the records by place).
constexpr int kTexelsPerRecord = 2;
void objectRecordTexels(const ObjectScene& scene, std::vector<float>& out,
                        const uint32_t* idAt = nullptr);

}  // namespace qt
