// A layout's level 0 read tile by tile as its readers ask for them.
#include "core/streaming/layout_tiles.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include <cpl_vsi.h>
#include <gdal_priv.h>

#include "core/base/text.h"
#include "core/base/worker_pool.h"
#include "core/config.h"
#include "core/io/gdal_inputs.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/tree_sidecar.h"

namespace qt {
namespace {

// GDAL's network reader keeps the bytes it fetched of a file and what it learnt of it (its size,
// that it exists), whatever answer gave them: after a fault they may be the fault's (a header
// changed on its way, a server's error page), and every later open or read of the file would be
// served from them. So a reader of a layout by URL has it forget the layout's after each fault.
void forgetNetworkBytes(const std::string& folder) {
    const std::string network = networkGdalPath(folder);
    if (network != folder) {
        VSICurlPartialClearCache(network.c_str());
    }
}

}  // namespace

LayoutTiles::LayoutTiles(const LayoutManifest& layout, Heightmap& map, CodeCacheWriter* cache,
                         double retryFirstSeconds)
    : layout_(layout),
      map_(map),
      cache_(cache),
      name_(levelZeroName(layout)),
      retryFirstSeconds_(retryFirstSeconds),
      network_(isNetworkPath(layout.folder)),
      side_(layout.pageSize),
      tilesX_((layout.width + layout.pageSize - 1) / layout.pageSize),
      tilesY_((layout.height + layout.pageSize - 1) / layout.pageSize),
      state_(new std::atomic<uint8_t>[size_t(tileCount())]) {
    assert(map.width == layout.width && map.height == layout.height);
    assert(cache != nullptr || map.codes.size() == size_t(map.sampleCount()));
    assert(layout.nodataSamples == 0 || map.nodata.holes());
    for (uint64_t i = 0; i < tileCount(); ++i) {
        state_[i].store(kAbsent, std::memory_order_relaxed);
    }
}

LayoutTiles::~LayoutTiles() = default;

LayoutTiles::Counts LayoutTiles::counts() const {
    const std::lock_guard<std::mutex> hold(mutex_);
    return counts_;
}

LayoutTiles::TileSpan LayoutTiles::tilesOf(int x0, int y0, int x1, int y1) const {
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, map_.width - 1);
    y1 = std::min(y1, map_.height - 1);
    if (x0 > x1 || y0 > y1) {
        return {0, 0, -1, -1};
    }
    return {x0 / side_, y0 / side_, x1 / side_, y1 / side_};
}

Status LayoutTiles::ensure(int x0, int y0, int x1, int y1) {
    const TileSpan span = tilesOf(x0, y0, x1, y1);
    // Over the network each tile is a request, whose wait is the server's round trip more than
    // its bytes: without holes a window's absent tiles are read in one read of each file, GDAL
    // asking for their byte ranges side by side (readWindow); those it leaves absent, and every
    // tile of a layout with holes (each its mask beside it), are fetched side by side on
    // kParallelFetches threads (one window at a time; a second asker meanwhile reads its own in
    // turn).
    std::vector<std::pair<int, int>> absent;
    for (int ty = span.ty0; ty <= span.ty1; ++ty) {
        for (int tx = span.tx0; tx <= span.tx1; ++tx) {
            if (!present(tx, ty)) {
                absent.emplace_back(tx, ty);
            }
        }
    }
    if (absent.size() > 1 && network_ && layout_.nodataSamples == 0) {
        readWindow(absent);
    }
    std::unique_lock<std::mutex> parallel(fetchersMutex_, std::defer_lock);
    if (absent.size() > 1 && network_ && parallel.try_lock()) {
        if (fetchers_ == nullptr) {
            fetchers_ = std::make_unique<WorkerPool>(kParallelFetches);
        }
        std::vector<Status> got(absent.size());
        std::atomic<size_t> next{0};
        auto job = [&](int) {
            for (size_t i; (i = next.fetch_add(1)) < absent.size();) {
                got[i] = ensureTile(absent[i].first, absent[i].second);
            }
        };
        fetchers_->run(job);
        for (const Status& status : got) {  // the first failure in row order
            if (!status) {
                return status;
            }
        }
        return {};
    }
    for (const auto& [tx, ty] : absent) {
        if (Status got = ensureTile(tx, ty); !got) {
            return got;
        }
    }
    return {};
}

