// Scatters made off the caller's thread: the scene and static order of the same scatter made on
// it, the latest of several asked for, and nothing once ended.
#include "core/objects/scatter_job.h"

#include <thread>

#include <gtest/gtest.h>

#include "core/terrain/synthetic.h"

namespace qt {
namespace {

struct Ground {
    Heightmap map = syntheticHeightmap(257, 257, 3);
    WorldMapping mapping = defaultMapping(map);
};

// What `job` made once it has ended (polled as a viewer's frames do).
Result<ScatteredObjects> whenEnded(ScatterJob& job) {
    for (;;) {
        if (std::optional<Result<ScatteredObjects>> made = job.take()) {
            return std::move(*made);
        }
        std::this_thread::yield();
    }
}

// Every object's shape and every static object's place the same in both.
void expectSame(const ScatteredObjects& a, const ScatteredObjects& b) {
    ASSERT_EQ(a.scene.count(), b.scene.count());
    ASSERT_EQ(a.scene.firstBall(), b.scene.firstBall());
    for (uint32_t id = 0; id < a.scene.count(); ++id) {
        const ObjectShape& x = a.scene.shape(id);
        const ObjectShape& y = b.scene.shape(id);
        ASSERT_EQ(x.kind, y.kind) << id;
        ASSERT_EQ(x.base, y.base) << id;
        ASSERT_EQ(x.radius, y.radius) << id;
        ASSERT_EQ(x.height, y.height) << id;
    }
    ASSERT_EQ(a.order.count(), a.scene.firstBall());
    ASSERT_EQ(b.order.count(), b.scene.firstBall());
    for (uint32_t place = 0; place < a.order.count(); ++place) {
        ASSERT_EQ(a.order.id(place), b.order.id(place)) << place;
    }
    EXPECT_EQ(a.order.serial(), a.scene.serial());  // each order is its own scene's
    EXPECT_EQ(b.order.serial(), b.scene.serial());
}

TEST(ScatterJob, MakesTheSceneAndOrderTheCallersThreadMakes) {
    const Ground g;
    const ScatterRequest request{20000, 2000, 7, 1.0f};
    ScatterJob job;
    EXPECT_FALSE(job.running());
    EXPECT_FALSE(job.take().has_value());
    job.start(g.map, g.mapping, request);
    EXPECT_TRUE(job.running());
    Result<ScatteredObjects> made = whenEnded(job);
    ASSERT_TRUE(made.ok()) << made.error();
    EXPECT_FALSE(job.running());
    EXPECT_FALSE(job.take().has_value());  // taken once
    Result<ScatteredObjects> here = scatterWithOrder(g.map, g.mapping, request);
    ASSERT_TRUE(here.ok()) << here.error();
    expectSame(made.value(), here.value());
}

TEST(ScatterJob, TheLatestScatterAskedForIsTheOneTaken) {
    const Ground g;
    ScatterJob job;
    job.start(g.map, g.mapping, {20000, 2000, 1, 1.0f});
    job.start(g.map, g.mapping, {5000, 500, 2, 1.0f});
    EXPECT_TRUE(job.running());
    job.drop();
    EXPECT_FALSE(job.running());
    job.start(g.map, g.mapping, {3000, 300, 3, 1.0f});
    Result<ScatteredObjects> made = whenEnded(job);
    ASSERT_TRUE(made.ok()) << made.error();
    Result<ScatteredObjects> here = scatterWithOrder(g.map, g.mapping, {3000, 300, 3, 1.0f});
    ASSERT_TRUE(here.ok()) << here.error();
    expectSame(made.value(), here.value());
    // The dropped ones made nothing to take, however long they are waited for.
    job.end();
    EXPECT_FALSE(job.running());
    EXPECT_FALSE(job.take().has_value());
}

TEST(ScatterJob, ABurstOfRequestsRunsOneThreadAtATimeAndMakesTheLast) {
    const Ground g;
    ScatterJob job;
    // A slider dragged over 50 frames asks again at each: the requests come in microseconds,
    // each scatter takes tens of milliseconds of CPU.
    for (uint64_t seed = 1; seed <= 50; ++seed) {
        job.start(g.map, g.mapping, {20000, 2000, seed, 1.0f});
    }
    Result<ScatteredObjects> made = whenEnded(job);
    ASSERT_TRUE(made.ok()) << made.error();
    // The first, then the last once the first has ended: the 48 between took each other's place
    // while it ran (a third only if the first ended while the requests were still coming).
    EXPECT_LE(job.launched(), 3u);
    EXPECT_GE(job.launched(), 2u);
    Result<ScatteredObjects> here = scatterWithOrder(g.map, g.mapping, {20000, 2000, 50, 1.0f});
    ASSERT_TRUE(here.ok()) << here.error();
    expectSame(made.value(), here.value());
}

TEST(ScatterJob, AFailureComesOutAsItsOneLine) {
    const Ground g;
    ScatterJob job;
    job.start(g.map, g.mapping, {100, 200, 1, 1.0f});  // more balls than objects
    Result<ScatteredObjects> made = whenEnded(job);
    ASSERT_FALSE(made.ok());
    EXPECT_EQ(made.error(), ObjectScene::scatter(g.map, g.mapping, 100, 200, 1).error());
}

TEST(ScatterJob, EndingWaitsAndLeavesNothing) {
    const Ground g;
    ScatterJob job;
    job.start(g.map, g.mapping, {20000, 2000, 4, 1.0f});
    job.end();
    EXPECT_FALSE(job.running());
    EXPECT_FALSE(job.take().has_value());
    {
        ScatterJob destroyed;  // destroying a job under way waits for it: the map outlives it
        destroyed.start(g.map, g.mapping, {20000, 2000, 5, 1.0f});
    }
}

}  // namespace
}  // namespace qt
