// A layout's level 0 read tile by tile: any order, any threads, gives the layout's codes and holes
// with each tile read once; a tile is read where it is asked for and nowhere else, by byte ranges
// over HTTP; a damaged tile or a server gone is one line, asked again only after a back-off; a
// resumed cache keeps its tiles by their checksums.
#include "core/streaming/layout_tiles.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cpl_vsi.h>
#include <gdal.h>
#include <gtest/gtest.h>

#include "core/base/text.h"
#include "core/streaming/bake.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/layout.h"
#include "core/streaming/layout_stream_access.h"
#include "core/streaming/open_map.h"
#include "core/streaming/page_streamer.h"
#include "core/streaming/streamed_gdal.h"
#include "core/terrain/height_pages.h"
#include "fault_proxy.h"
#include "http_server.h"
#include "layout_fixtures.h"
#include "test_files.h"

namespace qt {
namespace {

// The layout's map held whole, the reference every tile is held to.
LayoutMap wholeLayout(const std::string& folder) {
    const Result<LayoutManifest> manifest = readLayoutManifest(folder);
    EXPECT_TRUE(manifest) << manifest.error();
    Result<LayoutMap> whole = readLayoutMap(manifest.value(), {}, MemoryBudget{});
    EXPECT_TRUE(whole) << whole.error();
    return std::move(whole).value();
}

// `layout`'s level 0 described into a map whose codes are zeros.
Heightmap describedMap(const LayoutManifest& layout) {
    Heightmap map;
    const Status described = describeLayoutLevelZero(layout, map);
    EXPECT_TRUE(described) << described.error();
    map.codes.resize(size_t(map.sampleCount()), 0);
    return map;
}

// A layout of test::writeInput (with holes, or without) baked into `dir`'s "layout", its map held
// whole and its manifest, read before anything damages it.
struct Baked {
    std::string folder;
    LayoutMap whole;
    LayoutManifest manifest;
};
Baked bakeInto(const test::TempDir& dir, bool holes = true) {
    Baked b;
    b.folder = dir.path("layout");
    EXPECT_TRUE(bakeLayout(test::writeInput(dir, holes), b.folder, test::bakeOptions(dir)));
    b.whole = wholeLayout(b.folder);
    Result<LayoutManifest> manifest = readLayoutManifest(b.folder);
    EXPECT_TRUE(manifest) << manifest.error();
    b.manifest = std::move(manifest).value();
    return b;
}

// test::writeInput baked whole into "whole" and by two jobs of regions of 32 into "jobs" (whose
// levels the regions hold are mosaics of the regions' files), each read as bakeInto reads it.
std::vector<Baked> bakeWholeAndByJobs(const test::TempDir& dir) {
    const std::string input = test::writeInput(dir);
    EXPECT_TRUE(bakeLayout(input, dir.path("whole"), test::bakeOptions(dir)));
    EXPECT_TRUE(test::bakeByJobs(dir, input, dir.path("jobs"), 32, 2, 1));
    std::vector<Baked> out;
    for (const std::string& folder : {dir.path("whole"), dir.path("jobs")}) {
        Baked b;
        b.folder = folder;
        b.whole = wholeLayout(folder);
        Result<LayoutManifest> manifest = readLayoutManifest(folder);
        EXPECT_TRUE(manifest) << manifest.error();
        b.manifest = std::move(manifest).value();
        out.push_back(std::move(b));
    }
    return out;
}

// Whether sample (x, y) lies in a tile of columns [tx0, tx1] and rows [ty0, ty1] of side `side`.
bool inTiles(int x, int y, int side, int tx0, int ty0, int tx1, int ty1) {
    return x / side >= tx0 && x / side <= tx1 && y / side >= ty0 && y / side <= ty1;
}

// Every tile of a layout, baked whole and by jobs (its level 0 a mosaic of the regions' files),
// asked for by four threads at once in shuffled orders: each read once, and the codes, holes and
// their count those of the layout held whole. Before, a rectangle's tiles alone: its tiles
// present and read, every other sample untouched.
TEST(LayoutTiles, TilesAskedForInAnyOrderGiveTheLayoutsCodesAndHolesEachReadOnce) {
    test::TempDir dir;
    for (const Baked& b : bakeWholeAndByJobs(dir)) {
        SCOPED_TRACE(b.folder);
        const LayoutMap& whole = b.whole;
        const LayoutManifest& layout = b.manifest;
        ASSERT_GT(layout.nodataSamples, 0);
        Heightmap map = describedMap(layout);
        LayoutTiles tiles(layout, map);
        ASSERT_EQ(tiles.tileSide(), 16);
        ASSERT_EQ(tiles.tilesX(), 13);  // 203 x 141 samples
        ASSERT_EQ(tiles.tilesY(), 9);

        // Columns 20-50 and rows 17-40: tiles 1-3 by 1-2.
        ASSERT_TRUE(tiles.ensure(20, 17, 50, 40));
        EXPECT_EQ(tiles.counts().read, 6u);
        for (int y = 0; y < map.height; ++y) {
            for (int x = 0; x < map.width; ++x) {
                const size_t i = size_t(y) * size_t(map.width) + size_t(x);
                if (inTiles(x, y, 16, 1, 1, 3, 2)) {
                    ASSERT_EQ(map.codes[i], whole.map.codes[i]) << x << ", " << y;
                } else {
                    ASSERT_EQ(map.codes[i], 0) << x << ", " << y;
                }
            }
        }
        for (int ty = 0; ty < tiles.tilesY(); ++ty) {
            for (int tx = 0; tx < tiles.tilesX(); ++tx) {
                EXPECT_EQ(tiles.present(tx, ty), tx >= 1 && tx <= 3 && ty >= 1 && ty <= 2);
            }
        }
        EXPECT_FALSE(tiles.allPresent());

        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&tiles, t] {
                std::vector<std::pair<int, int>> order;
                for (int ty = 0; ty < tiles.tilesY(); ++ty) {
                    for (int tx = 0; tx < tiles.tilesX(); ++tx) {
                        order.emplace_back(tx, ty);
                    }
                }
                std::shuffle(order.begin(), order.end(), std::mt19937(uint32_t(t)));
                for (const auto& [tx, ty] : order) {
                    const Status got = tiles.ensureTile(tx, ty);
                    EXPECT_TRUE(got) << got.error();
                }
            });
        }
        for (std::thread& thread : threads) {
            thread.join();
        }
        EXPECT_TRUE(tiles.allPresent());
        EXPECT_EQ(tiles.counts().read, 13u * 9u);
        EXPECT_EQ(tiles.counts().failed, 0u);
        EXPECT_TRUE(map.codes == whole.map.codes);
        EXPECT_EQ(map.nodata.bits, whole.map.nodata.bits);
        EXPECT_EQ(map.nodata.samples, layout.nodataSamples);
        // Present tiles are not read again.
        ASSERT_TRUE(tiles.ensure(-10, -10, 1000, 1000));
        EXPECT_EQ(tiles.counts().read, 13u * 9u);
    }
}

