// The fixed, deterministic camera path that benchmarks and `quadterrain --bench` fly.
#pragma once

#include <vector>

#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "core/view/camera_fit.h"

namespace qt {

// A low flight looking toward the horizon: `frames` cameras on a circle of 0.35 x the map's
// size around its centre, just above the highest peak's height scaled by 0.9, heading along the
// circle and pitched 8 degrees down; 60 degree vertical fov, far plane from farPlaneFor().
std::vector<Camera> flightPath(const Heightmap& map, const WorldMapping& mapping, int frames,
                               float aspect);

}  // namespace qt
