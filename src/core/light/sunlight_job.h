// Cast shadows recomputed on a thread of their own when the Sun moves: the frame asks for a
// direction and keeps the last finished bytes until the new ones are ready, so a moving Sun never
// holds a frame up.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/base/worker_pool.h"
#include "core/light/sun_position.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"

namespace qt {

class SunlightJob {
public:
    // The map and mapping must outlive the job; `threads` share each computation (the job's own
    // thread is the first of them). Three bytes a sample: the bytes shown, the finished ones not
    // yet taken, and the ones being computed. With `skyAzimuths` > 0 (and kLightBands bands) the
    // bytes are light bytes (light_byte.h): the shadows with the sky fraction from that many
    // azimuths, computed once before the first shadows and kept (a fourth byte a sample; four
    // more while it is computed).
    SunlightJob(const Heightmap& map, const WorldMapping& mapping, int bands, int threads,
                int skyAzimuths = 0);
    ~SunlightJob();  // lets the running computation finish, then joins
    SunlightJob(const SunlightJob&) = delete;
    SunlightJob& operator=(const SunlightJob&) = delete;

    // Asks for the shadows of `sun`. Requests made while one is computed replace each other:
    // only the latest is computed next.
    void request(SunDirection sun);
    // Takes the newest finished shadows into bytes(), if any finished since the last take; true
    // when bytes() changed. For the frame's thread, which alone reads bytes().
    bool takeFinished();
    // The shadows taken last (computeSunlight's bytes), empty before the first; and their Sun.
    const std::vector<uint8_t>& bytes() const { return shown_; }
    SunDirection shownSun() const { return shownSun_; }
    // Waits until every request has been computed (tests and scripted runs).
    void waitIdle();

private:
    void loop();

    const Heightmap& map_;
    const WorldMapping mapping_;
    const int bands_;
    const int skyAzimuths_;
    std::vector<uint8_t> sky_;  // the job thread's only: skyFraction's, once computed
    WorkerPool pool_;
    std::vector<uint8_t> shown_;     // the frame's thread's only
    std::vector<uint8_t> working_;   // the job thread's only
    std::vector<uint8_t> finished_;  // under mutex_
    SunDirection shownSun_;
    SunDirection finishedSun_;
    std::optional<SunDirection> pending_;
    bool hasFinished_ = false;
    bool busy_ = false;
    bool stop_ = false;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::thread thread_;  // last: started once everything above is
};

}  // namespace qt
