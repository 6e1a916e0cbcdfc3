// GDAL-read heightmaps: rasters written here through GDAL's API in every sample type and
// compression, geographic and projected, ESRI ASCII grids, SRTM tiles and VRT mosaics, packed
// RGB heights, and the bad inputs that must give one clear line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal_priv.h>
#include <gdal_utils.h>
#include <ogr_spatialref.h>

#include "core/io/heightmap_gdal.h"
#include "core/io/voids.h"
#include "core/streaming/open_map.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"
#include "qt_source_paths.h"
#include "test_files.h"
#include "test_rasters.h"

namespace qt {
namespace {

using test::TempDir;

// A test raster (test_rasters.h): 37 x 23 samples of Int16 in UTM zone 32N (WGS 84), 30 m
// east-west by 25 m north-south, unless a test says otherwise.
struct RasterSpec : test::GdalRaster {
    RasterSpec() {
        width = 37;
        height = 23;
        transform = {500000.0, 30.0, 0.0, 5300000.0, 0.0, -25.0};
        epsg = 32632;
    }
};

// Integer heights that fit every sample type (0..1000), varied in both directions.
std::vector<double> integerHeights(int width, int height) {
    std::vector<double> v(size_t(width) * size_t(height));
    for (int r = 0; r < height; ++r) {
        for (int c = 0; c < width; ++c) {
            v[size_t(r) * size_t(width) + size_t(c)] = double((c * 37 + r * 101 + c * r) % 1001);
        }
    }
    return v;
}

std::vector<float> asFloats(const std::vector<double>& v) {
    return std::vector<float>(v.begin(), v.end());
}

TEST(HeightmapGdal, GeoTiffOfEverySampleTypeAndCompressionEqualsItsSource) {
    TempDir dir;
    const GDALDataType types[] = {GDT_Int16, GDT_UInt16, GDT_Int32, GDT_Float32, GDT_Float64};
    const std::vector<std::vector<std::string>> layouts = {
        {"COMPRESS=NONE"},
        {"COMPRESS=LZW"},
        {"COMPRESS=DEFLATE", "TILED=YES", "BLOCKXSIZE=16", "BLOCKYSIZE=16"},
        {"COMPRESS=ZSTD", "TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=16"}};
    RasterSpec spec;
    const std::vector<double> heights = integerHeights(spec.width, spec.height);
    int n = 0;
    for (const GDALDataType type : types) {
        for (const auto& layout : layouts) {
            spec.type = type;
            const std::string path = dir.path("m" + std::to_string(n++) + ".tif");
            test::writeGdalRaster(path, "GTiff", spec, heights, layout);
            const Result<Heightmap> map = loadHeightmap(path);
            ASSERT_TRUE(map.ok()) << map.error();
            EXPECT_EQ(heightmapSamples(map.value()), asFloats(heights))
                << GDALGetDataTypeName(type) << " " << layout[0];
            EXPECT_EQ(map.value().coding.step, 1.0f);
            EXPECT_TRUE(map.value().metres);
        }
    }
    // A cloud-optimised GeoTIFF (tiled, with overviews) reads as its full-resolution band.
    spec.type = GDT_Float32;
    test::writeGdalRaster(dir.path("cog.tif"), "COG", spec, heights,
                          {"COMPRESS=DEFLATE", "BLOCKSIZE=16"});
    const Result<Heightmap> cog = loadHeightmap(dir.path("cog.tif"));
    ASSERT_TRUE(cog.ok()) << cog.error();
    EXPECT_EQ(heightmapSamples(cog.value()), asFloats(heights));
}

TEST(HeightmapGdal, FloatHeightsAreQuantisedOverTheirRangeWithTheStepReported) {
    TempDir dir;
    RasterSpec spec;
    spec.type = GDT_Float32;
    std::vector<double> heights = integerHeights(spec.width, spec.height);
    for (double& h : heights) {
        h = double(float(h * 0.37 - 12.5));
    }
    test::writeGdalRaster(dir.path("f.tif"), "GTiff", spec, heights);
    const Result<Heightmap> map = loadHeightmap(dir.path("f.tif"));
    ASSERT_TRUE(map.ok()) << map.error();
    const auto [lo, hi] = std::minmax_element(heights.begin(), heights.end());
    const float step = float((*hi - *lo) / 65535.0);
    EXPECT_NEAR(map.value().coding.step, step, step * 1e-4f);
    const std::vector<float> back = heightmapSamples(map.value());
    for (size_t i = 0; i < heights.size(); ++i) {
        ASSERT_NEAR(back[i], heights[i], 0.51 * step + 1e-5) << i;
    }
}

TEST(HeightmapGdal, ASizeCheckSeesTheRasterSizeBeforeItsSamplesAreRead) {
    TempDir dir;
    RasterSpec spec;
    test::writeGdalRaster(dir.path("s.tif"), "GTiff", spec,
                          integerHeights(spec.width, spec.height));
    int seenWidth = 0;
    int seenHeight = 0;
    const Result<Heightmap> refused =
        loadHeightmap(dir.path("s.tif"), {}, [&](int width, int height) {
            seenWidth = width;
            seenHeight = height;
            return Status::failure("too large for this GPU");
        });
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), dir.path("s.tif") + ": too large for this GPU");
    EXPECT_EQ(seenWidth, spec.width);
    EXPECT_EQ(seenHeight, spec.height);
}

