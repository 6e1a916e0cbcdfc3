// The streamed open of GDAL rasters: codes and tree equal to the full load's for every kind of
// band (direct 16-bit, voids, scale and offset, feet, VRT mosaics), the code cache's reuse and
// rejection, where it goes, and the bad inputs that refuse the map with one line.
#include "core/streaming/streamed_gdal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <cpl_string.h>
#include <gdal_priv.h>
#include <gdal_utils.h>
#include <gtest/gtest.h>
#include <ogr_spatialref.h>

#include "core/io/heightmap_gdal.h"
#include "core/lod/lod_error.h"
#include "core/streaming/cache_folder.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/open_map.h"
#include "core/streaming/own_files.h"
#include "streamed_checks.h"
#include "test_files.h"
#include "test_rasters.h"

namespace qt {
namespace {

using test::TempDir;

// What a test raster holds.
struct Raster {
    int width = 181;
    int height = 157;
    double west = 500000.0;
    GDALDataType type = GDT_Int16;
    bool hasNodata = false;
    double nodata = 0.0;
    double scale = 1.0;
    double offset = 0.0;
    std::string unit;
    std::vector<std::string> options = {"TILED=YES", "BLOCKXSIZE=32", "BLOCKYSIZE=32",
                                        "COMPRESS=DEFLATE"};
};

// Writes `samples` as a GeoTIFF (UTM 32N, 30 x 25 m cells) with the raster's creation options.
void writeTiff(const std::string& path, const Raster& r, const std::vector<double>& samples) {
    test::GdalRaster raster;
    raster.width = r.width;
    raster.height = r.height;
    raster.type = r.type;
    raster.transform = {r.west, 30.0, 0.0, 5300000.0, 0.0, -25.0};
    raster.epsg = 32632;
    raster.hasNodata = r.hasNodata;
    raster.nodata = r.nodata;
    raster.scale = r.scale;
    raster.offset = r.offset;
    raster.unit = r.unit;
    test::writeGdalRaster(path, "GTiff", raster, samples, r.options);
}

// Rough hills: integers 0..4000 when `integral`, else with fractions.
std::vector<double> hills(int width, int height, bool integral) {
    std::vector<double> v(size_t(width) * size_t(height));
    for (int r = 0; r < height; ++r) {
        for (int c = 0; c < width; ++c) {
            const double h = 2000.0 + 1200.0 * std::sin(c * 0.13) * std::cos(r * 0.09) +
                             600.0 * std::sin((c + 2 * r) * 0.31) + double((c * 7 + r * 13) % 97);
            v[size_t(r) * size_t(width) + size_t(c)] = integral ? std::round(h) : h * 0.731;
        }
    }
    return v;
}

StreamOptions streamIn(uint64_t bandBytes) {
    StreamOptions stream;
    stream.bandBytes = bandBytes;
    return stream;
}

// Options that keep the cache inside the test's folder: beside the map (and dir/cache when the
// map's folder cannot take it) when `beside`, else in dir/cache.
LoadOptions cacheIn(const TempDir& dir, bool beside) {
    LoadOptions options;
    options.cacheDir = dir.path("cache");
    options.cacheBeside = beside;
    return options;
}

// Band cap holding rows of nodes of level `level` of a map `width` wide.
uint64_t capForLevel(int width, int leafSize, int level) {
    return (uint64_t(leafSize << level) + 1) * uint64_t(width) * 2;
}

// The streamed map against the full load of the same raster: size, coding, range, georeference,
// every code, and the tree node for node (coarse errors exact on its exact levels, bounds above).
void expectEqualsFullLoad(const StreamedMap& s, const std::string& path, int leafSize) {
    const Result<Heightmap> loaded = loadGdalHeightmap(path, path);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    const Heightmap& full = loaded.value();
    EXPECT_TRUE(s.map.codes.isMapped());
    EXPECT_EQ(s.map.format, HeightmapFormat::Elevation);
    EXPECT_EQ(s.map.width, full.width);
    EXPECT_EQ(s.map.height, full.height);
    EXPECT_EQ(s.map.coding.offset, full.coding.offset);
    EXPECT_EQ(s.map.coding.step, full.coding.step);
    EXPECT_EQ(s.map.minCode, full.minCode);
    EXPECT_EQ(s.map.maxCode, full.maxCode);
    EXPECT_EQ(s.map.minSample, full.minSample);
    EXPECT_EQ(s.map.maxSample, full.maxSample);
    EXPECT_EQ(s.map.metres, full.metres);
    EXPECT_EQ(s.map.geo.metresX, full.geo.metresX);
    EXPECT_EQ(s.map.geo.metresZ, full.geo.metresZ);
    EXPECT_EQ(s.map.geo.west, full.geo.west);
    EXPECT_EQ(s.map.geo.north, full.geo.north);
    // Streamed, the nodata samples are holes as in the full load: the same mask, the same
    // leaves holding them.
    EXPECT_EQ(s.map.nodata.samples, full.nodata.samples);
    EXPECT_FALSE(s.map.nodata.filled);
    EXPECT_EQ(s.map.nodata.holes(), full.nodata.samples > 0);
    EXPECT_TRUE(s.map.nodata.bits == full.nodata.bits);
    ASSERT_TRUE(s.map.codes == full.codes);
    const Result<Quadtree> built = buildQuadtreeExact(full, leafSize);
    ASSERT_TRUE(built.ok());
    const Quadtree& want = built.value();
    const Quadtree& got = s.tree;
    ASSERT_EQ(got.nodes.size(), want.nodes.size());
    for (size_t i = 0; i < want.nodes.size(); ++i) {
        ASSERT_EQ(got.nodes[i].minCode, want.nodes[i].minCode) << i;
        ASSERT_EQ(got.nodes[i].maxCode, want.nodes[i].maxCode) << i;
    }
    ASSERT_NO_FATAL_FAILURE(test::expectExactBelowRangeAbove(got, want));
    EXPECT_TRUE(got.holeLeavesBefore == want.holeLeavesBefore);
}

Result<StreamedMap> openIn(const TempDir& dir, const std::string& path, int leafSize,
                           uint64_t bandBytes) {
    return openStreamedGdal(path, path, cacheIn(dir, true), leafSize, streamIn(bandBytes));
}

// Opens `raster` streamed (bands of level-1 rows: many bands) and checks it against the full load.
// The first open tells how far its pass into the cache has gone (LoadOptions::readProgress), in
// order to the end: by rows, a band read as floats by its read and then its quantisation (twice
// its rows); the reopen, which reads the cache, tells nothing.
void expectStreamedEqualsFull(const Raster& raster, const std::vector<double>& samples,
                              const char* what) {
    SCOPED_TRACE(what);
    TempDir dir;
    const std::string path = dir.path("m.tif");
    writeTiff(path, raster, samples);
    std::vector<std::pair<int64_t, int64_t>> told;
    LoadOptions counted = cacheIn(dir, true);
    counted.readProgress = [&told](int64_t done, int64_t total) { told.emplace_back(done, total); };
    const Result<StreamedMap> opened =
        openStreamedGdal(path, path, counted, 4, streamIn(capForLevel(raster.width, 4, 1)));
    ASSERT_TRUE(opened.ok()) << opened.error();
    ASSERT_GT(told.size(), 2u);
    const bool direct = raster.type == GDT_UInt16 && !raster.hasNodata && raster.scale == 1.0 &&
                        raster.offset == 0.0;
    const int64_t total = (direct ? 1 : 2) * int64_t(raster.height);
    for (size_t k = 0; k < told.size(); ++k) {
        EXPECT_EQ(told[k].second, total) << k;
        EXPECT_GT(told[k].first, k > 0 ? told[k - 1].first : 0) << k;
    }
    EXPECT_EQ(told.back().first, total);
    told.clear();
    ASSERT_TRUE(
        openStreamedGdal(path, path, counted, 4, streamIn(capForLevel(raster.width, 4, 1))));
    EXPECT_TRUE(told.empty());
    EXPECT_EQ(opened.value().codes, CodeSource::CacheWritten);
    EXPECT_EQ(opened.value().cachePath, path + ".qtcodes");
    EXPECT_EQ(opened.value().tree.exactLevels, 1);
    expectEqualsFullLoad(opened.value(), path, 4);
    // Reopened from its cache, the count of nodata samples comes from the cache's header.
    const Result<StreamedMap> reopened = openIn(dir, path, 4, capForLevel(raster.width, 4, 1));
    ASSERT_TRUE(reopened.ok()) << reopened.error();
    EXPECT_EQ(reopened.value().codes, CodeSource::CacheRead);
    expectEqualsFullLoad(reopened.value(), path, 4);
    // The scratch samples and the temporary cache are gone: the map, its cache and sidecar stay,
    // and with voids their mask's sidecar.
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path(""))) {
        files += entry.is_regular_file();
    }
    EXPECT_EQ(files, opened.value().map.nodata.holes() ? 4 : 3);
}

