// Slope levels: ray slopes (rise over horizontal distance) split into 64 ranges, so that a set of
// slopes the rays through some holes may have is one 64-bit mask. The occlusion stage's dives and
// the back-face test's stamps keep such masks per bin of azimuth.
#pragma once

#include <cstdint>

#include "core/view/camera.h"

namespace qt {

struct SlopeLevels {
    static constexpr int kLevels = 64;
    // Ascending: level k holds the slopes in [bounds[k - 1], bounds[k]), the first from -infinity
    // and the last to +infinity.
    float bounds[kLevels - 1] = {};

    // Levels that split the elevations of the camera's pixels' rays (from its screen's corners
    // and edge midpoints) evenly. Any bounds keep what masks are used for: the level is a
    // non-decreasing function of the slope, so slope ranges that overlap have level ranges that
    // overlap.
    void fill(const Camera& camera);
    // The number of bounds at or below the slope: 0 for -infinity, the last for +infinity and NaN.
    int level(float slope) const;
    // The levels of the slopes [low, high] (every level when either is NaN).
    uint64_t mask(float low, float high) const;
};

}  // namespace qt
