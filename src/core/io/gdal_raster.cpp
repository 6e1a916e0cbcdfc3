// Opening one band of heights through GDAL: the checks before a pixel is read, the georeference,
// and the void and scale helpers every GDAL read applies.
#include "core/io/gdal_raster.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <utility>
#include <vector>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <ogr_spatialref.h>

#include "core/base/text.h"
#include "core/config.h"
#include "core/io/gdal_inputs.h"
#include "core/terrain/heightmap.h"

namespace qt {
namespace {

// Metres in one of the band's height units, from its unit name ("" and "m" are metres); 0 when
// the unit is not a length.
double metresPerHeightUnit(const char* unit) {
    std::string u = unit ? unit : "";
    std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return char(tolower(c)); });
    if (u.empty() || u == "m" || u == "metre" || u == "meter" || u == "metres" || u == "meters") {
        return 1.0;
    }
    if (u == "ft" || u == "foot" || u == "feet" || u == "international foot") {
        return 0.3048;
    }
    if (u == "us-ft" || u == "us survey foot" || u == "ftus") {
        return 1200.0 / 3937.0;
    }
    return 0.0;
}

// The georeference from the geotransform and CRS: corners, and metres per sample on each axis
// (pixel size times the CRS's linear unit; for degrees, metres per degree at the map's middle
// latitude on the CRS's ellipsoid). Refuses what cannot be drawn north-up on a grid.
Result<Georeference> georeference(GDALDataset& ds, int width, int height) {
    using R = Result<Georeference>;
    Georeference geo;
    double t[6] = {0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
    if (ds.GetGeoTransform(t) != CE_None) {
        return geo;  // no geotransform: a plain raster
    }
    if (!std::all_of(t, t + 6, [](double v) { return std::isfinite(v); })) {
        return R::failure("geotransform holds a NaN or infinite number");
    }
    if (t[2] != 0.0 || t[4] != 0.0) {
        return R::failure("geotransform is rotated or sheared (terms " + gdalNumber(t[2]) + ", " +
                          gdalNumber(t[4]) + "); make it north-up first (gdalwarp)");
    }
    if (t[1] == 0.0 || t[5] == 0.0) {
        return R::failure("geotransform has a zero pixel size (" + gdalNumber(t[1]) + " x " +
                          gdalNumber(t[5]) + ")");
    }
    geo.present = true;
    geo.west = std::min(t[0], t[0] + t[1] * width);
    geo.east = std::max(t[0], t[0] + t[1] * width);
    geo.north = std::max(t[3], t[3] + t[5] * height);
    geo.south = std::min(t[3], t[3] + t[5] * height);
    geo.columnsWest = t[1] < 0.0;
    geo.rowsNorth = t[5] > 0.0;
    double unitsX = std::fabs(t[1]);
    double unitsZ = std::fabs(t[5]);
    if (!std::isfinite(geo.west) || !std::isfinite(geo.east) || !std::isfinite(geo.north) ||
        !std::isfinite(geo.south)) {
        return R::failure("geotransform's corners are not finite (origin " + gdalNumber(t[0]) +
                          ", " + gdalNumber(t[3]) + ", pixel size " + gdalNumber(t[1]) + " x " +
                          gdalNumber(t[5]) + ")");
    }
    const OGRSpatialReference* srs = ds.GetSpatialRef();
    if (srs != nullptr && srs->IsGeographic()) {
        const double toDegrees = srs->GetAngularUnits() * 180.0 / 3.14159265358979323846;
        const double slackX = unitsX * toDegrees;  // a pixel beyond, for rasters of areas
        const double slackZ = unitsZ * toDegrees;
        for (const double lon : {geo.west * toDegrees, geo.east * toDegrees}) {
            if (!(std::fabs(lon) <= 360.0 + slackX)) {
                return R::failure("geographic raster reaches longitude " + gdalNumber(lon) +
                                  ", beyond -360 to 360 degrees");
            }
        }
        for (const double lat : {geo.north * toDegrees, geo.south * toDegrees}) {
            if (!(std::fabs(lat) <= 90.0 + slackZ)) {
                return R::failure("geographic raster reaches latitude " + gdalNumber(lat) +
                                  ", beyond the poles");
            }
        }
    }
    // The corners must be apart by the pixel size times the samples: an origin far out (1e300)
    // leaves west = east once rounded.
    const double spanX = unitsX * width;
    const double spanZ = unitsZ * height;
    if (!(std::fabs((geo.east - geo.west) - spanX) <= 1e-6 * spanX) ||
        !(std::fabs((geo.north - geo.south) - spanZ) <= 1e-6 * spanZ)) {
        return R::failure("geotransform's origin " + gdalNumber(t[0]) + ", " + gdalNumber(t[3]) +
                          " is too far out for its pixel size " + gdalNumber(t[1]) + " x " +
                          gdalNumber(t[5]) + ": the corners round together");
    }
    if (srs == nullptr) {
        // No CRS (an .asc without its .prj): the pixel size is taken as metres.
        geo.metresX = unitsX;
        geo.metresZ = unitsZ;
        return geo;
    }
    const char* crsName = srs->GetName();
    geo.crsName = crsName ? crsName : "";
    char* wkt = nullptr;
    const char* const wktOptions[] = {"FORMAT=WKT2", nullptr};  // WKT1 loses some CRSs' details
    if (srs->exportToWkt(&wkt, wktOptions) == OGRERR_NONE && wkt != nullptr) {
        geo.crsWkt = wkt;
    }
    CPLFree(wkt);
    if (srs->IsGeographic()) {
        geo.geographic = true;
        const double toDegrees = srs->GetAngularUnits() * 180.0 / 3.14159265358979323846;
        const double middle = 0.5 * (geo.north + geo.south) * toDegrees;
        if (!(std::fabs(middle) <= 90.0)) {
            return R::failure("geographic raster centred at latitude " + gdalNumber(middle) +
                              ", beyond the poles");
        }
        OGRErr err = OGRERR_NONE;
        const double a = srs->GetSemiMajor(&err);
        const double invF = srs->GetInvFlattening(&err);
        const MetresPerDegree m = metresPerDegree(middle, a, invF);
        geo.metresX = unitsX * toDegrees * m.eastWest;
        geo.metresZ = unitsZ * toDegrees * m.northSouth;
    } else {
        const double metres = srs->GetLinearUnits();
        geo.metresX = unitsX * metres;
        geo.metresZ = unitsZ * metres;
    }
    if (!(geo.metresX > 0.0 && geo.metresZ > 0.0)) {
        return R::failure("samples are " + gdalNumber(geo.metresX) + " x " +
                          gdalNumber(geo.metresZ) +
                          " metres apart; a map needs a positive spacing");
    }
    return geo;
}

}  // namespace

