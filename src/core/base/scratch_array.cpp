// The scratch file: unnamed (openUnnamedFile), written and read in ranges, or mapped.
#include "core/base/scratch_array.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace qt {
namespace {

std::string errorText(int error) {
    return std::strerror(error);
}

// pread/pwrite until every byte is moved.
template <class Io, class Pointer>
Status moveAll(Io io, int fd, Pointer data, size_t bytes, uint64_t offset, const char* what) {
    for (size_t done = 0; done < bytes;) {
        const ssize_t n = io(fd, data + done, bytes - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return Status::failure(std::string("cannot ") + what +
                                   " the scratch file: " + errorText(n < 0 ? errno : EIO));
        }
        done += size_t(n);
    }
    return {};
}

}  // namespace

void dropMappedPages(const void* begin, size_t bytes, bool mappingEnd) {
    if (bytes == 0) {
        return;
    }
    static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    const auto start = reinterpret_cast<uintptr_t>(begin);
    const uintptr_t stop = start + bytes;
    const uintptr_t from = (start + page - 1) / page * page;  // whole pages only: a neighbour's
    const uintptr_t to = mappingEnd ? (stop + page - 1) / page * page : stop / page * page;
    if (from < to) {
        ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    }
}

int openUnnamedFile(const std::string& dir) {
#ifdef O_TMPFILE
    const int unnamed = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (unnamed >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) {
        return unnamed;
    }
#endif
    const std::string name = dir + "/.qtscratchXXXXXX";
    std::vector<char> text(name.begin(), name.end());
    text.push_back('\0');
    const int fd = ::mkstemp(text.data());
    if (fd >= 0) {
        ::unlink(text.data());
    }
    return fd;
}

template <class T>
Result<ScratchArray<T>> ScratchArray<T>::create(const std::string& dir, size_t count) {
    using R = Result<ScratchArray>;
    ScratchArray scratch;
    scratch.fd_ = openUnnamedFile(dir);
    if (scratch.fd_ < 0) {
        return R::failure("cannot create a scratch file: " + errorText(errno));
    }
    scratch.count_ = count;
    const off_t bytes = off_t(count * sizeof(T));
    if (bytes > 0 && ::fallocate(scratch.fd_, 0, 0, bytes) != 0) {
        const int error = errno;
        if (error != EOPNOTSUPP) {
            return R::failure("cannot allocate a scratch file of " +
                              std::to_string((uint64_t(bytes) + 1023) >> 10) +
                              " KiB: " + errorText(error));
        }
        if (::ftruncate(scratch.fd_, bytes) != 0) {
            return R::failure("cannot size a scratch file: " + errorText(errno));
        }
    }
    return scratch;
}

template <class T>
ScratchArray<T>::ScratchArray(ScratchArray&& other) noexcept {
    *this = std::move(other);
}

template <class T>
ScratchArray<T>& ScratchArray<T>::operator=(ScratchArray&& other) noexcept {
    if (this != &other) {
        close();
        fd_ = other.fd_;
        count_ = other.count_;
        mapped_ = other.mapped_;
        other.fd_ = -1;
        other.count_ = 0;
        other.mapped_ = nullptr;
    }
    return *this;
}

template <class T>
ScratchArray<T>::~ScratchArray() {
    close();
}

template <class T>
void ScratchArray<T>::close() {
    unmap();
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

template <class T>
Status ScratchArray<T>::write(size_t first, size_t count, const T* from) {
    return moveAll(::pwrite, fd_, reinterpret_cast<const char*>(from), count * sizeof(T),
                   uint64_t(first) * sizeof(T), "write");
}

template <class T>
Status ScratchArray<T>::read(size_t first, size_t count, T* to) const {
    return moveAll(::pread, fd_, reinterpret_cast<char*>(to), count * sizeof(T),
                   uint64_t(first) * sizeof(T), "read");
}

template <class T>
Result<T*> ScratchArray<T>::map() {
    if (mapped_ == nullptr) {
        void* address =
            ::mmap(nullptr, count_ * sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (address == MAP_FAILED) {
            return Result<T*>::failure("cannot map the scratch file: " + errorText(errno));
        }
        mapped_ = static_cast<T*>(address);
    }
    return mapped_;
}

template <class T>
void ScratchArray<T>::dropResident() const {
    if (mapped_ != nullptr) {
        dropMappedPages(mapped_, count_ * sizeof(T), true);
    }
}

template <class T>
void ScratchArray<T>::dropResident(size_t first, size_t count) const {
    if (mapped_ != nullptr && first < count_) {
        count = std::min(count, count_ - first);
        dropMappedPages(mapped_ + first, count * sizeof(T), first + count == count_);
    }
}

template <class T>
void ScratchArray<T>::unmap() {
    if (mapped_ != nullptr) {
        ::munmap(mapped_, count_ * sizeof(T));
        mapped_ = nullptr;
    }
}

template class ScratchArray<float>;
template class ScratchArray<uint8_t>;

}  // namespace qt
