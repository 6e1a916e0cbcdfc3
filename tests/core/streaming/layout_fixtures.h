// What the tests of baked layouts share: a small georeferenced input with a few holes, the bake's
// options for it, damage to a level's file, and a bake by jobs joined.
#pragma once

#include <functional>
#include <string>

#include "core/base/result.h"
#include "core/streaming/bake.h"
#include "test_files.h"

namespace qt::test {

// The inputs' height at sample (c, r), in metres.
double inputHeight(int c, int r);

// A width x height GeoTIFF at `path` in UTM of float heights in metres, sample(c, r) each (-9999:
// nodata).
void writeRaster(const std::string& path, int width, int height,
                 const std::function<double(int, int)>& sample);

// A 203 x 141 (or width x height) raster of inputHeight with a few nodata samples (or none).
std::string writeInput(const TempDir& dir, bool holes = true, int width = 203, int height = 141);

// Pages (and tiles) of 16, the cache in the test's folder.
BakeOptions bakeOptions(const TempDir& dir);

// Flips the lowest bit of sample (x, y) of the level file at `path`, through GDAL, as damage at
// rest or in transit would change it.
void changeSample(const std::string& path, int x, int y);

// Flips sample (x, y) of the level file at `path` between given and a hole in its mask, through
// GDAL: damage to the holes alone, its codes as they were.
void changeMask(const std::string& path, int x, int y);

// A failure's line: it says `says`, on one line.
void expectOneLineSaying(const std::string& error, const std::string& says);

// Bakes `input` into `folder` as `jobs` jobs (each with `threads` threads), then joins them.
Result<BakeSummary> bakeByJobs(const TempDir& dir, const std::string& input,
                               const std::string& folder, int regionSize, int jobs, int threads);

}  // namespace qt::test