bool LayoutTiles::present(int x0, int y0, int x1, int y1) const {
    const TileSpan span = tilesOf(x0, y0, x1, y1);
    for (int ty = span.ty0; ty <= span.ty1; ++ty) {
        for (int tx = span.tx0; tx <= span.tx1; ++tx) {
            if (!present(tx, ty)) {
                return false;
            }
        }
    }
    return true;
}

Status LayoutTiles::ensureTile(int tx, int ty) {
    assert(tx >= 0 && ty >= 0 && tx < tilesX_ && ty < tilesY_);
    const size_t i = tileIndex(tx, ty);
    if (state_[i].load(std::memory_order_acquire) == kPresent) {
        return {};
    }
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        const uint8_t state = state_[i].load(std::memory_order_relaxed);
        if (state == kPresent) {
            return {};
        }
        if (state == kReading) {
            changed_.wait(lock);
            continue;
        }
        if (state == kFailed && std::chrono::steady_clock::now() < failures_[i].retryAt) {
            return Status::failure(failures_[i].line);
        }
        break;
    }
    // A tile read again after a failure is read through datasets opened now: those opened before
    // may hold the index of a file replaced since (a layout mended, or baked again).
    if (state_[i].load(std::memory_order_relaxed) == kFailed && files_ != nullptr) {
        dropPooledLocked(files_->fileIndex(tx, ty));
    }
    state_[i].store(kReading, std::memory_order_relaxed);
    lock.unlock();
    bool kept = false;
    const Status got = readTile(tx, ty, kept);
    lock.lock();
    if (got) {
        state_[i].store(kPresent, std::memory_order_release);
        presentCount_.fetch_add(1, std::memory_order_release);
        ++(kept ? counts_.kept : counts_.read);
    } else {
        if (failures_.empty()) {
            failures_.resize(size_t(tileCount()));
        }
        Failure& f = failures_[i];
        f.line = got.error();
        f.waitSeconds = f.waitSeconds == 0.0
                            ? retryFirstSeconds_
                            : std::min(2.0 * f.waitSeconds,
                                       std::max(kTileRetryMostSeconds, retryFirstSeconds_));
        f.retryAt = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(f.waitSeconds));
        state_[i].store(kFailed, std::memory_order_relaxed);
        ++counts_.failed;
    }
    changed_.notify_all();
    return got;
}

void LayoutTiles::retryFailedNow() {
    const std::lock_guard<std::mutex> hold(mutex_);
    const auto now = std::chrono::steady_clock::now();
    for (Failure& f : failures_) {
        f.retryAt = std::min(f.retryAt, now);
    }
}

Result<const LayoutLevelFiles*> LayoutTiles::levelFiles() {
    using R = Result<const LayoutLevelFiles*>;
    const std::lock_guard<std::mutex> hold(filesMutex_);
    if (files_ == nullptr) {
        Result<LayoutLevelFiles> files = layoutLevelFiles(layout_.folder, name_, 0, layout_.width,
                                                          layout_.height, layout_.pageSize);
        if (!files) {
            return R::failure(files.error());
        }
        const std::lock_guard<std::mutex> pool(mutex_);
        files_ = std::make_unique<LayoutLevelFiles>(std::move(files).value());
    }
    return files_.get();
}

Result<GdalRaster> LayoutTiles::takeRaster(uint32_t file, bool mask) {
    {
        const std::lock_guard<std::mutex> hold(mutex_);
        for (size_t i = pooled_.size(); i-- > 0;) {
            if (pooled_[i].file == file && pooled_[i].mask == mask) {
                GdalRaster raster = std::move(pooled_[i].raster);
                pooled_.erase(pooled_.begin() + std::ptrdiff_t(i));
                return raster;
            }
        }
    }
    const GdalMessages said;
    return openLayoutLevelFile(files_->files[file], layout_.pageSize, said);
}

void LayoutTiles::giveBack(uint32_t file, bool mask, GdalRaster raster) {
    const std::lock_guard<std::mutex> hold(mutex_);
    pooled_.push_back({file, mask, std::move(raster)});
    if (pooled_.size() > kMostPooled) {
        pooled_.erase(pooled_.begin());
    }
}

void LayoutTiles::dropPooledLocked(uint32_t file) {
    pooled_.erase(std::remove_if(pooled_.begin(), pooled_.end(),
                                 [&](const Pooled& p) { return p.file == file; }),
                  pooled_.end());
}

