// Imagery over a map: rasters written here through GDAL's API whose colours encode where they
// lie, loaded over 65 x 65 maps and checked texel by texel; every band layout; the limits; the
// bad inputs that must give one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cpl_conv.h>
#include <cpl_string.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include "core/io/imagery.h"
#include "test_files.h"
#include "test_rasters.h"

namespace qt {
namespace {

using test::TempDir;

constexpr int kMap = 65;           // the maps' side in samples
constexpr double kSpacing = 30.0;  // metres between the UTM maps' samples
constexpr double kWest = 500000.0;
constexpr double kNorth = 5300000.0;

// A test raster (test_rasters.h), three bytes a sample unless a test says otherwise, and its
// samples band after band, row by row.
struct RasterSpec : test::GdalRaster {
    RasterSpec() {
        bands = 3;
        type = GDT_Byte;
    }
    std::vector<double> samples;
};

void writeRaster(const std::string& path, const char* driver, const RasterSpec& spec,
                 const std::vector<std::string>& options = {}) {
    ASSERT_EQ(spec.samples.size(), size_t(spec.width) * size_t(spec.height) * size_t(spec.bands));
    test::writeGdalRaster(path, driver, spec, spec.samples, options);
}

std::string wktOf(int epsg) {
    OGRSpatialReference srs;
    srs.importFromEPSG(epsg);
    char* wkt = nullptr;
    const char* const options[] = {"FORMAT=WKT2", nullptr};
    srs.exportToWkt(&wkt, options);
    std::string out = wkt ? wkt : "";
    CPLFree(wkt);
    return out;
}

// A 65 x 65 map of 30 m samples in UTM zone 32N, its cells' corner at (kWest, kNorth).
Georeference utmMap() {
    Georeference geo;
    geo.present = true;
    geo.crsName = "WGS 84 / UTM zone 32N";
    geo.crsWkt = wktOf(32632);
    geo.west = kWest;
    geo.east = kWest + kMap * kSpacing;
    geo.north = kNorth;
    geo.south = kNorth - kMap * kSpacing;
    geo.metresX = kSpacing;
    geo.metresZ = kSpacing;
    return geo;
}

// The colour of pixel (j, k) of a coordinate image: its column and row, low bytes in red and
// green, high bits in blue.
uint8_t coordinateColour(int j, int k, int channel) {
    switch (channel) {
        case 0:
            return uint8_t(j & 255);
        case 1:
            return uint8_t(k & 255);
        default:
            return uint8_t((j >> 8) | ((k >> 8) << 4));
    }
}

// An RGB image of width x height pixels of pixelSize metres in UTM 32N from (west, north),
// each pixel's colour its coordinates.
RasterSpec coordinateImage(int width, int height, double west, double north, double pixelSize) {
    RasterSpec spec;
    spec.width = width;
    spec.height = height;
    spec.transform = {west, pixelSize, 0.0, north, 0.0, -pixelSize};
    spec.epsg = 32632;
    spec.samples.resize(size_t(width) * height * 3);
    for (int c = 0; c < 3; ++c) {
        for (int k = 0; k < height; ++k) {
            for (int j = 0; j < width; ++j) {
                spec.samples[(size_t(c) * height + k) * width + j] = coordinateColour(j, k, c);
            }
        }
    }
    return spec;
}

const uint8_t* texel(const Imagery& im, int i, int t) {
    return im.rgba.data() + (size_t(t) * im.width + i) * 4;
}

// Every texel equals the coordinate image's pixel at(i, t) within one step of rounding.
template <class At>
void expectCoordinateTexels(const Imagery& im, At at) {
    int bad = 0;
    for (int t = 0; t < im.height; ++t) {
        for (int i = 0; i < im.width; ++i) {
            const auto [j, k] = at(i, t);
            const uint8_t* p = texel(im, i, t);
            for (int c = 0; c < 3; ++c) {
                if (std::abs(int(p[c]) - int(coordinateColour(j, k, c))) > 1 && ++bad < 5) {
                    ADD_FAILURE() << "texel " << i << "," << t << " channel " << c << " is "
                                  << int(p[c]) << ", pixel " << j << "," << k << " is "
                                  << int(coordinateColour(j, k, c));
                }
            }
            if (p[3] != 255 && ++bad < 5) {
                ADD_FAILURE() << "texel " << i << "," << t << " alpha " << int(p[3]);
            }
        }
    }
    EXPECT_EQ(bad, 0);
}

bool anyWarningHas(const Imagery& im, const std::string& text) {
    for (const std::string& w : im.warnings) {
        if (w.find(text) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string warningsOf(const Imagery& im) {
    std::string out;
    for (const std::string& w : im.warnings) {
        out += w + "\n";
    }
    return out;
}

// The map's cells at four pixels a cell: the texture spans the samples' centres, so texel i
// is pixel i + 2.
TEST(ImageryWarp, SameCrsAtFourTimesTheDensityIsExact) {
    TempDir dir;
    const std::string path = dir.path("ortho.tif");
    writeRaster(path, "GTiff", coordinateImage(4 * kMap, 4 * kMap, kWest, kNorth, kSpacing / 4));
    const Result<Imagery> im = loadImagery(path, kMap, kMap, utmMap());
    ASSERT_TRUE(im.ok()) << im.error();
    EXPECT_EQ(im.value().width, 256);
    EXPECT_EQ(im.value().height, 256);
    EXPECT_TRUE(im.value().warnings.empty()) << warningsOf(im.value());
    const ImageryInfo& info = im.value().info;
    EXPECT_TRUE(info.georeferenced);
    EXPECT_EQ(info.sourceWidth, 260);
    EXPECT_EQ(info.bands, 3);
    EXPECT_EQ(info.type, "Byte");
    EXPECT_NE(info.crsName.find("UTM zone 32N"), std::string::npos) << info.crsName;
    EXPECT_DOUBLE_EQ(info.texelsPerSampleX, 4.0);
    EXPECT_DOUBLE_EQ(info.texelsPerSampleY, 4.0);
    EXPECT_NEAR(info.nativeTexelsPerSampleX, 4.0, 1e-6);
    EXPECT_DOUBLE_EQ(info.coverage, 1.0);
    expectCoordinateTexels(im.value(), [](int i, int t) { return std::pair(i + 2, t + 2); });
}

// Texel row 0 is map row 0 whichever way the map's rows and columns run.
TEST(ImageryWarp, RowsNorthAndColumnsWestMapsKeepTexelZeroAtSampleZero) {
    TempDir dir;
    const std::string path = dir.path("ortho.tif");
    writeRaster(path, "GTiff", coordinateImage(4 * kMap, 4 * kMap, kWest, kNorth, kSpacing / 4));
    Georeference geo = utmMap();
    geo.rowsNorth = true;
    Result<Imagery> im = loadImagery(path, kMap, kMap, geo);
    ASSERT_TRUE(im.ok()) << im.error();
    expectCoordinateTexels(im.value(), [](int i, int t) { return std::pair(i + 2, 257 - t); });
    geo.rowsNorth = false;
    geo.columnsWest = true;
    im = loadImagery(path, kMap, kMap, geo);
    ASSERT_TRUE(im.ok()) << im.error();
    expectCoordinateTexels(im.value(), [](int i, int t) { return std::pair(257 - i, t + 2); });
}

// A UTM image over a geographic map: at a few texels the colour is that of the UTM point the
// texel's longitude and latitude transform to.
TEST(ImageryWarp, UtmImageOverGeographicMapLandsWhereItsCoordinatesSay) {
    TempDir dir;
    Georeference geo;
    geo.present = true;
    geo.geographic = true;  // WGS 84, no WKT: as an SRTM tile
    geo.west = 9.0;
    geo.east = 9.1;
    geo.south = 47.0;
    geo.north = 47.1;
    OGRSpatialReference wgs84, utm;
    wgs84.importFromEPSG(4326);
    wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    utm.importFromEPSG(32632);
    utm.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    std::unique_ptr<OGRCoordinateTransformation> toUtm(
        OGRCreateCoordinateTransformation(&wgs84, &utm));
    ASSERT_TRUE(toUtm);
    // The image: 30 m pixels over the map's corners and 300 m more, red with easting and green
    // with northing.
    double xs[4] = {geo.west, geo.east, geo.west, geo.east};
    double ys[4] = {geo.south, geo.south, geo.north, geo.north};
    ASSERT_TRUE(toUtm->Transform(4, xs, ys));
    const double e0 = std::floor(*std::min_element(xs, xs + 4) - 300.0);
    const double n0 = std::ceil(*std::max_element(ys, ys + 4) + 300.0);
    const double pixel = 30.0;
    const int width = int(std::ceil((*std::max_element(xs, xs + 4) + 300.0 - e0) / pixel));
    const int height = int(std::ceil((n0 - *std::min_element(ys, ys + 4) + 300.0) / pixel));
    RasterSpec spec;
    spec.width = width;
    spec.height = height;
    spec.transform = {e0, pixel, 0.0, n0, 0.0, -pixel};
    spec.epsg = 32632;
    spec.samples.resize(size_t(width) * height * 3);
    for (int k = 0; k < height; ++k) {
        for (int j = 0; j < width; ++j) {
            const size_t p = size_t(k) * width + j;
            spec.samples[p] = std::round(255.0 * (j + 0.5) / width);
            spec.samples[size_t(width) * height + p] = std::round(255.0 * (k + 0.5) / height);
            spec.samples[2 * size_t(width) * height + p] = 128.0;
        }
    }
    const std::string path = dir.path("utm.tif");
    writeRaster(path, "GTiff", spec);
    const Result<Imagery> im = loadImagery(path, kMap, kMap, geo);
    ASSERT_TRUE(im.ok()) << im.error();
    const Imagery& out = im.value();
    EXPECT_TRUE(out.info.georeferenced);
    EXPECT_DOUBLE_EQ(out.info.coverage, 1.0);
    EXPECT_GT(out.width, 100);
    for (const auto& [fi, ft] : std::vector<std::pair<double, double>>{
             {0.5, 0.5}, {0.1, 0.2}, {0.9, 0.1}, {0.25, 0.85}, {0.75, 0.6}}) {
        const int i = int(fi * out.width);
        const int t = int(ft * out.height);
        // The texel's centre in map samples, then in degrees (row 0 at the north).
        const double column = (i + 0.5) * (kMap - 1) / out.width;
        const double row = (t + 0.5) * (kMap - 1) / out.height;
        double x = geo.west + (column + 0.5) * (geo.east - geo.west) / kMap;
        double y = geo.north - (row + 0.5) * (geo.north - geo.south) / kMap;
        ASSERT_TRUE(toUtm->Transform(1, &x, &y));
        const double red = 255.0 * ((x - e0) / pixel) / width;
        const double green = 255.0 * ((n0 - y) / pixel) / height;
        const uint8_t* p = texel(out, i, t);
        EXPECT_NEAR(p[0], red, 2.0) << i << "," << t;
        EXPECT_NEAR(p[1], green, 2.0) << i << "," << t;
        EXPECT_NEAR(p[2], 128, 1) << i << "," << t;
        EXPECT_EQ(p[3], 255) << i << "," << t;
    }
}

// Imagery over the map's west half: transparent over the east half.
TEST(ImageryWarp, PartialCoverageIsTransparentOutside) {
    TempDir dir;
    const std::string path = dir.path("half.tif");
    writeRaster(path, "GTiff", coordinateImage(2 * kMap, 4 * kMap, kWest, kNorth, kSpacing / 4));
    const Result<Imagery> im = loadImagery(path, kMap, kMap, utmMap());
    ASSERT_TRUE(im.ok()) << im.error();
    const Imagery& out = im.value();
    ASSERT_EQ(out.width, 256);
    // The image ends at x = kWest + 130 * 7.5 m: texel i + 2 pixels in, so texels < 128 inside.
    for (int t = 0; t < out.height; t += 17) {
        for (int i = 0; i < 126; i += 5) {
            EXPECT_EQ(texel(out, i, t)[3], 255) << i << "," << t;
        }
        for (int i = 130; i < out.width; i += 5) {
            EXPECT_EQ(texel(out, i, t)[3], 0) << i << "," << t;
        }
    }
    EXPECT_NEAR(out.info.coverage, 0.5, 0.02);
}

// Pixels whose first band is its nodata value are transparent; their neighbours are not.
TEST(ImageryWarp, NodataIsTransparent) {
    TempDir dir;
    RasterSpec spec = coordinateImage(4 * kMap, 4 * kMap, kWest, kNorth, kSpacing / 4);
    spec.hasNodata = true;
    spec.nodata = 0.0;  // red 0: pixel columns 0 and 256, texel column 254
    const std::string path = dir.path("nodata.tif");
    writeRaster(path, "GTiff", spec);
    const Result<Imagery> im = loadImagery(path, kMap, kMap, utmMap());
    ASSERT_TRUE(im.ok()) << im.error();
    const Imagery& out = im.value();
    ASSERT_EQ(out.width, 256);
    for (int t = 0; t < out.height; ++t) {
        EXPECT_EQ(texel(out, 254, t)[3], 0) << t;
        EXPECT_EQ(texel(out, 100, t)[3], 255) << t;
    }
    EXPECT_LT(out.info.coverage, 1.0);
    EXPECT_GT(out.info.coverage, 0.98);
}

// `spec` as a GeoTIFF twice: at `with` with averaged overviews of `levels`, at `without` without.
void writeWithAndWithoutOverviews(const RasterSpec& spec, const std::string& with,
                                  const std::string& without, std::vector<int> levels) {
    writeRaster(with, "GTiff", spec);
    writeRaster(without, "GTiff", spec);
    GDALDatasetUniquePtr ds(GDALDataset::Open(with.c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE));
    ASSERT_TRUE(ds);
    ASSERT_EQ(GDALBuildOverviews(GDALDataset::ToHandle(ds.get()), "AVERAGE", int(levels.size()),
                                 levels.data(), 0, nullptr, nullptr, nullptr),
              CE_None);
}

// A source bigger than a load may read is read from the overview the texture needs, and
// refused, asking for overviews, when it has none.
TEST(ImageryWarp, OverviewsAreReadWhenTheFullRasterIsTooBig) {
    TempDir dir;
    const std::string with = dir.path("with.tif");
    const std::string without = dir.path("without.tif");
    writeWithAndWithoutOverviews(coordinateImage(4 * kMap, 4 * kMap, kWest, kNorth, kSpacing / 4),
                                 with, without, {2, 4});
    ImageryLimits limits;
    limits.maxSide = 64;          // 260 / 64 source pixels a texel: the 4x overview (65 x 65)
    limits.maxReadPixels = 5000;  // less than the full 260 x 260
    const Result<Imagery> read = loadImagery(with, kMap, kMap, utmMap(), limits);
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_EQ(read.value().width, 64);
    EXPECT_DOUBLE_EQ(read.value().info.coverage, 1.0);
    EXPECT_EQ(read.value().info.sourceWidth, 260);
    const Result<Imagery> refused = loadImagery(without, kMap, kMap, utmMap(), limits);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("gdaladdo"), std::string::npos) << refused.error();
}

TEST(ImageryWarp, ImageryOffTheMapIsAWarningNotAFailure) {
    TempDir dir;
    const std::string path = dir.path("away.tif");
    writeRaster(path, "GTiff",
                coordinateImage(64, 64, kWest + 100000.0, kNorth + 100000.0, kSpacing));
    const Result<Imagery> im = loadImagery(path, kMap, kMap, utmMap());
    ASSERT_TRUE(im.ok()) << im.error();
    EXPECT_EQ(im.value().info.coverage, 0.0);
    EXPECT_TRUE(anyWarningHas(im.value(), "covers none of the map")) << warningsOf(im.value());
    EXPECT_EQ(im.value().width, 1);
    EXPECT_EQ(im.value().rgba, std::vector<uint8_t>(4, 0));
}

// An RGB PNG as large as the map: texel for pixel, nothing resampled.
TEST(ImageryPlain, PngOfTheMapsSizeIsCopiedPixelForPixel) {
    TempDir dir;
    RasterSpec spec = coordinateImage(kMap, 48, 0.0, 0.0, 1.0);
    spec.transform.clear();
    spec.epsg = 0;
    for (double& s : spec.samples) {
        s = double((int(s) * 7 + 3) % 256);  // not a smooth ramp: any resampling shows
    }
    const std::string path = dir.path("diffuse.png");
    writeRaster(path, "PNG", spec);
    const Result<Imagery> im = loadImagery(path, kMap, 48, Georeference{});
    ASSERT_TRUE(im.ok()) << im.error();
    const Imagery& out = im.value();
    ASSERT_EQ(out.width, kMap);
    ASSERT_EQ(out.height, 48);
    EXPECT_TRUE(out.warnings.empty()) << warningsOf(out);
    EXPECT_FALSE(out.info.georeferenced);
    EXPECT_DOUBLE_EQ(out.info.coverage, 1.0);
    const size_t plane = size_t(kMap) * 48;
    for (size_t p = 0; p < plane; ++p) {
        for (int c = 0; c < 3; ++c) {
            ASSERT_EQ(out.rgba[p * 4 + c], uint8_t(spec.samples[c * plane + p])) << p;
        }
        ASSERT_EQ(out.rgba[p * 4 + 3], 255);
    }
}

// An image too dense for the limits is averaged down by GDAL: 2 x 2 blocks of one colour
// become that colour.
TEST(ImageryPlain, ImageShrunkToTheLimitsIsAveraged) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 2 * kMap;
    spec.height = 2 * kMap;
    const size_t plane = size_t(spec.width) * spec.height;
    spec.samples.resize(plane * 3);
    for (int c = 0; c < 3; ++c) {
        for (int k = 0; k < spec.height; ++k) {
            for (int j = 0; j < spec.width; ++j) {
                spec.samples[c * plane + size_t(k) * spec.width + j] =
                    coordinateColour(j / 2 * 3, k / 2 * 3, c);
            }
        }
    }
    const std::string path = dir.path("dense.png");
    writeRaster(path, "PNG", spec);
    ImageryLimits limits;
    limits.maxSide = kMap;
    const Result<Imagery> im = loadImagery(path, kMap, kMap, Georeference{}, limits);
    ASSERT_TRUE(im.ok()) << im.error();
    ASSERT_EQ(im.value().width, kMap);
    EXPECT_TRUE(anyWarningHas(im.value(), "lowered")) << warningsOf(im.value());
    int bad = 0;
    for (int t = 0; t < kMap; ++t) {
        for (int i = 0; i < kMap; ++i) {
            for (int c = 0; c < 3; ++c) {
                bad += texel(im.value(), i, t)[c] != coordinateColour(i * 3, t * 3, c);
            }
        }
    }
    EXPECT_EQ(bad, 0);
}

// Averaging down weighs colours by their alpha: a transparent pixel's colour does not bleed in.
TEST(ImageryPlain, ShrinkingWeighsColoursByAlpha) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 4;
    spec.height = 2;
    spec.bands = 4;
    // Opaque red on the left half, transparent blue on the right.
    spec.samples = {255, 255, 0,   0,   255, 255, 0,   0,   0,   0,   0, 0, 0,   0,   0, 0,
                    0,   0,   255, 255, 0,   0,   255, 255, 255, 255, 0, 0, 255, 255, 0, 0};
    writeRaster(dir.path("a.png"), "PNG", spec);
    ImageryLimits limits;
    limits.maxSide = 1;
    const Result<Imagery> im = loadImagery(dir.path("a.png"), kMap, kMap, Georeference{}, limits);
    ASSERT_TRUE(im.ok()) << im.error();
    const uint8_t* p = texel(im.value(), 0, 0);
    EXPECT_EQ(p[0], 255);
    EXPECT_EQ(p[1], 0);
    EXPECT_EQ(p[2], 0);
    EXPECT_NEAR(p[3], 128, 1);
}

TEST(ImageryPlain, PlainImageOverAGeoreferencedMapIsStretchedWithAWarning) {
    TempDir dir;
    RasterSpec spec = coordinateImage(20, 10, 0.0, 0.0, 1.0);
    spec.transform.clear();
    spec.epsg = 0;
    const std::string path = dir.path("plain.png");
    writeRaster(path, "PNG", spec);
    const Result<Imagery> im = loadImagery(path, kMap, kMap, utmMap());
    ASSERT_TRUE(im.ok()) << im.error();
    EXPECT_EQ(im.value().width, 20);
    EXPECT_EQ(im.value().height, 10);
    EXPECT_TRUE(anyWarningHas(im.value(), "no georeference")) << warningsOf(im.value());
    EXPECT_DOUBLE_EQ(im.value().info.coverage, 1.0);
}

TEST(ImageryPlain, GeoreferencedImageOverAPlainMapIsStretchedWithAWarning) {
    TempDir dir;
    const std::string path = dir.path("geo.tif");
    writeRaster(path, "GTiff", coordinateImage(30, 20, kWest, kNorth, kSpacing));
    const Result<Imagery> im = loadImagery(path, kMap, kMap, Georeference{});
    ASSERT_TRUE(im.ok()) << im.error();
    EXPECT_EQ(im.value().width, 30);
    EXPECT_FALSE(im.value().info.georeferenced);
    EXPECT_TRUE(anyWarningHas(im.value(), "could not be placed")) << warningsOf(im.value());
    expectCoordinateTexels(im.value(), [](int i, int t) { return std::pair(i, t); });
}

TEST(ImageryBands, PaletteIsExpandedToRgbaWithItsTransparentEntry) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 16;
    spec.height = 8;
    spec.bands = 1;
    spec.palette = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {9, 9, 9, 0}};
    for (int k = 0; k < spec.height; ++k) {
        for (int j = 0; j < spec.width; ++j) {
            spec.samples.push_back((j + k) % 4);
        }
    }
    const std::string path = dir.path("palette.png");
    writeRaster(path, "PNG", spec);
    const Result<Imagery> im = loadImagery(path, kMap, kMap, Georeference{});
    ASSERT_TRUE(im.ok()) << im.error();
    const Imagery& out = im.value();
    ASSERT_EQ(out.width, 16);
    EXPECT_EQ(out.info.bands, 1);
    for (int k = 0; k < spec.height; ++k) {
        for (int j = 0; j < spec.width; ++j) {
            const GDALColorEntry& e = spec.palette[size_t((j + k) % 4)];
            const uint8_t* p = texel(out, j, k);
            EXPECT_EQ(p[3], e.c4) << j << "," << k;
            if (e.c4 != 0) {
                EXPECT_EQ(p[0], e.c1);
                EXPECT_EQ(p[1], e.c2);
                EXPECT_EQ(p[2], e.c3);
            }
        }
    }
    EXPECT_DOUBLE_EQ(out.info.coverage, 0.75);
}