TEST(HeightmapGdal, ProjectedSpacingIsThePixelSizeOnEachAxis) {
    TempDir dir;
    RasterSpec spec;  // UTM, 30 m east-west by 25 m north-south
    test::writeGdalRaster(dir.path("utm.tif"), "GTiff", spec,
                          integerHeights(spec.width, spec.height));
    const Result<Heightmap> map = loadHeightmap(dir.path("utm.tif"));
    ASSERT_TRUE(map.ok()) << map.error();
    const Georeference& geo = map.value().geo;
    EXPECT_TRUE(geo.present);
    EXPECT_FALSE(geo.geographic);
    EXPECT_NE(geo.crsName.find("UTM zone 32N"), std::string::npos) << geo.crsName;
    EXPECT_NEAR(geo.metresX, 30.0, 30.0 * 1e-3);
    EXPECT_NEAR(geo.metresZ, 25.0, 25.0 * 1e-3);
    EXPECT_DOUBLE_EQ(geo.west, 500000.0);
    EXPECT_DOUBLE_EQ(geo.east, 500000.0 + 37 * 30.0);
    EXPECT_DOUBLE_EQ(geo.north, 5300000.0);
    EXPECT_DOUBLE_EQ(geo.south, 5300000.0 - 23 * 25.0);
}

TEST(HeightmapGdal, GeographicSpacingFollowsTheLatitudeOfTheMiddle) {
    TempDir dir;
    RasterSpec spec;
    spec.epsg = 4326;
    const double step = 1.0 / 1200.0;                                   // 3 arc-seconds
    spec.transform = {9.0, step, 0.0, 47.5 + 11.5 * step, 0.0, -step};  // centred at 47.5 N
    test::writeGdalRaster(dir.path("geo.tif"), "GTiff", spec,
                          integerHeights(spec.width, spec.height));
    const Result<Heightmap> map = loadHeightmap(dir.path("geo.tif"));
    ASSERT_TRUE(map.ok()) << map.error();
    const Georeference& geo = map.value().geo;
    EXPECT_TRUE(geo.geographic);
    // Metres per degree at 47.5 N from the series for the WGS 84 ellipsoid (111132.92 -
    // 559.82 cos 2phi + 1.175 cos 4phi; 111412.84 cos phi - 93.5 cos 3phi + 0.118 cos 5phi).
    const double phi = 47.5 * 3.14159265358979323846 / 180.0;
    const double lat = 111132.92 - 559.82 * std::cos(2 * phi) + 1.175 * std::cos(4 * phi);
    const double lon =
        111412.84 * std::cos(phi) - 93.5 * std::cos(3 * phi) + 0.118 * std::cos(5 * phi);
    EXPECT_NEAR(geo.metresZ, lat * step, lat * step * 1e-3);
    EXPECT_NEAR(geo.metresX, lon * step, lon * step * 1e-3);
    EXPECT_NEAR(geo.metresX / geo.metresZ, 0.676, 0.002);  // a degree of longitude is shorter
    const WorldMapping mapping = defaultMapping(map.value());
    EXPECT_EQ(mapping.heightScale, 1.0f);
}

TEST(HeightmapGdal, EsriAsciiGridEqualsItsSource) {
    TempDir dir;
    RasterSpec spec;
    spec.transform = {1000.0, 10.0, 0.0, 2000.0, 0.0, -10.0};
    spec.hasNodata = true;
    spec.nodata = -9999.0;
    std::vector<double> heights = integerHeights(spec.width, spec.height);
    test::writeGdalRaster(dir.path("m.asc"), "AAIGrid", spec, heights);
    const Result<Heightmap> map = loadHeightmap(dir.path("m.asc"));
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(heightmapSamples(map.value()), asFloats(heights));
    EXPECT_NEAR(map.value().geo.metresX, 10.0, 1e-2);
    EXPECT_NEAR(map.value().geo.metresZ, 10.0, 1e-2);
}