// A back-off no test outlasts: a failure stays until retryFailedNow().
constexpr double kHeldSeconds = 1000.0;

// A tile whose bytes changed at rest is one line naming it; asked again within its back-off it
// says the same line without a read, mended or not; once its back-off ends (retryFailedNow), it is
// read and right. The other tiles are not held back. With a short back-off, the time alone ends it.
TEST(LayoutTiles, ADamagedTileIsOneLineAndIsReadAgainOnlyAfterItsBackOff) {
    test::TempDir dir;
    const Baked b = bakeInto(dir);
    const std::string& folder = b.folder;
    const LayoutMap& whole = b.whole;
    test::changeSample(folder + "/heights-0.tif", 2 * 16 + 5, 3 * 16 + 7);  // tile (2, 3)
    Heightmap map = describedMap(b.manifest);
    LayoutTiles tiles(b.manifest, map, nullptr, kHeldSeconds);
    const Status damaged = tiles.ensureTile(2, 3);
    ASSERT_FALSE(damaged);
    test::expectOneLineSaying(damaged.error(),
                              "heights-0.tif: tile (2, 3) does not match its checksum");
    EXPECT_FALSE(tiles.present(2, 3));
    const Status again = tiles.ensureTile(2, 3);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error(), damaged.error());
    EXPECT_EQ(tiles.counts().failed, 1u);  // not read again within the back-off
    // A rectangle over it fails with its line; the tiles before it in row order are read.
    const Status over = tiles.ensure(0, 48, 202, 63);
    ASSERT_FALSE(over);
    EXPECT_EQ(over.error(), damaged.error());
    EXPECT_TRUE(tiles.present(0, 3) && tiles.present(1, 3));
    ASSERT_TRUE(tiles.ensureTile(4, 3));

    test::changeSample(folder + "/heights-0.tif", 2 * 16 + 5, 3 * 16 + 7);  // mended
    EXPECT_EQ(tiles.ensureTile(2, 3).error(), damaged.error());  // still within its back-off
    EXPECT_EQ(tiles.counts().failed, 1u);
    tiles.retryFailedNow();
    const Status mended = tiles.ensureTile(2, 3);
    ASSERT_TRUE(mended) << mended.error();
    ASSERT_TRUE(tiles.ensure(0, 0, 202, 140));
    EXPECT_TRUE(map.codes == whole.map.codes);
    EXPECT_EQ(map.nodata.bits, whole.map.nodata.bits);

    // A back-off of 10 ms, outlasted: the tile is read again and, mended, kept.
    test::changeSample(folder + "/heights-0.tif", 7, 7);  // tile (0, 0)
    Heightmap second = describedMap(b.manifest);
    LayoutTiles shortWait(b.manifest, second, nullptr, 0.01);
    ASSERT_FALSE(shortWait.ensureTile(0, 0));
    test::changeSample(folder + "/heights-0.tif", 7, 7);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const Status read = shortWait.ensureTile(0, 0);
    EXPECT_TRUE(read) << read.error();
}

// A hole moved in level 0's mask (a hole given, a given sample a hole: the same count), its codes
// as they were: each of the two tiles is one line, as a tile's checksum holds its mask; whole, the
// open and --verify refuse it too.
TEST(LayoutTiles, AMaskDamagedAtRestIsOneLineThoughItsHolesCountTheSame) {
    test::TempDir dir;
    const Baked b = bakeInto(dir);
    const std::string level0 = b.folder + "/heights-0.tif";
    test::changeMask(level0, 150, 40);   // a hole of the disc, tile (9, 2), now given
    test::changeMask(level0, 100, 100);  // tile (6, 6), now a hole
    Heightmap map = describedMap(b.manifest);
    LayoutTiles tiles(b.manifest, map, nullptr, kHeldSeconds);
    test::expectOneLineSaying(tiles.ensureTile(9, 2).error(),
                              "heights-0.tif: tile (9, 2) does not match its checksum");
    test::expectOneLineSaying(tiles.ensureTile(6, 6).error(),
                              "heights-0.tif: tile (6, 6) does not match its checksum");
    ASSERT_TRUE(tiles.ensureTile(8, 2));
    const Result<LayoutMap> whole = readLayoutMap(b.manifest, {}, MemoryBudget{});
    ASSERT_FALSE(whole);
    test::expectOneLineSaying(whole.error(), "does not match its checksum");
    const Status verified = verifyLayout(b.folder);
    ASSERT_FALSE(verified);
    test::expectOneLineSaying(verified.error(), "heights-0.tif: tile (");
}

// Tiles written into a code cache left unfinished are kept by the next writer that takes its
// partial file up: those whose codes (and mask, read through a dataset of its own) match their
// checksums without a read of their codes, the rest read; the cache then holds the layout's codes
// and the map its holes, with holes and without.
TEST(LayoutTiles, AResumedCacheKeepsTheTilesThatMatchTheirChecksums) {
    for (const bool holes : {false, true}) {
        SCOPED_TRACE(holes);
        test::TempDir dir;
        const Baked b = bakeInto(dir, holes);
        const std::string cache = dir.path("map.layout.qtcodes");
        {
            Result<CodeCacheWriter> writer =
                CodeCacheWriter::create(cache, 203, 141, CodeCacheWriter::Unfinished::KeptToResume);
            ASSERT_TRUE(writer) << writer.error();
            Heightmap map = describedMap(b.manifest);
            map.codes = writer.value().codes();
            LayoutTiles tiles(b.manifest, map, &writer.value());
            ASSERT_TRUE(tiles.ensure(130, 20, 170, 60));  // tiles 8-10 by 1-3, the holes' disc
            EXPECT_EQ(tiles.counts().read, 9u);
        }  // dropped unfinished: its partial file stays
        Result<CodeCacheWriter> writer =
            CodeCacheWriter::create(cache, 203, 141, CodeCacheWriter::Unfinished::KeptToResume);
        ASSERT_TRUE(writer) << writer.error();
        ASSERT_TRUE(writer.value().resumed());
        Heightmap map = describedMap(b.manifest);
        map.codes = writer.value().codes();
        LayoutTiles tiles(b.manifest, map, &writer.value());
        ASSERT_TRUE(tiles.ensure(0, 0, 202, 140));
        EXPECT_EQ(tiles.counts().kept, 9u);
        EXPECT_EQ(tiles.counts().read, 13u * 9u - 9u);
        EXPECT_TRUE(writer.value().codes() == b.whole.map.codes);
        EXPECT_EQ(map.nodata.bits, b.whole.map.nodata.bits);
        EXPECT_EQ(map.nodata.samples, b.manifest.nodataSamples);
    }
}

