// Top-down minimap of the culling walk drawn with ImGui: where the walk stopped, which of its
// leaves the occlusion stage hid, frustum, camera.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "app/cull_map.h"
#include "core/view/camera.h"
#include "render/terrain.h"

namespace qt {

// Draws into the current ImGui window a square of `side` pixels, then its legend: O(nodes where the
// walk stopped), and for those partly occluded, their nodes down to a pixel. `cells`: scratch kept
// across frames. With `lod`, the nodes level of detail drew instead, shaded by level, over the
// walk's frustum in the occluded colour (O(nodes drawn)). Below the square, a legend of the
// colours: this many pixels.
float minimapLegendHeight();

// Objects drawn on the minimap at most (the first of the frame's drawn list, in id order).
constexpr size_t kMaxMinimapObjects = 20000;

// The minimap's object layer, with its scratch kept across frames: the object tree's occupied
// cells down to about two pixels, the drawn objects as dots, and the selection a right-button
// drag makes (zombiecalypse's allIntersecting(R): the objects whose boxes meet the rectangle), with
// the objects Shift+clicked in the view.
struct MinimapObjects {
    bool cells = true;
    std::vector<Rect> cellScratch;
    std::vector<uint32_t> selected;  // sorted ids, flagged in Terrain::selectedObjects
    bool dragging = false;
    float dragX = 0.0f, dragZ = 0.0f;  // where the drag began, in world x/z
};

// Clears the selection's flags on `terrain` and selects what meets `rect`.
void selectObjects(Terrain& terrain, const Rect& rect, MinimapObjects& objects);

// Adds object `id` to the selection, or takes it out when it is in it (Shift+click in the view).
void toggleObject(Terrain& terrain, uint32_t id, MinimapObjects& objects);

// Returns the world x, z under the mouse while the left button is down on the square (clamped to
// the map), for the viewer to move there; the right button's drag selects objects.
std::optional<glm::vec2> drawMinimap(Terrain& terrain, const Camera& camera,
                                     const std::array<glm::vec3, 8>& cullCorners, float side,
                                     std::vector<MapCell>& cells, bool lod,
                                     MinimapObjects& objects);

}  // namespace qt
