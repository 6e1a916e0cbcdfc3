// The streamed open of a GDAL raster: its code cache reused, or made in one banded pass through
// GDAL that quantises the band as the full load does and takes the tree's bounds on the way.
#include "core/streaming/streamed_gdal.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <utility>
#include <vector>

#include <cpl_string.h>

#include "core/base/scratch_array.h"
#include "core/base/text.h"
#include "core/config.h"
#include "core/io/gdal_capacity.h"
#include "core/io/gdal_raster.h"
#include "core/io/voids.h"
#include "core/streaming/cache_folder.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/layout.h"
#include "core/streaming/layout_tiles.h"
#include "core/streaming/nodata_sidecar.h"
#include "core/streaming/own_files.h"
#include "core/streaming/rows_ahead.h"
#include "core/terrain/leaf_ranges.h"
#include "core/terrain/quantise.h"
#include "core/terrain/sample_range.h"

namespace qt {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Result<StreamedMap> fail(const std::string& name, const std::string& problem) {
    return Result<StreamedMap>::failure(name + ": " + problem);
}

// The raster's files: the path, then GDAL's list (a VRT's sources, a GeoTIFF's .aux.xml).
std::vector<std::string> rasterFiles(GDALDataset& dataset, const std::string& path) {
    std::vector<std::string> files{path};
    char** list = dataset.GetFileList();
    for (char** f = list; f != nullptr && *f != nullptr; ++f) {
        files.emplace_back(*f);
    }
    CSLDestroy(list);
    return files;
}

// Reads rows of an unsigned 16-bit band straight into the cache (RowsAhead's chunks: whole rows
// of blocks). GDAL's messages are caught on the thread that reads.
class DirectRows {
public:
    DirectRows(GDALRasterBand& band, CodeCacheWriter& cache, int width, int height, int step,
               const ReadProgress& progress)
        : band_(band),
          cache_(cache),
          width_(width),
          height_(height),
          buffer_(size_t(step) * size_t(width)),
          progress_(progress) {}

