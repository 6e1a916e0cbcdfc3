// Voids (nodata, SRTM's -32768) filled from their known neighbours, breadth first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace qt {

// Replaces every sample equal to voidValue by the mean of its filled 8-neighbours, rounded to an
// integer, in breadth-first order from the known samples. The samples hold no NaN (NaNs mark the
// voids while the fill runs, so that it needs no memory beside them but its queue). Returns false
// when every sample is void.
bool fillVoids(float* samples, int width, int height, float voidValue);

// fillVoids with bounds for samples larger than memory (a mapped file): `tick` is called after
// every tickEvery samples scanned or filled (the caller drops pages it no longer needs), and
// the fill stops, as TooMany, when its queue would hold more than maxQueued voids at once. The
// samples are left part filled then.
enum class VoidFill { Done, AllVoid, TooMany };
struct VoidFillLimits {
    size_t maxQueued = SIZE_MAX;
    size_t tickEvery = 0;  // 0: no tick
    std::function<void()> tick;
};
VoidFill fillVoidsWithin(float* samples, int width, int height, float voidValue,
                         const VoidFillLimits& limits);

}  // namespace qt
