// Top-down minimap of the culling walk drawn with ImGui: where the walk stopped, which of its
// leaves the occlusion stage hid, frustum, camera.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "app/cull_map.h"
#include "core/camera.h"
#include "render/terrain.h"

namespace qt {

// Draws into the current ImGui window a square of `side` pixels, then its legend: O(nodes where the
// walk stopped), and for those partly occluded, their nodes down to a pixel. `cells`: scratch kept
// across frames. With `lod`, the nodes level of detail drew instead, shaded by level, over the
// walk's frustum in the occluded colour (O(nodes drawn)). Below the square, a legend of the
// colours: this many pixels.
float minimapLegendHeight();

// Returns the world x, z under the mouse while the left button is down on the square (clamped to
// the map), for the viewer to move there.
std::optional<glm::vec2> drawMinimap(const Terrain& terrain, const Camera& camera,
                                     const std::array<glm::vec3, 8>& cullCorners, float side,
                                     std::vector<MapCell>& cells, bool lod);

}  // namespace qt
