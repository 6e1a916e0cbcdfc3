// Batches of terrain draw calls: one draw unless synchronised; then bounded triangles a batch,
// at most kMaxTerrainDraws draws, every instance in exactly one batch.
#include "core/frame/draw_batches.h"

#include <gtest/gtest.h>

namespace qt {
namespace {

TEST(DrawBatches, UnsynchronisedIsOneDraw) {
    for (const uint32_t instances : {1u, 7u, 4096u, 1048576u, 16777216u}) {
        const uint32_t perDraw = instancesPerDraw(instances, 32, false);
        EXPECT_EQ(perDraw, instances);
        EXPECT_EQ(drawCount(instances, perDraw), 1);
    }
    EXPECT_EQ(drawCount(0, instancesPerDraw(0, 32, false)), 0);
    EXPECT_EQ(drawCount(0, instancesPerDraw(0, 32, true)), 0);
}

TEST(DrawBatches, SynchronisedBatchesCoverEveryInstanceWithinTheBounds) {
    // Leaf sizes 2 to 64: 8 to 8192 triangles an instance.
    for (const uint32_t triangles : {8u, 32u, 128u, 512u, 2048u, 8192u}) {
        for (uint32_t instances = 1; instances < 20000000; instances = instances * 3 + 1) {
            const uint32_t perDraw = instancesPerDraw(instances, triangles, true);
            const int draws = drawCount(instances, perDraw);
            ASSERT_GE(perDraw, 1u);
            ASSERT_LE(perDraw, instances);
            // Every instance in one batch: draws - 1 full batches and a last one of 1..perDraw.
            ASSERT_GE(uint64_t(draws) * perDraw, instances);
            ASSERT_LT(uint64_t(draws - 1) * perDraw, instances);
            ASSERT_GE(draws, 1);
            ASSERT_LE(draws, kMaxTerrainDraws) << instances << " instances of " << triangles;
            // A batch holds about kTrianglesPerBatch triangles unless the draw limit forces more
            // (then every draw is used but the last, which may be short), or one instance is more.
            const uint64_t batchTriangles = uint64_t(perDraw) * triangles;
            if (batchTriangles > kTrianglesPerBatch && perDraw > 1) {
                ASSERT_GE(draws, kMaxTerrainDraws - 1)
                    << instances << " instances of " << triangles;
                ASSERT_LE(perDraw, (instances + kMaxTerrainDraws - 1) / kMaxTerrainDraws);
            }
        }
    }
}

TEST(DrawBatches, TypicalFrames) {
    // A culled frame of a 4097 map at full detail, leaves of 4 (32 triangles): 16 batches.
    EXPECT_EQ(instancesPerDraw(90000, 32, true), 5625u);
    EXPECT_EQ(drawCount(90000, 5625), 16);
    // A small frame: one batch of 4096 leaves fits the triangle budget.
    EXPECT_EQ(drawCount(4096, instancesPerDraw(4096, 32, true)), 1);
    EXPECT_EQ(drawCount(4097, instancesPerDraw(4097, 32, true)), 2);
    // Leaves of 64 (8192 triangles): 16 leaves a batch.
    EXPECT_EQ(instancesPerDraw(100, 8192, true), 16u);
    EXPECT_EQ(drawCount(100, 16), 7);
}

TEST(DrawBatches, BatchesInFlightHoldAtMostTheQueueOrOneBatch) {
    for (const uint32_t triangles : {8u, 32u, 512u, 8192u}) {
        for (uint32_t instances = 1; instances < 20000000; instances = instances * 3 + 1) {
            const uint32_t perDraw = instancesPerDraw(instances, triangles, true);
            const int inFlight = batchesInFlight(perDraw, triangles);
            const uint64_t batch = uint64_t(perDraw) * triangles;
            // Two when two fit in the queue's triangles, else one.
            ASSERT_EQ(inFlight, 2 * batch <= kQueuedTriangles ? 2 : 1)
                << instances << " instances of " << triangles;
        }
    }
    // Full batches of kTrianglesPerBatch, the 4097 flight's of 180,000 and 360,000 triangles and
    // the streamed 32769² flight's of 280,000 (4.48M triangles in 16) go two at a time; batches
    // past 393,216 triangles alone.
    EXPECT_EQ(batchesInFlight(1024, 32), 2);
    EXPECT_EQ(batchesInFlight(4096, 32), 2);
    EXPECT_EQ(batchesInFlight(5625, 32), 2);
    EXPECT_EQ(batchesInFlight(11250, 32), 2);
    EXPECT_EQ(batchesInFlight(547, 512), 2);
    EXPECT_EQ(batchesInFlight(12288, 32), 2);
    EXPECT_EQ(batchesInFlight(12289, 32), 1);
}

}  // namespace
}  // namespace qt
