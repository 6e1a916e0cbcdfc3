// What the tests of baked layouts share.
#include "layout_fixtures.h"

#include <cmath>
#include <filesystem>
#include <vector>

#include <gdal_priv.h>
#include <gtest/gtest.h>

#include "test_rasters.h"

namespace qt::test {

// The inputs' height at sample (c, r), in metres.
double inputHeight(int c, int r) {
    return 800.0 + 300.0 * std::sin(c * 0.05) * std::cos(r * 0.07) + c * 0.5;
}

// A width x height GeoTIFF at `path` in UTM of float heights in metres, sample(c, r) each (-9999:
// nodata).
void writeRaster(const std::string& path, int width, int height,
                 const std::function<double(int, int)>& sample) {
    GdalRaster raster;
    raster.width = width;
    raster.height = height;
    raster.type = GDT_Float32;
    raster.transform = {500000.0, 30.0, 0.0, 5200000.0, 0.0, -30.0};
    raster.epsg = 32632;
    raster.hasNodata = true;
    raster.nodata = -9999.0;
    std::vector<double> samples(size_t(raster.width) * size_t(raster.height));
    for (int r = 0; r < raster.height; ++r) {
        for (int c = 0; c < raster.width; ++c) {
            samples[size_t(r) * size_t(raster.width) + size_t(c)] = sample(c, r);
        }
    }
    writeGdalRaster(path, "GTiff", raster, samples);
}

// A 203 x 141 (or width x height) raster of inputHeight with a few nodata samples (or none).
std::string writeInput(const TempDir& dir, bool holes, int width, int height) {
    const std::string path =
        dir.path((holes ? "dem" : "solid") + std::string(width == 203 ? "" : "-") +
                 (width == 203 ? "" : std::to_string(width)) + ".tif");
    writeRaster(path, width, height, [holes](int c, int r) {
        const bool hole = holes && (c - 150) * (c - 150) + (r - 40) * (r - 40) < 36;
        return hole ? -9999.0 : inputHeight(c, r);
    });
    return path;
}

BakeOptions bakeOptions(const TempDir& dir) {
    BakeOptions options;
    options.pageSize = 16;
    options.load.cacheDir = dir.path("cache");
    return options;
}

// Flips the lowest bit of sample (x, y) of the level file at `path`, through GDAL, as damage at
// rest or in transit would change it.
void changeSample(const std::string& path, int x, int y) {
    GDALDatasetUniquePtr raster(GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE));
    ASSERT_TRUE(raster) << path;
    GDALRasterBand* band = raster->GetRasterBand(1);
    uint16_t code = 0;
    ASSERT_EQ(band->RasterIO(GF_Read, x, y, 1, 1, &code, 1, 1, GDT_UInt16, 0, 0), CE_None);
    code ^= 1;
    ASSERT_EQ(band->RasterIO(GF_Write, x, y, 1, 1, &code, 1, 1, GDT_UInt16, 0, 0), CE_None);
}

void changeMask(const std::string& path, int x, int y) {
    GDALDatasetUniquePtr raster(GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_UPDATE));
    ASSERT_TRUE(raster) << path;
    GDALRasterBand* mask = raster->GetRasterBand(1)->GetMaskBand();
    uint8_t valid = 0;
    ASSERT_EQ(mask->RasterIO(GF_Read, x, y, 1, 1, &valid, 1, 1, GDT_Byte, 0, 0), CE_None);
    valid = valid != 0 ? 0 : 255;
    ASSERT_EQ(mask->RasterIO(GF_Write, x, y, 1, 1, &valid, 1, 1, GDT_Byte, 0, 0), CE_None);
}

// A failure's line: it says `says`, on one line.
void expectOneLineSaying(const std::string& error, const std::string& says) {
    EXPECT_NE(error.find(says), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

// Bakes `input` into `folder` as `jobs` jobs (each with `threads` threads), then joins them.
Result<BakeSummary> bakeByJobs(const TempDir& dir, const std::string& input,
                               const std::string& folder, int regionSize, int jobs, int threads) {
    for (int job = 1; job <= jobs; ++job) {
        BakeOptions options = bakeOptions(dir);
        options.regionSize = regionSize;
        options.threads = threads;
        options.job = job;
        options.jobs = jobs;
        const Result<BakeSummary> baked = bakeLayout(input, folder, options);
        if (!baked) {
            return baked;
        }
        EXPECT_EQ(baked.value().firstRegion, (job - 1) * baked.value().regions / jobs);
        EXPECT_EQ(baked.value().endRegion, job * baked.value().regions / jobs);
        EXPECT_FALSE(std::filesystem::exists(folder + "/layout.json"));  // only a join makes one
    }
    return joinLayout(folder, bakeOptions(dir));
}

}  // namespace qt::test
