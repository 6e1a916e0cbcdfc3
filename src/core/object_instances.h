// The drawn objects as the renderer uploads them: one 24-byte instance each, its unit mesh chosen
// by its size on screen, grouped by mesh in the frame's order. GL-free, so that the object frame
// bench counts it among the objects' CPU stages.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/camera.h"
#include "core/object_mesh.h"
#include "core/object_scene.h"

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

// Objects whose radius spans fewer pixels than this on screen take the coarse meshes.
constexpr float kCoarseObjectPixels = 6.0f;

// A frame's instances: `sorted` holds counts[0] instances of mesh 0, then counts[1] of mesh 1,
// and so on, each mesh's in the drawn list's order (a stable counting sort), so that a culled
// frame's instances are a subsequence of the unculled frame's (LooseObjectTree::allInTreeOrder)
// and objects meeting at equal depth win the same pixels in both.
struct ObjectInstances {
    std::vector<ObjectInstance> sorted;
    std::array<uint32_t, kObjectMeshes> counts{};
    std::vector<ObjectInstance> unsorted;  // scratch: in the drawn list's order
    std::vector<uint8_t> meshOf;           // scratch: each one's mesh

    // Room for `count` objects, so that no frame allocates.
    void reserve(uint32_t count);
};

// Fills `out` with `drawn` (ids of `scene`), `selected` (per id, may be empty) marked, the mesh of
// each by its radius in pixels seen from `camera` in a viewport `viewportHeight` pixels high.
// Reads each drawn object's record once.
void buildObjectInstances(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                          const std::vector<uint8_t>& selected, const Camera& camera,
                          int viewportHeight, ObjectInstances& out);

}  // namespace qt
