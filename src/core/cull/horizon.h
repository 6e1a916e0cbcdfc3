// The occlusion horizon: per azimuth bin, the slope under which every ray from the eye is hidden.
// Azimuths are pseudo-angles, slopes int16; bins are raised and tested eight at a time.
#pragma once

#if defined(__SSE2__) && !defined(QT_HORIZON_PORTABLE)
#include <emmintrin.h>  // SSE2, part of every x86-64
#define QT_HORIZON_LANES 1
#else
#define QT_HORIZON_LANES 0
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/config.h"

namespace qt {

// A pseudo-angle of the direction (x, z), branch-free for SIMD lanes: z / (|x| + |z|) on the
// right half, turned to 2 - that above the left half and -2 - that below it. It lies in [-2, 2]
// (-2 and 2 are one direction), grows with atan2(z, x) by 1/2 to 1 per radian, and rounding
// moves it by less than 1e-6.
inline float pseudoAngle(float z, float x) {
    const float r = z / std::max(std::fabs(x) + std::fabs(z), std::numeric_limits<float>::min());
    const float left = z >= 0.0f ? 2.0f - r : -2.0f - r;
    return x >= 0.0f ? r : left;
}

// The directions from the eye (ex, ez), outside the rectangle [x0, x1] x [z0, z1], to its points:
// pseudo-angles start + [0, width] counter-clockwise (width < 2), between the two corners that
// bound them. Which corners those are depends on the eye's side of the rectangle in x and z.
inline void footprintSpan(float ex, float ez, float x0, float z0, float x1, float z1, float& start,
                          float& width) {
    const bool before = ex < x0;
    const bool beyond = ex > x1;
    const bool below = ez < z0;
    const bool above = ez > z1;
    const bool besideX = !below & !above;  // the eye's z is within the rectangle's
    const bool besideZ = !before & !beyond;
    const float startX = below | (besideX & beyond) ? x1 : x0;
    const float startZ = beyond | (besideZ & above) ? z1 : z0;
    const float endX = above | (besideX & beyond) ? x1 : x0;
    const float endZ = before | (besideZ & above) ? z1 : z0;
    start = pseudoAngle(startZ - ez, startX - ex);
    width = pseudoAngle(endZ - ez, endX - ex) - start;
    width += width < 0.0f ? 4.0f : 0.0f;
}

namespace horizon {

// Bins over the pseudo-angle's [-2, 2), kBins of them: 0.5 to 1 mrad each. Bin numbers in
// records are offset by kBins so that they stay positive. The horizon has kMirror more bins after
// the last, copies of the first ones, so that a window never wraps.
constexpr int kBins = kOcclusionBins;
static_assert((kBins & (kBins - 1)) == 0, "bins wrap by a mask");
constexpr int kMirror = 32;
constexpr int kStorage = kBins + kMirror;
constexpr float kBinsPerUnit = float(kBins) / 4.0f;
// pseudoAngle()'s rounding and that of bin positions, with room.
constexpr float kAngleError = 1e-5f;

// Slopes are stored as slope * kSlopeScale in int16, rounded down for what hides (it must not
// claim more) and up for what may be hidden: a quantum of 4e-5. |slope| <= 1.25 fits, which holds
// every slope tested (45 degrees and a margin); kNoSlope hides nothing.
constexpr float kSlopeScale = 32767.0f / 1.25f;
constexpr int16_t kNoSlope = std::numeric_limits<int16_t>::min();

// Bin position of a pseudo-angle, offset by kBins.
inline float binPosition(float angle) {
    return (angle + 2.0f) * kBinsPerUnit + float(kBins);
}

// Floor of a bin position by truncation, after clamping to [0, 3 kBins] (NaN to 0).
inline int32_t binFloor(float position) {
    return int32_t(std::min(std::max(0.0f, position), float(3 * kBins)));
}

// A slope in the horizon's units, clamped to int16 (NaN to the bottom): rounded down or up.
inline int32_t slopeDown(float slope) {
    const float t = std::min(std::max(-32768.0f, slope * kSlopeScale), 32767.0f);
    const int32_t i = int32_t(t);
    return i - int32_t(float(i) > t);
}

inline int32_t slopeUp(float slope) {
    const float t = std::min(std::max(-32768.0f, slope * kSlopeScale), 32767.0f);
    const int32_t i = int32_t(t);
    return i + int32_t(float(i) < t);
}

// Bin where an offset bin number lands on the circle.
inline int unwrap(int offsetBin) {
    const int b = offsetBin - kBins;
    return b >= kBins ? b - kBins : (b < 0 ? b + kBins : b);
}

// Eight bins at a time, in SSE2 lanes where the CPU has them.
constexpr int kLanes = 8;

#if QT_HORIZON_LANES
struct Lanes {
    __m128i v;
};

inline Lanes load(const int16_t* p) {
    return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))};
}
inline void store(int16_t* p, Lanes a) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), a.v);
}
inline Lanes splat(int16_t x) {
    return {_mm_set1_epi16(x)};
}
inline Lanes max(Lanes a, Lanes b) {
    return {_mm_max_epi16(a.v, b.v)};
}
inline Lanes min(Lanes a, Lanes b) {
    return {_mm_min_epi16(a.v, b.v)};
}
// a in the lanes below count, b in the others.
inline Lanes firstOf(int count, Lanes a, Lanes b) {
    const __m128i mask =
        _mm_cmpgt_epi16(_mm_set1_epi16(int16_t(count)), _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7));
    return {_mm_or_si128(_mm_and_si128(mask, a.v), _mm_andnot_si128(mask, b.v))};
}
inline bool allAbove(Lanes a, int16_t x) {
    return _mm_movemask_epi8(_mm_cmpgt_epi16(a.v, _mm_set1_epi16(x))) == 0xFFFF;
}
inline bool allBelow(Lanes a, int16_t x) {
    return _mm_movemask_epi8(_mm_cmplt_epi16(a.v, _mm_set1_epi16(x))) == 0xFFFF;
}
#else
struct Lanes {
    int16_t v[kLanes];
};

