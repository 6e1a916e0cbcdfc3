// The code cache's file: its header, where it is kept, and writing it beside its final path.
#include "core/streaming/code_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "core/base/byte_fields.h"
#include "core/base/scratch_array.h"
#include "core/base/text.h"
#include "core/streaming/nodata_sidecar.h"
#include "core/streaming/own_files.h"
#include "core/streaming/tree_sidecar.h"

namespace qt {
namespace {

// Header layout (little-endian):
//   0 magic "QTCODES\0"   8 version u32   12 nodata samples u32   16 source u64   24 width u32
//  28 height u32
//  32 coding offset f32   36 coding step f32         40 checksum u64 of bytes 0..39
//  48 map path length u32 (0: none)   52 0 u32       56 checksum u64 of the path's bytes
//  64 the map's absolute path (no terminator)
// then zeros up to kCodeCacheHeaderBytes, then width x height codes, row 0 first.
constexpr uint32_t kVersion = 2;
constexpr size_t kChecksumOffset = 40;
constexpr size_t kUsedBytes = 48;
constexpr size_t kPathOffset = 64;  // the recorded map path, after its length and checksum

// FNV-1a over bytes.
uint64_t fnv(uint64_t h, const void* data, size_t count) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < count; ++i) {
        h = (h ^ bytes[i]) * 0x100000001b3ull;
    }
    return h;
}
constexpr uint64_t kFnvStart = 0xcbf29ce484222325ull;

// The path made absolute and normal, as a cache's header records it; `path` as it is when it
// cannot be made absolute.
std::string absoluteMapPath(const std::string& path) {
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(path, error);
    return error ? path : absolute.lexically_normal().string();
}

std::string errorText(int error) {
    return std::strerror(error);
}

}  // namespace

uint64_t codeCacheBytes(int width, int height) {
    return kCodeCacheHeaderBytes + uint64_t(width) * uint64_t(height) * 2;
}

std::string recordedMapPath(const std::string& mapPath) {
    const std::string absolute = absoluteMapPath(mapPath);
    std::error_code error;
    return !absolute.empty() && absolute[0] == '/' &&
                   std::filesystem::is_regular_file(absolute, error) && !error
               ? absolute
               : "";
}

std::vector<std::string> removeOrphanedCodeCaches(const std::string& folder) {
    namespace fs = std::filesystem;
    std::vector<std::string> removed;
    std::error_code error;
    fs::directory_iterator entries(folder, error);
    if (error) {
        return removed;
    }
    for (const fs::directory_entry& entry : entries) {
        const std::string path = entry.path().string();
        if (entry.path().extension() != ".qtcodes") {
            continue;
        }
        // Only a cache of ours, a regular file (never through a link), opened without blocking.
        PathClaim claim;
        const int fd = openIfOurs(path, kCodeCacheMagic, claim);
        if (fd < 0) {
            continue;
        }
        unsigned char bytes[kCodeCacheHeaderBytes] = {};
        const ssize_t got = ::pread(fd, bytes, sizeof bytes, 0);
        ::close(fd);
        if (got != ssize_t(sizeof bytes) ||
            fnv(kFnvStart, bytes, kChecksumOffset) != getField<uint64_t>(bytes + kChecksumOffset)) {
            continue;
        }
        const uint32_t length = getField<uint32_t>(bytes + 48);
        if (length == 0 || length > kCodeCacheHeaderBytes - kPathOffset ||
            fnv(kFnvStart, bytes + kPathOffset, length) != getField<uint64_t>(bytes + 56)) {
            continue;
        }
        const fs::path mapPath(
            std::string(reinterpret_cast<const char*>(bytes + kPathOffset), length));
        // Missing from a folder that is there: a map on a drive that is not mounted now (its
        // folder gone too) keeps its cache.
        const bool gone = mapPath.is_absolute() && !fs::exists(mapPath, error) && !error &&
                          fs::is_directory(mapPath.parent_path(), error) && !error;
        if (!gone) {
            continue;
        }
        if (::unlink(path.c_str()) == 0) {
            removeIfOurs(sidecarPath(path), kTreeSidecarMagic);
            removeIfOurs(nodataSidecarPath(path), kNodataSidecarMagic);
            removed.push_back(path);
        }
    }
    return removed;
}

