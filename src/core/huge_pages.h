// Asking the kernel for 2 MB pages under the tree's node array: the walk jumps between distant
// nodes, and with 4 KB pages nearly every jump would miss the TLB.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace qt {

// Asks for 2 MB pages under the whole 2 MB pages inside [data, data + bytes); a hint, so a
// kernel without them (or with them off) simply keeps 4 KB pages.
inline void adviseHugePages(void* data, size_t bytes) {
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
    if (end > begin) {
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    }
}

// Reserves room for n elements under 2 MB pages, touching none of them.
template <class Vector>
void reserveHuge(Vector& v, size_t n) {
    v.reserve(n);
    adviseHugePages(v.data(), v.capacity() * sizeof(typename Vector::value_type));
}

}  // namespace qt
