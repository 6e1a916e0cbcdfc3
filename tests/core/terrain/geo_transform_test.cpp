// World points to CRS coordinates and WGS 84 longitude and latitude: sample centres against
// GDAL's own pixel-to-WGS 84 transformer on geographic, UTM and polar-stereographic rasters
// written here through GDAL's API; SRTM tiles; geodesic distances against published values.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <cpl_string.h>
#include <gdal_alg.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include "core/io/load.h"
#include "core/terrain/geo_transform.h"
#include "core/terrain/georeference.h"
#include "core/terrain/world.h"
#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

// A GeoTIFF of width x height heights (0..) with geotransform t in the CRS of epsg.
void writeGeoTiff(const std::string& path, int width, int height, const std::vector<double>& t,
                  int epsg) {
    GDALAllRegister();
    GDALDriver* driver = GetGDALDriverManager()->GetDriverByName("GTiff");
    ASSERT_NE(driver, nullptr);
    GDALDatasetUniquePtr ds(driver->Create(path.c_str(), width, height, 1, GDT_Int16, nullptr));
    ASSERT_TRUE(ds);
    std::vector<double> transform = t;
    ASSERT_EQ(ds->SetGeoTransform(transform.data()), CE_None);
    OGRSpatialReference srs;
    ASSERT_EQ(srs.importFromEPSG(epsg), OGRERR_NONE);
    srs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    ASSERT_EQ(ds->SetSpatialRef(&srs), CE_None);
    std::vector<int16_t> heights(size_t(width) * size_t(height));
    for (size_t i = 0; i < heights.size(); ++i) {
        heights[i] = int16_t(i % 1000);
    }
    ASSERT_EQ(ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, width, height, heights.data(), width,
                                             height, GDT_Int16, 0, 0, nullptr),
              CE_None);
}

// GDAL's own answer for pixel centres: its generic image-to-SRS transformer (what gdaltransform
// and gdallocationinfo use) from pixel/line to EPSG:4326, longitude first.
class GdalPixelToWgs84 {
public:
    explicit GdalPixelToWgs84(const std::string& path)
        : ds_(GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY)) {
        CPLStringList options;
        options.AddString("DST_SRS=EPSG:4326");
        if (ds_) {
            arg_ = GDALCreateGenImgProjTransformer2(GDALDataset::ToHandle(ds_.get()), nullptr,
                                                    options.List());
        }
    }
    ~GdalPixelToWgs84() {
        if (arg_) {
            GDALDestroyGenImgProjTransformer(arg_);
        }
    }
    bool ok() const { return arg_ != nullptr; }
    // The longitude and latitude of pixel/line coordinates (centres at +0.5).
    bool lonLat(double pixel, double line, double& lon, double& lat) const {
        double z = 0.0;
        int success = 0;
        lon = pixel;
        lat = line;
        return GDALGenImgProjTransform(arg_, FALSE, 1, &lon, &lat, &z, &success) && success;
    }

private:
    GDALDatasetUniquePtr ds_;
    void* arg_ = nullptr;
};

struct Case {
    const char* name;
    int epsg;
    std::vector<double> transform;
    int width;
    int height;
};

// The georeferenced rasters whose sample centres must lie where GDAL says: geographic (north-up
// and south-up), UTM 32N, and polar stereographic north (EPSG:3413) and south (EPSG:3031).
std::vector<Case> cases() {
    const double step = 1.0 / 1200.0;
    return {
        {"geographic", 4326, {9.0, step, 0.0, 47.6, 0.0, -step}, 37, 23},
        {"geographic_south_up", 4326, {-71.3, step, 0.0, -33.2, 0.0, step}, 29, 31},
        {"utm32n", 32632, {500000.0, 30.0, 0.0, 5300000.0, 0.0, -25.0}, 37, 23},
        {"polar_north_3413", 3413, {-200000.0, 500.0, 0.0, -1000000.0, 0.0, -500.0}, 41, 33},
        {"polar_south_3031", 3031, {1500000.0, 250.0, 0.0, 500000.0, 0.0, -250.0}, 33, 41},
    };
}

