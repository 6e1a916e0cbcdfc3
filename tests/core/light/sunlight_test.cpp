// Cast shadows: the sweep against the ray march from every sample (the same terrain model,
// sun_lines.h), the ray march against the elevation angle measured with atan2 (ties counted),
// and shadow lengths known in closed form.
#include "core/light/sunlight.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/io/load.h"
#include "core/light/sun_lines.h"
#include "core/terrain/synthetic.h"
#include "qt_source_paths.h"
#include "test_files.h"

namespace qt {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Suns from every side, high and grazing (1 to 3 degrees), on and between the grid's axes.
const SunDirection kSuns[] = {{0.0, 30.0},   {37.0, 2.0},  {90.0, 10.0}, {135.5, 1.0},
                              {200.0, 45.0}, {271.0, 3.0}, {315.0, 1.5}, {12.3, 60.0}};

std::vector<uint8_t> sweep(const Heightmap& map, const WorldMapping& m, SunDirection sun, int bands,
                           WorkerPool* pool = nullptr) {
    std::vector<uint8_t> out(size_t(map.sampleCount()), 7);
    computeSunlight(map, m, sun, bands, out.data(), pool);
    return out;
}

std::vector<uint8_t> march(const Heightmap& map, const WorldMapping& m, SunDirection sun,
                           int bands) {
    std::vector<uint8_t> out(size_t(map.sampleCount()), 7);
    sunlightReference(map, m, sun, bands, out.data());
    return out;
}

// The samples where the sweep and the march differ (none expected).
int64_t differences(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    int64_t d = 0;
    for (size_t k = 0; k < a.size(); ++k)
        d += a[k] != b[k] ? 1 : 0;
    return d;
}

void expectSweepEqualsMarch(const Heightmap& map, const WorldMapping& m, const std::string& what,
                            int bands) {
    WorkerPool pool(2);
    for (const SunDirection& sun : kSuns) {
        const std::vector<uint8_t> swept = sweep(map, m, sun, bands, &pool);
        const std::vector<uint8_t> marched = march(map, m, sun, bands);
        EXPECT_EQ(differences(swept, marched), 0)
            << what << " azimuth " << sun.azimuth << " elevation " << sun.elevation << " bands "
            << bands;
    }
}

TEST(Sunlight, APillarCastsAShadowOfItsHeightOverTheSunsSlope) {
    const int n = 41;
    std::vector<float> samples(size_t(n * n), 0.0f);
    samples[20 * n + 20] = 10.0f;
    const Heightmap map = makeHeightmap(n, n, samples).value();
    const WorldMapping m(1.0f, 1.0f, 0.0f);
    const double elevation = std::atan(3.0) * 180.0 / kPi;  // 10 / 3: three samples of shadow
    struct Case {
        double azimuth;
        int dc, dr;  // from the pillar away from the Sun
    };
    for (const Case& c :
         {Case{90.0, -1, 0}, Case{0.0, 0, 1}, Case{270.0, 1, 0}, Case{180.0, 0, -1}}) {
        const std::vector<uint8_t> lit = sweep(map, m, {c.azimuth, elevation}, 1);
        std::vector<uint8_t> expected(lit.size(), 255);
        for (int k = 1; k <= 3; ++k)
            expected[size_t((20 + k * c.dr) * n + 20 + k * c.dc)] = 0;
        EXPECT_EQ(differences(lit, expected), 0) << "azimuth " << c.azimuth;
    }
}

TEST(Sunlight, AFlatMapIsLitAndAHighSunLightsEverything) {
    const Heightmap flat = flatHeightmap(33, 17, 500.0f);
    for (const SunDirection& sun : kSuns) {
        for (uint8_t v : sweep(flat, {1.0f, 1.0f, 0.0f}, sun, 1))
            ASSERT_EQ(v, 255);
    }
    const Heightmap map = syntheticHeightmap(65, 65, 3);
    for (uint8_t v : sweep(map, {1.0f, 1.0f, 0.0f}, {10.0, 90.0}, 1))
        ASSERT_EQ(v, 255);
}

TEST(Sunlight, SweepEqualsMarchOnSyntheticMaps) {
    const Heightmap a = syntheticHeightmap(129, 97, 5);
    expectSweepEqualsMarch(a, {30.0f, 30.0f, 1.0f, 0.0f}, "129x97", 1);
    expectSweepEqualsMarch(a, {30.0f, 30.0f, 1.0f, 0.0f}, "129x97", 8);
    // Rectangular cells (a geographic raster away from the equator) and a map taller than wide.
    const Heightmap b = syntheticHeightmap(61, 150, 9);
    expectSweepEqualsMarch(b, {21.0f, 30.0f, 1.0f, 0.0f}, "61x150 rectangular cells", 1);
    expectSweepEqualsMarch(b, {21.0f, 30.0f, 1.0f, 0.0f}, "61x150 rectangular cells", 4);
}

TEST(Sunlight, SweepEqualsMarchOnRealMaps) {
    int found = 0;
    for (const char* name : {"jacksboro_fault_403x344.png", "r_volcano_maunga_whau_87x61.png"}) {
        const std::string path = test::sharedHeightmap(name);
        if (path.empty())
            continue;
        ++found;
        const Heightmap map = loadHeightmap(path).value();
        const WorldMapping m = defaultMapping(map);
        expectSweepEqualsMarch(map, m, name, 1);
        expectSweepEqualsMarch(map, m, name, 4);
    }
    if (found == 0)
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map checks skipped";
}

TEST(Sunlight, OneThreadAndTwoGiveTheSameBytes) {
    const Heightmap map = syntheticHeightmap(257, 129, 2);
    WorkerPool pool(2);
    for (const SunDirection& sun : kSuns) {
        EXPECT_EQ(differences(sweep(map, {1.0f, 0.5f, 0.0f}, sun, 4, &pool),
                              sweep(map, {1.0f, 0.5f, 0.0f}, sun, 4)),
                  0);
    }
}

// Swept in bands of rows (sweepInRowBands), the bytes are the march's for every Sun and band
// size, from bands of one row to one band, on maps wider and taller than the bands.
TEST(Sunlight, BandsOfRowsGiveTheMarchsBytes) {
    WorkerPool pool(2);
    const Heightmap wide = syntheticHeightmap(90, 37, 6);
    const Heightmap tall = syntheticHeightmap(33, 101, 7);
    for (const Heightmap* map : {&wide, &tall}) {
        const WorldMapping m(21.0f, 30.0f, 1.0f, 0.0f);
        for (const SunDirection& sun : kSuns) {
            const std::vector<uint8_t> marched = march(*map, m, sun, 4);
            for (const int bandRows : {1, 2, 7, 40, 1000}) {
                std::vector<uint8_t> swept(size_t(map->sampleCount()), 7);
                computeSunlight(*map, m, sun, 4, swept.data(), &pool, bandRows);
                EXPECT_EQ(differences(swept, marched), 0)
                    << map->width << "x" << map->height << " azimuth " << sun.azimuth
                    << " bands of " << bandRows << " rows";
            }
        }
    }
}

// The bands' contract, step by step (one thread, so that the order is the sweep's): every step
// of every line on the map comes once, each line's in its order from the Sun's side and ended
// once after its last; a step reads only rows not yet told done (heightAt's rows) and writes a
// sample of such a row; the done rows come in order away from the Sun, cover the map once, and
// each band holds at most bandRows rows (0: the whole map in one band).
TEST(SunLines, ABandsStepsReadOnlyRowsNotYetDoneAndEveryStepComesOnce) {
    const Heightmap map = syntheticHeightmap(45, 29, 3);
    const WorldMapping m(21.0f, 30.0f, 1.0f, 0.0f);
    for (const SunDirection& sun : kSuns) {
        const SunLines l = sunLines(map, m, sun, 1);
        for (const int bandRows : {1, 3, 8, 0}) {
            // What the steps saw, held here: the sweep copies its sweeper (a view) per thread.
            struct Record {
                std::vector<int> lastStep, endings;
                int64_t steps = 0, stale = 0, disorder = 0, afterEnd = 0;
            };
            struct Recorder {
                const SunLines* l;
                const std::vector<char>* rowDone;
                Record* rec;
                void step(int j, int i) {
                    const size_t line = size_t(j - l->firstLine);
                    const int s = l->towardsSun > 0 ? l->majorCount - 1 - i : i;
                    rec->disorder += s <= rec->lastStep[line] ? 1 : 0;
                    rec->afterEnd += rec->endings[line];
                    rec->lastStep[line] = s;
                    ++rec->steps;
                    // heightAt's rows: the clamped n and n + 1 along columns, row i along rows.
                    const int n = j + l->whole[size_t(i)];
                    const int lo = l->majorIsColumn ? std::clamp(n, 0, l->minorCount - 1) : i;
                    const int hi = l->majorIsColumn ? std::clamp(n + 1, 0, l->minorCount - 1) : i;
                    const int r = l->sampleAt(j, i);
                    const int written = r < 0 ? lo : l->majorIsColumn ? r : i;
                    const std::vector<char>& done = *rowDone;
                    rec->stale += done[size_t(lo)] || done[size_t(hi)] || done[size_t(written)];
                }
                void ended(int j) { ++rec->endings[size_t(j - l->firstLine)]; }
            };
            const int rows = map.height;
            std::vector<char> rowDone(size_t(rows), 0);
            const size_t lines = size_t(l.lastLine - l.firstLine + 1);
            Record rec{std::vector<int>(lines, -1), std::vector<int>(lines, 0)};
            Recorder recorder{&l, &rowDone, &rec};
            int previousEnd = -1, told = 0;
            bool ordered = true, small = true;
            sweepInRowBands(l, bandRows, nullptr, recorder, [&](int first, int end) {
                small = small && end - first <= (bandRows > 0 ? bandRows : rows) && first < end;
                ordered = ordered && (previousEnd < 0 || (l.rowsAscending ? first == previousEnd
                                                                          : end == previousEnd));
                previousEnd = l.rowsAscending ? end : first;
                for (int r = first; r < end; ++r) {
                    told += rowDone[size_t(r)] ? 0 : 1;
                    rowDone[size_t(r)] = 1;
                }
            });
            // The steps on the map: each line's positions with -1 <= n <= N - 1.
            int64_t expected = 0, withSteps = 0;
            for (int j = l.firstLine; j <= l.lastLine; ++j) {
                int64_t mine = 0;
                for (int i = 0; i < l.majorCount; ++i) {
                    const int n = j + l.whole[size_t(i)];
                    mine += n >= -1 && n <= l.minorCount - 1 ? 1 : 0;
                }
                expected += mine;
                withSteps += mine > 0 ? 1 : 0;
                EXPECT_EQ(rec.endings[size_t(j - l.firstLine)], mine > 0 ? 1 : 0) << "line " << j;
            }
            const std::string what =
                "azimuth " + std::to_string(sun.azimuth) + ", bands of " + std::to_string(bandRows);
            EXPECT_EQ(rec.steps, expected) << what;
            EXPECT_GT(withSteps, 0) << what;
            EXPECT_EQ(rec.disorder, 0) << what;
            EXPECT_EQ(rec.afterEnd, 0) << what;
            EXPECT_EQ(rec.stale, 0) << what;
            EXPECT_EQ(told, rows) << what;
            EXPECT_TRUE(ordered) << what;
            EXPECT_TRUE(small) << what;
        }
    }
}

// The march's key comparison against the geometric test it stands for: a sample is in shadow when
// some terrain point ahead on its line is seen at an elevation angle (atan2 of the rise over the
// horizontal distance) above the Sun's. A tie is a sample whose greatest angle ahead lies within
// 1e-9 radians of the Sun's, where rounding may decide either way; they may differ, nothing else.
TEST(Sunlight, MarchEqualsTheElevationAngleAwayFromTies) {
    const Heightmap map = syntheticHeightmap(97, 81, 7);
    const WorldMapping m(30.0f, 30.0f, 1.0f, 0.0f);
    int64_t ties = 0, compared = 0;
    for (const SunDirection& sun : kSuns) {
        const std::vector<uint8_t> marched = march(map, m, sun, 1);
        const SunLines l = sunLines(map, m, sun, 1);
        const double e = sun.elevation * kPi / 180.0;
        for (int i = 0; i < l.majorCount; ++i) {
            for (int r = 0; r < l.minorCount; ++r) {
                const int j = l.lineOf(i, r);
                const double h = l.heightAt(map, j, i);
                double highest = -kPi;
                for (int a = i + l.towardsSun, k = 1; a >= 0 && a < l.majorCount;
                     a += l.towardsSun, ++k) {
                    if (!l.isTerrain(j, a))
                        continue;
                    highest = std::max(highest,
                                       std::atan2(l.heightAt(map, j, a) - h, double(k) * l.step));
                }
                const bool tie = std::fabs(highest - e) < 1e-9;
                ties += tie ? 1 : 0;
                ++compared;
                if (!tie) {
                    ASSERT_EQ(marched[l.sampleIndex(i, r)], highest > e ? 0 : 255)
                        << "azimuth " << sun.azimuth << " sample " << i << ", " << r;
                }
            }
        }
    }
    EXPECT_EQ(compared, int64_t(97 * 81) * int64_t(std::size(kSuns)));
    RecordProperty("ties", int(ties));
    EXPECT_LE(ties, 8) << "ties among " << compared;  // generic terrain: about none
}

// Every band below the terrain's horizon and every band above it: a sample whose horizon lies
// across the disc is partly lit, and the lit share grows with the Sun's elevation.
TEST(Sunlight, TheDiscsBandsShadeTheEdge) {
    EXPECT_NEAR(sunBandElevations(10.0, 1)[0], 10.0, 0.0);
    const std::vector<double> e = sunBandElevations(10.0, 8);
    for (size_t b = 1; b < e.size(); ++b)
        EXPECT_GT(e[b], e[b - 1]);
    EXPECT_NEAR(e.front() + e.back(), 20.0, 1e-12);
    EXPECT_LT(e.back(), 10.0 + kSunRadiusDegrees);
    // A wall 1 high 100 away along a row, Sun behind it in the east: the sample sees the wall
    // top at atan(1 / 100), 0.573 degrees.
    std::vector<float> samples(202, 0.0f);
    samples[100] = samples[201] = 1.0f;
    const Heightmap wall = makeHeightmap(101, 2, samples).value();
    const double top = std::atan(0.01) * 180.0 / kPi;
    int previous = -1;
    for (double d = -0.3; d <= 0.3; d += 0.05) {
        const int v = sweep(wall, {1.0f, 1.0f, 0.0f}, {90.0, top + d}, 16)[0];
        EXPECT_GE(v, previous);
        previous = v;
        if (d < -kSunRadiusDegrees) {
            EXPECT_EQ(v, 0) << d;
        }
        if (d > kSunRadiusDegrees) {
            EXPECT_EQ(v, 255) << d;
        }
        if (std::fabs(d) < 0.1) {
            EXPECT_TRUE(v > 0 && v < 255) << d;
        }
    }
}

}  // namespace
}  // namespace qt
