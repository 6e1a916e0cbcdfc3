// Distance fog: terrain, water and objects fade into the sky colour from a start distance to the
// far plane (shaders/terrain.frag, water.frag, objects.frag).
#pragma once

#include <algorithm>

namespace qt {

// Where the fog starts by default, as a share of the far plane.
constexpr float kDefaultFogStart = 0.4f;

struct Fog {
    bool on = true;
    float start = -1.0f;  // distance from the eye where it begins; below 0: kDefaultFogStart

    // The shaders' fogStart for this far plane: clear up to it, then thickening to the sky colour
    // at the far plane; at or past the far plane (fog off) nothing is fogged.
    float startFor(float farPlane) const {
        if (!on) {
            return farPlane;
        }
        return start < 0.0f ? kDefaultFogStart * farPlane : std::min(start, farPlane);
    }
};

}  // namespace qt
