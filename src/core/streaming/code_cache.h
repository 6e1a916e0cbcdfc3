// A GDAL raster's code cache: its samples quantised once into a file of 16-bit codes (in the cache
// folder, or MAP.qtcodes beside the map: cache_folder.h), which later opens map read-only as a .r16
// is mapped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/streaming/mapped_codes.h"
#include "core/terrain/code_array.h"
#include "core/terrain/heightmap.h"

namespace qt {

// Bytes before the codes: the header, padded so that the codes start on a page of their own.
constexpr uint64_t kCodeCacheHeaderBytes = 4096;

// What the header holds besides the codes. Every multi-byte number is little-endian in the file.
struct CodeCacheHeader {
    uint64_t source = 0;  // rasterSignature of the raster's files when the cache was made
    int width = 0;
    int height = 0;
    HeightCoding coding;  // of the codes (in metres where the raster's heights are lengths)
    // The raster's nodata samples, filled in the codes (the HUD's and --stats-json's count).
    uint32_t nodataSamples = 0;
    // The raster's absolute path when it is a plain file ("" otherwise, or when too long for the
    // header): what removeOrphanedCodeCaches checks.
    std::string mapPath;
};

// The cache's length for a width x height raster: the header and two bytes a sample.
uint64_t codeCacheBytes(int width, int height);

// The map's absolute path as a cache's header records it (CodeCacheHeader::mapPath): "" unless
// it names a plain file (GDAL's /vsi paths do not).
std::string recordedMapPath(const std::string& mapPath);

// Removes from `folder` every code cache (and its tree sidecar) whose header names a map that is
// missing from a folder that exists (a map on a drive that is not mounted keeps its cache): a
// cache is up to a map's size, and the folder is out of the user's sight. Only the program's own
// files go (own_files.h: regular files that start with its magic, never through a link): caches
// that name no map (a raster reached through GDAL's virtual paths), a sidecar that is not the
// program's and anything else named *.qtcodes are left alone. Returns the removed caches' paths.
std::vector<std::string> removeOrphanedCodeCaches(const std::string& folder);

// Marks the code cache at `path` used now (its access time, set explicitly: a mount's noatime or
// relatime does not hold it back), for trimCacheFolder's order. Its modification time, which its
// sidecars vouch for, is left as it is.
void markCacheUsed(const std::string& path);

// Makes room for `needBytes` more in the cache folder `folder` within `limitBytes` of the
// program's own files (--cache-size): its code caches, each with its tree and nodata sidecars,
// their partial files and the tree sidecars of streamed .r16 maps count, and go least recently
// used first (their access time) until the rest and `needBytes` fit; the cache at `keep`, about
// to be replaced by the new one, and its partial file neither count nor go. Only the program's own
// files count and go (own_files.h); anything else there is left alone and not counted. Fails,
// removing nothing, when `needBytes` alone is over the limit or what must stay leaves too little
// room ("it needs N MiB, over --cache-size of M MiB"). Returns the removed files' paths (a cache's
// sidecars with it).
Result<std::vector<std::string>> trimCacheFolder(const std::string& folder, uint64_t limitBytes,
                                                 uint64_t needBytes, const std::string& keep);

// trimCacheFolder for a writer about to put a file of `needBytes` at `keep`, each removed file
// said on stderr in one line; fails with trimCacheFolder's line.
Status makeRoomInCacheFolder(const std::string& folder, uint64_t limitBytes, uint64_t needBytes,
                             const std::string& keep);

// A hash of the count, lengths and modification times of a raster's files (its own and, for a
// VRT, its sources'; GDAL's file list): it changes when any of them does. Names are left out, so
// that a map opened by another path (relative, absolute) keeps its cache.
uint64_t rasterSignature(const std::vector<std::string>& files);

// Reads the header of the cache at `path` and checks it against the raster (signature and size)
// and the file's length. Fails with one line without the path: "missing", "unreadable: ...",
// "stale (the map or a file it reads changed)", "truncated", "corrupt (...)".
Result<CodeCacheHeader> readCodeCacheHeader(const std::string& path, uint64_t source, int width,
                                            int height);

// Bytes this process may still write in the folder `dir` (statvfs); 0 when it cannot tell.
uint64_t freeDiskBytes(const std::string& dir);

// Where a resumable code cache left unfinished waits for the next open of its map: `path`.partial.
std::string partialCachePath(const std::string& path);

// A code cache being written: a temporary file beside its final path with its whole length
// allocated first (a full disk is found before the pass, not part way), its rows written in any
// order, and a read-only mapping of it for the banded pass to read back. The temporary file is
// removed unless finish() renames it into place, or, for a resumable writer, kept as the cache's
// partial file (partialCachePath) for the next writer of the same path to go on from.
class CodeCacheWriter {
public:
    // Whether an unfinished cache is kept for the next open: only for codes whose every part can
    // be told right or wrong when read back (a layout's tiles, by their checksums).
    enum class Unfinished { Removed, KeptToResume };

