// The benchmark flight: a circle at low altitude, looking toward the horizon.
#include "core/view/flight_path.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>
#include <glm/trigonometric.hpp>

namespace qt {

std::vector<Camera> flightPath(const Heightmap& map, const WorldMapping& mapping, int frames,
                               float aspect) {
    const WorldExtent e = worldExtent(map, mapping);
    const float sizeX = e.sizeX, sizeZ = e.sizeZ, lo = e.minY, hi = e.maxY;
    std::vector<Camera> path(size_t(std::max(frames, 0)));
    for (int i = 0; i < frames; ++i) {
        const float angle = glm::two_pi<float>() * float(i) / float(frames);
        Camera& c = path[size_t(i)];
        c.position = {0.5f * sizeX + 0.35f * sizeX * std::cos(angle),
                      lo + 0.9f * (hi - lo) + 0.01f * std::max(sizeX, sizeZ),
                      0.5f * sizeZ + 0.35f * sizeZ * std::sin(angle)};
        c.yaw = angle + glm::half_pi<float>();  // along the circle
        c.pitch = glm::radians(-8.0f);
        c.fovY = glm::radians(60.0f);
        c.aspect = aspect;
        c.farPlane = farPlaneFor(map, mapping);
        c.nearPlane = std::max(c.farPlane * 1e-5f, 1e-3f);
    }
    return path;
}

}  // namespace qt
