// The sweeps of computeSunlight and the ray march of sunlightReference over the lines of
// sun_lines.h.
#include "core/light/sunlight.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace qt {

namespace {

// Each line's greatest key per band of the terrain passed so far.
struct ShadowSweep {
    const Heightmap& map;
    const SunLines& l;
    uint8_t* out;
    int bands;
    std::vector<double> maxKey;  // per line, then per band

    ShadowSweep(const Heightmap& m, const SunLines& lines, uint8_t* o)
        : map(m),
          l(lines),
          out(o),
          bands(int(lines.risePerStep.size())),
          maxKey(size_t(lines.lastLine - lines.firstLine + 1) * size_t(bands),
                 -std::numeric_limits<double>::infinity()) {}

    // Passes sample or terrain at step i of line j (sweepInRowBands' steps; some are neither:
    // n = -1 with no sample passed).
    void step(int j, int i) {
        const int r = l.sampleAt(j, i);
        const bool terrain = l.isTerrain(j, i);
        if (r < 0 && !terrain)
            return;
        const double h = l.heightAt(map, j, i);
        double* m = &maxKey[size_t(j - l.firstLine) * size_t(bands)];
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
    void ended(int) {}
};

}  // namespace

void computeSunlight(const Heightmap& map, const WorldMapping& mapping, SunDirection sun, int bands,
                     uint8_t* out, WorkerPool* pool, int bandRows, const RowsDone& done) {
    if (map.width <= 0 || map.height <= 0)
        return;
    const SunLines l = sunLines(map, mapping, sun, bands);
    ShadowSweep sweep(map, l, out);
    sweepInRowBands(l, bandRows, pool, sweep, done);
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
