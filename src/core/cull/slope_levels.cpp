#include "core/cull/slope_levels.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include <glm/vec3.hpp>

namespace qt {

template <int Levels>
void SlopeSplit<Levels>::fill(const Camera& camera) {
    const glm::vec3 f = camera.forward(), r = camera.right(), u = camera.up();
    const float tanHalf = std::tan(0.5f * camera.fovY);
    float lowest = 2.0f, highest = -2.0f;
    for (const float x : {-1.0f, 0.0f, 1.0f}) {
        for (const float y : {-1.0f, 0.0f, 1.0f}) {
            const glm::vec3 d = f + x * tanHalf * camera.aspect * r + y * tanHalf * u;
            const float e = std::atan2(d.y, std::sqrt(d.x * d.x + d.z * d.z));
            lowest = std::min(lowest, e);
            highest = std::max(highest, e);
        }
    }
    // Finite, increasing bounds whatever the camera (a NaN one gives the fixed range).
    lowest = std::max(std::min(lowest, 1.4f), -1.5f);
    highest = std::min(std::max(highest, lowest + 0.1f), 1.5f);
    for (int k = 0; k < kLevels - 1; ++k) {
        bounds[k] = std::tan(lowest + (highest - lowest) * float(k + 1) / float(kLevels));
    }
}

template <int Levels>
int SlopeSplit<Levels>::level(float slope) const {
    if (std::isnan(slope)) {
        return kLevels - 1;
    }
    return int(std::upper_bound(bounds, bounds + kLevels - 1, slope) - bounds);
}

template <int Levels>
void SlopeSplit<Levels>::span(float low, float high, int& first, int& last) const {
    if (std::isnan(low) || std::isnan(high)) {
        first = 0;
        last = kLevels - 1;
        return;
    }
    first = level(std::min(low, high));
    last = level(std::max(low, high));
}

template struct SlopeSplit<256>;

SlopeLevels::Set SlopeLevels::mask(float low, float high) const {
    int first = 0, last = 0;
    span(low, high, first, last);
    return Set::span(first, last);
}

}  // namespace qt
