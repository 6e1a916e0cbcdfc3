// Which files beside a map are the program's own: looked at with lstat, opened only when regular
// and never in a way that can block, replaced and removed only when they start with its magic.
#include "core/streaming/own_files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

namespace qt {
namespace {

std::string errorText(int error) {
    return std::strerror(error);
}

PathClaim other(std::string why) {
    return {PathClaim::Other, std::move(why)};
}

// What a file of this mode is, when it is not a regular file.
std::string notRegular(mode_t mode) {
    return S_ISDIR(mode) ? "a directory" : S_ISLNK(mode) ? "a symbolic link" : "not a regular file";
}

}  // namespace

bool writeAllAt(int fd, const void* data, size_t bytes, uint64_t offset) {
    const auto* from = static_cast<const char*>(data);
    for (size_t done = 0; done < bytes;) {
        const ssize_t n = ::pwrite(fd, from + done, bytes - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = EIO;
            }
            return false;
        }
        done += size_t(n);
    }
    return true;
}

int openIfOurs(const std::string& path, const FileMagic& magic, PathClaim& claim) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        // Nothing there, or a folder on the way that is not one: nothing can be there either.
        claim = errno == ENOENT || errno == ENOTDIR
                    ? PathClaim{}
                    : other("unreadable (" + errorText(errno) + ")");
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        claim = other(notRegular(st.st_mode));
        return -1;
    }
    // The look above is only a look: what is opened is checked again through its descriptor.
    // Looking is not using: O_NOATIME leaves the access time that orders the cache folder
    // (trimCacheFolder) as it was; it is refused (EPERM) for a file of another owner.
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOATIME);
    if (fd < 0 && errno == EPERM) {
        fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    }
    if (fd < 0) {
        claim = errno == ENOENT  ? PathClaim{}
                : errno == ELOOP ? other("a symbolic link")
                                 : other("unreadable (" + errorText(errno) + ")");
        return -1;
    }
    struct stat opened {};
    if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
        ::close(fd);
        claim = other(notRegular(opened.st_mode));
        return -1;
    }
    char head[kFileMagicBytes] = {};
    ssize_t got = -1;
    do {
        got = ::pread(fd, head, sizeof head, 0);
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
        const int error = errno;
        ::close(fd);
        claim = other("unreadable (" + errorText(error) + ")");
        return -1;
    }
    if (size_t(got) != sizeof head || std::memcmp(head, magic.bytes, sizeof head) != 0) {
        ::close(fd);
        claim = other(std::string("not a quadterrain ") + magic.kind);
        return -1;
    }
    claim = {PathClaim::Ours, ""};
    return fd;
}

PathClaim claimPath(const std::string& path, const FileMagic& magic) {
    PathClaim claim;
    const int fd = openIfOurs(path, magic, claim);
    if (fd >= 0) {
        ::close(fd);
    }
    return claim;
}

bool removeIfOurs(const std::string& path, const FileMagic& magic) {
    return claimPath(path, magic).ours() && ::unlink(path.c_str()) == 0;
}

std::string temporaryPathFor(const std::string& path) {
    return path + ".tmp" + std::to_string(::getpid());
}

Result<int> createOwnTemporary(const std::string& path, const FileMagic& magic) {
    using R = Result<int>;
    const std::string temporary = temporaryPathFor(path);
    for (int attempt = 0;; ++attempt) {
        const int fd =
            ::open(temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (!writeAllAt(fd, magic.bytes, kFileMagicBytes, 0)) {
                const int error = errno;
                ::close(fd);
                ::unlink(temporary.c_str());
                return R::failure("cannot write: " + errorText(error));
            }
            return fd;
        }
        const int error = errno;
        // Only an abandoned temporary of our own is taken over, once.
        if (error != EEXIST || attempt > 0 || !removeIfOurs(temporary, magic)) {
            return R::failure("cannot create: " + errorText(error));
        }
    }
}

