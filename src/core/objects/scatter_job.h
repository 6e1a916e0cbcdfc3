// A scene scattered on a thread of its own, with its static objects' order, so that a viewer's
// frames go on while a million objects are placed and sorted (seconds of work:
// bench/object_frame_bench.cpp's BM_ObjectScatter).
#pragma once

#include <cstdint>
#include <future>
#include <optional>

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

// scatterWithOrder on a thread of its own, taken when it has ended; one thread at a time, so that
// a slider dragged across a hundred frames asks for a hundred scatters and makes a few, one after
// another: a scatter asked for while one runs waits for it to end (its result then dropped), and
// of those waiting only the latest asked for is made. The map is read in place until the job has
// ended or end() is called: its owner keeps it alive and unchanged till then, and calls end()
// before replacing it. Destroying the job ends it.
class ScatterJob {
public:
    ScatterJob() = default;
    ScatterJob(ScatterJob&&) = default;
    ScatterJob& operator=(ScatterJob&&) = default;
    ~ScatterJob() { end(); }

    // Asks for a scatter: started now, or when the one running ends; any asked for before is
    // superseded (drop()).
    void start(const Heightmap& map, const WorldMapping& mapping, const ScatterRequest& request);
    // Supersedes what was asked for: a scatter running goes on, and what it makes is dropped.
    void drop();
    // Whether a scatter asked for (and not dropped) has not been taken yet.
    bool running() const { return wanted_ || next_.has_value(); }
    // What the latest scatter asked for made, once it has ended (running() false after); nullopt
    // before, and with none asked for. Starts the one waiting when the one running has ended.
    std::optional<Result<ScatteredObjects>> take();
    // Waits for the scatter running and drops it and the one waiting.
    void end();
    // Scatters started on a thread so far.
    uint32_t launched() const { return launched_; }

private:
    struct Asked {
        const Heightmap* map;
        WorldMapping mapping;
        ScatterRequest request;
    };
    void launch(const Asked& asked);

    std::future<Result<ScatteredObjects>> running_;  // valid while one runs or is untaken
    bool wanted_ = false;                            // running_'s result is to be taken
    std::optional<Asked> next_;                      // to start once running_ has ended
    uint32_t launched_ = 0;
};

}  // namespace qt
