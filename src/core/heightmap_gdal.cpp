// GDAL reader: one band of heights, sized and georeferenced before its pixels are read.
#include "core/heightmap_gdal.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include "core/config.h"
#include "core/leaf_ranges.h"
#include "core/memory_budget.h"
#include "core/sample_range.h"
#include "core/text.h"

namespace qt {
namespace {

constexpr const char* kGdalExtensions[] = {".tif", ".tiff", ".asc", ".vrt", ".gz",  ".zip",
                                           ".dem", ".bil",  ".flt", ".img", ".ter", ".bt"};

void registerDrivers() {
    static std::once_flag once;
    std::call_once(once, [] { GDALAllRegister(); });
}

// While alive, GDAL's messages on this thread are kept here instead of printed: the first
// failure (the cause; later ones tend to repeat it) becomes the one error line.
class GdalMessages {
public:
    GdalMessages() { CPLPushErrorHandlerEx(&GdalMessages::handle, this); }
    ~GdalMessages() { CPLPopErrorHandler(); }
    GdalMessages(const GdalMessages&) = delete;
    GdalMessages& operator=(const GdalMessages&) = delete;

    // The first failure on one line (control bytes escaped, at most 200 characters), or fallback.
    std::string line(const std::string& fallback) const {
        if (first_.empty()) {
            return fallback;
        }
        std::string text = escapedText(first_);
        if (text.size() > 200) {
            text = text.substr(0, 197) + "...";
        }
        return text;
    }

private:
    static void CPL_STDCALL handle(CPLErr level, CPLErrorNum, const char* message) {
        auto* self = static_cast<GdalMessages*>(CPLGetErrorHandlerUserData());
        if (self && level >= CE_Failure && self->first_.empty() && message) {
            self->first_ = message;
        }
    }
    std::string first_;
};

Result<Heightmap> fail(const std::string& name, const std::string& problem) {
    return Result<Heightmap>::failure(name + ": " + problem);
}

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

constexpr float kVoid = -std::numeric_limits<float>::infinity();

// Whether any sample is a void: nodata, NaN or infinite. A pass without branches that runs in
// SIMD lanes; the rare maps with voids are then marked sample by sample (markVoids).
bool anyVoid(const float* data, size_t count, float nodata) {
    constexpr float kLargest = std::numeric_limits<float>::max();
    uint32_t voids = 0;
    for (size_t i = 0; i < count; ++i) {
        const float v = data[i];
        voids |= uint32_t(!(std::fabs(v) <= kLargest)) | uint32_t(v == nodata);
    }
    return voids != 0;
}

// Every void becomes kVoid, the value fillVoids() fills.
void markVoids(float* samples, size_t count, float nodata) {
    for (size_t i = 0; i < count; ++i) {
        samples[i] = !std::isfinite(samples[i]) || samples[i] == nodata ? kVoid : samples[i];
    }
}

// Rows per read, at least: the checks of one block run on a helper while the next is read, on
// data still in the cache the read left it in.
constexpr int kReadRows = 64;

// Rows per read for a band stored in blocks blockRows high: a whole number of blocks, so that no
// tile or strip is decoded for two reads (a tiled GeoTIFF's tiles are often 256 or 512 high).
int readRows(int blockRows) {
    if (blockRows <= 0) {
        return kReadRows;
    }
    return ((kReadRows + blockRows - 1) / blockRows) * blockRows;
}

// What the loader needs of the samples before it quantises them, taken block by block as the
// reader finishes rows: the band's scale and offset applied, whether there is a void, and (when
// there is none) the range and integrality. The reader publishes how many rows are read under the
// mutex; the helper touches only rows below that count, the reader only rows above it.
struct BlockChecks {
    float* samples = nullptr;
    size_t width = 0;
    int rows = 0;  // the band's
    double scale = 1.0, offset = 0.0;
    bool rescale = false;
    float nodata = 0.0f;
    bool voids = false;
    SampleRange range{0.0f, 0.0f, true};

    std::mutex mutex;
    std::condition_variable wake;
    int published = 0;  // rows read; -1: the read failed, stop

    void rowsRead(int count) {
        {
            const std::lock_guard<std::mutex> lock(mutex);
            published = count;
        }
        wake.notify_one();
    }

