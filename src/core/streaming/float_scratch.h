// A scratch file of floats that vanishes when closed: a raster's samples between its GDAL read and
// their quantisation, when they are more than memory.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/result.h"

namespace qt {

class FloatScratch {
public:
    // An unnamed file of `count` floats in the folder `dir`, its blocks allocated first (a full
    // disk is one line here). One line on failure, without the folder.
    static Result<FloatScratch> create(const std::string& dir, size_t count);
    FloatScratch() = default;
    FloatScratch(FloatScratch&& other) noexcept;
    FloatScratch& operator=(FloatScratch&& other) noexcept;
    FloatScratch(const FloatScratch&) = delete;
    FloatScratch& operator=(const FloatScratch&) = delete;
    ~FloatScratch();

    size_t size() const { return count_; }
    Status write(size_t first, size_t count, const float* from);
    Status read(size_t first, size_t count, float* to) const;

    // The whole file mapped read-write (for the void fill), until unmap().
    Result<float*> map();
    // Gives back the mapping's pages: written ones go back to the file, and are read again when
    // next touched. Keeps the fill's resident set bounded.
    void dropResident() const;
    void unmap();

private:
    void close();
    int fd_ = -1;
    size_t count_ = 0;
    float* mapped_ = nullptr;
};

}  // namespace qt
