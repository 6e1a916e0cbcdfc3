// Sorting object ids for the queries that report them by id: a least-significant-digit radix
// sort, one counting pass for every digit, as few digits as the largest id needs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace qt {

namespace detail {

constexpr size_t kRadixMin = 256;  // below this many ids std::sort, whose n log n is then below
                                   // the counters' fixed cost
constexpr int kMaxDigitBits = 11;  // 2048 counters a digit, in L1

// The digits for ids below `bound`: up to three of at most kMaxDigitBits, balanced (20 bits as two
// of 10).
inline void digitsFor(uint32_t bound, int& digits, int& digitBits) {
    int bits = 1;
    while (bits < 32 && (uint64_t(1) << bits) < uint64_t(bound)) {
        ++bits;
    }
    digits = (bits + kMaxDigitBits - 1) / kMaxDigitBits;
    digitBits = (bits + digits - 1) / digits;
}

// The sort for a digit count known at compile time, so that the counting and scattering loops
// carry no loop over the digits (most queries run with two). visit(f) calls f(id) for each of the
// n ids, in the same order each time; it is called twice: the counts of every digit, then the
// first digit's scatter. The passes alternate between `out` and `scratch` so that the last lands
// in `out`.
template <int kDigits, class Visit>
void radixSortVisited(Visit& visit, size_t n, int digitBits, uint32_t* out, uint32_t* scratch) {
    const uint32_t mask = (1u << digitBits) - 1;
    uint32_t counts[kDigits][1u << kMaxDigitBits] = {};
    visit([&](uint32_t id) {
        for (int d = 0; d < kDigits; ++d) {
            ++counts[d][(id >> (d * digitBits)) & mask];
        }
    });
    for (int d = 0; d < kDigits; ++d) {
        uint32_t* count = counts[d];
        uint32_t sum = 0;
        for (uint32_t v = 0; v <= mask; ++v) {  // counts into first positions
            const uint32_t c = count[v];
            count[v] = sum;
            sum += c;
        }
    }
    uint32_t* to = kDigits % 2 == 1 ? out : scratch;
    uint32_t* from = kDigits % 2 == 1 ? scratch : out;
    visit([&, to](uint32_t id) { to[counts[0][id & mask]++] = id; });
    for (int d = 1; d < kDigits; ++d) {
        std::swap(from, to);
        uint32_t* count = counts[d];
        const int shift = d * digitBits;
        for (size_t i = 0; i < n; ++i) {
            const uint32_t id = from[i];
            to[count[(id >> shift) & mask]++] = id;
        }
    }
}

// The in-place sort of a list: the ids counted, then scattered back and forth between `ids` and
// `scratch`, ending in `ids`.
template <int kDigits>
void radixSortDigits(std::vector<uint32_t>& ids, int digitBits, std::vector<uint32_t>& scratch) {
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
        for (uint32_t v = 0; v <= mask; ++v) {
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

// Writes the n ids that visit(f) hands to f (each below `bound`, the same ones in the same order
// each time visit is called) into `out`, ascending; `scratch` is resized to n. A
// least-significant-digit radix sort, every digit counted in one visit, the first digit scattered
// in a second: ids gathered from several places are sorted without being copied into one list
// first. Below kRadixMin ids, std::sort.
template <class Visit>
void radixSortVisit(Visit&& visit, size_t n, uint32_t bound, std::vector<uint32_t>& out,
                    std::vector<uint32_t>& scratch) {
    out.resize(n);
    if (n < detail::kRadixMin) {
        size_t k = 0;
        visit([&](uint32_t id) { out[k++] = id; });
        std::sort(out.begin(), out.end());
        return;
    }
    scratch.resize(n);
    int digits, digitBits;
    detail::digitsFor(bound, digits, digitBits);
    switch (digits) {
        case 1:
            detail::radixSortVisited<1>(visit, n, digitBits, out.data(), scratch.data());
            break;
        case 2:
            detail::radixSortVisited<2>(visit, n, digitBits, out.data(), scratch.data());
            break;
        default:
            detail::radixSortVisited<3>(visit, n, digitBits, out.data(), scratch.data());
            break;
    }
}

// Sorts `ids`, each below `bound`, ascending, in place; `scratch` is resized to ids.size().
inline void radixSortIds(std::vector<uint32_t>& ids, uint32_t bound,
                         std::vector<uint32_t>& scratch) {
    if (ids.size() < detail::kRadixMin) {
        std::sort(ids.begin(), ids.end());
        return;
    }
    int digits, digitBits;
    detail::digitsFor(bound, digits, digitBits);
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
