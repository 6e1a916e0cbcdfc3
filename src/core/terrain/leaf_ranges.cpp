// The leaf code range scan over rows of leaves, shared out between load threads.
#include "core/terrain/leaf_ranges.h"

#include <cassert>
#include <thread>
#include <vector>

#include "core/config.h"
#include "core/terrain/quadtree.h"

namespace qt {
namespace {

// leafRangesOfRows on this thread.
void scanRows(const uint16_t* codes, int width, int height, int leafSize, int firstRow, int lastRow,
              CodeRange* out) {
    const size_t w = size_t(width);
    const int leavesX = leavesAlong(width, leafSize);
    std::vector<uint16_t> lo(w), hi(w);
    for (int lz = firstRow; lz < lastRow; ++lz) {
        const int z0 = lz * leafSize;
        const int z1 = std::min(z0 + leafSize, height - 1);
        const uint16_t* first = codes + size_t(z0) * w;
        std::copy(first, first + w, lo.begin());
        std::copy(first, first + w, hi.begin());
        for (int z = z0 + 1; z <= z1; ++z) {
            foldRowRange(codes + size_t(z) * w, lo.data(), hi.data(), w);
        }
        leafRangesOfColumns(lo.data(), hi.data(), width, leafSize, out + size_t(lz) * leavesX);
    }
}

}  // namespace

void leafRangesOfRows(const uint16_t* codes, int width, int height, int leafSize, int firstRow,
                      int lastRow, CodeRange* out) {
    assert(width >= 2 && height >= 2 && leafSize >= 2);
    assert(0 <= firstRow && firstRow <= lastRow && lastRow <= leavesAlong(height, leafSize));
    constexpr size_t kSamplesPerThread = size_t(1) << 20;
    const int rows = lastRow - firstRow;
    const size_t samples = size_t(width) * size_t(rows) * size_t(leafSize);
    const int threads = int(std::min({size_t(std::max(std::thread::hardware_concurrency(), 1u)),
                                      size_t(kMaxLoadThreads), size_t(std::max(rows, 1)),
                                      samples / kSamplesPerThread + 1}));
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) {
        helpers.emplace_back(scanRows, codes, width, height, leafSize,
                             firstRow + rows * t / threads, firstRow + rows * (t + 1) / threads,
                             out);
    }
    scanRows(codes, width, height, leafSize, firstRow, firstRow + rows / threads, out);
    for (std::thread& helper : helpers) {
        helper.join();
    }
}

std::vector<CodeRange> leafCodeRanges(const Heightmap& map, int leafSize) {
    assert(isValidLeafSize(leafSize) && map.width >= 2 && map.height >= 2);
    const int leavesX = leavesAlong(map.width, leafSize);
    const int leavesZ = leavesAlong(map.height, leafSize);
    std::vector<CodeRange> ranges(size_t(leavesX) * size_t(leavesZ));
    leafRangesOfRows(map.codes.data(), map.width, map.height, leafSize, 0, leavesZ, ranges.data());
    return ranges;
}

}  // namespace qt
