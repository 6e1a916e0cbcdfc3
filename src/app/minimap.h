// Top-down minimap of the culling walk drawn with ImGui: where the walk stopped, frustum, camera.
#pragma once

#include <array>

#include <glm/vec3.hpp>

#include "core/camera.h"
#include "render/terrain.h"

namespace qt {

// Draws into the current ImGui window a square of `side` pixels; O(nodes where the walk stopped).
void drawMinimap(const Terrain& terrain, const Camera& camera,
                 const std::array<glm::vec3, 8>& cullCorners, float side);

}  // namespace qt
