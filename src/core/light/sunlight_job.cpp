// The shadows' thread: one computation at a time, the latest request next, results handed over
// by swapping buffers under the lock.
#include "core/light/sunlight_job.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <utility>

#include "core/light/daylight_sky.h"
#include "core/light/light_byte.h"
#include "core/light/sky_light.h"
#include "core/light/sunlight.h"

namespace qt {

namespace {

// Bytes of the light of levels 1 and up laid out as `pages`' pages (none without a level 1).
size_t upperPyramidBytes(const HeightPages* pages) {
    if (pages == nullptr || pages->level.size() < 2) {
        return 0;
    }
    return size_t(pages->pageCount - pages->level[1].firstPage) * size_t(pages->texels) *
           size_t(pages->texels);
}

// The same with, in files, level 0's pages after them (page order).
size_t pyramidBytes(const HeightPages* pages, bool inFiles) {
    const size_t upper = upperPyramidBytes(pages);
    if (upper == 0 || !inFiles) {
        return upper;
    }
    const PageLevel& l = pages->level[0];
    return upper +
           size_t(l.pagesX) * size_t(l.pagesY) * size_t(pages->texels) * size_t(pages->texels);
}

}  // namespace

SunlightJob::SunlightJob(const Heightmap& map, const WorldMapping& mapping, int bands, int threads,
                         int skyAzimuths, const HeightPages* pyramid)
    : SunlightJob(map, mapping, bands, threads, skyAzimuths, pyramid,
                  Buffers{LightBuffer::onHeap(size_t(map.sampleCount())),
                          LightBuffer::onHeap(size_t(map.sampleCount())),
                          LightBuffer::onHeap(size_t(map.sampleCount())),
                          {},
                          {},
                          LightBuffer::onHeap(pyramidBytes(pyramid, false)),
                          LightBuffer::onHeap(pyramidBytes(pyramid, false)),
                          LightBuffer::onHeap(pyramidBytes(pyramid, false))},
                  0) {}

Result<std::unique_ptr<SunlightJob>> SunlightJob::inFiles(
    const Heightmap& map, const WorldMapping& mapping, int bands, int threads, int skyAzimuths,
    const std::string& dir, const HeightPages* pyramid, size_t bandSamples) {
    using R = Result<std::unique_ptr<SunlightJob>>;
    const size_t n = size_t(map.sampleCount());
    Buffers b;
    for (LightBuffer* buffer : {&b.shown, &b.finished, &b.working}) {
        Result<LightBuffer> made = LightBuffer::inFile(dir, n);
        if (!made) {
            return R::failure(made.error());
        }
        *buffer = std::move(made).value();
    }
    if (const size_t bytes = pyramidBytes(pyramid, true); bytes > 0) {
        for (LightBuffer* buffer : {&b.shownPyramid, &b.finishedPyramid, &b.workingPyramid}) {
            Result<LightBuffer> made = LightBuffer::inFile(dir, bytes);
            if (!made) {
                return R::failure(made.error());
            }
            *buffer = std::move(made).value();
        }
    }
    if (skyAzimuths > 0) {
        Result<LightBuffer> sky = LightBuffer::inFile(dir, n);
        if (!sky) {
            return R::failure(sky.error());
        }
        Result<FloatScratch> open = FloatScratch::create(dir, n);
        if (!open) {
            return R::failure(open.error());
        }
        b.sky = std::move(sky).value();
        b.open = std::move(open).value();
        if (Result<float*> mapped = b.open.map(); !mapped) {
            return R::failure(mapped.error());
        }
    }
    const size_t width = size_t(std::max(map.width, 1));
    const int bandRows = int(std::clamp<size_t>(bandSamples / width, 1, size_t(map.height)));
    return std::unique_ptr<SunlightJob>(new SunlightJob(map, mapping, bands, threads, skyAzimuths,
                                                        pyramid, std::move(b), bandRows));
}

SunlightJob::SunlightJob(const Heightmap& map, const WorldMapping& mapping, int bands, int threads,
                         int skyAzimuths, const HeightPages* pyramid, Buffers buffers, int bandRows)
    : map_(map),
      mapping_(mapping),
      bands_(bands),
      skyAzimuths_(skyAzimuths),
      bandRows_(bandRows),
      sky_(std::move(buffers.sky)),
      open_(std::move(buffers.open)),
      pool_(threads, WorkerPool::Priority::Background),
      shown_(std::move(buffers.shown)),
      working_(std::move(buffers.working)),
      finished_(std::move(buffers.finished)),
      pages_(upperPyramidBytes(pyramid) > 0 ? *pyramid : HeightPages{}),
      upperPyramidBytes_(upperPyramidBytes(pyramid)),
      levelZeroPages_(buffers.shownPyramid.size() > upperPyramidBytes_),
      shownPyramid_(std::move(buffers.shownPyramid)),
      workingPyramid_(std::move(buffers.workingPyramid)),
      finishedPyramid_(std::move(buffers.finishedPyramid)),
      thread_([this] {
          runThisThreadInBackground();  // frames never wait for it: they take what is left
          loop();
      }) {
    assert(skyAzimuths == 0 || bands == kLightBands);
}

SunlightJob::~SunlightJob() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    stopping_.store(true);  // a fetch of the map's samples ends within a band
    wake_.notify_all();
    thread_.join();
}

void SunlightJob::request(SunDirection sun) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_ = sun;
    }
    wake_.notify_all();
}

