// The sweeps of computeSunlight and the ray march of sunlightReference over the lines of
// sun_lines.h.
#include "core/light/sunlight.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace qt {

namespace {

// Each line's greatest key per band of the terrain passed so far, in `maxKey` (a view: the sweep
// copies it to each thread). computeSunlight starts it on a 64-byte boundary, so that a block's
// lines' keys (kLinesPerBlock lines of 8-byte keys per band fill whole cache lines) never share a
// cache line with a neighbouring block's, which another thread sweeps.
struct ShadowSweep {
    const Heightmap* map;
    const SunLines* l;
    uint8_t* out;
    double* maxKey;  // per line, then per band
    int bands;

    // Passes sample or terrain at step i of line j (sweepInRowBands' steps; some are neither:
    // n = -1 with no sample passed). Inlined into the sweep's loops: GCC leaves it a call a
    // sample otherwise (12% more instructions on BM_Sunlight).
    __attribute__((always_inline)) void step(int j, int i) {
        const SunLines& lines = *l;
        const int r = lines.sampleAt(j, i);
        const bool terrain = lines.isTerrain(j, i);
        if (r < 0 && !terrain)
            return;
        const double h = lines.heightAt(*map, j, i);
        double* const m = maxKey + size_t(j - lines.firstLine) * size_t(bands);
        int lit = 0;
        for (int b = 0; b < bands; ++b) {
            const double key = lines.key(h, i, b);
            lit += key >= m[b] ? 1 : 0;
            if (terrain)
                m[b] = std::max(m[b], key);
        }
        if (r >= 0)
            out[lines.sampleIndex(i, r)] = litByte(lit, bands);
    }
    void ended(int) {}
};

}  // namespace

void computeSunlight(const Heightmap& map, const WorldMapping& mapping, SunDirection sun, int bands,
                     uint8_t* out, WorkerPool* pool, int bandRows, const RowsDone& done) {
    if (map.width <= 0 || map.height <= 0)
        return;
    const SunLines l = sunLines(map, mapping, sun, bands);
    const size_t keys = size_t(l.lastLine - l.firstLine + 1) * size_t(bands);
    std::vector<double> storage(keys + 8, -std::numeric_limits<double>::infinity());
    const auto at = reinterpret_cast<uintptr_t>(storage.data());
    ShadowSweep sweep{&map, &l, out, storage.data() + ((64 - at % 64) % 64) / sizeof(double),
                      bands};
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