void LayoutTiles::forgetAfterFault(const LayoutLevelFiles::File* file, uint32_t index) {
    {
        const std::lock_guard<std::mutex> hold(mutex_);
        if (file == nullptr) {
            pooled_.clear();
        } else {
            dropPooledLocked(index);
        }
    }
    if (file == nullptr) {
        forgetNetworkBytes(layout_.folder);
    } else if (isNetworkPath(file->path)) {
        VSICurlPartialClearCache(file->path.c_str());
    }
}

Status LayoutTiles::readTile(int tx, int ty, bool& kept) {
    const int x = tx * side_, y = ty * side_;
    const int w = std::min(side_, map_.width - x), h = std::min(side_, map_.height - y);
    const std::string& checksum = layout_.levelZeroTiles[tileIndex(tx, ty)];
    const size_t pitch = size_t(map_.width);
    const size_t first = size_t(y) * pitch + size_t(x);
    const std::string tile = "tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ")";
    const bool holes = layout_.nodataSamples > 0;
    // Without holes, a resumed cache's tile whose codes match its checksum is there already;
    // with holes its mask is read first, the checksum holding both.
    const bool resumed = cache_ != nullptr && cache_->resumed();
    kept = !holes && keptInCache(tx, ty);
    if (kept) {
        return {};
    }
    const Result<const LayoutLevelFiles*> files = levelFiles();
    if (!files) {
        forgetAfterFault(nullptr, 0);
        return Status::failure(files.error());
    }
    const uint32_t index = files.value()->fileIndex(tx, ty);
    const LayoutLevelFiles::File& file = files.value()->files[index];
    Result<GdalRaster> taken = takeRaster(index, false);
    Result<GdalRaster> takenMask =
        holes ? takeRaster(index, true) : Result<GdalRaster>(GdalRaster{});
    if (!taken || !takenMask) {
        forgetAfterFault(&file, index);  // the header read may be what the fault changed
        return Status::failure(!taken ? taken.error() : takenMask.error());
    }
    GdalRaster raster = std::move(taken).value();
    GdalRaster maskRaster = std::move(takenMask).value();
    const GdalMessages said;
    std::vector<uint16_t> codes(size_t(w) * size_t(h));
    std::vector<uint8_t> valid(holes ? size_t(w) * size_t(h) : 0);
    // The tile's place in its file.
    const int fx = x - file.x0, fy = y - file.y0;
    bool read =
        !holes || maskRaster.band->GetMaskBand()->RasterIO(GF_Read, fx, fy, w, h, valid.data(), w,
                                                           h, GDT_Byte, 0, 0, nullptr) == CE_None;
    const uint8_t* mask = holes ? valid.data() : nullptr;
    if (read && resumed) {
        // The cache's codes beside the mask just read (its rows `pitch` apart, the mask's w).
        for (int r = 0; r < h; ++r) {
            std::memcpy(codes.data() + size_t(r) * size_t(w),
                        cache_->codes().data() + first + size_t(r) * pitch, size_t(w) * 2);
        }
        kept = checksumHex(tileChecksum(codes.data(), mask, w, h, size_t(w))) == checksum;
    }
    read = read && (kept || raster.band->RasterIO(GF_Read, fx, fy, w, h, codes.data(), w, h,
                                                  GDT_UInt16, 0, 0, nullptr) == CE_None);
    // After a read that failed or gave codes not of their checksum, the file's datasets go
    // (forgetAfterFault), so that the next read asks the file or the server again rather than a
    // memory of the fault.
    const bool matches =
        read &&
        (kept || checksumHex(tileChecksum(codes.data(), mask, w, h, size_t(w))) == checksum);
    if (!matches) {
        forgetAfterFault(&file, index);
        return Status::failure(
            file.name + ": " +
            (read ? tile + " does not match its checksum"
                  : tile + " cannot be read: " + said.line("GDAL gave no reason")));
    }
    giveBack(index, false, std::move(raster));
    if (holes) {
        giveBack(index, true, std::move(maskRaster));
    }
    if (!kept) {
        if (Status wrote = storeTile(tx, ty, codes.data()); !wrote) {
            return wrote;
        }
    }
    // Holes: bits or'd in atomically, as a word may hold a neighbouring tile's samples.
    int64_t voids = 0;
    for (int r = 0; holes && r < h; ++r) {
        for (int c = 0; c < w; ++c) {
            if (valid[size_t(r) * size_t(w) + size_t(c)] == 0) {
                const size_t bit = first + size_t(r) * pitch + size_t(c);
                __atomic_fetch_or(&map_.nodata.bits[bit >> 6], uint64_t(1) << (bit & 63),
                                  __ATOMIC_RELAXED);
                ++voids;
            }
        }
    }
    if (voids > 0) {
        __atomic_fetch_add(&map_.nodata.samples, voids, __ATOMIC_RELAXED);
    }
    return {};
}