    Status operator()(int first, int count) {
        const GdalMessages messages;
        if (band_.RasterIO(GF_Read, 0, first, width_, count, buffer_.data(), width_, count,
                           GDT_UInt16, 0, 0, nullptr) != CE_None) {
            return Status::failure("cannot read the samples: " + messages.line("read failed"));
        }
        Status wrote = cache_.writeRows(first, count, buffer_.data());
        if (wrote && progress_) {
            progress_(first + count, height_);
        }
        return wrote;
    }

private:
    GDALRasterBand& band_;
    CodeCacheWriter& cache_;
    int width_;
    int height_;
    std::vector<uint16_t> buffer_;
    const ReadProgress& progress_;
};

// What the first pass over a band read as floats found: the range of its samples (when none is a
// void) and whether there are voids.
struct FloatPass {
    SampleRange range{0.0f, 0.0f, true};
    bool voids = false;
    int64_t voidCount = 0;  // nodata samples
    // Their mask (NodataMask::bits), one bit a sample: a sixteenth of the codes' bytes, made at
    // the first void, so that the streamed map draws its holes as a loaded one does.
    std::vector<uint64_t> bits;
};

// Reads the band as floats into the scratch file, as the full load reads it: voids marked
// kGdalVoid, scale and offset applied, a wide band's infinities read again as doubles
// (checkWideRows), the range taken block by block.
Result<FloatPass> readFloats(GDALRasterBand& band, const GdalBand& info, FloatScratch& scratch,
                             const GdalMessages& messages, int width, int height, int step,
                             const ReadProgress& progress) {
    using R = Result<FloatPass>;
    FloatPass pass;
    std::vector<float> buffer(size_t(step) * size_t(width));
    std::vector<uint8_t> valid;  // the mask's rows, when the band has one
    bool first = true;
    for (int row = 0; row < height; row += step) {
        const int rows = std::min(step, height - row);
        const size_t n = size_t(rows) * size_t(width);
        if (band.RasterIO(GF_Read, 0, row, width, rows, buffer.data(), width, rows, GDT_Float32, 0,
                          0, nullptr) != CE_None ||
            (info.mask != nullptr && !readGdalMask(info, width, row, rows, buffer.data(), valid))) {
            return R::failure("cannot read the samples: " + messages.line("read failed"));
        }
        if (info.wide && anyInfinity(buffer.data(), n)) {
            if (Status fits = checkWideRows(band, info, width, row, rows); !fits) {
                return R::failure(fits.error());
            }
        }
        if (anyGdalVoid(buffer.data(), n, info.nodata)) {
            pass.voids = true;
            markGdalVoids(buffer.data(), n, info.nodata);
            if (pass.bits.empty()) {
                pass.bits.assign(size_t((uint64_t(width) * uint64_t(height) + 63) / 64), 0);
            }
            const size_t start = size_t(row) * size_t(width);
            for (size_t i = 0; i < n; ++i) {
                if (buffer[i] == kGdalVoid) {
                    pass.bits[(start + i) >> 6] |= uint64_t(1) << ((start + i) & 63);
                    ++pass.voidCount;
                }
            }
        }
        if (info.rescale) {
            const double largest = rescaleSamples(buffer.data(), n, info.scale, info.offset);
            if (Status fits = checkRescaled(largest, info); !fits) {
                return R::failure(fits.error());
            }
        }
        if (!pass.voids) {
            const SampleRange r = sampleRange(buffer.data(), n);
            pass.range =
                first ? r
                      : SampleRange{std::min(pass.range.lo, r.lo), std::max(pass.range.hi, r.hi),
                                    pass.range.integral && r.integral};
            first = false;
        }
        if (Status wrote = scratch.write(size_t(row) * size_t(width), n, buffer.data()); !wrote) {
            return R::failure(wrote.error());
        }
        if (progress) {
            progress(row + rows, 2 * int64_t(height));  // the first of two passes (ReadProgress)
        }
    }
    return pass;
}

// Rows of the scratch file read back at a time.
constexpr size_t kScratchChunkBytes = size_t(16) << 20;

// Fills the scratch file's voids (fillVoids, mapped, its pages dropped as the fill goes) and takes
// the range of the filled samples.
Result<SampleRange> fillScratchVoids(FloatScratch& scratch, int width, int height,
                                     uint64_t bandBytes) {
    using R = Result<SampleRange>;
    {
        Result<float*> samples = scratch.map();
        if (!samples) {
            return R::failure(samples.error());
        }
        VoidFillLimits limits;
        limits.maxQueued = std::max<size_t>(size_t(bandBytes / sizeof(uint32_t)), 1024);
        limits.tickEvery = size_t(1) << 24;
        limits.tick = [&scratch] { scratch.dropResident(); };
        const VoidFill filled = fillVoidsWithin(samples.value(), width, height, kGdalVoid, limits);
        scratch.unmap();
        if (filled == VoidFill::AllVoid) {
            return R::failure("every sample is nodata");
        }
        if (filled == VoidFill::TooMany) {
            return R::failure("its voids (nodata) are too many to fill streamed: more than " +
                              std::to_string(limits.maxQueued) +
                              " at once in the fill's queue; fill them first (gdal_fillnodata)");
        }
    }
    const size_t count = size_t(width) * size_t(height);
    std::vector<float> buffer(std::min(count, kScratchChunkBytes / sizeof(float)));
    SampleRange range{0.0f, 0.0f, true};
    for (size_t first = 0; first < count; first += buffer.size()) {
        const size_t n = std::min(buffer.size(), count - first);
        if (Status read = scratch.read(first, n, buffer.data()); !read) {
            return R::failure(read.error());
        }
        const SampleRange r = sampleRange(buffer.data(), n);
        range = first == 0 ? r
                           : SampleRange{std::min(range.lo, r.lo), std::max(range.hi, r.hi),
                                         range.integral && r.integral};
    }
    return range;
}

// Quantises rows of the scratch file into the cache's (quantiseRow: the full load's codes), in
// RowsAhead's chunks.
class QuantisedRows {
public:
    QuantisedRows(const FloatScratch& scratch, CodeCacheWriter& cache,
                  const SampleQuantiser& quantiser, int width, int height, int step,
                  const ReadProgress& progress)
        : scratch_(scratch),
          cache_(cache),
          quantiser_(quantiser),
          width_(width),
          height_(height),
          samples_(size_t(step) * size_t(width)),
          codes_(samples_.size()),
          progress_(progress) {}

