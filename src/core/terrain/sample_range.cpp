// One pass over finite samples for their range and integrality; compiled for SIMD (CMakeLists).
#include "core/terrain/sample_range.h"

#include <algorithm>
#include <cstdint>

namespace qt {

SampleRange sampleRange(const float* samples, size_t count) {
    float lo = samples[0];
    float hi = samples[0];
    uint32_t fraction = 0;  // nonzero once a sample is not an integer below 2^24
    for (size_t i = 0; i < count; ++i) {
        const float v = samples[i];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        // Clamped to +-2^24 the sample converts to int32 safely, and equals itself only in range.
        const float c = std::min(std::max(v, -16777216.0f), 16777216.0f);
        fraction |= uint32_t(c != float(int32_t(c))) | uint32_t(c != v);
    }
    const bool inRange = lo > -16777216.0f && hi < 16777216.0f;
    return {lo, hi, fraction == 0 && inRange};
}

}  // namespace qt
