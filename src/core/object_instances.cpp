// The drawn objects' instances, grouped by mesh for the renderer's instanced draws.
#include "core/object_instances.h"

#include <algorithm>
#include <cmath>

namespace qt {

void ObjectInstances::reserve(uint32_t count) {
    sorted.reserve(count);
    unsorted.reserve(count);
    meshOf.reserve(count);
}

void buildObjectInstances(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                          const std::vector<uint8_t>& selected, const Camera& camera,
                          int viewportHeight, ObjectInstances& out) {
    // Pixels per unit of radius at distance 1: the coarse meshes below kCoarseObjectPixels.
    const float pixelsAtOne = float(viewportHeight) / (2.0f * std::tan(0.5f * camera.fovY));
    const float coarseBeyond = pixelsAtOne / kCoarseObjectPixels;  // distance per unit of radius
    out.counts.fill(0);
    out.unsorted.resize(drawn.size());
    out.meshOf.resize(drawn.size());
    // The drawn ids are in tree order, their records scattered over the scene: each is asked
    // for this many objects ahead, so that the loop does not wait on every one.
    constexpr size_t kAhead = 16;
    for (size_t k = 0; k < drawn.size(); ++k) {
        if (k + kAhead < drawn.size()) {
            __builtin_prefetch(&scene.shape(drawn[k + kAhead]));
        }
        const uint32_t id = drawn[k];
        const ObjectShape& o = scene.shape(id);
        const glm::vec3 d = o.base - camera.position;
        const float r = std::max(o.radius, o.height);
        const bool coarse = r * coarseBeyond * r * coarseBeyond < glm::dot(d, d);
        const bool tree = o.kind == ObjectKind::Tree;
        const ObjectMesh mesh = tree ? (coarse ? ObjectMesh::TreeCoarse : ObjectMesh::TreeFine)
                                     : (coarse ? ObjectMesh::SphereCoarse : ObjectMesh::SphereFine);
        const uint32_t look =
            uint32_t(o.kind) | (id < selected.size() && selected[id] ? kSelectedLook : 0u);
        out.unsorted[k] = {o.base.x, o.base.y, o.base.z, o.radius, o.height, look};
        out.meshOf[k] = uint8_t(mesh);
        ++out.counts[size_t(mesh)];
    }
    std::array<uint32_t, kObjectMeshes> next{};
    for (size_t i = 1; i < next.size(); ++i) {
        next[i] = next[i - 1] + out.counts[i - 1];
    }
    out.sorted.resize(drawn.size());
    for (size_t k = 0; k < drawn.size(); ++k) {
        out.sorted[next[out.meshOf[k]]++] = out.unsorted[k];
    }
}

}  // namespace qt
