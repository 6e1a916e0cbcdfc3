// The exact coarse errors computed on a background thread after load, handed to the tree at a frame
// boundary: the first frames draw with the range bound, which costs nothing to make.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "core/streaming/streamed_map.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"

namespace qt {

// One background computation of a tree's exact coarse errors (exactCoarseErrors). The worker
// writes only its own vector and its time, then sets `done` (release); the main thread reads them
// only after seeing `done` (acquire), and only the main thread touches the tree. So the frame
// reads tree.coarseErrors while the worker fills another vector, and the handover is a swap on
// the main thread between frames: no lock, no allocation.
class CoarseErrorJob {
public:
    CoarseErrorJob() = default;
    ~CoarseErrorJob() { stop(); }
    CoarseErrorJob(CoarseErrorJob&&) noexcept = default;
    CoarseErrorJob& operator=(CoarseErrorJob&& other) noexcept;
    CoarseErrorJob(const CoarseErrorJob&) = delete;
    CoarseErrorJob& operator=(const CoarseErrorJob&) = delete;

    // Starts the worker for `tree`, built from `map` (a job already running is stopped first).
    // The map's codes must stay where they are (the Heightmap may move; its vector's storage goes
    // with it) until the job is taken, stopped or destroyed.
    void start(const Heightmap& map, const Quadtree& tree);
    // Starts the worker for a streamed map whose first open deferred its exact errors
    // (StreamOptions::deferExactErrors): streamedExactErrors over its mapped codes, band by band,
    // over the tree's range bound, and the sidecar written with them. The worker keeps its own
    // copy of the map (sharing the mapping) and of the level grids.
    void startStreamed(const Heightmap& map, const Quadtree& tree, const DeferredErrors& deferred);
    // After a streamed job's errors were taken: whether it wrote the sidecar.
    bool sidecarWritten() const { return sidecarWritten_; }
    // True while a worker has been started and its errors not yet taken.
    bool pending() const { return state_ != nullptr; }
    // When the worker has finished: swaps its errors into tree.coarseErrors and
    // tree.foldErrors (computeCoarseErrors's), sets tree.lodErrors and tree.exactLevels (Exact
    // and the depth; a streamed job's as streamedExactErrors made them) and returns true. Otherwise
    // returns false at once. Call it on the thread that reads the tree, between frames; it
    // allocates nothing.
    bool takeIfDone(Quadtree& tree);
    // Blocks until the worker finishes, then takes its errors as takeIfDone does.
    void finish(Quadtree& tree);
    // Asks the worker to stop and joins it; the tree keeps the bound it has.
    void stop();
    // The worker's wall time in milliseconds, from start to its errors being ready; 0 before.
    double milliseconds() const { return ms_; }

private:
    struct State {
        std::atomic<bool> cancel{false};
        std::atomic<bool> done{false};
        std::vector<uint16_t> errors;
        std::vector<uint16_t> folds;      // Quadtree::foldErrors
        std::vector<uint16_t> leafFolds;  // Quadtree::leafFoldErrors
        LodErrors kind = LodErrors::Exact;
        int exactLevels = -1;  // -1: the tree's depth
        bool sidecarWritten = false;
        double ms = 0.0;
        std::thread worker;
    };
    std::unique_ptr<State> state_;
    double ms_ = 0.0;
    bool sidecarWritten_ = false;
};

}  // namespace qt