TEST(HeightmapGdal, NodataAndNanAreFilledLikeHgtVoids) {
    TempDir dir;
    RasterSpec spec;
    spec.type = GDT_Float32;
    spec.hasNodata = true;
    spec.nodata = -9999.0;
    std::vector<double> heights = integerHeights(spec.width, spec.height);
    std::vector<double> holed = heights;
    holed[40] = -9999.0;
    holed[41] = std::nan("");
    holed[300] = -9999.0;
    test::writeGdalRaster(dir.path("holes.tif"), "GTiff", spec, holed);
    const Result<Heightmap> map = loadHeightmap(dir.path("holes.tif"));
    ASSERT_TRUE(map.ok()) << map.error();
    std::vector<float> expected = asFloats(holed);
    for (float& v : expected) {
        v = std::isnan(v) || v == -9999.0f ? -std::numeric_limits<float>::infinity() : v;
    }
    ASSERT_TRUE(fillVoids(expected.data(), spec.width, spec.height,
                          -std::numeric_limits<float>::infinity()));
    EXPECT_EQ(heightmapSamples(map.value()), expected);
    // The filled samples are holes: the mask holds exactly them.
    const NodataMask& nodata = map.value().nodata;
    ASSERT_TRUE(nodata.holes());
    EXPECT_FALSE(nodata.filled);
    EXPECT_EQ(nodata.samples, 3);
    EXPECT_EQ(nodata.total, int64_t(spec.width) * spec.height);
    for (int i = 0; i < spec.width * spec.height; ++i) {
        EXPECT_EQ(nodata.at(i % spec.width, i / spec.width), i == 40 || i == 41 || i == 300) << i;
    }
    // --fill-nodata: the same codes, the fill shown as terrain, the count kept.
    LoadOptions fill;
    fill.fillNodata = true;
    const Result<Heightmap> filled = loadHeightmap(dir.path("holes.tif"), fill);
    ASSERT_TRUE(filled.ok()) << filled.error();
    EXPECT_EQ(heightmapSamples(filled.value()), expected);
    EXPECT_FALSE(filled.value().nodata.holes());
    EXPECT_TRUE(filled.value().nodata.filled);
    EXPECT_EQ(filled.value().nodata.samples, 3);
}

// A mask band of the raster's own (GDAL's per-dataset mask, an internal .msk): its zeros are
// nodata like the nodata value's, even in a band GDAL would otherwise read straight into codes.
TEST(HeightmapGdal, AMaskBandsZerosAreNodata) {
    TempDir dir;
    GDALAllRegister();
    const int width = 37, height = 23;
    for (const GDALDataType type : {GDT_UInt16, GDT_Float32}) {
        const std::string path = dir.path(type == GDT_UInt16 ? "u16.tif" : "f32.tif");
        {
            GDALDriver* tiff = GetGDALDriverManager()->GetDriverByName("GTiff");
            const GDALDatasetUniquePtr ds(
                tiff->Create(path.c_str(), width, height, 1, type, nullptr));
            ASSERT_TRUE(ds);
            std::vector<double> heights = integerHeights(width, height);
            GDALRasterBand* band = ds->GetRasterBand(1);
            ASSERT_EQ(band->RasterIO(GF_Write, 0, 0, width, height, heights.data(), width, height,
                                     GDT_Float64, 0, 0, nullptr),
                      CE_None);
            ASSERT_EQ(ds->CreateMaskBand(GMF_PER_DATASET), CE_None);
            std::vector<uint8_t> valid(size_t(width) * height, 255);
            for (int row = 0; row < height; ++row) {
                for (int col = 30; col < width; ++col) {  // an edge strip without data
                    valid[size_t(row) * width + size_t(col)] = 0;
                }
            }
            ASSERT_EQ(band->GetMaskBand()->RasterIO(GF_Write, 0, 0, width, height, valid.data(),
                                                    width, height, GDT_Byte, 0, 0, nullptr),
                      CE_None);
        }
        const Result<Heightmap> map = loadHeightmap(path);
        ASSERT_TRUE(map.ok()) << map.error();
        const NodataMask& nodata = map.value().nodata;
        ASSERT_TRUE(nodata.holes()) << path;
        EXPECT_EQ(nodata.samples, int64_t(7) * height);
        EXPECT_TRUE(nodata.at(30, 5));
        EXPECT_FALSE(nodata.at(29, 5));
        // Streamed, the mask's zeros are holes as in the full load, over the same fill.
        LoadOptions options;
        options.cacheDir = dir.path("cache");
        const Result<OpenedMap> streamed = openMap(path, options, {}, 4, true);
        ASSERT_TRUE(streamed.ok()) << streamed.error();
        ASSERT_TRUE(streamed.value().streamed);
        EXPECT_EQ(streamed.value().map.nodata.samples, nodata.samples);
        EXPECT_FALSE(streamed.value().map.nodata.filled);
        EXPECT_TRUE(streamed.value().map.nodata.bits == nodata.bits);
        EXPECT_TRUE(streamed.value().map.codes == map.value().codes);
    }
}

