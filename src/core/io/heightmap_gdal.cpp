// GDAL reader: one band of heights, sized and georeferenced before its pixels are read.
#include "core/io/heightmap_gdal.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <cpl_vsi.h>
#include <gdal_priv.h>

#include "core/base/text.h"
#include "core/config.h"
#include "core/io/gdal_capacity.h"
#include "core/io/gdal_inputs.h"
#include "core/io/gdal_raster.h"
#include "core/io/memory_budget.h"
#include "core/io/voids.h"
#include "core/terrain/leaf_ranges.h"
#include "core/terrain/quantise.h"
#include "core/terrain/sample_range.h"

namespace qt {
namespace {

constexpr const char* kGdalExtensions[] = {".tif", ".tiff", ".asc", ".vrt", ".gz",  ".zip",
                                           ".dem", ".bil",  ".flt", ".img", ".ter", ".bt"};

Result<Heightmap> fail(const std::string& name, const std::string& problem) {
    return Result<Heightmap>::failure(name + ": " + problem);
}

// What the loader needs of the samples before it quantises them, taken block by block as the
// reader finishes rows: the voids marked (nodata is a raw value, so before the scale), the band's
// scale and offset applied, and (when there is no void) the range and integrality; for a wide
// band, the blocks with an infinity, which the reader checks again as doubles once the read is
// done (checkWideRows: GDAL reads the band, and one thread at a time). The reader publishes how
// many rows are read under the mutex; the helper touches only rows below that count, the reader
// only rows above it.
struct BlockChecks {
    float* samples = nullptr;
    size_t width = 0;
    int rows = 0;  // the band's
    double scale = 1.0, offset = 0.0;
    bool rescale = false;
    float nodata = 0.0f;
    bool wide = false;
    bool voids = false;
    double largest = 0.0;  // the largest rescaled magnitude (rescaleSamples)
    SampleRange range{0.0f, 0.0f, true};
    std::vector<std::pair<int, int>> infinite;  // first row and rows of each block with one

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
            if (wide && anyInfinity(block, n)) {
                infinite.emplace_back(done, ready - done);
            }
            if (anyGdalVoid(block, n, nodata)) {
                voids = true;
                markGdalVoids(block, n, nodata);
            }
            if (rescale) {
                largest = std::max(largest, rescaleSamples(block, n, scale, offset));
            }
            if (!voids && largest <= kMaxWorldCoordinate) {  // sampleRange needs finite samples
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

}  // namespace

bool isGdalExtension(const std::string& ext) {
    return std::any_of(std::begin(kGdalExtensions), std::end(kGdalExtensions),
                       [&](const char* e) { return ext == e; });
}

const char* gdalExtensionList() {
    return ".tif .tiff .asc .vrt .dem .bil .flt .img .ter .bt .gz .zip";
}

std::string gdalOpenPath(const std::string& path) {
    if (isNetworkPath(path)) {
        return networkGdalPath(path);
    }
    return lowerExtension(path) == ".gz" ? "/vsigzip/" + path : path;
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
                                 int height, const GdalBand& info, int leafSize, Quadtree* tree,
                                 const GdalMessages& messages) {
    StructureDuringRead structure(tree != nullptr, width, height, leafSize);
    Heightmap map;
    map.width = width;
    map.height = height;
    map.format = HeightmapFormat::Elevation;
    map.geo = info.geo;
    map.metres = info.metres();
    map.codes.resize(size_t(width) * size_t(height));  // not zeroed: the read writes every one
    const int step = gdalReadRows(info.blockRows);
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
    map.coding = codingInMetres(HeightCoding{0.0f, 1.0f}, info);
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
    const GdalMessages messages;
    Result<GdalRaster> opened = openGdalRaster(gdalPath, messages);
    if (!opened) {
        return fail(name, opened.error());
    }
    GDALDataset& ds = *opened.value().dataset;
    GDALRasterBand* band = opened.value().band;
    const int width = opened.value().width;
    const int height = opened.value().height;
    if (Status budget = checkMemoryBudget(width, height, kGdalLoadBytesPerSample, memory);
        !budget) {
        return fail(name, budget.error());
    }
    if (acceptSize) {
        if (Status accepted = acceptSize(width, height); !accepted) {
            return fail(name, accepted.error());
        }
    }
    const Result<GdalBand> described = describeGdalBand(ds, *band);
    if (!described) {
        return fail(name, described.error());
    }
    const GdalBand& info = described.value();
    if (Status holds = checkGdalCapacity(ds, *band); !holds) {
        return fail(name, holds.error());
    }
    // A mask band of its own (an alpha band, a per-dataset or .msk mask), not the one GDAL
    // derives from the nodata value or the all-valid one: its zeros are nodata too.
    const int maskFlags = band->GetMaskFlags();
    GDALRasterBand* mask =
        (maskFlags & (GMF_ALL_VALID | GMF_NODATA)) == 0 ? band->GetMaskBand() : nullptr;
    if (info.directUint16 && mask == nullptr) {
        return loadUint16Band(*band, name, width, height, info, leafSize, tree, messages);
    }
    const size_t count = size_t(width) * size_t(height);
    // Every sample as float32 (GDAL converts every sample type); the size was checked above, so
    // this is at most kMaxSamples floats. Not zeroed: the read writes every one.
    const std::unique_ptr<float[]> samples(new float[count]);
    BlockChecks checks;
    checks.samples = samples.get();
    checks.width = size_t(width);
    checks.rows = height;
    checks.scale = info.scale;
    checks.offset = info.offset;
    checks.rescale = info.rescale;
    checks.nodata = info.nodata;
    checks.wide = info.wide;
    std::thread checker(&BlockChecks::run, &checks);
    // The tree's structure depends only on the size: built on a thread of its own while the band
    // is read. At its peak the load then holds the floats (4 bytes a sample), the codes (2) and
    // the tree (about 2.7 at leaves of 4): within the product's 12 bytes a sample
    // (kLoadBytesPerSample), under the kGdalLoadBytesPerSample checked above.
    StructureDuringRead structure(tree != nullptr, width, height, leafSize);
    bool read = true;
    const int step = gdalReadRows(info.blockRows);
    std::vector<uint8_t> valid(mask != nullptr ? size_t(step) * size_t(width) : 0);
    for (int row = 0; row < height && read; row += step) {
        const int rows = std::min(step, height - row);
        float* first = samples.get() + size_t(row) * width;
        read = band->RasterIO(GF_Read, 0, row, width, rows, first, width, rows, GDT_Float32, 0, 0,
                              nullptr) == CE_None;
        if (read && mask != nullptr) {
            read = mask->RasterIO(GF_Read, 0, row, width, rows, valid.data(), width, rows, GDT_Byte,
                                  0, 0, nullptr) == CE_None;
            for (size_t i = 0; read && i < size_t(rows) * size_t(width); ++i) {
                first[i] = valid[i] == 0 ? kGdalVoid : first[i];
            }
        }
        checks.rowsRead(read ? row + rows : -1);
    }
    checker.join();
    if (!read) {
        return fail(name, "cannot read the samples: " + messages.line("read failed"));
    }
    for (const auto& [first, rows] : checks.infinite) {
        if (Status fits = checkWideRows(*band, info, width, first, rows); !fits) {
            return fail(name, fits.error());
        }
    }
    if (Status fits = checkRescaled(checks.largest, info); !fits) {
        return fail(name, fits.error());
    }
    SampleRange range = checks.range;
    NodataMask nodata;
    if (checks.voids) {
        // Which samples were voids, before the fill gives them values (core/terrain/nodata.h).
        nodata = markNodata(samples.get(), width, height, kGdalVoid);
        if (!fillVoids(samples.get(), width, height, kGdalVoid)) {
            return fail(name, "every sample is nodata");
        }
        range = sampleRange(samples.get(), count);
    }
    const float lo = range.lo;
    const float hi = range.hi;
    const double extreme = std::max(std::fabs(double(lo)), std::fabs(double(hi)));
    if (!(extreme <= kMaxWorldCoordinate)) {
        return fail(name, "sample " + gdalNumber(extreme) + " is beyond the limit of " +
                              gdalNumber(kMaxWorldCoordinate) + " for a height");
    }
    Heightmap map;
    map.width = width;
    map.height = height;
    map.format = HeightmapFormat::Elevation;
    map.geo = info.geo;
    map.metres = info.metres();
    map.nodata = std::move(nodata);
    map.nodata.total = int64_t(count);
    std::vector<CodeRange> leafRanges;
    encodeSamples(map, samples.get(), count, lo, hi, range.integral, leafSize,
                  tree != nullptr ? &leafRanges : nullptr);
    map.coding = codingInMetres(map.coding, info);
    map.minSample = map.coding.sample(map.minCode);
    map.maxSample = map.coding.sample(map.maxCode);
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
    registerGdalDrivers();
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