// Starts `streamer` over every level-0 page of `map` (planned as `pages`), its worker asking
// `tiles` for each page's window first, as a viewer streaming a layout by tiles does.
void startOverTiles(PageStreamer& streamer, const Heightmap& map, const HeightPages& pages,
                    LayoutTiles& tiles) {
    const PageLevel& level0 = pages.level[0];
    streamer.start(
        map, pages, level0.pagesX * level0.pagesY, 8, 4,
        [&tiles](int x0, int y0, int x1, int y1) { return tiles.ensure(x0, y0, x1, y1); });
}

// Asks `streamer` for every level-0 page and settles it, each page delivered kept by its number.
void askForEveryPage(PageStreamer& streamer, const HeightPages& pages,
                     std::map<uint32_t, std::vector<uint16_t>>& delivered) {
    const uint32_t count = uint32_t(pages.level[0].pagesX * pages.level[0].pagesY);
    std::vector<PageRequest> requests;
    for (uint32_t p = 0; p < count; ++p) {
        requests.push_back({p, float(p)});
    }
    streamer.request(requests);
    streamer.settle([&](int, uint32_t page, const uint16_t* t, int64_t) {
        delivered[page].assign(t, t + size_t(pages.texels) * size_t(pages.texels));
    });
}

// A page streamer over a layout's tiles (its worker asking for each page's window first, as a
// viewer streaming a layout by pages does): every page whose window holds no damaged tile is
// delivered with the texels of the layout held whole; the nine pages whose windows reach the
// damaged tile stay Absent, each failure counted and the tile's line kept; once mended and its
// back-off ended, asked again, they come with their texels.
TEST(LayoutTiles, APageStreamerAsksForItsPagesTilesAndLeavesOutThoseThatFail) {
    test::TempDir dir;
    const Baked b = bakeInto(dir);
    test::changeSample(b.folder + "/heights-0.tif", 5 * 16 + 3, 4 * 16 + 9);  // tile (5, 4)
    Heightmap map = describedMap(b.manifest);
    LayoutTiles tiles(b.manifest, map, nullptr, kHeldSeconds);
    const HeightPages pages = planHeightPages(203, 141, 4, 16);
    const PageLevel& level0 = pages.level[0];
    const uint32_t count = uint32_t(level0.pagesX * level0.pagesY);
    ASSERT_EQ(count, 13u * 9u);
    std::map<uint32_t, std::vector<uint16_t>> delivered;
    PageStreamer streamer;
    startOverTiles(streamer, map, pages, tiles);
    const auto askForAll = [&] { askForEveryPage(streamer, pages, delivered); };
    // Whether page p's window (one sample beyond it on every side) reaches tile (5, 4).
    const auto reachesDamage = [&](uint32_t p) {
        const int px = int(p % uint32_t(level0.pagesX)), py = int(p / uint32_t(level0.pagesX));
        return std::abs(px - 5) <= 1 && std::abs(py - 4) <= 1;
    };
    const auto expectTexels = [&](uint32_t p) {
        std::vector<uint16_t> expected(size_t(pages.texels) * size_t(pages.texels));
        fillHeightPage(b.whole.map, pages, 0, int(p % uint32_t(level0.pagesX)),
                       int(p / uint32_t(level0.pagesX)), expected.data());
        EXPECT_EQ(delivered[p], expected) << "page " << p;
    };
    askForAll();
    for (uint32_t p = 0; p < count; ++p) {
        if (reachesDamage(p)) {
            EXPECT_EQ(delivered.count(p), 0u) << p;
            EXPECT_EQ(streamer.state(p), PageState::Absent) << p;
        } else {
            ASSERT_EQ(delivered.count(p), 1u) << p;
            expectTexels(p);
        }
    }
    EXPECT_EQ(streamer.stats().failedTotal, 9u);
    test::expectOneLineSaying(streamer.lastFailure(),
                              "heights-0.tif: tile (5, 4) does not match its checksum");

    test::changeSample(b.folder + "/heights-0.tif", 5 * 16 + 3, 4 * 16 + 9);  // mended
    tiles.retryFailedNow();
    askForAll();
    for (uint32_t p = 0; p < count; ++p) {
        ASSERT_EQ(delivered.count(p), 1u) << p;
        expectTexels(p);
    }
    EXPECT_EQ(streamer.stats().failedTotal, 9u);
    EXPECT_TRUE(tiles.allPresent());
    EXPECT_EQ(tiles.counts().read, 13u * 9u);
    streamer.stop();
}

// Every page of every level above 0, for pages of the layout's tile size and of half and twice it,
// read from the layout's heights-K files (COGs baked whole, mosaics of a join) a file's row of
// tiles at a time, is the page fillHeightPage makes from the map held whole; a tile of level 1
// damaged at rest is one line naming it.
TEST(LayoutLevelPages, EveryPageAboveLevelZeroIsTheMapsPage) {
    test::TempDir dir;
    for (const Baked& b : bakeWholeAndByJobs(dir)) {
        SCOPED_TRACE(b.folder);
        const LayoutMap& whole = b.whole;
        const LayoutManifest& layout = b.manifest;
        for (const int pageSize : {8, 16, 32}) {
            SCOPED_TRACE(pageSize);
            const HeightPages pages = planHeightPages(203, 141, 4, pageSize);
            LayoutLevelPages levels(layout);
            ASSERT_GE(levels.levels(), 4);
            const size_t texels = size_t(pages.texels) * size_t(pages.texels);
            std::vector<uint16_t> got(texels), expected(texels);
            int filled = 0;
            for (int k = 1; k < std::min(levels.levels(), int(pages.level.size())); ++k) {
                for (int py = 0; py < pages.level[size_t(k)].pagesY; ++py) {
                    for (int px = 0; px < pages.level[size_t(k)].pagesX; ++px) {
                        std::fill(got.begin(), got.end(), uint16_t(0xBEEF));
                        const Status read = levels.fill(pages, k, px, py, got.data());
                        ASSERT_TRUE(read) << read.error();
                        fillHeightPage(whole.map, pages, k, px, py, expected.data());
                        ASSERT_EQ(got, expected) << "level " << k << " page " << px << ", " << py;
                        ++filled;
                    }
                }
            }
            EXPECT_GT(filled, 4);
            // A file's row of tiles in one read (one request over HTTP), each row read at most
            // twice in a fill of the pages in order (a page's border reaches the row above).
            int rows = 0;
            for (int k = 1; k < std::min(levels.levels(), int(pages.level.size())); ++k) {
                const LayoutManifest::Level& l = layout.upperLevels[size_t(k - 1)];
                rows += (l.rows + layout.pageSize - 1) / layout.pageSize;
            }
            EXPECT_GT(levels.tilesRead(), levels.rowsRead());
            if (b.folder == dir.path("whole")) {  // one file a level
                EXPECT_LE(levels.rowsRead(), 2u * uint64_t(rows));
            }
        }
    }
    const std::string folder = dir.path("whole");
    test::changeSample(folder + "/heights-1.tif", 20, 3);  // tile (1, 0) of level 1
    const Result<LayoutManifest> manifest = readLayoutManifest(folder);
    ASSERT_TRUE(manifest) << manifest.error();
    const HeightPages pages = planHeightPages(203, 141, 4, 16);
    LayoutLevelPages levels(manifest.value());
    std::vector<uint16_t> out(size_t(pages.texels) * size_t(pages.texels));
    const Status damaged = levels.fill(pages, 1, 0, 0, out.data());
    ASSERT_FALSE(damaged);
    test::expectOneLineSaying(damaged.error(),
                              "heights-1.tif: tile (1, 0) does not match its checksum");
}

