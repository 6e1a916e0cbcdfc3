// The bake's input: the plan pass (a float band's range and voids), then windows of codes read
// through GDAL (or copied from a mapped .r16) by each region's thread.
#include "core/streaming/bake_input.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <gdal_priv.h>

#include "core/config.h"
#include "core/io/gdal_capacity.h"
#include "core/io/gdal_raster.h"
#include "core/io/heightmap_gdal.h"
#include "core/io/raw16.h"
#include "core/io/voids.h"
#include "core/streaming/mapped_codes.h"
#include "core/streaming/own_files.h"
#include "core/streaming/streamed_gdal.h"
#include "core/terrain/sample_range.h"

namespace qt {

namespace {

// The range of the samples of `samples` that are not kGdalVoid; `kept` is scratch. False when
// every one is a void.
bool validRange(const float* samples, size_t count, std::vector<float>& kept, SampleRange& out) {
    kept.clear();
    for (size_t i = 0; i < count; ++i) {
        if (samples[i] != kGdalVoid) {
            kept.push_back(samples[i]);
        }
    }
    if (kept.empty()) {
        return false;
    }
    out = sampleRange(kept.data(), kept.size());
    return true;
}

// What the float pass finds in a band of rows.
struct PlanPart {
    bool any = false;  // a sample given
    SampleRange range{0.0f, 0.0f, true};
    int64_t voids = 0;
    Status failed;
};

// The float pass over rows [first, last) of `band`, in reads of `step` rows: voids counted, the
// band's scale and offset applied, a wide band's samples beyond float refused, and the range of
// the samples given.
PlanPart planRows(GDALRasterBand& band, const GdalBand& info, int width, int first, int last,
                  int step) {
    const GdalMessages messages;  // this thread's
    PlanPart part;
    std::vector<float> buffer(size_t(step) * size_t(width));
    std::vector<float> kept;
    std::vector<uint8_t> maskRows;
    for (int row = first; row < last; row += step) {
        const int rows = std::min(step, last - row);
        const size_t n = size_t(rows) * size_t(width);
        if (band.RasterIO(GF_Read, 0, row, width, rows, buffer.data(), width, rows, GDT_Float32, 0,
                          0, nullptr) != CE_None ||
            (info.mask != nullptr &&
             !readGdalMask(info, width, row, rows, buffer.data(), maskRows))) {
            part.failed =
                Status::failure("cannot read the samples: " + messages.line("read failed"));
            return part;
        }
        if (info.wide && anyInfinity(buffer.data(), n)) {
            if (Status fits = checkWideRows(band, info, width, row, rows); !fits) {
                part.failed = fits;
                return part;
            }
        }
        const bool voids = anyGdalVoid(buffer.data(), n, info.nodata);
        if (voids) {
            markGdalVoids(buffer.data(), n, info.nodata);
            part.voids += int64_t(std::count(buffer.data(), buffer.data() + n, kGdalVoid));
        }
        if (info.rescale) {
            const double largest = rescaleSamples(buffer.data(), n, info.scale, info.offset);
            if (Status fits = checkRescaled(largest, info); !fits) {
                part.failed = fits;
                return part;
            }
        }
        SampleRange r{0.0f, 0.0f, true};
        if (!voids) {
            r = sampleRange(buffer.data(), n);
        } else if (!validRange(buffer.data(), n, kept, r)) {
            continue;  // nothing but voids in these rows
        }
        part.range = part.any
                         ? SampleRange{std::min(part.range.lo, r.lo), std::max(part.range.hi, r.hi),
                                       part.range.integral && r.integral}
                         : r;
        part.any = true;
    }
    return part;
}

// The quantiser and coding of a float band whose valid samples span `range`.
void setPlannedRange(const PlannedRange& range, const GdalBand& info, BakeInput& out) {
    out.nodataSamples = range.voids;
    out.quantiser = sampleQuantiser(range.lo, range.hi, range.integral);
    out.hi = range.hi;
    out.integral = range.integral;
    out.coding = codingInMetres(out.quantiser.coding, info);
}

// The float band's pass, its rows shared out in bands among `threads` threads (each on a dataset
// of its own; the first on `band`): its voids counted, the range of its given samples, the
// quantiser and the coding. A failure is the first band's, in row order, whatever finished first.
Status planFloats(GDALRasterBand& band, const GdalBand& info, int threads, BakeInput& out) {
    const int width = out.width;
    const int step = passReadRows(info.blockRows, width);
    const int reads = (out.height + step - 1) / step;
    const int bands = std::max(1, std::min(threads, reads));
    std::vector<PlanPart> parts(static_cast<size_t>(bands));
    const auto rowOf = [&](int b) { return std::min(out.height, reads * b / bands * step); };
    std::vector<std::thread> helpers;
    for (int b = 1; b < bands; ++b) {
        helpers.emplace_back([&, b] {
            const GdalMessages messages;
            Result<GdalRaster> opened = openGdalRaster(out.gdalPath, messages, kBakeSizeLimit);
            const Result<GdalBand> described =
                opened ? describeGdalBand(*opened.value().dataset, *opened.value().band)
                       : Result<GdalBand>::failure(opened.error());
            if (!described) {
                parts[size_t(b)].failed = Status::failure(described.error());
                return;
            }
            parts[size_t(b)] = planRows(*opened.value().band, described.value(), width, rowOf(b),
                                        rowOf(b + 1), step);
        });
    }
    parts[0] = planRows(band, info, width, 0, rowOf(1), step);
    for (std::thread& helper : helpers) {
        helper.join();
    }
    PlanPart all;
    for (const PlanPart& part : parts) {
        if (!part.failed) {
            return part.failed;
        }
        all.voids += part.voids;
        if (part.any) {
            all.range = all.any ? SampleRange{std::min(all.range.lo, part.range.lo),
                                              std::max(all.range.hi, part.range.hi),
                                              all.range.integral && part.range.integral}
                                : part.range;
            all.any = true;
        }
    }
    if (!all.any) {
        return Status::failure("every sample is nodata");
    }
    const SampleRange& range = all.range;
    const double extreme = std::max(std::fabs(double(range.lo)), std::fabs(double(range.hi)));
    if (!(extreme <= kMaxWorldCoordinate)) {
        return Status::failure("sample " + gdalNumber(extreme) + " is beyond the limit of " +
                               gdalNumber(kMaxWorldCoordinate) + " for a height");
    }
    setPlannedRange(PlannedRange{range.lo, range.hi, range.integral, all.voids}, info, out);
    return Status();
}

Result<BakeInput> planGdal(const std::string& path, int threads, const PlannedRange* given,
                           BakeInput out) {
    using R = Result<BakeInput>;
    registerGdalDrivers();
    const GdalMessages messages;
    out.gdalPath = gdalOpenPath(path);
    Result<GdalRaster> opened = openGdalRaster(out.gdalPath, messages, kBakeSizeLimit);
    if (!opened) {
        return R::failure(opened.error());
    }
    GdalRaster& raster = opened.value();
    const Result<GdalBand> described = describeGdalBand(*raster.dataset, *raster.band);
    if (!described) {
        return R::failure(described.error());
    }
    const GdalBand& info = described.value();
    if (Status holds = checkGdalCapacity(*raster.dataset, *raster.band); !holds) {
        return R::failure(holds.error());
    }
    out.width = raster.width;
    out.height = raster.height;
    out.geo = info.geo;
    out.metres = info.metres();
    if (info.geo.present && raster.dataset->GetGeoTransform(out.transform) == CE_None) {
        out.hasTransform = true;
        const char* wkt = raster.dataset->GetProjectionRef();
        out.wkt = wkt != nullptr ? wkt : "";
    }
    if (info.directUint16) {
        out.kind = BakeInput::Kind::GdalCodes;
        out.coding = codingInMetres(HeightCoding{0.0f, 1.0f}, info);
        return out;
    }
    out.kind = BakeInput::Kind::GdalFloats;
    if (given != nullptr) {
        setPlannedRange(*given, info, out);
        return out;
    }
    if (Status planned = planFloats(*raster.band, info, threads, out); !planned) {
        return R::failure(planned.error());
    }
    return out;
}

}  // namespace

Result<BakeInput> planBakeInput(const std::string& path, const LoadOptions& options, int threads,
                                const PlannedRange* given) {
    using R = Result<BakeInput>;
    BakeInput out;
    const std::string ext = lowerExtension(path);
    if (isGdalExtension(ext)) {
        return planGdal(path, threads, given, std::move(out));
    }
    if (ext != ".r16" && ext != ".raw") {
        return R::failure(
            "not a raster the bake reads (a GDAL raster: GeoTIFF, COG, VRT, ...; or a .r16); "
            "gdal_translate makes a GeoTIFF of it");
    }
    const Result<FileStamp> stamp = fileStamp(path);
    if (!stamp) {
        return R::failure(stamp.error());
    }
    const Result<RawGrid> grid = rawGrid(false, stamp.value().bytes, options, kBakeSizeLimit);
    if (!grid) {
        return R::failure(grid.error());
    }
    if (!canMapCodes()) {
        return R::failure("a .r16 is read as little-endian codes, and this host is big-endian");
    }
    out.kind = BakeInput::Kind::Raw16;
    out.path = path;
    out.width = grid.value().width;
    out.height = grid.value().height;
    return out;
}

// A reader's own dataset, its band described, and its scratch.
struct WindowReader::Gdal {
    GdalRaster raster;
    GdalBand info;
    std::vector<float> samples;
    std::vector<uint8_t> maskRows;
};

Result<WindowReader> WindowReader::open(const BakeInput& input) {
    using R = Result<WindowReader>;
    WindowReader reader(input);
    if (input.kind == BakeInput::Kind::Raw16) {
        Result<int> opened = openRegularFile(input.path);
        if (!opened) {
            return R::failure(opened.error());
        }
        reader.raw_ = std::shared_ptr<int>(new int(opened.value()), [](int* fd) {
            ::close(*fd);
            delete fd;
        });
        return reader;
    }
    const GdalMessages messages;
    Result<GdalRaster> opened = openGdalRaster(input.gdalPath, messages, kBakeSizeLimit);
    if (!opened) {
        return R::failure(opened.error());
    }
    const Result<GdalBand> described =
        describeGdalBand(*opened.value().dataset, *opened.value().band);
    if (!described) {
        return R::failure(described.error());
    }
    if (opened.value().width != input.width || opened.value().height != input.height) {
        return R::failure("its size changed while it was baked");
    }
    reader.gdal_ = std::make_shared<Gdal>();
    reader.gdal_->raster = std::move(opened.value());
    reader.gdal_->info = described.value();
    return reader;
}

Result<int64_t> WindowReader::read(int x0, int z0, int w, int h, uint16_t* codes, uint8_t* valid) {
    using R = Result<int64_t>;
    const BakeInput& input = *input_;
    const size_t n = size_t(w) * size_t(h);
    if (input.kind == BakeInput::Kind::Raw16) {
        for (int z = 0; z < h; ++z) {
            const size_t bytes = size_t(w) * sizeof(uint16_t);
            const off_t at =
                off_t((uint64_t(z0 + z) * uint64_t(input.width) + uint64_t(x0)) * sizeof(uint16_t));
            if (::pread(*raw_, codes + size_t(z) * size_t(w), bytes, at) != ssize_t(bytes)) {
                return R::failure("cannot read the samples (the file is shorter than it was)");
            }
        }
        if (valid != nullptr) {
            std::fill(valid, valid + n, uint8_t(255));
        }
        return int64_t(0);
    }
    const GdalMessages messages;
    GDALRasterBand& band = *gdal_->raster.band;
    if (input.kind == BakeInput::Kind::GdalCodes) {
        if (band.RasterIO(GF_Read, x0, z0, w, h, codes, w, h, GDT_UInt16, 0, 0, nullptr) !=
            CE_None) {
            return R::failure("cannot read the samples: " + messages.line("read failed"));
        }
        if (valid != nullptr) {
            std::fill(valid, valid + n, uint8_t(255));
        }
        return int64_t(0);
    }
    const GdalBand& info = gdal_->info;
    std::vector<float>& samples = gdal_->samples;
    samples.resize(n);
    if (band.RasterIO(GF_Read, x0, z0, w, h, samples.data(), w, h, GDT_Float32, 0, 0, nullptr) !=
            CE_None ||
        (info.mask != nullptr &&
         !readGdalMask(info, w, z0, h, samples.data(), gdal_->maskRows, x0))) {
        return R::failure("cannot read the samples: " + messages.line("read failed"));
    }
    int64_t voids = 0;
    if (anyGdalVoid(samples.data(), n, info.nodata)) {
        markGdalVoids(samples.data(), n, info.nodata);
        voids = int64_t(std::count(samples.begin(), samples.end(), kGdalVoid));
    }
    if (info.rescale) {
        rescaleSamples(samples.data(), n, info.scale, info.offset);  // the plan checked them
    }
    const float lo = input.quantiser.lo;
    for (size_t i = 0; i < n; ++i) {
        const float s = samples[i];
        if (s != kGdalVoid && !(s >= lo && s <= input.hi)) {
            return R::failure("sample " + gdalNumber(s) + " lies outside the plan's range (" +
                              gdalNumber(lo) + " to " + gdalNumber(input.hi) +
                              "): the input changed since its plan was made");
        }
    }
    if (valid != nullptr) {
        for (size_t i = 0; i < n; ++i) {
            valid[i] = samples[i] == kGdalVoid ? 0 : 255;
        }
    }
    if (voids == int64_t(n)) {
        std::fill(samples.begin(), samples.end(), lo);
    } else if (voids > 0) {
        fillVoids(samples.data(), w, h, kGdalVoid);
    }
    for (float& s : samples) {
        s = std::min(std::max(s, lo), input.hi);  // a rounded fill stays within the codes
    }
    quantiseRow(input.quantiser, samples.data(), codes, n);
    return voids;
}

}  // namespace qt
