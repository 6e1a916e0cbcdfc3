// The baked layout: each level's COG holds the map's codes at its stride with the map's height
// coding, georeference and nodata; every tile and the tree carry checksums that verifyLayout
// holds them to; a folder of the user's is never written into.
#include "core/streaming/bake.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <cpl_vsi.h>
#include <gdal_priv.h>
#include <gtest/gtest.h>

#include "core/io/load.h"
#include "core/lod/lod_error.h"
#include "core/streaming/bake_input.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/open_map.h"
#include "core/streaming/streamed_gdal.h"
#include "core/streaming/tree_sidecar.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/leaf_ranges.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/synthetic.h"
#include "http_server.h"
#include "layout_fixtures.h"
#include "qt_source_paths.h"
#include "test_files.h"
#include "test_rasters.h"

namespace qt {
namespace {

namespace fs = std::filesystem;
using test::bakeByJobs;
using test::bakeOptions;
using test::changeSample;
using test::expectOneLineSaying;
using test::inputHeight;
using test::writeInput;
using test::writeRaster;

std::string fileText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeFile(const std::string& path, const std::string& bytes) {
    test::writeBytes(path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

// The paths of the files in `folder` whose names end with `suffix`.
std::vector<std::string> filesEndingWith(const std::string& folder, const std::string& suffix) {
    std::vector<std::string> found;
    for (const std::string& name : test::filesIn(folder)) {
        if (name.size() >= suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            found.push_back(folder + "/" + name);
        }
    }
    return found;
}

TEST(Bake, EachLevelIsACogOfTheMapsCodesAtItsStride) {
    test::TempDir dir;
    const std::string input = writeInput(dir);
    const std::string layout = dir.path("layout");
    const Result<BakeSummary> baked = bakeLayout(input, layout, bakeOptions(dir));
    ASSERT_TRUE(baked) << baked.error();
    EXPECT_TRUE(verifyLayout(layout)) << verifyLayout(layout).error();
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    const Result<Heightmap> loaded = loadHeightmap(input, load);
    ASSERT_TRUE(loaded) << loaded.error();
    const Heightmap& map = loaded.value();
    ASSERT_TRUE(map.nodata.holes());
    EXPECT_EQ(baked.value().width, 203);
    EXPECT_EQ(baked.value().height, 141);
    ASSERT_GE(baked.value().levels, 4);
    int64_t tiles = 0;
    for (int level = 0; level < baked.value().levels; ++level) {
        const std::string name = layout + "/heights-" + std::to_string(level) + ".tif";
        GDALDatasetUniquePtr raster(GDALDataset::Open(name.c_str(), GDAL_OF_RASTER));
        ASSERT_TRUE(raster) << name;
        const int step = 1 << level;
        const int columns = (map.width - 1 + step - 1) / step + 1;
        const int rows = (map.height - 1 + step - 1) / step + 1;
        ASSERT_EQ(raster->GetRasterXSize(), columns) << name;
        ASSERT_EQ(raster->GetRasterYSize(), rows) << name;
        const char* structure = raster->GetMetadataItem("LAYOUT", "IMAGE_STRUCTURE");
        EXPECT_STREQ(structure, "COG") << name;
        GDALRasterBand* band = raster->GetRasterBand(1);
        int blockX = 0, blockY = 0;
        band->GetBlockSize(&blockX, &blockY);
        EXPECT_EQ(blockX, 16);
        EXPECT_EQ(blockY, 16);
        tiles += int64_t((columns + 15) / 16) * ((rows + 15) / 16);
        EXPECT_EQ(band->GetScale(), double(map.coding.step)) << name;
        EXPECT_EQ(band->GetOffset(), double(map.coding.offset)) << name;
        EXPECT_STREQ(band->GetUnitType(), "m");
        // Each level sample's cell centred on the map sample it holds.
        double t[6];
        ASSERT_EQ(raster->GetGeoTransform(t), CE_None);
        EXPECT_DOUBLE_EQ(t[1], 30.0 * step);
        EXPECT_DOUBLE_EQ(t[5], -30.0 * step);
        EXPECT_DOUBLE_EQ(t[0] + 0.5 * t[1], 500000.0 + 15.0);
        EXPECT_DOUBLE_EQ(t[3] + 0.5 * t[5], 5200000.0 - 15.0);
        std::vector<uint16_t> codes(size_t(columns) * size_t(rows));
        std::vector<uint8_t> valid(codes.size());
        ASSERT_EQ(band->RasterIO(GF_Read, 0, 0, columns, rows, codes.data(), columns, rows,
                                 GDT_UInt16, 0, 0),
                  CE_None);
        ASSERT_EQ(band->GetMaskBand()->RasterIO(GF_Read, 0, 0, columns, rows, valid.data(), columns,
                                                rows, GDT_Byte, 0, 0),
                  CE_None);
        int holes = 0;
        for (int r = 0; r < rows; ++r) {
            for (int c = 0; c < columns; ++c) {
                const int col = std::min(c * step, map.width - 1);
                const int row = std::min(r * step, map.height - 1);
                const size_t i = size_t(r) * size_t(columns) + size_t(c);
                ASSERT_EQ(codes[i], map.codeAt(col, row)) << name << " (" << c << ", " << r << ")";
                ASSERT_EQ(valid[i] == 0, map.nodata.at(col, row)) << name;
                holes += valid[i] == 0 ? 1 : 0;
            }
        }
        if (level == 0) {
            EXPECT_EQ(holes, map.nodata.samples);
        }
    }
    EXPECT_EQ(baked.value().tiles, tiles);
    EXPECT_EQ(baked.value().regions, 1);
    // The input is read by regions, through no cache: nothing goes to the cache folder.
    EXPECT_FALSE(fs::exists(dir.path("cache")));
    // Nothing in the folder but the layout's own files (no .msk beside a level, no part left).
    for (const fs::directory_entry& entry : fs::directory_iterator(layout)) {
        const std::string name = entry.path().filename().string();
        EXPECT_TRUE(name == "layout.json" || name == "tree.qtree" ||
                    (name.rfind("heights-", 0) == 0 && entry.path().extension() == ".tif"))
            << name;
    }
}

// Level `level` of the layout: its codes and its mask (255 given, 0 a hole), row after row.
struct LevelSamples {
    int columns = 0;
    int rows = 0;
    std::vector<uint16_t> codes;
    std::vector<uint8_t> valid;
};
LevelSamples readLevel(const std::string& layout, int level) {
    LevelSamples out;
    // A COG, or a mosaic of the regions' COGs (a bake by jobs).
    std::string name = layout + "/heights-" + std::to_string(level) + ".tif";
    if (!fs::exists(name)) {
        name = layout + "/heights-" + std::to_string(level) + ".vrt";
    }
    GDALDatasetUniquePtr raster(GDALDataset::Open(name.c_str(), GDAL_OF_RASTER));
    if (!raster) {
        ADD_FAILURE() << name;
        return out;
    }
    out.columns = raster->GetRasterXSize();
    out.rows = raster->GetRasterYSize();
    out.codes.resize(size_t(out.columns) * size_t(out.rows));
    out.valid.resize(out.codes.size());
    GDALRasterBand* band = raster->GetRasterBand(1);
    EXPECT_EQ(band->RasterIO(GF_Read, 0, 0, out.columns, out.rows, out.codes.data(), out.columns,
                             out.rows, GDT_UInt16, 0, 0),
              CE_None);
    EXPECT_EQ(band->GetMaskBand()->RasterIO(GF_Read, 0, 0, out.columns, out.rows, out.valid.data(),
                                            out.columns, out.rows, GDT_Byte, 0, 0),
              CE_None);
    return out;
}

// The layout's tree is the whole map's: every leaf's range, the exact errors (folds apart) of
// levels 1..exactLevels and the range bound above, as the whole map's tree computes them.
void expectTheWholeMapsTree(const std::string& layout, const Heightmap& map, int exactLevels) {
    const Result<Quadtree> exact = buildQuadtreeExact(map, 4);
    ASSERT_TRUE(exact) << exact.error();
    const Quadtree& t = exact.value();
    const Result<Quadtree> range = buildQuadtree(map, 4);
    ASSERT_TRUE(range);
    const Result<TreeSidecar> tree =
        readTreeSidecar(layout + "/tree.qtree", FileStamp{}, map.width, map.height, 4);
    ASSERT_TRUE(tree) << tree.error();
    const TreeSidecar& s = tree.value();
    EXPECT_EQ(s.exactLevels, exactLevels);
    const std::vector<CodeRange> ranges = leafCodeRanges(map, 4);
    ASSERT_EQ(s.leafRanges.size(), ranges.size());
    for (size_t i = 0; i < ranges.size(); ++i) {
        ASSERT_EQ(s.leafRanges[i].minCode, ranges[i].minCode) << i;
        ASSERT_EQ(s.leafRanges[i].maxCode, ranges[i].maxCode) << i;
    }
    EXPECT_EQ(s.leafFoldErrors, t.leafFoldErrors) << layout;
    ASSERT_EQ(s.coarseErrors.size(), t.coarseErrors.size());
    const size_t exactEnd = t.levelStart[size_t(exactLevels) + 1];
    for (size_t i = 0; i < s.coarseErrors.size(); ++i) {
        if (i < exactEnd) {
            ASSERT_EQ(s.coarseErrors[i], t.coarseErrors[i]) << layout << " node " << i;
            ASSERT_EQ(s.foldErrors[i], t.foldErrors[i]) << layout << " node " << i;
        } else {
            ASSERT_EQ(s.coarseErrors[i], range.value().coarseErrors[i]) << layout << " node " << i;
            ASSERT_EQ(s.foldErrors[i], 0) << i;
        }
    }
    EXPECT_EQ(s.minCode, map.minCode);
    EXPECT_EQ(s.maxCode, map.maxCode);
}

// Regions of 16 and 32 squares (tiles of 16, leaves of 4), two threads, on a map whose last
// column and row fall inside a region and on one whose last ones are a region's edge: every
// level holds what one region gives (the map's codes where it has samples, its mask), and the
// tree is the whole map's: every leaf's range, the exact errors (folds apart) of the levels
// whose nodes lie inside a region (1 to log2(regionSize / 4)), and the range bound above, as the
// whole map's tree computes them.
TEST(Bake, RegionsGiveTheWholeMapsLevelsAndTree) {
    test::TempDir dir;
    struct Case {
        bool holes;
        int regionSize;
        int width;
        int height;
    };
    for (const Case& c :
         {Case{false, 16, 203, 141}, Case{false, 32, 203, 141}, Case{true, 16, 203, 141},
          Case{true, 32, 203, 141}, Case{false, 32, 193, 129}, Case{true, 16, 193, 129}}) {
        const bool holes = c.holes;
        const int regionSize = c.regionSize;
        const int width = c.width;
        const int height = c.height;
        const std::string input = writeInput(dir, holes, width, height);
        const std::string suffix =
            (holes ? "-holes-" : "-") + std::to_string(regionSize) + "-" + std::to_string(width);
        const std::string whole = dir.path("whole" + suffix);
        const std::string split = dir.path("split" + suffix);
        BakeOptions single = bakeOptions(dir);
        single.threads = 1;
        const Result<BakeSummary> one = bakeLayout(input, whole, single);
        ASSERT_TRUE(one) << one.error();
        BakeOptions regions = bakeOptions(dir);
        regions.regionSize = regionSize;
        regions.threads = 2;
        std::vector<int> counted;
        regions.progress = [&counted](int done, int total) {
            counted.push_back(done);
            EXPECT_GE(total, done);
        };
        const int64_t cacheBefore = GDALGetCacheMax64();
        const Result<BakeSummary> many = bakeLayout(input, split, regions);
        ASSERT_TRUE(many) << many.error();
        EXPECT_EQ(GDALGetCacheMax64(), cacheBefore);  // GDAL's cache capped only while it ran
        ASSERT_EQ(int(counted.size()), many.value().regions);
        for (size_t i = 0; i < counted.size(); ++i) {
            EXPECT_EQ(counted[i], int(i) + 1);
        }
        const int splitLevels = regionSize == 16 ? 2 : 3;
        EXPECT_EQ(many.value().regions,
                  ((width - 2) / regionSize + 1) * ((height - 2) / regionSize + 1));
        EXPECT_EQ(many.value().threads, 2);
        EXPECT_EQ(many.value().exactLevels, splitLevels);
        ASSERT_EQ(one.value().exactLevels, one.value().treeDepth);
        EXPECT_TRUE(verifyLayout(split)) << verifyLayout(split).error();
        for (int level = 0; level < one.value().levels; ++level) {
            const LevelSamples a = readLevel(whole, level);
            const LevelSamples b = readLevel(split, level);
            ASSERT_EQ(a.columns, b.columns);
            ASSERT_EQ(a.rows, b.rows);
            EXPECT_EQ(a.valid, b.valid) << "level " << level;
            for (size_t i = 0; i < a.codes.size(); ++i) {
                // Under a hole the codes are a fill made region by region.
                if (a.valid[i] != 0) {
                    ASSERT_EQ(a.codes[i], b.codes[i]) << "level " << level << " sample " << i;
                }
            }
        }
        if (holes) {
            continue;
        }
        LoadOptions load;
        const Result<Heightmap> loaded = loadHeightmap(input, load);
        ASSERT_TRUE(loaded) << loaded.error();
        expectTheWholeMapsTree(whole, loaded.value(), one.value().treeDepth);
        expectTheWholeMapsTree(split, loaded.value(), splitLevels);
    }
}

// The plan of a float band is the same whichever threads share its rows: the range of the
// samples given (so the codes), the voids, the coding.
TEST(Bake, APlanIsTheSameOnAnyThreads) {
    test::TempDir dir;
    const std::string input = writeInput(dir, true, 203, 700);
    const Result<BakeInput> one = planBakeInput(input, LoadOptions{}, 1);
    ASSERT_TRUE(one) << one.error();
    EXPECT_EQ(one.value().kind, BakeInput::Kind::GdalFloats);
    EXPECT_GT(one.value().nodataSamples, 0);
    for (const int threads : {2, 3, 8}) {
        const Result<BakeInput> many = planBakeInput(input, LoadOptions{}, threads);
        ASSERT_TRUE(many) << many.error();
        EXPECT_EQ(many.value().nodataSamples, one.value().nodataSamples) << threads;
        EXPECT_EQ(many.value().quantiser.lo, one.value().quantiser.lo) << threads;
        EXPECT_EQ(many.value().quantiser.exact, one.value().quantiser.exact) << threads;
        EXPECT_EQ(many.value().hi, one.value().hi) << threads;
        EXPECT_EQ(many.value().coding.offset, one.value().coding.offset) << threads;
        EXPECT_EQ(many.value().coding.step, one.value().coding.step) << threads;
    }
    // A band whose samples are all nodata is one line, on any threads.
    test::GdalRaster raster;
    raster.width = 40;
    raster.height = 300;
    raster.type = GDT_Float32;
    raster.hasNodata = true;
    raster.nodata = -9999.0;
    test::writeGdalRaster(dir.path("empty.tif"), "GTiff", raster,
                          std::vector<double>(40 * 300, -9999.0));
    for (const int threads : {1, 2}) {
        const Result<BakeInput> empty =
            planBakeInput(dir.path("empty.tif"), LoadOptions{}, threads);
        ASSERT_FALSE(empty);
        expectOneLineSaying(empty.error(), "every sample is nodata");
    }
}

// A .r16 is read by regions as its file holds it: every level its codes at the level's stride,
// the tree the whole map's (a square whose last row and column are a region's edge).
TEST(Bake, AR16IsReadByRegionsAsItsFileHoldsIt) {
    test::TempDir dir;
    const Heightmap map = syntheticHeightmap(161, 161, 7);
    std::vector<uint8_t> bytes(map.codes.size() * 2);
    for (size_t i = 0; i < map.codes.size(); ++i) {
        bytes[2 * i] = uint8_t(map.codes[i] & 0xFF);
        bytes[2 * i + 1] = uint8_t(map.codes[i] >> 8);
    }
    const std::string input = dir.path("m.r16");
    test::writeBytes(input, bytes);
    BakeOptions options = bakeOptions(dir);
    options.regionSize = 32;
    options.threads = 2;
    const std::string layout = dir.path("layout");
    const Result<BakeSummary> baked = bakeLayout(input, layout, options);
    ASSERT_TRUE(baked) << baked.error();
    EXPECT_EQ(baked.value().regions, 25);
    EXPECT_TRUE(verifyLayout(layout)) << verifyLayout(layout).error();
    for (int level = 0; level < baked.value().levels; ++level) {
        const LevelSamples l = readLevel(layout, level);
        const int step = 1 << level;
        ASSERT_EQ(l.columns, (160 + step - 1) / step + 1);
        for (int r = 0; r < l.rows; ++r) {
            for (int c = 0; c < l.columns; ++c) {
                ASSERT_EQ(l.codes[size_t(r) * size_t(l.columns) + size_t(c)],
                          map.codeAt(std::min(c * step, 160), std::min(r * step, 160)))
                    << "level " << level << " (" << c << ", " << r << ")";
            }
        }
    }
    expectTheWholeMapsTree(layout, map, 3);
}

// verifyLayout names the file and tile a damaged byte is in.
TEST(Bake, VerifyNamesWhatDoesNotMatchItsChecksum) {
    test::TempDir dir;
    const std::string layout = dir.path("layout");
    ASSERT_TRUE(bakeLayout(writeInput(dir), layout, bakeOptions(dir)));
    ASSERT_TRUE(verifyLayout(layout));
    const std::string tree = layout + "/tree.qtree";
    std::string bytes = fileText(tree);
    bytes[bytes.size() / 2] ^= 0x10;
    std::ofstream(tree, std::ios::binary | std::ios::trunc) << bytes;
    const Status damagedTree = verifyLayout(layout);
    ASSERT_FALSE(damagedTree);
    EXPECT_NE(damagedTree.error().find("tree.qtree"), std::string::npos) << damagedTree.error();

    // A level's samples changed as GDAL writes them: the tile's checksum no longer holds.
    ASSERT_TRUE(bakeLayout(writeInput(dir), layout, bakeOptions(dir)));
    changeSample(layout + "/heights-1.tif", 20, 17);
    const Status damagedTile = verifyLayout(layout);
    ASSERT_FALSE(damagedTile);
    expectOneLineSaying(damagedTile.error(), "heights-1.tif: tile (1, 1)");
}

// A bake split into jobs (three, of one and of two threads) and joined is the bake in one
// process: every level's codes and mask, every tile's checksum, the tree byte for byte, the map
// the viewer opens; the levels the regions hold are mosaics of the regions' COGs. A job run again
// changes nothing.
TEST(Bake, JobsJoinedAreTheBakeInOneProcess) {
    test::TempDir dir;
    for (const bool holes : {false, true}) {
        const std::string input = writeInput(dir, holes);
        const std::string whole = dir.path(holes ? "whole-holes" : "whole");
        const std::string jobs = dir.path(holes ? "jobs-holes" : "jobs");
        BakeOptions options = bakeOptions(dir);
        options.regionSize = 32;
        const Result<BakeSummary> one = bakeLayout(input, whole, options);
        ASSERT_TRUE(one) << one.error();
        const Result<BakeSummary> joined = bakeByJobs(dir, input, jobs, 32, 3, holes ? 2 : 1);
        ASSERT_TRUE(joined) << joined.error();
        EXPECT_EQ(joined.value().regions, one.value().regions);
        EXPECT_EQ(joined.value().exactLevels, one.value().exactLevels);
        EXPECT_EQ(joined.value().tiles, one.value().tiles);
        const Status verified = verifyLayout(jobs);
        ASSERT_TRUE(verified) << verified.error();
        // Regions of 32 squares hold whole tiles of 16 on levels 0 and 1.
        EXPECT_TRUE(fs::exists(jobs + "/heights-1.vrt"));
        EXPECT_TRUE(fs::exists(jobs + "/heights-2.tif"));
        EXPECT_FALSE(fs::exists(jobs + "/heights-0.tif"));
        for (int level = 0; level < one.value().levels; ++level) {
            const LevelSamples a = readLevel(whole, level);
            const LevelSamples b = readLevel(jobs, level);
            ASSERT_EQ(a.columns, b.columns);
            ASSERT_EQ(a.rows, b.rows);
            EXPECT_EQ(a.valid, b.valid) << "level " << level;
            EXPECT_EQ(a.codes, b.codes) << "level " << level;
        }
        EXPECT_EQ(fileText(jobs + "/tree.qtree"), fileText(whole + "/tree.qtree"));
        const std::string manifest = fileText(jobs + "/layout.json");
        std::string wholeManifest = fileText(whole + "/layout.json");
        // The same manifest but for the mosaics' names.
        for (const char* level : {"heights-0", "heights-1"}) {
            const std::string tif = std::string(level) + ".tif";
            wholeManifest.replace(wholeManifest.find(tif), tif.size(), std::string(level) + ".vrt");
        }
        EXPECT_EQ(manifest, wholeManifest);

        LoadOptions load;
        load.cacheDir = dir.path("cache");
        for (const bool stream : {false, true}) {
            const Result<OpenedMap> a = openMap(whole, load, {}, 4, stream);
            const Result<OpenedMap> b = openMap(jobs, load, {}, 4, stream);
            ASSERT_TRUE(a) << a.error();
            ASSERT_TRUE(b) << b.error();
            ASSERT_TRUE(b.value().map.codes == a.value().map.codes) << "stream " << stream;
            EXPECT_EQ(b.value().map.nodata.bits, a.value().map.nodata.bits);
            EXPECT_EQ(b.value().map.geo.crsName, a.value().map.geo.crsName);
            EXPECT_DOUBLE_EQ(b.value().map.geo.west, a.value().map.geo.west);
            EXPECT_FLOAT_EQ(b.value().map.coding.step, a.value().map.coding.step);
        }

        // Job 2 run again (a job that died, run again): the join gives the same layout.
        const std::string region = fileText(jobs + "/regions/1-1/region.json");
        BakeOptions again = bakeOptions(dir);
        again.regionSize = 32;
        again.job = 2;
        again.jobs = 3;
        ASSERT_TRUE(bakeLayout(input, jobs, again));
        EXPECT_FALSE(fs::exists(jobs + "/layout.json"));  // the layout is joined anew
        ASSERT_TRUE(joinLayout(jobs, bakeOptions(dir)));
        EXPECT_EQ(fileText(jobs + "/regions/1-1/region.json"), region);
        EXPECT_EQ(fileText(jobs + "/layout.json"), manifest);
    }
}

// A 203 x 141 raster of inputHeight at `path` but for `change`, which gives the sample at (c, r)
// from inputHeight there (-9999: nodata).
void writeChanged(const std::string& path, const std::function<double(int, int, double)>& change) {
    writeRaster(path, 203, 141,
                [&change](int c, int r) { return change(c, r, inputHeight(c, r)); });
}

// --plan takes a float band's pass once, and the jobs take its range and voids from plan.json
// with no pass of their own: the input's highest sample lowered after the plan (a pass would
// give another range, so another plan, which the jobs would refuse) bakes over the plan's range.
// An input changed where the plan's probe reads it (another input alike in size and place) is
// refused as another plan; one changed elsewhere to a sample outside the plan's range, or to a
// void where the plan counted none, fails its job with one line rather than clamping or filling
// silently. Jobs after a plan join into the whole bake's layout.
TEST(Bake, JobsTakeThePlanOfTheirFolder) {
    test::TempDir dir;
    const std::string input = dir.path("dem.tif");
    const auto same = [](int, int, double v) { return v; };
    writeChanged(input, same);
    BakeOptions options = bakeOptions(dir);
    options.regionSize = 32;
    const std::string whole = dir.path("whole");
    ASSERT_TRUE(bakeLayout(input, whole, options));
    BakeOptions plan = options;
    plan.planOnly = true;
    const std::string jobs = dir.path("jobs");
    const Result<BakeSummary> planned = bakeLayout(input, jobs, plan);
    ASSERT_TRUE(planned) << planned.error();
    EXPECT_EQ(planned.value().endRegion, 0);
    EXPECT_TRUE(fs::is_empty(jobs + "/regions"));
    const std::string kept = fileText(jobs + "/plan.json");
    ASSERT_TRUE(bakeByJobs(dir, input, jobs, 32, 2, 1));
    EXPECT_EQ(fileText(jobs + "/plan.json"), kept);
    EXPECT_EQ(fileText(jobs + "/tree.qtree"), fileText(whole + "/tree.qtree"));
    const LevelSamples baked = readLevel(whole, 0);
    EXPECT_EQ(readLevel(jobs, 0).codes, baked.codes);

    // The highest sample, away from the probe's (every 202/15 columns and 140/15 rows).
    int topC = 0, topR = 0;
    double top = -1e9;
    for (int r = 0; r < 141; ++r) {
        for (int c = 0; c < 203; ++c) {
            const double v = inputHeight(c, r);
            if (v > top) {
                top = v;
                topC = c;
                topR = r;
            }
        }
    }
    const auto probed = [](int c, int r) {
        for (int i = 0; i < 16; ++i) {
            for (int j = 0; j < 16; ++j) {
                if (c == 202 * i / 15 && r == 140 * j / 15) {
                    return true;
                }
            }
        }
        return false;
    };
    ASSERT_FALSE(probed(topC, topR));
    ASSERT_FALSE(probed(5, 5));
    const auto runJobs = [&](const std::string& name,
                             const std::function<double(int, int, double)>& change) {
        writeChanged(input, same);
        const std::string folder = dir.path(name);
        EXPECT_TRUE(bakeLayout(input, folder, plan));
        writeChanged(input, change);
        return bakeByJobs(dir, input, folder, 32, 1, 1);
    };
    const Result<BakeSummary> lowered = runJobs(
        "lowered", [&](int c, int r, double v) { return c == topC && r == topR ? 800.0 : v; });
    ASSERT_TRUE(lowered) << lowered.error();
    EXPECT_EQ(fileText(dir.path("lowered") + "/plan.json"), kept);
    const LevelSamples level = readLevel(dir.path("lowered"), 0);
    for (size_t i = 0; i < level.codes.size(); ++i) {
        if (i != size_t(topR) * 203 + size_t(topC)) {
            ASSERT_EQ(level.codes[i], baked.codes[i]) << i;  // the plan's quantiser
        }
    }

    Result<BakeSummary> refused =
        runJobs("other", [](int c, int r, double v) { return c == 0 && r == 0 ? v + 1.0 : v; });
    ASSERT_FALSE(refused);
    expectOneLineSaying(refused.error(), "the folder holds the plan of another bake");
    refused =
        runJobs("above", [](int c, int r, double v) { return c == 5 && r == 5 ? 5000.0 : v; });
    ASSERT_FALSE(refused);
    expectOneLineSaying(refused.error(), "lies outside the plan's range");
    refused =
        runJobs("void", [](int c, int r, double v) { return c == 5 && r == 5 ? -9999.0 : v; });
    ASSERT_FALSE(refused);
    expectOneLineSaying(refused.error(), "voids its plan did not count");
}

// The join refuses a layout with a region missing (its job not run, or dead before its
// region.json), stale (baked by another plan) or damaged (its tree part), with one line naming the
// region, and leaves no layout.json; a job of another plan is refused before it writes anything,
// and a whole bake and a bake by jobs never write into each other's folders.
TEST(Bake, AJoinRefusesARegionMissingStaleOrDamaged) {
    test::TempDir dir;
    const std::string input = writeInput(dir);
    const std::string jobs = dir.path("jobs");
    ASSERT_TRUE(bakeByJobs(dir, input, jobs, 32, 2, 1));
    ASSERT_TRUE(fs::exists(jobs + "/layout.json"));
    const std::string manifest = jobs + "/regions/2-1/region.json";
    const std::string kept = fileText(manifest);

    fs::remove(manifest);
    Result<BakeSummary> joined = joinLayout(jobs, bakeOptions(dir));
    ASSERT_FALSE(joined);
    expectOneLineSaying(joined.error(), "region (2, 1) is not baked");
    EXPECT_FALSE(fs::exists(jobs + "/layout.json"));

    std::string stale = kept;
    const size_t plan = stale.find("\"plan\"");
    ASSERT_NE(plan, std::string::npos);
    const size_t digit = stale.find_first_of("0123456789abcdef", stale.find(':', plan) + 3);
    stale[digit] = stale[digit] == '0' ? '1' : '0';
    std::ofstream(manifest, std::ios::binary | std::ios::trunc) << stale;
    joined = joinLayout(jobs, bakeOptions(dir));
    ASSERT_FALSE(joined);
    expectOneLineSaying(joined.error(), "region (2, 1) was baked by another plan");

    std::ofstream(manifest, std::ios::binary | std::ios::trunc) << kept;
    const std::string part = jobs + "/regions/2-1/tree.part";
    std::string bytes = fileText(part);
    bytes[bytes.size() / 2] ^= 0x04;
    std::ofstream(part, std::ios::binary | std::ios::trunc) << bytes;
    joined = joinLayout(jobs, bakeOptions(dir));
    ASSERT_FALSE(joined);
    expectOneLineSaying(joined.error(), "region (2, 1): tree.part does not match its checksum");
    EXPECT_FALSE(fs::exists(jobs + "/layout.json"));

    // Another plan (tiles of 32): refused, the regions as they were.
    BakeOptions other = bakeOptions(dir);
    other.pageSize = 32;
    other.regionSize = 32;
    other.job = 1;
    other.jobs = 2;
    const std::string region = fileText(jobs + "/regions/0-0/region.json");
    const Result<BakeSummary> refused = bakeLayout(input, jobs, other);
    ASSERT_FALSE(refused);
    expectOneLineSaying(refused.error(), "the folder holds the plan of another bake");
    EXPECT_EQ(fileText(jobs + "/regions/0-0/region.json"), region);

    // A whole bake into a folder of jobs, and a job into a layout baked whole.
    const Result<BakeSummary> whole = bakeLayout(input, jobs, bakeOptions(dir));
    ASSERT_FALSE(whole);
    expectOneLineSaying(whole.error(), "holds a bake by jobs");
    const std::string layout = dir.path("layout");
    ASSERT_TRUE(bakeLayout(input, layout, bakeOptions(dir)));
    BakeOptions job = bakeOptions(dir);
    job.job = 1;
    job.jobs = 2;
    const Result<BakeSummary> intoWhole = bakeLayout(input, layout, job);
    ASSERT_FALSE(intoWhole);
    expectOneLineSaying(intoWhole.error(), "holds a layout baked whole");
    EXPECT_TRUE(verifyLayout(layout));
    EXPECT_FALSE(fs::exists(layout + "/regions"));

    // A join of a folder with no plan, and a job beyond its count.
    const Result<BakeSummary> noPlan = joinLayout(layout, bakeOptions(dir));
    ASSERT_FALSE(noPlan);
    expectOneLineSaying(noPlan.error(), "plan.json: missing");
    job.job = 3;
    EXPECT_FALSE(bakeLayout(input, dir.path("beyond"), job));
    EXPECT_FALSE(fs::exists(dir.path("beyond")));
}

// A bake run again gives the same layout; a folder holding anything of the user's is refused and
// left as it is, as is a file in the layout's place.
TEST(Bake, ReplacesItsOwnLayoutAndNeverWritesIntoTheUsersFolder) {
    test::TempDir dir;
    const std::string input = writeInput(dir);
    const std::string layout = dir.path("layout");
    ASSERT_TRUE(bakeLayout(input, layout, bakeOptions(dir)));
    const std::string manifest = fileText(layout + "/layout.json");
    const std::string level0 = fileText(layout + "/heights-0.tif");
    const Result<BakeSummary> again = bakeLayout(input, layout, bakeOptions(dir));
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(fileText(layout + "/layout.json"), manifest);
    EXPECT_EQ(fileText(layout + "/heights-0.tif"), level0);

    const std::string users = dir.path("users");
    fs::create_directory(users);
    std::ofstream(users + "/notes.txt") << "mine";
    const Result<BakeSummary> intoUsers = bakeLayout(input, users, bakeOptions(dir));
    ASSERT_FALSE(intoUsers);
    EXPECT_NE(intoUsers.error().find("not a layout's"), std::string::npos) << intoUsers.error();
    EXPECT_EQ(fileText(users + "/notes.txt"), "mine");
    EXPECT_EQ(std::distance(fs::directory_iterator(users), fs::directory_iterator()), 1);

    std::ofstream(dir.path("a file")) << "mine";
    EXPECT_FALSE(bakeLayout(input, dir.path("a file"), bakeOptions(dir)));
    EXPECT_EQ(fileText(dir.path("a file")), "mine");
}

// The viewer opens a layout's folder as its level 0: the map the input opens as, sample for
// sample, with its holes and place; a damaged tile refuses it in one line.
TEST(Bake, ALayoutOpensAsTheMapItWasBakedFrom) {
    test::TempDir dir;
    const std::string input = writeInput(dir);
    const std::string layout = dir.path("layout");
    ASSERT_TRUE(bakeLayout(input, layout, bakeOptions(dir)));
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    for (const bool stream : {false, true}) {
        const Result<OpenedMap> original = openMap(input, load, {}, 4, stream);
        const Result<OpenedMap> baked = openMap(layout, load, {}, 4, stream);
        ASSERT_TRUE(original) << original.error();
        ASSERT_TRUE(baked) << baked.error();
        const Heightmap& a = original.value().map;
        const Heightmap& b = baked.value().map;
        EXPECT_EQ(b.width, a.width);
        EXPECT_EQ(b.height, a.height);
        EXPECT_EQ(baked.value().streamed, stream);
        ASSERT_TRUE(b.codes == a.codes) << "stream " << stream;
        EXPECT_FLOAT_EQ(b.coding.offset, a.coding.offset);
        EXPECT_FLOAT_EQ(b.coding.step, a.coding.step);
        EXPECT_EQ(b.metres, a.metres);
        EXPECT_EQ(b.nodata.bits, a.nodata.bits);
        EXPECT_EQ(b.nodata.samples, a.nodata.samples);
        EXPECT_EQ(b.geo.crsName, a.geo.crsName);
        EXPECT_DOUBLE_EQ(b.geo.west, a.geo.west);
        EXPECT_DOUBLE_EQ(b.geo.north, a.geo.north);
    }
    changeSample(layout + "/heights-0.tif", 40, 3);
    const Result<OpenedMap> damaged = openMap(layout, load, {}, 4, false);
    ASSERT_FALSE(damaged);
    expectOneLineSaying(damaged.error(), "heights-0.tif: tile (2, 0)");
}

// A layout held whole flies the bake's tree, with no pass over the map: every node's bounds and
// the hole leaves are those of the tree built from the codes it read (so the walk culls as it
// would), the exact errors of the regions' levels are the full build's and the range bound is
// above them; with the fill drawn as terrain too (the bake's bounds hold its fill). Asked for
// another leaf size, the tree is left to be built. A tree.qtree not of its checksum is one line.
TEST(Bake, ALayoutHeldWholeFliesTheBakesTree) {
    test::TempDir dir;
    for (const bool holes : {false, true}) {
        const std::string layout = dir.path(holes ? "holes" : "solid");
        BakeOptions options = bakeOptions(dir);
        options.regionSize = 32;
        ASSERT_TRUE(bakeLayout(writeInput(dir, holes), layout, options));
        LoadOptions load;
        load.cacheDir = dir.path("cache");
        const Result<OpenedMap> opened = openMap(layout, load, {}, 4, false);
        ASSERT_TRUE(opened) << opened.error();
        const OpenedMap& o = opened.value();
        EXPECT_FALSE(o.streamed);
        EXPECT_EQ(o.sidecar, "read");
        EXPECT_EQ(o.map.nodata.holes(), holes);
        const Quadtree& baked = o.tree;
        const Result<Quadtree> exact = buildQuadtreeExact(o.map, 4);
        ASSERT_TRUE(exact) << exact.error();
        const Quadtree& built = exact.value();
        ASSERT_EQ(baked.nodes.size(), built.nodes.size());
        for (size_t i = 0; i < built.nodes.size(); ++i) {
            ASSERT_EQ(baked.nodes[i].minCode, built.nodes[i].minCode) << i;
            ASSERT_EQ(baked.nodes[i].maxCode, built.nodes[i].maxCode) << i;
        }
        EXPECT_EQ(baked.holeLeavesBefore, built.holeLeavesBefore);
        EXPECT_EQ(baked.emptyLeavesBefore, built.emptyLeavesBefore);
        EXPECT_EQ(baked.lodErrors, LodErrors::Mixed);
        EXPECT_EQ(baked.exactLevels, 3);
        EXPECT_EQ(baked.leafFoldErrors, built.leafFoldErrors);
        ASSERT_EQ(baked.coarseErrors.size(), built.coarseErrors.size());
        const size_t exactEnd = built.levelStart[size_t(baked.exactLevels) + 1];
        for (size_t i = 0; i < built.coarseErrors.size(); ++i) {
            if (i < exactEnd) {
                ASSERT_EQ(baked.coarseErrors[i], built.coarseErrors[i]) << i;
                ASSERT_EQ(baked.foldErrors[i], built.foldErrors[i]) << i;
            } else {
                // The range bound holds the node's folds too (fillQuadtreeBounds).
                ASSERT_GE(baked.coarseErrors[i],
                          std::max(built.coarseErrors[i], built.foldErrors[i]))
                    << i;
                ASSERT_EQ(baked.foldErrors[i], 0) << i;
            }
        }

        const Result<OpenedMap> otherLeaves = openMap(layout, load, {}, 8, false);
        ASSERT_TRUE(otherLeaves) << otherLeaves.error();
        EXPECT_TRUE(otherLeaves.value().tree.nodes.empty());
        EXPECT_EQ(otherLeaves.value().sidecar, "");
        load.fillNodata = true;
        const Result<OpenedMap> filled = openMap(layout, load, {}, 4, false);
        ASSERT_TRUE(filled) << filled.error();
        // The bake's bounds hold its fill, which --fill-nodata draws: its tree still flies.
        EXPECT_FALSE(filled.value().tree.nodes.empty());
        EXPECT_TRUE(filled.value().tree.holeLeavesBefore.empty());
        EXPECT_FALSE(filled.value().map.nodata.holes());
        EXPECT_EQ(filled.value().map.nodata.filled, holes);
    }
    std::fstream tree(dir.path("solid/tree.qtree"),
                      std::ios::in | std::ios::out | std::ios::binary);
    tree.seekg(100);
    const char byte = char(tree.get() ^ 1);  // damage at rest
    tree.seekp(100);
    tree.put(byte);
    tree.close();
    const Result<OpenedMap> damaged = openMap(dir.path("solid"), LoadOptions{}, {}, 4, false);
    ASSERT_FALSE(damaged);
    expectOneLineSaying(damaged.error(), "tree.qtree: does not match its checksum");
    // A layout.json asking for a tree of a terabyte is refused before anything is allocated.
    std::string manifest = fileText(dir.path("solid/layout.json"));
    const size_t treeKey = manifest.find("\"tree\"");
    const size_t bytes = manifest.find("\"bytes\"", treeKey);
    ASSERT_NE(bytes, std::string::npos) << manifest;
    const size_t digits = manifest.find_first_of("0123456789", bytes);
    const size_t end = manifest.find_first_not_of("0123456789", digits);
    manifest.replace(digits, end - digits, "1000000000000");
    std::ofstream(dir.path("solid/layout.json"), std::ios::binary) << manifest;
    const Result<OpenedMap> huge = openMap(dir.path("solid"), LoadOptions{}, {}, 4, false);
    ASSERT_FALSE(huge);
    expectOneLineSaying(huge.error(), "layout.json: a tree larger than the map's can be");
}

// A layout over the budget streams through a code cache of its own, made once from its tiles
// (each held to its checksum) with the layout's tree, and mapped on the next open with nothing of
// the layout read: by path, and by URL from nginx (no request for its level 0 the second time).
// The codes and tree are those of the layout held whole; a damaged tile is one line and no cache.
TEST(Bake, ALayoutOverTheBudgetStreamsThroughItsOwnCodeCache) {
    test::TempDir dir;
    const std::string layout = dir.path("layout");
    BakeOptions options = bakeOptions(dir);
    options.regionSize = 32;
    ASSERT_TRUE(bakeLayout(writeInput(dir), layout, options));
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    const Result<OpenedMap> whole = openMap(layout, load, {}, 4, false);
    ASSERT_TRUE(whole) << whole.error();
    for (const std::string& named : {layout, server.url("layout")}) {
        for (const char* expected : {"written", "read"}) {
            const size_t logged = server.accessLog().size();
            const Result<OpenedMap> opened = openMap(named, load, {}, 4, true);
            ASSERT_TRUE(opened) << opened.error();
            const OpenedMap& o = opened.value();
            EXPECT_TRUE(o.streamed);
            EXPECT_EQ(o.codeCache, expected) << named;
            EXPECT_EQ(o.sidecar, "read") << named;
            EXPECT_NE(o.codeCachePath.find(".layout.qtcodes"), std::string::npos);
            EXPECT_TRUE(o.map.codes == whole.value().map.codes) << named << " " << expected;
            EXPECT_EQ(o.map.nodata.bits, whole.value().map.nodata.bits);
            EXPECT_EQ(o.map.minCode, whole.value().map.minCode);
            ASSERT_EQ(o.tree.nodes.size(), whole.value().tree.nodes.size());
            for (size_t i = 0; i < o.tree.nodes.size(); ++i) {
                ASSERT_EQ(o.tree.nodes[i].minCode, whole.value().tree.nodes[i].minCode) << i;
                ASSERT_EQ(o.tree.nodes[i].maxCode, whole.value().tree.nodes[i].maxCode) << i;
            }
            EXPECT_EQ(o.tree.coarseErrors, whole.value().tree.coarseErrors);
            EXPECT_EQ(o.tree.foldErrors, whole.value().tree.foldErrors);
            EXPECT_EQ(o.tree.lodErrors, LodErrors::Mixed);
            const std::string requests = server.accessLog().substr(logged);
            const bool levelRead =
                requests.find("GET /layout/heights-0.tif 206") != std::string::npos;
            EXPECT_EQ(levelRead, named != layout && std::string(expected) == "written") << requests;
        }
    }
    // A joined layout by URL: once its cache is made, the next open asks for nothing of its
    // regions (the cache is known by the layout's checksums, not by its files).
    ASSERT_TRUE(bakeByJobs(dir, writeInput(dir), dir.path("jobs"), 32, 2, 1));
    ASSERT_TRUE(openMap(server.url("jobs"), load, {}, 4, true));
    const size_t logged = server.accessLog().size();
    const Result<OpenedMap> again = openMap(server.url("jobs"), load, {}, 4, true);
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(again.value().codeCache, "read");
    EXPECT_TRUE(again.value().map.codes == whole.value().map.codes);
    EXPECT_EQ(server.accessLog().find("/jobs/regions/", logged), std::string::npos)
        << server.accessLog().substr(logged);
    // The layout baked again from another input, in the same place: another cache, by path and
    // by URL (whose files have no times a stat can take; GDAL's cache of what it read emptied,
    // as a new process finds it).
    ASSERT_TRUE(bakeLayout(writeInput(dir, false), layout, options));
    VSICurlClearCache();
    for (const std::string& named : {layout, server.url("layout")}) {
        const Result<OpenedMap> rebaked = openMap(named, load, {}, 4, true);
        ASSERT_TRUE(rebaked) << rebaked.error();
        EXPECT_EQ(rebaked.value().codeCache, "written") << named;
        EXPECT_FALSE(rebaked.value().map.nodata.holes()) << named;
    }

    changeSample(layout + "/heights-0.tif", 40, 3);
    load.cacheDir = dir.path("another cache");
    const Result<OpenedMap> damaged = openMap(layout, load, {}, 4, true);
    ASSERT_FALSE(damaged);
    expectOneLineSaying(damaged.error(), "heights-0.tif: tile (2, 0) does not match its checksum");
    // No cache: only its unfinished file, which no open maps (the next one goes on from it).
    EXPECT_TRUE(filesEndingWith(dir.path("another cache"), ".layout.qtcodes").empty());
    EXPECT_EQ(filesEndingWith(dir.path("another cache"), ".layout.qtcodes.partial").size(), 1u);
}

// The bytes of a finished code cache (its header, then its codes) for the unfinished one the
// test makes from it.
std::string cacheBytes(const std::string& path) {
    const std::string bytes = fileText(path);
    EXPECT_EQ(bytes.size(), codeCacheBytes(203, 141));
    return bytes;
}

// A layout's first streamed open that fails part way (a tile that does not match its checksum)
// keeps its unfinished code cache in the cache folder, which no open maps, and the next open goes
// on from it: each row of tiles there whose every tile matches its checksum is kept unread, any
// other (damaged, or never written) is read again, and the codes are the layout's. The partial
// file counts in --cache-size and its blocks as room on the disk; one of another length is of no
// use and goes; a killed writer's temporary is taken up as one; a file of the user's at its path
// is left alone.
TEST(Bake, AnUnfinishedFirstOpenOfALayoutGoesOnFromTheRowsOfTilesItKept) {
    test::TempDir dir;
    const std::string layout = dir.path("layout");
    ASSERT_TRUE(bakeLayout(writeInput(dir), layout, bakeOptions(dir)));  // 9 rows of 13 tiles
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    const Result<OpenedMap> whole = openMap(layout, load, {}, 4, false);
    ASSERT_TRUE(whole) << whole.error();
    const auto expectTheLayouts = [&](const OpenedMap& o) {
        EXPECT_TRUE(o.map.codes == whole.value().map.codes);
        EXPECT_EQ(o.map.nodata.bits, whole.value().map.nodata.bits);
        EXPECT_EQ(o.map.nodata.samples, whole.value().map.nodata.samples);
        EXPECT_EQ(o.map.minCode, whole.value().map.minCode);
        EXPECT_EQ(o.map.maxCode, whole.value().map.maxCode);
    };

    // A tile of the last row damaged: the open fails, its unfinished cache kept.
    changeSample(layout + "/heights-0.tif", 40, 8 * 16 + 3);
    const Result<OpenedMap> failed = openMap(layout, load, {}, 4, true);
    ASSERT_FALSE(failed);
    expectOneLineSaying(failed.error(), "heights-0.tif: tile (2, 8) does not match its checksum");
    EXPECT_TRUE(filesEndingWith(load.cacheDir, ".layout.qtcodes").empty());
    const std::vector<std::string> partials =
        filesEndingWith(load.cacheDir, ".layout.qtcodes.partial");
    ASSERT_EQ(partials.size(), 1u);
    const std::string partial = partials.front();
    const std::string cache = partial.substr(0, partial.size() - std::string(".partial").size());
    EXPECT_EQ(fs::file_size(partial), codeCacheBytes(203, 141));
    EXPECT_TRUE(filesEndingWith(load.cacheDir, ".tmp" + std::to_string(::getpid())).empty());

    // The tile mended; a finished cache of the same layout elsewhere gives the bytes of an
    // unfinished one made here: rows of tiles 0, 1, 3, 4 and 5 as they should be, row 2 with one
    // code changed, rows 6 to 8 never written.
    changeSample(layout + "/heights-0.tif", 40, 8 * 16 + 3);
    LoadOptions elsewhere = load;
    elsewhere.cacheDir = dir.path("reference cache");
    const Result<OpenedMap> reference = openMap(layout, elsewhere, {}, 4, true);
    ASSERT_TRUE(reference) << reference.error();
    EXPECT_EQ(reference.value().tileRowsReused, 0);
    std::string bytes = cacheBytes(reference.value().codeCachePath);
    std::fill(bytes.begin() + 8, bytes.begin() + std::ptrdiff_t(kCodeCacheHeaderBytes), '\0');
    const size_t row = 203 * 2;  // bytes of a row of samples
    bytes[kCodeCacheHeaderBytes + (2 * 16 + 5) * row + 11] ^= 1;
    std::fill(bytes.begin() + std::ptrdiff_t(kCodeCacheHeaderBytes + 6 * 16 * row), bytes.end(),
              '\0');
    writeFile(partial, bytes);
    // The disk's free bytes are counted with the partial file's blocks, which the cache takes up:
    // a disk that lacks room for a new cache still takes this one (and refuses a new one).
    const Result<LayoutManifest> manifest = readLayoutManifest(layout);
    ASSERT_TRUE(manifest) << manifest.error();
    StreamOptions tight;
    tight.layout = &manifest.value();
    tight.freeDiskBytes = [](const std::string&) {
        return sidecarBytes(203, 141, 4) + kStreamDiskMarginBytes;  // all but the codes' room
    };
    const std::string levelZero = manifest.value().levelZero;
    LoadOptions empty = load;
    empty.cacheDir = dir.path("empty cache");
    const Result<StreamedMap> noRoom = openStreamedGdal(levelZero, levelZero, empty, 4, tight);
    ASSERT_FALSE(noRoom);
    expectOneLineSaying(noRoom.error(), "MiB free");
    const Result<StreamedMap> taken = openStreamedGdal(levelZero, levelZero, load, 4, tight);
    ASSERT_TRUE(taken) << taken.error();
    EXPECT_EQ(taken.value().tileRowsReused, 5);
    fs::remove(cache);
    writeFile(partial, bytes);
    // Told of each row of tiles, kept or read, one at a time (as the viewer's loads show it).
    std::vector<std::pair<int64_t, int64_t>> told;
    LoadOptions counted = load;
    counted.readProgress = [&told](int64_t done, int64_t total) { told.emplace_back(done, total); };
    const Result<OpenedMap> resumed = openMap(layout, counted, {}, 4, true);
    ASSERT_TRUE(resumed) << resumed.error();
    std::vector<std::pair<int64_t, int64_t>> everyRow;
    for (int64_t done = 1; done <= 9; ++done) {
        everyRow.emplace_back(done, 9);
    }
    EXPECT_EQ(told, everyRow);
    told.clear();
    ASSERT_TRUE(openMap(layout, counted, {}, 4, false));  // held whole
    EXPECT_EQ(told, everyRow);
    EXPECT_EQ(resumed.value().tileRowsReused, 5);
    EXPECT_EQ(resumed.value().codeCache, "written");
    EXPECT_TRUE(fs::equivalent(resumed.value().codeCachePath, cache));
    expectTheLayouts(resumed.value());
    EXPECT_FALSE(fs::exists(partial));
    const Result<OpenedMap> reread = openMap(layout, load, {}, 4, true);
    ASSERT_TRUE(reread) << reread.error();
    EXPECT_EQ(reread.value().codeCache, "read");
    expectTheLayouts(reread.value());

    // An unfinished file of another length (cut short) is of no use: it goes, every row is read.
    fs::remove(cache);
    writeFile(partial, bytes.substr(0, 5000));
    const Result<OpenedMap> cut = openMap(layout, load, {}, 4, true);
    ASSERT_TRUE(cut) << cut.error();
    EXPECT_EQ(cut.value().tileRowsReused, 0);
    expectTheLayouts(cut.value());
    EXPECT_FALSE(fs::exists(partial));

    // A writer killed part way (Ctrl+C, a crash: no unwinding) leaves its temporary, which the
    // next open takes up as the partial file, not as a dead writer's file to remove; taken up
    // before the disk's room is counted, so its blocks count as the partial file's do.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        _exit(0);
    }
    ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // its id now names no process
    fs::remove(cache);
    writeFile(cache + ".tmp" + std::to_string(child), bytes);
    const Result<StreamedMap> killedTight = openStreamedGdal(levelZero, levelZero, load, 4, tight);
    ASSERT_TRUE(killedTight) << killedTight.error();
    EXPECT_EQ(killedTight.value().tileRowsReused, 5);
    EXPECT_FALSE(fs::exists(cache + ".tmp" + std::to_string(child)));
    fs::remove(cache);
    writeFile(cache + ".tmp" + std::to_string(child), bytes);
    const Result<OpenedMap> killed = openMap(layout, load, {}, 4, true);
    ASSERT_TRUE(killed) << killed.error();
    EXPECT_EQ(killed.value().tileRowsReused, 5);
    expectTheLayouts(killed.value());
    EXPECT_FALSE(fs::exists(cache + ".tmp" + std::to_string(child)));
    EXPECT_FALSE(fs::exists(partial));

    // A file of the user's at the partial's path is never taken up nor replaced.
    fs::remove(cache);
    writeFile(partial, "my notes");
    changeSample(layout + "/heights-0.tif", 40, 3);
    ASSERT_FALSE(openMap(layout, load, {}, 4, true));
    EXPECT_EQ(fileText(partial), "my notes");
    EXPECT_TRUE(filesEndingWith(load.cacheDir, ".tmp" + std::to_string(::getpid())).empty());
    changeSample(layout + "/heights-0.tif", 40, 3);
    const Result<OpenedMap> beside = openMap(layout, load, {}, 4, true);
    ASSERT_TRUE(beside) << beside.error();
    EXPECT_EQ(beside.value().tileRowsReused, 0);
    EXPECT_EQ(fileText(partial), "my notes");

    // --cache-size counts an unfinished cache and removes it, least recently used, unless it is
    // the one about to become the cache at `keep`.
    const std::string trimmed = dir.path("trimmed");
    fs::create_directories(trimmed);
    writeFile(trimmed + "/heights-0.tif.1.layout.qtcodes.partial", bytes);
    const Result<std::vector<std::string>> kept =
        trimCacheFolder(trimmed, 1000, 0, trimmed + "/heights-0.tif.1.layout.qtcodes");
    ASSERT_TRUE(kept) << kept.error();
    EXPECT_TRUE(kept.value().empty());
    const Result<std::vector<std::string>> removed = trimCacheFolder(trimmed, 1000, 0, "");
    ASSERT_TRUE(removed) << removed.error();
    EXPECT_EQ(removed.value(),
              std::vector<std::string>{trimmed + "/heights-0.tif.1.layout.qtcodes.partial"});
}

// A joined layout by URL whose server holds a damaged tile part way down the map: the first
// streamed open fails in one line naming it and keeps the rows of tiles it read; once the tile is
// mended, the next open goes on from them (the failing thread read its first row of tiles before
// the damaged one, so at least one is kept) and its codes are the layout's.
TEST(Bake, AnOpenByUrlOfADamagedTileGoesOnOnceItIsMended) {
    test::TempDir dir;
    ASSERT_TRUE(bakeByJobs(dir, writeInput(dir), dir.path("jobs"), 32, 2, 1));  // regions of 32²
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    const Result<OpenedMap> whole = openMap(dir.path("jobs"), load, {}, 4, false);
    ASSERT_TRUE(whole) << whole.error();
    // Region (0, 2) starts at row 64: its sample (5, 3) is in tile (0, 4), of rows 0 to 8.
    const std::string region = dir.path("jobs/regions/0-2/heights-0.tif");
    changeSample(region, 5, 3);
    const Result<OpenedMap> damaged = openMap(server.url("jobs"), load, {}, 4, true);
    ASSERT_FALSE(damaged);
    expectOneLineSaying(damaged.error(),
                        "regions/0-2/heights-0.tif: tile (0, 4) does not match its checksum");
    EXPECT_EQ(filesEndingWith(load.cacheDir, ".layout.qtcodes.partial").size(), 1u);
    changeSample(region, 5, 3);
    VSICurlClearCache();  // GDAL's memory of the damaged bytes, as a new process starts without
    const Result<OpenedMap> mended = openMap(server.url("jobs"), load, {}, 4, true);
    ASSERT_TRUE(mended) << mended.error();
    EXPECT_GE(mended.value().tileRowsReused, 1);
    EXPECT_LE(mended.value().tileRowsReused, 8);
    EXPECT_TRUE(mended.value().map.codes == whole.value().map.codes);
    EXPECT_EQ(mended.value().map.nodata.bits, whole.value().map.nodata.bits);
    EXPECT_TRUE(filesEndingWith(load.cacheDir, ".layout.qtcodes.partial").empty());
}

// A layout served over HTTP (nginx on 127.0.0.1, byte ranges) opens by its folder's URL as its
// local folder does, and verifies whole through GDAL's network reader.
TEST(Bake, ALayoutByUrlOpensAsItsLocalFolder) {
    test::TempDir dir;
    const std::string layout = dir.path("layout");
    ASSERT_TRUE(bakeLayout(writeInput(dir), layout, bakeOptions(dir)));
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    const std::string url = server.url("layout");
    EXPECT_TRUE(isLayoutFolder(url));
    EXPECT_TRUE(isLayoutFolder(url + "/"));
    EXPECT_FALSE(isLayoutFolder(server.url("elsewhere")));
    EXPECT_FALSE(isLayoutFolder(server.url("layout/heights-0.tif")));
    const Status verified = verifyLayout(url);
    EXPECT_TRUE(verified) << verified.error();
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    const Result<OpenedMap> local = openMap(layout, load, {}, 4, false);
    const Result<OpenedMap> remote = openMap(url, load, {}, 4, false);
    ASSERT_TRUE(local) << local.error();
    ASSERT_TRUE(remote) << remote.error();
    EXPECT_TRUE(remote.value().map.codes == local.value().map.codes);
    EXPECT_EQ(remote.value().map.nodata.bits, local.value().map.nodata.bits);
    EXPECT_NE(server.accessLog().find("GET /layout/heights-0.tif 206 bytes="), std::string::npos)
        << server.accessLog();

    // A layout of jobs joined: its mosaics' regions read by their URLs beside the mosaic.
    ASSERT_TRUE(bakeByJobs(dir, writeInput(dir), dir.path("jobs"), 32, 2, 1));
    const Status joined = verifyLayout(server.url("jobs"));
    EXPECT_TRUE(joined) << joined.error();
    const Result<OpenedMap> mosaic = openMap(server.url("jobs"), load, {}, 4, false);
    ASSERT_TRUE(mosaic) << mosaic.error();
    EXPECT_TRUE(mosaic.value().map.codes == local.value().map.codes);
    EXPECT_NE(server.accessLog().find("GET /jobs/regions/1-1/heights-0.tif 206 bytes="),
              std::string::npos)
        << server.accessLog();
}

// A raster named by URL (nginx on 127.0.0.1) is baked by regions through GDAL's network reader,
// by byte ranges, into the layout its local file gives: the same tiles and tree.
TEST(Bake, ARasterByUrlBakesAsItsLocalFile) {
    test::TempDir dir;
    const std::string input = writeInput(dir);
    BakeOptions options = bakeOptions(dir);
    options.regionSize = 32;
    ASSERT_TRUE(bakeLayout(input, dir.path("local"), options));
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    const Result<BakeSummary> remote =
        bakeLayout(server.url("dem.tif"), dir.path("remote"), options);
    ASSERT_TRUE(remote) << remote.error();
    EXPECT_EQ(remote.value().regions, 35);
    EXPECT_EQ(fileText(dir.path("remote/layout.json")), fileText(dir.path("local/layout.json")));
    EXPECT_EQ(fileText(dir.path("remote/tree.qtree")), fileText(dir.path("local/tree.qtree")));
    EXPECT_NE(server.accessLog().find("GET /dem.tif 206 bytes="), std::string::npos)
        << server.accessLog();
    // A server that answers 404 is one line, and no layout is made.
    const Result<BakeSummary> missing =
        bakeLayout(server.url("gone/dem.tif"), dir.path("none"), options);
    ASSERT_FALSE(missing);
    expectOneLineSaying(missing.error(), "404");
    EXPECT_FALSE(fs::exists(dir.path("none")));
}

// A layout served over HTTP that the server damaged, lost part of, mixed with another bake's file
// or stopped serving: the open fails in one line naming what, and nothing is drawn from it.
// Each case is its own folder, so GDAL's cache of one URL never answers for another.
TEST(Bake, AFaultyLayoutByUrlIsOneLine) {
    test::TempDir dir;
    const std::string input = writeInput(dir);
    for (const char* name : {"damaged", "missing", "mixed", "stopped", "unread"}) {
        ASSERT_TRUE(bakeLayout(input, dir.path(name), bakeOptions(dir))) << name;
    }
    BakeOptions other = bakeOptions(dir);
    other.pageSize = 32;
    ASSERT_TRUE(bakeLayout(input, dir.path("other"), other));
    changeSample(dir.path("damaged/heights-0.tif"), 40, 3);
    fs::remove(dir.path("missing/heights-0.tif"));
    fs::copy_file(dir.path("other/heights-0.tif"), dir.path("mixed/heights-0.tif"),
                  fs::copy_options::overwrite_existing);
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    const auto expectOneLine = [&](const std::string& url, const std::string& says) {
        const Result<OpenedMap> opened = openMap(url, load, {}, 4, false);
        ASSERT_FALSE(opened) << url;
        expectOneLineSaying(opened.error(), says);
    };
    expectOneLine(server.url("damaged"), "heights-0.tif: tile (2, 0)");
    expectOneLine(server.url("missing"), "HTTP 404");
    expectOneLine(server.url("mixed"), "heights-0.tif");
    // Stopped: a layout read before comes whole from GDAL's cache of what it read, the same
    // codes under the same checksums; one not read before is one line, within the timeouts.
    const Result<OpenedMap> before = openMap(server.url("stopped"), load, {}, 4, false);
    ASSERT_TRUE(before) << before.error();
    const std::string read = server.url("stopped"), unread = server.url("unread");
    server.stop();
    const Result<OpenedMap> again = openMap(read, load, {}, 4, false);
    ASSERT_TRUE(again) << again.error();
    EXPECT_TRUE(again.value().map.codes == before.value().map.codes);
    const auto start = std::chrono::steady_clock::now();
    const Result<OpenedMap> opened = openMap(unread, load, {}, 4, false);
    ASSERT_FALSE(opened);
    expectOneLineSaying(opened.error(), "its layout.json cannot be read from its server");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << opened.error();
}

// A layout whose server is slow (nginx's limit_rate) opens as its local folder does, in its own
// time; one behind a redirect loop, or a joined layout whose server lost one region's tile file
// (a 404 for that region), is one line within the timeouts: nothing is drawn from it.
TEST(Bake, ASlowOrFaultyServerOfALayoutIsOneLine) {
    test::TempDir dir;
    const std::string input = writeInput(dir);
    ASSERT_TRUE(bakeLayout(input, dir.path("layout"), bakeOptions(dir)));
    ASSERT_TRUE(bakeByJobs(dir, input, dir.path("jobs"), 32, 2, 1));
    fs::remove(dir.path("jobs/regions/2-1/heights-0.tif"));
    test::HttpServer server(dir.path(""), 32768);
    QT_REQUIRE_HTTP_SERVER(server);
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    const Result<OpenedMap> local = openMap(dir.path("layout"), load, {}, 4, false);
    ASSERT_TRUE(local) << local.error();
    const auto start = std::chrono::steady_clock::now();
    const Result<OpenedMap> slow = openMap(server.url("slow/layout"), load, {}, 4, false);
    ASSERT_TRUE(slow) << slow.error();
    EXPECT_TRUE(slow.value().map.codes == local.value().map.codes);
    EXPECT_FALSE(slow.value().tree.nodes.empty());
    const Result<OpenedMap> loop = openMap(server.url("loop/layout"), load, {}, 4, false);
    ASSERT_FALSE(loop);
    expectOneLineSaying(loop.error(), "redirects");
    const Result<OpenedMap> lost = openMap(server.url("jobs"), load, {}, 4, false);
    ASSERT_FALSE(lost);
    expectOneLineSaying(lost.error(),
                        "regions/2-1/heights-0.tif: cannot be read from its server: HTTP 404");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

// A joined layout's mosaic is data: one whose source names a file outside the layout's regions
// (an absolute path, a path out of the folder) or whose band is of another kind (a derived band's
// pixel function) is one line, before GDAL opens it, in the viewer's open and in --verify.
TEST(Bake, AMosaicNamingAFileOutsideItsRegionsIsRefused) {
    test::TempDir dir;
    const std::string input = writeInput(dir);
    ASSERT_TRUE(bakeByJobs(dir, input, dir.path("jobs"), 32, 2, 1));
    const std::string mosaic = dir.path("jobs/heights-0.vrt");
    const std::string written = fileText(mosaic);
    const std::string source = "<SourceFilename relativeToVRT=\"1\">regions/1-0/heights-0.tif";
    ASSERT_NE(written.find(source), std::string::npos) << written;
    const std::string band = "<VRTRasterBand dataType=\"UInt16\" band=\"1\"";
    ASSERT_NE(written.find(band), std::string::npos) << written;
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    for (const auto& [from, to] :
         {std::pair{source, std::string("<SourceFilename relativeToVRT=\"0\">") + input},
          std::pair{source, std::string("<SourceFilename relativeToVRT=\"1\">regions/1-0/../../") +
                                "dem.tif"},
          std::pair{band, band + " subClass=\"VRTDerivedRasterBand\""}}) {
        std::string changed = written;
        changed.replace(changed.find(from), from.size(), to);
        std::ofstream(mosaic, std::ios::binary | std::ios::trunc) << changed;
        for (const bool stream : {false, true}) {
            const Result<OpenedMap> opened = openMap(dir.path("jobs"), load, {}, 4, stream);
            ASSERT_FALSE(opened) << to;
            expectOneLineSaying(opened.error(), "heights-0.vrt: a ");
        }
        const Status verified = verifyLayout(dir.path("jobs"));
        ASSERT_FALSE(verified) << to;
        expectOneLineSaying(verified.error(), "heights-0.vrt: a ");
    }
    std::ofstream(mosaic, std::ios::binary | std::ios::trunc) << written;
    EXPECT_TRUE(openMap(dir.path("jobs"), load, {}, 4, false));
}

// A map wider than the viewer's limit (a VRT of kMaxSide + 1 x 3 samples, its source repeated
// along a row, and a .r16 as wide) bakes: the bake never makes the tree's nodes, whose boxes hold
// the viewer's sizes. The layout verifies; the viewer's open says the size is over its limit, in
// one line. A map over the bake's own limit is refused before anything is written.
TEST(Bake, AMapWiderThanTheViewersLimitBakes) {
    test::TempDir dir;
    const std::string source = writeInput(dir, false);
    const auto writeVrt = [&](const std::string& path, int width) {
        std::ofstream vrt(path);
        vrt << "<VRTDataset rasterXSize=\"" << width << "\" rasterYSize=\"3\">\n"
            << "  <VRTRasterBand dataType=\"Float32\" band=\"1\">\n";
        for (int x = 0; x < width; x += 203) {
            const int w = std::min(203, width - x);
            vrt << "    <SimpleSource><SourceFilename relativeToVRT=\"1\">"
                << fs::path(source).filename().string()
                << "</SourceFilename><SourceBand>1</SourceBand>"
                << "<SrcRect xOff=\"0\" yOff=\"0\" xSize=\"" << w << "\" ySize=\"3\"/>"
                << "<DstRect xOff=\"" << x << "\" yOff=\"0\" xSize=\"" << w
                << "\" ySize=\"3\"/></SimpleSource>\n";
        }
        vrt << "  </VRTRasterBand>\n</VRTDataset>\n";
    };
    const std::string wide = dir.path("wide.vrt");
    writeVrt(wide, kMaxSide + 1);
    const std::string layout = dir.path("layout");
    BakeOptions options = bakeOptions(dir);
    options.regionSize = 1024;
    const Result<BakeSummary> baked = bakeLayout(wide, layout, options);
    ASSERT_TRUE(baked) << baked.error();
    EXPECT_EQ(baked.value().width, kMaxSide + 1);
    EXPECT_EQ(baked.value().regions, 65);
    const Status verified = verifyLayout(layout);
    EXPECT_TRUE(verified) << verified.error();
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    const Result<OpenedMap> opened = openMap(layout, load, {}, 4, false);
    ASSERT_FALSE(opened);
    expectOneLineSaying(opened.error(), "over the limit (65537 samples a side");
    const Result<OpenedMap> streamed = openMap(layout, load, {}, 4, true);  // streamed alike
    ASSERT_FALSE(streamed);
    expectOneLineSaying(streamed.error(), "over the limit (65537 samples a side");

    // A .r16 as wide.
    const std::string raw = dir.path("wide.r16");
    std::vector<uint16_t> codes(size_t(kMaxSide + 1) * 3);
    for (size_t i = 0; i < codes.size(); ++i) {
        codes[i] = uint16_t(i * 7919 % 4001);
    }
    std::ofstream(raw, std::ios::binary)
        .write(reinterpret_cast<const char*>(codes.data()),
               std::streamsize(codes.size() * sizeof(uint16_t)));
    BakeOptions rawOptions = options;
    rawOptions.load.rawWidth = kMaxSide + 1;
    rawOptions.load.rawHeight = 3;
    const Result<BakeSummary> rawBaked = bakeLayout(raw, dir.path("raw"), rawOptions);
    ASSERT_TRUE(rawBaked) << rawBaked.error();
    EXPECT_EQ(readLevel(dir.path("raw"), 0).codes, codes);  // the file's own codes
    EXPECT_TRUE(verifyLayout(dir.path("raw")));

    const std::string over = dir.path("over.vrt");
    writeVrt(over, kMaxBakeSide + 1);
    const Result<BakeSummary> refused = bakeLayout(over, dir.path("over"), options);
    ASSERT_FALSE(refused);
    expectOneLineSaying(refused.error(), "over the limit (262145 samples a side");
    EXPECT_FALSE(fs::exists(dir.path("over")));
}

TEST(Bake, BadInputIsOneLineAndMakesNoFolder) {
    test::TempDir dir;
    const std::string layout = dir.path("layout");
    const std::string missing = dir.path("missing.tif");
    for (const std::string& input :
         {missing, std::string(QT_SOURCE_DIR) + "/data/default_1025.png"}) {
        const Result<BakeSummary> baked = bakeLayout(input, layout, bakeOptions(dir));
        ASSERT_FALSE(baked) << input;
        EXPECT_EQ(baked.error().find('\n'), std::string::npos) << baked.error();
        EXPECT_FALSE(fs::exists(layout)) << input;
    }
    BakeOptions odd = bakeOptions(dir);
    odd.pageSize = 24;
    const Result<BakeSummary> baked = bakeLayout(writeInput(dir), layout, odd);
    ASSERT_FALSE(baked);
    EXPECT_NE(baked.error().find("power of two"), std::string::npos) << baked.error();
    EXPECT_FALSE(verifyLayout(dir.path("nothing")));

    // A disk with less free than the bake may take: refused before anything is written.
    BakeOptions full = bakeOptions(dir);
    const uint64_t needs = bakeDiskBytes(203, 141, heightLevels(203, 141, 4), true);
    full.freeDiskBytes = [needs](const std::string&) { return needs - 1; };
    const Result<BakeSummary> noRoom = bakeLayout(writeInput(dir), layout, full);
    ASSERT_FALSE(noRoom);
    EXPECT_NE(noRoom.error().find("MiB free"), std::string::npos) << noRoom.error();
    EXPECT_FALSE(fs::exists(layout));
    full.freeDiskBytes = [needs](const std::string&) { return needs; };
    EXPECT_TRUE(bakeLayout(writeInput(dir), layout, full));
}

}  // namespace
}  // namespace qt
