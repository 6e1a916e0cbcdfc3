// The Sun the command line asks for, resolved against a map: --sun over the map's centre,
// directions given, and the one line for --sun on a map without longitude and latitude.
#include "app/sun_option.h"

#include <gtest/gtest.h>

#include "core/terrain/georeference.h"
#include "core/terrain/synthetic.h"

namespace qt {
namespace {

ViewerOptions withArgs(const std::vector<std::string>& args) {
    return parseOptions(args).value();
}

TEST(SunOption, NoneGivenIsTheFixedLight) {
    const Heightmap map = flatHeightmap(9, 9);
    const auto sun = sunForMap(withArgs({}), map, GeoTransform(map));
    ASSERT_TRUE(sun.ok());
    EXPECT_FALSE(sun.value().has_value());
}

TEST(SunOption, DirectionsGivenKeepTheFixedLightsOther) {
    const Heightmap map = flatHeightmap(9, 9);
    const auto a = sunForMap(withArgs({"--sun-azimuth", "90"}), map, GeoTransform(map)).value();
    EXPECT_EQ(a->azimuth, 90.0);
    EXPECT_EQ(a->elevation, kFixedSunElevation);
    const auto e = sunForMap(withArgs({"--sun-elevation", "2"}), map, GeoTransform(map)).value();
    EXPECT_EQ(e->azimuth, kFixedSunAzimuth);
    EXPECT_EQ(e->elevation, 2.0);
}

// The SRTM tile N47E009 spans 47-48 N and 9-10 E: its centre sample lies at 47.5 N, 9.5 E.
TEST(SunOption, DateOverTheMapsCentre) {
    Heightmap map = flatHeightmap(1201, 1201);
    map.geo = hgtGeoreference("N47E009.hgt", 1201);
    ASSERT_TRUE(map.geo.present);
    const ViewerOptions o = withArgs({"--sun", "2026-06-21T09:00+02:00"});
    const auto sun = sunForMap(o, map, GeoTransform(map));
    ASSERT_TRUE(sun.ok()) << sun.error();
    const SunDirection expected = sunPosition(julianDay(2026, 6, 21, 7, 0, 0.0), 9.5, 47.5);
    EXPECT_NEAR(sun.value()->azimuth, expected.azimuth, 1e-6);
    EXPECT_NEAR(sun.value()->elevation, expected.elevation, 1e-6);
}

TEST(SunOption, DateOnAMapWithoutGeoreferenceIsOneLine) {
    const Heightmap map = flatHeightmap(9, 9);
    const auto sun = sunForMap(withArgs({"--sun", "2026-06-21T09:00Z"}), map, GeoTransform(map));
    ASSERT_FALSE(sun.ok());
    EXPECT_EQ(sun.error(),
              "--sun needs a map with a georeference in longitude and latitude; give "
              "--sun-azimuth and --sun-elevation instead");
}

}  // namespace
}  // namespace qt