TEST(StreamedGdal, CodesAndTreeEqualTheFullLoadForEveryKindOfBand) {
    Raster direct;
    direct.type = GDT_UInt16;
    expectStreamedEqualsFull(direct, hills(direct.width, direct.height, true), "uint16, direct");

    Raster strips;
    strips.options = {"COMPRESS=LZW"};  // strips, not tiles
    expectStreamedEqualsFull(strips, hills(strips.width, strips.height, true), "int16 strips");

    Raster scaled;
    scaled.type = GDT_Float32;
    scaled.scale = 0.5;
    scaled.offset = -100.0;
    expectStreamedEqualsFull(scaled, hills(scaled.width, scaled.height, false),
                             "float32, scale and offset, quantised");

    Raster feet;
    feet.unit = "ft";
    expectStreamedEqualsFull(feet, hills(feet.width, feet.height, true), "int16 in feet");

    // Voids: a blob, a stripe along an edge, scattered samples.
    Raster voids;
    voids.hasNodata = true;
    voids.nodata = -32768.0;
    std::vector<double> holes = hills(voids.width, voids.height, true);
    for (int r = 0; r < voids.height; ++r) {
        for (int c = 0; c < voids.width; ++c) {
            const bool blob = (c - 60) * (c - 60) + (r - 70) * (r - 70) < 400;
            const bool edge = c > voids.width - 4;
            const bool speck = (c * 31 + r * 17) % 211 == 0;
            if (blob || edge || speck) {
                holes[size_t(r) * size_t(voids.width) + size_t(c)] = voids.nodata;
            }
        }
    }
    expectStreamedEqualsFull(voids, holes, "int16 with voids");
    Raster floatVoids = voids;
    floatVoids.type = GDT_Float32;
    std::vector<double> fractions = hills(voids.width, voids.height, false);
    for (size_t i = 0; i < holes.size(); ++i) {
        fractions[i] = holes[i] == voids.nodata ? voids.nodata : fractions[i];
    }
    expectStreamedEqualsFull(floatVoids, fractions, "float32 with voids");
}

// Writes two 16-bit tiles side by side and a VRT mosaic of them.
std::string writeMosaic(const TempDir& dir, std::vector<double>& whole) {
    Raster tile;
    tile.width = 65;
    tile.height = 97;
    whole = hills(129, 97, true);
    for (int t = 0; t < 2; ++t) {
        tile.west = 500000.0 + 30.0 * 64 * t;
        std::vector<double> part(size_t(tile.width) * size_t(tile.height));
        for (int r = 0; r < tile.height; ++r) {
            for (int c = 0; c < tile.width; ++c) {
                part[size_t(r) * 65 + size_t(c)] = whole[size_t(r) * 129 + size_t(c + 64 * t)];
            }
        }
        writeTiff(dir.path("t" + std::to_string(t) + ".tif"), tile, part);
    }
    const std::string vrt = dir.path("mosaic.vrt");
    const char* sources[] = {nullptr, nullptr, nullptr};
    const std::string a = dir.path("t0.tif"), b = dir.path("t1.tif");
    sources[0] = a.c_str();
    sources[1] = b.c_str();
    GDALBuildVRTOptions* options = GDALBuildVRTOptionsNew(nullptr, nullptr);
    int error = 0;
    GDALDatasetH built = GDALBuildVRT(vrt.c_str(), 2, nullptr, sources, options, &error);
    GDALBuildVRTOptionsFree(options);
    EXPECT_NE(built, nullptr);
    GDALClose(built);
    return vrt;
}

