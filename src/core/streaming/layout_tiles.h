// Level 0 of a baked layout read tile by tile as its readers ask for them: the source a viewer
// streaming a layout by pages asks before it reads a tile's codes, so that a map served from
// object storage is fetched where the eye goes rather than whole at open
// (docs/design/streaming.md#a-layouts-tiles-on-demand).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/io/gdal_raster.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/layout.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/heightmap.h"

namespace qt {

class WorkerPool;

// How long a tile that failed is left before it is read again: doubling from the first to the
// most, so that a server that is gone is not asked once a frame and one that returns is asked
// again within the most.
constexpr double kTileRetryFirstSeconds = 0.25;
constexpr double kTileRetryMostSeconds = 8.0;
// The most datasets of a layout's level files LayoutTiles keeps open between reads, and
// LayoutLevelPages for each level.
constexpr size_t kMostPooled = 32;
constexpr size_t kOpenLevelFiles = 8;
// Tiles of a window LayoutTiles fetches side by side over the network, each alone: a layout's
// with holes, and those a window's one read (readWindow) left absent.
constexpr int kParallelFetches = 4;

// The tiles of a layout's level 0 (layout.json's pageSize squared, row-major) written into a map's
// codes as they are asked for. A tile is present once its codes, read through GDAL (by byte ranges
// for a layout by URL) on a dataset of the asking thread's own, matched layout.json's checksum and
// were written, and its mask's holes set; from then on nothing reads it again. The checksums decide
// presence: a resumed code cache's tile that already matches is kept without a read of its codes.
//
// Thread use: ensure() and present() from any threads at once. Two threads asking for the same
// tile read it once (the second waits). A tile that fails (unreadable, not its checksum, the
// server gone) says so in one line naming it and is read again only after a back-off
// (kTileRetryFirstSeconds, doubling to kTileRetryMostSeconds); until then asking for it returns
// its line at once, so that nothing blocks on a server that does not answer more than once.
class LayoutTiles {
public:
    // Over `layout`'s level 0, described into `map` (describeLayoutLevelZero: its size, and its
    // nodata mask sized for the layout's holes, all clear). The tiles' codes go into `cache` when
    // given (read back through its mapping, which map.codes is), else into map.codes (sized to the
    // map). `map` and `cache` must outlive this.
    // `retryFirstSeconds`: the first back-off (tests lengthen it to hold a failure still).
    LayoutTiles(const LayoutManifest& layout, Heightmap& map, CodeCacheWriter* cache = nullptr,
                double retryFirstSeconds = kTileRetryFirstSeconds);
    ~LayoutTiles();
    LayoutTiles(const LayoutTiles&) = delete;
    LayoutTiles& operator=(const LayoutTiles&) = delete;

    int tilesX() const { return tilesX_; }
    int tilesY() const { return tilesY_; }
    int tileSide() const { return side_; }
    // Whether tile (tx, ty) is present (its codes and holes are the layout's).
    bool present(int tx, int ty) const {
        return state_[tileIndex(tx, ty)].load(std::memory_order_acquire) == kPresent;
    }
    bool allPresent() const { return presentCount_.load(std::memory_order_acquire) == tileCount(); }
    // Whether every tile holding a sample of columns [x0, x1] and rows [y0, y1] is present
    // (clamped to the map; true for an empty window).
    bool present(int x0, int y0, int x1, int y1) const;
    // Tiles present, of tilesX() x tilesY().
    uint64_t presentCount() const { return presentCount_.load(std::memory_order_acquire); }
    uint64_t tileCount() const { return uint64_t(tilesX_) * uint64_t(tilesY_); }
    // Makes every tile holding a sample of columns [x0, x1] and rows [y0, y1] present (clamped to
    // the map), reading those that are not, in row order; returns the first failure's line.
    Status ensure(int x0, int y0, int x1, int y1);
    // The same for tile (tx, ty).
    Status ensureTile(int tx, int ty);

    // Ends every failed tile's back-off now (its next doubles as before): for a caller that
    // knows the source is back, a server answering again or a layout mended.
    void retryFailedNow();