TEST(ImageryBands, SixteenBitIsStretchedByItsLargestSampleWithAWarning) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 40;
    spec.height = 30;
    spec.type = GDT_UInt16;
    const size_t plane = size_t(spec.width) * spec.height;
    for (int c = 0; c < 3; ++c) {
        for (size_t p = 0; p < plane; ++p) {
            spec.samples.push_back(double((p * 97 + size_t(c) * 1000) % 4001));
        }
    }
    spec.samples[plane + 5] = 4000.0;  // the largest, in green
    const std::string path = dir.path("rgb16.tif");
    writeRaster(path, "GTiff", spec);
    const Result<Imagery> im = loadImagery(path, kMap, kMap, Georeference{});
    ASSERT_TRUE(im.ok()) << im.error();
    const Imagery& out = im.value();
    EXPECT_EQ(out.info.type, "UInt16");
    EXPECT_TRUE(anyWarningHas(out, "16-bit")) << warningsOf(out);
    EXPECT_TRUE(anyWarningHas(out, "4000")) << warningsOf(out);
    for (size_t p = 0; p < plane; ++p) {
        for (int c = 0; c < 3; ++c) {
            ASSERT_NEAR(out.rgba[p * 4 + c], spec.samples[c * plane + p] * 255.0 / 4000.0, 1.0)
                << p;
        }
        ASSERT_EQ(out.rgba[p * 4 + 3], 255);
    }
}

