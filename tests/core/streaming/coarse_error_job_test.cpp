// The background exact errors: the job's result is computeCoarseErrors's, it reaches the tree only
// through takeIfDone on the reading thread, the split distances follow it, and a stopped job
// leaves the range bound in place.
#include "core/streaming/coarse_error_job.h"

#include <gtest/gtest.h>

#include "core/lod/lod.h"
#include "core/lod/lod_error.h"
#include "core/terrain/synthetic.h"

namespace qt {
namespace {

// Frames read the tree's errors while the worker runs: each "frame" sums them and checks that the
// bound in use is the range one until the handover, the exact one after, with nothing in between.
TEST(CoarseErrorJob, FramesSeeTheRangeBoundThenTheExactErrors) {
    Heightmap map = syntheticHeightmap(257, 193, 3);
    Quadtree tree = buildQuadtree(map, 4).value();
    const std::vector<uint16_t> range = tree.coarseErrors;
    Quadtree exact = buildQuadtreeExact(map, 4).value();
    ASSERT_NE(range, exact.coarseErrors);

    CoarseErrorJob job;
    job.start(map, tree);
    // The Heightmap and the tree may move while the job runs: it holds the codes' storage and its
    // own level grids, not them.
    Heightmap movedMap = std::move(map);
    Quadtree movedTree = std::move(tree);
    EXPECT_TRUE(job.pending());
    int frames = 0;
    while (!job.takeIfDone(movedTree)) {
        ASSERT_EQ(movedTree.lodErrors, LodErrors::Range);
        ASSERT_EQ(movedTree.coarseErrors, range) << "frame " << frames;
        ASSERT_TRUE(movedTree.leafFoldErrors.empty()) << "frame " << frames;
        ++frames;
    }
    EXPECT_FALSE(job.pending());
    EXPECT_EQ(movedTree.lodErrors, LodErrors::Exact);
    EXPECT_EQ(movedTree.coarseErrors, exact.coarseErrors);
    EXPECT_EQ(movedTree.foldErrors, exact.foldErrors);
    EXPECT_EQ(movedTree.leafFoldErrors, exact.leafFoldErrors);
    EXPECT_FALSE(exact.leafFoldErrors.empty());
    EXPECT_GT(job.milliseconds(), 0.0);
    EXPECT_FALSE(job.takeIfDone(movedTree)) << "taken once";
    (void)movedMap;
}

// The split distances are remade from the exact errors once they are in: the same projection,
// another bound, never above the range one (the distances may be: the leaves' exact fold errors,
// charged to level 1, come with the exact errors, and the range bound charges the grid step).
TEST(CoarseErrorJob, TheSplitDistancesFollowTheHandover) {
    const Heightmap map = syntheticHeightmap(129, 129, 5);
    Quadtree tree = buildQuadtree(map, 4).value();
    LodReach reach;
    reach.reserveFor(tree);
    updateLodReach(tree, 0.5f, 100.0f, reach);
    const std::vector<float> fromRange = reach.steps;
    const std::vector<uint16_t> range = tree.coarseErrors;
    CoarseErrorJob job;
    job.start(map, tree);
    job.finish(tree);
    ASSERT_EQ(tree.lodErrors, LodErrors::Exact);
    updateLodReach(tree, 0.5f, 100.0f, reach);
    EXPECT_NE(reach.steps, fromRange);
    LodReach fresh;
    updateLodReach(tree, 0.5f, 100.0f, fresh);
    EXPECT_EQ(reach.steps, fresh.steps);
    for (uint32_t i = 0; i < tree.coarseErrors.size(); ++i) {
        ASSERT_LE(tree.coarseErrors[i], range[i]) << i;
    }
}

// Stopping (a new map replacing this one) keeps the range bound; a restarted job finishes.
TEST(CoarseErrorJob, AStoppedJobLeavesTheRangeBound) {
    const Heightmap map = syntheticHeightmap(513, 513, 9);
    Quadtree tree = buildQuadtree(map, 4).value();
    const std::vector<uint16_t> range = tree.coarseErrors;
    CoarseErrorJob job;
    job.start(map, tree);
    job.stop();
    EXPECT_FALSE(job.pending());
    EXPECT_FALSE(job.takeIfDone(tree));
    EXPECT_EQ(tree.lodErrors, LodErrors::Range);
    EXPECT_EQ(tree.coarseErrors, range);
    job.start(map, tree);
    job.finish(tree);
    EXPECT_EQ(tree.lodErrors, LodErrors::Exact);
    std::atomic<bool> cancel{true};
    EXPECT_TRUE(exactCoarseErrors(codeGrid(map), tree, &cancel).empty());
}

}  // namespace
}  // namespace qt