    Status operator()(int first, int count) {
        const size_t n = size_t(count) * size_t(width_);
        if (Status read = scratch_.read(size_t(first) * size_t(width_), n, samples_.data());
            !read) {
            return read;
        }
        quantiseRow(quantiser_, samples_.data(), codes_.data(), n);
        Status wrote = cache_.writeRows(first, count, codes_.data());
        if (wrote && progress_) {
            // The second of two passes (ReadProgress).
            progress_(int64_t(height_) + first + count, 2 * int64_t(height_));
        }
        return wrote;
    }

private:
    const FloatScratch& scratch_;
    CodeCacheWriter& cache_;
    SampleQuantiser quantiser_;
    int width_;
    int height_;
    std::vector<float> samples_;
    std::vector<uint16_t> codes_;
    const ReadProgress& progress_;
};

// Rows the reader may make beyond those the banded pass has asked for: about a band's worth,
// so that the next band's rows are ready when the pass reaches them.
int leadRows(int width, uint64_t bandBytes, int step) {
    const uint64_t rows = bandBytes / (uint64_t(width) * sizeof(uint16_t));
    return int(std::min<uint64_t>(std::max<uint64_t>(rows, uint64_t(step)), uint64_t(1) << 30));
}

std::string folderOf(const std::string& path) {
    const std::string folder = std::filesystem::path(path).parent_path().string();
    return folder.empty() ? "." : folder;
}

// Where a raster's code cache may be (cachePlaces of ".qtcodes"), split by use: the places read,
// in order (a place only read when its cache is the program's own), and the writable places a new
// cache may go to, up to the first whose cache or sidecar path holds something not the program's
// own (own_files.h). That one is never read, written or removed: the codes then go to an unnamed
// file in its folder.
struct CacheSpots {
    std::vector<CachePlace> read;
    std::vector<CachePlace> write;
    std::string blocked;     // the path left alone ("" when none is)
    std::string blockedWhy;  // what is there
    std::string blockedDir;  // the folder of that place
};

CacheSpots cacheSpots(const std::vector<CachePlace>& places) {
    CacheSpots spots;
    for (const CachePlace& place : places) {
        if (!place.writable) {
            if (claimPath(place.path, kCodeCacheMagic).ours()) {
                spots.read.push_back(place);
            }
            continue;
        }
        if (!spots.blocked.empty()) {
            continue;
        }
        for (const auto& [path, magic] :
             {std::pair{place.path, kCodeCacheMagic},
              std::pair{sidecarPath(place.path), kTreeSidecarMagic},
              std::pair{nodataSidecarPath(place.path), kNodataSidecarMagic}}) {
            if (const PathClaim claim = claimPath(path, magic); claim.other()) {
                spots.blocked = path;
                spots.blockedWhy = claim.why;
                spots.blockedDir = folderOf(place.path);
                break;
            }
        }
        if (spots.blocked.empty()) {
            // Nothing to read in a cache folder not made yet (or that a file stands in for).
            std::error_code error;
            if (!place.inCacheFolder ||
                std::filesystem::is_directory(folderOf(place.path), error)) {
                spots.read.push_back(place);
            }
            spots.write.push_back(place);
        }
    }
    return spots;
}

// --cache-size for a new cache: the cache folder's own files at most limitBytes (0: no bound),
// the new cache and its sidecars keptBytes of them.
struct CacheBound {
    uint64_t limitBytes = 0;
    uint64_t keptBytes = 0;
};

// The bytes of disk held by the partial file of the cache at `path` (partialCachePath) when it
// is the program's own and of a width x height cache's length, which a writer takes up; else 0.
uint64_t partialCacheBlocks(const std::string& path, int width, int height) {
    const std::string partial = partialCachePath(path);
    struct stat st {};
    if (::lstat(partial.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        uint64_t(st.st_size) != codeCacheBytes(width, height) ||
        !claimPath(partial, kCodeCacheMagic).ours()) {
        return 0;
    }
    return std::min(uint64_t(st.st_blocks) * 512, uint64_t(st.st_size));
}

// The first writable place with room that takes a new cache (the cache folder made when missing),
// else an unnamed file for the codes (`chosen` then "", and `notKept` the line that says why): in
// the blocked place's folder, or in the scratch folder when no place could take the cache. The
// reasons the others did not, in one line, when none does.
Result<CodeCacheWriter> createCache(const CacheSpots& spots, uint64_t needBytes,
                                    const StreamOptions& stream, const CacheBound& bound, int width,
                                    int height, CodeCacheWriter::Blocks blocks, std::string& chosen,
                                    std::string& notKept) {
    std::string reasons;
    const auto roomIn = [&](const std::string& dir, bool cacheFolder, std::string& reason,
                            const std::string& keep) {
        if (cacheFolder) {
            if (Status made = makeCacheFolder(dir); !made) {
                reason = "cache folder " + made.error();
                return false;
            }
            // --cache-size: the least recently used caches there make room for this one.
            if (bound.limitBytes > 0) {
                if (Status room =
                        makeRoomInCacheFolder(dir, bound.limitBytes, bound.keptBytes, keep);
                    !room) {
                    reason = "cache folder: " + room.error();
                    return false;
                }
            }
        }
        // The temporaries of writers killed there (no unwinding) hold disk: a layout's first
        // becomes its partial file, the others go, before the room is counted. A layout's
        // partial file at `keep`, which the writer takes up, already holds its blocks.
        if (!keep.empty()) {
            removeAbandonedTemporaries(
                keep, kCodeCacheMagic,
                stream.layout != nullptr ? partialCachePath(keep) : std::string());
        }
        const uint64_t free =
            (stream.freeDiskBytes ? stream.freeDiskBytes(dir) : freeDiskBytes(dir)) +
            (stream.layout != nullptr && !keep.empty() ? partialCacheBlocks(keep, width, height)
                                                       : 0);
        if (free < needBytes) {
            reason = std::to_string(free >> 20) + " MiB free";
        }
        return free >= needBytes;
    };
    const auto unnamedIn = [&](const std::string& dir) {
        std::string reason;
        if (roomIn(dir, false, reason, "")) {
            Result<CodeCacheWriter> writer =
                CodeCacheWriter::createUnnamed(dir, width, height, blocks);
            if (writer) {
                chosen.clear();
                return writer;
            }
            reason = writer.error();
        }
        reasons += (reasons.empty() ? "" : "; ") + escapedPath(dir) + ": " + reason;
        return Result<CodeCacheWriter>::failure(reason);
    };
    for (const CachePlace& place : spots.write) {
        const std::string dir = folderOf(place.path);
        std::string reason;
        if (roomIn(dir, place.inCacheFolder, reason, place.path)) {
            Result<CodeCacheWriter> writer = CodeCacheWriter::create(
                place.path, width, height,
                stream.layout != nullptr ? CodeCacheWriter::Unfinished::KeptToResume
                                         : CodeCacheWriter::Unfinished::Removed,
                blocks);
            if (writer) {
                chosen = place.path;
                return writer;
            }
            reason = writer.error();
        }
        reasons += (reasons.empty() ? "" : "; ") + escapedPath(dir) + ": " + reason;
    }
    if (!spots.blocked.empty()) {
        notKept = escapedPath(spots.blocked) + ": left alone (" + spots.blockedWhy +
                  "); continuing without a code cache";
        if (Result<CodeCacheWriter> writer = unnamedIn(spots.blockedDir); writer) {
            return writer;
        }
    } else {
        notKept = (reasons.empty() ? std::string("no cache folder (neither XDG_CACHE_HOME nor HOME "
                                                 "is set)")
                                   : reasons) +
                  "; continuing without a code cache";
        if (Result<CodeCacheWriter> writer = unnamedIn(scratchFolder()); writer) {
            return writer;
        }
    }
    return Result<CodeCacheWriter>::failure(
        "no room for its code cache: it needs " + std::to_string(needBytes >> 20) +
        " MiB of disk (a margin of " + std::to_string(kStreamDiskMarginBytes >> 20) +
        " MiB included); " + (reasons.empty() ? "no folder to put it in" : reasons));
}

// Says on stderr (one line, kept in out.cacheProblem) why an existing cache is not used.
void reportCacheProblem(StreamedMap& out, const std::string& cache, const std::string& problem) {
    const std::string line = escapedPath(cache) + ": " + problem + ", rebuilding";
    std::fprintf(stderr, "%s\n", line.c_str());
    if (out.cacheProblem.empty()) {
        out.cacheProblem = line;
    }
}

// Opens out's map from an existing cache when it and its sidecar hold; false (the problem
// reported, for a writable place) when it must be rebuilt. The sidecar of a cache only read is
// never rewritten (a leaf size of its own is built from the codes each time).
// The header of the code cache of `map` (its size, coding and holes' count), the raster at `path`
// whose files' or layout's signature is `signature`.
CodeCacheHeader cacheHeader(uint64_t signature, const Heightmap& map, const std::string& path) {
    CodeCacheHeader header;
    header.source = signature;
    header.width = map.width;
    header.height = map.height;
    header.coding = map.coding;
    // Below kMaxSamples: a map of more samples is a layout opened by tiles, with no nodata.
    header.nodataSamples = uint32_t(map.nodata.samples);
    header.mapPath = recordedMapPath(path);
    return header;
}

Result<bool> reuseCache(StreamedMap& out, const CachePlace& place, uint64_t signature,
                        const StreamOptions& stream) {
    using R = Result<bool>;
    const std::string& cache = place.path;
    // A place only read (beside the map, without --cache-beside) is used when valid and passed
    // over in silence when not: the new cache is made where caches go.
    const auto say = [&](const std::string& problem) {
        if (place.writable) {
            reportCacheProblem(out, cache, problem);
        }
    };
    Heightmap& map = out.map;
    const Result<CodeCacheHeader> header =
        readCodeCacheHeader(cache, signature, map.width, map.height);
    if (!header) {
        if (header.error() != "missing") {
            say(header.error());
        }
        return false;
    }
    Result<MappedCodes> mapped =
        mapCodes(cache, codeCacheBytes(map.width, map.height), kCodeCacheHeaderBytes);
    if (!mapped) {
        say(mapped.error());
        return false;
    }
    // The sidecar vouches for the codes: it was written from this very file (length and
    // modification time), so a cache edited or replaced since is not trusted.
    const std::string sidecar = sidecarPath(cache);
    Result<TreeSidecar> read = stream.useSidecar
                                   ? readStreamedSidecar(out, sidecar, mapped.value().stamp)
                                   : Result<TreeSidecar>::failure("missing");
    const bool otherLeafSize = !read && read.error().rfind("made for leaf size", 0) == 0;
    if (!read && !otherLeafSize) {
        say(read.error().rfind("stale", 0) == 0
                ? "changed since its sidecar was written"
                : "not vouched for by its sidecar (" + read.error() + ")");
        return false;
    }
    // The holes: the mask saved with the cache, whose stamp it carries.
    NodataMask nodata;
    if (header.value().nodataSamples > 0) {
        Result<NodataMask> mask =
            readNodataSidecar(nodataSidecarPath(cache), mapped.value().stamp, map.width, map.height,
                              int64_t(header.value().nodataSamples));
        if (!mask) {
            say("its nodata sidecar is " + mask.error());
            return false;
        }
        nodata = std::move(mask.value());
    }
    map.nodata = std::move(nodata);
    map.codes = std::move(mapped.value().codes);
    map.coding = header.value().coding;
    map.nodata.samples = header.value().nodataSamples;
    map.nodata.total = int64_t(map.width) * map.height;
    TreeSidecar saved = read ? std::move(read.value()) : TreeSidecar{};
    if (Status tree = streamedTree(out, saved, read.ok(), mapped.value().stamp, stream); !tree) {
        return R::failure(tree.error());
    }
    if (otherLeafSize && place.writable) {
        writeStreamedSidecar(out, sidecar, mapped.value().stamp, saved);
    }
    out.sidecarPath = out.sidecarUsed || out.sidecarWritten ? sidecar : std::string();
    out.codes = CodeSource::CacheRead;
    out.cachePath = cache;
    return true;
}

}  // namespace

int passReadRows(int blockRows, int width) {
    const int rows = gdalReadRows(blockRows);
    return uint64_t(rows) * uint64_t(width) * sizeof(float) <= kStreamReadBytes ? rows
                                                                                : gdalReadRows(0);
}

Result<RasterSize> gdalRasterSize(const std::string& gdalPath) {
    const GdalMessages messages;
    const Result<GdalRaster> raster = openGdalRaster(gdalPath, messages);
    if (!raster) {
        return Result<RasterSize>::failure(raster.error());
    }
    return RasterSize{raster.value().width, raster.value().height};
}

Result<StreamedMap> openStreamedGdal(const std::string& path, const std::string& gdalPath,
                                     const LoadOptions& options, int requestedLeafSize,
                                     const StreamOptions& stream) {
    const std::string name = escapedPath(path);
    const GdalMessages messages;
    // A layout's level 0 for what it says of the map alone: a mosaic's regions are read as its
    // tiles are (layout_tiles.h), not each asked for at open.
    Result<GdalRaster> opened = stream.layout != nullptr ? openLayoutLevelZero(*stream.layout)
                                                         : openGdalRaster(gdalPath, messages);
    if (!opened) {
        return fail(name, opened.error());
    }
    GdalRaster& raster = opened.value();
    const int width = raster.width;
    const int height = raster.height;
    const Result<GdalBand> described = describeGdalBand(*raster.dataset, *raster.band);
    if (!described) {
        return fail(name, described.error());
    }
    // A band read as floats may hold voids (a nodata value, NaN, a mask): their mask's bytes.
    const uint64_t maskBytes =
        described.value().directUint16 ? 0 : (uint64_t(width) * uint64_t(height) + 63) / 64 * 8;
    const Result<int> leafSize =
        mayOpenByTiles(stream)
            ? planLayoutByTiles(width, height, requestedLeafSize, stream.layout->leafSize,
                                options.memory, maskBytes)
            : planStreamedMap(width, height, requestedLeafSize, options.memory, maskBytes);
    if (!leafSize) {
        return fail(name, leafSize.error());
    }
    if (Status fits = checkStreamedSize(width, height, stream, leafSize.value()); !fits) {
        return fail(name, fits.error());
    }
    const GdalBand& info = described.value();
    StreamedMap out;
    out.leafSize = leafSize.value();
    Heightmap& map = out.map;
    map.width = width;
    map.height = height;
    map.format = HeightmapFormat::Elevation;
    map.geo = info.geo;
    map.metres = info.metres();

    // A layout's cache is known by its content (its tiles' checksums), with no request for a
    // mosaic's regions; any other raster's by its files' lengths and times.
    const uint64_t signature = stream.layout != nullptr
                                   ? layoutSignature(*stream.layout)
                                   : rasterSignature(rasterFiles(*raster.dataset, path));
    if (const std::string caches = cacheFolder(options.cacheDir); !caches.empty()) {
        for (const std::string& removed : removeOrphanedCodeCaches(caches)) {
            std::fprintf(stderr, "%s: removed, the code cache of a map that no longer exists\n",
                         escapedPath(removed).c_str());
        }
    }
    const CacheSpots spots =
        cacheSpots(cachePlaces(path, stream.layout != nullptr ? ".layout.qtcodes" : ".qtcodes",
                               options.cacheDir, options.cacheBeside));
    for (const CachePlace& place : spots.read) {
        const Result<bool> reused = reuseCache(out, place, signature, stream);
        if (!reused) {
            return fail(name, reused.error());
        }
        if (reused.value()) {
            if (place.inCacheFolder) {
                markCacheUsed(place.path);  // --cache-size removes the least recently used first
            }
            return out;
        }
    }

    // No cache to reuse: one pass through GDAL makes it, once the files are found to hold what
    // the header declares.
    // (A layout's tiles are held to their checksums one by one as they are read.)
    if (Status holds =
            stream.layout != nullptr ? Status() : checkGdalCapacity(*raster.dataset, *raster.band);
        !holds) {
        return fail(name, holds.error());
    }
    const auto start = Clock::now();
    const uint64_t samples = uint64_t(width) * uint64_t(height);
    // A float scratch for a band read as floats; a layout's tiles are codes, read as they are.
    const bool floats = !info.directUint16 && stream.layout == nullptr;
    const uint64_t needBytes = codeCacheBytes(width, height) +
                               sidecarBytes(width, height, out.leafSize) +
                               (floats ? samples * sizeof(float) : 0) + kStreamDiskMarginBytes;
    std::string cache;
    std::string notKept;
    // The cache, its tree sidecar and its nodata sidecar (a bit a sample and a header).
    const CacheBound bound{options.cacheSizeBytes, codeCacheBytes(width, height) +
                                                       sidecarBytes(width, height, out.leafSize) +
                                                       samples / 8 + 4096};
    // Opened by tiles, the cache takes blocks as tiles arrive: its disk is what the eye fetched.
    const CodeCacheWriter::Blocks blocks = opensByTiles(stream, out.leafSize)
                                               ? CodeCacheWriter::Blocks::AsWritten
                                               : CodeCacheWriter::Blocks::AllocatedNow;
    Result<CodeCacheWriter> created =
        createCache(spots, needBytes, stream, bound, width, height, blocks, cache, notKept);
    if (!created) {
        return fail(name, created.error());
    }
    CodeCacheWriter& writer = created.value();
    if (!writer.named()) {
        out.cacheProblem = notKept;
        std::fprintf(stderr, "%s\n", out.cacheProblem.c_str());
    } else if (cache != spots.write.front().path) {
        std::fprintf(stderr, "%s: its code cache goes to %s (its own folder cannot take it)\n",
                     name.c_str(), escapedPath(cache).c_str());
    }
    map.codes = writer.codes();
    if (stream.layout != nullptr) {
        // Its tiles and pooled pages are read as the eye moves, all through the flight.
        lowerGdalCache(kStreamGdalCacheBytes);
    }
    const GdalCacheCap cacheCap(kStreamGdalCacheBytes);
    const int step = passReadRows(info.blockRows, width);
    TreeSidecar saved;
    const FileStamp unstamped;  // the cache's stamp is known once it is renamed into place
    if (stream.layout != nullptr) {
        // A layout's level 0: its tiles, held to their checksums, written into the cache as the
        // bake wrote them; the layout's tree when of this leaf size, else one pass over the
        // cache's codes.
        if (Status level = describeLayoutLevelZero(*stream.layout, map); !level) {
            return fail(name, level.error());
        }
        const bool baked = stream.layout->leafSize == out.leafSize;
        if (opensByTiles(stream, out.leafSize)) {
            // By tiles: the tree and the map's range from the layout's tree, nothing of level 0
            // read; the cache is finished when its last tile arrives (LayoutStream). The tree's
            // structure, which depends on the size alone, is built on a thread of its own while
            // the layout's tree is read (a round trip and 123 MB at 65537² in leaves of 16).
            std::future<Result<Quadtree>> building =
                std::async(std::launch::async, buildQuadtreeStructure, width, height, out.leafSize);
            Result<TreeSidecar> tree = readLayoutTreeSidecar(*stream.layout);
            Result<Quadtree> structure = building.get();
            if (!tree) {
                return fail(name, tree.error());
            }
            saved = std::move(tree).value();
            if (Status made = streamedTree(out, saved, true, unstamped, stream, {}, &structure);
                !made) {
                return fail(name, made.error());
            }
            const bool named = writer.named();
            out.tiles = std::make_shared<LayoutStream>(*stream.layout, std::move(writer),
                                                       cacheHeader(signature, map, path), cache,
                                                       stream.useSidecar);
            out.codes = named ? CodeSource::CacheByTiles : CodeSource::CacheNotKept;
            out.cachePath = named ? cache : std::string();
            out.cacheMs = msSince(start);
            return out;
        }
        if (Status read = readLayoutLevelZero(*stream.layout, map, &writer, &out.tileRowsReused,
                                              options.readProgress);
            !read) {
            return fail(name, read.error());
        }
        if (writer.resumed()) {
            const int tilesY = (height + stream.layout->pageSize - 1) / stream.layout->pageSize;
            std::fprintf(stderr,
                         "%s: its code cache went on from an earlier open's: %d of %d rows of "
                         "tiles kept (each tile held to its checksum), the rest read\n",
                         name.c_str(), out.tileRowsReused, tilesY);
        }
        if (baked) {
            Result<TreeSidecar> tree = readLayoutTreeSidecar(*stream.layout);
            if (!tree) {
                return fail(name, tree.error());
            }
            saved = std::move(tree).value();
        }
        if (Status tree = streamedTree(out, saved, baked, unstamped, stream); !tree) {
            return fail(name, tree.error());
        }
    } else if (info.directUint16) {
        map.coding = codingInMetres(HeightCoding{0.0f, 1.0f}, info);
        RowsAhead rows(height, step, leadRows(width, stream.bandBytes, step),
                       DirectRows(*raster.band, writer, width, height, step, options.readProgress));
        if (Status tree = streamedTree(out, saved, false, unstamped, stream, std::ref(rows));
            !tree) {
            return fail(name, tree.error());
        }
    } else {
        Result<FloatScratch> scratch =
            FloatScratch::create(writer.named()           ? folderOf(cache)
                                 : !spots.blocked.empty() ? spots.blockedDir
                                                          : scratchFolder(),
                                 size_t(samples));
        if (!scratch) {
            return fail(name, scratch.error());
        }
        Result<FloatPass> pass = readFloats(*raster.band, info, scratch.value(), messages, width,
                                            height, step, options.readProgress);
        if (!pass) {
            return fail(name, pass.error());
        }
        SampleRange range = pass.value().range;
        // The voids are holes, as in a loaded map: the mask is set before the tree is made,
        // which counts the leaves it touches (fillQuadtreeBounds); the codes hold the fill.
        map.nodata.width = width;
        map.nodata.height = height;
        map.nodata.samples = pass.value().voidCount;
        map.nodata.total = int64_t(samples);
        map.nodata.bits = std::move(pass.value().bits);
        if (pass.value().voids) {
            Result<SampleRange> filled =
                fillScratchVoids(scratch.value(), width, height, stream.bandBytes);
            if (!filled) {
                return fail(name, filled.error());
            }
            range = filled.value();
        }
        const double extreme = std::max(std::fabs(double(range.lo)), std::fabs(double(range.hi)));
        if (!(extreme <= kMaxWorldCoordinate)) {
            return fail(name, "sample " + gdalNumber(extreme) + " is beyond the limit of " +
                                  gdalNumber(kMaxWorldCoordinate) + " for a height");
        }
        const SampleQuantiser quantiser = sampleQuantiser(range.lo, range.hi, range.integral);
        map.coding = codingInMetres(quantiser.coding, info);
        const int chunk =
            int(std::max<size_t>(1, kScratchChunkBytes / sizeof(float) / size_t(width)));
        RowsAhead rows(height, chunk, leadRows(width, stream.bandBytes, chunk),
                       QuantisedRows(scratch.value(), writer, quantiser, width, height, chunk,
                                     options.readProgress));
        if (Status tree = streamedTree(out, saved, false, unstamped, stream, std::ref(rows));
            !tree) {
            return fail(name, tree.error());
        }
    }
    if (!writer.named()) {
        out.cacheMs = msSince(start);
        out.codes = CodeSource::CacheNotKept;  // the file goes when the mapping does
        return out;
    }
    const Result<FileStamp> stamp = writer.finish(cacheHeader(signature, map, path));
    out.cacheMs = msSince(start);
    if (!stamp) {
        // The codes stay mapped (the file goes when the mapping does): this open flies, the next
        // reads the raster again.
        out.codes = CodeSource::CacheNotKept;
        out.cacheProblem =
            escapedPath(cache) + ": " + stamp.error() + "; continuing without a code cache";
        std::fprintf(stderr, "%s\n", out.cacheProblem.c_str());
        return out;
    }
    out.codes = CodeSource::CacheWritten;
    out.cachePath = cache;
    const std::string nodataSidecar = nodataSidecarPath(cache);
    if (!map.nodata.holes()) {
        removeIfOurs(nodataSidecar, kNodataSidecarMagic);  // a former cache's
    } else if (Status kept = writeNodataSidecar(nodataSidecar, stamp.value(), map.nodata); !kept) {
        // This open draws its holes; the next reads the raster again.
        out.cacheProblem = escapedPath(nodataSidecar) + ": " + kept.error() +
                           "; the next open reads the raster again";
        std::fprintf(stderr, "%s\n", out.cacheProblem.c_str());
    }
    if (stream.useSidecar) {
        writeStreamedSidecar(out, sidecarPath(cache), stamp.value(), saved);
        out.sidecarPath = out.sidecarWritten ? sidecarPath(cache) : std::string();
    }
    return out;
}

}  // namespace qt
