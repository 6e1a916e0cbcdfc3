// The id sort of the object queries: the same order as std::sort, for every digit count.
#include "core/radix_sort.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace qt {
namespace {

TEST(RadixSortIds, MatchesStdSortForOneTwoAndThreeDigitsAndShortLists) {
    std::mt19937 random(7);
    std::vector<uint32_t> scratch;
    for (const uint32_t bound : {1u, 2u, 1000u, 2048u, 2049u, 1u << 20, 5000000u, 0xFFFFFFFFu}) {
        for (const size_t size : {size_t(0), size_t(1), size_t(100), size_t(255), size_t(256),
                                  size_t(10000), size_t(70000)}) {
            std::vector<uint32_t> ids(size);
            for (uint32_t& id : ids) {
                id = uint32_t(random() % bound);
            }
            std::vector<uint32_t> expected = ids;
            std::sort(expected.begin(), expected.end());
            radixSortIds(ids, bound, scratch);
            ASSERT_EQ(ids, expected) << "bound " << bound << ", " << size << " ids";
        }
    }
}

}  // namespace
}  // namespace qt