    // Tiles read through GDAL, kept from a resumed cache by their checksum, and reads that failed.
    struct Counts {
        uint64_t read = 0;
        uint64_t kept = 0;
        uint64_t failed = 0;
        uint64_t windows = 0;  // reads through GDAL of several tiles at once (readWindow)
    };
    Counts counts() const;

private:
    enum : uint8_t { kAbsent, kReading, kPresent, kFailed };
    struct Failure {
        std::string line;
        double waitSeconds = 0.0;
        std::chrono::steady_clock::time_point retryAt;
    };
    size_t tileIndex(int tx, int ty) const { return size_t(ty) * size_t(tilesX_) + size_t(tx); }
    // The tiles [tx0, tx1] x [ty0, ty1] holding a sample of the window, clamped to the map (none:
    // tx1 < tx0).
    struct TileSpan {
        int tx0, ty0, tx1, ty1;
    };
    TileSpan tilesOf(int x0, int y0, int x1, int y1) const;
    // Reads tile (tx, ty) and writes it; no lock held.
    Status readTile(int tx, int ty, bool& kept);
    // Over the network, for a layout without holes: makes present what it can of `absent` (tiles
    // of a window) in one read of each file, GDAL asking for the tiles' byte ranges side by side.
    // Only tiles no one reads and none failed are taken; those it cannot make present (a read
    // that fails, codes not of their checksum) are left absent, for ensureTile to read alone and
    // name. No lock held.
    void readWindow(const std::vector<std::pair<int, int>>& absent);
    // Whether a resumed cache holds tile (tx, ty) already: its codes match the tile's checksum
    // (without holes, where the checksum holds the codes alone).
    bool keptInCache(int tx, int ty) const;
    // Writes tile (tx, ty)'s w x h codes (`codes`, w apart) into the cache or the map.
    Status storeTile(int tx, int ty, const uint16_t* codes);
    // Where level 0's tiles lie (layoutLevelFiles), found at the first read.
    Result<const LayoutLevelFiles*> levelFiles();
    // A dataset of level 0's file `file` (for its codes, or for its mask), opened when none is
    // free; given back for the next read of that file.
    Result<GdalRaster> takeRaster(uint32_t file, bool mask);
    void giveBack(uint32_t file, bool mask, GdalRaster raster);
    // After a fault in `file` its datasets go with their block caches and their file's index (the
    // file may have been replaced since), and GDAL's network reader forgets the file's bytes (with
    // no file: the layout's, and every dataset).
    void forgetAfterFault(const LayoutLevelFiles::File* file, uint32_t index);
    // The pooled datasets of level 0's file `file` dropped; mutex_ held.
    void dropPooledLocked(uint32_t file);

    const LayoutManifest layout_;
    Heightmap& map_;
    CodeCacheWriter* cache_;
    std::string name_;  // level 0's file's name, for the lines
    double retryFirstSeconds_ = kTileRetryFirstSeconds;
    bool network_ = false;  // read over the network: a window's tiles fetched side by side
    int side_ = 0;
    int tilesX_ = 0;
    int tilesY_ = 0;
    std::unique_ptr<std::atomic<uint8_t>[]> state_;
    std::atomic<uint64_t> presentCount_{0};

    mutable std::mutex mutex_;
    std::condition_variable changed_;  // a tile left kReading
    std::vector<Failure> failures_;    // per tile, sized on its first failure
    std::mutex filesMutex_;            // held while files_ is found (a mosaic fetched)
    std::mutex fetchersMutex_;         // held by the one ensure() fetching side by side
    std::unique_ptr<WorkerPool> fetchers_;
    std::unique_ptr<LayoutLevelFiles> files_;
    // Opened datasets not in use, the most recently given back last, at most kMostPooled: a
    // layout joined from many regions reads a few at a time. Masks through datasets of their own:
    // GDAL 3.6's reader of a COG by URL (its mask interleaved with the imagery) fails to decode a
    // block of codes read after that block's mask on the same dataset.
    struct Pooled {
        uint32_t file = 0;
        bool mask = false;
        GdalRaster raster;
    };
    std::vector<Pooled> pooled_;
    Counts counts_;
    std::mutex maskMutex_;  // a mask word may hold two tiles' samples
};

// A layout's level 0 streamed by tiles into a code cache of its own (openStreamedGdal with
// StreamOptions::layoutByTiles): nothing of level 0 is read at open; its tiles are fetched as
// readers ask for them (tiles()), and once every one is present the cache is finished (renamed into
// its place, with the layout's tree as its sidecar), so that later opens map it with nothing of the
// layout read. The map's codes are the cache's mapping, which a tile's codes reach once it is
// present; the object is shared by whoever reads them, so that it outlives every reader.
class LayoutStream {
public:
    // Takes `writer` (the cache being made, `cachePath` where it goes; an unnamed writer is never
    // finished) and the header finish() writes; `sidecar`: whether the tree sidecar goes with it.
    // For a layout without holes: the holes' mask of a map streamed by tiles is still to come.
    LayoutStream(const LayoutManifest& layout, CodeCacheWriter writer, CodeCacheHeader header,
                 std::string cachePath, bool sidecar,
                 double retryFirstSeconds = kTileRetryFirstSeconds);
    LayoutStream(const LayoutStream&) = delete;
    LayoutStream& operator=(const LayoutStream&) = delete;