bool LayoutTiles::keptInCache(int tx, int ty) const {
    if (cache_ == nullptr || !cache_->resumed()) {
        return false;
    }
    const int x = tx * side_, y = ty * side_;
    const int w = std::min(side_, map_.width - x), h = std::min(side_, map_.height - y);
    const size_t pitch = size_t(map_.width);
    const uint16_t* at = cache_->codes().data() + size_t(y) * pitch + size_t(x);
    return checksumHex(tileChecksum(at, nullptr, w, h, pitch)) ==
           layout_.levelZeroTiles[tileIndex(tx, ty)];
}

Status LayoutTiles::storeTile(int tx, int ty, const uint16_t* codes) {
    const int x = tx * side_, y = ty * side_;
    const int w = std::min(side_, map_.width - x), h = std::min(side_, map_.height - y);
    if (cache_ != nullptr) {
        return cache_->writeBlock(x, y, w, h, codes);
    }
    const size_t pitch = size_t(map_.width);
    for (int r = 0; r < h; ++r) {
        std::memcpy(map_.codes.data() + size_t(y + r) * pitch + size_t(x),
                    codes + size_t(r) * size_t(w), size_t(w) * sizeof(uint16_t));
    }
    return {};
}

void LayoutTiles::readWindow(const std::vector<std::pair<int, int>>& absent) {
    assert(layout_.nodataSamples == 0);
    const Result<const LayoutLevelFiles*> files = levelFiles();
    if (!files) {
        return;  // ensureTile says why
    }
    // The tiles this read takes: absent, not being read, not failed (those keep their back-off).
    std::vector<std::pair<int, int>> taken;
    {
        const std::lock_guard<std::mutex> hold(mutex_);
        for (const auto& [tx, ty] : absent) {
            std::atomic<uint8_t>& state = state_[tileIndex(tx, ty)];
            if (state.load(std::memory_order_relaxed) == kAbsent) {
                state.store(kReading, std::memory_order_relaxed);
                taken.emplace_back(tx, ty);
            }
        }
    }
    std::vector<uint8_t> outcome(taken.size(), 0);  // 1: read, 2: kept from a resumed cache
    std::vector<uint16_t> codes, tile;
    // One read a file: the span of its taken tiles (those of the span present already are read
    // again, not written).
    std::vector<bool> done(taken.size(), false);
    uint64_t reads = 0;
    for (size_t i = 0; i < taken.size(); ++i) {
        if (keptInCache(taken[i].first, taken[i].second)) {
            outcome[i] = 2;
            done[i] = true;
        }
    }
    for (size_t i = 0; i < taken.size(); ++i) {
        if (done[i]) {
            continue;
        }
        const uint32_t index = files.value()->fileIndex(taken[i].first, taken[i].second);
        int tx0 = taken[i].first, ty0 = taken[i].second, tx1 = tx0, ty1 = ty0;
        for (size_t j = i; j < taken.size(); ++j) {
            if (!done[j] && files.value()->fileIndex(taken[j].first, taken[j].second) == index) {
                tx0 = std::min(tx0, taken[j].first);
                tx1 = std::max(tx1, taken[j].first);
                ty0 = std::min(ty0, taken[j].second);
                ty1 = std::max(ty1, taken[j].second);
            }
        }
        const LayoutLevelFiles::File& file = files.value()->files[index];
        const int x0 = tx0 * side_, y0 = ty0 * side_;
        const int w = std::min((tx1 + 1) * side_, map_.width) - x0;
        const int h = std::min((ty1 + 1) * side_, map_.height) - y0;
        Result<GdalRaster> raster = takeRaster(index, false);
        reads += raster ? 1 : 0;
        codes.resize(size_t(w) * size_t(h));
        const bool read = raster && raster.value().band->RasterIO(
                                        GF_Read, x0 - file.x0, y0 - file.y0, w, h, codes.data(), w,
                                        h, GDT_UInt16, 0, 0, nullptr) == CE_None;
        bool matched = read;
        for (size_t j = i; j < taken.size(); ++j) {
            const auto [tx, ty] = taken[j];
            if (done[j] || files.value()->fileIndex(tx, ty) != index) {
                continue;
            }
            done[j] = true;
            if (!read) {
                continue;
            }
            const int tw = std::min(side_, map_.width - tx * side_);
            const int th = std::min(side_, map_.height - ty * side_);
            tile.resize(size_t(tw) * size_t(th));
            for (int r = 0; r < th; ++r) {
                std::memcpy(tile.data() + size_t(r) * size_t(tw),
                            codes.data() + size_t(ty * side_ - y0 + r) * size_t(w) +
                                size_t(tx * side_ - x0),
                            size_t(tw) * sizeof(uint16_t));
            }
            if (checksumHex(tileChecksum(tile.data(), nullptr, tw, th, size_t(tw))) !=
                layout_.levelZeroTiles[tileIndex(tx, ty)]) {
                matched = false;
                continue;
            }
            outcome[j] = storeTile(tx, ty, tile.data()) ? 1 : 0;
        }
        if (matched) {
            giveBack(index, false, std::move(raster).value());
        } else {
            // As readTile after a fault: the tiles left absent are read again from the server.
            forgetAfterFault(&file, index);
        }
    }
    const std::lock_guard<std::mutex> hold(mutex_);
    for (size_t i = 0; i < taken.size(); ++i) {
        const auto [tx, ty] = taken[i];
        if (outcome[i] != 0) {
            state_[tileIndex(tx, ty)].store(kPresent, std::memory_order_release);
            presentCount_.fetch_add(1, std::memory_order_release);
            ++(outcome[i] == 2 ? counts_.kept : counts_.read);
        } else {
            state_[tileIndex(tx, ty)].store(kAbsent, std::memory_order_relaxed);
        }
    }
    counts_.windows += reads;
    changed_.notify_all();
}

