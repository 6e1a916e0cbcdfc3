// Cameras fitted to a map: clip planes that cover it from anywhere, and the overview camera.
#pragma once

#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"

namespace qt {

// Far plane that covers the whole map from anywhere over it: the box's diagonal, with room.
float farPlaneFor(const Heightmap& map, const WorldMapping& mapping);

// Far plane covering the whole map from the camera (at least farPlaneFor()), near from far
// (kFarToNear, at least kMinNearPlane).
void fitClipPlanes(Camera& camera, const Heightmap& map, const WorldMapping& mapping);

// Above the map's south-west side, looking at its centre, pitched down: the whole map in view.
Camera overviewCamera(const Heightmap& map, const WorldMapping& mapping, float aspect, float fovY);

}  // namespace qt