TEST(GeoTransform, SampleCentresLieWhereGdalPutsPixelCentres) {
    TempDir dir;
    for (const Case& c : cases()) {
        SCOPED_TRACE(c.name);
        const std::string path = dir.path(std::string(c.name) + ".tif");
        writeGeoTiff(path, c.width, c.height, c.transform, c.epsg);
        const Result<Heightmap> map = loadHeightmap(path);
        ASSERT_TRUE(map.ok()) << map.error();
        const GeoTransform geo(map.value());
        ASSERT_TRUE(geo.present());
        ASSERT_TRUE(geo.hasLonLat());
        EXPECT_TRUE(geo.metres());
        const WorldMapping mapping = defaultMapping(map.value());
        const GdalPixelToWgs84 gdal(path);
        ASSERT_TRUE(gdal.ok());
        const double* t = c.transform.data();
        const double unit = std::fabs(t[1]);
        for (int row = 0; row < c.height; row += 5) {
            for (int col = 0; col < c.width; col += 6) {
                const std::optional<GeoPoint> p =
                    geo.at(col * double(mapping.spacingX), row * double(mapping.spacingZ), mapping);
                ASSERT_TRUE(p && p->hasLonLat);
                // The geotransform's pixel centre in the CRS.
                EXPECT_NEAR(p->crsX, t[0] + (col + 0.5) * t[1], 1e-6 * unit) << col << "," << row;
                EXPECT_NEAR(p->crsY, t[3] + (row + 0.5) * t[5], 1e-6 * unit) << col << "," << row;
                double lon = 0.0;
                double lat = 0.0;
                ASSERT_TRUE(gdal.lonLat(col + 0.5, row + 0.5, lon, lat));
                EXPECT_NEAR(p->lon, lon, 1e-7) << col << "," << row;
                EXPECT_NEAR(p->lat, lat, 1e-7) << col << "," << row;
            }
        }
    }
}

TEST(GeoTransform, UtmAndPolarPointsLieWherePublishedCoordinatesPutThem) {
    // Independent anchors: UTM 32N's central meridian is 9 E (easting 500,000 m); EPSG:3413's
    // origin is the north pole, EPSG:3031's the south pole.
    TempDir dir;
    struct Anchor {
        int epsg;
        double x, y;
        double lon, lat;  // where (x, y) lies; lon ignored at a pole
    };
    for (const Anchor& a : {Anchor{32632, 500000.0, 0.0, 9.0, 0.0}, Anchor{3413, 0.0, 0.0, 0, 90},
                            Anchor{3031, 0.0, 0.0, 0, -90}}) {
        SCOPED_TRACE(a.epsg);
        // One pixel of 2 units centred on (x, y).
        const std::string path = dir.path("a" + std::to_string(a.epsg) + ".tif");
        writeGeoTiff(path, 3, 3, {a.x - 3.0, 2.0, 0.0, a.y + 3.0, 0.0, -2.0}, a.epsg);
        const Result<Heightmap> map = loadHeightmap(path);
        ASSERT_TRUE(map.ok()) << map.error();
        const GeoTransform geo(map.value());
        const WorldMapping mapping = defaultMapping(map.value());
        const std::optional<GeoPoint> p =
            geo.at(double(mapping.spacingX), double(mapping.spacingZ), mapping);  // sample (1, 1)
        ASSERT_TRUE(p && p->hasLonLat);
        EXPECT_NEAR(p->crsX, a.x, 1e-9);
        EXPECT_NEAR(p->crsY, a.y, 1e-9);
        EXPECT_NEAR(p->lat, a.lat, 1e-9);
        if (std::fabs(a.lat) < 90.0) {
            EXPECT_NEAR(p->lon, a.lon, 1e-9);
        }
    }
}

TEST(GeoTransform, SrtmTileCornersAreItsEdgeSamples) {
    Heightmap map;
    map.width = map.height = 1201;
    map.metres = true;
    map.geo = hgtGeoreference("N47E009.hgt", 1201);
    const GeoTransform geo(map);
    ASSERT_TRUE(geo.hasLonLat());
    EXPECT_TRUE(geo.metres());
    const WorldMapping mapping(90.0f, 1.0f, 0.0f);
    const std::optional<GeoPoint> nw = geo.at(0.0, 0.0, mapping);
    const std::optional<GeoPoint> se = geo.at(1200.0 * 90.0, 1200.0 * 90.0, mapping);
    const std::optional<GeoPoint> mid = geo.at(600.0 * 90.0, 300.0 * 90.0, mapping);
    ASSERT_TRUE(nw && se && mid);
    EXPECT_NEAR(nw->lon, 9.0, 1e-9);
    EXPECT_NEAR(nw->lat, 48.0, 1e-9);
    EXPECT_NEAR(se->lon, 10.0, 1e-9);
    EXPECT_NEAR(se->lat, 47.0, 1e-9);
    EXPECT_NEAR(mid->lon, 9.5, 1e-9);
    EXPECT_NEAR(mid->lat, 47.75, 1e-9);
    EXPECT_NEAR(mid->crsX, 9.5, 1e-9);  // a geographic CRS: its coordinates are lon, lat
    EXPECT_NEAR(mid->crsY, 47.75, 1e-9);
}