namespace {

// Level 0's size, its codes `codes`: what LayoutTiles writes a layout's tiles into.
Heightmap levelZeroOf(const LayoutManifest& layout, const CodeArray& codes) {
    Heightmap map;
    map.width = layout.width;
    map.height = layout.height;
    map.codes = codes;
    return map;
}

}  // namespace

LayoutStream::LayoutStream(const LayoutManifest& layout, CodeCacheWriter writer,
                           CodeCacheHeader header, std::string cachePath, bool sidecar,
                           double retryFirstSeconds)
    : layout_(layout),
      described_(levelZeroOf(layout, writer.codes())),
      writer_(std::move(writer)),
      header_(std::move(header)),
      cachePath_(std::move(cachePath)),
      sidecar_(sidecar),
      tiles_(layout_, described_, &writer_, retryFirstSeconds) {
    assert(layout.nodataSamples == 0);
}

Result<bool> LayoutStream::finishWhenComplete() {
    using R = Result<bool>;
    if (finished() || !writer_.named() || !tiles_.allPresent()) {
        return false;
    }
    finished_.store(true, std::memory_order_release);  // kept or not, this open does not try again
    const Result<FileStamp> stamp = writer_.finish(header_);
    if (!stamp) {
        return R::failure(escapedPath(cachePath_) + ": " + stamp.error() +
                          "; continuing without a code cache");
    }
    if (!sidecar_) {
        return true;
    }
    // The layout's tree, read again rather than held all the while: the sidecar that vouches
    // for the cache's codes on the next open.
    Result<TreeSidecar> tree = readLayoutTreeSidecar(layout_);
    Status written = tree ? Status{} : Status::failure(tree.error());
    if (tree) {
        tree.value().map = stamp.value();
        written = writeTreeSidecar(sidecarPath(cachePath_), tree.value());
    }
    if (!written) {
        return R::failure(escapedPath(sidecarPath(cachePath_)) + ": " + written.error() +
                          "; the next open fetches the layout's tiles again");
    }
    return true;
}

// Tiles kept decoded: a page's window reaches 3 x 3, and the next page in its row shares 6.
constexpr size_t kRecentLevelTiles = 12;
// The most tiles a page's window reaches.
constexpr size_t kWindowTiles = 9;