// The map and tree loaded together equal the plain load and buildQuadtree with the range bound:
// integral and float heights, voids filled first, partial border leaves, a leaf size refused.
TEST(HeightmapGdal, LoadWithTreeEqualsTheLoadThenTheBuild) {
    TempDir dir;
    RasterSpec spec;
    spec.type = GDT_Float32;
    spec.hasNodata = true;
    spec.nodata = -9999.0;
    std::vector<double> holed = integerHeights(spec.width, spec.height);
    holed[40] = -9999.0;
    holed[41] = std::nan("");
    test::writeGdalRaster(dir.path("holes.tif"), "GTiff", spec, holed);
    std::vector<double> fractions = integerHeights(spec.width, spec.height);
    for (size_t i = 0; i < fractions.size(); ++i) {
        fractions[i] += 0.25 * double(i % 7);
    }
    test::writeGdalRaster(dir.path("fractions.tif"), "GTiff", spec, fractions);
    spec.type = GDT_Int16;
    spec.hasNodata = false;
    test::writeGdalRaster(dir.path("whole.tif"), "GTiff", spec,
                          integerHeights(spec.width, spec.height));
    // Unsigned 16-bit without nodata: read straight into the codes.
    spec.type = GDT_UInt16;
    test::writeGdalRaster(dir.path("unsigned.tif"), "GTiff", spec,
                          integerHeights(spec.width, spec.height));
    for (const char* file : {"holes.tif", "fractions.tif", "whole.tif", "unsigned.tif"}) {
        for (int leafSize : {2, 4, 8}) {
            SCOPED_TRACE(std::string(file) + " leaf " + std::to_string(leafSize));
            const std::string path = dir.path(file);
            const Result<Heightmap> plain = loadHeightmap(path);
            ASSERT_TRUE(plain.ok()) << plain.error();
            const Quadtree built = buildQuadtree(plain.value(), leafSize).value();
            const Result<HeightmapWithTree> both = loadGdalHeightmapWithTree(path, file, leafSize);
            ASSERT_TRUE(both.ok()) << both.error();
            const Heightmap& map = both.value().map;
            const Quadtree& tree = both.value().tree;
            EXPECT_TRUE(std::equal(map.codes.begin(), map.codes.end(), plain.value().codes.begin(),
                                   plain.value().codes.end()));
            EXPECT_EQ(map.coding.step, plain.value().coding.step);
            ASSERT_EQ(tree.nodes.size(), built.nodes.size());
            for (size_t i = 0; i < built.nodes.size(); ++i) {
                EXPECT_EQ(tree.nodes[i].minCode, built.nodes[i].minCode) << i;
                EXPECT_EQ(tree.nodes[i].maxCode, built.nodes[i].maxCode) << i;
                EXPECT_EQ(tree.nodes[i].links, built.nodes[i].links) << i;
                EXPECT_EQ(tree.nodes[i].x1(), built.nodes[i].x1()) << i;
            }
            EXPECT_EQ(tree.coarseErrors, built.coarseErrors);
            EXPECT_EQ(tree.leafGrid, built.leafGrid);
            EXPECT_EQ(tree.coding.offset, built.coding.offset);
        }
    }
    const Result<HeightmapWithTree> refused =
        loadGdalHeightmapWithTree(dir.path("whole.tif"), "w", 3);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error(), "w: leaf size 3 is not a power of two from 2 to 64");
}

// loadHeightmap with a tree asked for: a GDAL raster's comes back built during its read, equal to
// the build after the load (the viewer draws its first frame with it); a PNG's is left empty for
// the caller to build.
TEST(HeightmapGdal, LoadHeightmapHandsBackTheTreeBuiltDuringAGdalRead) {
    TempDir dir;
    RasterSpec spec;
    spec.type = GDT_Float32;
    test::writeGdalRaster(dir.path("map.tif"), "GTiff", spec,
                          integerHeights(spec.width, spec.height));
    Quadtree tree;
    const Result<Heightmap> map = loadHeightmap(dir.path("map.tif"), {}, {}, 4, &tree);
    ASSERT_TRUE(map.ok()) << map.error();
    const Quadtree built = buildQuadtree(map.value(), 4).value();
    ASSERT_EQ(tree.nodes.size(), built.nodes.size());
    EXPECT_EQ(tree.leafSize, 4);
    for (size_t i = 0; i < built.nodes.size(); ++i) {
        EXPECT_EQ(tree.nodes[i].minCode, built.nodes[i].minCode) << i;
        EXPECT_EQ(tree.nodes[i].maxCode, built.nodes[i].maxCode) << i;
        EXPECT_EQ(tree.nodes[i].links, built.nodes[i].links) << i;
    }
    EXPECT_EQ(tree.coarseErrors, built.coarseErrors);
    EXPECT_EQ(tree.leafGrid, built.leafGrid);

    Quadtree untouched;
    const Result<Heightmap> png =
        loadHeightmap(std::string(QT_SOURCE_DIR) + "/data/default_1025.png", {}, {}, 4, &untouched);
    ASSERT_TRUE(png.ok()) << png.error();
    EXPECT_TRUE(untouched.nodes.empty());
}

