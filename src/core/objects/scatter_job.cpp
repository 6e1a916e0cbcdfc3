// Scatters made on threads of their own.
#include "core/objects/scatter_job.h"

#include <chrono>
#include <utility>

namespace qt {

Result<ScatteredObjects> scatterWithOrder(const Heightmap& map, const WorldMapping& mapping,
                                          const ScatterRequest& request) {
    Result<ObjectScene> scene = ObjectScene::scatter(map, mapping, request.count, request.moving,
                                                     request.seed, request.scale);
    if (!scene) {
        return Result<ScatteredObjects>::failure(scene.error());
    }
    StaticOrder order(scene.value());
    return ScatteredObjects{std::move(scene).value(), std::move(order)};
}

void ScatterJob::launch(const Asked& asked) {
    // The map by reference (its owner keeps it until the scatter has ended), the rest copied.
    running_ = std::async(std::launch::async,
                          [map = asked.map, mapping = asked.mapping, request = asked.request] {
                              return scatterWithOrder(*map, mapping, request);
                          });
    wanted_ = true;
    ++launched_;
}

void ScatterJob::start(const Heightmap& map, const WorldMapping& mapping,
                       const ScatterRequest& request) {
    drop();
    const Asked asked{&map, mapping, request};
    if (running_.valid() &&
        running_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        next_ = asked;  // one thread at a time
        return;
    }
    launch(asked);  // an ended one untaken goes with its future
}

void ScatterJob::drop() {
    wanted_ = false;
    next_.reset();
}

std::optional<Result<ScatteredObjects>> ScatterJob::take() {
    if (!running_.valid() ||
        running_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return std::nullopt;
    }
    Result<ScatteredObjects> made = running_.get();
    if (next_) {
        launch(*next_);
        next_.reset();
        return std::nullopt;
    }
    if (!wanted_) {
        return std::nullopt;
    }
    wanted_ = false;
    return made;
}

void ScatterJob::end() {
    if (running_.valid()) {
        running_.wait();
        running_ = {};
    }
    wanted_ = false;
    next_.reset();
}

}  // namespace qt
