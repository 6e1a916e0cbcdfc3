// The shadows' thread: one computation at a time, the latest request next, results handed over
// by swapping buffers under the lock.
#include "core/light/sunlight_job.h"

#include <cassert>
#include <utility>

#include "core/light/light_byte.h"
#include "core/light/sky_light.h"
#include "core/light/sunlight.h"

namespace qt {

SunlightJob::SunlightJob(const Heightmap& map, const WorldMapping& mapping, int bands, int threads,
                         int skyAzimuths)
    : SunlightJob(map, mapping, bands, threads, skyAzimuths,
                  Buffers{LightBuffer::onHeap(size_t(map.sampleCount())),
                          LightBuffer::onHeap(size_t(map.sampleCount())),
                          LightBuffer::onHeap(size_t(map.sampleCount())),
                          {},
                          {},
                          {}}) {}

Result<std::unique_ptr<SunlightJob>> SunlightJob::inFiles(const Heightmap& map,
                                                          const WorldMapping& mapping, int bands,
                                                          int threads, int skyAzimuths,
                                                          const std::string& dir) {
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
    if (skyAzimuths > 0) {
        Result<LightBuffer> sky = LightBuffer::inFile(dir, n);
        Result<FloatScratch> open = FloatScratch::create(dir, n);
        Result<FloatScratch> angles = FloatScratch::create(dir, n);
        for (const std::string* problem :
             {sky ? nullptr : &sky.error(), open ? nullptr : &open.error(),
              angles ? nullptr : &angles.error()}) {
            if (problem != nullptr) {
                return R::failure(*problem);
            }
        }
        b.sky = std::move(sky).value();
        b.open = std::move(open).value();
        b.angles = std::move(angles).value();
        for (FloatScratch* scratch : {&b.open, &b.angles}) {
            if (Result<float*> mapped = scratch->map(); !mapped) {
                return R::failure(mapped.error());
            }
        }
    }
    return std::unique_ptr<SunlightJob>(
        new SunlightJob(map, mapping, bands, threads, skyAzimuths, std::move(b)));
}

SunlightJob::SunlightJob(const Heightmap& map, const WorldMapping& mapping, int bands, int threads,
                         int skyAzimuths, Buffers buffers)
    : map_(map),
      mapping_(mapping),
      bands_(bands),
      skyAzimuths_(skyAzimuths),
      sky_(std::move(buffers.sky)),
      open_(std::move(buffers.open)),
      angles_(std::move(buffers.angles)),
      pool_(threads, WorkerPool::Priority::Background),
      shown_(std::move(buffers.shown)),
      working_(std::move(buffers.working)),
      finished_(std::move(buffers.finished)),
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
                skyFraction(map_, mapping_, skyAzimuths_, sky_.data(), &pool_, open_.map().value(),
                            angles_.map().value());
                open_ = FloatScratch();  // their files go
                angles_ = FloatScratch();
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
        if (working_.inFile()) {
            working_.dropResident();
            sky_.dropResident();
            map_.codes.dropResident(0, map_.codes.size());  // a mapped map's codes
        }
        lock.lock();
        std::swap(working_, finished_);
        finishedSun_ = sun;
        hasFinished_ = true;
        busy_ = false;
        idle_.notify_all();
    }
}

}  // namespace qt