TEST(StreamedGdal, VrtMosaicStreamsAsOneMapAndGoesStaleWithItsTiles) {
    TempDir dir;
    std::vector<double> whole;
    const std::string vrt = writeMosaic(dir, whole);
    const Result<StreamedMap> opened = openIn(dir, vrt, 4, capForLevel(129, 4, 2));
    ASSERT_TRUE(opened.ok()) << opened.error();
    EXPECT_EQ(opened.value().map.width, 129);
    expectEqualsFullLoad(opened.value(), vrt, 4);
    const Result<StreamedMap> again = openIn(dir, vrt, 4, capForLevel(129, 4, 2));
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_EQ(again.value().codes, CodeSource::CacheRead);
    // A tile changes, the VRT does not: the cache is stale all the same.
    struct timespec times[2] = {{0, UTIME_OMIT}, {1700000000, 5}};
    ASSERT_EQ(::utimensat(AT_FDCWD, dir.path("t1.tif").c_str(), times, 0), 0);
    const Result<StreamedMap> stale = openIn(dir, vrt, 4, capForLevel(129, 4, 2));
    ASSERT_TRUE(stale.ok()) << stale.error();
    EXPECT_EQ(stale.value().codes, CodeSource::CacheWritten);
    EXPECT_NE(stale.value().cacheProblem.find("stale"), std::string::npos)
        << stale.value().cacheProblem;
}

// A written map and its first streamed open, for the cache's reuse and damage.
struct CacheFixture {
    TempDir dir;
    std::string path = dir.path("m.tif");
    std::string cache = path + ".qtcodes";
    std::string side = cache + ".qtree";
    std::string mask = cache + ".qtnodata";  // the one void's
    StreamOptions stream = streamIn(capForLevel(181, 4, 2));
    LoadOptions options = cacheIn(dir, true);
    CacheFixture() {
        Raster raster;
        raster.hasNodata = true;
        raster.nodata = -9999.0;
        std::vector<double> samples = hills(raster.width, raster.height, true);
        samples[1000] = raster.nodata;
        writeTiff(path, raster, samples);
    }
    StreamedMap open() const {
        Result<StreamedMap> opened = openStreamedGdal(path, path, options, 4, stream);
        EXPECT_TRUE(opened.ok()) << opened.error();
        return opened.ok() ? std::move(opened.value()) : StreamedMap{};
    }
};

TEST(StreamedGdal, ReopenMapsTheCacheAndReadsTheSidecarWithoutGdal) {
    CacheFixture f;
    const StreamedMap first = f.open();
    EXPECT_EQ(first.codes, CodeSource::CacheWritten);
    EXPECT_TRUE(first.sidecarWritten);
    EXPECT_GT(first.cacheMs, 0.0);
    EXPECT_TRUE(first.cacheProblem.empty());
    const StreamedMap second = f.open();
    EXPECT_EQ(second.codes, CodeSource::CacheRead);
    EXPECT_TRUE(second.sidecarUsed);
    EXPECT_EQ(second.cacheMs, 0.0);
    EXPECT_EQ(second.prepassMs, 0.0);
    EXPECT_TRUE(second.map.codes == first.map.codes);
    EXPECT_EQ(second.map.coding.offset, first.map.coding.offset);
    EXPECT_EQ(second.tree.coarseErrors, first.tree.coarseErrors);
    EXPECT_EQ(second.tree.foldErrors, first.tree.foldErrors);
    expectEqualsFullLoad(second, f.path, 4);
    // Another leaf size: the cache is kept and a tree for it is made from the cache.
    Result<StreamedMap> other = openStreamedGdal(f.path, f.path, f.options, 8, f.stream);
    ASSERT_TRUE(other.ok()) << other.error();
    EXPECT_EQ(other.value().codes, CodeSource::CacheRead);
    EXPECT_FALSE(other.value().sidecarUsed);
    EXPECT_TRUE(other.value().sidecarWritten);
    expectEqualsFullLoad(other.value(), f.path, 8);
}

// Streamed, as loaded whole: --fill-nodata shows the fill as terrain (no mask, no leaf with a
// hole, the count kept), without it the voids are holes; the cache is the same for both.
TEST(StreamedGdal, FillNodataDrawsAStreamedRastersFillAsTerrain) {
    CacheFixture f;
    for (const bool fill : {false, true, false}) {
        SCOPED_TRACE(fill);
        LoadOptions options = f.options;
        options.fillNodata = fill;
        const Result<OpenedMap> opened = openMap(f.path, options, {}, 4, true);
        ASSERT_TRUE(opened.ok()) << opened.error();
        const OpenedMap& o = opened.value();
        EXPECT_TRUE(o.streamed);
        EXPECT_EQ(o.map.nodata.samples, 1);
        EXPECT_EQ(o.map.nodata.filled, fill);
        EXPECT_EQ(o.map.nodata.holes(), !fill);
        EXPECT_EQ(o.tree.hasHoles(), !fill);
    }
}

// Opens after `damage`: the cache must be refused with a line holding `why`, rebuilt, and equal
// to the full load; the open after that reads it.
void expectCacheRebuilt(const std::function<void(const CacheFixture&)>& damage, const char* why) {
    SCOPED_TRACE(why);
    CacheFixture f;
    f.open();
    damage(f);
    const StreamedMap again = f.open();
    EXPECT_EQ(again.codes, CodeSource::CacheWritten);
    EXPECT_NE(again.cacheProblem.find(why), std::string::npos) << again.cacheProblem;
    EXPECT_NE(again.cacheProblem.find("rebuilding"), std::string::npos) << again.cacheProblem;
    EXPECT_EQ(again.cacheProblem.find('\n'), std::string::npos);
    expectEqualsFullLoad(again, f.path, 4);
    EXPECT_EQ(f.open().codes, CodeSource::CacheRead);
}

void editByte(const std::string& path, size_t at) {
    std::vector<uint8_t> bytes = test::readBytes(path);
    bytes[at] ^= 0x5A;
    test::writeBytes(path, bytes);
}

