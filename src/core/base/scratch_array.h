// A scratch file of values that vanishes when closed, for arrays larger than memory: a raster's
// samples between its GDAL read and their quantisation (floats), a streamed map's light (bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/base/result.h"

namespace qt {

// Gives back this process's whole pages of a file mapping in [begin, begin + bytes), and with
// `mappingEnd` (the range ends the mapping) the page it ends in too: they stay in the file's page
// cache (written ones marked for writing back) and are read again when next touched. Readers and
// writers of arrays larger than memory call it behind them to keep their resident set bounded.
void dropMappedPages(const void* begin, size_t bytes, bool mappingEnd);

// An unnamed read-write file in the folder `dir` (O_TMPFILE, or a new name unlinked at once):
// a file that is never anyone's to find, gone when closed. -1 with errno set on failure.
int openUnnamedFile(const std::string& dir);

template <class T>
class ScratchArray {
public:
    // An unnamed file of `count` values in the folder `dir`, its blocks allocated first (a full
    // disk is one line here, never a SIGBUS at a later write). One line on failure, without the
    // folder.
    static Result<ScratchArray> create(const std::string& dir, size_t count);
    ScratchArray() = default;
    ScratchArray(ScratchArray&& other) noexcept;
    ScratchArray& operator=(ScratchArray&& other) noexcept;
    ScratchArray(const ScratchArray&) = delete;
    ScratchArray& operator=(const ScratchArray&) = delete;
    ~ScratchArray();

    size_t size() const { return count_; }
    Status write(size_t first, size_t count, const T* from);
    Status read(size_t first, size_t count, T* to) const;

    // The whole file mapped read-write, until unmap().
    Result<T*> map();
    // Gives back the mapping's pages: written ones go back to the file, and are read again when
    // next touched. Keeps the resident set bounded.
    void dropResident() const;
    // The same for the whole pages of values [first, first + count) (and the mapping's last page
    // when the range ends the array).
    void dropResident(size_t first, size_t count) const;
    void unmap();

private:
    void close();
    int fd_ = -1;
    size_t count_ = 0;
    T* mapped_ = nullptr;
};

using FloatScratch = ScratchArray<float>;
using ByteScratch = ScratchArray<uint8_t>;

}  // namespace qt
