// One byte a sample of light, held on the heap or, for a streamed map larger than memory, in an
// unnamed scratch file mapped read-write (core/base/scratch_array.h), whose pages the kernel
// writes back and drops rather than holding them resident.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/base/scratch_array.h"

namespace qt {

class LightBuffer {
public:
    LightBuffer() = default;
    static LightBuffer onHeap(size_t count);
    // `count` bytes in an unnamed file in the folder `dir`, its blocks allocated first (a full
    // disk is one line here). One line on failure, without the folder.
    static Result<LightBuffer> inFile(const std::string& dir, size_t count);

    uint8_t* data() { return data_; }
    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    uint8_t operator[](size_t i) const { return data_[i]; }
    std::vector<uint8_t> copy() const { return {data_, data_ + size_}; }
    bool isFile() const { return file_.size() > 0; }  // made by inFile
    // A file's mapped pages leave the process (written ones go back to the file first); no-op on
    // the heap.
    void dropResident() const { file_.dropResident(); }
    // The same for bytes [first, first + count).
    void dropResident(size_t first, size_t count) const { file_.dropResident(first, count); }

private:
    // data_ points into one of these: a vector's and a mapping's storage stay put when moved.
    std::vector<uint8_t> heap_;
    ByteScratch file_;
    uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace qt
