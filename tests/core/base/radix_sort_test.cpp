// The id sort of the object queries: the same order as std::sort, for every digit count.
#include "core/base/radix_sort.h"

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

// The sort from a visitor: ids gathered from two lists (as the rectangle query hands over ranges
// of its pool and single ids) come out as std::sort orders them, for every digit count.
TEST(RadixSortIds, VisitedIdsFromSeveralListsMatchStdSort) {
    std::mt19937 random(11);
    std::vector<uint32_t> out, scratch;
    for (const uint32_t bound : {1u, 2048u, 2049u, 1u << 20, 5000000u, 0xFFFFFFFFu}) {
        for (const size_t size : {size_t(0), size_t(1), size_t(255), size_t(256), size_t(10000)}) {
            std::vector<uint32_t> first(size / 3), second(size - size / 3);
            for (std::vector<uint32_t>* list : {&first, &second}) {
                for (uint32_t& id : *list) {
                    id = uint32_t(random() % bound);
                }
            }
            std::vector<uint32_t> expected = first;
            expected.insert(expected.end(), second.begin(), second.end());
            std::sort(expected.begin(), expected.end());
            out.assign(3, 7);  // stale contents are overwritten
            radixSortVisit(
                [&](auto&& f) {
                    for (const std::vector<uint32_t>* list : {&first, &second}) {
                        for (const uint32_t id : *list) {
                            f(id);
                        }
                    }
                },
                size, bound, out, scratch);
            ASSERT_EQ(out, expected) << "bound " << bound << ", " << size << " ids";
        }
    }
}

}  // namespace
}  // namespace qt
