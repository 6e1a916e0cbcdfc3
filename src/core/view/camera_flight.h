// Camera moves the viewer makes on its own: a smooth flight towards a picked point, and the floor
// that keeps the eye above the drawn terrain (at a set height in ground-follow mode).
#pragma once

#include <glm/vec3.hpp>

#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/sample_presence.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"

namespace qt {

struct CameraFlight {
    bool active = false;
    glm::vec3 from{0.0f}, to{0.0f};  // eye at the start and at the end
    float fromYaw = 0.0f, fromPitch = 0.0f;
    float toYaw = 0.0f, toPitch = 0.0f;  // looking at the point at the end
    float elapsed = 0.0f;                // seconds since the start
    float duration = 1.0f;

    // A flight from the camera to kFlightApproach of its distance to `point`, turning to look at
    // it, over `seconds`.
    static CameraFlight towards(const Camera& camera, const glm::vec3& point, float seconds);
    // Advances by `seconds` (eased in and out) and places the camera; ends at the destination.
    void advance(Camera& camera, float seconds);
};

// The least height of the eye over the terrain under it: `followHeight` when ground-follow is on,
// else kGroundClearance of the map's longer side (at least 4 near planes), so the eye never goes
// through the ground to its underside.
float eyeFloor(const Heightmap& map, const WorldMapping& mapping, const Camera& camera, bool follow,
               float followHeight);

// Raises the eye to `floor` above the drawn surface under it (surfaceHeight); off the map nothing
// changes. True when it moved. With `presence` (a map whose codes arrive as they are asked for),
// above the ground as far as the present samples tell (groundBound, from `tree` where the
// square's samples are absent): never under the ground, and no lower once they arrive.
bool keepAboveGround(Camera& camera, const Heightmap& map, const WorldMapping& mapping, float floor,
                     const Quadtree* tree = nullptr, const SamplePresence* presence = nullptr);

}  // namespace qt
