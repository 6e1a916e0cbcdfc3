// Height pages of the pooled levels streamed on demand: worker threads fill the pages the frames
// ask for from the map's codes (or a layout's files), and the main thread hands them, a few per
// frame, to the GPU's pool of layers.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/base/result.h"
#include "core/lod/lod.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/heightmap.h"

namespace qt {

// Called by the worker after it filled a page from map rows [firstRow, lastRow]: those rows are
// not needed again until the page is asked for anew. A no-op for codes in memory; for codes
// mapped from a file it is where the rows' resident pages are dropped, so that flying over a map
// larger than memory keeps only the rows being read resident.
void releaseMapRows(const Heightmap& map, int firstRow, int lastRow);

// The state of a pooled page (HeightPages::pooledLevels). Absent -> Requested (a frame asked) ->
// Loading (the worker is filling it) -> Ready (filled, in a staging page) -> Resident (in a pool
// layer) -> Absent (its layer recycled). A Requested page that no frame asks for any more goes back
// to Absent.
enum class PageState : uint8_t { Absent, Requested, Loading, Ready, Resident };

struct StreamStats {
    int pool = 0;       // pool layers
    int resident = 0;   // pages in the pool
    int requested = 0;  // pages asked for and not yet filled (Requested or Loading)
    int ready = 0;      // filled, waiting for an upload
    int uploaded = 0;   // pages handed to the GPU by the last upload()
    uint64_t uploadedTotal = 0;
    uint64_t failedTotal = 0;  // fills whose samples the source could not give
};

// Makes the map's samples of columns [x0, x1] and rows [y0, y1] readable before a page is filled
// from them: for a layout streamed by tiles, LayoutTiles::ensure. One line when it cannot; the
// page then stays Absent (the coarser level drawn in its place) until a later frame asks again.
using SampleSource = std::function<Status(int x0, int y0, int x1, int y1)>;

// Fills `out` (pages.texels^2 codes) with page (px, py) of `level` (1 and up) from elsewhere than
// the map's codes: the texels fillHeightPage makes from them (a layout's heights-K files,
// LayoutLevelPages::fill, so that its coarse levels reach the GPU with level 0 unread). One line
// when it cannot. May be called for different levels on different threads at once, for each
// level from one thread at a time.
using CoarsePageFill =
    std::function<Status(const HeightPages& pages, int level, int px, int py, uint16_t* out)>;

// The pooled pages of one map (HeightPages::pooledLevels: level 0, and the levels above it that
// stream, each with a level above it to stand in), numbered as PageRequest numbers them, streamed
// into a pool of `poolLayers` GPU layers. Thread use: every public method is for the main thread
// (the one that culls and draws); the workers read the map's codes, which must not change nor move
// while they run (stop() first), and write only staging pages the main thread has not been handed.
//
// No allocation per frame: every queue is sized at bind(); the main thread hands the workers a
// list of requests sorted nearest first (replacing the previous frame's), a worker fills the
// first still wanted into a free staging page, and upload() takes at most the budget of filled
// pages, gives each a pool layer (a free one, else the one drawn least recently, never one
// drawn by the last frame nor one uploaded since) and calls the renderer's upload for it.
class PageStreamer {
public:
    PageStreamer() = default;
    ~PageStreamer() { stop(); }
    PageStreamer(const PageStreamer&) = delete;
    PageStreamer& operator=(const PageStreamer&) = delete;

    // Sizes the streamer for `pages`' pooled levels (level 0 where it has none) in `poolLayers`
    // layers (at least 1) and starts the workers over `map`, which must stay where it is until
    // stop().
    // With `source`, the worker asks it for each level-0 page's samples first; with `coarse`, it
    // fills the pages of levels 1 and up from it instead of from the map's codes. With `workers`
    // above 1 (a source whose wait is a network's round trip, not the machine's work), that many
    // workers fill pages side by side, each the nearest page still asked for, at most one of them
    // a given level's page from `coarse` (which takes one thread a level); at most
    // stagingPages - 1.
    void start(const Heightmap& map, const HeightPages& pages, int poolLayers,
               int uploadsPerFrame = kStreamUploadsPerFrame, int stagingPages = kStreamStagingPages,
               SampleSource source = {}, CoarsePageFill coarse = {}, int workers = 1);
    // Joins the workers; pages not yet uploaded are dropped (back to Absent).
    void stop();
    bool running() const { return !workers_.empty(); }
    const Heightmap* map() const { return map_; }

    // The residency the selection reads (LodParams::residency); valid while the streamer lives.
    const LodResidency& residency() const { return residency_.view(); }
    PageState state(uint32_t page) const;
    // The pool layer holding a resident page, or -1.
    int layerOf(uint32_t page) const { return pageLayer_[page]; }