    const LayoutManifest& layout() const { return layout_; }
    LayoutTiles& tiles() { return tiles_; }
    const LayoutTiles& tiles() const { return tiles_; }
    // Finishes the cache when every tile is present and it is not yet finished: true when it did
    // now. One line when the cache or its sidecar cannot be kept (the codes stay mapped: this
    // open flies on, the next fetches the tiles again). For one thread at a time; the tiles'
    // readers may go on meanwhile (every tile is present: nothing is written).
    Result<bool> finishWhenComplete();
    // Whether finishWhenComplete has run to its end or is running (any thread may ask).
    bool finished() const { return finished_.load(std::memory_order_acquire); }

private:
    const LayoutManifest layout_;
    Heightmap described_;  // level 0's size and coding, its codes the cache's mapping
    CodeCacheWriter writer_;
    CodeCacheHeader header_;
    std::string cachePath_;
    bool sidecar_ = false;
    std::atomic<bool> finished_{false};
    LayoutTiles tiles_;
};

// The pyramid's pages of levels 1 and up read from a layout's heights-K files (which hold the map's
// samples at stride 2^K exactly as the pages take them), so that a layout's coarse levels go to the
// GPU without level 0 being read. Each tile of the layout a page's window reaches (up to 3 x 3) is
// read through GDAL and held to its checksum; the last few stay decoded, so that a row of pages
// filled in order reads most tiles once, and a level's last page lets its tiles, rows and
// datasets go. A level the pages pool (HeightPages::pooledLevels: level 1, streamed) is read a
// tile at a time, in the order its pages are asked for. Each level reads its files through readers
// of its own: fill() may run for different levels on different threads at once (CoarseLevelFill
// takes a thread a level, so that over the network the levels' requests wait side by side), for one
// level on one thread at a time.
class LayoutLevelPages {
public:
    explicit LayoutLevelPages(const LayoutManifest& layout);
    ~LayoutLevelPages();
    LayoutLevelPages(const LayoutLevelPages&) = delete;
    LayoutLevelPages& operator=(const LayoutLevelPages&) = delete;

    // The layout's levels, level 0 with them.
    int levels() const { return int(layout_.upperLevels.size()) + 1; }
    // Fills `out` (pages.texels^2 codes) with page (px, py) of level `level` (1 and up) of
    // `pages`, a layout of height pages of the layout's map (any page size): the texels
    // fillHeightPage makes from the map's codes. One line naming the level's file and the tile
    // that cannot be read or does not match its checksum, or a level the layout does not hold.
    Status fill(const HeightPages& pages, int level, int px, int py, uint16_t* out);
    // Tiles read through GDAL so far; the reads that took them (each a window of tiles of one
    // file: over HTTP, GDAL asks for their byte ranges side by side); the reads of a file's row of
    // tiles among them.
    uint64_t tilesRead() const { return tilesRead_.load(std::memory_order_relaxed); }
    uint64_t readsMade() const { return readsMade_.load(std::memory_order_relaxed); }
    uint64_t rowsRead() const { return rowsRead_.load(std::memory_order_relaxed); }

private:
    struct Tile {
        int level = -1, tx = -1, ty = -1;
        int w = 0, h = 0;
        std::vector<uint16_t> codes;
    };
    // Tile (tx, ty) of `level`, unless it is among the last read: read with the rest of its
    // file's row of tiles (`wholeRow`) or alone, each held to its checksum.
    Result<const Tile*> tile(int level, int tx, int ty, bool wholeRow);
    // Tile (tx, ty) of `level` among the last read and matching its checksum, or a failure with
    // no line.
    Result<const Tile*> recentTile(int level, int tx, int ty);
    // The tiles of [tx0, tx1] x [ty0, ty1] of `level` not among the last read, in one read a file
    // (readTiles): what a pooled level's page needs, in a round trip or so over HTTP.
    Status readWindow(int level, int tx0, int ty0, int tx1, int ty1);
    // Reads tiles [tx0, tx1] x [ty0, ty1] of `level`, every one in one file, in one read into
    // the last read: those matching their checksum are kept. One line naming the file and
    // `asked` when the read fails.
    Status readTiles(int level, int tx0, int ty0, int tx1, int ty1, const std::string& asked);
    // The file of `level` holding tile (tx, ty), the level's files found when first needed.
    Result<const LayoutLevelFiles::File*> levelFile(int level, int tx, int ty);
    // After a tile of a file did not match its checksum: the file is opened again for the next
    // read, its bytes asked for again.
    void forgetLevelFile(int level, int tx, int ty);

    // A level's file open for reading.
    struct OpenFile {
        uint32_t file = 0;
        GdalRaster raster;
    };
    // What one level's reads hold, used by one thread at a time, let go whole after its last page.
    struct LevelReads {
        std::vector<OpenFile> open;      // the last kOpenLevelFiles files opened, the latest last
        std::vector<Tile> recent;        // the last tiles read, replaced in turn: two rows or more
        std::vector<uint16_t> rowCodes;  // a read's tiles (a window, or a file's row of them)
        std::vector<uint8_t> rowValid;   // ... their mask, with holes
        std::vector<uint8_t> valid;      // a tile's mask, read for its checksum
        size_t next = 0;
    };
    const LayoutManifest layout_;
    // Per level above 0, where its tiles lie, found when first read.
    std::vector<std::unique_ptr<LayoutLevelFiles>> files_;
    std::vector<LevelReads> reads_;  // per level above 0
    std::atomic<uint64_t> tilesRead_{0};
    std::atomic<uint64_t> readsMade_{0};
    std::atomic<uint64_t> rowsRead_{0};
};

}  // namespace qt
