// The daylight sky of Preetham, Shirley and Smits, "A Practical Analytic Model for Daylight"
// (1999): its fitted zenith, the shape of its distribution and its colours.
#include "core/light/daylight_sky.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

namespace qt {
namespace {

constexpr double kPi = 3.14159265358979323846;

// The unit direction at `azimuth` degrees clockwise from north (-z) and `elevation` above the
// horizon, in world axes (as core/light/daylight_sky.h's toSun).
glm::dvec3 direction(double azimuth, double elevation) {
    const double a = azimuth * kPi / 180.0, e = elevation * kPi / 180.0;
    return {std::sin(a) * std::cos(e), std::sin(e), -std::cos(a) * std::cos(e)};
}

// Straight up, the distribution's ratio is 1: the sky is the fitted zenith (appendix A.2's
// luminance and chromaticity polynomials), here at turbidity 2.5 and the Sun 60 degrees high.
TEST(DaylightSky, StraightUpIsTheFittedZenith) {
    const DaylightSky sky = daylightSky({180.0, 60.0}, 2.5f);
    const glm::dvec3 up = skyXyY(sky, {0.0, 1.0, 0.0});
    EXPECT_NEAR(up.x, sky.zenith.y, 1e-6);
    EXPECT_NEAR(up.y, sky.zenith.z, 1e-6);
    EXPECT_NEAR(up.z, sky.zenith.x, 1e-5);
    // Yz = (4.0453 T - 4.9710) tan chi - 0.2155 T + 2.4192, chi = (4/9 - T/120)(pi - 2 theta_s).
    const double chi = (4.0 / 9.0 - 2.5 / 120.0) * (kPi - 2.0 * (30.0 * kPi / 180.0));
    EXPECT_NEAR(sky.zenith.x, (4.0453 * 2.5 - 4.9710) * std::tan(chi) - 0.2155 * 2.5 + 2.4192,
                1e-5);
    EXPECT_GT(sky.zenith.x, 5.0);  // kcd/m^2: a clear sky's zenith with the Sun high
    EXPECT_LT(sky.zenith.x, 12.0);
}

// The zenith darkens as the Sun sinks, and a hazier sky (higher turbidity) is whiter: its
// zenith chromaticity moves from blue towards the white point.
TEST(DaylightSky, TheZenithDarkensAsTheSunSinksAndWhitensWithTurbidity) {
    double last = 1e9;
    for (double elevation = 80.0; elevation >= 0.0; elevation -= 10.0) {
        const double y = daylightSky({0.0, elevation}).zenith.x;
        EXPECT_LT(y, last) << elevation;
        last = y;
    }
    const DaylightSky clear = daylightSky({0.0, 45.0}, 2.0f);
    const DaylightSky hazy = daylightSky({0.0, 45.0}, 8.0f);
    EXPECT_LT(clear.zenith.y, hazy.zenith.y);
    EXPECT_LT(clear.zenith.z, hazy.zenith.z);
    EXPECT_LT(clear.zenith.y, 0.3127);  // bluer than D65's white
}

// The brightest sky is around the Sun (the circumsolar term): over directions every 2 degrees
// above the horizon, the brightest lies within 6 degrees of the Sun, for Suns high and low.
TEST(DaylightSky, TheBrightestSkyIsAroundTheSun) {
    for (const SunDirection sun : {SunDirection{135.0, 50.0}, SunDirection{250.0, 15.0}}) {
        const DaylightSky sky = daylightSky(sun);
        double brightest = -1.0;
        glm::dvec3 where(0.0);
        for (double a = 0.0; a < 360.0; a += 2.0) {
            for (double e = 1.0; e <= 89.0; e += 2.0) {
                const glm::dvec3 v = direction(a, e);
                const double y = skyXyY(sky, v).z;
                if (y > brightest) {
                    brightest = y;
                    where = v;
                }
            }
        }
        const double fromSun =
            std::acos(std::min(1.0, glm::dot(where, glm::dvec3(sky.toSun)))) * 180.0 / kPi;
        EXPECT_LT(fromSun, 6.0) << sun.azimuth << ", " << sun.elevation;
        EXPECT_GT(brightest, 2.0 * skyXyY(sky, {0.0, 1.0, 0.0}).z);
    }
}

// Below the horizon the sky is its mirror image above (the haze's colour, continuous at the
// horizon); the Sun's direction is the one the model was fitted for, at or above the horizon.
TEST(DaylightSky, BelowTheHorizonIsTheMirrorImage) {
    const DaylightSky sky = daylightSky({200.0, 25.0});
    for (const double azimuth : {0.0, 90.0, 200.0, 300.0}) {
        for (const double elevation : {0.5, 10.0, 60.0}) {
            const glm::dvec3 up = skyXyY(sky, direction(azimuth, elevation));
            const glm::dvec3 down = skyXyY(sky, direction(azimuth, -elevation));
            EXPECT_DOUBLE_EQ(up.x, down.x);
            EXPECT_DOUBLE_EQ(up.y, down.y);
            EXPECT_DOUBLE_EQ(up.z, down.z);
        }
    }
    EXPECT_NEAR(glm::length(glm::dvec3(sky.toSun) - direction(200.0, 25.0)), 0.0, 1e-6);
    const DaylightSky below = daylightSky({200.0, -5.0});
    EXPECT_NEAR(below.toSun.y, 0.0f, 1e-6f);
}

// The Sun below the horizon: the sky of the Sun on it, dimmed to nothing at kNightElevation.
TEST(DaylightSky, TwilightDimsTheSkyToNightAtTwelveDegreesBelow) {
    EXPECT_EQ(daylightSky({0.0, 0.0}).twilight, 1.0f);
    EXPECT_EQ(daylightSky({0.0, 30.0}).twilight, 1.0f);
    EXPECT_EQ(daylightSky({0.0, kNightElevation}).twilight, 0.0f);
    EXPECT_EQ(daylightSky({0.0, -40.0}).twilight, 0.0f);
    float last = 1.0f;
    for (double e = -1.0; e >= kNightElevation; e -= 1.0) {
        const float t = daylightSky({0.0, e}).twilight;
        EXPECT_LT(t, last) << e;
        last = t;
    }
    const glm::dvec3 dusk = skyDisplayColour(skyXyY(daylightSky({0.0, -20.0}), {0.0, 1.0, 0.0}),
                                             daylightSky({0.0, -20.0}).twilight);
    EXPECT_EQ(dusk, glm::dvec3(0.0));
}

// Colours: D65's white point goes to grey (equal channels, IEC 61966-2-1's matrix), brighter for
// more light; a clear noon sky away from the Sun is blue (blue over green over red).
TEST(DaylightSky, DisplayColoursFollowSrgb) {
    const glm::dvec3 grey = skyDisplayColour({0.3127, 0.3290, 5.0}, 1.0);
    EXPECT_NEAR(grey.x, grey.y, 2e-3);
    EXPECT_NEAR(grey.y, grey.z, 2e-3);
    const glm::dvec3 brighter = skyDisplayColour({0.3127, 0.3290, 10.0}, 1.0);
    EXPECT_GT(brighter.y, grey.y);
    EXPECT_LE(brighter.y, 1.0);
    const DaylightSky noon = daylightSky({180.0, 60.0});
    const glm::dvec3 north = skyDisplayColour(skyXyY(noon, direction(0.0, 45.0)), 1.0);
    EXPECT_GT(north.z, north.y);
    EXPECT_GT(north.y, north.x);
}

// The table the shaders read: its last row is the zenith, its first the horizon, each column an
// azimuth from the Sun's; texels are the display colours of those directions in 16 bits.
TEST(DaylightSky, TheTableHoldsTheColoursOfItsDirections) {
    const DaylightSky sky = daylightSky({120.0, 20.0});
    std::vector<uint16_t> table(size_t(kSkyTableWidth) * kSkyTableHeight * 4);
    skyTable(sky, table.data());
    const auto texel = [&](int i, int j) {
        const uint16_t* t = &table[4 * (size_t(j) * kSkyTableWidth + size_t(i))];
        return glm::dvec3(t[0], t[1], t[2]) / 65535.0;
    };
    const auto expected = [&](double azimuth, double elevation) {
        return skyDisplayColour(skyXyY(sky, direction(azimuth, elevation)), sky.twilight);
    };
    for (const int i : {0, 37, kSkyTableWidth / 2, kSkyTableWidth - 1}) {
        const double azimuth = 120.0 + 180.0 * i / (kSkyTableWidth - 1);
        for (const int j : {0, 41, kSkyTableHeight - 1}) {
            const double elevation = std::asin(double(j) / (kSkyTableHeight - 1)) * 180.0 / kPi;
            const glm::dvec3 d = texel(i, j) - expected(azimuth, elevation);
            EXPECT_LT(std::max({std::fabs(d.x), std::fabs(d.y), std::fabs(d.z)}), 1e-4)
                << i << ", " << j;
        }
    }
    const glm::dvec3 zenith = expected(0.0, 90.0);
    EXPECT_NEAR(texel(11, kSkyTableHeight - 1).z, zenith.z, 1e-4);
    EXPECT_EQ(table[3], 65535);
}

}  // namespace
}  // namespace qt