bool SunlightJob::takeFinished() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!hasFinished_)
        return false;
    std::swap(shown_, finished_);
    std::swap(shownPyramid_, finishedPyramid_);
    std::swap(shownSkyTable_, finishedSkyTable_);
    hasShown_ = true;
    shownSun_ = finishedSun_;
    hasFinished_ = false;
    return true;
}

void SunlightJob::waitIdle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return !busy_ && !pending_; });
}

void SunlightJob::ensureFirst(SamplePresence presence) {
    std::lock_guard<std::mutex> lock(mutex_);
    presence_ = std::move(presence);
}

std::string SunlightJob::failure() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
}

void SunlightJob::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
        if (stop_)
            return;
        const SunDirection sun = *pending_;
        pending_.reset();
        busy_ = true;
        const SamplePresence presence = presence_;
        lock.unlock();
        if (!samplesPresent_ && presence.ensure) {
            const Status present = ensureWholeMap(presence, map_.width, map_.height, stopping_);
            lock.lock();
            if (stop_) {
                return;
            }
            samplesPresent_ = bool(present);
            failure_ = present ? "" : present.error();
            if (!present) {
                busy_ = false;
                idle_.notify_all();
                continue;
            }
            lock.unlock();
        }
        // A map in files is swept in bands of rows (sweepInRowBands), each band's pages given
        // back as soon as the lines have passed it, so that the process holds about a band of
        // each array at a time rather than the whole map.
        const bool inFiles = working_.isFile();
        const size_t width = size_t(map_.width);
        const auto samples = [width](int first, int end) {
            return std::make_pair(size_t(first) * width, size_t(end - first) * width);
        };
        if (skyAzimuths_ > 0 && !skyDone_) {
            const size_t n = size_t(map_.sampleCount());
            if (sky_.empty()) {
                sky_ = LightBuffer::onHeap(n);
                skyFraction(map_, mapping_, skyAzimuths_, sky_.data(), &pool_);
            } else {
                // Mapped by inFiles: map() hands the mapping back.
                skyFraction(map_, mapping_, skyAzimuths_, sky_.data(), &pool_, open_.map().value(),
                            bandRows_, [&](int first, int end, bool final) {
                                const auto [from, count] = samples(first, end);
                                map_.codes.dropResident(from, count);
                                open_.dropResident(from, count);
                                if (final)
                                    sky_.dropResident(from, count);
                            });
                open_ = FloatScratch();  // its file goes
            }
            skyDone_ = true;
        }
        computeSunlight(map_, mapping_, sun, bands_, working_.data(), &pool_, bandRows_,
                        [&](int first, int end) {
                            const auto [from, count] = samples(first, end);
                            if (skyDone_) {
                                uint8_t* bytes = working_.data();
                                for (size_t i = from; i < from + count; ++i)
                                    bytes[i] = lightByte(bytes[i], sky_[i]);
                            }
                            layOutPyramid(first, end);
                            if (inFiles) {
                                working_.dropResident(from, count);
                                sky_.dropResident(from, count);
                                map_.codes.dropResident(from, count);
                                workingPyramid_.dropResident();
                            }
                        });
        workingSkyTable_.resize(size_t(kSkyTableWidth) * kSkyTableHeight * 4);
        skyTable(daylightSky(sun), workingSkyTable_.data());
        lock.lock();
        std::swap(working_, finished_);
        std::swap(workingPyramid_, finishedPyramid_);
        std::swap(workingSkyTable_, finishedSkyTable_);
        finishedSun_ = sun;
        hasFinished_ = true;
        busy_ = false;
        idle_.notify_all();
    }
}

void SunlightJob::layOutPyramid(int firstRow, int endRow) {
    if (workingPyramid_.empty()) {
        return;
    }
    // Every page row of levels 1 and up, its texel rows over [firstRow, endRow); the pages of
    // page row py of level L from page level[L].firstPage + py * pagesX, counted from level 1's
    // first page. With level 0's pages, its page rows after them, page py * pagesX first.
    const size_t levels = pages_.level.size();
    std::atomic<size_t> next{0};
    size_t upperRows = 0;
    for (size_t level = 1; level < levels; ++level) {
        upperRows += size_t(pages_.level[level].pagesY);
    }
    const PageLevel& zero = pages_.level[0];
    const size_t rowsOfPages = upperRows + (levelZeroPages_ ? size_t(zero.pagesY) : 0);
    const size_t texels = size_t(pages_.texels) * size_t(pages_.texels);
    auto job = [&](int) {
        size_t level = 1, before = 0;  // page rows of the levels below `level`
        for (size_t k = next.fetch_add(1); k < rowsOfPages; k = next.fetch_add(1)) {
            if (k >= upperRows) {
                const int py = int(k - upperRows);
                fillBytePageRows(working_.data(), map_.width, map_.height, pages_, 0, py, firstRow,
                                 endRow,
                                 workingPyramid_.data() + upperPyramidBytes_ +
                                     size_t(py) * size_t(zero.pagesX) * texels);
                continue;
            }
            while (k >= before + size_t(pages_.level[level].pagesY)) {
                before += size_t(pages_.level[level].pagesY);
                ++level;
            }
            const PageLevel& l = pages_.level[level];
            const int py = int(k - before);
            const size_t page = size_t(l.firstPage + py * l.pagesX - pages_.level[1].firstPage);
            fillBytePageRows(working_.data(), map_.width, map_.height, pages_, int(level), py,
                             firstRow, endRow, workingPyramid_.data() + page * texels);
        }
    };
    pool_.run(job);
}

}  // namespace qt
