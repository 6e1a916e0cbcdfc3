// Checks shared by the streamed map tests: a streamed tree's errors against the fully loaded
// tree's exact ones.
#pragma once

#include <algorithm>
#include <cstdint>

#include <gtest/gtest.h>

#include "core/terrain/quadtree.h"

namespace qt::test {

// `got`'s errors equal `want`'s (exact, folds apart) on levels 1..got.exactLevels, and its
// leaves' fold errors too when it has an exact level; above them
// its range bound holds each node's folds itself (fold errors 0, coarse error at least the
// larger of want's two). *coarser counts the nodes above where the bound is strictly larger.
inline void expectExactBelowRangeAbove(const Quadtree& got, const Quadtree& want,
                                       int* coarser = nullptr) {
    ASSERT_EQ(got.coarseErrors.size(), want.coarseErrors.size());
    ASSERT_EQ(got.foldErrors.size(), want.foldErrors.size());
    if (got.exactLevels > 0) {
        ASSERT_EQ(got.leafFoldErrors, want.leafFoldErrors);
    } else {
        ASSERT_TRUE(got.leafFoldErrors.empty());
    }
    for (int level = 1; level <= got.depth; ++level) {
        for (uint32_t i = got.levelStart[level]; i < got.levelStart[level + 1]; ++i) {
            const uint16_t whole = std::max(want.coarseErrors[i], want.foldErrors[i]);
            if (level <= got.exactLevels) {
                ASSERT_EQ(got.coarseErrors[i], want.coarseErrors[i]) << "level " << level;
                ASSERT_EQ(got.foldErrors[i], want.foldErrors[i]) << "level " << level;
            } else {
                ASSERT_EQ(got.foldErrors[i], 0) << "level " << level;
                ASSERT_GE(got.coarseErrors[i], whole) << "level " << level;
                if (coarser) {
                    *coarser += got.coarseErrors[i] > whole;
                }
            }
        }
    }
}

}  // namespace qt::test
