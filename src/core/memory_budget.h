// The memory a map takes fully loaded, estimated from its sample count before anything is read.
#pragma once

#include <cstdint>

#include "core/result.h"

namespace qt {

// Peak resident bytes per sample of a map loaded in the viewer (decode, tree, the CPU codes and
// the GPU's copy, which llvmpipe keeps in host memory), measured by bench/memory.py and rounded
// up: a 16-bit image or .r16/.hgt, and a raster read through GDAL (a float copy while decoding).
constexpr uint64_t kLoadBytesPerSample = 12;
constexpr uint64_t kGdalLoadBytesPerSample = 16;

// Share of physical memory a load may take when --memory-budget is not given.
constexpr double kDefaultMemoryShare = 0.5;

// Estimated peak bytes of a fully loaded width x height map.
uint64_t loadPeakBytes(int64_t width, int64_t height, uint64_t bytesPerSample);

// Refuses a map whose estimate is over `budgetBytes` (0: no budget), with one line naming the
// estimate, the budget and --memory-budget.
Status checkMemoryBudget(int64_t width, int64_t height, uint64_t bytesPerSample,
                         uint64_t budgetBytes);

}  // namespace qt