    // This frame's requests (the selection's, sorted here nearest first): they replace the last
    // frame's, pages no longer asked for and not yet being filled going back to Absent.
    void request(std::vector<PageRequest>& requests);
    // Marks as drawn by this frame the pool layers the nodes `drawn` draws from, the pooled pages
    // above that let their parents split (LodResidency::forEachNeeded) and those of `shading`
    // that are resident (LodOutput::shadingPages):
    // upload() recycles the least recently drawn layer first and never one drawn by the last
    // frame.
    void markDrawn(const std::vector<DrawNode>& drawn, int leafShift,
                   const std::vector<uint32_t>& shading = {});

    // A page's upload into a pool layer: (layer, page, its texels^2 codes, the page evicted from
    // the layer or -1), pages numbered as PageRequest numbers them. The renderer writes the texels
    // into the layer and points the page table's entry of `page` at it (and that of the evicted
    // page at the sentinel).
    using Upload =
        std::function<void(int layer, uint32_t page, const uint16_t* texels, int64_t evicted)>;
    // Between frames: up to the per-frame budget of filled pages go to `upload`, then are
    // Resident. Returns how many.
    int upload(const Upload& uploadPage);
    // Blocks until nothing is Requested, Loading or Ready, uploading as it goes (with no budget):
    // for tests and scripted frames. Pages whose upload found no layer (every one drawn by the
    // last frame) stay Ready, and it returns then.
    void settle(const Upload& uploadPage);

    StreamStats stats() const;
    // The line of the last fill whose samples the source could not give ("" when none did).
    std::string lastFailure() const;
    // Whether the last upload() left filled pages waiting because every layer was drawn by the
    // last frame: the pool is smaller than what the frames draw and ask for.
    bool starved() const { return starved_; }

private:
    void work();
    // The queue's index of the nearest page a worker may take now (a page of a level above 0
    // from coarse_ only while no other worker fills one of that level), or queue_.size(); mutex_
    // held.
    size_t nextTakeable() const;
    int freeLayer();

    const Heightmap* map_ = nullptr;
    const HeightPages* pages_ = nullptr;
    SampleSource source_;    // read by the workers alone while they run
    CoarsePageFill coarse_;  // the same, by one worker at a time
    int uploadsPerFrame_ = 0;

    // Shared with the worker, under mutex_.
    mutable std::mutex mutex_;
    std::condition_variable wake_;    // the worker: requests or a free staging page, or stop
    std::condition_variable filled_;  // settle(): a page became Ready
    bool stop_ = false;
    std::vector<PageState> state_;  // per pooled page
    std::vector<uint32_t> queue_;   // the requests, nearest first; the worker takes from head_
    size_t head_ = 0;
    std::vector<uint16_t> staging_;                // stagingPages x texels^2 codes
    std::vector<int> freeStaging_;                 // staging pages free for the worker
    std::vector<std::pair<uint32_t, int>> ready_;  // (page, staging page), in fill order
    int loading_ = 0;                              // pages the workers hold
    uint32_t coarseLoading_ = 0;  // bit k: a worker fills a level-k page from coarse_
    uint64_t failed_ = 0;         // fills the source failed
    std::string lastFailure_;

    // Main thread only.
    PageResidency residency_;           // per page: Resident or not
    std::vector<int> pageLayer_;        // per page: its pool layer, or -1
    std::vector<int64_t> layerPage_;    // per layer: its page, or -1
    std::vector<uint64_t> layerDrawn_;  // per layer: the last frame that drew it (0: never)
    // Per layer: 1 + the last frame drawn before its page was uploaded (0: none uploaded).
    std::vector<uint64_t> layerUploaded_;
    std::vector<uint32_t> wanted_;  // per page: the last request() that asked for it
    uint32_t requestFrame_ = 0;
    uint64_t drawFrame_ = 0;
    int uploaded_ = 0;
    bool starved_ = false;
    uint64_t uploadedTotal_ = 0;

    std::vector<std::thread> workers_;
};

// The pool layers a streamed terrain needs at most, derived from the view: level-0 nodes are drawn
// only inside a level-1 node's split distance, stepsAway * reach, and pages are asked for within
// kStreamPrefetch of it. With the grid-step reach (2 steps at level 1) and the stepsAway of the
// finest level of detail (`finestPixels` for a viewport `viewportHeight` high at `fovY`), the
// pages within that radius of the eye, in a square of side 2r + one page either way, are
//   (2 * kStreamPrefetch * stepsAway * 2 / pageSize + 2)^2,
// capped by the map's level-0 pages. For each pooled level j >= 1, its pages within the level
// j + 1 split distance (2^j times the radius, over pages 2^j times as wide) and one more ring (the
// pages around a parent's that a split needs) are added, capped by level j's pages. Towards the
// view's sides, where the split distance is taken as the Euclidean one times the corners' cosine
// (lodDistance), and on a rough map whose coarse errors stretch the reach, more are asked for:
// those pages wait (the level-1 surface is drawn there) until a layer drawn less recently frees, so
// a small pool costs detail, never a hole.
int streamPoolLayers(const HeightPages& pages, float fovY, int viewportHeight, float finestPixels,
                     int leafSize);

}  // namespace qt