LayoutLevelPages::LayoutLevelPages(const LayoutManifest& layout)
    : layout_(layout), files_(layout.upperLevels.size()), reads_(layout.upperLevels.size()) {}

LayoutLevelPages::~LayoutLevelPages() = default;

Result<const LayoutLevelPages::Tile*> LayoutLevelPages::recentTile(int level, int tx, int ty) {
    for (const Tile& t : reads_[size_t(level - 1)].recent) {
        if (t.level == level && t.tx == tx && t.ty == ty) {
            return &t;
        }
    }
    return Result<const Tile*>::failure("");
}

Result<const LayoutLevelPages::Tile*> LayoutLevelPages::tile(int level, int tx, int ty,
                                                             bool wholeRow) {
    using R = Result<const Tile*>;
    if (R kept = recentTile(level, tx, ty)) {
        return kept;
    }
    const std::string asked = "tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ")";
    Result<const LayoutLevelFiles::File*> file = levelFile(level, tx, ty);
    if (!file) {
        return R::failure(file.error());
    }
    // With `wholeRow`, the file's whole row of tiles at once: its tiles lie one after another in
    // the file, so over HTTP this is one request where a tile at a time is one each.
    const int side = layout_.pageSize;
    const int first = wholeRow ? file.value()->x0 / side : tx;
    const int last = wholeRow ? (file.value()->x0 + file.value()->columns - 1) / side : tx;
    if (const Status read = readTiles(level, first, ty, last, ty, asked); !read) {
        return R::failure(read.error());
    }
    rowsRead_.fetch_add(wholeRow ? 1 : 0, std::memory_order_relaxed);
    if (R found = recentTile(level, tx, ty)) {
        return found;
    }
    forgetLevelFile(level, tx, ty);
    return R::failure(file.value()->name + ": " + asked + " does not match its checksum");
}

Result<const LayoutLevelFiles::File*> LayoutLevelPages::levelFile(int level, int tx, int ty) {
    using R = Result<const LayoutLevelFiles::File*>;
    // The level's files, a mosaic held to what a join writes, found when first needed.
    std::unique_ptr<LayoutLevelFiles>& files = files_[size_t(level - 1)];
    if (files == nullptr) {
        const LayoutManifest::Level& l = layout_.upperLevels[size_t(level - 1)];
        Result<LayoutLevelFiles> found =
            layoutLevelFiles(layout_.folder, l.file, level, l.columns, l.rows, layout_.pageSize);
        if (!found) {
            forgetNetworkBytes(layout_.folder);
            return R::failure(found.error());
        }
        files = std::make_unique<LayoutLevelFiles>(std::move(found).value());
    }
    return &files->fileOf(tx, ty);
}

void LayoutLevelPages::forgetLevelFile(int level, int tx, int ty) {
    const LayoutLevelFiles& files = *files_[size_t(level - 1)];
    const uint32_t index = files.fileIndex(tx, ty);
    std::vector<OpenFile>& open = reads_[size_t(level - 1)].open;
    open.erase(std::remove_if(open.begin(), open.end(),
                              [&](const OpenFile& o) { return o.file == index; }),
               open.end());
    if (isNetworkPath(files.files[index].path)) {
        VSICurlPartialClearCache(files.files[index].path.c_str());
    }
}