// A band taller than many read blocks: strips, and tiles whose height does not divide the read's
// rows. The range is taken block by block on a helper as the rows land: the extremes sit in the
// last block and in a middle one, a void in a late block sends the map to the fill, and a scale
// and offset apply to every block once.
TEST(HeightmapGdal, TallBandsReadInBlocksEqualTheirSource) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 53;
    spec.height = 300;
    spec.type = GDT_Float32;
    std::vector<double> heights = integerHeights(spec.width, spec.height);
    heights.back() = 5000.0;                  // the highest, read last
    heights[size_t(150) * 53 + 7] = -2000.0;  // the lowest, in a middle block
    const std::vector<std::vector<std::string>> layouts = {
        {"COMPRESS=NONE"}, {"COMPRESS=DEFLATE", "TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=48"}};
    int n = 0;
    for (const auto& layout : layouts) {
        const std::string path = dir.path("tall" + std::to_string(n++) + ".tif");
        test::writeGdalRaster(path, "GTiff", spec, heights, layout);
        const Result<Heightmap> map = loadHeightmap(path);
        ASSERT_TRUE(map.ok()) << map.error();
        EXPECT_EQ(heightmapSamples(map.value()), asFloats(heights)) << layout[0];
        EXPECT_EQ(map.value().coding.step, 1.0f) << layout[0];
    }
    // A void in block 4 of 5: the map is filled, then its range taken again.
    spec.hasNodata = true;
    spec.nodata = -9999.0;
    std::vector<double> holed = heights;
    holed[size_t(260) * 53 + 20] = -9999.0;
    test::writeGdalRaster(dir.path("tall_holed.tif"), "GTiff", spec, holed);
    const Result<Heightmap> filled = loadHeightmap(dir.path("tall_holed.tif"));
    ASSERT_TRUE(filled.ok()) << filled.error();
    std::vector<float> expected = asFloats(holed);
    for (float& v : expected) {
        v = v == -9999.0f ? -std::numeric_limits<float>::infinity() : v;
    }
    ASSERT_TRUE(fillVoids(expected.data(), spec.width, spec.height,
                          -std::numeric_limits<float>::infinity()));
    EXPECT_EQ(heightmapSamples(filled.value()), expected);
    // Scale 0.5 and offset 100: every block rescaled once, the range over the rescaled values.
    spec.hasNodata = false;
    const std::string scaled = dir.path("tall_scaled.tif");
    test::writeGdalRaster(scaled, "GTiff", spec, heights);
    {
        const GDALDatasetUniquePtr ds(GDALDataset::Open(scaled.c_str(), GDAL_OF_UPDATE));
        ASSERT_TRUE(ds);
        ds->GetRasterBand(1)->SetScale(0.5);
        ds->GetRasterBand(1)->SetOffset(100.0);
    }
    const Result<Heightmap> rescaled = loadHeightmap(scaled);
    ASSERT_TRUE(rescaled.ok()) << rescaled.error();
    EXPECT_FLOAT_EQ(rescaled.value().minSample, float(-2000.0 * 0.5 + 100.0));
    EXPECT_FLOAT_EQ(rescaled.value().maxSample, float(5000.0 * 0.5 + 100.0));
    const std::vector<float> got = heightmapSamples(rescaled.value());
    for (size_t i = 0; i < heights.size(); ++i) {
        // Half a step, and the float rounding of quantising and decoding.
        ASSERT_NEAR(got[i], heights[i] * 0.5 + 100.0, 0.51 * rescaled.value().coding.step) << i;
    }
}

