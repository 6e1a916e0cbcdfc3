// Clip planes and the overview camera, from the map's world extent.
#include "core/view/camera_fit.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "core/config.h"

namespace qt {

float farPlaneFor(const Heightmap& map, const WorldMapping& mapping) {
    const WorldExtent e = worldExtent(map, mapping);
    // The relief from the samples, not from the world heights: a large height offset would
    // cancel its digits.
    const float relief = std::fabs(float(map.maxSample - map.minSample) * mapping.heightScale);
    return 1.5f * glm::length(glm::vec3(e.sizeX, relief, e.sizeZ)) + 1.0f;
}

void fitClipPlanes(Camera& camera, const Heightmap& map, const WorldMapping& mapping) {
    const WorldExtent e = worldExtent(map, mapping);
    float farthest = 0.0f;
    for (int corner = 0; corner < 8; ++corner) {
        const glm::vec3 p((corner & 1) ? e.sizeX : 0.0f, (corner & 2) ? e.maxY : e.minY,
                          (corner & 4) ? e.sizeZ : 0.0f);
        farthest = std::max(farthest, glm::length(p - camera.position));
    }
    camera.farPlane = std::max(farPlaneFor(map, mapping), 1.05f * farthest);
    if (!std::isfinite(camera.farPlane)) {
        camera.farPlane = 1e30f;
    }
    camera.nearPlane = std::max(camera.farPlane / kFarToNear, kMinNearPlane);
}

Camera overviewCamera(const Heightmap& map, const WorldMapping& mapping, float aspect, float fovY) {
    const WorldExtent e = worldExtent(map, mapping);
    const glm::vec3 centre(0.5f * e.sizeX, 0.5f * (e.minY + e.maxY), 0.5f * e.sizeZ);
    // Far enough back that the sphere around the map fits the narrower field of view.
    const float radius = 0.5f * glm::length(glm::vec3(e.sizeX, e.maxY - e.minY, e.sizeZ));
    const float halfFov = 0.5f * std::min(fovY, 2.0f * std::atan(std::tan(0.5f * fovY) * aspect));
    const float distance = std::max(1.15f * radius / std::tan(halfFov), 1e-3f);
    // From above the south-west side (high z, low x), about 50 degrees down.
    const glm::vec3 direction = glm::normalize(glm::vec3(-0.35f, 0.8f, 0.6f));
    Camera camera;
    camera.fovY = fovY;
    camera.aspect = aspect;
    camera.lookAt(centre + direction * distance, centre);
    fitClipPlanes(camera, map, mapping);
    return camera;
}

}  // namespace qt
