// Test rasters written through GDAL's own API, as gdal_translate makes its files: for the tests
// of the GDAL heightmap loader, the imagery loader and the streamed GDAL maps.
#pragma once

#include <string>
#include <vector>

#include <gdal_priv.h>

namespace qt::test {

// What a test raster holds and where it lies.
struct GdalRaster {
    int width = 0;
    int height = 0;
    int bands = 1;
    GDALDataType type = GDT_Int16;
    std::vector<double> transform;  // GDAL's geotransform; empty: none
    int epsg = 0;                   // 0: no CRS
    bool hasNodata = false;         // every band's nodata value: nodata
    double nodata = 0.0;
    double scale = 1.0;  // every band's scale, offset and unit (empty: none)
    double offset = 0.0;
    std::string unit;
    std::vector<GDALColorEntry> palette;  // a palette on band 1 when not empty
};

// Writes `samples` as `driver` at `path`, built in memory and copied with the creation options
// (COMPRESS=..., TILED=YES). `samples` holds one band, row by row, which every band takes, or
// every band, one after the other. A last band of two or four is alpha. Fails the calling test
// (ASSERT) when GDAL refuses.
void writeGdalRaster(const std::string& path, const char* driver, const GdalRaster& raster,
                     const std::vector<double>& samples,
                     const std::vector<std::string>& options = {});

}  // namespace qt::test