// Writes an SRTM tile of side x side big-endian samples given by height(global col, global row).
template <class F>
void writeHgt(const std::string& path, int side, int col0, int row0, F height) {
    std::vector<uint8_t> bytes(size_t(side) * size_t(side) * 2);
    for (int r = 0; r < side; ++r) {
        for (int c = 0; c < side; ++c) {
            const auto v = uint16_t(int16_t(height(col0 + c, row0 + r)));
            const size_t i = (size_t(r) * size_t(side) + size_t(c)) * 2;
            bytes[i] = uint8_t(v >> 8);
            bytes[i + 1] = uint8_t(v & 0xff);
        }
    }
    test::writeBytes(path, bytes);
}

int hillHeight(int col, int row) {
    return (col * 7 + row * 3 + (col * row) % 97) % 3000 - 50;
}

TEST(HeightmapGdal, GdalReadsHgtAsTheHandWrittenLoaderDoes) {
    TempDir dir;
    const std::string path = dir.path("N10E020.hgt");
    writeHgt(path, 1201, 0, 0, hillHeight);
    const Result<Heightmap> own = loadHeightmap(path);
    const Result<Heightmap> gdal = loadGdalHeightmap(path, path);
    ASSERT_TRUE(own.ok()) << own.error();
    ASSERT_TRUE(gdal.ok()) << gdal.error();
    EXPECT_EQ(heightmapSamples(own.value()), heightmapSamples(gdal.value()));
    // The georeference from the name equals GDAL's from the driver.
    const Georeference& a = own.value().geo;
    const Georeference& b = gdal.value().geo;
    EXPECT_TRUE(a.present && b.present && a.geographic && b.geographic);
    EXPECT_NEAR(a.west, b.west, 1e-9);
    EXPECT_NEAR(a.north, b.north, 1e-9);
    EXPECT_NEAR(a.metresX, b.metresX, b.metresX * 1e-6);
    EXPECT_NEAR(a.metresZ, b.metresZ, b.metresZ * 1e-6);
    // Gzipped, through GDAL's /vsigzip/.
    {
        VSILFILE* gz = VSIFOpenL(("/vsigzip/" + path + ".gz").c_str(), "wb");
        ASSERT_NE(gz, nullptr);
        const std::vector<uint8_t> bytes = test::readBytes(path);
        ASSERT_EQ(VSIFWriteL(bytes.data(), 1, bytes.size(), gz), bytes.size());
        VSIFCloseL(gz);
    }
    const Result<Heightmap> zipped = loadHeightmap(path + ".gz");
    ASSERT_TRUE(zipped.ok()) << zipped.error();
    EXPECT_EQ(zipped.value().codes, own.value().codes);
}

TEST(HeightmapGdal, SharedHgtReadByGdalEqualsTheHandWrittenLoader) {
    const std::string hgt = test::sharedHeightmap("N47E009.hgt");
    if (hgt.empty()) {
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map check skipped";
    }
    const Result<Heightmap> own = loadHeightmap(hgt);
    const Result<Heightmap> gdal = loadGdalHeightmap(hgt, hgt);
    ASSERT_TRUE(own.ok() && gdal.ok()) << gdal.error();
    EXPECT_EQ(heightmapSamples(own.value()), heightmapSamples(gdal.value()));
    // At 47.5 N a degree of longitude is 0.676 of a degree of latitude.
    const WorldMapping m = defaultMapping(own.value());
    EXPECT_NEAR(own.value().geo.metresX / own.value().geo.metresZ, 0.676, 0.002);
    EXPECT_EQ(m.heightScale, 1.0f);
}

TEST(HeightmapGdal, VrtMosaicOfFourTilesIsOneMap) {
    TempDir dir;
    // 2 x 2 one-degree tiles sharing their edge samples: N10E020 is the south-west one.
    const int side = 1201;
    const char* names[2][2] = {{"N11E020.hgt", "N11E021.hgt"}, {"N10E020.hgt", "N10E021.hgt"}};
    std::vector<std::string> paths;
    for (int ty = 0; ty < 2; ++ty) {
        for (int tx = 0; tx < 2; ++tx) {
            paths.push_back(dir.path(names[ty][tx]));
            writeHgt(paths.back(), side, tx * (side - 1), ty * (side - 1), hillHeight);
        }
    }
    std::vector<const char*> sources;
    for (const std::string& p : paths) {
        sources.push_back(p.c_str());
    }
    const std::string vrt = dir.path("mosaic.vrt");
    GDALAllRegister();
    GDALDatasetH built =
        GDALBuildVRT(vrt.c_str(), int(sources.size()), nullptr, sources.data(), nullptr, nullptr);
    ASSERT_NE(built, nullptr);
    GDALClose(built);
    const Result<Heightmap> map = loadHeightmap(vrt);
    ASSERT_TRUE(map.ok()) << map.error();
    const Heightmap& m = map.value();
    ASSERT_EQ(m.width, 2 * side - 1);
    ASSERT_EQ(m.height, 2 * side - 1);
    bool same = true;
    for (int r = 0; r < m.height && same; ++r) {
        for (int c = 0; c < m.width && same; ++c) {
            same = m.at(c, r) == float(hillHeight(c, r));
        }
    }
    EXPECT_TRUE(same);
    // Two degrees of latitude centred at 11 N.
    const double step = 1.0 / 1200.0;
    const MetresPerDegree mpd = metresPerDegree(11.0);
    EXPECT_NEAR(m.geo.metresX, mpd.eastWest * step, mpd.eastWest * step * 1e-3);
    EXPECT_NEAR(m.geo.metresZ, mpd.northSouth * step, mpd.northSouth * step * 1e-3);
}