void registerGdalDrivers() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Set as options, which GDAL reads before the environment: a VRT's inline Python (a
        // pixel function GDAL would run with GDAL_VRT_ENABLE_PYTHON=YES) is never run, since a
        // map is data; and /vsigzip/ leaves no MAP.gz.properties beside a map it reads.
        CPLSetConfigOption("GDAL_VRT_ENABLE_PYTHON", "NO");
        CPLSetConfigOption("CPL_VSIL_GZIP_WRITE_PROPERTIES", "NO");
        // Maps named by URL: a server that does not answer, or stops sending, fails the read
        // in bounded time rather than holding it; answers that ask to come back later (429, 5xx)
        // are retried three times from 0.5 s on (GDAL lengthens each wait). Each is a default: the
        // same option in the environment wins.
        for (const auto& [name, value] :
             {std::pair{"GDAL_HTTP_CONNECTTIMEOUT", "10"},
              std::pair{"GDAL_HTTP_LOW_SPEED_TIME", "20"},
              std::pair{"GDAL_HTTP_LOW_SPEED_LIMIT", "1"}, std::pair{"GDAL_HTTP_MAX_RETRY", "3"},
              std::pair{"GDAL_HTTP_RETRY_DELAY", "0.5"}}) {
            if (CPLGetConfigOption(name, nullptr) == nullptr) {
                CPLSetConfigOption(name, value);
            }
        }
        GDALAllRegister();
    });
}

