// The memory a map takes fully loaded, estimated from its sample count before anything is read.
#pragma once

#include <cstdint>

#include "core/base/result.h"

namespace qt {

// Peak resident bytes per sample of a map loaded in the viewer (decode, tree, the CPU codes and
// the GPU's copy, which llvmpipe keeps in host memory), measured by bench/memory.py and rounded
// up: a 16-bit image or .r16/.hgt, and a raster read through GDAL (a float copy while decoding).
constexpr uint64_t kLoadBytesPerSample = 12;
constexpr uint64_t kGdalLoadBytesPerSample = 16;
// Resident bytes per sample of a map once loaded, held while the next one loads: the CPU codes
// (2), Mesa's copy (2), the tree (2.8) and the frame buffers in use (about 1), rounded up.
constexpr uint64_t kHeldBytesPerSample = 8;

// Share of physical memory a load may take when --memory-budget is not given.
constexpr double kDefaultMemoryShare = 0.5;

// What a load may take: the budget, less what stays held while it runs (the viewer's current
// map, kept until the new one has loaded).
struct MemoryBudget {
    uint64_t limitBytes = 0;  // 0: no budget
    uint64_t heldBytes = 0;   // already taken out of the limit
};

// This machine's physical memory (UINT64_MAX when it cannot be read).
uint64_t physicalMemoryBytes();

// The budget a load gets by default: kDefaultMemoryShare of `physicalBytes` (0, no budget, when
// it is UINT64_MAX).
uint64_t defaultMemoryBudgetBytes(uint64_t physicalBytes = physicalMemoryBytes());

// Estimated peak bytes of a fully loaded width x height map.
uint64_t loadPeakBytes(int64_t width, int64_t height, uint64_t bytesPerSample);

// Refuses a map whose estimate is over what the budget leaves, with one line naming the
// estimate, the budget (and what is held) and --memory-budget.
Status checkMemoryBudget(int64_t width, int64_t height, uint64_t bytesPerSample,
                         const MemoryBudget& budget);

}  // namespace qt
