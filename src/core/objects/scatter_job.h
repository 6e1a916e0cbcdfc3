// A scene scattered on a thread of its own, with its static objects' order, so that a viewer's
// frames go on while a million objects are placed and sorted (seconds of work:
// bench/object_frame_bench.cpp's BM_ObjectScatter).
#pragma once

#include <future>
#include <optional>
#include <vector>

#include "core/base/result.h"
#include "core/objects/scene.h"
#include "core/objects/static_runs.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"

namespace qt {

// What ObjectScene::scatter takes besides the map: `count` objects, the last `moving` of them
// balls, for `seed`, at `scale` of their size.
struct ScatterRequest {
    uint32_t count = 0;
    uint32_t moving = 0;
    uint64_t seed = 0;
    float scale = 1.0f;
};

// A scene and the order of its static objects (StaticOrder: a sort of them all, which a renderer
// would otherwise make at the scene's first frame).
struct ScatteredObjects {
    ObjectScene scene;
    StaticOrder order;
};

// Both, made on the calling thread; ObjectScene::scatter's one line when it fails.
Result<ScatteredObjects> scatterWithOrder(const Heightmap& map, const WorldMapping& mapping,
                                          const ScatterRequest& request);

// scatterWithOrder on a thread of its own, taken when it has ended. The map is read in place
// until the scatter has ended (taken, or superseded and finished, or end()): its owner keeps it
// alive and unchanged till then, and calls end() before replacing it. Destroying the job ends it.
class ScatterJob {
public:
    ScatterJob() = default;
    ScatterJob(ScatterJob&&) = default;
    ScatterJob& operator=(ScatterJob&&) = default;
    ~ScatterJob() { end(); }

    // Starts a scatter; one under way is superseded (drop()).
    void start(const Heightmap& map, const WorldMapping& mapping, const ScatterRequest& request);
    // The scatter under way, if any, superseded: it runs on, and what it makes is dropped.
    void drop();
    // Whether the latest scatter started has not been taken.
    bool running() const { return latest_.valid(); }
    // What the latest scatter made, once it has ended (running() false after); nullopt before,
    // and with none running. Lets superseded scatters that have ended go.
    std::optional<Result<ScatteredObjects>> take();
    // Waits for every scatter under way and drops what they made.
    void end();

private:
    using Made = std::future<Result<ScatteredObjects>>;
    Made latest_;
    std::vector<Made> superseded_;
};

}  // namespace qt
