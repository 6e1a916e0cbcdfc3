// Live bytes of the process's C++ heap, and every allocation made, counted by replaced operator
// new/delete (in the quadterrain executable and the core tests).
#pragma once

#include <cstddef>

namespace qt {

// Blocks from operator new not yet deleted, and their usable bytes (malloc_usable_size). The
// replaced operators live in heap_count.cpp, which only the executable and the core tests
// compile: every user of operator new in the process is counted, libstdc++ and the driver's C++
// code (LLVM) included.
struct HeapCount {
    size_t liveBytes = 0;
    size_t liveBlocks = 0;
    size_t allocations = 0;  // blocks ever allocated: unchanged over a step that allocates nothing
};

HeapCount heapCount();

}  // namespace qt