TEST(StreamedGdal, DamagedOrStaleCachesAreSaidAndRebuilt) {
    expectCacheRebuilt(
        [](const CacheFixture& f) {
            ASSERT_EQ(::truncate(f.cache.c_str(), off_t(codeCacheBytes(181, 157) - 100)), 0);
        },
        "truncated");
    expectCacheRebuilt([](const CacheFixture& f) { ASSERT_EQ(::truncate(f.cache.c_str(), 20), 0); },
                       "truncated");
    // A code edited: the cache is newer than the sidecar that vouches for it.
    expectCacheRebuilt([](const CacheFixture& f) { editByte(f.cache, 4096 + 5000); },
                       "changed since its sidecar was written");
    expectCacheRebuilt([](const CacheFixture& f) { editByte(f.cache, 33); }, "header checksum");
    // An older version of the program's own cache is its to rebuild.
    expectCacheRebuilt([](const CacheFixture& f) { editByte(f.cache, 8); }, "version 88, not 2");
    expectCacheRebuilt([](const CacheFixture& f) { ASSERT_EQ(::unlink(f.side.c_str()), 0); },
                       "not vouched for by its sidecar (missing)");
    expectCacheRebuilt([](const CacheFixture& f) { editByte(f.side, 100); },
                       "not vouched for by its sidecar (corrupt");
    // The holes' mask: gone, cut short, a bit flipped, or another cache's.
    expectCacheRebuilt([](const CacheFixture& f) { ASSERT_EQ(::unlink(f.mask.c_str()), 0); },
                       "its nodata sidecar is missing");
    expectCacheRebuilt([](const CacheFixture& f) { ASSERT_EQ(::truncate(f.mask.c_str(), 60), 0); },
                       "its nodata sidecar is truncated");
    expectCacheRebuilt([](const CacheFixture& f) { editByte(f.mask, 56 + 1000 / 8); },
                       "its nodata sidecar is corrupt (checksum)");
    expectCacheRebuilt([](const CacheFixture& f) { editByte(f.mask, 24); },
                       "its nodata sidecar is stale");
    // The map changed since (same length, new time).
    expectCacheRebuilt(
        [](const CacheFixture& f) {
            struct timespec times[2] = {{0, UTIME_OMIT}, {1700000000, 7}};
            ASSERT_EQ(::utimensat(AT_FDCWD, f.path.c_str(), times, 0), 0);
        },
        "stale (the map or a file it reads changed)");
}