// A streamed terrain's level 1 (HeightPages::pooledLevels) is asked for page by page as the eye
// needs it: its pages, in a scattered order, are the map's, each reading only the tiles its window
// reaches (at most 3 x 3) in one read of the level's file, never a file's row of tiles.
TEST(LayoutLevelPages, APooledLevelsPageReadsItsWindowsTilesInOneRead) {
    test::TempDir dir;
    const std::string folder = dir.path("layout");
    const std::string input = test::writeInput(dir, false, 611, 389);
    ASSERT_TRUE(bakeLayout(input, folder, test::bakeOptions(dir)));
    const Result<LayoutManifest> manifest = readLayoutManifest(folder);
    ASSERT_TRUE(manifest) << manifest.error();
    const LayoutMap whole = wholeLayout(folder);
    const HeightPages pages = streamedHeightPages(planHeightPages(611, 389, 4, 16), 8);
    ASSERT_EQ(pages.pooledLevels, 2);
    const PageLevel& one = pages.level[1];
    LayoutLevelPages levels(manifest.value());
    const size_t texels = size_t(pages.texels) * size_t(pages.texels);
    std::vector<uint16_t> got(texels), expected(texels);
    int filled = 0;
    for (int k = 0; k < one.pagesX * one.pagesY; ++k) {
        const int page = (k * 7) % (one.pagesX * one.pagesY);  // scattered (7 is prime to it)
        const int px = page % one.pagesX, py = page / one.pagesX;
        const uint64_t before = levels.tilesRead(), readsBefore = levels.readsMade();
        const Status read = levels.fill(pages, 1, px, py, got.data());
        ASSERT_TRUE(read) << read.error();
        EXPECT_LE(levels.tilesRead() - before, 9u) << "page " << px << ", " << py;
        EXPECT_LE(levels.readsMade() - readsBefore, 1u) << "page " << px << ", " << py;
        fillHeightPage(whole.map, pages, 1, px, py, expected.data());
        ASSERT_EQ(got, expected) << "page " << px << ", " << py;
        ++filled;
    }
    EXPECT_EQ(levels.rowsRead(), 0u);
    EXPECT_GT(filled, 20);
}

// A level's last page lets the level's tiles go, so that what the levels hold lasts the open
// alone: until it is filled, a page filled again takes its tiles unread; after it, they are read
// again.
TEST(LayoutLevelPages, ALevelsLastPageLetsItsTilesGo) {
    test::TempDir dir;
    const std::string folder = dir.path("layout");
    ASSERT_TRUE(bakeLayout(test::writeInput(dir, false), folder, test::bakeOptions(dir)));
    const Result<LayoutManifest> manifest = readLayoutManifest(folder);
    ASSERT_TRUE(manifest) << manifest.error();
    const HeightPages pages = planHeightPages(203, 141, 4, 16);
    const PageLevel& one = pages.level[1];
    ASSERT_GE(one.pagesX, 2);
    LayoutLevelPages levels(manifest.value());
    std::vector<uint16_t> out(size_t(pages.texels) * size_t(pages.texels));
    const auto fill = [&](int px, int py) {
        const Status filled = levels.fill(pages, 1, px, py, out.data());
        EXPECT_TRUE(filled) << filled.error();
        return levels.tilesRead();
    };
    uint64_t read = 0;
    for (int py = 0; py < one.pagesY; ++py) {
        for (int px = 0; px < one.pagesX && (px + 1 < one.pagesX || py + 1 < one.pagesY); ++px) {
            read = fill(px, py);
        }
    }
    EXPECT_GT(read, 0u);
    EXPECT_EQ(fill(one.pagesX - 2, one.pagesY - 1), read);
    const uint64_t last = fill(one.pagesX - 1, one.pagesY - 1);
    EXPECT_GT(fill(one.pagesX - 2, one.pagesY - 1), last);
}

// Every level-0 page of `map` (planned as `pages`) through a page streamer over `tiles`.
std::map<uint32_t, std::vector<uint16_t>> streamEveryPage(const Heightmap& map,
                                                          const HeightPages& pages,
                                                          LayoutTiles& tiles) {
    std::map<uint32_t, std::vector<uint16_t>> delivered;
    PageStreamer streamer;
    startOverTiles(streamer, map, pages, tiles);
    askForEveryPage(streamer, pages, delivered);
    streamer.stop();
    return delivered;
}

// The disk blocks, in bytes, and the lengths of the code caches (and their temporaries) directly
// in `folder`.
std::pair<uint64_t, uint64_t> codeCacheDisk(const std::string& folder) {
    uint64_t blocks = 0;
    uint64_t length = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        struct stat st {};
        if (entry.path().filename().string().find(".qtcodes") != std::string::npos &&
            ::lstat(entry.path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
            blocks += uint64_t(st.st_blocks) * 512;
            length += uint64_t(st.st_size);
        }
    }
    return {blocks, length};
}

