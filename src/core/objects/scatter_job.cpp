// Scatters made on threads of their own.
#include "core/objects/scatter_job.h"

#include <algorithm>
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

void ScatterJob::start(const Heightmap& map, const WorldMapping& mapping,
                       const ScatterRequest& request) {
    drop();
    // The map by reference (its owner keeps it until the scatter has ended), the rest copied.
    latest_ = std::async(std::launch::async, [&map, mapping, request] {
        return scatterWithOrder(map, mapping, request);
    });
}

void ScatterJob::drop() {
    if (latest_.valid()) {
        superseded_.push_back(std::move(latest_));
    }
}

std::optional<Result<ScatteredObjects>> ScatterJob::take() {
    const auto ended = [](const Made& made) {
        return made.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    superseded_.erase(std::remove_if(superseded_.begin(), superseded_.end(), ended),
                      superseded_.end());
    if (!latest_.valid() || !ended(latest_)) {
        return std::nullopt;
    }
    return latest_.get();
}

void ScatterJob::end() {
    if (latest_.valid()) {
        latest_.wait();
        latest_ = {};
    }
    superseded_.clear();  // each one's future waits for it as it goes
}

}  // namespace qt
