// The HUD's cursor bar along the bottom of the view (the terrain under the cursor: world point,
// sample, height; the object in front of it; the measurement dragged between two points, also
// drawn over the view) and the ground-follow setting.
#pragma once

#include <optional>

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "core/cull/pick.h"
#include "core/objects/pick.h"
#include "core/terrain/heightmap.h"

namespace qt {

struct CursorReadout {
    PickHit hover;             // the terrain under the cursor this frame (hit false: none)
    float hoverSample = 0.0f;  // the map's own value at hover's sample (metres for .hgt)
    // The object under the cursor, in front of the terrain there (none: no objects, or none hit),
    // with its shape and a ball's horizontal velocity at that frame.
    std::optional<ObjectPickHit> hoverObject;
    ObjectShape hoverShape;
    glm::vec2 hoverVelocity{0.0f};
    bool metres = false;    // the map's heights and spacing are metres (.hgt)
    bool measured = false;  // a point was pressed on: a to b is shown
    bool dragging = false;  // the left button is still down: b follows the cursor
    glm::vec3 a{0.0f}, b{0.0f};

    // The sample value under a hit: the map's own number at its nearest sample.
    static float sampleAt(const Heightmap& map, const PickHit& hit) {
        return hit.hit ? map.at(hit.col, hit.row) : 0.0f;
    }
};

// One line in the current ImGui window: the ground-follow checkbox and its least height.
void drawFollowSetting(bool& follow, float& followHeight);

// A window along the bottom of the view, right of the HUD's column (`left` pixels), with the
// readout; the measurement's line and ends drawn over the view, seen through `viewProjection`.
void drawCursorBar(const CursorReadout& r, const glm::mat4& viewProjection, float left);

}  // namespace qt
