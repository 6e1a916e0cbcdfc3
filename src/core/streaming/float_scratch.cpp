// The scratch file of floats: unnamed (openUnnamedFile), written and read in ranges, mapped for
// the void fill.
#include "core/streaming/float_scratch.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/streaming/own_files.h"

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

Result<FloatScratch> FloatScratch::create(const std::string& dir, size_t count) {
    using R = Result<FloatScratch>;
    FloatScratch scratch;
    scratch.fd_ = openUnnamedFile(dir);
    if (scratch.fd_ < 0) {
        return R::failure("cannot create a scratch file: " + errorText(errno));
    }
    scratch.count_ = count;
    const off_t bytes = off_t(count * sizeof(float));
    if (::fallocate(scratch.fd_, 0, 0, bytes) != 0) {
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

FloatScratch::FloatScratch(FloatScratch&& other) noexcept {
    *this = std::move(other);
}

FloatScratch& FloatScratch::operator=(FloatScratch&& other) noexcept {
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

FloatScratch::~FloatScratch() {
    close();
}

void FloatScratch::close() {
    unmap();
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

Status FloatScratch::write(size_t first, size_t count, const float* from) {
    return moveAll(::pwrite, fd_, reinterpret_cast<const char*>(from), count * sizeof(float),
                   uint64_t(first) * sizeof(float), "write");
}

Status FloatScratch::read(size_t first, size_t count, float* to) const {
    return moveAll(::pread, fd_, reinterpret_cast<char*>(to), count * sizeof(float),
                   uint64_t(first) * sizeof(float), "read");
}

Result<float*> FloatScratch::map() {
    if (mapped_ == nullptr) {
        void* address =
            ::mmap(nullptr, count_ * sizeof(float), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (address == MAP_FAILED) {
            return Result<float*>::failure("cannot map the scratch file: " + errorText(errno));
        }
        mapped_ = static_cast<float*>(address);
    }
    return mapped_;
}

void FloatScratch::dropResident() const {
    if (mapped_ != nullptr) {
        // Shared with the file: written pages stay in the page cache, marked for writing back.
        ::madvise(mapped_, count_ * sizeof(float), MADV_DONTNEED);
    }
}

void FloatScratch::unmap() {
    if (mapped_ != nullptr) {
        ::munmap(mapped_, count_ * sizeof(float));
        mapped_ = nullptr;
    }
}

}  // namespace qt