TEST(GeoTransform, WithoutCrsOnlyTheCornersCoordinatesAndNoMetres) {
    Heightmap map;  // an .asc without its .prj: corners, no CRS
    map.width = 11;
    map.height = 6;
    map.metres = true;
    map.geo.present = true;
    map.geo.west = 1000.0;
    map.geo.east = 1110.0;
    map.geo.north = 2060.0;
    map.geo.south = 2000.0;
    map.geo.metresX = map.geo.metresZ = 10.0;
    const GeoTransform geo(map);
    EXPECT_TRUE(geo.present());
    EXPECT_FALSE(geo.hasLonLat());
    EXPECT_FALSE(geo.metres());
    const std::optional<GeoPoint> p = geo.at(20.0, 10.0, WorldMapping(10.0f, 1.0f, 0.0f));
    ASSERT_TRUE(p);
    EXPECT_FALSE(p->hasLonLat);
    EXPECT_DOUBLE_EQ(p->crsX, 1025.0);
    EXPECT_DOUBLE_EQ(p->crsY, 2045.0);
    EXPECT_FALSE(GeoTransform(Heightmap{}).at(0.0, 0.0, WorldMapping{}));
}

TEST(GeoTransform, GeodesicDistancesEqualPublishedValues) {
    // GeographicLib's GeodSolve example, JFK to LHR (Karney 2013): 5,551,759.400 m.
    EXPECT_NEAR(geodesicMetres(-73.8, 40.6, -0.5, 51.6), 5551759.400, 0.001);
    // Vincenty's (1975) Flinders Peak to Buninyong on GRS 80 (the same to 0.1 mm for WGS 84):
    // 54,972.271 m.
    auto dms = [](double d, double m, double s) { return d + m / 60.0 + s / 3600.0; };
    EXPECT_NEAR(geodesicMetres(dms(144, 25, 29.52440), -dms(37, 57, 3.72030),
                               dms(143, 55, 35.38390), -dms(37, 39, 10.15610)),
                54972.271, 0.001);
    // A quarter meridian: 10,001,965.729 m on WGS 84.
    EXPECT_NEAR(geodesicMetres(0.0, 0.0, 0.0, 90.0), 10001965.729, 0.001);
    // Nearly antipodal points, where Vincenty's method fails: half the equator's meridian
    // distance between the poles the long way, 20,003,931.459 m (two quarter meridians).
    EXPECT_NEAR(geodesicMetres(0.0, 90.0, 180.0, -90.0), 2.0 * 10001965.729, 0.002);
}

TEST(GeoTransform, GroundDistanceIsGeodesicOnGeographicMapsAndPlanarOnProjected) {
    TempDir dir;
    const double step = 1.0 / 120.0;  // 30 arc-seconds
    writeGeoTiff(dir.path("g.tif"), 241, 121, {-10.0, step, 0.0, 66.0, 0.0, -step}, 4326);
    writeGeoTiff(dir.path("p.tif"), 50, 40, {500000.0, 30.0, 0.0, 5300000.0, 0.0, -25.0}, 32632);
    const Result<Heightmap> g = loadHeightmap(dir.path("g.tif"));
    const Result<Heightmap> p = loadHeightmap(dir.path("p.tif"));
    ASSERT_TRUE(g.ok() && p.ok());
    {
        const GeoTransform geo(g.value());
        WorldMapping mapping = defaultMapping(g.value());
        mapping.heightScale = 2.0f;  // an exaggeration: heights still read in metres
        // Samples (0, 0) to (240, 0): 2 degrees east along 66 N, spaced on the map for the
        // middle latitude, 65.5 N.
        const glm::vec3 a(0.0f, 100.0f, 0.0f);
        const glm::vec3 b(240.0f * mapping.spacingX, 300.0f, 0.0f);
        const GroundDistance d = groundDistance(geo, mapping, a, b);
        EXPECT_TRUE(d.metres && d.geodesic);
        const std::optional<GeoPoint> pa = geo.at(a.x, a.z, mapping);
        const std::optional<GeoPoint> pb = geo.at(b.x, b.z, mapping);
        ASSERT_TRUE(pa && pb);
        EXPECT_NEAR(d.level, geodesicMetres(pa->lon, pa->lat, pb->lon, pb->lat), 1e-6);
        EXPECT_NEAR(d.height, 100.0, 1e-4);
        // The flat map's columns are wider than 66 N's: about 2% long (cos 65.5 / cos 66).
        EXPECT_GT(d.flatError(), 0.015);
        EXPECT_LT(d.flatError(), 0.025);
    }
    {
        const GeoTransform geo(p.value());
        const WorldMapping mapping = defaultMapping(p.value());
        const GroundDistance d = groundDistance(geo, mapping, glm::vec3(0.0f),
                                                glm::vec3(3.0f * 30.0f, 0.0f, 4.0f * 25.0f));
        EXPECT_TRUE(d.metres);
        EXPECT_FALSE(d.geodesic);
        EXPECT_NEAR(d.level, std::hypot(90.0, 100.0), 1e-3);
        EXPECT_EQ(d.flatError(), 0.0);
    }
}

}  // namespace
}  // namespace qt
