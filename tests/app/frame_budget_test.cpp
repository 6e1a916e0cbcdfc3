// FrameBudget: slow frames raise the bound a step at a time to 8 px and no further; time to
// spare lowers it to where it started and no further; one slow frame, or frames that would be
// too slow a step finer, move nothing.
#include "app/frame_budget.h"

#include <gtest/gtest.h>

#include <vector>

namespace qt {
namespace {

// The bounds after each group of kFrameBudgetSettleFrames frames of `ms`.
std::vector<float> stepsOver(FrameBudget& budget, double ms, int groups) {
    std::vector<float> seen;
    for (int g = 0; g < groups; ++g) {
        for (int f = 0; f < kFrameBudgetSettleFrames; ++f) {
            budget.update(ms);
        }
        seen.push_back(budget.pixels());
    }
    return seen;
}

TEST(FrameBudget, SlowFramesRaiseTheBoundAStepAtATimeToEightPixelsAndFastOnesBringItBack) {
    FrameBudget budget(33.0, 1.0f);
    EXPECT_EQ(budget.pixels(), 1.0f);
    EXPECT_EQ(stepsOver(budget, 100.0, 8),
              (std::vector<float>{1.5f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f, 8.0f, 8.0f}));
    EXPECT_EQ(stepsOver(budget, 5.0, 8),
              (std::vector<float>{6.0f, 4.0f, 3.0f, 2.0f, 1.5f, 1.0f, 1.0f, 1.0f}));
}

TEST(FrameBudget, AStepWaitsForItsFramesAndOneSlowFrameMovesNothing) {
    FrameBudget budget(33.0, 1.0f);
    for (int f = 0; f + 1 < kFrameBudgetSettleFrames; ++f) {
        EXPECT_FALSE(budget.update(100.0));
    }
    EXPECT_TRUE(budget.update(100.0));
    EXPECT_EQ(budget.pixels(), 1.5f);
    // A page upload's slow frame among quick ones: the median is quick.
    for (int f = 0; f < 3 * kFrameBudgetSettleFrames; ++f) {
        budget.update(f % kFrameBudgetSettleFrames == 3 ? 500.0 : 30.0);
    }
    EXPECT_EQ(budget.pixels(), 1.5f);
}

TEST(FrameBudget, FramesThatWouldBeTooSlowAStepFinerKeepTheStep) {
    FrameBudget budget(33.0, 2.0f);
    stepsOver(budget, 100.0, 1);
    ASSERT_EQ(budget.pixels(), 3.0f);
    // At 3 px, 20 ms frames would be 45 ms at 2 px: over the target, so the step stays;
    // 13 ms ones would be 29.25 ms, within 0.9 of it, so the bound comes down.
    EXPECT_EQ(stepsOver(budget, 20.0, 4), (std::vector<float>{3.0f, 3.0f, 3.0f, 3.0f}));
    EXPECT_EQ(stepsOver(budget, 13.0, 1), (std::vector<float>{2.0f}));
    // Never below the step it started at, nor above the last.
    EXPECT_EQ(stepsOver(budget, 1.0, 2), (std::vector<float>{2.0f, 2.0f}));
    FrameBudget coarse(33.0, 20.0f);
    EXPECT_EQ(coarse.pixels(), 8.0f);
    EXPECT_EQ(stepsOver(coarse, 1.0, 1), (std::vector<float>{8.0f}));
}

}  // namespace
}  // namespace qt