TEST(HeightmapGdal, TerrainRgbAndTerrariumPngsDecodeToMetres) {
    TempDir dir;
    RasterSpec spec;
    spec.width = 4;
    spec.height = 2;
    spec.bands = 3;
    spec.type = GDT_Byte;
    spec.transform.clear();
    spec.epsg = 0;
    GDALAllRegister();
    // Metres: -10000 + (R 65536 + G 256 + B) / 10 for Terrain-RGB.
    const std::vector<double> metres = {0.0, 1.5, -20.0, 8848.8, 100.0, 395.3, 2502.0, -410.0};
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    const GDALDatasetUniquePtr rgb(mem->Create("", 4, 2, 3, GDT_Byte, nullptr));
    const GDALDatasetUniquePtr terrarium(mem->Create("", 4, 2, 3, GDT_Byte, nullptr));
    for (int i = 0; i < 8; ++i) {
        const auto packed = uint32_t(std::lround((metres[size_t(i)] + 10000.0) * 10.0));
        const uint8_t a[3] = {uint8_t(packed >> 16), uint8_t(packed >> 8), uint8_t(packed)};
        const double t = metres[size_t(i)] + 32768.0;
        const uint8_t b[3] = {uint8_t(int(t) >> 8), uint8_t(int(t) & 255),
                              uint8_t(std::lround((t - std::floor(t)) * 256.0))};
        for (int band = 0; band < 3; ++band) {
            uint8_t va = a[band];
            uint8_t vb = b[band];
            ASSERT_EQ(rgb->GetRasterBand(band + 1)->RasterIO(GF_Write, i % 4, i / 4, 1, 1, &va, 1,
                                                             1, GDT_Byte, 0, 0, nullptr),
                      CE_None);
            ASSERT_EQ(terrarium->GetRasterBand(band + 1)->RasterIO(
                          GF_Write, i % 4, i / 4, 1, 1, &vb, 1, 1, GDT_Byte, 0, 0, nullptr),
                      CE_None);
        }
    }
    GDALDriver* png = GetGDALDriverManager()->GetDriverByName("PNG");
    GDALDatasetUniquePtr(
        png->CreateCopy(dir.path("rgb.png").c_str(), rgb.get(), FALSE, nullptr, nullptr, nullptr));
    GDALDatasetUniquePtr(png->CreateCopy(dir.path("terrarium.png").c_str(), terrarium.get(), FALSE,
                                         nullptr, nullptr, nullptr));
    LoadOptions options;
    options.encoding = HeightEncoding::TerrainRgb;
    const Result<Heightmap> a = loadHeightmap(dir.path("rgb.png"), options);
    options.encoding = HeightEncoding::Terrarium;
    const Result<Heightmap> b = loadHeightmap(dir.path("terrarium.png"), options);
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(b.ok()) << b.error();
    EXPECT_TRUE(a.value().metres && b.value().metres);
    const float step = a.value().coding.step;
    for (size_t i = 0; i < metres.size(); ++i) {
        EXPECT_NEAR(a.value().at(int(i % 4), int(i / 4)), metres[i], 0.05 + step) << i;
        EXPECT_NEAR(b.value().at(int(i % 4), int(i / 4)), metres[i], 0.01 + step) << i;
    }
    // The encodings are for colour PNGs only.
    options.encoding = HeightEncoding::TerrainRgb;
    const Result<Heightmap> gray = loadHeightmap(dir.path("none.hgt"), options);
    ASSERT_FALSE(gray.ok());
    EXPECT_NE(gray.error().find("--encoding applies only to PNG images"), std::string::npos);
}

// The loader's error for the file, checking that it is one line and that GDAL printed nothing.
std::string loadError(const std::string& path) {
    testing::internal::CaptureStderr();
    const Result<Heightmap> map = loadHeightmap(path);
    const std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(printed, "") << path;
    if (map.ok()) {
        ADD_FAILURE() << path << " loaded";
        return "";
    }
    EXPECT_EQ(map.error().find('\n'), std::string::npos) << map.error();
    EXPECT_EQ(map.error().rfind(path, 0), 0u) << map.error();
    return map.error();
}