// What is at the cache's path or its sidecar's and is not the program's own (a user's file, an
// empty one, a damaged magic, a directory, a FIFO, a link even to a good cache) is never read,
// replaced or removed: the raster flies from its codes in an unnamed file, said in one line, and
// nothing is written beside it or in the cache folder, open after open.
TEST(StreamedGdal, WhatIsNotItsOwnWhereTheCacheGoesIsLeftAlone) {
    ::alarm(300);  // a FIFO opened for reading would block: fail rather than hang
    CacheFixture f;
    f.open();
    const std::vector<uint8_t> goodCache = test::readBytes(f.cache);
    const std::string copy = f.dir.path("copy.qtcodes");
    test::writeBytes(copy, goodCache);
    std::vector<uint8_t> damaged = goodCache;
    damaged[0] ^= 0x5A;
    const std::vector<uint8_t> notes = {'n', 'o', 't', 'e', 's', '\n'};
    struct Case {
        const char* name;
        int at;  // 0: the cache's path, 1: its tree sidecar's, 2: its nodata sidecar's
        const char* why;
        std::function<void(const std::string&)> make;
    };
    const std::vector<Case> cases = {
        {"notes", 0, "not a quadterrain code cache",
         [&](const std::string& p) { test::writeBytes(p, notes); }},
        {"read-only notes", 0, "not a quadterrain code cache",
         [&](const std::string& p) {
             test::writeBytes(p, notes);
             ASSERT_EQ(::chmod(p.c_str(), 0444), 0);
         }},
        {"empty", 0, "not a quadterrain code cache",
         [&](const std::string& p) { test::writeBytes(p, {}); }},
        {"damaged magic", 0, "not a quadterrain code cache",
         [&](const std::string& p) { test::writeBytes(p, damaged); }},
        {"directory", 0, "a directory",
         [](const std::string& p) { ASSERT_EQ(::mkdir(p.c_str(), 0755), 0); }},
        {"FIFO", 0, "not a regular file",
         [](const std::string& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }},
        {"link to a good cache", 0, "a symbolic link",
         [&](const std::string& p) { ASSERT_EQ(::symlink(copy.c_str(), p.c_str()), 0); }},
        {"notes as the sidecar", 1, "not a quadterrain tree sidecar",
         [&](const std::string& p) { test::writeBytes(p, notes); }},
        {"a cache as the sidecar", 1, "not a quadterrain tree sidecar",
         [&](const std::string& p) { test::writeBytes(p, goodCache); }},
        {"directory as the sidecar", 1, "a directory",
         [](const std::string& p) { ASSERT_EQ(::mkdir(p.c_str(), 0755), 0); }},
        {"FIFO as the sidecar", 1, "not a regular file",
         [](const std::string& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }},
        {"notes as the nodata sidecar", 2, "not a quadterrain nodata sidecar",
         [&](const std::string& p) { test::writeBytes(p, notes); }},
        {"FIFO as the nodata sidecar", 2, "not a regular file",
         [](const std::string& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        ASSERT_EQ(std::system(("rm -rf '" + f.cache + "' '" + f.side + "' '" + f.mask + "' '" +
                               f.dir.path("cache") + "'")
                                  .c_str()),
                  0);
        const std::string& at = c.at == 2 ? f.mask : c.at == 1 ? f.side : f.cache;
        c.make(at);
        struct stat before {};
        ASSERT_EQ(::lstat(at.c_str(), &before), 0);
        const std::vector<uint8_t> bytesBefore =
            S_ISREG(before.st_mode) ? test::readBytes(at) : std::vector<uint8_t>{};
        const std::vector<std::string> folderBefore = test::filesIn(f.dir.path(""));
        for (int open = 0; open < 2; ++open) {
            const StreamedMap m = f.open();
            EXPECT_EQ(m.codes, CodeSource::CacheNotKept);
            EXPECT_EQ(m.cachePath, "");
            EXPECT_EQ(m.cacheProblem,
                      at + ": left alone (" + c.why + "); continuing without a code cache");
            expectEqualsFullLoad(m, f.path, 4);
            struct stat after {};
            ASSERT_EQ(::lstat(at.c_str(), &after), 0);
            EXPECT_EQ(after.st_mode, before.st_mode);
            EXPECT_EQ(after.st_ino, before.st_ino);
            if (S_ISREG(before.st_mode)) {
                EXPECT_EQ(test::readBytes(at), bytesBefore);
            }
            EXPECT_EQ(test::filesIn(f.dir.path("")), folderBefore);
            EXPECT_TRUE(test::filesIn(f.dir.path("cache")).empty());
        }
        EXPECT_EQ(test::readBytes(copy), goodCache);
    }
    ::alarm(0);
}

// With the map's own folder not taken, a file not the program's in the cache folder is left
// alone the same way.
TEST(StreamedGdal, WhatIsNotItsOwnInTheCacheFolderIsLeftAlone) {
    CacheFixture f;
    f.options.cacheBeside = false;
    const StreamedMap first = f.open();
    ASSERT_EQ(first.codes, CodeSource::CacheWritten);
    const std::string cache = first.cachePath;
    ASSERT_EQ(::unlink(cache.c_str()), 0);
    const std::vector<uint8_t> notes = {'m', 'i', 'n', 'e'};
    test::writeBytes(cache, notes);
    const StreamedMap again = f.open();
    EXPECT_EQ(again.codes, CodeSource::CacheNotKept);
    EXPECT_EQ(again.cacheProblem, cache +
                                      ": left alone (not a quadterrain code cache); "
                                      "continuing without a code cache");
    expectEqualsFullLoad(again, f.path, 4);
    EXPECT_EQ(test::readBytes(cache), notes);
}

TEST(StreamedGdal, CacheGoesToTheCacheFolderWhenTheMapsCannotTakeIt) {
    CacheFixture f;
    // A directory where the temporary cache would be created beside the map.
    const std::string blocked = f.cache + ".tmp" + std::to_string(::getpid());
    ASSERT_EQ(::mkdir(blocked.c_str(), 0755), 0);
    const StreamedMap first = f.open();
    ASSERT_EQ(first.codes, CodeSource::CacheWritten);
    EXPECT_EQ(first.cachePath.rfind(f.dir.path("cache/m.tif."), 0), 0u) << first.cachePath;
    expectEqualsFullLoad(first, f.path, 4);
    const StreamedMap second = f.open();
    EXPECT_EQ(second.codes, CodeSource::CacheRead);
    EXPECT_EQ(second.cachePath, first.cachePath);
    // Beside the map is tried first once it can take it; the cache folder's copy is still good.
    ASSERT_EQ(::rmdir(blocked.c_str()), 0);
    EXPECT_EQ(f.open().cachePath, first.cachePath);
}

// Caches in the cache folder whose maps were deleted go at the next open; a cache whose map is
// there, one that names no map, one whose map's folder is gone (an unmounted drive), a file that
// is not a cache, a link, a FIFO or a directory named like one, and a user's file where a removed
// cache's sidecar would be stay.
TEST(StreamedGdal, CachesOfDeletedMapsAreRemovedFromTheCacheFolder) {
    TempDir dir;
    const StreamOptions stream = streamIn(capForLevel(181, 4, 2));
    const LoadOptions options = cacheIn(dir, false);
    Raster raster;
    const std::vector<double> samples = hills(raster.width, raster.height, true);
    ASSERT_EQ(::mkdir(dir.path("maps").c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(dir.path("drive").c_str(), 0755), 0);
    const std::string kept = dir.path("maps/kept.tif"), deleted = dir.path("maps/deleted.tif");
    const std::string unmounted = dir.path("drive/away.tif");
    std::string cacheOf[3];
    int k = 0;
    for (const std::string& path : {kept, deleted, unmounted}) {
        writeTiff(path, raster, samples);
        const Result<StreamedMap> opened = openStreamedGdal(path, path, options, 4, stream);
        ASSERT_TRUE(opened.ok()) << opened.error();
        ASSERT_EQ(opened.value().codes, CodeSource::CacheWritten);
        cacheOf[k++] = opened.value().cachePath;
        ASSERT_EQ(cacheOf[k - 1].rfind(dir.path("cache/"), 0), 0u) << cacheOf[k - 1];
        ASSERT_TRUE(std::filesystem::exists(cacheOf[k - 1] + ".qtree"));
    }
    // A cache that names no map: the kept one's header without its path.
    const std::string nameless = dir.path("cache/nameless.qtcodes");
    std::filesystem::copy_file(cacheOf[0], nameless);
    {
        std::fstream file(nameless, std::ios::in | std::ios::out | std::ios::binary);
        const char zeros[8] = {};
        file.seekp(48);
        file.write(zeros, sizeof zeros);
    }
    test::writeBytes(dir.path("cache/notes.qtcodes"), std::vector<uint8_t>(5000, uint8_t(120)));
    // Things named like caches that are not the program's: a link to the deleted map's cache (so
    // a cache of a deleted map, were it followed), a FIFO (never opened to block), a directory.
    const std::string link = dir.path("cache/link.qtcodes");
    ASSERT_EQ(::symlink(cacheOf[1].c_str(), link.c_str()), 0);
    ASSERT_EQ(::mkfifo(dir.path("cache/pipe.qtcodes").c_str(), 0644), 0);
    ASSERT_EQ(::mkdir(dir.path("cache/folder.qtcodes").c_str(), 0755), 0);
    // The deleted map's cache goes; a user's file where its sidecar would be stays.
    ASSERT_EQ(::unlink((cacheOf[1] + ".qtree").c_str()), 0);
    const std::vector<uint8_t> notes = {'k', 'e', 'e', 'p'};
    test::writeBytes(cacheOf[1] + ".qtree", notes);
    ::alarm(120);
    ASSERT_EQ(::unlink(deleted.c_str()), 0);
    ASSERT_EQ(::unlink(unmounted.c_str()), 0);
    ASSERT_EQ(::rmdir(dir.path("drive").c_str()), 0);

    const Result<StreamedMap> reopened = openStreamedGdal(kept, kept, options, 4, stream);
    ASSERT_TRUE(reopened.ok()) << reopened.error();
    EXPECT_EQ(reopened.value().codes, CodeSource::CacheRead);
    EXPECT_TRUE(std::filesystem::exists(cacheOf[0]));
    ::alarm(0);
    EXPECT_FALSE(std::filesystem::exists(cacheOf[1]));
    EXPECT_EQ(test::readBytes(cacheOf[1] + ".qtree"), notes);
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    EXPECT_TRUE(std::filesystem::is_fifo(dir.path("cache/pipe.qtcodes")));
    EXPECT_TRUE(std::filesystem::is_directory(dir.path("cache/folder.qtcodes")));
    EXPECT_TRUE(std::filesystem::exists(cacheOf[2]));
    EXPECT_TRUE(std::filesystem::exists(nameless));
    EXPECT_TRUE(std::filesystem::exists(dir.path("cache/notes.qtcodes")));
    EXPECT_TRUE(removeOrphanedCodeCaches(dir.path("cache")).empty());
}

// The bytes of a cache with its sidecars, as --cache-size counts them.
uint64_t cacheUnitBytes(const std::string& cache) {
    uint64_t bytes = 0;
    for (const std::string& path : {cache, cache + ".qtree", cache + ".qtnodata"}) {
        std::error_code error;
        const uint64_t size = std::filesystem::file_size(path, error);
        bytes += error ? 0 : size;
    }
    return bytes;
}

// --cache-size: the cache folder keeps the most recently used caches (an open of a cache uses
// it; a look by the folder's own scans does not) within the bound, removing the least recently
// used, with their sidecars, to make room; what is not the program's is neither counted nor
// touched; a cache that cannot fit is not kept, removing nothing, and the map still opens.
TEST(StreamedGdal, TheCacheSizeKeepsTheMostRecentlyUsedCachesWithinIt) {
    TempDir dir;
    const StreamOptions stream = streamIn(capForLevel(181, 4, 2));
    LoadOptions options = cacheIn(dir, false);
    Raster raster;
    const std::vector<double> samples = hills(raster.width, raster.height, true);
    const auto open = [&](const std::string& name) {
        // File times come from the kernel's coarse clock (a tick of up to 10 ms): uses a tick
        // apart are ordered.
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        const std::string path = dir.path(name);
        if (!std::filesystem::exists(path)) {
            writeTiff(path, raster, samples);
        }
        const Result<StreamedMap> opened = openStreamedGdal(path, path, options, 4, stream);
        EXPECT_TRUE(opened.ok()) << opened.error();
        return opened.ok() ? opened.value() : StreamedMap{};
    };
    const StreamedMap a = open("a.tif");
    ASSERT_EQ(a.codes, CodeSource::CacheWritten);
    const uint64_t unit = cacheUnitBytes(a.cachePath);
    ASSERT_GT(unit, 0u);
    // A user's big file named like a cache: not counted, never removed.
    const std::string notes = dir.path("cache/notes.qtcodes");
    test::writeBytes(notes, std::vector<uint8_t>(size_t(unit) * 3, uint8_t('n')));
    options.cacheSizeBytes = 2 * unit + unit / 2;  // room for two
    const StreamedMap b = open("b.tif");
    ASSERT_EQ(b.codes, CodeSource::CacheWritten);
    EXPECT_TRUE(std::filesystem::exists(a.cachePath));
    // a is used after b: c's cache takes b's place.
    ASSERT_EQ(open("a.tif").codes, CodeSource::CacheRead);
    ASSERT_TRUE(removeOrphanedCodeCaches(dir.path("cache")).empty());  // a look, not a use
    const StreamedMap c = open("c.tif");
    ASSERT_EQ(c.codes, CodeSource::CacheWritten);
    EXPECT_TRUE(std::filesystem::exists(a.cachePath));
    EXPECT_FALSE(std::filesystem::exists(b.cachePath));
    EXPECT_FALSE(std::filesystem::exists(b.cachePath + ".qtree"));
    EXPECT_FALSE(std::filesystem::exists(b.cachePath + ".qtnodata"));
    EXPECT_TRUE(std::filesystem::exists(c.cachePath));
    EXPECT_TRUE(std::filesystem::exists(notes));
    // b again: a is now the least recently used (c was written after a's use).
    EXPECT_EQ(open("b.tif").codes, CodeSource::CacheWritten);
    EXPECT_FALSE(std::filesystem::exists(a.cachePath));
    EXPECT_TRUE(std::filesystem::exists(c.cachePath));
    // A bound no cache fits: nothing removed, the map flies from an unnamed file, one line.
    options.cacheSizeBytes = unit / 2;
    const StreamedMap d = open("d.tif");
    EXPECT_EQ(d.codes, CodeSource::CacheNotKept);
    EXPECT_NE(d.cacheProblem.find("over --cache-size of 0 MiB; continuing without a code cache"),
              std::string::npos)
        << d.cacheProblem;
    EXPECT_TRUE(std::filesystem::exists(b.cachePath));
    EXPECT_TRUE(std::filesystem::exists(c.cachePath));
    expectEqualsFullLoad(d, dir.path("d.tif"), 4);
}

// trimCacheFolder by itself: the plan is whole before anything goes, the cache being replaced
// is neither counted nor removed, and links are never followed.
TEST(CacheFolderTrim, RemovesLeastRecentlyUsedOwnFilesOnlyAndNothingWhenItCannotFit) {
    TempDir dir;
    const std::string folder = dir.path("");
    // Files of the program's own kinds (their magic and filler), used at times 100, 200, 300.
    const auto own = [&](const std::string& name, const FileMagic& magic, size_t bytes,
                         int64_t usedAt) {
        std::vector<uint8_t> content(bytes, uint8_t(7));
        std::copy(magic.bytes, magic.bytes + kFileMagicBytes, content.begin());
        test::writeBytes(dir.path(name), content);
        const timespec times[2] = {{usedAt, 0}, {0, UTIME_OMIT}};
        EXPECT_EQ(::utimensat(AT_FDCWD, dir.path(name).c_str(), times, 0), 0);
    };
    own("old.qtcodes", kCodeCacheMagic, 1000, 100);
    own("old.qtcodes.qtree", kTreeSidecarMagic, 200, 100);
    own("r16.qtree", kTreeSidecarMagic, 500, 200);
    own("new.qtcodes", kCodeCacheMagic, 1000, 300);
    own("replaced.qtcodes", kCodeCacheMagic, 4000, 50);
    ASSERT_EQ(::symlink(dir.path("new.qtcodes").c_str(), dir.path("link.qtcodes").c_str()), 0);
    // Own files: 1200 + 500 + 1000 (replaced.qtcodes is the one being replaced).
    const auto trim = [&](uint64_t limit, uint64_t need) {
        return trimCacheFolder(folder, limit, need, dir.path("replaced.qtcodes"));
    };
    const Result<std::vector<std::string>> fits = trim(3000, 300);
    ASSERT_TRUE(fits.ok()) << fits.error();
    EXPECT_TRUE(fits.value().empty());
    const Result<std::vector<std::string>> tooBig = trim(3000, 3001);
    ASSERT_FALSE(tooBig.ok());
    EXPECT_EQ(tooBig.error(), "it needs 1 MiB, over --cache-size of 0 MiB");
    EXPECT_EQ(test::filesIn(folder).size(), 6u);
    const Result<std::vector<std::string>> one = trim(3000, 1000);  // the oldest unit goes
    ASSERT_TRUE(one.ok()) << one.error();
    EXPECT_EQ(one.value(),
              (std::vector<std::string>{dir.path("old.qtcodes"), dir.path("old.qtcodes.qtree")}));
    const Result<std::vector<std::string>> two = trim(1200, 1100);  // r16.qtree, then new
    ASSERT_TRUE(two.ok()) << two.error();
    EXPECT_EQ(two.value(),
              (std::vector<std::string>{dir.path("r16.qtree"), dir.path("new.qtcodes")}));
    EXPECT_TRUE(std::filesystem::exists(dir.path("replaced.qtcodes")));
    EXPECT_TRUE(std::filesystem::is_symlink(dir.path("link.qtcodes")));
}

// By default the cache and its sidecar go to $XDG_CACHE_HOME/quadterrain, under the map's name
// and a hash of its path, and nothing is written beside the map.
TEST(StreamedGdal, DefaultCacheGoesToTheCacheFolderAndNothingBesideTheMap) {
    TempDir dir;
    const std::string path = dir.path("m.tif");
    Raster raster;
    writeTiff(path, raster, hills(raster.width, raster.height, true));
    const std::vector<std::string> before = test::filesIn(dir.path(""));
    const std::string folder = test::cacheHome() + "/quadterrain";
    const Result<StreamedMap> first = openStreamedGdal(path, path, {}, 4, streamIn(1 << 20));
    ASSERT_TRUE(first.ok()) << first.error();
    const StreamedMap& m = first.value();
    EXPECT_EQ(m.codes, CodeSource::CacheWritten);
    EXPECT_EQ(m.cachePath, pathInCacheFolder(folder, path, ".qtcodes"));
    EXPECT_EQ(m.cachePath.rfind(folder + "/m.tif.", 0), 0u) << m.cachePath;
    EXPECT_EQ(m.sidecarPath, m.cachePath + ".qtree");
    EXPECT_TRUE(std::filesystem::exists(m.sidecarPath));
    EXPECT_TRUE(m.cacheProblem.empty()) << m.cacheProblem;
    EXPECT_EQ(test::filesIn(dir.path("")), before);
    struct stat st {};
    ASSERT_EQ(::stat(folder.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    const Result<StreamedMap> second = openStreamedGdal(path, path, {}, 4, streamIn(1 << 20));
    ASSERT_TRUE(second.ok()) << second.error();
    EXPECT_EQ(second.value().codes, CodeSource::CacheRead);
    EXPECT_TRUE(second.value().sidecarUsed);
    EXPECT_EQ(second.value().cachePath, m.cachePath);
    EXPECT_EQ(test::filesIn(dir.path("")), before);
}

// Two maps of one name in different folders get caches of their own.
TEST(StreamedGdal, MapsOfOneNameInTwoFoldersGetTwoCaches) {
    TempDir dir;
    ASSERT_EQ(::mkdir(dir.path("a").c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(dir.path("b").c_str(), 0755), 0);
    const std::string a = dir.path("a/N47E009.tif"), b = dir.path("b/N47E009.tif");
    Raster raster;
    const std::vector<double> low = hills(raster.width, raster.height, true);
    std::vector<double> high = low;
    for (double& h : high) {
        h += 500.0;
    }
    writeTiff(a, raster, low);
    writeTiff(b, raster, high);
    const LoadOptions options = cacheIn(dir, false);
    std::string caches[2];
    for (int open = 0; open < 2; ++open) {
        int k = 0;
        for (const std::string& path : {a, b}) {
            SCOPED_TRACE(path);
            const Result<StreamedMap> opened =
                openStreamedGdal(path, path, options, 4, streamIn(1 << 20));
            ASSERT_TRUE(opened.ok()) << opened.error();
            EXPECT_EQ(opened.value().codes,
                      open == 0 ? CodeSource::CacheWritten : CodeSource::CacheRead);
            expectEqualsFullLoad(opened.value(), path, 4);
            caches[k++] = opened.value().cachePath;
        }
        EXPECT_NE(caches[0], caches[1]);
        EXPECT_EQ(caches[0].rfind(dir.path("cache/N47E009.tif."), 0), 0u) << caches[0];
        EXPECT_EQ(caches[1].rfind(dir.path("cache/N47E009.tif."), 0), 0u) << caches[1];
    }
    EXPECT_EQ(test::filesIn(dir.path("a")), std::vector<std::string>{"N47E009.tif"});
    EXPECT_EQ(test::filesIn(dir.path("b")), std::vector<std::string>{"N47E009.tif"});
}

// --cache-beside: MAP.qtcodes and MAP.qtcodes.qtree beside the map, nothing in the cache folder.
TEST(StreamedGdal, CacheBesideWritesBesideTheMap) {
    CacheFixture f;
    const StreamedMap m = f.open();
    EXPECT_EQ(m.codes, CodeSource::CacheWritten);
    EXPECT_EQ(m.cachePath, f.cache);
    EXPECT_EQ(m.sidecarPath, f.side);
    EXPECT_TRUE(std::filesystem::exists(f.side));
    EXPECT_TRUE(test::filesIn(f.dir.path("cache")).empty());
}

// A cache beside the map from the earlier layout is read when valid and the program's own; a
// stale one is passed over in silence and left where it is, the new cache made in the cache
// folder.
TEST(StreamedGdal, ACacheBesideTheMapIsReadButNeverWrittenByDefault) {
    CacheFixture f;
    ASSERT_EQ(f.open().codes, CodeSource::CacheWritten);  // beside, as the earlier layout kept it
    f.options.cacheBeside = false;
    const StreamedMap read = f.open();
    EXPECT_EQ(read.codes, CodeSource::CacheRead);
    EXPECT_EQ(read.cachePath, f.cache);
    EXPECT_TRUE(read.sidecarUsed);
    EXPECT_TRUE(test::filesIn(f.dir.path("cache")).empty());
    // Another leaf size: built from the codes, its sidecar not rewritten beside the map.
    const std::vector<uint8_t> side = test::readBytes(f.side);
    const Result<StreamedMap> other = openStreamedGdal(f.path, f.path, f.options, 8, f.stream);
    ASSERT_TRUE(other.ok()) << other.error();
    EXPECT_EQ(other.value().codes, CodeSource::CacheRead);
    EXPECT_FALSE(other.value().sidecarWritten);
    EXPECT_EQ(test::readBytes(f.side), side);
    // The map changes: the cache beside it is stale, and the new one goes to the cache folder.
    struct timespec times[2] = {{0, UTIME_OMIT}, {1700000000, 9}};
    ASSERT_EQ(::utimensat(AT_FDCWD, f.path.c_str(), times, 0), 0);
    const std::vector<uint8_t> stale = test::readBytes(f.cache);
    const std::vector<std::string> beside = {"cache", "m.tif", "m.tif.qtcodes",
                                             "m.tif.qtcodes.qtnodata", "m.tif.qtcodes.qtree"};
    const StreamedMap rebuilt = f.open();
    EXPECT_EQ(rebuilt.codes, CodeSource::CacheWritten);
    EXPECT_EQ(rebuilt.cachePath, pathInCacheFolder(f.dir.path("cache"), f.path, ".qtcodes"));
    EXPECT_TRUE(rebuilt.cacheProblem.empty()) << rebuilt.cacheProblem;
    EXPECT_EQ(test::readBytes(f.cache), stale);
    EXPECT_EQ(test::filesIn(f.dir.path("")), beside);
    EXPECT_EQ(f.open().codes, CodeSource::CacheRead);
}

// A cache folder that cannot be made or written: the map flies from an unnamed file of its codes,
// said in one line, and nothing is written beside it.
TEST(StreamedGdal, ACacheFolderThatCannotBeWrittenStillOpensTheMapWithOneLine) {
    CacheFixture f;
    test::writeBytes(f.dir.path("file"), {'x'});
    const std::string folders[] = {f.dir.path("file"), f.dir.path("file/quadterrain")};
    const std::string whys[] = {"is not a directory", "cannot be created (Not a directory)"};
    for (int k = 0; k < 2; ++k) {
        SCOPED_TRACE(folders[k]);
        f.options.cacheDir = folders[k];
        f.options.cacheBeside = false;
        const std::vector<std::string> before = test::filesIn(f.dir.path(""));
        testing::internal::CaptureStderr();
        const StreamedMap m = f.open();
        EXPECT_EQ(testing::internal::GetCapturedStderr(), m.cacheProblem + "\n");
        EXPECT_EQ(m.codes, CodeSource::CacheNotKept);
        EXPECT_EQ(m.cachePath, "");
        EXPECT_EQ(m.sidecarPath, "");
        EXPECT_EQ(m.cacheProblem,
                  folders[k] + ": cache folder " + whys[k] + "; continuing without a code cache");
        expectEqualsFullLoad(m, f.path, 4);
        EXPECT_EQ(test::filesIn(f.dir.path("")), before);
    }
}

TEST(StreamedGdal, NoRoomForTheCacheIsOneLine) {
    CacheFixture f;
    f.stream.freeDiskBytes = [](const std::string&) { return uint64_t(1) << 20; };
    const Result<StreamedMap> opened = openStreamedGdal(f.path, f.path, f.options, 4, f.stream);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().rfind(f.path + ": no room for its code cache: it needs ", 0), 0u)
        << opened.error();
    EXPECT_NE(opened.error().find("1 MiB free"), std::string::npos) << opened.error();
    EXPECT_EQ(opened.error().find('\n'), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(f.cache));
}

TEST(StreamedGdal, TruncatedTiffIsRefusedBeforeThePassWithOneLineAndLeavesNothing) {
    TempDir dir;
    const std::string path = dir.path("m.tif");
    Raster raster;
    raster.width = 257;
    raster.height = 257;
    writeTiff(path, raster, hills(257, 257, true));
    const uint64_t length = std::filesystem::file_size(path);
    ASSERT_EQ(::truncate(path.c_str(), off_t(length * 6 / 10)), 0);
    // GDAL still reports the size; the blocks past the end are found before the pass.
    ASSERT_TRUE(gdalRasterSize(path).ok());
    for (const GDALDataType type : {GDT_Int16, GDT_UInt16}) {
        if (type == GDT_UInt16) {
            raster.type = type;
            writeTiff(path, raster, hills(257, 257, true));
            ASSERT_EQ(::truncate(path.c_str(), off_t(length * 6 / 10)), 0);
        }
        const Result<StreamedMap> opened = openIn(dir, path, 4, capForLevel(257, 4, 1));
        ASSERT_FALSE(opened.ok());
        EXPECT_EQ(opened.error().rfind(path + ": TIFF: truncated: block ", 0), 0u)
            << opened.error();
        EXPECT_EQ(opened.error().find('\n'), std::string::npos);
        int files = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir.path(""))) {
            files += entry.is_regular_file();
        }
        EXPECT_EQ(files, 1);  // the map alone
    }
}

TEST(StreamedGdal, VrtWithAMissingSourceIsOneLine) {
    TempDir dir;
    std::vector<double> whole;
    const std::string vrt = writeMosaic(dir, whole);
    ASSERT_EQ(::unlink(dir.path("t1.tif").c_str()), 0);
    const Result<StreamedMap> opened = openIn(dir, vrt, 4, capForLevel(129, 4, 2));
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error(), vrt + ": VRT source " + dir.path("t1.tif") + " does not exist");
    EXPECT_EQ(opened.error().find('\n'), std::string::npos);
}

TEST(StreamedGdal, VoidsTooManyToFillWithinTheBandCapAreRefused) {
    TempDir dir;
    const std::string path = dir.path("m.tif");
    Raster raster;
    raster.hasNodata = true;
    raster.nodata = -1.0;
    std::vector<double> samples = hills(raster.width, raster.height, true);
    for (size_t i = 0; i < samples.size(); i += 2) {
        samples[i] = -1.0;  // every other sample: each one a seed of the fill
    }
    writeTiff(path, raster, samples);
    const Result<StreamedMap> opened = openIn(dir, path, 4, 4096);
    ASSERT_FALSE(opened.ok());
    EXPECT_NE(opened.error().find("too many to fill streamed"), std::string::npos)
        << opened.error();
    // With room for its queue it opens, equal to the full load.
    const Result<StreamedMap> roomy = openIn(dir, path, 4, uint64_t(1) << 20);
    ASSERT_TRUE(roomy.ok()) << roomy.error();
    expectEqualsFullLoad(roomy.value(), path, 4);
}

TEST(StreamedGdal, OverTheMemoryBudgetIsRefusedBeforeReading) {
    TempDir dir;
    const std::string path = dir.path("m.tif");
    Raster raster;
    writeTiff(path, raster, hills(raster.width, raster.height, true));
    LoadOptions options;
    options.memory.limitBytes = 1 << 20;
    const Result<StreamedMap> opened = openStreamedGdal(path, path, options, 4, streamIn(1 << 20));
    ASSERT_FALSE(opened.ok());
    EXPECT_NE(opened.error().find("--memory-budget"), std::string::npos) << opened.error();
    EXPECT_FALSE(std::filesystem::exists(path + ".qtcodes"));
}

}  // namespace
}  // namespace qt
