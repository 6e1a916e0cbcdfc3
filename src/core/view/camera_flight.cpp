// Camera flights eased with smoothstep, yaw turning the short way round; the ground floor from the
// exact surface under the eye.
#include "core/view/camera_flight.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>

#include "core/config.h"
#include "core/terrain/surface.h"

namespace qt {

CameraFlight CameraFlight::towards(const Camera& camera, const glm::vec3& point, float seconds) {
    CameraFlight f;
    f.active = true;
    f.from = camera.position;
    f.to = point + (camera.position - point) * kFlightApproach;
    f.fromYaw = camera.yaw;
    f.fromPitch = camera.pitch;
    Camera end = camera;
    end.lookAt(f.to, point);
    f.toYaw = end.yaw;
    f.toPitch = end.pitch;
    f.duration = std::max(seconds, 1e-3f);
    return f;
}

void CameraFlight::advance(Camera& camera, float seconds) {
    if (!active) {
        return;
    }
    elapsed = std::min(elapsed + std::max(seconds, 0.0f), duration);
    const float t = elapsed / duration;
    const float s = t * t * (3.0f - 2.0f * t);
    camera.position = glm::mix(from, to, s);
    const float yawTurn = std::remainder(toYaw - fromYaw, glm::two_pi<float>());
    camera.yaw = std::remainder(fromYaw + yawTurn * s, glm::two_pi<float>());
    camera.pitch = fromPitch + (toPitch - fromPitch) * s;
    active = elapsed < duration;
}

float eyeFloor(const Heightmap& map, const WorldMapping& mapping, const Camera& camera, bool follow,
               float followHeight) {
    if (follow) {
        return std::max(followHeight, 0.0f);
    }
    return std::max(kGroundClearance * worldExtent(map, mapping).longerSide(),
                    4.0f * camera.nearPlane);
}

bool keepAboveGround(Camera& camera, const Heightmap& map, const WorldMapping& mapping, float floor,
                     const Quadtree* tree, const SamplePresence* presence) {
    std::optional<float> ground;
    if (presence != nullptr && tree != nullptr) {
        if (const std::optional<GroundBound> bound =
                groundBound(map, *tree, mapping, presence, camera.position.x, camera.position.z)) {
            ground = bound->height;
        }
    } else {
        ground = surfaceHeight(map, mapping, camera.position.x, camera.position.z);
    }
    if (!ground || camera.position.y >= *ground + floor) {
        return false;
    }
    camera.position.y = *ground + floor;
    return true;
}

}  // namespace qt
