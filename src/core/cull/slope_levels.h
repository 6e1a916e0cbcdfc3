// Slope levels: ray slopes (rise over horizontal distance) split into ranges by the camera's view.
// The occlusion stage's dives keep a set of slopes the rays through some holes may have as a
// 64-bit mask of 64 levels per bin of azimuth; the back-face test keeps a nearest distance per
// bin and level of a finer split.
#pragma once

#include <cstdint>

#include "core/view/camera.h"

namespace qt {

// Ray slopes split into `Levels` ranges. Ascending: level k holds the slopes in
// [bounds[k - 1], bounds[k]), the first from -infinity and the last to +infinity.
template <int Levels>
struct SlopeSplit {
    static constexpr int kLevels = Levels;
    float bounds[kLevels - 1] = {};

    // Levels that split the elevations of the camera's pixels' rays (from its screen's corners
    // and edge midpoints) evenly. Any bounds keep what the levels are used for: the level is a
    // non-decreasing function of the slope, so slope ranges that overlap have level ranges that
    // overlap.
    void fill(const Camera& camera);
    // The number of bounds at or below the slope: 0 for -infinity, the last for +infinity and NaN.
    int level(float slope) const;
};

// 64 levels, so that a set of slopes is one 64-bit mask.
struct SlopeLevels : SlopeSplit<64> {
    // The levels of the slopes [low, high] (every level when either is NaN).
    uint64_t mask(float low, float high) const;
};

}  // namespace qt