void markCacheUsed(const std::string& path) {
    const timespec times[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
    (void)::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

namespace {

// What trimCacheFolder may remove as one: a code cache and its sidecars, or a .r16's sidecar.
struct CacheUnit {
    std::vector<std::pair<std::string, const FileMagic*>> files;  // the first names the unit
    uint64_t bytes = 0;
    timespec used{};  // the first file's access time
};

// Adds `path` to `unit` when it is the program's own file of kind `magic` (a regular file, never
// through a link); false otherwise.
bool addIfOurs(CacheUnit& unit, const std::string& path, const FileMagic& magic) {
    struct stat st {};  // before the claim reads its magic
    if (::lstat(path.c_str(), &st) != 0 || !claimPath(path, magic).ours()) {
        return false;
    }
    if (unit.files.empty()) {
        unit.used = st.st_atim;
    }
    unit.files.emplace_back(path, &magic);
    unit.bytes += uint64_t(st.st_size);
    return true;
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<std::vector<std::string>> trimCacheFolder(const std::string& folder, uint64_t limitBytes,
                                                 uint64_t needBytes, const std::string& keep) {
    namespace fs = std::filesystem;
    using R = Result<std::vector<std::string>>;
    const auto over = [&]() {
        return R::failure("it needs " + std::to_string((needBytes + (1 << 20) - 1) >> 20) +
                          " MiB, over --cache-size of " + std::to_string(limitBytes >> 20) +
                          " MiB");
    };
    if (needBytes > limitBytes) {
        return over();
    }
    std::vector<CacheUnit> units;
    uint64_t total = 0;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
        const std::string path = entry.path().string();
        CacheUnit unit;
        if (endsWith(path, ".qtcodes")) {
            if (!addIfOurs(unit, path, kCodeCacheMagic)) {
                continue;
            }
            addIfOurs(unit, sidecarPath(path), kTreeSidecarMagic);
            addIfOurs(unit, nodataSidecarPath(path), kNodataSidecarMagic);
        } else if (endsWith(path, ".qtcodes.partial")) {
            // An unfinished cache kept to resume: up to a cache's length.
            if (!addIfOurs(unit, path, kCodeCacheMagic)) {
                continue;
            }
        } else if (endsWith(path, ".qtree") && !endsWith(path, ".qtcodes.qtree")) {
            if (!addIfOurs(unit, path, kTreeSidecarMagic)) {
                continue;
            }
        } else {
            continue;
        }
        // `keep` is replaced, and its partial file becomes it: neither counted nor removed.
        const std::string& named = unit.files.front().first;
        if (named != keep && named != partialCachePath(keep)) {
            total += unit.bytes;
            units.push_back(std::move(unit));
        }
    }
    // Least recently used first; the plan is made whole before anything is removed.
    std::sort(units.begin(), units.end(), [](const CacheUnit& a, const CacheUnit& b) {
        return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec < b.used.tv_sec
                                              : a.used.tv_nsec < b.used.tv_nsec;
    });
    size_t go = 0;
    uint64_t left = total;
    while (left + needBytes > limitBytes && go < units.size()) {
        left -= units[go++].bytes;
    }
    if (left + needBytes > limitBytes) {
        return over();
    }
    std::vector<std::string> removed;
    for (size_t i = 0; i < go; ++i) {
        for (const auto& [path, magic] : units[i].files) {
            if (removeIfOurs(path, *magic)) {
                removed.push_back(path);
            }
        }
    }
    return removed;
}

Status makeRoomInCacheFolder(const std::string& folder, uint64_t limitBytes, uint64_t needBytes,
                             const std::string& keep) {
    const Result<std::vector<std::string>> trimmed =
        trimCacheFolder(folder, limitBytes, needBytes, keep);
    if (!trimmed) {
        return Status::failure(trimmed.error());
    }
    for (const std::string& removed : trimmed.value()) {
        std::fprintf(stderr,
                     "%s: removed, least recently used, to keep the cache folder within "
                     "--cache-size\n",
                     escapedPath(removed).c_str());
    }
    return {};
}

uint64_t rasterSignature(const std::vector<std::string>& files) {
    uint64_t h = fnv(kFnvStart, "qtsource", 8);
    const uint64_t count = files.size();
    h = fnv(h, &count, sizeof count);
    for (const std::string& file : files) {
        struct stat st {};
        const bool found = ::stat(file.c_str(), &st) == 0;
        const int64_t fields[3] = {found ? int64_t(st.st_size) : -1,
                                   found ? int64_t(st.st_mtim.tv_sec) : 0,
                                   found ? int64_t(st.st_mtim.tv_nsec) : 0};
        h = fnv(h, fields, sizeof fields);
    }
    return h;
}

Result<CodeCacheHeader> readCodeCacheHeader(const std::string& path, uint64_t source, int width,
                                            int height) {
    using R = Result<CodeCacheHeader>;
    // Never through a symbolic link, and without blocking: a FIFO there is refused, not waited on.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return R::failure(errno == ENOENT ? "missing" : "unreadable: " + errorText(errno));
    }
    struct stat st {};
    unsigned char bytes[kUsedBytes] = {};
    const bool stated = ::fstat(fd, &st) == 0;
    const bool regular = stated && S_ISREG(st.st_mode);
    const ssize_t got = regular ? ::pread(fd, bytes, sizeof bytes, 0) : -1;
    const int error = errno;
    ::close(fd);
    if (stated && !regular) {
        return R::failure("not a regular file");
    }
    if (!stated || got < 0) {
        return R::failure("unreadable: " + errorText(error));
    }
    if (size_t(got) < kUsedBytes) {
        return R::failure("truncated");
    }
    if (std::memcmp(bytes, kCodeCacheMagic.bytes, kFileMagicBytes) != 0) {
        return R::failure("corrupt (not a code cache)");
    }
    if (getField<uint32_t>(bytes + 8) != kVersion) {
        return R::failure("version " + std::to_string(getField<uint32_t>(bytes + 8)) + ", not " +
                          std::to_string(kVersion));
    }
    if (fnv(kFnvStart, bytes, kChecksumOffset) != getField<uint64_t>(bytes + kChecksumOffset)) {
        return R::failure("corrupt (header checksum)");
    }
    if (getField<uint64_t>(bytes + 16) != source) {
        return R::failure("stale (the map or a file it reads changed)");
    }
    if (getField<uint32_t>(bytes + 24) != uint32_t(width) ||
        getField<uint32_t>(bytes + 28) != uint32_t(height)) {
        return R::failure("made for another map size");
    }
    CodeCacheHeader header;
    header.source = source;
    header.width = width;
    header.height = height;
    header.coding.offset = getField<float>(bytes + 32);
    header.coding.step = getField<float>(bytes + 36);
    header.nodataSamples = getField<uint32_t>(bytes + 12);
    if (uint64_t(header.nodataSamples) >= uint64_t(width) * uint64_t(height)) {
        return R::failure("corrupt (nodata count)");
    }
    if (!std::isfinite(header.coding.offset) || !(header.coding.step > 0.0f) ||
        !std::isfinite(header.coding.step)) {
        return R::failure("corrupt (coding)");
    }
    const uint64_t expected = codeCacheBytes(width, height);
    if (uint64_t(st.st_size) != expected) {
        return R::failure(uint64_t(st.st_size) < expected ? "truncated"
                                                          : "corrupt (trailing bytes)");
    }
    return header;
}

uint64_t freeDiskBytes(const std::string& dir) {
    struct statvfs fs {};
    if (::statvfs(dir.c_str(), &fs) != 0) {
        return 0;
    }
    return uint64_t(fs.f_bavail) * uint64_t(fs.f_frsize);
}

std::string partialCachePath(const std::string& path) {
    return path + ".partial";
}

Result<CodeCacheWriter> CodeCacheWriter::create(const std::string& path, int width, int height,
                                                Unfinished unfinished, Blocks blocks) {
    using R = Result<CodeCacheWriter>;
    CodeCacheWriter writer;
    writer.path_ = path;
    writer.width_ = width;
    writer.height_ = height;
    writer.keepUnfinished_ = unfinished == Unfinished::KeptToResume;
    // Only a cache of ours is replaced: a file of anyone else's at its path stays as it is.
    const PathClaim claim = claimPath(path, kCodeCacheMagic);
    if (claim.other()) {
        return R::failure("left alone (" + claim.why + ")");
    }
    // A killed writer's temporary of a resumable cache becomes its partial file: it holds what
    // that writer read, and any partial file it took up.
    removeAbandonedTemporaries(path, kCodeCacheMagic,
                               writer.keepUnfinished_ ? partialCachePath(path) : std::string());
    if (writer.keepUnfinished_ && writer.takePartial()) {
        return sized(std::move(writer), blocks);
    }
    Result<int> created = createOwnTemporary(path, kCodeCacheMagic);
    if (!created) {
        return R::failure(created.error());
    }
    writer.fd_ = created.value();
    writer.temporary_ = temporaryPathFor(path);
    return sized(std::move(writer), blocks);
}

Result<CodeCacheWriter> CodeCacheWriter::createUnnamed(const std::string& dir, int width,
                                                       int height, Blocks blocks) {
    using R = Result<CodeCacheWriter>;
    CodeCacheWriter writer;
    writer.width_ = width;
    writer.height_ = height;
    writer.fd_ = openUnnamedFile(dir);
    if (writer.fd_ < 0) {
        return R::failure("cannot create a file for its codes: " + errorText(errno));
    }
    return sized(std::move(writer), blocks);
}

Result<CodeCacheWriter> CodeCacheWriter::sized(CodeCacheWriter writer, Blocks blocks) {
    using R = Result<CodeCacheWriter>;
    const uint64_t bytes = codeCacheBytes(writer.width_, writer.height_);
    // AllocatedNow: every block allocated now, so a full disk is one line here, never a write
    // that fails part way through the pass. File systems without fallocate, and AsWritten, get
    // the length alone.
    const bool allocated =
        blocks == Blocks::AllocatedNow && ::fallocate(writer.fd_, 0, 0, off_t(bytes)) == 0;
    if (!allocated) {
        const int error = errno;
        if (blocks == Blocks::AllocatedNow && error != EOPNOTSUPP) {
            return R::failure("cannot allocate " + std::to_string((bytes + 1023) >> 10) +
                              " KiB: " + errorText(error));
        }
        if (::ftruncate(writer.fd_, off_t(bytes)) != 0) {
            return R::failure("cannot size: " + errorText(errno));
        }
    }
    Result<MappedCodes> mapped = mapCodesOf(writer.fd_, bytes, kCodeCacheHeaderBytes);
    if (!mapped) {
        return R::failure(mapped.error());
    }
    writer.codes_ = std::move(mapped.value().codes);
    return writer;
}

bool CodeCacheWriter::takePartial() {
    const std::string partial = partialCachePath(path_);
    if (!claimPath(partial, kCodeCacheMagic).ours()) {
        return false;
    }
    const std::string temporary = temporaryPathFor(path_);
    if (std::rename(partial.c_str(), temporary.c_str()) != 0) {
        return false;  // taken by another open meanwhile, or not ours to move
    }
    // Looked at again once it is this writer's: a regular file of ours, of the cache's length.
    const int fd = ::open(temporary.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        uint64_t(st.st_size) != codeCacheBytes(width_, height_) ||
        !claimPath(temporary, kCodeCacheMagic).ours()) {
        if (fd >= 0) {
            ::close(fd);
        }
        removeIfOurs(temporary, kCodeCacheMagic);  // a partial of another size is of no use
        return false;
    }
    fd_ = fd;
    temporary_ = temporary;
    resumed_ = true;
    return true;
}

CodeCacheWriter::CodeCacheWriter(CodeCacheWriter&& other) noexcept {
    *this = std::move(other);
}

CodeCacheWriter& CodeCacheWriter::operator=(CodeCacheWriter&& other) noexcept {
    if (this != &other) {
        discard();
        path_ = std::move(other.path_);
        temporary_ = std::move(other.temporary_);
        keepUnfinished_ = other.keepUnfinished_;
        resumed_ = other.resumed_;
        fd_ = other.fd_;
        width_ = other.width_;
        height_ = other.height_;
        codes_ = std::move(other.codes_);
        other.temporary_.clear();
        other.fd_ = -1;
    }
    return *this;
}

CodeCacheWriter::~CodeCacheWriter() {
    discard();
}

void CodeCacheWriter::discard() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    if (!temporary_.empty()) {
        // Kept to resume where it is the program's to keep; removed otherwise (a file of the
        // user's at the partial path stays as it is).
        if (!keepUnfinished_ ||
            !replaceOwnFile(temporary_, partialCachePath(path_), kCodeCacheMagic)) {
            ::unlink(temporary_.c_str());
        }
        temporary_.clear();
    }
}

Status CodeCacheWriter::writeAt(uint64_t offset, uint64_t bytes, const uint16_t* codes) {
    const auto* from = reinterpret_cast<const char*>(codes);
    for (uint64_t done = 0; done < bytes;) {
        const ssize_t wrote =
            ::pwrite(fd_, from + done, size_t(bytes - done), off_t(offset + done));
        if (wrote < 0 && errno == EINTR) {
            continue;
        }
        if (wrote <= 0) {
            return Status::failure("cannot write the code cache: " +
                                   errorText(wrote < 0 ? errno : ENOSPC));
        }
        done += uint64_t(wrote);
    }
    return {};
}

Status CodeCacheWriter::writeRows(int firstRow, int rowCount, const uint16_t* codes) {
    return writeAt(kCodeCacheHeaderBytes + uint64_t(firstRow) * uint64_t(width_) * 2,
                   uint64_t(rowCount) * uint64_t(width_) * 2, codes);
}

Status CodeCacheWriter::writeBlock(int x, int y, int w, int h, const uint16_t* codes) {
    assert(x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width_ && y + h <= height_);
    for (int r = 0; r < h; ++r) {
        const uint64_t at = uint64_t(y + r) * uint64_t(width_) + uint64_t(x);
        if (Status wrote = writeAt(kCodeCacheHeaderBytes + at * 2, uint64_t(w) * 2,
                                   codes + size_t(r) * size_t(w));
            !wrote) {
            return wrote;
        }
    }
    return {};
}

Result<FileStamp> CodeCacheWriter::finish(const CodeCacheHeader& header) {
    using R = Result<FileStamp>;
    assert(named());
    unsigned char bytes[kCodeCacheHeaderBytes] = {};
    std::memcpy(bytes, kCodeCacheMagic.bytes, kFileMagicBytes);
    putField<uint32_t>(bytes + 8, kVersion);
    putField<uint32_t>(bytes + 12, header.nodataSamples);
    putField<uint64_t>(bytes + 16, header.source);
    putField<uint32_t>(bytes + 24, uint32_t(width_));
    putField<uint32_t>(bytes + 28, uint32_t(height_));
    putField<float>(bytes + 32, header.coding.offset);
    putField<float>(bytes + 36, header.coding.step);
    putField<uint64_t>(bytes + kChecksumOffset, fnv(kFnvStart, bytes, kChecksumOffset));
    const std::string& mapPath = header.mapPath;
    if (!mapPath.empty() && mapPath.size() <= kCodeCacheHeaderBytes - kPathOffset) {
        putField<uint32_t>(bytes + 48, uint32_t(mapPath.size()));
        putField<uint64_t>(bytes + 56, fnv(kFnvStart, mapPath.data(), mapPath.size()));
        std::memcpy(bytes + kPathOffset, mapPath.data(), mapPath.size());
    }
    if (::pwrite(fd_, bytes, sizeof bytes, 0) != ssize_t(sizeof bytes)) {
        return R::failure("cannot write the code cache: " + errorText(errno));
    }
    // On disk before it takes the final name: a crash leaves the old file or the whole new one.
    if (::fdatasync(fd_) != 0) {
        return R::failure("cannot flush the code cache: " + errorText(errno));
    }
    if (Status placed = replaceOwnFile(temporary_, path_, kCodeCacheMagic); !placed) {
        return R::failure(placed.error());
    }
    temporary_.clear();
    const Result<FileStamp> stamp = fileStamp(path_);
    ::close(fd_);
    fd_ = -1;
    if (!stamp) {
        return R::failure(stamp.error());
    }
    return stamp.value();
}

}  // namespace qt
