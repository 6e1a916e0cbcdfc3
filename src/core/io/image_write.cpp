// Whole-file writes with every step checked, replacing a file only once the new one is complete,
// and PNG encoding through stb_image_write.
#include "core/io/image_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <stb_image_write.h>

#include "core/base/text.h"

namespace qt {

namespace {

// Writes every byte to fd; false with errno set when a write fails.
bool writeAll(int fd, const void* data, size_t size) {
    const auto* from = static_cast<const char*>(data);
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::write(fd, from + done, size - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            errno = n == 0 ? EIO : errno;
            return false;
        }
        done += size_t(n);
    }
    return true;
}

// Writes the bytes into the file at `path` itself (truncated first): for what is not a regular
// file (a device such as /dev/full or /dev/stdout, a FIFO), where a partial write leaves no file.
Status writeInPlace(const std::string& path, const void* data, size_t size) {
    auto failed = [&](const char* what, int error) {
        return Status::failure(escapedPath(path) + ": cannot " + what + " the file (" +
                               std::strerror(error) + ")");
    };
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        return failed("create", errno);
    }
    const bool wrote = writeAll(fd, data, size);
    const int writeError = errno;
    if (::close(fd) != 0 || !wrote) {
        return failed("write", !wrote ? writeError : errno);
    }
    return {};
}

}  // namespace

Status writeFile(const std::string& path, const void* data, size_t size) {
    auto failed = [&](const char* what, int error) {
        return Status::failure(escapedPath(path) + ": cannot " + what + " the file (" +
                               std::strerror(error) + ")");
    };
    // A regular file (or a new one) is replaced whole: the bytes go to a temporary beside it,
    // renamed over it once written and flushed. A symbolic link is followed to the file it names,
    // so that the link stays; anything else (a device, a FIFO, a directory) is written in place.
    std::string target = path;
    struct stat st {};
    bool exists = ::lstat(path.c_str(), &st) == 0;
    if (exists && S_ISLNK(st.st_mode)) {
        char* resolved = ::realpath(path.c_str(), nullptr);
        exists = resolved != nullptr && ::stat(resolved, &st) == 0;
        if (resolved == nullptr) {
            return writeInPlace(path, data, size);  // a link to nothing: made where it points
        }
        target = resolved;
        std::free(resolved);
    }
    if (exists && !S_ISREG(st.st_mode)) {
        return writeInPlace(path, data, size);
    }
    if (exists && ::access(target.c_str(), W_OK) != 0) {
        return failed("create", errno);  // as opening it for writing would
    }
    std::string temporary;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
        temporary = target + ".tmp" + std::to_string(::getpid()) +
                    (attempt == 0 ? "" : "-" + std::to_string(attempt));
        fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) {
            const int error = errno;
            // A folder that takes no new file, around a file that may be written: in place.
            if (exists && (error == EACCES || error == EPERM)) {
                return writeInPlace(path, data, size);
            }
            return failed("create", error);
        }
    }
    if (fd < 0) {
        return failed("create", EEXIST);
    }
    // The file it replaces keeps its permissions.
    if (exists) {
        (void)::fchmod(fd, st.st_mode & 07777);
    }
    const bool wrote = writeAll(fd, data, size) && ::fsync(fd) == 0;
    const int writeError = errno;
    const bool closed = ::close(fd) == 0;
    const int closeError = errno;
    if (!wrote || !closed) {
        ::unlink(temporary.c_str());
        return failed("write", !wrote ? writeError : closeError);
    }
    if (std::rename(temporary.c_str(), target.c_str()) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        return failed("write", error);
    }
    return {};
}

Status writePng(const std::string& path, int width, int height, int channels,
                const uint8_t* pixels) {
    std::vector<uint8_t> png;
    const auto append = [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<uint8_t>*>(context);
        const auto* bytes = static_cast<const uint8_t*>(data);
        out->insert(out->end(), bytes, bytes + size);
    };
    if (!stbi_write_png_to_func(append, &png, width, height, channels, pixels, width * channels) ||
        png.empty()) {
        return Status::failure(escapedPath(path) + ": cannot encode the " + std::to_string(width) +
                               "x" + std::to_string(height) + " PNG");
    }
    return writeFile(path, png.data(), png.size());
}

Status writeRgbaAsRgbPng(const std::string& path, int width, int height,
                         const std::vector<uint8_t>& rgba) {
    std::vector<uint8_t> rgb(rgba.size() / 4 * 3);
    for (size_t i = 0, j = 0; i < rgba.size(); i += 4, j += 3) {
        std::copy(&rgba[i], &rgba[i] + 3, &rgb[j]);
    }
    return writePng(path, width, height, 3, rgb.data());
}

}  // namespace qt
