// Slope levels: ray slopes (rise over horizontal distance) split into ranges by the camera's view.
// The occlusion stage's dives keep a set of slopes the rays through some holes may have as a mask
// of 256 levels (four 64-bit words) per bin of azimuth; the back-face test keeps a nearest
// distance per bin and level of the same split.
#pragma once

#include <algorithm>
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
    // The levels of the slopes [low, high], first and last (every level when either is NaN).
    void span(float low, float high, int& first, int& last) const;
};

// A set of the levels of a SlopeSplit<64 * Words>, a bit each: level k is bit k % 64 of word
// k / 64.
template <int Words>
struct LevelSet {
    uint64_t word[Words] = {};

    // Levels first to last, both included (first <= last).
    static LevelSet span(int first, int last) {
        LevelSet s;
        for (int w = 0; w < Words; ++w) {
            const int a = std::max(first - 64 * w, 0), b = std::min(last - 64 * w, 63);
            s.word[w] = a <= b ? (~uint64_t(0) >> (63 - b)) & (~uint64_t(0) << a) : 0;
        }
        return s;
    }
    LevelSet& operator|=(const LevelSet& o) {
        for (int w = 0; w < Words; ++w) {
            word[w] |= o.word[w];
        }
        return *this;
    }
    // Whether the two sets share a level.
    bool meets(const LevelSet& o) const {
        uint64_t shared = 0;
        for (int w = 0; w < Words; ++w) {
            shared |= word[w] & o.word[w];
        }
        return shared != 0;
    }
};

// 256 levels, a set of them four 64-bit words: at 60 degrees of view and 720 pixels, a level is
// about three pixels tall.
struct SlopeLevels : SlopeSplit<256> {
    using Set = LevelSet<kLevels / 64>;
    // The levels of the slopes [low, high] (every level when either is NaN).
    Set mask(float low, float high) const;
};

}  // namespace qt
