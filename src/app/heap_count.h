// Live bytes of the process's C++ heap, counted by the quadterrain executable's operator
// new/delete.
#pragma once

#include <cstddef>

namespace qt {

// Blocks from operator new not yet deleted, and their usable bytes (malloc_usable_size). The
// replaced operators live in heap_count.cpp, which only the executable compiles: every user of
// operator new in the process is counted, libstdc++ and the driver's C++ code (LLVM) included.
struct HeapCount {
    size_t liveBytes = 0;
    size_t liveBlocks = 0;
};

HeapCount heapCount();

}  // namespace qt
