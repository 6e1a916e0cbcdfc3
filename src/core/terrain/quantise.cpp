// Samples to codes: one definition of each code for every loop that makes them, rows shared out
// between load threads, the leaves' code ranges folded in while each row is in the cache.
#include "core/terrain/quantise.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <thread>

#include "core/config.h"
#include "core/terrain/leaf_ranges.h"
#include "core/terrain/sample_range.h"

namespace qt {

namespace {

// Runs work(begin, end) over [0, count) in contiguous chunks, one per load thread when the count is
// large enough for a thread to pay, else in one call on this thread.
template <class Work>
void forChunks(size_t count, const Work& work) {
    constexpr size_t kPerThread = size_t(1) << 20;
    const size_t threads = std::min({size_t(std::max(std::thread::hardware_concurrency(), 1u)),
                                     size_t(kMaxLoadThreads), count / kPerThread + 1});
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < threads; ++t) {
        helpers.emplace_back(
            [&work, count, threads, t] { work(count * t / threads, count * (t + 1) / threads); });
    }
    work(0, count / threads);
    for (std::thread& helper : helpers) {
        helper.join();
    }
}

// One row's codes: a loop of its own, so that it runs in SIMD lanes.
template <typename Code>
void encodeRow(const float* __restrict line, uint16_t* __restrict codes, size_t count, Code code) {
    for (size_t i = 0; i < count; ++i) {
        codes[i] = code(line[i]);
    }
}

// Codes of the sample rows of leaf rows [firstRow, lastRow) of leaves leafSize squares wide, and
// those leaves' code ranges into `out` by row * leavesX + col. Per leaf row, the column-wise
// minimum and maximum of its leafSize + 1 sample rows are taken as each row's codes are made
// (SIMD passes over the row still in the cache), then each leaf's over its leafSize + 1
// columns. The row two leaf rows share is made once: the later one reads its codes back. The
// last row of a block that another thread's block starts with is made here only into the ranges
// (that thread stores it), so every code is written by one thread.
template <typename Code>
void encodeLeafRows(const float* samples, uint16_t* codes, int width, int height, int leafSize,
                    int firstRow, int lastRow, bool lastBlock, CodeRange* out, const Code& code) {
    const size_t w = size_t(width);
    const int leavesX = (width - 2) / leafSize + 1;
    std::vector<uint16_t> lo(w), hi(w), spare(w);
    uint16_t* __restrict l = lo.data();
    uint16_t* __restrict h = hi.data();
    for (int lz = firstRow; lz < lastRow; ++lz) {
        const int z0 = lz * leafSize;
        const int z1 = std::min(z0 + leafSize, height - 1);
        if (lz == firstRow) {
            uint16_t* c = codes + size_t(z0) * w;
            encodeRow(samples + size_t(z0) * w, c, w, code);
            std::copy(c, c + w, l);
            std::copy(c, c + w, h);
        } else {
            const uint16_t* first = codes + size_t(z0) * w;
            std::copy(first, first + w, l);
            std::copy(first, first + w, h);
        }
        for (int z = z0 + 1; z <= z1; ++z) {
            const bool shared = z == z1 && lz == lastRow - 1 && !lastBlock;
            uint16_t* c = shared ? spare.data() : codes + size_t(z) * w;
            encodeRow(samples + size_t(z) * w, c, w, code);
            foldRowRange(c, l, h, w);
        }
        leafRangesOfColumns(l, h, width, leafSize, out + size_t(lz) * size_t(leavesX));
    }
}

// Writes every sample's code into the map, its codes already sized; with leafRanges, by leaf rows
// shared out between load threads (encodeLeafRows), taking the leaves' ranges too.
template <typename Code>
void encodeWith(Heightmap& map, const float* samples, size_t count, int leafSize,
                std::vector<CodeRange>* leafRanges, const Code& code) {
    uint16_t* codes = map.codes.data();
    if (leafRanges == nullptr) {
        forChunks(count, [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; ++i) {
                codes[i] = code(samples[i]);
            }
        });
        return;
    }
    assert(leafSize >= 2 && count == size_t(map.width) * size_t(map.height));
    const int leavesX = (map.width - 2) / leafSize + 1;
    const int leavesZ = (map.height - 2) / leafSize + 1;
    leafRanges->resize(size_t(leavesX) * size_t(leavesZ));
    CodeRange* out = leafRanges->data();
    constexpr size_t kPerThread = size_t(1) << 20;
    const int threads =
        int(std::min({size_t(std::max(std::thread::hardware_concurrency(), 1u)),
                      size_t(kMaxLoadThreads), size_t(leavesZ), count / kPerThread + 1}));
    auto block = [&](int t) {
        encodeLeafRows(samples, codes, map.width, map.height, leafSize, leavesZ * t / threads,
                       leavesZ * (t + 1) / threads, t == threads - 1, out, code);
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) {
        helpers.emplace_back(block, t);
    }
    block(0);
    for (std::thread& helper : helpers) {
        helper.join();
    }
}

// The two codes of sampleQuantiser, as functors: one definition for every loop that makes codes.
struct ExactCode {
    float lo;
    uint16_t operator()(float v) const { return uint16_t(v - lo); }
};
// Float arithmetic rounding half up (samples are at least lo): each code is within half a step
// and a few millionths of one, and the loop vectorises.
struct QuantisedCode {
    float lo;
    float toCodes;
    uint16_t operator()(float v) const {
        const float c = std::min((v - lo) * toCodes + 0.5f, 65535.0f);
        return uint16_t(int32_t(std::max(c, 0.0f)));
    }
};

}  // namespace

SampleQuantiser sampleQuantiser(float lo, float hi, bool integral) {
    const double low = lo;
    const double range = double(hi) - low;
    SampleQuantiser q;
    q.lo = lo;
    q.coding.offset = lo;
    // A range so small (under 2e-34) that 65535 / range overflows a float is kept as one code:
    // every sample is then within that range of lo.
    q.exact =
        range == 0.0 || (integral && range <= 65535.0) || !std::isfinite(float(65535.0 / range));
    if (!q.exact) {
        q.coding.step = float(range / 65535.0);
        q.toCodes = float(65535.0 / range);
    }
    return q;
}

void quantiseRow(const SampleQuantiser& quantiser, const float* samples, uint16_t* codes,
                 size_t count) {
    if (quantiser.exact) {
        encodeRow(samples, codes, count, ExactCode{quantiser.lo});
    } else {
        encodeRow(samples, codes, count, QuantisedCode{quantiser.lo, quantiser.toCodes});
    }
}

void encodeSamples(Heightmap& map, const float* samples, size_t count, float lo, float hi,
                   bool integral, int leafSize, std::vector<CodeRange>* leafRanges) {
    const SampleQuantiser q = sampleQuantiser(lo, hi, integral);
    map.codes.resize(count);
    map.coding = q.coding;
    if (q.exact) {
        encodeWith(map, samples, count, leafSize, leafRanges, ExactCode{lo});
        setCodeRange(map, 0, uint16_t(hi - lo));
    } else {
        const QuantisedCode code{lo, q.toCodes};
        encodeWith(map, samples, count, leafSize, leafRanges, code);
        setCodeRange(map, code(lo), code(hi));  // the code is monotone in the sample
    }
}

void encodeFloatSamples(Heightmap& map, const float* samples, size_t count) {
    const SampleRange range = sampleRange(samples, count);
    encodeSamples(map, samples, count, range.lo, range.hi, range.integral);
}

}  // namespace qt
