// Counting replacements of the global operator new and delete, for the soak's own-heap check.
//
// Each block is taken from malloc (posix_memalign when over-aligned) and counted by its
// malloc_usable_size, so delete needs no size header and sized and unsized deletes agree. Under
// AddressSanitizer these operators still win over the runtime's (the executable is searched
// first); ASan intercepts the malloc and free they call, so errors are still caught.
#include "app/heap_count.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<size_t> liveBytes{0};
std::atomic<size_t> liveBlocks{0};
std::atomic<size_t> allocations{0};

void* counted(void* block) {
    if (block) {
        liveBytes.fetch_add(malloc_usable_size(block), std::memory_order_relaxed);
        liveBlocks.fetch_add(1, std::memory_order_relaxed);
        allocations.fetch_add(1, std::memory_order_relaxed);
    }
    return block;
}

void* allocate(size_t size, size_t alignment) {
    size = size ? size : 1;
    for (;;) {
        void* block = nullptr;
        if (alignment <= alignof(std::max_align_t)) {
            block = std::malloc(size);
        } else if (posix_memalign(&block, alignment, size) != 0) {
            block = nullptr;
        }
        if (block) {
            return counted(block);
        }
        std::new_handler handler = std::get_new_handler();
        if (!handler) {
            return nullptr;
        }
        handler();
    }
}

void* allocateOrThrow(size_t size, size_t alignment) {
    if (void* block = allocate(size, alignment)) {
        return block;
    }
    throw std::bad_alloc();
}

void release(void* block) noexcept {
    if (block) {
        liveBytes.fetch_sub(malloc_usable_size(block), std::memory_order_relaxed);
        liveBlocks.fetch_sub(1, std::memory_order_relaxed);
        std::free(block);
    }
}

constexpr size_t kPlain = alignof(std::max_align_t);

}  // namespace

namespace qt {

HeapCount heapCount() {
    return {liveBytes.load(std::memory_order_relaxed), liveBlocks.load(std::memory_order_relaxed),
            allocations.load(std::memory_order_relaxed)};
}

}  // namespace qt

// Every replaceable form, so that no sanitizer runtime's definition of one is pulled in beside
// them.
void* operator new(size_t size) {
    return allocateOrThrow(size, kPlain);
}
void* operator new[](size_t size) {
    return allocateOrThrow(size, kPlain);
}
void* operator new(size_t size, std::align_val_t a) {
    return allocateOrThrow(size, size_t(a));
}
void* operator new[](size_t size, std::align_val_t a) {
    return allocateOrThrow(size, size_t(a));
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
    return allocate(size, kPlain);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
    return allocate(size, kPlain);
}
void* operator new(size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate(size, size_t(a));
}
void* operator new[](size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate(size, size_t(a));
}
void operator delete(void* block) noexcept {
    release(block);
}
void operator delete[](void* block) noexcept {
    release(block);
}
void operator delete(void* block, size_t) noexcept {
    release(block);
}
void operator delete[](void* block, size_t) noexcept {
    release(block);
}
void operator delete(void* block, std::align_val_t) noexcept {
    release(block);
}
void operator delete[](void* block, std::align_val_t) noexcept {
    release(block);
}
void operator delete(void* block, size_t, std::align_val_t) noexcept {
    release(block);
}
void operator delete[](void* block, size_t, std::align_val_t) noexcept {
    release(block);
}
void operator delete(void* block, const std::nothrow_t&) noexcept {
    release(block);
}
void operator delete[](void* block, const std::nothrow_t&) noexcept {
    release(block);
}
void operator delete(void* block, std::align_val_t, const std::nothrow_t&) noexcept {
    release(block);
}
void operator delete[](void* block, std::align_val_t, const std::nothrow_t&) noexcept {
    release(block);
}