// A layout without holes opened streamed by tiles: nothing of level 0 read at open, its tree and
// range those of the layout's usual streamed open (from its tree, with no pass over the map), its
// codes zero until asked for and its cache taking no disk for them (a sparse file); every page
// streamed through its tiles is the usual open's page; once its last tile is present its cache is
// finished, and the next open maps it with nothing of level 0 read (a sample changed there since
// does not reach it).
TEST(LayoutStream, OpensWithNoTileReadAndFinishesItsCacheWithItsLastTile) {
    test::TempDir dir;
    const Baked b = bakeInto(dir, false);
    LoadOptions usual;
    usual.cacheDir = dir.path("usual cache");
    const Result<OpenedMap> reference = openMap(b.folder, usual, {}, 4, true);
    ASSERT_TRUE(reference) << reference.error();
    const Heightmap& expected = reference.value().map;
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    load.layoutByTiles = true;
    {
        const Result<OpenedMap> opened = openMap(b.folder, load, {}, 4, true);
        ASSERT_TRUE(opened) << opened.error();
        const OpenedMap& o = opened.value();
        ASSERT_NE(o.tiles, nullptr);
        EXPECT_EQ(o.codeCache, "by tiles");
        EXPECT_EQ(o.sidecar, "read");
        LayoutTiles& tiles = o.tiles->tiles();
        EXPECT_EQ(tiles.counts().read + tiles.counts().kept, 0u);
        EXPECT_EQ(o.map.minCode, expected.minCode);
        EXPECT_EQ(o.map.maxCode, expected.maxCode);
        EXPECT_FLOAT_EQ(o.map.coding.step, expected.coding.step);
        EXPECT_FLOAT_EQ(o.map.coding.offset, expected.coding.offset);
        const Quadtree& tree = o.tree;
        const Quadtree& full = reference.value().tree;
        ASSERT_EQ(tree.nodes.size(), full.nodes.size());
        for (size_t i = 0; i < tree.nodes.size(); ++i) {
            ASSERT_EQ(tree.nodes[i].minCode, full.nodes[i].minCode) << i;
            ASSERT_EQ(tree.nodes[i].maxCode, full.nodes[i].maxCode) << i;
        }
        EXPECT_EQ(tree.coarseErrors, full.coarseErrors);
        EXPECT_EQ(tree.foldErrors, full.foldErrors);
        for (size_t i = 0; i < size_t(o.map.sampleCount()); ++i) {
            ASSERT_EQ(o.map.codes[i], 0) << i;
        }
        const auto [disk, length] = codeCacheDisk(load.cacheDir);
        EXPECT_GE(length, uint64_t(o.map.sampleCount()) * 2);
        EXPECT_LT(disk, length / 4);

        const HeightPages pages = planHeightPages(203, 141, 4, 16);
        const std::map<uint32_t, std::vector<uint16_t>> delivered =
            streamEveryPage(o.map, pages, tiles);
        const PageLevel& level0 = pages.level[0];
        ASSERT_EQ(delivered.size(), size_t(level0.pagesX * level0.pagesY));
        std::vector<uint16_t> page(size_t(pages.texels) * size_t(pages.texels));
        for (const auto& [p, texels] : delivered) {
            fillHeightPage(expected, pages, 0, int(p % uint32_t(level0.pagesX)),
                           int(p / uint32_t(level0.pagesX)), page.data());
            ASSERT_EQ(texels, page) << "page " << p;
        }
        EXPECT_TRUE(tiles.allPresent());
        EXPECT_EQ(tiles.counts().read, 13u * 9u);
        EXPECT_FALSE(o.tiles->finished());
        const Result<bool> finished = o.tiles->finishWhenComplete();
        ASSERT_TRUE(finished) << finished.error();
        EXPECT_TRUE(finished.value());
        EXPECT_TRUE(o.tiles->finished());
        EXPECT_TRUE(o.map.codes == expected.codes);
        const Result<bool> again = o.tiles->finishWhenComplete();
        ASSERT_TRUE(again);
        EXPECT_FALSE(again.value());
    }
    test::changeSample(b.folder + "/heights-0.tif", 40, 3);
    const Result<OpenedMap> reopened = openMap(b.folder, load, {}, 4, true);
    ASSERT_TRUE(reopened) << reopened.error();
    EXPECT_EQ(reopened.value().codeCache, "read");
    EXPECT_EQ(reopened.value().sidecar, "read");
    EXPECT_EQ(reopened.value().tiles, nullptr);
    EXPECT_TRUE(reopened.value().map.codes == expected.codes);
}

// A layout's tiles and pooled pages are read all through a flight, each kept in the code cache or
// the pool: its open lowers GDAL's block cache for the rest of the process, which at GDAL's
// default (a twentieth of the machine's memory) would fill with second copies of them.
TEST(LayoutStream, ItsOpenLowersGdalsBlockCacheThatWouldHoldSecondCopiesOfItsTiles) {
    test::TempDir dir;
    const std::string input = test::writeInput(dir, false);
    const std::string folder = dir.path("layout");
    ASSERT_TRUE(bakeLayout(input, folder, test::bakeOptions(dir)));
    const int64_t before = GDALGetCacheMax64();
    const int64_t large = int64_t(1) << 30;
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    for (const bool byTiles : {true, false}) {
        GDALSetCacheMax64(large);
        load.layoutByTiles = byTiles;
        const Result<OpenedMap> opened = openMap(folder, load, {}, 4, true);
        const int64_t after = GDALGetCacheMax64();
        ASSERT_TRUE(opened) << opened.error();
        EXPECT_EQ(after, kStreamGdalCacheBytes) << (byTiles ? "by tiles" : "read at open");
    }
    GDALSetCacheMax64(large);
    const Result<OpenedMap> raster = openMap(input, load, {}, 4, true);
    const int64_t afterRaster = GDALGetCacheMax64();
    GDALSetCacheMax64(before);
    ASSERT_TRUE(raster) << raster.error();
    EXPECT_EQ(afterRaster, large) << "a raster read whole into its cache keeps GDAL's own";
}

// An open by tiles dropped before its last tile leaves its tiles to the next, which keeps those
// that match their checksums unread and finishes the cache. A layout with holes, whose holes'
// mask by tiles is still to come, opens by reading its level 0 into its cache, as without.
TEST(LayoutStream, AnOpenDroppedUnfinishedLeavesItsTilesToTheNext) {
    test::TempDir dir;
    const Baked b = bakeInto(dir, false);
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    load.layoutByTiles = true;
    {
        const Result<OpenedMap> opened = openMap(b.folder, load, {}, 4, true);
        ASSERT_TRUE(opened) << opened.error();
        ASSERT_NE(opened.value().tiles, nullptr);
        const LayoutTiles& tiles = opened.value().tiles->tiles();
        EXPECT_FALSE(tiles.present(130, 20, 170, 60));
        ASSERT_TRUE(opened.value().tiles->tiles().ensure(130, 20, 170, 60));  // tiles 8-10 by 1-3
        EXPECT_EQ(tiles.counts().read, 9u);
        EXPECT_TRUE(tiles.present(130, 20, 170, 60));
        EXPECT_TRUE(tiles.present(-5, -5, -1, -1));     // no sample: nothing absent
        EXPECT_FALSE(tiles.present(127, 20, 170, 60));  // tile 7 too
        EXPECT_FALSE(tiles.present(0, 0, 202, 140));
        const LayoutTileCounts counts = layoutTileCounts(*opened.value().tiles);
        EXPECT_EQ(counts.present, 9u);
        EXPECT_EQ(counts.total, 13u * 9u);
        EXPECT_EQ(counts.read, 9u);
        EXPECT_FALSE(counts.finished);
    }
    const Result<OpenedMap> opened = openMap(b.folder, load, {}, 4, true);
    ASSERT_TRUE(opened) << opened.error();
    ASSERT_NE(opened.value().tiles, nullptr);
    LayoutTiles& tiles = opened.value().tiles->tiles();
    ASSERT_TRUE(tiles.ensure(0, 0, 202, 140));
    EXPECT_EQ(tiles.counts().kept, 9u);
    EXPECT_EQ(tiles.counts().read, 13u * 9u - 9u);
    const Result<bool> finished = opened.value().tiles->finishWhenComplete();
    ASSERT_TRUE(finished) << finished.error();
    EXPECT_TRUE(finished.value());
    EXPECT_TRUE(opened.value().map.codes == b.whole.map.codes);
    EXPECT_TRUE(layoutTileCounts(*opened.value().tiles).finished);

    test::TempDir holesDir;
    const Baked holes = bakeInto(holesDir, true);
    load.cacheDir = holesDir.path("cache");
    const Result<OpenedMap> whole = openMap(holes.folder, load, {}, 4, true);
    ASSERT_TRUE(whole) << whole.error();
    EXPECT_EQ(whole.value().tiles, nullptr);
    EXPECT_EQ(whole.value().codeCache, "written");
    EXPECT_TRUE(whole.value().map.codes == holes.whole.map.codes);
    EXPECT_EQ(whole.value().map.nodata.bits, holes.whole.map.nodata.bits);
}

