// The terrain model the cast shadows are exact for, shared by the sweep (sunlight.cpp) and its
// brute-force reference (sunlight_reference.cpp) so that both compute the same numbers.
//
// Lines run parallel to the Sun's horizontal direction, one sample apart across it. A line is
// walked along the major axis (the grid axis the direction crosses faster): at major index i it
// passes the minor position y = j + i * t, t the direction's minor/major slope, j the line's
// integer index. There the terrain height is the column's (or row's) two samples n = floor(y)
// and n + 1 linearly interpolated at y's fraction; only positions with 0 <= y <= N - 1 are
// terrain. Every sample (i, r) belongs to the one line passing it within half a sample,
// r - 0.5 < y <= r + 0.5, and its ray to the Sun runs along that line from its point y (height
// interpolated there, y clamped to the map), at horizontal distance k * step from the point k
// major steps away. The sample is lit in a band of the Sun's disc when no terrain point ahead
// rises above the band's elevation angle: with key(p) = height(p) - u(p) * step * tan(angle),
// u the point's major index counted towards the Sun, lit exactly when key(sample) >= every
// key ahead (a tie, terrain exactly on the ray, counts as lit). Terrain beyond the map is none.
//
// y is kept as an integer and a fraction, floor(i * t) and i * t - floor(i * t), computed once, so
// that n and the sample a line passes are integers: the lines pass each sample exactly once.
#pragma once

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/base/worker_pool.h"
#include "core/light/sun_position.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"

namespace qt {

// The Sun's angular radius, degrees (mean apparent diameter 0.533 degrees).
constexpr double kSunRadiusDegrees = 0.2665;

struct SunLines {
    bool majorIsColumn = true;  // the line steps one column at a time (else one row)
    int majorCount = 0;         // columns (or rows)
    int minorCount = 0;         // rows (or columns)
    int towardsSun = 1;         // +1: the Sun lies towards increasing major index
    int firstLine = 0;          // the lines' indices j, [firstLine, lastLine]
    int lastLine = 0;
    // Whether a line meets the map's rows in increasing order from the Sun's side (also when it
    // stays in one row).
    bool rowsAscending = true;
    std::vector<int32_t> whole;         // floor(i * t), per major index i
    std::vector<double> fraction;       // i * t - floor(i * t), in [0, 1)
    double step = 0.0;                  // horizontal world distance of one major index along a line
    std::vector<double> bandElevation;  // degrees, per disc band (at most 90)
    std::vector<double> risePerStep;    // step * tan(band elevation), per disc band
    HeightTransform heights;            // world height of a code