// 16-bit RGBA: the colour stretched by the colour bands' largest sample, the alpha by 65535.
TEST(ImageryBands, SixteenBitAlphaIsScaledByItsFullRange) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 3;
    spec.height = 1;
    spec.bands = 4;
    spec.type = GDT_UInt16;
    spec.samples = {1000, 500, 0, 1000, 500, 0, 1000, 500, 0, 65535, 32896, 0};
    const std::string path = dir.path("rgba16.tif");
    writeRaster(path, "GTiff", spec);
    const Result<Imagery> im = loadImagery(path, kMap, kMap, Georeference{});
    ASSERT_TRUE(im.ok()) << im.error();
    const std::vector<uint8_t> expected = {255, 255, 255, 255, 128, 128, 128, 128, 0, 0, 0, 0};
    ASSERT_EQ(im.value().rgba.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_NEAR(im.value().rgba[i], expected[i], 1) << i;
    }
    EXPECT_TRUE(anyWarningHas(im.value(), "0 to 1000")) << warningsOf(im.value());
}

TEST(ImageryBands, GreyBecomesOpaqueGreyRgb) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 24;
    spec.height = 10;
    spec.bands = 1;
    for (int p = 0; p < spec.width * spec.height; ++p) {
        spec.samples.push_back(double((p * 11) % 256));
    }
    const std::string path = dir.path("grey.tif");
    writeRaster(path, "GTiff", spec);
    const Result<Imagery> im = loadImagery(path, kMap, kMap, Georeference{});
    ASSERT_TRUE(im.ok()) << im.error();
    for (size_t p = 0; p < spec.samples.size(); ++p) {
        for (int c = 0; c < 3; ++c) {
            ASSERT_EQ(im.value().rgba[p * 4 + c], uint8_t(spec.samples[p])) << p;
        }
        ASSERT_EQ(im.value().rgba[p * 4 + 3], 255) << p;
    }
}