inline Lanes load(const int16_t* p) {
    Lanes a;
    std::memcpy(a.v, p, sizeof a.v);
    return a;
}
inline void store(int16_t* p, Lanes a) {
    std::memcpy(p, a.v, sizeof a.v);
}
inline Lanes splat(int16_t x) {
    Lanes a;
    std::fill(a.v, a.v + kLanes, x);
    return a;
}
inline Lanes max(Lanes a, Lanes b) {
    for (int i = 0; i < kLanes; ++i) {
        a.v[i] = std::max(a.v[i], b.v[i]);
    }
    return a;
}
inline Lanes min(Lanes a, Lanes b) {
    for (int i = 0; i < kLanes; ++i) {
        a.v[i] = std::min(a.v[i], b.v[i]);
    }
    return a;
}
inline Lanes firstOf(int count, Lanes a, Lanes b) {
    for (int i = 0; i < kLanes; ++i) {
        a.v[i] = i < count ? a.v[i] : b.v[i];
    }
    return a;
}
inline bool allAbove(Lanes a, int16_t x) {
    return std::all_of(a.v, a.v + kLanes, [x](int16_t y) { return y > x; });
}
inline bool allBelow(Lanes a, int16_t x) {
    return std::all_of(a.v, a.v + kLanes, [x](int16_t y) { return y < x; });
}
#endif

inline void raiseLanes(int16_t* w, Lanes slope) {
    store(w, max(load(w), slope));
}

// Raises the count bins at w, count >= 8: vectors at 0, 8, ... and count - 8, which overlaps the
// one before it where count is not a multiple of 8; max does not mind.
inline void raiseRun(int16_t* w, int count, Lanes slope) {
    for (int i = 0; i + kLanes < count; i += kLanes) {
        raiseLanes(w + i, slope);
    }
    raiseLanes(w + count - kLanes, slope);
}

// The lowest (kLowest) or highest of the count bins at w, count >= 8, the same way.
template <bool kLowest>
inline Lanes extremeOfRun(const int16_t* w, int count) {
    Lanes e = load(w + count - kLanes);
    for (int i = 0; i + kLanes < count; i += kLanes) {
        e = kLowest ? min(e, load(w + i)) : max(e, load(w + i));
    }
    return e;
}

// The lowest (kLowest) or highest of `count` bins from the offset bin `first`, read as raise()
// writes them (the mirror continues the circle). Runs are read at least 8 bins long: the extra
// bins after them only make the tests below stricter.
template <bool kLowest>
inline Lanes extremeOf(const int16_t* bins, int first, int count) {
    const auto pick = [](Lanes a, Lanes b) { return kLowest ? min(a, b) : max(a, b); };
    const int b = unwrap(first);
    const int16_t* w = bins + b;
    count = std::max(count, kLanes);
    if (count <= kMirror) {  // without a branch: vectors at 0, 8, 16 and count - 8, clamped
        const int last = count - kLanes;
        const Lanes near = pick(load(w), load(w + std::min(kLanes, last)));
        const Lanes far = pick(load(w + std::min(2 * kLanes, last)), load(w + last));
        return pick(near, far);
    }
    if (b + count <= kStorage) {
        return extremeOfRun<kLowest>(w, count);
    }
    const int before = kBins - b;
    return pick(extremeOfRun<kLowest>(w, std::max(before, kLanes)),
                extremeOfRun<kLowest>(bins, count - before));
}

// Raises `count` bins from the offset bin `first` to at least `slope`. Up to 32 bins go as
// vectors at 0, 8, 16 and count - 8 (clamped), without a loop; what runs past the last bin lands
// in the mirror, for mergeMirror(). Longer runs that pass the mirror are cut at the end.
inline void raise(int16_t* bins, int first, int count, int16_t slope) {
    const int b = unwrap(first);
    int16_t* w = bins + b;
    const Lanes s = splat(slope);
    if (count <= kLanes) {
        raiseLanes(w, firstOf(count, s, splat(kNoSlope)));
    } else if (count <= 2 * kLanes) {
        raiseLanes(w, s);
        raiseLanes(w + count - kLanes, s);
    } else if (count <= kMirror) {
        raiseLanes(w, s);
        raiseLanes(w + kLanes, s);
        raiseLanes(w + std::min(2 * kLanes, count - kLanes), s);
        raiseLanes(w + count - kLanes, s);
    } else if (b + count <= kStorage) {
        raiseRun(w, count, s);
    } else {  // around the end: the part before it (through the mirror if short), then the rest
        const int before = kBins - b;
        raiseRun(w, std::max(before, kLanes), s);
        raiseRun(bins, count - before, s);
    }
}

// After raises: each bin takes the higher of itself and its mirror, in both.
inline void mergeMirror(int16_t* bins) {
    for (int b = 0; b < kMirror; ++b) {
        bins[b] = bins[kBins + b] = std::max(bins[b], bins[kBins + b]);
    }
}

// True when all `count` bins from the offset bin `first` are above `slope` (extremeOf).
inline bool above(const int16_t* bins, int first, int count, int16_t slope) {
    return allAbove(extremeOf<true>(bins, first, count), slope);
}

// True when all `count` bins from the offset bin `first` are below `slope` (extremeOf).
inline bool below(const int16_t* bins, int first, int count, int16_t slope) {
    return allBelow(extremeOf<false>(bins, first, count), slope);
}

}  // namespace horizon
}  // namespace qt
