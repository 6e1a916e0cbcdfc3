// The HUD's lines on the terrain under the cursor (world point, sample, height), the measurement
// dragged between two points, and the ground-follow setting.
#pragma once

#include <glm/vec3.hpp>

#include "core/heightmap.h"
#include "core/pick.h"

namespace qt {

struct CursorReadout {
    PickHit hover;             // the terrain under the cursor this frame (hit false: none)
    float hoverSample = 0.0f;  // the map's own value at hover's sample (metres for .hgt)
    bool metres = false;       // the map's heights and spacing are metres (.hgt)
    bool measured = false;     // a point was pressed on: a to b is shown
    bool dragging = false;     // the left button is still down: b follows the cursor
    glm::vec3 a{0.0f}, b{0.0f};

    // The sample value under a hit: the map's own number at its nearest sample.
    static float sampleAt(const Heightmap& map, const PickHit& hit) {
        return hit.hit ? map.at(hit.col, hit.row) : 0.0f;
    }
};

// Draws the readout into the current ImGui window; the ground-follow checkbox and height edit
// `follow` and `followHeight`.
void drawCursorReadout(const CursorReadout& r, bool& follow, float& followHeight);

}  // namespace qt
