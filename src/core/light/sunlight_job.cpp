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
    : map_(map),
      mapping_(mapping),
      bands_(bands),
      skyAzimuths_(skyAzimuths),
      pool_(threads, WorkerPool::Priority::Background),
      working_(size_t(map.sampleCount())),
      finished_(size_t(map.sampleCount())),
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
    if (shown_.size() != finished_.size())
        shown_.resize(finished_.size());
    std::swap(shown_, finished_);
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
        if (skyAzimuths_ > 0 && sky_.empty()) {
            sky_.resize(working_.size());
            skyFraction(map_, mapping_, skyAzimuths_, sky_.data(), &pool_);
        }
        computeSunlight(map_, mapping_, sun, bands_, working_.data(), &pool_);
        if (!sky_.empty()) {
            for (size_t i = 0; i < working_.size(); ++i) {
                working_[i] = lightByte(working_[i], sky_[i]);
            }
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