TEST(ImageryBands, GreyAndAlphaBecomeGreyRgbAndItsAlpha) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 20;
    spec.height = 12;
    spec.bands = 2;
    const size_t plane = size_t(spec.width) * spec.height;
    for (size_t p = 0; p < plane; ++p) {
        spec.samples.push_back(double(p % 256));
    }
    for (size_t p = 0; p < plane; ++p) {
        spec.samples.push_back(p % 3 == 0 ? 0.0 : double((p * 5) % 256));
    }
    const std::string path = dir.path("grey_alpha.png");
    writeRaster(path, "PNG", spec);
    const Result<Imagery> im = loadImagery(path, kMap, kMap, Georeference{});
    ASSERT_TRUE(im.ok()) << im.error();
    const Imagery& out = im.value();
    EXPECT_EQ(out.info.bands, 2);
    // A pixel's colour where its alpha is above 0 (a texel nothing covers has no colour: the
    // warper averages colour by alpha).
    for (size_t p = 0; p < plane; ++p) {
        EXPECT_EQ(out.rgba[p * 4 + 3], uint8_t(spec.samples[plane + p])) << p;
        for (int c = 0; c < 3 && spec.samples[plane + p] > 0.0; ++c) {
            EXPECT_EQ(out.rgba[p * 4 + c], uint8_t(spec.samples[p])) << p;
        }
    }
    EXPECT_LT(out.info.coverage, 0.7);
}

