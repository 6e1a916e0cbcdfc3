// The background exact-error scan and its handover to the tree.
#include "core/streaming/coarse_error_job.h"

#include <cassert>
#include <chrono>

#include "core/lod/lod_error.h"

namespace qt {

CoarseErrorJob& CoarseErrorJob::operator=(CoarseErrorJob&& other) noexcept {
    if (this != &other) {
        stop();
        state_ = std::move(other.state_);
        ms_ = other.ms_;
    }
    return *this;
}

namespace {

// The worker's own copy of the level grids: the tree may move while it runs.
Quadtree levelGrids(const Quadtree& tree) {
    Quadtree levels;
    levels.leafSize = tree.leafSize;
    levels.leafShift = tree.leafShift;
    levels.leavesX = tree.leavesX;
    levels.leavesZ = tree.leavesZ;
    levels.depth = tree.depth;
    levels.levelStart = tree.levelStart;
    levels.levelWidth = tree.levelWidth;
    return levels;
}

double msSince(std::chrono::steady_clock::time_point begin) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
        .count();
}

}  // namespace

void CoarseErrorJob::startStreamed(const Heightmap& map, const Quadtree& tree,
                                   const DeferredErrors& deferred) {
    stop();
    ms_ = 0.0;
    sidecarWritten_ = false;
    state_ = std::make_unique<State>();
    State* state = state_.get();
    state->worker = std::thread([state, map, levels = levelGrids(tree), deferred,
                                 coarse = tree.coarseErrors, fold = tree.foldErrors]() mutable {
        const auto begin = std::chrono::steady_clock::now();
        Result<StreamedErrors> made = streamedExactErrors(map, levels, deferred, std::move(coarse),
                                                          std::move(fold), &state->cancel);
        if (!made) {
            return;  // cancelled: stop() joins and drops the state
        }
        state->errors = std::move(made.value().coarse);
        state->folds = std::move(made.value().fold);
        state->leafFolds = std::move(made.value().leafFold);
        state->kind = made.value().kind;
        state->exactLevels = made.value().exactLevels;
        state->sidecarWritten = made.value().sidecarWritten;
        state->ms = msSince(begin);
        state->done.store(true, std::memory_order_release);
    });
}

void CoarseErrorJob::start(const Heightmap& map, const Quadtree& tree) {
    stop();
    ms_ = 0.0;
    sidecarWritten_ = false;
    state_ = std::make_unique<State>();
    Quadtree levels = levelGrids(tree);
    State* state = state_.get();
    state->worker = std::thread([state, grid = codeGrid(map), levels = std::move(levels)] {
        const auto begin = std::chrono::steady_clock::now();
        state->errors = exactCoarseErrors(grid, levels, &state->cancel, &state->folds);
        state->leafFolds = exactLeafFoldErrors(grid, levels, &state->cancel);
        if (state->cancel.load(std::memory_order_relaxed)) {
            return;  // stop() joins and drops the state
        }
        state->ms = msSince(begin);
        state->done.store(true, std::memory_order_release);
    });
}

bool CoarseErrorJob::takeIfDone(Quadtree& tree) {
    if (!state_ || !state_->done.load(std::memory_order_acquire)) {
        return false;
    }
    if (state_->worker.joinable()) {
        state_->worker.join();  // it has set `done`, its last step: no wait to speak of
    }
    assert(state_->errors.size() == tree.coarseErrors.size());
    assert(state_->folds.size() == tree.foldErrors.size());
    tree.coarseErrors.swap(state_->errors);
    tree.foldErrors.swap(state_->folds);
    tree.leafFoldErrors.swap(state_->leafFolds);
    tree.lodErrors = state_->kind;
    tree.exactLevels = state_->exactLevels < 0 ? tree.depth : state_->exactLevels;
    ms_ = state_->ms;
    sidecarWritten_ = state_->sidecarWritten;
    // The old vector goes with the state, freed here: between frames, not inside one.
    state_.reset();
    return true;
}

void CoarseErrorJob::finish(Quadtree& tree) {
    if (!state_) {
        return;
    }
    state_->worker.join();
    if (!takeIfDone(tree)) {
        state_.reset();  // it ended without errors (cancelled): the tree keeps its bound
    }
}

void CoarseErrorJob::stop() {
    if (!state_) {
        return;
    }
    state_->cancel.store(true, std::memory_order_relaxed);
    state_->worker.join();
    state_.reset();
}

}  // namespace qt
