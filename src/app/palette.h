// The colours of the walk's decisions, one definition for the HUD's minimap and the --cull-map
// picture, so that the two read alike.
#pragma once

#include <cstdint>

namespace qt {

struct Rgb {
    uint8_t r, g, b;
};

constexpr Rgb kDrawnColour{70, 190, 90};     // drawn
constexpr Rgb kOccludedColour{55, 95, 160};  // in the frustum, hidden by nearer terrain
constexpr Rgb kCulledColour{150, 50, 50};    // outside the frustum
constexpr Rgb kOutsideColour{25, 25, 32};    // around the map
constexpr Rgb kFrustumColour{250, 220, 60};  // the frustum's outline
constexpr Rgb kCameraColour{255, 255, 255};  // the eye and where it looks

}  // namespace qt