TEST(ImageryLimits, EachLimitLowersTheDensityWithAWarning) {
    TempDir dir;
    const std::string path = dir.path("ortho.tif");
    writeRaster(path, "GTiff", coordinateImage(4 * kMap, 4 * kMap, kWest, kNorth, kSpacing / 4));
    ImageryLimits side;
    side.maxSide = 64;
    ImageryLimits bytes;
    bytes.maxBytes = 128 * 128 * 4;
    ImageryLimits density;
    density.maxTexelsPerSample = 2.0;
    for (const auto& [limits, expected] :
         std::vector<std::pair<ImageryLimits, int>>{{side, 64}, {bytes, 128}, {density, 128}}) {
        const Result<Imagery> im = loadImagery(path, kMap, kMap, utmMap(), limits);
        ASSERT_TRUE(im.ok()) << im.error();
        const Imagery& out = im.value();
        EXPECT_EQ(out.width, expected);
        EXPECT_EQ(out.height, expected);
        EXPECT_LE(uint64_t(out.width) * out.height * 4, limits.maxBytes);
        EXPECT_DOUBLE_EQ(out.info.texelsPerSampleX, expected / 64.0);
        EXPECT_NEAR(out.info.nativeTexelsPerSampleX, 4.0, 1e-6);
        EXPECT_TRUE(anyWarningHas(out, "lowered")) << warningsOf(out);
        EXPECT_DOUBLE_EQ(out.info.coverage, 1.0);
    }
}

Result<Imagery> loadOverPlainMap(const std::string& path) {
    return loadImagery(path, kMap, kMap, Georeference{});
}

TEST(ImageryBad, MissingFileNotAnImageAndTruncatedFileAreOneLine) {
    TempDir dir;
    const Result<Imagery> missing = loadOverPlainMap(dir.path("missing.png"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().find('\n'), std::string::npos);

    const std::string text = dir.path("notes.png");
    test::writeBytes(text, std::vector<uint8_t>{'h', 'e', 'l', 'l', 'o', '\n'});
    const Result<Imagery> notImage = loadOverPlainMap(text);
    ASSERT_FALSE(notImage.ok());
    EXPECT_EQ(notImage.error().find('\n'), std::string::npos) << notImage.error();

    // Noise does not compress: half the file is half the pixels.
    RasterSpec spec;
    spec.width = 128;
    spec.height = 128;
    test::Random random(7);
    for (int i = 0; i < 128 * 128 * 3; ++i) {
        spec.samples.push_back(double(random.below(256)));
    }
    const std::string png = dir.path("cut.png");
    writeRaster(png, "PNG", spec);
    std::vector<uint8_t> bytes = test::readBytes(png);
    bytes.resize(bytes.size() / 2);
    test::writeBytes(png, bytes);
    const Result<Imagery> truncated = loadOverPlainMap(png);
    ASSERT_FALSE(truncated.ok());
    EXPECT_EQ(truncated.error().find('\n'), std::string::npos) << truncated.error();
}

TEST(ImageryBad, FiveBandsAndFloatSamplesAreRefusedSayingHowToConvert) {
    TempDir dir;
    RasterSpec five;
    five.width = 8;
    five.height = 8;
    five.bands = 5;
    five.samples.assign(8 * 8 * 5, 1.0);
    writeRaster(dir.path("five.tif"), "GTiff", five);
    const Result<Imagery> bands = loadOverPlainMap(dir.path("five.tif"));
    ASSERT_FALSE(bands.ok());
    EXPECT_NE(bands.error().find("5 bands"), std::string::npos) << bands.error();

    RasterSpec floats = five;
    floats.bands = 3;
    floats.type = GDT_Float32;
    floats.samples.assign(8 * 8 * 3, 0.5);
    writeRaster(dir.path("float.tif"), "GTiff", floats);
    const Result<Imagery> type = loadOverPlainMap(dir.path("float.tif"));
    ASSERT_FALSE(type.ok());
    EXPECT_NE(type.error().find("Float32"), std::string::npos) << type.error();
    EXPECT_NE(type.error().find("gdal_translate -ot Byte -scale"), std::string::npos)
        << type.error();
}

TEST(ImageryBad, ACrsThatCannotBeTransformedIsOneLine) {
    TempDir dir;
    const std::string path = dir.path("ortho.tif");
    writeRaster(path, "GTiff", coordinateImage(40, 40, kWest, kNorth, kSpacing));
    Georeference geo = utmMap();
    geo.crsWkt = "not a coordinate system";
    const Result<Imagery> im = loadImagery(path, kMap, kMap, geo);
    ASSERT_FALSE(im.ok());
    EXPECT_NE(im.error().find("CRS"), std::string::npos) << im.error();
    EXPECT_EQ(im.error().find('\n'), std::string::npos) << im.error();
}

// A sparse GeoTIFF declaring 10^6 x 10^6 pixels in a few megabytes: refused before a pixel is
// read, asking for overviews.
TEST(ImageryBad, HeaderDeclaringAMillionByAMillionPixelsIsRefusedFast) {
    TempDir dir;
    const std::string path = dir.path("huge.tif");
    {
        GDALAllRegister();
        CPLStringList options;
        for (const char* o :
             {"SPARSE_OK=TRUE", "BIGTIFF=YES", "TILED=YES", "BLOCKXSIZE=4096", "BLOCKYSIZE=4096"}) {
            options.AddString(o);
        }
        GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
        const GDALDatasetUniquePtr ds(
            gtiff->Create(path.c_str(), 1000000, 1000000, 3, GDT_Byte, options.List()));
        ASSERT_TRUE(ds);
    }
    const auto start = std::chrono::steady_clock::now();
    const Result<Imagery> im = loadOverPlainMap(path);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(im.ok());
    EXPECT_NE(im.error().find("gdaladdo"), std::string::npos) << im.error();
    EXPECT_LT(seconds, 5.0);  // 0.1 s here; reading the pixels would take hours
    // Over a georeferenced map too.
    const Result<Imagery> geo = loadImagery(path, kMap, kMap, utmMap());
    ASSERT_FALSE(geo.ok());
}

// The pyramid halves each level (rounding up) down to two texels a side; page ids run level by
// level, row by row, and the page table stacks the levels' rows, up to the tail: the coarsest
// levels, smaller than a page, side by side in one page without table rows.
TEST(ImageryPages, ThePyramidHalvesEachLevelDownToTwoTexels) {
    const ImageryPlan plan = planImagery(4097, 3001, 16384, 12000, 512, 4);
    ASSERT_EQ(plan.level.size(), 14u);  // 16384 / 2^13 = 2
    EXPECT_EQ(plan.side(), 520);
    EXPECT_EQ(plan.tableWidth, 32);
    EXPECT_EQ(plan.tail, 6);  // 256 x 188 texels; level 5's 512 x 375 fills a page of its own
    int pages = 0, rows = 0;
    for (size_t k = 0; k < plan.level.size(); ++k) {
        const ImageryLevel& l = plan.level[k];
        EXPECT_EQ(l.texelsX, (16384 + (1 << k) - 1) >> k);
        EXPECT_EQ(l.texelsY, (12000 + (1 << k) - 1) >> k);
        EXPECT_EQ(l.pagesX, (l.texelsX + 511) / 512);
        EXPECT_EQ(l.pagesY, (l.texelsY + 511) / 512);
        EXPECT_EQ(l.firstPage, pages);
        if (int(k) < plan.tail) {
            EXPECT_EQ(l.tableRow, rows);
            EXPECT_EQ(l.originX, 0);
            EXPECT_EQ(l.originY, 0);
            pages += l.pagesX * l.pagesY;
            rows += l.pagesY;
        } else {
            EXPECT_EQ(l.tableRow, -1);
        }
    }
    EXPECT_EQ(plan.pages, pages + 1);
    EXPECT_EQ(plan.tableHeight, rows);
    EXPECT_EQ(plan.level.back().texelsX, 2);
    EXPECT_EQ(plan.level.back().texelsY, 2);
    // The tail's levels, borders included, lie inside the page and apart.
    for (int k = plan.tail; k <= plan.top(); ++k) {
        const ImageryLevel& a = plan.level[size_t(k)];
        const int aw = a.texelsX + 2 * plan.border, ah = a.texelsY + 2 * plan.border;
        EXPECT_LE(a.originX + aw, plan.side());
        EXPECT_LE(a.originY + ah, plan.side());
        for (int j = k + 1; j <= plan.top(); ++j) {
            const ImageryLevel& b = plan.level[size_t(j)];
            const int bw = b.texelsX + 2 * plan.border, bh = b.texelsY + 2 * plan.border;
            const bool apart = a.originX + aw <= b.originX || b.originX + bw <= a.originX ||
                               a.originY + ah <= b.originY || b.originY + bh <= a.originY;
            EXPECT_TRUE(apart) << "levels " << k << " and " << j;
        }
    }
    for (uint32_t id = 0; id < uint32_t(plan.pages); ++id) {
        int k = -1, px = -1, py = -1;
        plan.pageOf(id, k, px, py);
        ASSERT_EQ(plan.pageId(k, px, py), id);
    }
    int k = -1, px = -1, py = -1;
    plan.pageOf(plan.tailPage(), k, px, py);
    EXPECT_EQ(k, plan.tail);
    EXPECT_EQ(plan.tailPage(), uint32_t(plan.pages - 1));
    // Imagery coarser than the map: 77 x 50 down to 2 x 1, all in one page.
    const ImageryPlan small = planImagery(4097, 4097, 77, 50);
    EXPECT_EQ(small.level.size(), 7u);
    EXPECT_EQ(small.tail, 0);
    EXPECT_EQ(small.pages, 1);
    // The pyramid's bytes, borders and tail included, per byte of level 0's texels: the mip
    // chain's 4/3 and the borders' (520 / 512)^2, 1.375, and at most 1.4 from 4096^2 on.
    for (const int size : {4096, 8192, 16384, 65536}) {
        const ImageryPlan p = planImagery(4097, 4097, size, size);
        const double ratio = double(p.pages) * p.side() * p.side() / (double(size) * size);
        EXPECT_GT(ratio, 1.375) << size;
        EXPECT_LT(ratio, 1.4) << size;
    }
}

// width x height texels in memory, texel (x, y) set by fill(x, y, its four bytes).
template <typename Fill>
Imagery texelsOf(int width, int height, Fill fill) {
    Imagery texels;
    texels.width = width;
    texels.height = height;
    texels.rgba.resize(size_t(width) * size_t(height) * 4);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            fill(x, y, &texels.rgba[(size_t(y) * size_t(width) + size_t(x)) * 4]);
        }
    }
    return texels;
}