Status LayoutLevelPages::readTiles(int level, int tx0, int ty0, int tx1, int ty1,
                                   const std::string& asked) {
    LevelReads& r = reads_[size_t(level - 1)];
    const LayoutManifest::Level& l = layout_.upperLevels[size_t(level - 1)];
    const GdalMessages said;
    Result<const LayoutLevelFiles::File*> found = levelFile(level, tx0, ty0);
    if (!found) {
        return Status::failure(found.error());
    }
    const LayoutLevelFiles::File& file = *found.value();
    const uint32_t index = files_[size_t(level - 1)]->fileIndex(tx0, ty0);
    // The file, among the last few opened or opened now.
    auto open = std::find_if(r.open.begin(), r.open.end(),
                             [&](const OpenFile& o) { return o.file == index; });
    if (open == r.open.end()) {
        Result<GdalRaster> opened = openLayoutLevelFile(file, layout_.pageSize, said);
        if (!opened) {
            forgetLevelFile(level, tx0, ty0);
            return Status::failure(opened.error());
        }
        if (r.open.size() == kOpenLevelFiles) {
            r.open.erase(r.open.begin());
        }
        open = r.open.insert(r.open.end(), OpenFile{index, std::move(opened).value()});
    }
    // The tiles in one read: GDAL's GeoTIFF reader asks for every block a window holds at once
    // (over HTTP their byte ranges side by side, consecutive ones merged), so that a window of
    // tiles costs about one round trip where a tile at a time costs one each. Each tile is held to
    // its checksum; those that match are kept, those that do not are asked for again when needed.
    GDALRasterBand& band = *open->raster.band;
    const bool holes = layout_.nodataSamples > 0;
    const int side = layout_.pageSize;
    const int fx = tx0 * side - file.x0;
    const int fy = ty0 * side - file.y0;
    const int w = std::min((tx1 + 1) * side, file.x0 + file.columns) - tx0 * side;
    const int h = std::min((ty1 + 1) * side, file.y0 + file.rows) - ty0 * side;
    r.rowCodes.resize(size_t(w) * size_t(h));
    r.rowValid.resize(holes ? r.rowCodes.size() : 0);
    if (band.RasterIO(GF_Read, fx, fy, w, h, r.rowCodes.data(), w, h, GDT_UInt16, 0, 0, nullptr) !=
            CE_None ||
        (holes && band.GetMaskBand()->RasterIO(GF_Read, fx, fy, w, h, r.rowValid.data(), w, h,
                                               GDT_Byte, 0, 0, nullptr) != CE_None)) {
        forgetLevelFile(level, tx0,
                        ty0);  // opened again for the next read, its bytes asked for again
        return Status::failure(file.name + ": " + asked +
                               " cannot be read: " + said.line("GDAL gave no reason"));
    }
    const int columns = (w + side - 1) / side, rows = (h + side - 1) / side;
    const size_t count = size_t(columns) * size_t(rows);
    tilesRead_.fetch_add(count, std::memory_order_relaxed);
    readsMade_.fetch_add(1, std::memory_order_relaxed);
    if (r.recent.size() < 2 * count + kRecentLevelTiles) {  // this read and the last
        r.recent.resize(2 * count + kRecentLevelTiles);
    }
    const size_t levelTilesX = size_t((l.columns + side - 1) / side);
    for (int row = 0; row < rows; ++row) {
        for (int c = 0; c < columns; ++c) {
            Tile& t = r.recent[r.next];
            r.next = (r.next + 1) % r.recent.size();
            t.level = -1;  // until it holds a tile's codes that match
            t.w = std::min(side, w - c * side);
            t.h = std::min(side, h - row * side);
            t.codes.resize(size_t(t.w) * size_t(t.h));
            r.valid.resize(holes ? t.codes.size() : 0);
            for (int y = 0; y < t.h; ++y) {
                const size_t from = (size_t(row * side + y)) * size_t(w) + size_t(c * side);
                std::memcpy(t.codes.data() + size_t(y) * size_t(t.w), r.rowCodes.data() + from,
                            size_t(t.w) * sizeof(uint16_t));
                if (holes) {
                    std::memcpy(r.valid.data() + size_t(y) * size_t(t.w), r.rowValid.data() + from,
                                size_t(t.w));
                }
            }
            const int tileX = tx0 + c, tileY = ty0 + row;
            if (checksumHex(tileChecksum(t.codes.data(), holes ? r.valid.data() : nullptr, t.w, t.h,
                                         size_t(t.w))) !=
                l.tiles[size_t(tileY) * levelTilesX + size_t(tileX)]) {
                continue;
            }
            t.level = level;
            t.tx = tileX;
            t.ty = tileY;
        }
    }
    return {};
}

