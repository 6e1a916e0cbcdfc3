// Test rasters written through GDAL's own API (test_rasters.h).
#include "test_rasters.h"

#include <gtest/gtest.h>

#include <cpl_string.h>
#include <ogr_spatialref.h>

namespace qt::test {

void writeGdalRaster(const std::string& path, const char* driver, const GdalRaster& raster,
                     const std::vector<double>& samples, const std::vector<std::string>& options) {
    GDALAllRegister();
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    const GDALDatasetUniquePtr source(
        mem->Create("", raster.width, raster.height, raster.bands, raster.type, nullptr));
    ASSERT_TRUE(source);
    if (!raster.transform.empty()) {
        std::vector<double> t = raster.transform;
        source->SetGeoTransform(t.data());
    }
    if (raster.epsg != 0) {
        OGRSpatialReference srs;
        srs.importFromEPSG(raster.epsg);
        srs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
        source->SetSpatialRef(&srs);
    }
    const size_t plane = size_t(raster.width) * size_t(raster.height);
    const bool everyBand = samples.size() == plane * size_t(raster.bands);
    ASSERT_TRUE(everyBand || samples.size() == plane) << path;
    for (int b = 1; b <= raster.bands; ++b) {
        GDALRasterBand* band = source->GetRasterBand(b);
        if (raster.hasNodata) {
            band->SetNoDataValue(raster.nodata);
        }
        if (raster.scale != 1.0 || raster.offset != 0.0) {
            band->SetScale(raster.scale);
            band->SetOffset(raster.offset);
        }
        if (!raster.unit.empty()) {
            band->SetUnitType(raster.unit.c_str());
        }
        double* from = const_cast<double*>(samples.data()) + (everyBand ? plane * (b - 1) : 0);
        ASSERT_EQ(band->RasterIO(GF_Write, 0, 0, raster.width, raster.height, from, raster.width,
                                 raster.height, GDT_Float64, 0, 0, nullptr),
                  CE_None);
    }
    if (!raster.palette.empty()) {
        GDALColorTable table;
        for (int i = 0; i < int(raster.palette.size()); ++i) {
            table.SetColorEntry(i, &raster.palette[size_t(i)]);
        }
        source->GetRasterBand(1)->SetColorTable(&table);
        source->GetRasterBand(1)->SetColorInterpretation(GCI_PaletteIndex);
    }
    if (raster.bands == 2 || raster.bands == 4) {
        source->GetRasterBand(raster.bands)->SetColorInterpretation(GCI_AlphaBand);
    }
    CPLStringList creation;
    for (const std::string& o : options) {
        creation.AddString(o.c_str());
    }
    GDALDriver* out = GetGDALDriverManager()->GetDriverByName(driver);
    ASSERT_NE(out, nullptr) << driver;
    const GDALDatasetUniquePtr copy(
        out->CreateCopy(path.c_str(), source.get(), FALSE, creation.List(), nullptr, nullptr));
    ASSERT_TRUE(copy) << path;
}

}  // namespace qt::test