    void run() {
        int done = 0;
        bool first = true;
        for (;;) {
            int ready = 0;
            {
                std::unique_lock<std::mutex> lock(mutex);
                wake.wait(lock, [&] { return published != done; });
                ready = published;
            }
            if (ready < 0) {
                return;
            }
            float* block = samples + size_t(done) * width;
            const size_t n = size_t(ready - done) * width;
            if (rescale) {
                for (size_t i = 0; i < n; ++i) {  // NaN stays NaN, a void
                    block[i] = float(double(block[i]) * scale + offset);
                }
            }
            voids = voids || anyVoid(block, n, nodata);
            if (!voids) {  // sampleRange needs finite samples
                const SampleRange r = sampleRange(block, n);
                range = first ? r
                              : SampleRange{std::min(range.lo, r.lo), std::max(range.hi, r.hi),
                                            range.integral && r.integral};
                first = false;
            }
            done = ready;
            if (done == rows) {
                return;
            }
        }
    }
};

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
        return R::failure("geotransform is rotated or sheared (terms " + number(t[2]) + ", " +
                          number(t[4]) + "); make it north-up first (gdalwarp)");
    }
    if (t[1] == 0.0 || t[5] == 0.0) {
        return R::failure("geotransform has a zero pixel size (" + number(t[1]) + " x " +
                          number(t[5]) + ")");
    }
    geo.present = true;
    geo.west = std::min(t[0], t[0] + t[1] * width);
    geo.east = std::max(t[0], t[0] + t[1] * width);
    geo.north = std::max(t[3], t[3] + t[5] * height);
    geo.south = std::min(t[3], t[3] + t[5] * height);
    double unitsX = std::fabs(t[1]);
    double unitsZ = std::fabs(t[5]);
    const OGRSpatialReference* srs = ds.GetSpatialRef();
    if (srs == nullptr) {
        // No CRS (an .asc without its .prj): the pixel size is taken as metres.
        geo.metresX = unitsX;
        geo.metresZ = unitsZ;
        return geo;
    }
    const char* crsName = srs->GetName();
    geo.crsName = crsName ? crsName : "";
    if (srs->IsGeographic()) {
        geo.geographic = true;
        const double toDegrees = srs->GetAngularUnits() * 180.0 / 3.14159265358979323846;
        const double middle = 0.5 * (geo.north + geo.south) * toDegrees;
        if (!(std::fabs(middle) <= 90.0)) {
            return R::failure("geographic raster centred at latitude " + number(middle) +
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
        return R::failure("samples are " + number(geo.metresX) + " x " + number(geo.metresZ) +
                          " metres apart; a map needs a positive spacing");
    }
    return geo;
}

}  // namespace

bool isGdalExtension(const std::string& ext) {
    return std::any_of(std::begin(kGdalExtensions), std::end(kGdalExtensions),
                       [&](const char* e) { return ext == e; });
}

const char* gdalExtensionList() {
    return ".tif .tiff .asc .vrt .dem .bil .flt .img .ter .bt .gz .zip";
}

namespace {

// loadGdalHeightmap; with `tree`, also the tree of leaves leafSize squares wide into it
// (loadGdalHeightmapWithTree).
// The tree's structure (it depends only on the size) built on a thread of its own while a band
// is read; joined by take() or, on every other way out, by the destructor.
class StructureDuringRead {
public:
    StructureDuringRead(bool wanted, int width, int height, int leafSize) {
        if (wanted) {
            thread_ = std::thread([this, width, height, leafSize] {
                result_ = buildQuadtreeStructure(width, height, leafSize);
            });
        }
    }
    ~StructureDuringRead() {
        if (thread_.joinable()) {
            thread_.join();
        }
    }
    StructureDuringRead(const StructureDuringRead&) = delete;
    StructureDuringRead& operator=(const StructureDuringRead&) = delete;

