// The drawn objects' instances (core/object_instances.h): every drawn object once, with its own
// shape, kind and selection, grouped by mesh in the drawn list's order, the fine meshes near the
// eye and the coarse ones far from it.
#include "core/object_instances.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "core/synthetic.h"

namespace qt {
namespace {

TEST(ObjectInstances, EachDrawnObjectOnceGroupedByMeshInTheDrawnOrder) {
    const Heightmap map = syntheticHeightmap(1025, 1025, 3);
    const WorldMapping mapping = defaultMapping(map);
    const ObjectScene scene = ObjectScene::scatter(map, mapping, 3000, 300, 7).value();
    // Every other object, in an order that is not the ids' (as the tree's order is not).
    std::vector<uint32_t> drawn;
    for (uint32_t id = 0; id < scene.count(); id += 2) {
        drawn.push_back((id * 7919u) % scene.count());
    }
    std::vector<uint8_t> selected(scene.count(), 0);
    for (uint32_t id = 0; id < scene.count(); id += 5) {
        selected[id] = 1;
    }
    Camera camera;
    camera.lookAt({0.0f, 30.0f, 0.0f}, {128.0f, 0.0f, 128.0f});
    ObjectInstances out;
    out.reserve(scene.count());
    buildObjectInstances(scene, drawn, selected, camera, 720, out);

    ASSERT_EQ(out.sorted.size(), drawn.size());
    uint32_t total = 0;
    for (uint32_t c : out.counts) {
        total += c;
    }
    EXPECT_EQ(total, drawn.size());
    // Coarse where the radius spans fewer than kCoarseObjectPixels: beyond radius * coarseBeyond.
    const float coarseBeyond = 720.0f / (2.0f * std::tan(0.5f * camera.fovY)) / kCoarseObjectPixels;
    // Walk each mesh's run: it must be the drawn objects of that mesh, in the drawn order.
    size_t at = 0;
    int meshesUsed = 0;
    for (int mesh = 0; mesh < kObjectMeshes; ++mesh) {
        meshesUsed += out.counts[size_t(mesh)] > 0 ? 1 : 0;
        for (uint32_t id : drawn) {
            const ObjectShape& o = scene.shape(id);
            const float r = std::max(o.radius, o.height) * coarseBeyond;
            const glm::vec3 d = o.base - camera.position;
            const bool coarse = r * r < glm::dot(d, d);
            const bool tree = o.kind == ObjectKind::Tree;
            const int expected =
                int(tree ? (coarse ? ObjectMesh::TreeCoarse : ObjectMesh::TreeFine)
                         : (coarse ? ObjectMesh::SphereCoarse : ObjectMesh::SphereFine));
            if (expected != mesh) {
                continue;
            }
            ASSERT_LT(at, out.sorted.size());
            const ObjectInstance& i = out.sorted[at++];
            EXPECT_EQ(i.x, o.base.x);
            EXPECT_EQ(i.y, o.base.y);
            EXPECT_EQ(i.z, o.base.z);
            EXPECT_EQ(i.radius, o.radius);
            EXPECT_EQ(i.height, o.height);
            EXPECT_EQ(i.look, uint32_t(o.kind) | (selected[id] ? kSelectedLook : 0u));
        }
        EXPECT_EQ(at, std::accumulate(out.counts.begin(), out.counts.begin() + mesh + 1, 0u));
    }
    EXPECT_EQ(at, out.sorted.size());
    EXPECT_EQ(meshesUsed, kObjectMeshes)
        << "the camera should see near and far trees and spheres: " << out.counts[0] << " "
        << out.counts[1] << " " << out.counts[2] << " " << out.counts[3];
}

}  // namespace
}  // namespace qt