// Texels over a 101 x 51 map: smooth ramps, a wave, and half alpha on the right third.
Imagery tailTestTexels() {
    return texelsOf(300, 140, [](int x, int y, uint8_t* t) {
        t[0] = uint8_t(x * 255 / 299);
        t[1] = uint8_t(y * 255 / 139);
        t[2] = uint8_t(128 + 100 * std::sin(x * 0.05) * std::cos(y * 0.07));
        t[3] = x < 200 ? 255 : 128;
    });
}

// Level k's texel (x, y), inside the level, as its page holds it.
struct PageTexels {
    OpenedImagery& o;
    std::vector<uint8_t> page;
    int k = -1, px = -1, py = -1;

    const uint8_t* at(int level, int x, int y) {
        const ImageryPlan& plan = o.plan;
        const int side = plan.side(), p = plan.pageTexels;
        const bool tail = plan.inTail(level);
        const int wantX = tail ? 0 : x / p, wantY = tail ? 0 : y / p;
        const int wantK = tail ? plan.tail : level;
        if (wantK != k || wantX != px || wantY != py) {
            page.resize(size_t(side) * side * 4);
            EXPECT_TRUE(o.reader->readPage(wantK, wantX, wantY, page.data()));
            k = wantK;
            px = wantX;
            py = wantY;
        }
        const ImageryLevel& l = plan.level[size_t(level)];
        const int sx = l.originX + plan.border + x - wantX * p;
        const int sy = l.originY + plan.border + y - wantY * p;
        return &page[(size_t(sy) * side + size_t(sx)) * 4];
    }
};

