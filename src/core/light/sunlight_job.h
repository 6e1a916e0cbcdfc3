// Cast shadows recomputed on a thread of their own when the Sun moves: the frame asks for a
// direction and keeps the last finished bytes until the new ones are ready, so a moving Sun never
// holds a frame up.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/base/result.h"
#include "core/base/worker_pool.h"
#include "core/light/light_buffer.h"
#include "core/light/sun_position.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/sample_presence.h"
#include "core/terrain/world.h"

namespace qt {

// The samples of a band of rows that a job in files sweeps at a time (sweepInRowBands): its codes,
// light bytes and the sky's sum, a few MiB each.
constexpr size_t kLightBandSamples = size_t(4) << 20;

class SunlightJob {
public:
    // The map and mapping must outlive the job; `threads` share each computation (the job's own
    // thread is the first of them). Three bytes a sample: the bytes shown, the finished ones not
    // yet taken, and the ones being computed. With `skyAzimuths` > 0 (and kLightBands bands) the
    // bytes are light bytes (light_byte.h): the shadows with the sky fraction from that many
    // azimuths, computed once before the first shadows and kept (a fourth byte a sample; four
    // more while it is computed).
    // With `pyramid` (a layout of height pages, copied), each computation also lays out the light
    // of levels 1 and up as those pages (fillBytePage), in page order from level 1's first page
    // (pyramid()): a third of a byte a sample more in each of the three buffers, and the
    // frame's thread uploads them as they are instead of gathering them.
    SunlightJob(const Heightmap& map, const WorldMapping& mapping, int bands, int threads,
                int skyAzimuths = 0, const HeightPages* pyramid = nullptr);
    // The same with every byte in unnamed scratch files in the folder `dir` (a streamed map's,
    // larger than memory): the three a sample, the sky fraction's and, until it is computed, its
    // 4 bytes a sample of sums, and with `pyramid` its pages with level 0's (levelZeroPage), all
    // allocated here, so that a full disk is one line now rather than a failure later. Each
    // computation sweeps the map in bands of rows of about `bandSamples` samples, and gives back
    // each band's pages of the files and of the map's mapped codes once the sweep has passed it:
    // the process holds about a band of each at a time.
    static Result<std::unique_ptr<SunlightJob>> inFiles(const Heightmap& map,
                                                        const WorldMapping& mapping, int bands,
                                                        int threads, int skyAzimuths,
                                                        const std::string& dir,
                                                        const HeightPages* pyramid = nullptr,
                                                        size_t bandSamples = kLightBandSamples);
    ~SunlightJob();  // lets the running computation finish, then joins
    SunlightJob(const SunlightJob&) = delete;
    SunlightJob& operator=(const SunlightJob&) = delete;

    // Asks for the shadows of `sun`. Requests made while one is computed replace each other:
    // only the latest is computed next.
    void request(SunDirection sun);
    // Takes the newest finished shadows into bytes(), if any finished since the last take; true
    // when bytes() changed. For the frame's thread, which alone reads bytes().
    bool takeFinished();
    // The shadows taken last (computeSunlight's bytes), undefined before the first (hasShown);
    // and their Sun.
    const LightBuffer& bytes() const { return shown_; }
    // With a pyramid: the shown light's pages of levels 1 and up, texels^2 bytes each, page
    // (level, px, py) at (pages.level[level].firstPage + py * pagesX + px - level 1's firstPage)
    // pages in, and in files level 0's pages after them (levelZeroPage); else empty.
    const LightBuffer& pyramid() const { return shownPyramid_; }
    // With a pyramid, the shown light's page numbered `page` (HeightPages' firstPage order) of
    // level 1 or up; else null.
    const uint8_t* upperPage(uint32_t page) const {
        return shownPyramid_.empty()
                   ? nullptr
                   : shownPyramid_.data() + size_t(page - uint32_t(pages_.level[1].firstPage)) *
                                                size_t(pages_.texels) * size_t(pages_.texels);
    }
    // In files (inFiles) with a pyramid, the shown light's level-0 page `page` (row-major over
    // level 0's pages), texels^2 bytes laid out as fillBytePage makes it, after the levels above
    // in pyramid(); else null (the frame gathers a page from bytes()). A page read from the
    // mapped file is a run of bytes where a gather from bytes() touches a row's page of memory
    // for each of its texel rows.
    const uint8_t* levelZeroPage(uint32_t page) const {
        return levelZeroPages_ ? shownPyramid_.data() + upperPyramidBytes_ +
                                     size_t(page) * size_t(pages_.texels) * size_t(pages_.texels)
                               : nullptr;
    }
    bool hasShown() const { return hasShown_; }
    SunDirection shownSun() const { return shownSun_; }
    // The sky's table under shownSun() (core/light/daylight_sky.h's skyTable, kSkyTableWidth x
    // kSkyTableHeight RGBA texels), made on the job's thread with the shadows, so that the frame
    // that shows a new Sun's shadows need not make it.
    const std::vector<uint16_t>& skyTexels() const { return shownSkyTable_; }
    // Waits until every request has been computed (tests and scripted runs).
    void waitIdle();
    // For a map whose codes arrive as they are asked for: before a computation reads them, the
    // job makes every sample present (presence.ensure over the map, on its own thread, while
    // the frames go on). Before the first request.
    void ensureFirst(SamplePresence presence);
    // The line of the last failure to make them present ("": none); the request that met it is
    // dropped, and the next one tries again.
    std::string failure() const;

private:
    struct Buffers {
        LightBuffer shown, finished, working, sky;
        FloatScratch open;  // the sky fraction's sum in a file; empty on the heap
        LightBuffer shownPyramid, finishedPyramid, workingPyramid;  // empty without a pyramid
    };
    SunlightJob(const Heightmap& map, const WorldMapping& mapping, int bands, int threads,
                int skyAzimuths, const HeightPages* pyramid, Buffers buffers, int bandRows);
    void loop();
    // The pyramid's texels over the map rows [firstRow, endRow) of working_, final.
    void layOutPyramid(int firstRow, int endRow);

    const Heightmap& map_;
    const WorldMapping mapping_;
    const int bands_;
    const int skyAzimuths_;
    const int bandRows_;  // the rows of a band of the sweeps; 0: all at once
    LightBuffer sky_;     // the job thread's only: skyFraction's, once computed
    bool skyDone_ = false;
    FloatScratch open_;  // the job thread's only, until the sky is computed
    WorkerPool pool_;
    LightBuffer shown_;  // the frame's thread's only
    bool hasShown_ = false;
    LightBuffer working_;   // the job thread's only
    LightBuffer finished_;  // under mutex_
    // The pyramid's layout (no levels: none) and its pages, swapped with the bytes; the bytes of
    // its levels 1 and up, and whether level 0's pages follow them.
    const HeightPages pages_;
    const size_t upperPyramidBytes_;
    const bool levelZeroPages_;
    LightBuffer shownPyramid_, workingPyramid_, finishedPyramid_;
    std::vector<uint16_t> shownSkyTable_, workingSkyTable_, finishedSkyTable_;
    SunDirection shownSun_;
    SunDirection finishedSun_;
    std::optional<SunDirection> pending_;
    bool hasFinished_ = false;
    bool busy_ = false;
    bool stop_ = false;
    std::atomic<bool> stopping_{false};  // stop_, for a fetch of the samples to read unlocked
    SamplePresence presence_;            // under mutex_
    bool samplesPresent_ = false;        // the job thread's only
    std::string failure_;                // under mutex_
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::thread thread_;  // last: started once everything above is
};

}  // namespace qt