GdalMessages::GdalMessages() {
    CPLPushErrorHandlerEx(&GdalMessages::handle, this);
}

GdalMessages::~GdalMessages() {
    CPLPopErrorHandler();
}

std::string GdalMessages::line(const std::string& fallback) const {
    if (first_.empty()) {
        return fallback;
    }
    std::string text = escapedText(first_);
    if (text.size() > 200) {
        text = text.substr(0, 197) + "...";
    }
    return text;
}

void CPL_STDCALL GdalMessages::handle(CPLErr level, CPLErrorNum, const char* message) {
    auto* self = static_cast<GdalMessages*>(CPLGetErrorHandlerUserData());
    if (self && level >= CE_Failure && self->first_.empty() && message) {
        self->first_ = message;
    }
}

Result<GdalRaster> openGdalRaster(const std::string& gdalPath, const GdalMessages& messages,
                                  SizeLimit limit) {
    using R = Result<GdalRaster>;
    registerGdalDrivers();  // before the first read: its options bound a network read's waits
    if (Status inputs = checkGdalInputs(gdalPath); !inputs) {
        return R::failure(inputs.error());
    }
    GdalRaster raster;
    raster.dataset.reset(GDALDataset::Open(
        gdalPath.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR));
    if (!raster.dataset) {
        return R::failure("GDAL cannot open it: " + messages.line("not a raster GDAL reads"));
    }
    const int bands = raster.dataset->GetRasterCount();
    if (bands != 1) {
        return R::failure("raster has " + std::to_string(bands) +
                          " bands; a heightmap is one band of heights (pick one with "
                          "gdal_translate -b N)");
    }
    raster.width = raster.dataset->GetRasterXSize();
    raster.height = raster.dataset->GetRasterYSize();
    if (Status size = checkDimensions(raster.width, raster.height, limit); !size) {
        return R::failure(size.error());
    }
    raster.band = raster.dataset->GetRasterBand(1);
    return raster;
}

Result<GdalBand> describeGdalBand(GDALDataset& dataset, GDALRasterBand& band) {
    using R = Result<GdalBand>;
    if (GDALDataTypeIsComplex(band.GetRasterDataType())) {
        return R::failure("complex samples are not heights");
    }
    Result<Georeference> geo =
        georeference(dataset, dataset.GetRasterXSize(), dataset.GetRasterYSize());
    if (!geo) {
        return R::failure(geo.error());
    }
    GdalBand out;
    out.geo = std::move(geo.value());
    out.unitMetres = metresPerHeightUnit(band.GetUnitType());
    int hasScale = 0;
    int hasOffset = 0;
    out.scale = band.GetScale(&hasScale);
    out.offset = band.GetOffset(&hasOffset);
    if (!std::isfinite(out.scale) || !std::isfinite(out.offset)) {
        return R::failure("band scale " + gdalNumber(out.scale) + " and offset " +
                          gdalNumber(out.offset) + " are not both finite numbers");
    }
    int hasNodata = 0;
    const double nodata = band.GetNoDataValue(&hasNodata);
    out.hasNodata = hasNodata != 0;
    if (out.hasNodata) {
        out.nodata = float(nodata);
        out.nodataValue = nodata;
    }
    out.wide = band.GetRasterDataType() == GDT_Float64;
    out.rescale = (hasScale && out.scale != 1.0) || (hasOffset && out.offset != 0.0);
    int blockCols = 0;
    band.GetBlockSize(&blockCols, &out.blockRows);
    const int maskFlags = band.GetMaskFlags();
    out.mask = (maskFlags & (GMF_ALL_VALID | GMF_NODATA)) == 0 ? band.GetMaskBand() : nullptr;
    out.directUint16 = band.GetRasterDataType() == GDT_UInt16 && !out.hasNodata && !out.rescale &&
                       out.mask == nullptr;
    return out;
}

HeightCoding codingInMetres(HeightCoding coding, const GdalBand& band) {
    if (band.metres() && band.unitMetres != 1.0) {
        coding.offset = float(coding.offset * band.unitMetres);
        coding.step = float(coding.step * band.unitMetres);
    }
    return coding;
}

