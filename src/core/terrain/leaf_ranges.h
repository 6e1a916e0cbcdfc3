// Each quadtree leaf's code range from the codes: the one scan the loaders, the tree and the
// streamed prepass share.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/terrain/heightmap.h"

namespace qt {

// Leaf columns (or rows) of a map `samples` wide in leaves of leafSize squares, partial last one
// included.
inline int leavesAlong(int samples, int leafSize) {
    return (samples - 2) / leafSize + 1;
}

// Folds one row of codes into the column-wise minima and maxima of a leaf row's sample rows (a
// loop that runs in SIMD lanes).
inline void foldRowRange(const uint16_t* __restrict line, uint16_t* __restrict lo,
                         uint16_t* __restrict hi, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        lo[i] = std::min(lo[i], line[i]);
        hi[i] = std::max(hi[i], line[i]);
    }
}

// Each leaf of one leaf row from that row's column-wise minima and maxima (width of them): over
// its leafSize + 1 columns, fewer in the partial last leaf, into out[0 .. leavesX).
inline void leafRangesOfColumns(const uint16_t* lo, const uint16_t* hi, int width, int leafSize,
                                CodeRange* out) {
    const int leavesX = leavesAlong(width, leafSize);
    for (int lx = 0; lx < leavesX; ++lx) {
        const int x0 = lx * leafSize;
        const int x1 = std::min(x0 + leafSize, width - 1);
        uint16_t a = lo[x0], b = hi[x0];
        for (int x = x0 + 1; x <= x1; ++x) {
            a = std::min(a, lo[x]);
            b = std::max(b, hi[x]);
        }
        out[lx] = {a, b};
    }
}

// Exact code ranges of the leaves of leaf rows [firstRow, lastRow) of width x height row-major
// codes, into out by row * leavesX + col: per leaf row, the column-wise minimum and maximum over
// its leafSize + 1 sample rows, then each leaf's over its leafSize + 1 columns. Every sample is
// read once per leaf row it borders: 1 + 1 / leafSize times in all. The rows are shared out
// between load threads when there are enough samples for one to pay.
void leafRangesOfRows(const uint16_t* codes, int width, int height, int leafSize, int firstRow,
                      int lastRow, CodeRange* out);

// Each leaf's exact code range for leaves of leafSize squares, by row * leavesX + col: the
// minimum and maximum over its (leafSize + 1)^2 samples, fewer in partial border leaves.
std::vector<CodeRange> leafCodeRanges(const Heightmap& map, int leafSize);

}  // namespace qt