    // Creates `path`.tmpPID (createOwnTemporary) for a width x height raster; one line without
    // the path on failure (a file not the program's own at `path`, cannot create, no space).
    // KeptToResume: a partial file of the program's own at partialCachePath(path), of a cache of
    // this size, is taken up instead (resumed() is then true: its rows hold what an earlier writer
    // wrote, or zeros, and the caller checks them before it keeps any); a writer dropped without
    // finish() leaves its file there, and a killed one's temporary is moved there by the next.
    // Blocks: AllocatedNow takes every block of the file at creation (fallocate), so that a full
    // disk is one line there, never a write that fails part way through a pass; AsWritten leaves
    // the file sparse, its blocks taken as blocks of codes are written (a layout read by tiles,
    // whose cache holds what the eye has fetched: its disk is that, and a full disk a tile's
    // failed write, which the tile's line says).
    enum class Blocks { AllocatedNow, AsWritten };
    static Result<CodeCacheWriter> create(const std::string& path, int width, int height,
                                          Unfinished unfinished = Unfinished::Removed,
                                          Blocks blocks = Blocks::AllocatedNow);
    // The same codes in an unnamed file in the folder `dir`, which no open after this one finds:
    // the codes of a raster flown without a code cache. finish() is not called on it.
    static Result<CodeCacheWriter> createUnnamed(const std::string& dir, int width, int height,
                                                 Blocks blocks = Blocks::AllocatedNow);
    CodeCacheWriter() = default;
    CodeCacheWriter(CodeCacheWriter&& other) noexcept;
    CodeCacheWriter& operator=(CodeCacheWriter&& other) noexcept;
    CodeCacheWriter(const CodeCacheWriter&) = delete;
    CodeCacheWriter& operator=(const CodeCacheWriter&) = delete;
    ~CodeCacheWriter();

    // The file's codes, mapped read-only: rows read back once written.
    const CodeArray& codes() const { return codes_; }
    // Writes `rowCount` rows of codes from `firstRow` on.
    Status writeRows(int firstRow, int rowCount, const uint16_t* codes);
    // Writes the w x h block of codes at column x, row y (`codes` row after row, w apart).
    Status writeBlock(int x, int y, int w, int h, const uint16_t* codes);
    // Writes the header, flushes the file to disk and renames it over the final path. Returns the
    // final file's stamp; the mapping (codes()) stays valid.
    Result<FileStamp> finish(const CodeCacheHeader& header);

    // Whether finish() can keep the codes as a cache (false for createUnnamed's).
    bool named() const { return !path_.empty(); }
    // Whether this writer took up an earlier writer's partial file (create's KeptToResume).
    bool resumed() const { return resumed_; }

private:
    static Result<CodeCacheWriter> sized(CodeCacheWriter writer, Blocks blocks);
    // Takes the partial file at partialCachePath(path_) as this writer's temporary when it is the
    // program's own and of this cache's length; false otherwise (one of another length is removed,
    // as of no use; anything else is left as it is).
    bool takePartial();
    void discard();
    Status writeAt(uint64_t offset, uint64_t bytes, const uint16_t* codes);
    std::string path_;       // the final path
    std::string temporary_;  // "" once renamed or removed
    bool keepUnfinished_ = false;
    bool resumed_ = false;
    int fd_ = -1;
    int width_ = 0;
    int height_ = 0;
    CodeArray codes_;
};

}  // namespace qt
