// Maps a file of little-endian 16-bit samples read-only and shares the mapping as a CodeArray.
#include "core/streaming/mapped_codes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace qt {
namespace {

FileStamp stampOf(const struct stat& st) {
    return {uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// Unmaps on destruction: the keeper shared by every copy of the view.
struct Mapping {
    void* address = nullptr;
    size_t bytes = 0;
    Mapping(void* a, size_t n) : address(a), bytes(n) {}
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping() { ::munmap(address, bytes); }
};

}  // namespace

bool canMapCodes() {
    const uint16_t one = 1;
    unsigned char first = 0;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

Result<FileStamp> fileStamp(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return Result<FileStamp>::failure(std::strerror(errno));
    }
    return stampOf(st);
}

namespace {

// Only async-signal-safe calls: one write of a fixed line, then _exit.
void onMappedReadFault(int) {
    static const char kLine[] =
        "quadterrain: a mapped file (a .r16 map or a code cache) became shorter while in use "
        "(changed on disk); stopping\n";
    const ssize_t written = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
    (void)written;
    ::_exit(1);
}

}  // namespace

void guardMappedReads() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction action {};
        action.sa_handler = onMappedReadFault;
        sigemptyset(&action.sa_mask);
        ::sigaction(SIGBUS, &action, nullptr);
    });
}

Result<MappedCodes> mapCodes(const std::string& path, uint64_t expectedBytes,
                             uint64_t headerBytes) {
    using R = Result<MappedCodes>;
    if (!canMapCodes()) {
        return R::failure("cannot map little-endian samples on a big-endian host; not streamed");
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return R::failure(std::string("cannot open: ") + std::strerror(errno));
    }
    Result<MappedCodes> mapped = mapCodesOf(fd, expectedBytes, headerBytes);
    ::close(fd);  // the mapping keeps the file
    return mapped;
}

Result<MappedCodes> mapCodesOf(int fd, uint64_t expectedBytes, uint64_t headerBytes) {
    using R = Result<MappedCodes>;
    if (!canMapCodes()) {
        return R::failure("cannot map little-endian samples on a big-endian host; not streamed");
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return R::failure(std::string("cannot stat: ") + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        return R::failure("not a regular file");
    }
    const FileStamp stamp = stampOf(st);
    if (stamp.bytes != expectedBytes || expectedBytes < headerBytes + 2) {
        return R::failure("file changed while opening (" + std::to_string(stamp.bytes) +
                          " bytes, expected " + std::to_string(expectedBytes) + ")");
    }
    void* address = ::mmap(nullptr, size_t(expectedBytes), PROT_READ, MAP_SHARED, fd, 0);
    if (address == MAP_FAILED) {
        return R::failure(std::string("cannot map: ") + std::strerror(errno));
    }
    auto keeper = std::make_shared<const Mapping>(address, size_t(expectedBytes));
    MappedCodes mapped;
    const auto* codes = static_cast<const uint16_t*>(address) + headerBytes / 2;
    mapped.codes =
        CodeArray::view(std::move(keeper), codes, size_t((expectedBytes - headerBytes) / 2));
    mapped.stamp = stamp;
    return mapped;
}

}  // namespace qt
