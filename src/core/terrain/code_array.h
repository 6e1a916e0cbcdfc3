// A map's 16-bit codes: storage of its own, or a read-only view of a memory-mapped file.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace qt {

// Default-initialises what a vector grows by (no zeroing for plain numbers): a map's codes are
// written whole by its loader, and a zeroing pass first would touch the whole map once more.
template <typename T>
struct NoZeroAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
        using other = NoZeroAllocator<U>;
    };
    NoZeroAllocator() = default;
    template <typename U>
    NoZeroAllocator(const NoZeroAllocator<U>&) {}
    template <typename U>
    void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

// A map's codes, with the vector calls the loaders and readers use. Owned codes behave as a
// std::vector whose resize(n) leaves new codes unset and resize(n, value) sets them. Mapped codes
// (CodeArray::view) are read-only: writing and resize are for owned codes only.
// Copies of a view share its mapping, which is released with the last of them.
class CodeArray {
public:
    using value_type = uint16_t;
    using iterator = uint16_t*;
    using const_iterator = const uint16_t*;

    CodeArray() = default;
    CodeArray(const CodeArray& other) : owned_(other.owned_), keeper_(other.keeper_) {
        adopt(other);
    }
    CodeArray(CodeArray&& other) noexcept
        : owned_(std::move(other.owned_)), keeper_(std::move(other.keeper_)) {
        adopt(other);
        other.reset();
    }
    CodeArray& operator=(const CodeArray& other) {
        if (this != &other) {
            owned_ = other.owned_;
            keeper_ = other.keeper_;
            adopt(other);
        }
        return *this;
    }
    CodeArray& operator=(CodeArray&& other) noexcept {
        if (this != &other) {
            owned_ = std::move(other.owned_);
            keeper_ = std::move(other.keeper_);
            adopt(other);
            other.reset();
        }
        return *this;
    }

    // A read-only view of `count` codes at `codes`, which `keeper` keeps valid (a mapping that
    // is released when the last copy of the view goes).
    static CodeArray view(std::shared_ptr<const void> keeper, const uint16_t* codes, size_t count) {
        assert(keeper != nullptr && (codes != nullptr || count == 0));
        CodeArray array;
        array.keeper_ = std::move(keeper);
        array.view_ = codes;
        array.size_ = count;
        return array;
    }

    bool isMapped() const { return keeper_ != nullptr; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }

    const uint16_t* data() const { return view_; }
    const uint16_t& operator[](size_t i) const { return view_[i]; }
    const uint16_t* begin() const { return view_; }
    const uint16_t* end() const { return view_ + size_; }

    // Writable access for loaders filling owned codes. A mapping is read-only: reading through
    // these is fine, writing faults.
    uint16_t* data() { return const_cast<uint16_t*>(view_); }
    uint16_t& operator[](size_t i) { return data()[i]; }
    uint16_t* begin() { return data(); }
    uint16_t* end() { return data() + size_; }
    void resize(size_t count) {
        assert(!isMapped());
        owned_.resize(count);
        sync();
    }
    void resize(size_t count, uint16_t value) {
        assert(!isMapped());
        owned_.resize(count, value);
        sync();
    }

    // Gives back the process's pages of codes [first, first + count) of a mapping (the whole pages
    // inside the range): they stay in the file's page cache and are read again when next touched.
    // Readers of a map larger than memory call it behind them to keep their resident set bounded.
    // Nothing for owned codes.
    void dropResident(size_t first, size_t count) const;

    friend bool operator==(const CodeArray& a, const CodeArray& b);
    friend bool operator!=(const CodeArray& a, const CodeArray& b) { return !(a == b); }

private:
    void sync() {
        view_ = owned_.data();
        size_ = owned_.size();
    }
    // Points at the mapping of `other` (keeper_ already copied) or at owned_.
    void adopt(const CodeArray& other) {
        if (keeper_ != nullptr) {
            view_ = other.view_;
            size_ = other.size_;
        } else {
            sync();
        }
    }
    void reset() {
        owned_.clear();
        keeper_.reset();
        sync();
    }

    std::vector<uint16_t, NoZeroAllocator<uint16_t>> owned_;  // empty for a view
    std::shared_ptr<const void> keeper_;                      // the mapping; null when owned
    const uint16_t* view_ = nullptr;                          // the codes: owned_.data() when owned
    size_t size_ = 0;  // codes at view_: owned_.size() when owned
};

}  // namespace qt