Status LayoutLevelPages::readWindow(int level, int tx0, int ty0, int tx1, int ty1) {
    // Per file the span of its tiles in the window not among the recent.
    struct Span {
        uint32_t file;
        int tx0, ty0, tx1, ty1;
    };
    std::vector<Span> spans;  // a few: a mosaic's regions are rectangles of whole tiles
    // Room for a few windows, so that a read's new tiles seldom take the place of those of the
    // window already kept (the oldest go first).
    LevelReads& r = reads_[size_t(level - 1)];
    r.recent.resize(std::max(r.recent.size(), 4 * kWindowTiles + kRecentLevelTiles));
    for (int ty = ty0; ty <= ty1; ++ty) {
        for (int tx = tx0; tx <= tx1; ++tx) {
            if (recentTile(level, tx, ty)) {
                continue;
            }
            if (Result<const LayoutLevelFiles::File*> file = levelFile(level, tx, ty); !file) {
                return Status::failure(file.error());
            }
            const uint32_t index = files_[size_t(level - 1)]->fileIndex(tx, ty);
            const auto span = std::find_if(spans.begin(), spans.end(),
                                           [&](const Span& s) { return s.file == index; });
            if (span == spans.end()) {
                spans.push_back({index, tx, ty, tx, ty});
                continue;
            }
            span->tx0 = std::min(span->tx0, tx);
            span->tx1 = std::max(span->tx1, tx);
            span->ty1 = ty;
        }
    }
    for (const Span& s : spans) {
        const std::string asked = "tiles (" + std::to_string(s.tx0) + ", " + std::to_string(s.ty0) +
                                  ") to (" + std::to_string(s.tx1) + ", " + std::to_string(s.ty1) +
                                  ")";
        if (const Status read = readTiles(level, s.tx0, s.ty0, s.tx1, s.ty1, asked); !read) {
            return read;
        }
    }
    return {};
}

Status LayoutLevelPages::fill(const HeightPages& pages, int level, int px, int py, uint16_t* out) {
    assert(level >= 1 && level < int(pages.level.size()));
    if (level >= levels()) {
        return Status::failure("the layout holds levels up to " + std::to_string(levels() - 1) +
                               ", not " + std::to_string(level));
    }
    const LayoutManifest::Level& l = layout_.upperLevels[size_t(level - 1)];
    const PageLevel& pl = pages.level[size_t(level)];
    if (pl.samplesX != l.columns || pl.samplesY != l.rows) {
        return Status::failure(l.file + ": not of the size of the map's level " +
                               std::to_string(level));
    }
    // Texel (x, y) holds level sample (px * pageSize + x - 1, py * pageSize + y - 1), clamped.
    const int side = layout_.pageSize;
    const int x0 = std::max(px * pages.pageSize - 1, 0);
    const int y0 = std::max(py * pages.pageSize - 1, 0);
    const int x1 = std::min(px * pages.pageSize + pages.texels - 2, l.columns - 1);
    const int y1 = std::min(py * pages.pageSize + pages.texels - 2, l.rows - 1);
    // A pooled level's pages come in whatever order the eye asks for them: the tiles of the page's
    // window not yet read, in one read a file (a window spans up to four of a mosaic's regions).
    const bool wholeRows = !pages.pooled(level);
    if (!wholeRows) {
        if (const Status read = readWindow(level, x0 / side, y0 / side, x1 / side, y1 / side);
            !read) {
            return read;
        }
    }
    for (int ty = y0 / side; ty <= y1 / side; ++ty) {
        for (int tx = x0 / side; tx <= x1 / side; ++tx) {
            const Result<const Tile*> got = tile(level, tx, ty, wholeRows);
            if (!got) {
                return Status::failure(got.error());
            }
            const Tile& t = *got.value();
            // The texels whose clamped sample lies in this tile.
            for (int y = 0; y < pages.texels; ++y) {
                const int sy = std::clamp(py * pages.pageSize + y - 1, 0, l.rows - 1);
                if (sy / side != ty) {
                    continue;
                }
                const uint16_t* row = t.codes.data() + size_t(sy - ty * side) * size_t(t.w);
                uint16_t* to = out + size_t(y) * size_t(pages.texels);
                for (int x = 0; x < pages.texels; ++x) {
                    const int sx = std::clamp(px * pages.pageSize + x - 1, 0, l.columns - 1);
                    if (sx / side == tx) {
                        to[x] = row[sx - tx * side];
                    }
                }
            }
        }
    }
    if (wholeRows && px == pl.pagesX - 1 && py == pl.pagesY - 1) {
        // The level's last page (pages are filled row by row): its reads let go of their tiles,
        // rows and datasets (with tiles of 256², a 65537² map's level 1 holds about 50 MB), so that
        // what the levels hold lasts the open alone. A later fill reads again.
        reads_[size_t(level - 1)] = LevelReads{};
    }
    return {};
}

}  // namespace qt
