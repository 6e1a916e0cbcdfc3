// The sweeps of computeSunlight and the ray march of sunlightReference over the lines of
// sun_lines.h.
#include "core/light/sunlight.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <vector>

#include "core/light/sun_lines.h"

namespace qt {

namespace {

// Lines swept side by side: at one major index they touch neighbouring samples of one row (or
// column), so the sweep reads memory in runs whichever axis is major.
constexpr int kLinesPerBlock = 32;

// Sweeps lines [first, first + count) from the Sun's side of the map away from it. At major
// index i line first + k lies at n = first + k + whole[i] (plus the fraction): it passes a sample
// for n in [-1, N - 1] (n = -1 only past half a sample) and is terrain for n in [0, N - 2], or
// n = N - 1 with no fraction; the other lines of the block are skipped there.
void sweepBlock(const Heightmap& map, const SunLines& l, int first, int count, uint8_t* out,
                std::vector<double>& maxKey) {
    const int bands = int(l.risePerStep.size());
    std::fill(maxKey.begin(), maxKey.end(), -std::numeric_limits<double>::infinity());
    for (int s = 0; s < l.majorCount; ++s) {
        const int i = l.towardsSun > 0 ? l.majorCount - 1 - s : s;
        const int n0 = first + l.whole[size_t(i)];
        const int kFirst = std::max(0, -1 - n0);
        const int kEnd = std::min(count, l.minorCount - n0);
        for (int k = kFirst; k < kEnd; ++k) {
            const int j = first + k;
            const int r = l.sampleAt(j, i);
            const bool terrain = l.isTerrain(j, i);
            if (r < 0 && !terrain)
                continue;
            const double h = l.heightAt(map, j, i);
            double* m = &maxKey[size_t(k) * size_t(bands)];
            int lit = 0;
            for (int b = 0; b < bands; ++b) {
                const double key = l.key(h, i, b);
                lit += key >= m[b] ? 1 : 0;
                if (terrain)
                    m[b] = std::max(m[b], key);
            }
            if (r >= 0)
                out[l.sampleIndex(i, r)] = litByte(lit, bands);
        }
    }
}

}  // namespace

void computeSunlight(const Heightmap& map, const WorldMapping& mapping, SunDirection sun, int bands,
                     uint8_t* out, WorkerPool* pool) {
    if (map.width <= 0 || map.height <= 0)
        return;
    const SunLines l = sunLines(map, mapping, sun, bands);
    const int lineCount = l.lastLine - l.firstLine + 1;
    const int blocks = (lineCount + kLinesPerBlock - 1) / kLinesPerBlock;
    std::atomic<int> next{0};
    auto job = [&](int) {
        std::vector<double> maxKey(size_t(kLinesPerBlock) * size_t(bands));
        for (int b = next.fetch_add(1); b < blocks; b = next.fetch_add(1)) {
            const int first = l.firstLine + b * kLinesPerBlock;
            const int count = std::min(kLinesPerBlock, l.lastLine + 1 - first);
            sweepBlock(map, l, first, count, out, maxKey);
        }
    };
    if (pool != nullptr) {
        pool->run(job);
    } else {
        job(0);
    }
}

void sunlightReference(const Heightmap& map, const WorldMapping& mapping, SunDirection sun,
                       int bands, uint8_t* out) {
    const SunLines l = sunLines(map, mapping, sun, bands);
    for (int i = 0; i < l.majorCount; ++i) {
        for (int r = 0; r < l.minorCount; ++r) {
            const int j = l.lineOf(i, r);
            const double h = l.heightAt(map, j, i);
            int lit = 0;
            for (int b = 0; b < bands; ++b) {
                const double key = l.key(h, i, b);
                bool shadow = false;
                for (int a = i + l.towardsSun; a >= 0 && a < l.majorCount && !shadow;
                     a += l.towardsSun) {
                    shadow = l.isTerrain(j, a) && l.key(l.heightAt(map, j, a), a, b) > key;
                }
                lit += shadow ? 0 : 1;
            }
            out[l.sampleIndex(i, r)] = litByte(lit, bands);
        }
    }
}

}  // namespace qt