// A cache that cannot be put in its place once every tile has arrived (a folder of the user's
// there), or whose tree sidecar cannot be written, is one line naming it; the codes stay mapped,
// right, and it is not tried again.
TEST(LayoutStream, ACacheThatCannotBeKeptIsOneLineAndTheCodesStayRight) {
    test::TempDir dir;
    const Baked b = bakeInto(dir, false);
    for (const char* blocked : {"", ".qtree"}) {
        LoadOptions load;
        load.cacheDir = dir.path(std::string("cache") + blocked);
        load.layoutByTiles = true;
        const Result<OpenedMap> opened = openMap(b.folder, load, {}, 4, true);
        ASSERT_TRUE(opened) << opened.error();
        ASSERT_NE(opened.value().tiles, nullptr);
        const std::string path = opened.value().codeCachePath + blocked;
        std::filesystem::create_directories(path + "/the user's");
        LayoutStream& stream = *opened.value().tiles;
        ASSERT_TRUE(stream.tiles().ensure(0, 0, 202, 140));
        const Result<bool> finished = stream.finishWhenComplete();
        ASSERT_FALSE(finished) << blocked;
        test::expectOneLineSaying(finished.error(), escapedPath(path) + ": ");
        EXPECT_NE(finished.error().find(*blocked ? "the next open fetches the layout's tiles again"
                                                 : "continuing without a code cache"),
                  std::string::npos)
            << finished.error();
        EXPECT_TRUE(opened.value().map.codes == b.whole.map.codes) << blocked;
        EXPECT_TRUE(std::filesystem::exists(path + "/the user's")) << blocked;
        const Result<bool> again = stream.finishWhenComplete();
        ASSERT_TRUE(again) << again.error();
        EXPECT_FALSE(again.value()) << blocked;
    }
}

// The bytes of a GET's range in an access log line ("GET /m.tif 206 bytes=0-16383").
uint64_t rangeBytes(const std::string& line) {
    const size_t at = line.find("bytes=");
    if (at == std::string::npos) {
        return 0;
    }
    unsigned long long first = 0, last = 0;
    if (std::sscanf(line.c_str() + at, "bytes=%llu-%llu", &first, &last) != 2) {
        return 0;
    }
    return last - first + 1;
}

// A 1025² layout without holes baked into `dir`'s "layout", in tiles of 16: one tile is a small
// share of its level 0's file. "" when the bake fails.
std::string bakeLarge(const test::TempDir& dir) {
    const std::string folder = dir.path("layout");
    const Result<BakeSummary> baked =
        bakeLayout(test::writeInput(dir, false, 1025, 1025), folder, test::bakeOptions(dir));
    EXPECT_TRUE(baked) << baked.error();
    return baked ? folder : std::string();
}

// bakeLarge's layout served by nginx behind a test::FaultProxy: its level 0 described into `map`
// and read tile by tile through the relay (open()), its header read first without a fault.
struct Relayed {
    test::TempDir dir;
    std::string folder = bakeLarge(dir);
    test::HttpServer server{dir.path("")};
    test::FaultProxy proxy{server.port()};
    Heightmap map;
    std::unique_ptr<LayoutTiles> tiles;

    bool open() {
        VSICurlClearCache();
        const Result<LayoutManifest> manifest = readLayoutManifest(proxy.url("layout"));
        EXPECT_TRUE(manifest) << manifest.error();
        if (folder.empty() || !proxy.ok() || !manifest) {
            return false;
        }
        map = describedMap(manifest.value());
        tiles = std::make_unique<LayoutTiles>(manifest.value(), map, nullptr, kHeldSeconds);
        return bool(tiles->ensureTile(0, 0));
    }
};

// Over HTTP (nginx on 127.0.0.1): asking for one tile of a 1025² layout fetches a small share of
// level 0's file by byte ranges (its header and that tile's bytes), not the file; with the server
// gone a tile is one line, and asked again within its back-off it returns that line without a read.
TEST(LayoutTiles, ByUrlATileFetchesItsBytesAndAServerGoneIsOneLine) {
    test::TempDir dir;
    const std::string folder = bakeLarge(dir);
    ASSERT_FALSE(folder.empty());
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    VSICurlClearCache();
    const Result<LayoutManifest> manifest = readLayoutManifest(server.url("layout"));
    ASSERT_TRUE(manifest) << manifest.error();
    Heightmap map = describedMap(manifest.value());
    LayoutTiles tiles(manifest.value(), map, nullptr, kHeldSeconds);
    const size_t before = server.accessLog().size();
    ASSERT_TRUE(tiles.ensureTile(40, 31));
    const std::string log = server.accessLog().substr(before);
    uint64_t fetched = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        EXPECT_NE(line.find("/layout/heights-0.tif 206"), std::string::npos) << line;
        fetched += rangeBytes(line);
    }
    const uint64_t file = std::filesystem::file_size(folder + "/heights-0.tif");
    EXPECT_GT(fetched, 0u) << log;
    EXPECT_LT(fetched * 10, file) << log;
    const LayoutMap whole = wholeLayout(folder);
    for (int y = 31 * 16; y < 32 * 16; ++y) {
        for (int x = 40 * 16; x < 41 * 16; ++x) {
            const size_t i = size_t(y) * 1025 + size_t(x);
            ASSERT_EQ(map.codes[i], whole.map.codes[i]) << x << ", " << y;
        }
    }

    server.stop();
    const Status gone = tiles.ensureTile(3, 60);
    ASSERT_FALSE(gone);
    test::expectOneLineSaying(gone.error(), "heights-0.tif: ");
    const Status again = tiles.ensureTile(3, 60);
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error(), gone.error());
    EXPECT_EQ(tiles.counts().failed, 1u);  // no second read
    EXPECT_TRUE(tiles.present(40, 31));
}

