// The cursor bar's numbers: grouped fixed decimals, never an exponent; metres and kilometres;
// hemispheres; the measurement's line with the flat map's error.
#include "app/readout_text.h"

#include <gtest/gtest.h>

namespace qt {
namespace {

TEST(ReadoutText, NumbersAreGroupedWithFixedDecimals) {
    EXPECT_EQ(groupedNumber(12345.64, 1), "12,345.6");
    EXPECT_EQ(groupedNumber(-1234567.0, 2), "-1,234,567.00");
    EXPECT_EQ(groupedNumber(999.96, 1), "1,000.0");
    EXPECT_EQ(groupedNumber(5580.0, 0), "5,580");
    EXPECT_EQ(groupedNumber(0.000123, 4), "0.0001");
    EXPECT_EQ(groupedNumber(123.0, 1), "123.0");
    EXPECT_EQ(groupedNumber(1e20, 0), "100,000,000,000,000,000,000");
}

TEST(ReadoutText, LengthsInMetresKilometresOrMapUnits) {
    EXPECT_EQ(lengthText(5580.0, true), "5,580.0 m");
    EXPECT_EQ(lengthText(10000.0, true), "10,000.0 m");
    EXPECT_EQ(lengthText(12345.6, true), "12.35 km");
    EXPECT_EQ(lengthText(-250.25, true), "-250.2 m");
    EXPECT_EQ(lengthText(1234.5, false), "1,234.5 map units");
    EXPECT_EQ(lengthText(0.01234, false), "0.0123 map units");
}

TEST(ReadoutText, LonLatWithHemispheres) {
    EXPECT_EQ(lonLatText(9.612341, 47.512341), "47.51234\u00b0 N, 9.61234\u00b0 E");
    EXPECT_EQ(lonLatText(-71.25, -33.5), "33.50000\u00b0 S, 71.25000\u00b0 W");
    GeoPoint p;
    p.crsX = 512345.678;
    p.crsY = 5262345.671;
    EXPECT_EQ(crsText(p, false), "512,345.68 E, 5,262,345.67 N");
    EXPECT_EQ(crsText(p, true), "512,345.678000, 5,262,345.671000");
}

TEST(ReadoutText, MeasureSaysWhereItMeasuredAndTheFlatMapsError) {
    GroundDistance d;
    d.metres = true;
    d.geodesic = true;
    d.level = 20000.0;
    d.flat = 20160.0;
    d.height = -300.0;
    EXPECT_EQ(measureText(d),
              "measure 20.00 km (level 20.00 km on the WGS 84 ellipsoid, flat map: +0.8%; "
              "height -300.0 m)");
    d.flat = 20010.0;  // 0.05%: not worth saying
    EXPECT_EQ(measureText(d),
              "measure 20.00 km (level 20.00 km on the WGS 84 ellipsoid; height -300.0 m)");
    d.geodesic = false;
    d.level = d.flat = 400.0;
    d.height = 300.0;
    EXPECT_EQ(measureText(d), "measure 500.0 m (level 400.0 m on the map plane; height +300.0 m)");
    d.metres = false;
    EXPECT_EQ(measureText(d),
              "measure 500.0 map units (level 400.0 map units; height +300.0 map units)");
}

}  // namespace
}  // namespace qt
