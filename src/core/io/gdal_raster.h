// One band of heights opened through GDAL and described before a pixel is read: the checks and
// helpers the full load (heightmap_gdal) and the streamed open (streamed_gdal) share.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <gdal_priv.h>

#include "core/base/result.h"
#include "core/terrain/georeference.h"
#include "core/terrain/heightmap.h"

namespace qt {

// GDAL's drivers, registered once, with the options every use of GDAL here needs set first: no
// inline Python from a VRT (GDAL_VRT_ENABLE_PYTHON=NO, whatever the environment says) and no
// .properties file written beside a .gz (CPL_VSIL_GZIP_WRITE_PROPERTIES=NO).
void registerGdalDrivers();

// While alive, GDAL's messages on this thread are kept here instead of printed: the first
// failure (the cause; later ones tend to repeat it) becomes the one error line.
class GdalMessages {
public:
    GdalMessages();
    ~GdalMessages();
    GdalMessages(const GdalMessages&) = delete;
    GdalMessages& operator=(const GdalMessages&) = delete;

    // The first failure on one line (control bytes escaped, at most 200 characters), or fallback.
    std::string line(const std::string& fallback) const;

private:
    static void CPL_STDCALL handle(CPLErr level, CPLErrorNum, const char* message);
    std::string first_;
};

// Lowers GDAL's block cache, for the rest of the process, to `bytes` where it is larger (GDAL's
// default is a twentieth of the machine's memory): for readers that keep what they read
// elsewhere, as a layout's tiles go into the code cache and its pages and imagery's into their
// pools, a larger cache only holds second copies, growing over a flight.
void lowerGdalCache(int64_t bytes);

// GDAL's block cache capped at `bytes` while alive (left as it is when already smaller): a pass
// that reads or writes each block once gains nothing from a larger one.
class GdalCacheCap {
public:
    explicit GdalCacheCap(int64_t bytes);
    ~GdalCacheCap();
    GdalCacheCap(const GdalCacheCap&) = delete;
    GdalCacheCap& operator=(const GdalCacheCap&) = delete;

private:
    int64_t before_;
};

// A raster opened with one band of heights and its size checked (checkDimensions).
struct GdalRaster {
    GDALDatasetUniquePtr dataset;
    GDALRasterBand* band = nullptr;
    int width = 0;
    int height = 0;
};

// Opens what GDAL opens at gdalPath, every file it would open checked first (checkGdalInputs:
// regular files only, so that nothing blocks); fails (one line, without the name) for those, when
// GDAL cannot open it, when it has other than one band, or for a size out of the limits.
// `limit` is the limit of its size (checkDimensions): kBakeSizeLimit for what the bake reads.
Result<GdalRaster> openGdalRaster(const std::string& gdalPath, const GdalMessages& messages,
                                  SizeLimit limit = kMapSizeLimit);

// What the loaders need of the band besides its samples.
struct GdalBand {
    Georeference geo;
    double unitMetres = 1.0;  // metres in one height unit; 0 when the unit is not a length
    double scale = 1.0;
    double offset = 0.0;
    bool rescale = false;                                    // a scale or offset other than 1 and 0
    float nodata = std::numeric_limits<float>::quiet_NaN();  // NaN: none
    double nodataValue = 0.0;                                // as the band states it
    bool hasNodata = false;
    // Float64 samples: a finite one beyond float's range reads as an infinity (checkWideRows).
    bool wide = false;
    int blockRows = 0;  // the file's block (tile or strip) height; 0: unknown
    // A mask band of the raster's own (an alpha band, a per-dataset or .msk mask; not the one
    // GDAL derives from the nodata value): its zeros are nodata too (readGdalMask).
    GDALRasterBand* mask = nullptr;
    // Unsigned 16-bit heights with no nodata, mask, scale or offset: read straight into the codes.
    bool directUint16 = false;
    bool metres() const { return geo.present && unitMetres > 0.0; }
};

// The coding of codes made from the band's samples, in metres: a length unit other than metres
// (feet) scales the offset and the step; other bands keep `coding`.
HeightCoding codingInMetres(HeightCoding coding, const GdalBand& band);

// Describes the band: refuses complex samples, a scale or offset that is not finite, and a
// geotransform that is not north-up or whose corners are not numbers a map can have: not finite,
// a geographic raster beyond the poles or more than 360 degrees east or west, or an origin so far
// out that its pixel size is lost to rounding (one line, without the name).
Result<GdalBand> describeGdalBand(GDALDataset& dataset, GDALRasterBand& band);

// Marks as kGdalVoid the samples of rows [row, row + rows), columns [column, column + width)
// (width each, in `samples`) whose mask (GdalBand::mask) is zero, reading the mask's window into
// `scratch`; false when the read fails.
bool readGdalMask(const GdalBand& info, int width, int row, int rows, float* samples,
                  std::vector<uint8_t>& scratch, int column = 0);

// The value a void becomes before fillVoids: nodata, NaN and infinities alike.
constexpr float kGdalVoid = -std::numeric_limits<float>::infinity();

// Whether any sample is a void: nodata, NaN or infinite. A pass without branches that runs in
// SIMD lanes; the rare maps with voids are then marked sample by sample (markGdalVoids).
bool anyGdalVoid(const float* data, size_t count, float nodata);

// Every void becomes kGdalVoid.
void markGdalVoids(float* samples, size_t count, float nodata);

// The band's scale and offset applied to `count` samples whose voids are marked (markGdalVoids;
// they stay kGdalVoid): nodata is a raw value, so voids are found before. Returns the largest
// magnitude a sample took, in double, so that one beyond float's range is seen rather than made
// infinite (a void).
double rescaleSamples(float* samples, size_t count, double scale, double offset);

// The line for a rescaled sample beyond kMaxWorldCoordinate, or success.
Status checkRescaled(double largest, const GdalBand& band);

// Whether any sample is infinite: for a wide band, a sample float could not hold, or a void.
bool anyInfinity(const float* samples, size_t count);

// For a wide band: reads rows [first, first + count) again as doubles, one row at a time, and
// refuses a finite sample that float cannot hold (GDAL made it infinite, which would be filled as
// a void); nodata and true infinities stay voids.
Status checkWideRows(GDALRasterBand& band, const GdalBand& info, int width, int first, int count);

// Rows per read for a band stored in blocks blockRows high: at least 64 (the checks of one read
// run on a helper while the next is read), and a whole number of blocks, so that no tile or strip
// is decoded for two reads (a tiled GeoTIFF's tiles are often 256 or 512 high).
int gdalReadRows(int blockRows);

// %g of a number, for error lines.
std::string gdalNumber(double v);

}  // namespace qt