// Over HTTP through a relay that answers as a faulty network does: a tile's bytes changed on their
// way, a body cut short of its Content-Length (the connection closed part way) or a body of which
// its Content-Length counts 16 bytes is one line naming the tile, and nothing of it is written;
// once the answers are right again and its back-off is over, the tile is read and right. An answer
// whose Content-Length says more than its body, which holds every byte asked for, gives the right
// tile.
TEST(LayoutTiles, ByUrlBytesChangedInTransitOrAWrongContentLengthAreOneLineAndThenRead) {
    Relayed r;
    QT_REQUIRE_HTTP_SERVER(r.server);
    ASSERT_TRUE(r.open());
    LayoutTiles& tiles = *r.tiles;
    const Heightmap& map = r.map;
    test::FaultProxy& proxy = r.proxy;
    const LayoutMap whole = wholeLayout(r.folder);
    const auto tileIs = [&](int tx, int ty, bool right) {
        for (int y = ty * 16; y < (ty + 1) * 16; ++y) {
            for (int x = tx * 16; x < (tx + 1) * 16; ++x) {
                const size_t i = size_t(y) * 1025 + size_t(x);
                if (map.codes[i] != (right ? whole.map.codes[i] : 0)) {
                    return false;
                }
            }
        }
        return true;
    };
    using Fault = test::FaultProxy::Fault;
    const struct {
        Fault fault;
        int tx, ty;
        bool fails;
    } cases[] = {{Fault::FlipBytes, 20, 17, true},
                 {Fault::CutBody, 41, 33, true},
                 {Fault::ShorterLength, 7, 50, true},
                 {Fault::LongerLength, 60, 3, false}};
    uint64_t failed = 0;
    for (const auto& c : cases) {
        const std::string tile =
            "tile (" + std::to_string(c.tx) + ", " + std::to_string(c.ty) + ")";
        const int given = proxy.faultsGiven();
        proxy.arm(c.fault, "/layout/heights-0.tif");
        const Status faulty = tiles.ensureTile(c.tx, c.ty);
        EXPECT_GT(proxy.faultsGiven(), given) << tile;
        if (!c.fails) {
            ASSERT_TRUE(faulty) << tile << ": " << faulty.error();
            EXPECT_TRUE(tileIs(c.tx, c.ty, true)) << tile;
            continue;
        }
        ++failed;
        ASSERT_FALSE(faulty) << tile;
        test::expectOneLineSaying(faulty.error(), "heights-0.tif: " + tile);
        EXPECT_FALSE(tiles.present(c.tx, c.ty)) << tile;
        EXPECT_TRUE(tileIs(c.tx, c.ty, false)) << tile;

        proxy.arm(Fault::None, "");
        tiles.retryFailedNow();
        const Status read = tiles.ensureTile(c.tx, c.ty);
        ASSERT_TRUE(read) << tile << ": " << read.error();
        EXPECT_TRUE(tileIs(c.tx, c.ty, true)) << tile;
    }
    EXPECT_EQ(tiles.counts().failed, failed);
}

// Over HTTP a window's absent tiles are fetched side by side, each a request whose wait is the
// server's round trip: with every request held 300 ms on its way (test::FaultProxy), the nine
// tiles of a 3 x 3 window are read in one read (GDAL asking for their byte ranges side by side,
// a row's tiles in one), several requests in flight at once, fewer than the tiles, and come right.
TEST(LayoutTiles, ByUrlAWindowsTilesAreFetchedSideBySide) {
    Relayed r;
    QT_REQUIRE_HTTP_SERVER(r.server);
    ASSERT_TRUE(r.open());
    LayoutTiles& tiles = *r.tiles;
    test::FaultProxy& proxy = r.proxy;
    proxy.hold(300);
    proxy.takePeakInFlight();
    const size_t logged = r.server.accessLog().size();
    // Tiles (30, 30) to (32, 32): rows far apart in the file, so no range GDAL fetched before
    // holds them.
    ASSERT_TRUE(tiles.ensure(30 * 16, 30 * 16, 33 * 16 - 1, 33 * 16 - 1));
    EXPECT_GE(proxy.takePeakInFlight(), 2);
    EXPECT_EQ(tiles.counts().read, 10u);
    EXPECT_EQ(tiles.counts().windows, 1u);
    int requests = 0;
    std::istringstream log(r.server.accessLog().substr(logged));
    for (std::string line; std::getline(log, line);) {
        requests += line.find("heights-0.tif") != std::string::npos ? 1 : 0;
    }
    EXPECT_GT(requests, 0);
    EXPECT_LT(requests, 9);
    const LayoutMap whole = wholeLayout(r.folder);
    for (int y = 30 * 16; y < 33 * 16; ++y) {
        for (int x = 30 * 16; x < 33 * 16; ++x) {
            const size_t i = size_t(y) * 1025 + size_t(x);
            ASSERT_EQ(r.map.codes[i], whole.map.codes[i]) << x << ", " << y;
        }
    }
}

// Over HTTP a pooled level's page reads its window's tiles in one read, GDAL asking for their
// byte ranges side by side: with every request held 300 ms (test::FaultProxy), a page of level 1
// whose window reaches 3 x 3 tiles has several requests in flight at once, and comes right.
TEST(LayoutLevelPages, ByUrlAPooledLevelsPageFetchesItsWindowsTilesSideBySide) {
    Relayed r;
    QT_REQUIRE_HTTP_SERVER(r.server);
    ASSERT_TRUE(r.open());
    const Result<LayoutManifest> manifest = readLayoutManifest(r.proxy.url("layout"));
    ASSERT_TRUE(manifest) << manifest.error();
    const HeightPages pages = streamedHeightPages(planHeightPages(1025, 1025, 4, 16), 8);
    ASSERT_EQ(pages.pooledLevels, 2);
    ASSERT_EQ(pages.pageSize, 16);
    LayoutLevelPages levels(manifest.value());
    std::vector<uint16_t> got(size_t(pages.texels) * size_t(pages.texels)), expected(got.size());
    ASSERT_TRUE(levels.fill(pages, 1, 0, 0, got.data()));  // level 1's file opened, unheld
    r.proxy.hold(300);
    r.proxy.takePeakInFlight();
    // Page (20, 20) reaches tiles (19, 19) to (21, 21) of level 1's 33 x 33: three rows far
    // apart in the file, no range of them fetched before.
    const uint64_t tilesBefore = levels.tilesRead(), readsBefore = levels.readsMade();
    const Status read = levels.fill(pages, 1, 20, 20, got.data());
    ASSERT_TRUE(read) << read.error();
    EXPECT_GE(r.proxy.takePeakInFlight(), 2);
    EXPECT_EQ(levels.tilesRead() - tilesBefore, 9u);
    EXPECT_EQ(levels.readsMade() - readsBefore, 1u);
    fillHeightPage(wholeLayout(r.folder).map, pages, 1, 20, 20, expected.data());
    EXPECT_EQ(got, expected);
}