    // The world height of a code at major index i and minor index n.
    float code(const Heightmap& map, int i, int n) const {
        return float(majorIsColumn ? map.codeAt(i, n) : map.codeAt(n, i));
    }
    // The interpolated terrain height of line j at major index i (y clamped to the map).
    double heightAt(const Heightmap& map, int j, int i) const {
        const int n = j + whole[size_t(i)];
        const double f = fraction[size_t(i)];
        if (n < 0)
            return heights.worldHeight(code(map, i, 0));
        if (n >= minorCount - 1)
            return heights.worldHeight(code(map, i, minorCount - 1));
        const double a = heights.worldHeight(code(map, i, n));
        const double b = heights.worldHeight(code(map, i, n + 1));
        return a + (b - a) * f;
    }
    // Whether line j at major index i lies on the terrain, 0 <= y <= N - 1.
    bool isTerrain(int j, int i) const {
        const int n = j + whole[size_t(i)];
        return n >= 0 &&
               (n < minorCount - 1 || (n == minorCount - 1 && fraction[size_t(i)] == 0.0));
    }
    // The sample line j passes at major index i (its minor index), or -1 when outside the map.
    int sampleAt(int j, int i) const {
        const int r = j + whole[size_t(i)] + (fraction[size_t(i)] > 0.5 ? 1 : 0);
        return r >= 0 && r < minorCount ? r : -1;
    }
    // The line passing sample (i, r): the inverse of sampleAt.
    int lineOf(int i, int r) const {
        return r - whole[size_t(i)] - (fraction[size_t(i)] > 0.5 ? 1 : 0);
    }
    // key(p) for band b at major index i.
    double key(double height, int i, int band) const {
        return height - double(towardsSun * i) * risePerStep[size_t(band)];
    }
    size_t sampleIndex(int i, int r) const {
        return majorIsColumn ? size_t(r) * size_t(majorCount) + size_t(i)
                             : size_t(i) * size_t(minorCount) + size_t(r);
    }
};

// Told of the map's rows [first, end) once the lines have passed them: every sample there
// visited, and no later step reads them.
using RowsDone = std::function<void(int first, int end)>;

// Every step of `l`'s lines on the map (minor index n = j + whole[i] in [-1, N - 1]) handed to
// sweeper.step(j, i) (each thread calling a copy of `sweeper`: a view of per-line state held
// elsewhere, cheap to copy) in each line's order from the Sun's side, lines of a block of
// kLinesPerBlock side by side, blocks shared among `pool`'s threads (may be null); then
// sweeper.ended(j) once per line that had a step. The map's rows are taken in bands of `bandRows`
// (0: all at once) in the order the lines meet them (rowsAscending): a band's steps read the band's
// rows and the first row past it, no other, and write only samples of those rows, so a caller of a
// map larger than memory can give the band's pages back in done(first, end), told after each band.
// A line's steps continue from band to band, so every line still sees all the terrain between its
// sample and the Sun: the results do not depend on bandRows.
template <class Sweeper>
void sweepInRowBands(const SunLines& l, int bandRows, WorkerPool* pool, Sweeper& sweeper,
                     const RowsDone& done = {});

// The band elevations splitting the Sun's disc into `bands` strips of equal area (each band
// stands for its strip's middle); one band: the disc's centre.
std::vector<double> sunBandElevations(double elevation, int bands);

// The lines for a map, its world mapping, the Sun's direction and the disc's bands.
SunLines sunLines(const Heightmap& map, const WorldMapping& mapping, SunDirection sun, int bands);

// The byte stored for `lit` bands of `bands`: 0 in full shadow, 255 fully lit.
inline uint8_t litByte(int lit, int bands) {
    return uint8_t((255 * lit + bands / 2) / bands);
}

namespace detail {

// Lines swept side by side: at one major index they touch neighbouring samples of one row (or
// column), so the sweep reads memory in runs whichever axis is major.
constexpr int kLinesPerBlock = 32;

// The steps of line j on the map, [first, end) (first >= end: none): n is monotone along a line.
inline void lineSteps(const SunLines& l, int j, int& first, int& end) {
    const auto n = [&](int s) {
        return j + l.whole[size_t(l.towardsSun > 0 ? l.majorCount - 1 - s : s)];
    };
    const bool rising = n(0) <= n(l.majorCount - 1);
    // The first step for which `past` holds, `past` false then true along the line.
    const auto firstWhere = [&](auto past) {
        int lo = 0, hi = l.majorCount;
        while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            if (past(mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    };
    if (rising) {
        first = firstWhere([&](int s) { return n(s) >= -1; });
        end = firstWhere([&](int s) { return n(s) > l.minorCount - 1; });
    } else {
        first = firstWhere([&](int s) { return n(s) <= l.minorCount - 1; });
        end = firstWhere([&](int s) { return n(s) < -1; });
    }
}

}  // namespace detail

template <class Sweeper>
void sweepInRowBands(const SunLines& l, int bandRows, WorkerPool* pool, Sweeper& sweeper,
                     const RowsDone& done) {
    constexpr int kBlock = detail::kLinesPerBlock;
    const int rows = l.majorIsColumn ? l.minorCount : l.majorCount;
    const int lines = l.lastLine - l.firstLine + 1;
    if (rows <= 0 || lines <= 0)
        return;
    if (bandRows <= 0)
        bandRows = rows;
    // Per line: its next step and the step past its last.
    std::vector<int> next(static_cast<size_t>(lines)), end(static_cast<size_t>(lines));
    for (int k = 0; k < lines; ++k)
        detail::lineSteps(l, l.firstLine + k, next[size_t(k)], end[size_t(k)]);
    // A step's rank: the place, in the order the lines meet the rows, of the first row it reads
    // (n and n + 1 for lines along columns, -1 for n = -1 ascending; row i along rows).
    const bool ascending = l.rowsAscending;
    const auto rank = [&](int j, int i) {
        if (l.majorIsColumn) {
            const int n = j + l.whole[size_t(i)];
            return ascending ? n : rows - 2 - n;
        }
        return ascending ? i : rows - 1 - i;
    };
    const int blocks = (lines + kBlock - 1) / kBlock;
    for (int b0 = 0; b0 < rows; b0 += bandRows) {
        const int b1 = std::min(rows, b0 + bandRows);
        const int limit = b1 == rows ? INT_MAX : b1;  // steps of rank below it
        std::atomic<int> nextBlock{0};
        auto job = [&](int) {
            // A copy of the sweeper of its own: a local whose address never escapes, so that
            // its fields stay in registers where the steps store bytes (which may alias
            // anything the sweeper refers to).
            Sweeper local = sweeper;
            for (int b = nextBlock.fetch_add(1); b < blocks; b = nextBlock.fetch_add(1)) {
                const int firstLine = b * kBlock;
                const int count = std::min(kBlock, lines - firstLine);
                if (bandRows >= rows) {
                    // One band: every line's steps in one go, the lines on the map at step s
                    // those whose n lies in [-1, N - 1], a range of the block (n rises with k).
                    int sFirst = INT_MAX, sEnd = 0;
                    for (int k = 0; k < count; ++k) {
                        const size_t line = size_t(firstLine + k);
                        if (next[line] < end[line]) {
                            sFirst = std::min(sFirst, next[line]);
                            sEnd = std::max(sEnd, end[line]);
                        }
                    }
                    const int j0 = l.firstLine + firstLine;
                    for (int s = sFirst; s < sEnd; ++s) {
                        const int i = l.towardsSun > 0 ? l.majorCount - 1 - s : s;
                        const int n0 = j0 + l.whole[size_t(i)];
                        const int kEnd = std::min(count, l.minorCount - n0);
                        for (int k = std::max(0, -1 - n0); k < kEnd; ++k)
                            local.step(j0 + k, i);
                    }
                    for (int k = 0; k < count; ++k) {
                        const size_t line = size_t(firstLine + k);
                        if (next[line] < end[line]) {
                            local.ended(j0 + k);
                            next[line] = end[line];
                        }
                    }
                    continue;
                }
                // The block's cursors in locals: neighbouring blocks' lines share cache lines
                // of next[], which threads writing at every step would pass back and forth.
                int cursor[kBlock], stop[kBlock];
                bool active[kBlock];
                int activeCount = 0, s = INT_MAX;
                for (int k = 0; k < count; ++k) {
                    cursor[k] = next[size_t(firstLine + k)];
                    stop[k] = end[size_t(firstLine + k)];
                    active[k] = cursor[k] < stop[k];
                    activeCount += active[k] ? 1 : 0;
                    if (active[k])
                        s = std::min(s, cursor[k]);
                }
                for (; activeCount > 0; ++s) {
                    const int i = l.towardsSun > 0 ? l.majorCount - 1 - s : s;
                    for (int k = 0; k < count; ++k) {
                        if (!active[k] || cursor[k] > s)
                            continue;
                        const int j = l.firstLine + firstLine + k;
                        if (limit != INT_MAX && rank(j, i) >= limit) {
                            active[k] = false;
                            --activeCount;
                            continue;
                        }
                        local.step(j, i);
                        cursor[k] = s + 1;
                        if (s + 1 == stop[k]) {
                            local.ended(j);
                            active[k] = false;
                            --activeCount;
                        }
                    }
                }
                for (int k = 0; k < count; ++k)
                    next[size_t(firstLine + k)] = cursor[k];
            }
        };
        if (pool != nullptr) {
            pool->run(job);
        } else {
            job(0);
        }
        if (done)
            done(ascending ? b0 : rows - b1, ascending ? b1 : rows - b0);
    }
}

}  // namespace qt