    Result<Quadtree> take() {
        if (thread_.joinable()) {
            thread_.join();
        }
        return std::move(result_);
    }

private:
    Result<Quadtree> result_ = Result<Quadtree>::failure("not built");
    std::thread thread_;
};

// Unsigned 16-bit heights with no nodata, scale or offset (the common DEM export) need no float
// copy: read straight into the codes, which are the file's values (step 1, offset 0), 2 bytes a
// sample; the tree's structure built on a thread during the read, the leaf ranges in one pass
// over the codes after it, on the load threads.
Result<Heightmap> loadUint16Band(GDALRasterBand& band, const std::string& name, int width,
                                 int height, const Georeference& geo, double unitMetres,
                                 int leafSize, Quadtree* tree, const GdalMessages& messages) {
    StructureDuringRead structure(tree != nullptr, width, height, leafSize);
    Heightmap map;
    map.width = width;
    map.height = height;
    map.format = HeightmapFormat::Elevation;
    map.geo = geo;
    map.metres = map.geo.present && unitMetres > 0.0;
    map.codes.resize(size_t(width) * size_t(height));  // not zeroed: the read writes every one
    int blockCols = 0, blockRows = 0;
    band.GetBlockSize(&blockCols, &blockRows);
    const int step = readRows(blockRows);
    for (int row = 0; row < height; row += step) {
        const int rows = std::min(step, height - row);
        if (band.RasterIO(GF_Read, 0, row, width, rows, map.codes.data() + size_t(row) * width,
                          width, rows, GDT_UInt16, 0, 0, nullptr) != CE_None) {
            return fail(name, "cannot read the samples: " + messages.line("read failed"));
        }
    }
    uint16_t lo = 0, hi = 0;
    std::vector<CodeRange> leafRanges;
    if (tree != nullptr) {
        const int leavesX = int(leavesAlong(width, leafSize));
        const int leavesZ = int(leavesAlong(height, leafSize));
        leafRanges.resize(size_t(leavesX) * size_t(leavesZ));
        leafRangesOfRows(map.codes.data(), width, height, leafSize, 0, leavesZ, leafRanges.data());
        lo = 65535;
        for (const CodeRange& r : leafRanges) {  // the leaves cover every sample
            lo = std::min(lo, r.minCode);
            hi = std::max(hi, r.maxCode);
        }
    } else {
        const auto [a, b] = std::minmax_element(map.codes.begin(), map.codes.end());
        lo = *a;
        hi = *b;
    }
    // Feet and other length units: the coding turns the codes into metres.
    const double toMetres = map.metres ? unitMetres : 1.0;
    map.coding = HeightCoding{0.0f, float(toMetres)};
    map.minCode = lo;
    map.maxCode = hi;
    map.minSample = map.coding.sample(lo);
    map.maxSample = map.coding.sample(hi);
    if (tree != nullptr) {
        Result<Quadtree> built = structure.take();
        if (!built) {
            return fail(name, built.error());
        }
        *tree = std::move(built).value();
        fillQuadtreeBounds(*tree, map, &leafRanges);
    }
    return map;
}

Result<Heightmap> loadGdal(const std::string& gdalPath, const std::string& name,
                           const MemoryBudget& memory, const SizeCheck& acceptSize, int leafSize,
                           Quadtree* tree) {
    registerDrivers();
    const GdalMessages messages;
    const GDALDatasetUniquePtr ds(GDALDataset::Open(
        gdalPath.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR));
    if (!ds) {
        return fail(name, "GDAL cannot open it: " + messages.line("not a raster GDAL reads"));
    }
    const int bands = ds->GetRasterCount();
    if (bands != 1) {
        return fail(name, "raster has " + std::to_string(bands) +
                              " bands; a heightmap is one band of heights (pick one with "
                              "gdal_translate -b N)");
    }
    const int width = ds->GetRasterXSize();
    const int height = ds->GetRasterYSize();
    if (Status size = checkDimensions(width, height); !size) {
        return fail(name, size.error());
    }
    if (Status budget = checkMemoryBudget(width, height, kGdalLoadBytesPerSample, memory);
        !budget) {
        return fail(name, budget.error());
    }
    if (acceptSize) {
        if (Status accepted = acceptSize(width, height); !accepted) {
            return fail(name, accepted.error());
        }
    }
    GDALRasterBand* band = ds->GetRasterBand(1);
    if (GDALDataTypeIsComplex(band->GetRasterDataType())) {
        return fail(name, "complex samples are not heights");
    }
    const Result<Georeference> geo = georeference(*ds, width, height);
    if (!geo) {
        return fail(name, geo.error());
    }
    const double unitMetres = metresPerHeightUnit(band->GetUnitType());
    int hasScale = 0;
    int hasOffset = 0;
    const double scale = band->GetScale(&hasScale);
    const double offset = band->GetOffset(&hasOffset);
    int hasNodata = 0;
    const double nodata = band->GetNoDataValue(&hasNodata);

    const float nodataValue = hasNodata ? float(nodata) : std::numeric_limits<float>::quiet_NaN();
    const bool rescale = (hasScale && scale != 1.0) || (hasOffset && offset != 0.0);
    if (band->GetRasterDataType() == GDT_UInt16 && !hasNodata && !rescale) {
        return loadUint16Band(*band, name, width, height, geo.value(), unitMetres, leafSize, tree,
                              messages);
    }
    const size_t count = size_t(width) * size_t(height);
    // Every sample as float32 (GDAL converts every sample type); the size was checked above, so
    // this is at most kMaxSamples floats. Not zeroed: the read writes every one.
    const std::unique_ptr<float[]> samples(new float[count]);
    BlockChecks checks;
    checks.samples = samples.get();
    checks.width = size_t(width);
    checks.rows = height;
    checks.scale = scale;
    checks.offset = offset;
    checks.rescale = rescale;
    checks.nodata = nodataValue;
    std::thread checker(&BlockChecks::run, &checks);
    // The tree's structure depends only on the size: built on a thread of its own while the band
    // is read. At its peak the load then holds the floats (4 bytes a sample), the codes (2) and
    // the tree (about 2.7 at leaves of 4): within the product's 12 bytes a sample
    // (kLoadBytesPerSample), under the kGdalLoadBytesPerSample checked above.
    StructureDuringRead structure(tree != nullptr, width, height, leafSize);
    bool read = true;
    int blockCols = 0, blockRows = 0;
    band->GetBlockSize(&blockCols, &blockRows);
    const int step = readRows(blockRows);
    for (int row = 0; row < height && read; row += step) {
        const int rows = std::min(step, height - row);
        read = band->RasterIO(GF_Read, 0, row, width, rows, samples.get() + size_t(row) * width,
                              width, rows, GDT_Float32, 0, 0, nullptr) == CE_None;
        checks.rowsRead(read ? row + rows : -1);
    }
    checker.join();
    if (!read) {
        return fail(name, "cannot read the samples: " + messages.line("read failed"));
    }
    SampleRange range = checks.range;
    if (checks.voids) {
        markVoids(samples.get(), count, nodataValue);
        if (!fillVoids(samples.get(), width, height, kVoid)) {
            return fail(name, "every sample is nodata");
        }
        range = sampleRange(samples.get(), count);
    }
    const float lo = range.lo;
    const float hi = range.hi;
    const double extreme = std::max(std::fabs(double(lo)), std::fabs(double(hi)));
    if (!(extreme <= kMaxWorldCoordinate)) {
        return fail(name, "sample " + number(extreme) + " is beyond the limit of " +
                              number(kMaxWorldCoordinate) + " for a height");
    }
    Heightmap map;
    map.width = width;
    map.height = height;
    map.format = HeightmapFormat::Elevation;
    map.geo = geo.value();
    map.metres = map.geo.present && unitMetres > 0.0;
    std::vector<CodeRange> leafRanges;
    encodeSamples(map, samples.get(), count, lo, hi, range.integral, leafSize,
                  tree != nullptr ? &leafRanges : nullptr);
    if (map.metres && unitMetres != 1.0) {  // feet: the coding turns them into metres
        map.coding.offset = float(map.coding.offset * unitMetres);
        map.coding.step = float(map.coding.step * unitMetres);
        map.minSample = map.coding.sample(map.minCode);
        map.maxSample = map.coding.sample(map.maxCode);
    }
    if (tree != nullptr) {
        Result<Quadtree> built = structure.take();
        if (!built) {
            return fail(name, built.error());
        }
        *tree = std::move(built).value();
        fillQuadtreeBounds(*tree, map, &leafRanges);
    }
    return map;
}

}  // namespace

Result<Heightmap> loadGdalHeightmap(const std::string& gdalPath, const std::string& name,
                                    const MemoryBudget& memory, const SizeCheck& acceptSize) {
    return loadGdal(gdalPath, name, memory, acceptSize, 0, nullptr);
}

Result<HeightmapWithTree> loadGdalHeightmapWithTree(const std::string& gdalPath,
                                                    const std::string& name, int leafSize,
                                                    const MemoryBudget& memory,
                                                    const SizeCheck& acceptSize) {
    using R = Result<HeightmapWithTree>;
    if (!isValidLeafSize(leafSize)) {
        return R::failure(name + ": " + buildQuadtreeStructure(2, 2, leafSize).error());
    }
    HeightmapWithTree loaded;
    Result<Heightmap> map = loadGdal(gdalPath, name, memory, acceptSize, leafSize, &loaded.tree);
    if (!map) {
        return R::failure(map.error());
    }
    loaded.map = std::move(map.value());
    return loaded;
}

Result<Heightmap> decodeGdalHeightmap(const std::string& name, const std::string& fileName,
                                      const std::vector<unsigned char>& bytes) {
    registerDrivers();
    static std::atomic<unsigned> serial{0};
    const size_t slash = fileName.find_last_of('/');
    const std::string base = fileName.substr(slash == std::string::npos ? 0 : slash + 1);
    const std::string folder = "/vsimem/quadterrain_" + std::to_string(serial++);
    const std::string path = folder + "/" + base;
    // GDAL reads the caller's bytes in place; the file is unlinked before they go.
    VSILFILE* file = VSIFileFromMemBuffer(path.c_str(), const_cast<GByte*>(bytes.data()),
                                          vsi_l_offset(bytes.size()), FALSE);
    if (file == nullptr) {
        return fail(name, "cannot hand the bytes to GDAL");
    }
    VSIFCloseL(file);
    const bool gz = base.size() > 3 && base.compare(base.size() - 3, 3, ".gz") == 0;
    Result<Heightmap> map = loadGdalHeightmap(gz ? "/vsigzip/" + path : path, name);
    VSIUnlink(path.c_str());
    return map;
}

}  // namespace qt