// A window read by URL in one read whose tile is damaged at rest: the window's other tiles come
// from that read, and the damaged one, read again alone, is the line that names it.
TEST(LayoutTiles, ByUrlAWindowWithADamagedTileKeepsTheOthersAndNamesIt) {
    Relayed r;
    QT_REQUIRE_HTTP_SERVER(r.server);
    const LayoutMap whole = wholeLayout(r.folder);
    test::changeSample(r.folder + "/heights-0.tif", 31 * 16 + 5, 31 * 16 + 7);  // tile (31, 31)
    ASSERT_TRUE(r.open());
    LayoutTiles& tiles = *r.tiles;
    const Status read = tiles.ensure(30 * 16, 30 * 16, 33 * 16 - 1, 33 * 16 - 1);
    ASSERT_FALSE(read);
    test::expectOneLineSaying(read.error(),
                              "heights-0.tif: tile (31, 31) does not match its checksum");
    EXPECT_EQ(tiles.counts().windows, 1u);
    for (int ty = 30; ty <= 32; ++ty) {
        for (int tx = 30; tx <= 32; ++tx) {
            EXPECT_EQ(tiles.present(tx, ty), tx != 31 || ty != 31) << tx << ", " << ty;
        }
    }
    EXPECT_EQ(tiles.counts().read, 9u);  // (0, 0) at open and the window's eight
    EXPECT_EQ(tiles.counts().failed, 1u);
    for (int y = 30 * 16; y < 33 * 16; ++y) {
        for (int x = 30 * 16; x < 33 * 16; ++x) {
            if (x / 16 != 31 || y / 16 != 31) {
                const size_t i = size_t(y) * 1025 + size_t(x);
                ASSERT_EQ(r.map.codes[i], whole.map.codes[i]) << x << ", " << y;
            }
        }
    }
}

// The lines of an access log.
std::vector<std::string> logLines(const std::string& log) {
    std::vector<std::string> lines;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

// A layout joined from region jobs, by URL: opened by tiles it asks for none of its regions' files
// (a mosaic's sources are not each checked at open: tiles are read from the regions' files
// themselves, each opened as a GeoTIFF alone), and a tile asks for its region's file alone, with
// no look for sidecar files beside it (each a request to the server); so does a page of a coarse
// level, and so does an open that reads level 0 whole. What they read is the layout's.
TEST(LayoutStream, AJoinedLayoutByUrlAsksForTheRegionsItReadsAlone) {
    test::TempDir dir;
    const std::string folder = dir.path("jobs");
    ASSERT_TRUE(test::bakeByJobs(dir, test::writeInput(dir, false), folder, 32, 2, 1));
    const LayoutMap whole = wholeLayout(folder);
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    VSICurlClearCache();
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    load.layoutByTiles = true;
    size_t before = server.accessLog().size();
    const Result<OpenedMap> opened = openMap(server.url("jobs"), load, {}, 4, true);
    ASSERT_TRUE(opened) << opened.error();
    ASSERT_NE(opened.value().tiles, nullptr);
    std::string log = server.accessLog().substr(before);
    EXPECT_EQ(log.find("/regions/"), std::string::npos) << log;

    // Tile (5, 3) of 16 lies in region (2, 1) of 32.
    LayoutTiles& tiles = opened.value().tiles->tiles();
    before = server.accessLog().size();
    ASSERT_TRUE(tiles.ensureTile(5, 3));
    log = server.accessLog().substr(before);
    const std::vector<std::string> lines = logLines(log);
    EXPECT_GE(lines.size(), 1u);
    EXPECT_LE(lines.size(), 2u) << log;  // its size, then its bytes
    for (const std::string& line : lines) {
        EXPECT_NE(line.find(" /jobs/regions/2-1/heights-0.tif "), std::string::npos) << line;
    }
    for (int y = 48; y < 64; ++y) {
        for (int x = 80; x < 96; ++x) {
            const size_t i = size_t(y) * 203 + size_t(x);
            ASSERT_EQ(opened.value().map.codes[i], whole.map.codes[i]) << x << ", " << y;
        }
    }

    const Result<LayoutManifest> manifest = readLayoutManifest(server.url("jobs"));
    ASSERT_TRUE(manifest) << manifest.error();
    LayoutLevelPages levels(manifest.value());
    const HeightPages pages = planHeightPages(203, 141, 4, 16);
    std::vector<uint16_t> got(size_t(pages.texels) * size_t(pages.texels)), expected(got.size());
    before = server.accessLog().size();
    const Status read = levels.fill(pages, 1, 1, 1, got.data());
    ASSERT_TRUE(read) << read.error();
    fillHeightPage(whole.map, pages, 1, 1, 1, expected.data());
    EXPECT_EQ(got, expected);
    log = server.accessLog().substr(before);
    for (const std::string& line : logLines(log)) {
        const bool level = line.find(" /jobs/heights-1.vrt ") != std::string::npos;
        const bool region = line.find(" /jobs/regions/") != std::string::npos &&
                            line.find("/heights-1.tif ") != std::string::npos;
        EXPECT_TRUE(level || region) << line;
    }

    // Read whole at open: the layout's own files alone, the regions' read as their tiles are.
    before = server.accessLog().size();
    LoadOptions atOnce;
    atOnce.cacheDir = dir.path("cache at once");
    const Result<OpenedMap> held = openMap(server.url("jobs"), atOnce, {}, 4, false);
    ASSERT_TRUE(held) << held.error();
    EXPECT_TRUE(held.value().map.codes == whole.map.codes);
    log = server.accessLog().substr(before);
    int regions = 0;
    for (const std::string& line : logLines(log)) {
        const bool own = line.find(" /jobs/layout.json ") != std::string::npos ||
                         line.find(" /jobs/heights-0.vrt ") != std::string::npos ||
                         line.find(" /jobs/tree.qtree ") != std::string::npos;
        const bool region = line.find(" /jobs/regions/") != std::string::npos &&
                            line.find("/heights-0.tif ") != std::string::npos;
        EXPECT_TRUE(own || region) << line;
        regions += region ? 1 : 0;
    }
    EXPECT_GT(regions, 0) << log;
}

}  // namespace
}  // namespace qt
