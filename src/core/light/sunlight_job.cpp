// The shadows' thread: one computation at a time, the latest request next, results handed over
// by swapping buffers under the lock.
#include "core/light/sunlight_job.h"

#include <atomic>
#include <cassert>
#include <utility>

#include "core/light/light_byte.h"
#include "core/light/sky_light.h"
#include "core/light/sunlight.h"

namespace qt {

namespace {

// Bytes of the light of levels 1 and up laid out as `pages`' pages (none without a level 1).
size_t pyramidBytes(const HeightPages* pages) {
    if (pages == nullptr || pages->level.size() < 2) {
        return 0;
    }
    return size_t(pages->layers - pages->level[1].firstLayer) * size_t(pages->texels) *
           size_t(pages->texels);
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
                          LightBuffer::onHeap(pyramidBytes(pyramid)),
                          LightBuffer::onHeap(pyramidBytes(pyramid)),
                          LightBuffer::onHeap(pyramidBytes(pyramid))}) {}

Result<std::unique_ptr<SunlightJob>> SunlightJob::inFiles(const Heightmap& map,
                                                          const WorldMapping& mapping, int bands,
                                                          int threads, int skyAzimuths,
                                                          const std::string& dir,
                                                          const HeightPages* pyramid) {
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
    if (const size_t bytes = pyramidBytes(pyramid); bytes > 0) {
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
    return std::unique_ptr<SunlightJob>(
        new SunlightJob(map, mapping, bands, threads, skyAzimuths, pyramid, std::move(b)));
}

SunlightJob::SunlightJob(const Heightmap& map, const WorldMapping& mapping, int bands, int threads,
                         int skyAzimuths, const HeightPages* pyramid, Buffers buffers)
    : map_(map),
      mapping_(mapping),
      bands_(bands),
      skyAzimuths_(skyAzimuths),
      sky_(std::move(buffers.sky)),
      open_(std::move(buffers.open)),
      pool_(threads, WorkerPool::Priority::Background),
      shown_(std::move(buffers.shown)),
      working_(std::move(buffers.working)),
      finished_(std::move(buffers.finished)),
      pages_(pyramidBytes(pyramid) > 0 ? *pyramid : HeightPages{}),
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
    hasShown_ = true;
    shownSun_ = finishedSun_;
    hasFinished_ = false;
    return true;
}

void SunlightJob::waitIdle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return !busy_ && !pending_; });
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
        lock.unlock();
        if (skyAzimuths_ > 0 && !skyDone_) {
            const size_t n = size_t(map_.sampleCount());
            if (sky_.empty()) {
                sky_ = LightBuffer::onHeap(n);
                skyFraction(map_, mapping_, skyAzimuths_, sky_.data(), &pool_);
            } else {
                // Mapped by inFiles: map() hands the mapping back.
                skyFraction(map_, mapping_, skyAzimuths_, sky_.data(), &pool_, open_.map().value());
                open_ = FloatScratch();  // its file goes
            }
            skyDone_ = true;
        }
        computeSunlight(map_, mapping_, sun, bands_, working_.data(), &pool_);
        if (skyDone_) {
            uint8_t* bytes = working_.data();
            for (size_t i = 0; i < working_.size(); ++i) {
                bytes[i] = lightByte(bytes[i], sky_[i]);
            }
        }
        layOutPyramid();
        if (working_.isFile()) {
            working_.dropResident();
            workingPyramid_.dropResident();
            sky_.dropResident();
            map_.codes.dropResident(0, map_.codes.size());  // a mapped map's codes
        }
        lock.lock();
        std::swap(working_, finished_);
        std::swap(workingPyramid_, finishedPyramid_);
        finishedSun_ = sun;
        hasFinished_ = true;
        busy_ = false;
        idle_.notify_all();
    }
}

void SunlightJob::layOutPyramid() {
    if (workingPyramid_.empty()) {
        return;
    }
    // Every page of levels 1 and up, in layer order: page k is layer level[1].firstLayer + k.
    const int first = pages_.level[1].firstLayer;
    const int count = pages_.layers - first;
    const size_t texels = size_t(pages_.texels) * size_t(pages_.texels);
    std::atomic<int> next{0};
    auto job = [&](int) {
        size_t level = 1;
        for (int k = next.fetch_add(1); k < count; k = next.fetch_add(1)) {
            while (level + 1 < pages_.level.size() &&
                   first + k >= pages_.level[level + 1].firstLayer) {
                ++level;
            }
            const PageLevel& l = pages_.level[level];
            const int index = first + k - l.firstLayer;
            fillBytePage(working_.data(), map_.width, map_.height, pages_, int(level),
                         index % l.pagesX, index / l.pagesX,
                         workingPyramid_.data() + size_t(k) * texels);
        }
    };
    pool_.run(job);
}

}  // namespace qt
