// Asking the kernel for 2 MB pages under big arrays that walks jump around in (the terrain tree's
// nodes, the object tree's pools): with 4 KB pages nearly every jump would miss the TLB.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

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

// Resizes v to n elements (value-initialised, as resize does) over room reserved by reserveHuge:
// a large array filled once (a tree's, a file's bytes) then takes a page fault every 2 MB, not
// every 4 KB, which on a virtual machine costs more than the zeroing.
template <class Vector>
void resizeHuge(Vector& v, size_t n) {
    reserveHuge(v, n);
    v.resize(n);
}

// A std::vector allocator whose blocks of 2 MB and more start on a 2 MB boundary, are whole 2 MB
// pages long, and are advised to 2 MB pages before anything touches them: a vector that grows
// keeps its huge pages across every reallocation. Smaller blocks come from operator new.
template <class T>
struct HugePageAllocator {
    using value_type = T;
    static constexpr size_t kHuge = size_t{2} << 20;

    HugePageAllocator() = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U>&) {}

    T* allocate(size_t n) {
        if (n > size_t(-1) / sizeof(T)) {
            throw std::bad_alloc();
        }
        const size_t bytes = n * sizeof(T);
        if (bytes < kHuge) {
            return static_cast<T*>(::operator new(bytes));
        }
        const size_t rounded = (bytes + kHuge - 1) & ~(kHuge - 1);
        void* p = std::aligned_alloc(kHuge, rounded);
        if (p == nullptr) {
            throw std::bad_alloc();
        }
        adviseHugePages(p, rounded);
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t n) {
        if (n * sizeof(T) < kHuge) {
            ::operator delete(p);
        } else {
            std::free(p);
        }
    }
    template <class U>
    bool operator==(const HugePageAllocator<U>&) const {
        return true;
    }
    template <class U>
    bool operator!=(const HugePageAllocator<U>&) const {
        return false;
    }
};

}  // namespace qt