Status replaceOwnFile(const std::string& temporary, const std::string& path,
                      const FileMagic& magic) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        const PathClaim claim = claimPath(path, magic);
        if (claim.other()) {
            return Status::failure("left alone (" + claim.why + ")");
        }
        if (claim.ours()) {
            if (std::rename(temporary.c_str(), path.c_str()) != 0) {
                return Status::failure("cannot rename into place: " + errorText(errno));
            }
            return {};
        }
        // Nothing there: a file that appears meanwhile is never replaced.
        if (::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) ==
            0) {
            return {};
        }
        const int error = errno;
        if (error == EINVAL || error == ENOSYS) {
            // A file system without RENAME_NOREPLACE: a link fails when the name is taken.
            if (::link(temporary.c_str(), path.c_str()) == 0) {
                ::unlink(temporary.c_str());
                return {};
            }
            if (errno != EEXIST) {
                return Status::failure("cannot rename into place: " + errorText(errno));
            }
        } else if (error != EEXIST) {
            return Status::failure("cannot rename into place: " + errorText(error));
        }
        // Made while this was written: looked at again.
    }
    return Status::failure("cannot rename into place: " + errorText(EEXIST));
}

int removeAbandonedTemporaries(const std::string& path, const FileMagic& magic,
                               const std::string& keepOneAs) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    const std::string prefix = target.filename().string() + ".tmp";
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code error;
    fs::directory_iterator entries(folder, error);
    int removed = 0;
    bool kept = false;
    for (; !error && entries != fs::directory_iterator(); entries.increment(error)) {
        const std::string name = entries->path().filename().string();
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
            name.size() - prefix.size() > 9 ||
            name.find_first_not_of("0123456789", prefix.size()) != std::string::npos) {
            continue;  // not path.tmpPID
        }
        const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
        if (pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) {
            const std::string abandoned = entries->path().string();
            if (!kept && !keepOneAs.empty() && claimPath(abandoned, magic).ours() &&
                replaceOwnFile(abandoned, keepOneAs, magic)) {
                kept = true;
                ++removed;
                continue;
            }
            removed += removeIfOurs(abandoned, magic) ? 1 : 0;
        }
    }
    return removed;
}

Status writeOwnFile(const std::string& path, const FileMagic& magic, const unsigned char* bytes,
                    size_t count) {
    if (const PathClaim claim = claimPath(path, magic); claim.other()) {
        return Status::failure("left alone (" + claim.why + ")");
    }
    removeAbandonedTemporaries(path, magic);
    const Result<int> created = createOwnTemporary(path, magic);
    if (!created) {
        return Status::failure(created.error());
    }
    const int fd = created.value();
    const std::string temporary = temporaryPathFor(path);
    const bool written = writeAllAt(fd, bytes, count, 0);
    const int writeError = errno;
    const bool closed = ::close(fd) == 0;
    if (!written || !closed) {
        const int error = !written ? writeError : errno;
        ::unlink(temporary.c_str());
        return Status::failure(std::string("cannot write: ") + std::strerror(error));
    }
    if (Status placed = replaceOwnFile(temporary, path, magic); !placed) {
        ::unlink(temporary.c_str());
        return placed;
    }
    return {};
}

Result<int> openRegularFile(const std::string& path, uint64_t* bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return Result<int>::failure(
            errno == ENOENT ? "missing" : std::string("unreadable: ") + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Result<int>::failure("not a regular file");
    }
    if (bytes != nullptr) {
        *bytes = uint64_t(st.st_size);
    }
    return fd;
}

Result<std::vector<unsigned char>> readFileOfSize(const std::string& path, uint64_t expected) {
    using R = Result<std::vector<unsigned char>>;
    uint64_t size = 0;
    const Result<int> opened = openRegularFile(path, &size);
    if (!opened) {
        return R::failure(opened.error());
    }
    const int fd = opened.value();
    if (size != expected) {
        ::close(fd);
        return R::failure(size < expected ? "truncated" : "longer than expected");
    }
    std::vector<unsigned char> bytes(static_cast<size_t>(expected));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::pread(fd, bytes.data() + done, bytes.size() - done, off_t(done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            const int error = got < 0 ? errno : 0;
            ::close(fd);
            return R::failure(got == 0 ? std::string("truncated")
                                       : std::string("unreadable: ") + std::strerror(error));
        }
        done += size_t(got);
    }
    ::close(fd);
    return bytes;
}

}  // namespace qt
