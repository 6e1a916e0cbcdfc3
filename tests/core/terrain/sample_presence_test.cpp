// A whole map made present by bands of rows: only the bands not present are asked for, a failure
// is its line with nothing after it asked for, and a stop set meanwhile ends it within one band.
#include "core/terrain/sample_presence.h"

#include <atomic>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace qt {
namespace {

// A map of `height` rows whose rows arrive when asked for, each ask recorded by its first row.
struct Rows {
    std::vector<bool> there;
    std::vector<int> asked;
    int failAt = -1;                    // the band starting at this row fails
    std::atomic<bool>* stop = nullptr;  // set by the first ask, when given

    SamplePresence presence() {
        SamplePresence p;
        p.present = [this](int, int y0, int, int y1) {
            for (int y = y0; y <= y1; ++y) {
                if (!there[size_t(y)]) {
                    return false;
                }
            }
            return true;
        };
        p.ensure = [this](int, int y0, int, int y1) {
            asked.push_back(y0);
            if (stop != nullptr) {
                stop->store(true);
            }
            if (y0 == failAt) {
                return Status::failure("tile (0, " + std::to_string(y0 / 16) + ") cannot be read");
            }
            for (int y = y0; y <= y1; ++y) {
                there[size_t(y)] = true;
            }
            return Status();
        };
        return p;
    }
};

TEST(EnsureWholeMap, AsksForTheBandsNotPresentAloneAndEndsPresent) {
    const int height = 3 * kPresenceBandRows + 17;
    Rows rows;
    rows.there.assign(size_t(height), false);
    for (int y = kPresenceBandRows; y < 2 * kPresenceBandRows; ++y) {
        rows.there[size_t(y)] = true;  // the second band already there
    }
    const std::atomic<bool> stop{false};
    ASSERT_TRUE(ensureWholeMap(rows.presence(), 100, height, stop));
    EXPECT_EQ(rows.asked, (std::vector<int>{0, 2 * kPresenceBandRows, 3 * kPresenceBandRows}));
    for (int y = 0; y < height; ++y) {
        ASSERT_TRUE(rows.there[size_t(y)]) << y;
    }
}

TEST(EnsureWholeMap, AFailureIsItsLineAndNothingAfterItIsAskedFor) {
    const int height = 3 * kPresenceBandRows;
    Rows rows;
    rows.there.assign(size_t(height), false);
    rows.failAt = kPresenceBandRows;
    const std::atomic<bool> stop{false};
    const Status got = ensureWholeMap(rows.presence(), 100, height, stop);
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error(), "tile (0, 16) cannot be read");
    EXPECT_EQ(rows.asked, (std::vector<int>{0, kPresenceBandRows}));
}

TEST(EnsureWholeMap, AStopSetMeanwhileEndsItWithinABand) {
    const int height = 4 * kPresenceBandRows;
    Rows rows;
    rows.there.assign(size_t(height), false);
    std::atomic<bool> stop{false};
    rows.stop = &stop;  // set while the first band is fetched
    const Status got = ensureWholeMap(rows.presence(), 100, height, stop);
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error(), "stopped");
    EXPECT_EQ(rows.asked, (std::vector<int>{0}));
}

}  // namespace
}  // namespace qt
