// The range of finite float samples and whether they are all integers, in one SIMD pass.
#pragma once

#include <cstddef>

namespace qt {

struct SampleRange {
    float lo;
    float hi;
    bool integral;  // every sample an integer below 2^24 in magnitude
};

// Over count >= 1 samples, which must all be finite (the loaders check or fill them first): the
// file is compiled assuming no NaN or infinity and ignoring the sign of zero, so that the loop
// runs in SIMD lanes (see CMakeLists.txt).
SampleRange sampleRange(const float* samples, size_t count);

}  // namespace qt
