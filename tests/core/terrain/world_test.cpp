// checkWorldFinite's line names what set the value at fault: the option given, or the map whose
// georeference gave the spacing (its metres shown as the file has them, where a float would be 0
// or infinite).
#include <gtest/gtest.h>

#include <vector>

#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"

namespace qt {
namespace {

Heightmap georeferenced(double metres) {
    Heightmap map = makeHeightmap(33, 33, std::vector<float>(33 * 33, 100.0f)).value();
    map.geo.present = true;
    map.geo.metresX = map.geo.metresZ = metres;
    map.metres = true;
    return map;
}

MappingOrigin fromTheMap() {
    MappingOrigin origin;
    origin.mapName = "m.tif";
    origin.spacingGiven = false;
    origin.heightScaleGiven = false;
    return origin;
}

TEST(WorldMapping, GeoreferencedSpacingNamesTheMap) {
    const Heightmap tiny = georeferenced(1e-300);
    EXPECT_EQ(checkWorldFinite(tiny, defaultMapping(tiny), fromTheMap()).error(),
              "m.tif: its georeference spaces samples 1e-300 metres apart, below the least "
              "spacing of 1e-06; give one with --spacing");
    const Heightmap vast = georeferenced(1e300);
    EXPECT_EQ(checkWorldFinite(vast, defaultMapping(vast), fromTheMap()).error(),
              "m.tif: its georeference spaces samples 1e+300 metres apart, making the map "
              "3.2e+301 world units wide, over the limit of 1e+09; give a spacing with "
              "--spacing");
    // --spacing given: the option's value is what counts.
    MappingOrigin given = fromTheMap();
    given.spacingGiven = true;
    WorldMapping mapping = defaultMapping(tiny);
    mapping.spacingX = mapping.spacingZ = 1.0f;
    EXPECT_TRUE(checkWorldFinite(tiny, mapping, given).ok());
    mapping.spacingX = mapping.spacingZ = 1e-9f;
    EXPECT_EQ(checkWorldFinite(tiny, mapping, given).error(),
              "--spacing 1e-09 is below the least spacing of 1e-06");
    // The defaults name the option, as for a map without a georeference.
    EXPECT_EQ(checkWorldFinite(vast, mapping).error(),
              "--spacing 1e-09 is below the least spacing of 1e-06");
}

TEST(WorldMapping, HeightScaleNamesExaggeration) {
    const Heightmap map = makeHeightmap(2, 2, {0.0f, 10.0f, 20.0f, 40.0f}).value();
    WorldMapping mapping;
    mapping.heightScale = 1e30f;
    MappingOrigin origin = fromTheMap();
    origin.exaggeration = 1e30f;
    EXPECT_EQ(checkWorldFinite(map, mapping, origin).error(),
              "--exaggeration 1e+30 makes heights reach 4e+31 world units, over the limit of "
              "1e+09");
    origin.heightScaleGiven = true;
    mapping.heightScale = 2e30f;
    EXPECT_EQ(checkWorldFinite(map, mapping, origin).error(),
              "--height-scale 2 with --exaggeration 1e+30 makes heights reach 8e+31 world units, "
              "over the limit of 1e+09");
    origin.exaggeration = 1.0f;
    EXPECT_EQ(checkWorldFinite(map, mapping, origin).error(),
              "--height-scale 2e+30 makes heights reach 8e+31 world units, over the limit of "
              "1e+09");
    origin.heightScaleGiven = false;
    EXPECT_EQ(checkWorldFinite(map, mapping, origin).error(),
              "m.tif: its height scale 2e+30 makes heights reach 8e+31 world units, over the "
              "limit of 1e+09");
}

}  // namespace
}  // namespace qt