bool anyGdalVoid(const float* data, size_t count, float nodata) {
    constexpr float kLargest = std::numeric_limits<float>::max();
    uint32_t voids = 0;
    for (size_t i = 0; i < count; ++i) {
        const float v = data[i];
        voids |= uint32_t(!(std::fabs(v) <= kLargest)) | uint32_t(v == nodata);
    }
    return voids != 0;
}

void markGdalVoids(float* samples, size_t count, float nodata) {
    for (size_t i = 0; i < count; ++i) {
        samples[i] = !std::isfinite(samples[i]) || samples[i] == nodata ? kGdalVoid : samples[i];
    }
}

double rescaleSamples(float* samples, size_t count, double scale, double offset) {
    double largest = 0.0;
    for (size_t i = 0; i < count; ++i) {
        const float v = samples[i];
        if (v == kGdalVoid) {
            continue;
        }
        const double h = double(v) * scale + offset;
        largest = std::max(largest, std::fabs(h));
        samples[i] = float(h);
    }
    return largest;
}

Status checkRescaled(double largest, const GdalBand& band) {
    if (largest <= kMaxWorldCoordinate) {
        return {};
    }
    return Status::failure("sample " + gdalNumber(largest) + " (the band's scale " +
                           gdalNumber(band.scale) + " and offset " + gdalNumber(band.offset) +
                           " applied) is beyond the limit of " + gdalNumber(kMaxWorldCoordinate) +
                           " for a height");
}

bool anyInfinity(const float* samples, size_t count) {
    uint32_t found = 0;
    for (size_t i = 0; i < count; ++i) {
        found |= uint32_t(std::isinf(samples[i]));
    }
    return found != 0;
}

Status checkWideRows(GDALRasterBand& band, const GdalBand& info, int width, int first, int count) {
    std::vector<double> row(static_cast<size_t>(width));
    for (int r = first; r < first + count; ++r) {
        if (band.RasterIO(GF_Read, 0, r, width, 1, row.data(), width, 1, GDT_Float64, 0, 0,
                          nullptr) != CE_None) {
            return Status::failure("cannot read the samples again as doubles");
        }
        for (const double v : row) {
            if (!std::isfinite(v) || std::isfinite(float(v)) ||
                (info.hasNodata && v == info.nodataValue)) {
                continue;
            }
            const double h = v * info.scale + info.offset;
            return Status::failure(
                "sample " + gdalNumber(std::fabs(h) > kMaxWorldCoordinate ? h : v) +
                " is beyond the limit of " + gdalNumber(kMaxWorldCoordinate) + " for a height");
        }
    }
    return {};
}

int gdalReadRows(int blockRows) {
    constexpr int kReadRows = 64;
    if (blockRows <= 0) {
        return kReadRows;
    }
    return ((kReadRows + blockRows - 1) / blockRows) * blockRows;
}

std::string gdalNumber(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

void lowerGdalCache(int64_t bytes) {
    if (GDALGetCacheMax64() > bytes) {
        GDALSetCacheMax64(bytes);
    }
}

GdalCacheCap::GdalCacheCap(int64_t bytes) : before_(GDALGetCacheMax64()) {
    if (before_ > bytes) {
        GDALSetCacheMax64(bytes);
    }
}

GdalCacheCap::~GdalCacheCap() {
    GDALSetCacheMax64(before_);
}

bool readGdalMask(const GdalBand& info, int width, int row, int rows, float* samples,
                  std::vector<uint8_t>& scratch, int column) {
    const size_t count = size_t(rows) * size_t(width);
    scratch.resize(count);
    if (info.mask->RasterIO(GF_Read, column, row, width, rows, scratch.data(), width, rows,
                            GDT_Byte, 0, 0, nullptr) != CE_None) {
        return false;
    }
    for (size_t i = 0; i < count; ++i) {
        samples[i] = scratch[i] == 0 ? kGdalVoid : samples[i];
    }
    return true;
}

}  // namespace qt