// The tail's page holds every level of a small pyramid at its place: the levels up to the base
// as GDAL reads them, borders included; each level above it the 2 x 2 means of the one below,
// within rounding of the mean of level 0's texels under it.
TEST(ImageryPages, TheTailHoldsItsLevelsAtTheirPlaces) {
    const Imagery texels = tailTestTexels();
    Result<OpenedImagery> opened = openImageryTexels(texels, 101, 51);
    ASSERT_TRUE(opened.ok()) << opened.error();
    OpenedImagery& o = opened.value();
    const ImageryPlan& plan = o.plan;
    ASSERT_EQ(plan.tail, 0);  // 300 x 140 and 150 x 70 side by side, the rest below
    ASSERT_EQ(plan.base, 1);
    ASSERT_EQ(plan.pages, 1);
    const int side = plan.side(), border = plan.border;
    std::vector<uint8_t> page(size_t(side) * side * 4);
    ASSERT_TRUE(o.reader->readPage(0, 0, 0, page.data()));
    EXPECT_EQ(page, o.topPage);
    const auto stored = [&](int k, int x, int y) {  // level k's texel (x, y) in the page
        const ImageryLevel& l = plan.level[size_t(k)];
        return &page[(size_t(l.originY + border + y) * side + size_t(l.originX + border + x)) * 4];
    };
    int bad = 0;
    for (int k = 0; k <= plan.base; ++k) {
        const ImageryLevel& l = plan.level[size_t(k)];
        const int w = l.texelsX + 2 * border, h = l.texelsY + 2 * border;
        std::vector<uint8_t> read(size_t(w) * h * 4);
        ASSERT_TRUE(o.reader->readTexels(k, -border, -border, w, h, read.data(), true));
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                bad += !std::equal(stored(k, x - border, y - border),
                                   stored(k, x - border, y - border) + 4,
                                   &read[(size_t(y) * w + size_t(x)) * 4]);
            }
        }
    }
    EXPECT_EQ(bad, 0);
    // Above the base: the means of the level below, exactly, and within rounding of the mean of
    // level 0's texels under them (premultiplied) where those lie inside the image on one side of
    // its alpha step.
    int means = 0, far = 0, compared = 0;
    for (int k = plan.base + 1; k <= plan.top(); ++k) {
        const ImageryLevel& l = plan.level[size_t(k)];
        for (int y = 0; y < l.texelsY; ++y) {
            for (int x = 0; x < l.texelsX; ++x) {
                const int x0 = x << k, x1 = (x + 1) << k, y0 = y << k, y1 = (y + 1) << k;
                const bool whole =
                    x1 <= texels.width && y1 <= texels.height && (x1 <= 200 || x0 >= 200);
                for (int c = 0; c < 4; ++c) {
                    const int sum =
                        stored(k - 1, 2 * x, 2 * y)[c] + stored(k - 1, 2 * x + 1, 2 * y)[c] +
                        stored(k - 1, 2 * x, 2 * y + 1)[c] + stored(k - 1, 2 * x + 1, 2 * y + 1)[c];
                    means += stored(k, x, y)[c] != (sum + 2) / 4;
                    if (!whole) {
                        continue;
                    }
                    double exact = 0.0;
                    for (int sy = y0; sy < y1; ++sy) {
                        for (int sx = x0; sx < x1; ++sx) {
                            const uint8_t* t = &texels.rgba[(size_t(sy) * 300 + size_t(sx)) * 4];
                            exact += c == 3 ? t[3] : (t[c] * t[3] + 127) / 255;
                        }
                    }
                    exact /= double(x1 - x0) * (y1 - y0);
                    ++compared;
                    far += std::abs(stored(k, x, y)[c] - exact) > 2.0;
                }
            }
        }
    }
    EXPECT_EQ(means, 0);
    EXPECT_EQ(far, 0);
    EXPECT_GT(compared, 500);
}

// Every level's texels are the same whatever the page size (pages of 16 to 512, the tail from
// level 0 to level 4): pages and the tail only place them.
TEST(ImageryPages, ThePyramidIsTheSameWhateverThePageSize) {
    const Imagery texels = tailTestTexels();
    Result<OpenedImagery> reference = openImageryTexels(texels, 101, 51);
    ASSERT_TRUE(reference.ok()) << reference.error();
    PageTexels want{reference.value(), {}};
    for (const int pageTexels : {16, 32, 64, 128}) {
        Result<OpenedImagery> opened = openImageryTexels(texels, 101, 51, pageTexels);
        ASSERT_TRUE(opened.ok()) << opened.error();
        const ImageryPlan& plan = opened.value().plan;
        EXPECT_GT(plan.tail, 0) << pageTexels;
        PageTexels got{opened.value(), {}};
        int bad = 0;
        for (int k = 0; k <= plan.top(); ++k) {
            const ImageryLevel& l = plan.level[size_t(k)];
            for (int y = 0; y < l.texelsY; ++y) {
                for (int x = 0; x < l.texelsX; ++x) {
                    bad += !std::equal(got.at(k, x, y), got.at(k, x, y) + 4, want.at(k, x, y));
                }
            }
        }
        EXPECT_EQ(bad, 0) << "pages of " << pageTexels;
    }
}

// The value of level k's texel (x, y) read whole, or -1 past the texture.
int wholeTexel(const Imagery& whole, int x, int y, int c) {
    if (x < 0 || y < 0 || x >= whole.width || y >= whole.height) {
        return -1;
    }
    return texel(whole, x, y)[c];
}

