// The solar position against the worked examples of J. Meeus, "Astronomical Algorithms", 2nd ed.
// (1998), whose equations NOAA's solar calculator uses, and against the noon geometry.
#include "core/light/sun_position.h"

#include <cmath>

#include <gtest/gtest.h>

namespace qt {
namespace {

// Meeus example 7.a: 1957 October 4.81 (Sputnik 1) is JD 2436116.31; J2000.0 is JD 2451545.0.
TEST(SunPosition, JulianDayOfMeeusExample7a) {
    EXPECT_NEAR(julianDay(1957, 10, 4, 19, 26, 24.0), 2436116.31, 1e-6);
    EXPECT_DOUBLE_EQ(julianDay(2000, 1, 1, 12, 0, 0.0), 2451545.0);
}

// Meeus example 25.a, 1992 October 13.0 TD: apparent longitude 199.90895, obliquity 23.43999,
// right ascension 198.38083 and declination -7.78507 degrees; example 28.b, the same instant:
// equation of time +13m42.7s.
TEST(SunPosition, EquatorialPlaceOfMeeusExamples25aAnd28b) {
    const SunEquatorial s = sunEquatorial(2448908.5);
    EXPECT_NEAR(s.apparentLongitude, 199.90895, 2e-5);
    EXPECT_NEAR(s.obliquity, 23.43999, 2e-5);
    EXPECT_NEAR(s.rightAscension, 198.38083, 2e-5);
    EXPECT_NEAR(s.declination, -7.78507, 2e-5);
    EXPECT_NEAR(s.equationOfTime, 13.0 + 42.7 / 60.0, 0.1 / 60.0);
}

// Meeus example 13.b: Venus from Washington (38 55'17" N) at hour angle 64.352133 and
// declination -6 43'11.61" has azimuth 68.0337 from the south (248.0337 from the north) and
// altitude 15.1249 degrees.
TEST(SunPosition, HorizontalPlaceOfMeeusExample13b) {
    const double latitude = 38.0 + 55.0 / 60.0 + 17.0 / 3600.0;
    const double declination = -(6.0 + 43.0 / 60.0 + 11.61 / 3600.0);
    const SunDirection d = horizontalFromHourAngle(64.352133, declination, latitude);
    EXPECT_NEAR(d.azimuth, 248.0337, 1e-4);
    EXPECT_NEAR(d.elevation, 15.1249, 1e-4);
}

// At true solar noon (hour angle 0) the Sun is due south of a place north of its declination,
// at elevation 90 - (latitude - declination): spherical geometry, independent of 13.5/13.6.
TEST(SunPosition, NoonElevationFromLatitudeAndDeclination) {
    const double midnight = julianDay(2026, 6, 21, 0, 0, 0.0);
    // Noon at longitude L comes when 720 - 4L - E minutes have passed since 0h UTC, E the
    // equation of time at noon itself: a few rounds of the fixed point.
    const double longitude = 10.0;
    double noon = midnight + 0.5;
    for (int k = 0; k < 4; ++k) {
        noon = midnight + (720.0 - 4.0 * longitude - sunEquatorial(noon).equationOfTime) / 1440.0;
    }
    const SunDirection d = sunPosition(noon, longitude, 47.0, false);
    const double decl = sunEquatorial(noon).declination;
    EXPECT_NEAR(d.azimuth, 180.0, 1e-6);
    EXPECT_NEAR(d.elevation, 90.0 - (47.0 - decl), 1e-6);
    EXPECT_NEAR(decl, 23.44, 0.01);  // the June solstice
}

// Morning sun rises in the east half of the sky, evening sun sets in the west half, and
// refraction lifts the Sun by about 34 arcminutes at the horizon (NOAA's table).
TEST(SunPosition, MorningEastEveningWestAndRefraction) {
    const double morning = julianDay(2026, 6, 21, 7, 0, 0.0);  // 09:00 at +02:00
    const SunDirection m = sunPosition(morning, 8.0, 47.0);
    EXPECT_GT(m.azimuth, 45.0);
    EXPECT_LT(m.azimuth, 135.0);
    EXPECT_GT(m.elevation, 20.0);
    const SunDirection e = sunPosition(julianDay(2026, 6, 21, 17, 0, 0.0), 8.0, 47.0);
    EXPECT_GT(e.azimuth, 225.0);
    EXPECT_LT(e.azimuth, 315.0);
    EXPECT_NEAR(refraction(0.0), 1735.0 / 3600.0, 1e-12);
    EXPECT_EQ(refraction(89.0), 0.0);
}

TEST(SunPosition, ParsesIsoLocalTimeWithOffset) {
    const Result<UtcInstant> a = parseIsoInstant("2026-06-21T09:00+02:00");
    ASSERT_TRUE(a.ok()) << a.error();
    EXPECT_NEAR(a.value().julianDay(), julianDay(2026, 6, 21, 7, 0, 0.0), 1e-9);
    const Result<UtcInstant> b = parseIsoInstant("1957-10-04T19:26:24Z");
    ASSERT_TRUE(b.ok()) << b.error();
    EXPECT_NEAR(b.value().julianDay(), 2436116.31, 1e-6);
    const Result<UtcInstant> c = parseIsoInstant("2026-01-01T00:30-05:30");
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_NEAR(c.value().julianDay(), julianDay(2026, 1, 1, 6, 0, 0.0), 1e-9);
}

TEST(SunPosition, RejectsMalformedInstants) {
    for (const char* text :
         {"2026-06-21T09:00", "2026-06-21", "2026-13-01T09:00Z", "2026-02-29T09:00Z",
          "2026-06-21T24:00Z", "2026-06-21T09:60Z", "2026-06-21T09:00+2", "2026-06-21T09:00+02:00x",
          "tomorrow", "", "2026-06-21T09:00+15:00"}) {
        const Result<UtcInstant> r = parseIsoInstant(text);
        EXPECT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().find('\n'), std::string::npos);
    }
    EXPECT_TRUE(parseIsoInstant("2024-02-29T09:00:30Z").ok());
}

}  // namespace
}  // namespace qt
