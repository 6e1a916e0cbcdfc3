// Sorting object ids for the queries that report them by id: a least-significant-digit radix
// sort, a counting pass per digit, as few digits as the largest id needs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace qt {

namespace detail {

// The sort for a digit count known at compile time, so that the counting and scattering loops
// carry no loop over the digits (most queries run with two).
template <int kDigits>
void radixSortDigits(std::vector<uint32_t>& ids, int digitBits, std::vector<uint32_t>& scratch) {
    constexpr int kMaxDigitBits = 11;
    const uint32_t mask = (1u << digitBits) - 1;
    uint32_t counts[kDigits][1u << kMaxDigitBits] = {};
    for (const uint32_t id : ids) {
        for (int d = 0; d < kDigits; ++d) {
            ++counts[d][(id >> (d * digitBits)) & mask];
        }
    }
    scratch.resize(ids.size());
    uint32_t* from = ids.data();
    uint32_t* to = scratch.data();
    const size_t n = ids.size();
    for (int d = 0; d < kDigits; ++d) {
        uint32_t* count = counts[d];
        uint32_t sum = 0;
        for (uint32_t v = 0; v <= mask; ++v) {  // counts into first positions
            const uint32_t c = count[v];
            count[v] = sum;
            sum += c;
        }
        const int shift = d * digitBits;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t id = from[i];
            to[count[(id >> shift) & mask]++] = id;
        }
        std::swap(from, to);
    }
    if (from != ids.data()) {
        std::copy(from, from + n, ids.data());
    }
}

}  // namespace detail

// Sorts `ids`, each below `bound`, ascending; `scratch` is resized to ids.size(). Up to three
// digits of at most 11 bits (2048 counters, in L1) each, all counted in one read of the ids; below
// kRadixMin ids std::sort, whose n log n is then below the counters' fixed cost.
inline void radixSortIds(std::vector<uint32_t>& ids, uint32_t bound,
                         std::vector<uint32_t>& scratch) {
    constexpr size_t kRadixMin = 256;
    constexpr int kMaxDigitBits = 11;
    if (ids.size() < kRadixMin) {
        std::sort(ids.begin(), ids.end());
        return;
    }
    int bits = 1;
    while (bits < 32 && (uint64_t(1) << bits) < uint64_t(bound)) {
        ++bits;
    }
    const int digits = (bits + kMaxDigitBits - 1) / kMaxDigitBits;
    const int digitBits = (bits + digits - 1) / digits;  // balanced: 20 bits as two of 10
    switch (digits) {
        case 1:
            detail::radixSortDigits<1>(ids, digitBits, scratch);
            break;
        case 2:
            detail::radixSortDigits<2>(ids, digitBits, scratch);
            break;
        default:
            detail::radixSortDigits<3>(ids, digitBits, scratch);
            break;
    }
}

}  // namespace qt