// Every page of level 0 holds the texels a whole read puts at its place, its border included
// (the neighbours' texels, where the level has them): the pages of a source in the map's CRS at
// four times its density, exactly; and level 1 averages level 0's 2 x 2 texels.
TEST(ImageryPages, PagesHoldTheLevelsTexelsAndTheirNeighboursBorders) {
    TempDir dir;
    const std::string path = dir.path("ortho.tif");
    writeRaster(path, "GTiff", coordinateImage(4 * kMap, 4 * kMap, kWest, kNorth, kSpacing / 4));
    const Result<Imagery> whole = loadImagery(path, kMap, kMap, utmMap());
    ASSERT_TRUE(whole.ok()) << whole.error();
    Result<OpenedImagery> opened = openImagery(path, kMap, kMap, utmMap(), {}, 64);
    ASSERT_TRUE(opened.ok()) << opened.error();
    OpenedImagery& o = opened.value();
    ASSERT_TRUE(o.reader);
    const ImageryPlan& plan = o.plan;
    ASSERT_EQ(plan.level[0].pagesX, 4);  // 256 texels in pages of 64
    ASSERT_EQ(plan.top(), 7);
    EXPECT_DOUBLE_EQ(o.info.coverage, 1.0);
    const int side = plan.side();
    std::vector<uint8_t> page(size_t(side) * side * 4);
    int compared = 0, bad = 0;
    for (int py = 0; py < 4; ++py) {
        for (int px = 0; px < 4; ++px) {
            ASSERT_TRUE(o.reader->readPage(0, px, py, page.data()));
            for (int y = 0; y < side; ++y) {
                for (int x = 0; x < side; ++x) {
                    const int wx = px * 64 + x - plan.border, wy = py * 64 + y - plan.border;
                    for (int c = 0; c < 4; ++c) {
                        const int expected = c == 3 ? 255 : wholeTexel(whole.value(), wx, wy, c);
                        if (expected < 0 || (c == 3 && wholeTexel(whole.value(), wx, wy, 0) < 0)) {
                            continue;  // past the texture: what the image has there
                        }
                        ++compared;
                        bad += page[(size_t(y) * side + x) * 4 + size_t(c)] != expected;
                    }
                }
            }
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(compared, 4 * 256 * 256);
    // Level 1: each texel the mean of level 0's 2 x 2 (the source's own pixels), within rounding.
    int far = 0;
    for (int py = 0; py < 2; ++py) {
        for (int px = 0; px < 2; ++px) {
            ASSERT_TRUE(o.reader->readPage(1, px, py, page.data()));
            for (int y = 0; y < 64; ++y) {
                for (int x = 0; x < 64; ++x) {
                    const int lx = (px * 64 + x) * 2, ly = (py * 64 + y) * 2;
                    const uint8_t* t =
                        &page[(size_t(y + plan.border) * side + size_t(x + plan.border)) * 4];
                    for (int c = 0; c < 3; ++c) {
                        const double mean = (wholeTexel(whole.value(), lx, ly, c) +
                                             wholeTexel(whole.value(), lx + 1, ly, c) +
                                             wholeTexel(whole.value(), lx, ly + 1, c) +
                                             wholeTexel(whole.value(), lx + 1, ly + 1, c)) /
                                            4.0;
                        // Red wraps every 256 pixels: a mean across the wrap is no test.
                        if (c == 0 && (lx & 255) == 255) {
                            continue;
                        }
                        far += std::abs(double(t[c]) - mean) > 1.0;
                    }
                }
            }
        }
    }
    EXPECT_EQ(far, 0);
}

// A coverage edge keeps its place at every level: a texel half covered has half alpha, and
// averaging never makes an uncovered texel's neighbours opaque.
TEST(ImageryPages, CoarserLevelsAverageTheCoverage) {
    const Imagery texels = texelsOf(128, 128, [](int x, int, uint8_t* t) {
        t[0] = 200;
        t[1] = 100;
        t[2] = 50;
        t[3] = x % 4 < 2 ? 255 : 0;  // stripes two texels wide
    });
    Result<OpenedImagery> opened = openImageryTexels(texels, 65, 65, 32);
    ASSERT_TRUE(opened.ok()) << opened.error();
    OpenedImagery& o = opened.value();
    EXPECT_NEAR(o.info.coverage, 0.5, 0.02);
    const int side = o.plan.side();
    std::vector<uint8_t> page(size_t(side) * side * 4);
    // Level 1: stripes one texel wide; level 2: all half covered, premultiplied colour.
    ASSERT_TRUE(o.reader->readPage(1, 0, 0, page.data()));
    const auto at = [&](int x, int y) {
        return &page[(size_t(y + o.plan.border) * side + size_t(x + o.plan.border)) * 4];
    };
    EXPECT_EQ(at(0, 5)[3], 255);
    EXPECT_EQ(at(1, 5)[3], 0);
    EXPECT_EQ(at(0, 5)[0], 200);
    ASSERT_TRUE(o.reader->readPage(2, 0, 0, page.data()));
    EXPECT_NEAR(at(3, 3)[3], 128, 1);
    EXPECT_NEAR(at(3, 3)[0], 100, 1);  // 200 at half alpha, premultiplied
    EXPECT_NEAR(at(3, 3)[1], 50, 1);
}

// Texels given in memory are paged as they are: level 0's pages hold them unchanged
// (premultiplied by their alpha), whatever their density over the map.
TEST(ImageryPages, TexelsInMemoryArePagedUnchanged) {
    const Imagery texels = texelsOf(150, 70, [](int x, int y, uint8_t* t) {
        t[0] = uint8_t(x);
        t[1] = uint8_t(y * 3);
        t[2] = uint8_t((x * 7) ^ y);
        t[3] = 255;
    });
    Result<OpenedImagery> opened = openImageryTexels(texels, 101, 51, 64);
    ASSERT_TRUE(opened.ok()) << opened.error();
    OpenedImagery& o = opened.value();
    ASSERT_EQ(o.plan.level[0].pagesX, 3);
    ASSERT_EQ(o.plan.level[0].pagesY, 2);
    const int side = o.plan.side();
    std::vector<uint8_t> page(size_t(side) * side * 4);
    int bad = 0, compared = 0;
    for (int py = 0; py < 2; ++py) {
        for (int px = 0; px < 3; ++px) {
            ASSERT_TRUE(o.reader->readPage(0, px, py, page.data()));
            for (int y = 0; y < side; ++y) {
                for (int x = 0; x < side; ++x) {
                    const int tx = px * 64 + x - o.plan.border, ty = py * 64 + y - o.plan.border;
                    if (tx < 0 || ty < 0 || tx >= 150 || ty >= 70) {
                        continue;
                    }
                    ++compared;
                    bad += !std::equal(&page[(size_t(y) * side + size_t(x)) * 4],
                                       &page[(size_t(y) * side + size_t(x)) * 4] + 4,
                                       &texels.rgba[(size_t(ty) * 150 + size_t(tx)) * 4]);
                }
            }
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(compared, 150 * 70);
}

// A page of a level that would read more source pixels than allowed asks for overviews; with
// them, each level reads its own.
TEST(ImageryPages, APageThatWouldReadTooMuchAsksForOverviews) {
    TempDir dir;
    const std::string with = dir.path("with.tif");
    const std::string without = dir.path("without.tif");
    writeWithAndWithoutOverviews(coordinateImage(8 * kMap, 8 * kMap, kWest, kNorth, kSpacing / 8),
                                 with, without, {2, 4, 8});
    ImageryLimits limits;
    // A page of 136^2 texels: at most 1.3 source pixels a texel, or the 520^2 image's part over
    // the map from its 8x overview.
    limits.maxReadPixels = 60000;
    const Result<OpenedImagery> refused = openImagery(without, kMap, kMap, utmMap(), limits, 128);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().find("gdaladdo"), std::string::npos) << refused.error();
    EXPECT_NE(refused.error().find("level 1"), std::string::npos) << refused.error();
    Result<OpenedImagery> read = openImagery(with, kMap, kMap, utmMap(), limits, 128);
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_DOUBLE_EQ(read.value().info.coverage, 1.0);
    EXPECT_EQ(read.value().plan.top(), 8);  // 512 texels down to 2
}

// A source without overviews whose base reads many pixels at open opens with a warning that
// names gdaladdo; with overviews, or few pixels to read, without one.
TEST(ImageryPages, ASourceWithoutOverviewsReadWholeAtOpenIsToldOfGdaladdo) {
    TempDir dir;
    const std::string with = dir.path("with.tif");
    const std::string without = dir.path("without.tif");
    writeWithAndWithoutOverviews(coordinateImage(8 * kMap, 8 * kMap, kWest, kNorth, kSpacing / 8),
                                 with, without, {2, 4, 8});
    const auto told = [](const OpenedImagery& o) {
        return std::any_of(o.warnings.begin(), o.warnings.end(), [](const std::string& w) {
            return w.find("no overviews") != std::string::npos &&
                   w.find("gdaladdo") != std::string::npos;
        });
    };
    ImageryLimits limits;
    limits.quickReadPixels = 100000;  // the 512^2 image's part over the map is more
    const Result<OpenedImagery> slow = openImagery(without, kMap, kMap, utmMap(), limits);
    ASSERT_TRUE(slow.ok()) << slow.error();
    EXPECT_TRUE(told(slow.value()));
    EXPECT_EQ(slow.value().plan.base, 1);  // 256 texels a side
    const Result<OpenedImagery> quick = openImagery(with, kMap, kMap, utmMap(), limits);
    ASSERT_TRUE(quick.ok()) << quick.error();
    EXPECT_FALSE(told(quick.value()));
    const Result<OpenedImagery> few = openImagery(without, kMap, kMap, utmMap());
    ASSERT_TRUE(few.ok()) << few.error();
    EXPECT_FALSE(told(few.value()));
}

}  // namespace
}  // namespace qt
