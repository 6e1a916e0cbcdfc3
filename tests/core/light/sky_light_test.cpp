// Horizon angles by the hull sweep against the ray march along the same lines (sun_lines.h),
// closed-form horizons, and the sky fraction against its definition over the marched horizons.
#include "core/light/sky_light.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/io/load.h"
#include "core/terrain/synthetic.h"
#include "qt_source_paths.h"
#include "test_files.h"

namespace qt {
namespace {

const double kAzimuths[] = {0.0, 22.5, 45.0, 90.0, 137.0, 180.0, 251.3, 315.0};

// The largest difference between the sweep's angles and the march's, radians.
double largestDifference(const Heightmap& map, const WorldMapping& m, double azimuth) {
    WorkerPool pool(2);
    std::vector<float> swept(size_t(map.sampleCount()), -1.0f);
    std::vector<float> marched(size_t(map.sampleCount()), -2.0f);
    horizonAngles(map, m, azimuth, swept.data(), &pool);
    horizonAnglesReference(map, m, azimuth, marched.data());
    double worst = 0.0;
    for (size_t k = 0; k < swept.size(); ++k) {
        worst = std::max(worst, double(std::fabs(swept[k] - marched[k])));
    }
    return worst;
}

// The hull's tangent is the march's maximum: equal but for rounding in the slopes' division
// (1e-6 radians covers a float's rounding of the angle).
TEST(SkyLight, HullEqualsMarchOnSyntheticAndRealMaps) {
    const Heightmap a = syntheticHeightmap(129, 97, 5);
    for (double azimuth : kAzimuths) {
        EXPECT_LE(largestDifference(a, {30.0f, 30.0f, 1.0f, 0.0f}, azimuth), 1e-6) << azimuth;
        EXPECT_LE(largestDifference(a, {21.0f, 30.0f, 1.0f, 0.0f}, azimuth), 1e-6) << azimuth;
    }
    const std::string path = test::sharedHeightmap("jacksboro_fault_403x344.png");
    if (path.empty())
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map check skipped";
    const Heightmap map = loadHeightmap(path).value();
    for (double azimuth : {0.0, 137.0, 251.3}) {
        EXPECT_LE(largestDifference(map, defaultMapping(map), azimuth), 1e-6) << azimuth;
    }
}

// A wall 10 high at the east edge of a flat map: from 40 samples away (spacing 1) the horizon
// towards the east is atan(10 / 40); towards the west, open (0).
TEST(SkyLight, AWallsHorizonIsItsHeightOverItsDistance) {
    const int w = 51, h = 5;
    std::vector<float> samples(size_t(w * h), 0.0f);
    for (int r = 0; r < h; ++r)
        samples[size_t(r * w + w - 1)] = 10.0f;
    const Heightmap map = makeHeightmap(w, h, samples).value();
    std::vector<float> angles(size_t(w * h));
    horizonAngles(map, {1.0f, 1.0f, 0.0f}, 90.0, angles.data());
    EXPECT_NEAR(angles[size_t(2 * w + 10)], std::atan(10.0 / 40.0), 1e-6);
    horizonAngles(map, {1.0f, 1.0f, 0.0f}, 270.0, angles.data());
    EXPECT_EQ(angles[size_t(2 * w + 10)], 0.0f);
}

// The sky fraction is its definition over the marched horizons (a byte apart at most where the
// float sum rounds across a half), open sky on a flat map, and darker in a valley than on a ridge.
TEST(SkyLight, SkyFractionIsTheMeanOpenShareOfItsAzimuths) {
    const Heightmap map = syntheticHeightmap(97, 81, 7);
    const WorldMapping m(30.0f, 30.0f, 1.0f, 0.0f);
    const int azimuths = 8;
    std::vector<uint8_t> sky(size_t(map.sampleCount()));
    WorkerPool pool(2);
    skyFraction(map, m, azimuths, sky.data(), &pool);
    std::vector<double> open(sky.size(), 0.0);
    std::vector<float> angles(sky.size());
    for (int d = 0; d < azimuths; ++d) {
        horizonAnglesReference(map, m, 360.0 * d / azimuths, angles.data());
        for (size_t k = 0; k < sky.size(); ++k)
            open[k] += 1.0 - std::sin(double(angles[k]));
    }
    int offByOne = 0;
    for (size_t k = 0; k < sky.size(); ++k) {
        const int expected = skyByte(open[k], azimuths);
        ASSERT_LE(std::abs(int(sky[k]) - expected), 1) << k;
        offByOne += sky[k] != expected ? 1 : 0;
    }
    EXPECT_LE(offByOne, int(sky.size() / 1000) + 1);
    uint8_t lowest = 255;
    for (uint8_t v : sky)
        lowest = std::min(lowest, v);
    EXPECT_LT(lowest, 255);
    const Heightmap flat = flatHeightmap(33, 33, 10.0f);
    std::vector<uint8_t> flatSky(size_t(flat.sampleCount()));
    skyFraction(flat, {1.0f, 1.0f, 0.0f}, azimuths, flatSky.data());
    for (uint8_t v : flatSky)
        ASSERT_EQ(v, 255);
}

// In bands of rows (sweepInRowBands) the hulls are carried from band to band: the same angles as
// the whole sweep, bit for bit, and the same sky bytes from a caller's sum, told of each band's
// rows once an azimuth has passed them, the bytes written by the last azimuth's bands.
TEST(SkyLight, BandsOfRowsGiveTheSameAnglesAndSkyBytes) {
    WorkerPool pool(2);
    const WorldMapping m(21.0f, 30.0f, 1.0f, 0.0f);
    for (const Heightmap& map : {syntheticHeightmap(90, 37, 6), syntheticHeightmap(33, 101, 7)}) {
        const size_t n = size_t(map.sampleCount());
        for (double azimuth : kAzimuths) {
            std::vector<float> whole(n, -1.0f);
            horizonAngles(map, m, azimuth, whole.data(), &pool);
            for (const int bandRows : {1, 5, 40}) {
                std::vector<float> banded(n, -2.0f);
                horizonAngles(map, m, azimuth, banded.data(), &pool, bandRows);
                EXPECT_EQ(banded, whole) << "azimuth " << azimuth << ", bands of " << bandRows;
            }
        }
        const int azimuths = 6;
        std::vector<uint8_t> expected(n);
        skyFraction(map, m, azimuths, expected.data(), &pool);
        for (const int bandRows : {1, 5, 40}) {
            std::vector<uint8_t> sky(n, 0);
            std::vector<float> open(n, -1.0f);
            std::vector<int> toldFinal(size_t(map.height), 0);
            int bandsTold = 0, writtenEarly = 0;
            skyFraction(map, m, azimuths, sky.data(), &pool, open.data(), bandRows,
                        [&](int first, int end, bool final) {
                            ++bandsTold;
                            for (int r = first; r < end; ++r) {
                                toldFinal[size_t(r)] += final ? 1 : 0;
                                for (int c = 0; c < map.width; ++c) {
                                    const size_t k = size_t(r) * size_t(map.width) + size_t(c);
                                    writtenEarly += !final && sky[k] != 0 ? 1 : 0;
                                    writtenEarly += final && sky[k] != expected[k] ? 1 : 0;
                                }
                            }
                        });
            EXPECT_EQ(sky, expected) << "bands of " << bandRows;
            EXPECT_EQ(writtenEarly, 0) << "bands of " << bandRows;
            EXPECT_EQ(toldFinal, std::vector<int>(size_t(map.height), 1));
            EXPECT_EQ(bandsTold, azimuths * ((map.height + bandRows - 1) / bandRows));
        }
    }
}

}  // namespace
}  // namespace qt
