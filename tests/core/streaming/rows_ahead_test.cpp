// Rows made ahead on a thread: in order, each once, never beyond the lead, and a failure handed
// to the pass that needs the rows.
#include "core/streaming/rows_ahead.h"

#include <atomic>
#include <vector>

#include <gtest/gtest.h>

namespace qt {
namespace {

TEST(RowsAhead, MakesEveryRowOnceInOrderWithinItsLead) {
    std::vector<int> firsts;
    std::atomic<int> asked{0};
    int beyond = 0;  // the most rows made past the last asked for
    {
        RowsAhead rows(103, 10, 25, [&](int first, int count) {
            firsts.push_back(first);
            EXPECT_EQ(count, std::min(10, 103 - first));
            beyond = std::max(beyond, first + count - asked.load());
            return Status{};
        });
        for (int last : {1, 7, 30, 31, 64, 103}) {
            asked = last;
            ASSERT_TRUE(rows(last).ok());
        }
    }
    std::vector<int> want;
    for (int first = 0; first < 103; first += 10) {
        want.push_back(first);
    }
    EXPECT_EQ(firsts, want);
    EXPECT_LE(beyond, 25 + 10);
}

TEST(RowsAhead, AFailedChunkIsTheFailureOfThePassThatNeedsIt) {
    RowsAhead rows(100, 10, 100, [](int first, int) {
        return first == 40 ? Status::failure("cannot read the samples: block 4") : Status{};
    });
    EXPECT_TRUE(rows(40).ok());  // made before the failure
    const Status failed = rows(41);
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.error(), "cannot read the samples: block 4");
    EXPECT_FALSE(rows(100).ok());
}

TEST(RowsAhead, StopsWhenThePassEndsEarly) {
    std::atomic<int> made{0};
    {
        RowsAhead rows(1000000, 1, 8, [&](int, int count) {
            made += count;
            return Status{};
        });
        ASSERT_TRUE(rows(3).ok());
    }
    EXPECT_LE(made.load(), 3 + 8 + 1);
}

}  // namespace
}  // namespace qt