TEST(HeightmapGdal, BadRastersGiveOneClearLine) {
    TempDir dir;
    RasterSpec spec;
    const std::vector<double> heights = integerHeights(spec.width, spec.height);

    RasterSpec three = spec;
    three.bands = 3;
    test::writeGdalRaster(dir.path("rgb.tif"), "GTiff", three, std::vector<double>(heights));
    EXPECT_NE(loadError(dir.path("rgb.tif")).find("raster has 3 bands; a heightmap is one band"),
              std::string::npos);

    RasterSpec rotated = spec;
    rotated.transform = {500000.0, 30.0, 5.0, 5300000.0, 5.0, -25.0};
    test::writeGdalRaster(dir.path("rotated.tif"), "GTiff", rotated, heights);
    EXPECT_NE(loadError(dir.path("rotated.tif")).find("geotransform is rotated or sheared"),
              std::string::npos);

    // A VRT states its geotransform as text: a zero pixel size is kept as written.
    const std::string source = dir.path("source.tif");
    test::writeGdalRaster(source, "GTiff", spec, heights);
    auto vrt = [&](const std::string& transform, const std::string& file) {
        return "<VRTDataset rasterXSize=\"37\" rasterYSize=\"23\"><GeoTransform>" + transform +
               "</GeoTransform><VRTRasterBand dataType=\"Int16\" band=\"1\"><SimpleSource>"
               "<SourceFilename relativeToVRT=\"0\">" +
               file +
               "</SourceFilename><SourceBand>1</SourceBand></SimpleSource></VRTRasterBand>"
               "</VRTDataset>";
    };
    auto writeText = [&](const std::string& name, const std::string& text) {
        test::writeBytes(dir.path(name), std::vector<uint8_t>(text.begin(), text.end()));
        return dir.path(name);
    };
    EXPECT_NE(loadError(writeText("zero.vrt", vrt("0, 0, 0, 0, 0, 0", source)))
                  .find("geotransform has a zero pixel size"),
              std::string::npos);
    EXPECT_NE(loadError(writeText("missing.vrt", vrt("0, 1, 0, 0, 0, -1", dir.path("gone.tif"))))
                  .find("gone.tif"),
              std::string::npos);

    RasterSpec holes = spec;
    holes.hasNodata = true;
    holes.nodata = -1.0;
    test::writeGdalRaster(dir.path("nodata.tif"), "GTiff", holes,
                          std::vector<double>(heights.size(), -1.0));
    EXPECT_NE(loadError(dir.path("nodata.tif")).find("every sample is nodata"), std::string::npos);

    std::vector<uint8_t> tiff = test::readBytes(source);
    tiff.resize(tiff.size() / 2);
    test::writeBytes(dir.path("truncated.tif"), tiff);
    EXPECT_NE(loadError(dir.path("truncated.tif")).find("TIFF: truncated: block "),
              std::string::npos);

    // A sparse 100000 x 100000 float GeoTIFF: a few hundred bytes, refused from its header.
    {
        GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
        const char* options[] = {"SPARSE_OK=TRUE", "TILED=YES", "BIGTIFF=YES", nullptr};
        GDALDatasetUniquePtr huge(gtiff->Create(dir.path("huge.tif").c_str(), 100000, 100000, 1,
                                                GDT_Float32, const_cast<char**>(options)));
        ASSERT_TRUE(huge);
    }
    EXPECT_NE(loadError(dir.path("huge.tif")).find("size 100000x100000 is over the limit"),
              std::string::npos);

    test::writeBytes(dir.path("junk.tif"), {'n', 'o', 't', ' ', 'a', ' ', 't', 'i', 'f', 'f'});
    EXPECT_NE(loadError(dir.path("junk.tif")).find("GDAL cannot open it"), std::string::npos);
    EXPECT_NE(loadError(dir.path("absent.tif")).find("no such file"), std::string::npos);
}

TEST(HeightmapGdal, BytesInMemoryDecodeThroughGdal) {
    TempDir dir;
    RasterSpec spec;
    const std::vector<double> heights = integerHeights(spec.width, spec.height);
    test::writeGdalRaster(dir.path("m.tif"), "GTiff", spec, heights, {"COMPRESS=DEFLATE"});
    const std::vector<uint8_t> bytes = test::readBytes(dir.path("m.tif"));
    const Result<Heightmap> map = decodeHeightmap("m.tif", ".tif", bytes);
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(heightmapSamples(map.value()), asFloats(heights));
}

}  // namespace
}  // namespace qt
