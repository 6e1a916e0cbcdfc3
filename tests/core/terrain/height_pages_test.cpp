// The GPU height pages' layout: levels, node-aligned pages, borders, the page table, page sizes
// chosen to fit the GPU's limits, and the bytes per sample.
#include "core/terrain/height_pages.h"
#include "core/streaming/page_streamer.h"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "core/lod/lod_error.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/synthetic.h"

namespace qt {
namespace {

TEST(HeightPages, LevelsMatchTheTreeAndHoldTheSubsampledMap) {
    for (const auto& [width, height, leafSize] :
         {std::array<int, 3>{203, 141, 4}, {257, 257, 4}, {130, 67, 16}, {5, 3, 2}, {2, 2, 2}}) {
        const Heightmap map = syntheticHeightmap(width, height, 3);
        const Result<Quadtree> tree = buildQuadtreeExact(map, leafSize);
        ASSERT_TRUE(tree);
        EXPECT_EQ(heightLevels(width, height, leafSize), tree.value().depth + 1);
        for (const int pageSize : {leafSize, 2 * leafSize, 256}) {
            const HeightPages pages = planHeightPages(width, height, leafSize, pageSize);
            ASSERT_EQ(int(pages.level.size()), tree.value().depth + 1);
            std::vector<uint16_t> texels(size_t(pages.texels) * size_t(pages.texels));
            for (int k = 0; k < int(pages.level.size()); ++k) {
                const PageLevel& l = pages.level[size_t(k)];
                // The level's last sample is the map's last; the one before lies inside it.
                EXPECT_GE(int64_t(l.samplesX - 1) << k, width - 1);
                EXPECT_LT(int64_t(l.samplesX - 2) << k, width - 1);
                EXPECT_GE(int64_t(l.samplesY - 1) << k, height - 1);
                EXPECT_LT(int64_t(l.samplesY - 2) << k, height - 1);
                for (int py = 0; py < l.pagesY; ++py) {
                    for (int px = 0; px < l.pagesX; ++px) {
                        fillHeightPage(map, pages, k, px, py, texels.data());
                        for (int y = 0; y < pages.texels; ++y) {
                            for (int x = 0; x < pages.texels; ++x) {
                                const int c = std::clamp(px * pageSize + x - 1, 0, l.samplesX - 1);
                                const int r = std::clamp(py * pageSize + y - 1, 0, l.samplesY - 1);
                                ASSERT_EQ(texels[size_t(y) * size_t(pages.texels) + size_t(x)],
                                          map.codeAt(std::min(c << k, width - 1),
                                                     std::min(r << k, height - 1)));
                            }
                        }
                    }
                }
                // Every node of the level, with its vertices and their neighbours at +-1, lies
                // inside the page its origin names.
                for (int row = 0; row < tree.value().leavesZ; row += 1 << k) {
                    for (int col = 0; col < tree.value().leavesX; col += 1 << k) {
                        const int x0 = (col * leafSize) >> k;
                        const int z0 = (row * leafSize) >> k;
                        const int px = x0 / pageSize;
                        const int pz = z0 / pageSize;
                        EXPECT_LT(px, l.pagesX);
                        EXPECT_LT(pz, l.pagesY);
                        EXPECT_LE(x0 + leafSize, (px + 1) * pageSize);
                        EXPECT_LE(z0 + leafSize, (pz + 1) * pageSize);
                    }
                }
            }
        }
    }
}

// A row of pages filled from its gathered rows (the streamed upload's path) holds exactly the
// texels fillHeightPage reads from the map, at every level, with the rows gathered in one part or
// split between threads, and on maps whose levels end in a clamped column or row.
TEST(HeightPages, PagesFromGatheredRowsAreThePagesReadFromTheMap) {
    for (const auto& [width, height, leafSize] :
         {std::array<int, 3>{203, 141, 4}, {257, 257, 4}, {130, 67, 16}, {5, 3, 2}, {2, 2, 2}}) {
        const Heightmap map = syntheticHeightmap(width, height, 5);
        for (const int pageSize : {leafSize, 2 * leafSize, 256}) {
            const HeightPages pages = planHeightPages(width, height, leafSize, pageSize);
            const size_t texels = size_t(pages.texels) * size_t(pages.texels);
            std::vector<uint16_t> expected(texels), fromRows(texels);
            for (int k = 0; k < int(pages.level.size()); ++k) {
                const PageLevel& l = pages.level[size_t(k)];
                for (int py = 0; py < l.pagesY; ++py) {
                    for (const int parts : {1, 3}) {
                        PageRowSource rows;
                        preparePageRows(pages, k, py, rows);
                        for (int part = 0; part < parts; ++part) {
                            gatherPageRows(map, pages, pages.texels * part / parts,
                                           pages.texels * (part + 1) / parts, rows);
                        }
                        for (int px = 0; px < l.pagesX; ++px) {
                            fillHeightPage(map, pages, k, px, py, expected.data());
                            std::fill(fromRows.begin(), fromRows.end(), uint16_t(0xBEEF));
                            fillHeightPageFromRows(pages, rows, px, fromRows.data());
                            ASSERT_EQ(fromRows, expected)
                                << width << "x" << height << " leaf " << leafSize << " page "
                                << pageSize << " level " << k << " page (" << px << ", " << py
                                << ") in " << parts << " parts";
                        }
                    }
                }
            }
        }
    }
}

// A page of one byte a sample holds, at every texel, the byte of the sample whose code the
// height page holds there: the map's codes' low bytes give the height page's texels' low bytes,
// at every level, on maps whose levels end in a clamped column or row.
TEST(HeightPages, BytePagesHoldTheBytesOfTheHeightPagesSamples) {
    for (const auto& [width, height, leafSize] :
         {std::array<int, 3>{203, 141, 4}, {257, 257, 4}, {130, 67, 16}, {5, 3, 2}, {2, 2, 2}}) {
        const Heightmap map = syntheticHeightmap(width, height, 7);
        std::vector<uint8_t> bytes(size_t(map.sampleCount()));
        for (size_t i = 0; i < bytes.size(); ++i) {
            bytes[i] = uint8_t(map.codes[i] ^ (map.codes[i] >> 8) ^ i);
        }
        // Sample indices as codes, low and high halves: the height pages' texels name the
        // samples they hold.
        Heightmap low = map;
        Heightmap high = map;
        for (size_t i = 0; i < bytes.size(); ++i) {
            low.codes[i] = uint16_t(i & 0xFFFF);
            high.codes[i] = uint16_t(i >> 16);
        }
        for (const int pageSize : {leafSize, 2 * leafSize, 256}) {
            const HeightPages pages = planHeightPages(width, height, leafSize, pageSize);
            const size_t texels = size_t(pages.texels) * size_t(pages.texels);
            std::vector<uint16_t> lowHalf(texels), highHalf(texels);
            std::vector<uint8_t> page(texels);
            for (int k = 0; k < int(pages.level.size()); ++k) {
                const PageLevel& l = pages.level[size_t(k)];
                for (int py = 0; py < l.pagesY; ++py) {
                    for (int px = 0; px < l.pagesX; ++px) {
                        fillHeightPage(low, pages, k, px, py, lowHalf.data());
                        fillHeightPage(high, pages, k, px, py, highHalf.data());
                        fillBytePage(bytes.data(), width, height, pages, k, px, py, page.data());
                        for (size_t t = 0; t < texels; ++t) {
                            const size_t sample = size_t(lowHalf[t]) | size_t(highHalf[t]) << 16;
                            ASSERT_EQ(page[t], bytes[sample])
                                << width << "x" << height << " level " << k << " page (" << px
                                << ", " << py << ") texel " << t;
                        }
                    }
                }
            }
        }
    }
}

TEST(HeightPages, TheTableNamesEveryLayerOnce) {
    const HeightPages pages = planHeightPages(1025, 700, 4, 16);
    const std::vector<uint16_t> table = pages.table();
    ASSERT_EQ(table.size(), size_t(pages.tableWidth) * size_t(pages.tableHeight));
    std::set<int> layers;
    for (const PageLevel& l : pages.level) {
        EXPECT_LE(l.pagesX, pages.tableWidth);
        for (int py = 0; py < l.pagesY; ++py) {
            for (int px = 0; px < l.pagesX; ++px) {
                const int layer =
                    table[size_t(l.tableRow + py) * size_t(pages.tableWidth) + size_t(px)];
                EXPECT_EQ(layer, l.firstLayer + py * l.pagesX + px);
                layers.insert(layer);
            }
        }
    }
    EXPECT_EQ(int(layers.size()), pages.layers);
    EXPECT_EQ(*layers.rbegin(), pages.layers - 1);
}

TEST(HeightPages, PagesGrowUntilTheLayersFit) {
    const PageLimits limits{2048, 16384};
    const Result<HeightPages> small = fitHeightPages(4097, 4097, 4, 256, limits);
    ASSERT_TRUE(small);
    EXPECT_EQ(small.value().pageSize, 256);
    const Result<HeightPages> large = fitHeightPages(16385, 16385, 4, 256, limits);
    ASSERT_TRUE(large);
    EXPECT_EQ(large.value().pageSize, 512);
    EXPECT_LE(large.value().layers, 2048);
    const Result<HeightPages> largest = fitHeightPages(32769, 32769, 4, 256, limits);
    ASSERT_TRUE(largest);
    EXPECT_EQ(largest.value().pageSize, 1024);
    // Pages at least the leaf size.
    const Result<HeightPages> leaves = fitHeightPages(130, 67, 16, 4, limits);
    ASSERT_TRUE(leaves);
    EXPECT_EQ(leaves.value().pageSize, 16);
    // A GPU whose textures cannot hold the pages the layers need refuses the map in one line.
    const Result<HeightPages> refused = fitHeightPages(16385, 16385, 4, 256, {64, 1024});
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("GL_MAX_ARRAY_TEXTURE_LAYERS"), std::string::npos);
    EXPECT_EQ(refused.error().find('\n'), std::string::npos);
}

// Streamed, the pooled levels count only their pool: the pages stay smaller than a layout of every
// page needs (at 32769^2 and 2048 layers, 256 squares rather than 1024), and a map whose every
// page would not fit still goes as pages streamed. At 32769^2 levels 0 to 2 are pooled: the levels
// above take at most kHeldLevelsBytes of pages, and with level 2 they would take more.
TEST(HeightPages, AStreamedFitCountsOnlyThePoolOfThePooledLevels) {
    const PageLimits limits{2048, 16384};
    int asked = 0;
    const PagePool pool = [&asked](const HeightPages& full) {
        ++asked;
        return streamPoolLayers(full, 1.0472f, 720, 1.0f, 16);
    };
    const Result<HeightPages> full = fitHeightPages(32769, 32769, 16, 256, limits);
    const Result<HeightPages> streamed = fitHeightPages(32769, 32769, 16, 256, limits, pool);
    ASSERT_TRUE(full);
    ASSERT_TRUE(streamed);
    EXPECT_EQ(full.value().pageSize, 1024);
    EXPECT_EQ(streamed.value().pageSize, 256);
    EXPECT_EQ(asked, 1);  // the first page size tried fits
    const HeightPages& s = streamed.value();
    EXPECT_EQ(s.pooledLevels, 3);
    const auto heldFrom = [&](int level) {
        uint64_t bytes = 0;
        for (size_t k = size_t(level); k < s.level.size(); ++k) {
            bytes += uint64_t(s.level[k].pagesX) * uint64_t(s.level[k].pagesY) *
                     uint64_t(s.texels) * uint64_t(s.texels) * 2;
        }
        return bytes;
    };
    EXPECT_LE(heldFrom(3), kHeldLevelsBytes);
    EXPECT_GT(heldFrom(2), kHeldLevelsBytes);
    EXPECT_EQ(streamedLevels(planHeightPages(32769, 32769, 16, 256), heldFrom(2)), 2);
    EXPECT_EQ(streamedLevels(planHeightPages(32769, 32769, 16, 256), 0), int(s.level.size()) - 1);
    EXPECT_EQ(streamedLevels(planHeightPages(16385, 16385, 16, 256)), 2);
    EXPECT_EQ(s.poolLayers,
              streamPoolLayers(planHeightPages(32769, 32769, 16, 256), 1.0472f, 720, 1.0f, 16));
    EXPECT_LE(s.layers, 2048);
    EXPECT_LT(s.bytes(), uint64_t(300) << 20);
    // The pool is asked with the levels that pool under the held bytes given: with none held,
    // every level but the top, and the layers it gives cover them all.
    int askedLevels = 0;
    const PagePool every = [&askedLevels](const HeightPages& layout) {
        askedLevels = layout.pooledLevels;
        return streamPoolLayers(layout, 1.0472f, 720, 1.0f, 16);
    };
    const Result<HeightPages> deep = fitHeightPages(4097, 4097, 16, 256, limits, every, 0);
    ASSERT_TRUE(deep);
    EXPECT_EQ(askedLevels, int(deep.value().level.size()) - 1);
    EXPECT_EQ(deep.value().pooledLevels, askedLevels);
    HeightPages twoLevels = planHeightPages(4097, 4097, 16, 256);
    twoLevels.pooledLevels = 2;
    EXPECT_GT(deep.value().poolLayers, streamPoolLayers(twoLevels, 1.0472f, 720, 1.0f, 16));
    // 64 layers of at most 300^2 texels: no layout of every page fits, a streamed one with a small
    // pool does.
    const PagePool four = [](const HeightPages&) { return 4; };
    EXPECT_FALSE(fitHeightPages(2049, 2049, 4, 256, {64, 300}));
    const Result<HeightPages> small = fitHeightPages(2049, 2049, 4, 256, {64, 300}, four);
    ASSERT_TRUE(small);
    EXPECT_EQ(small.value().poolLayers, 4);
    EXPECT_LE(small.value().layers, 64);
}

TEST(HeightPages, BytesPerSampleStayNearTheEightThirdsOfThePyramid) {
    // Two bytes a sample, a third more for the coarser levels, the borders and the last levels'
    // part-filled pages.
    for (const int side : {4097, 16385, 32769}) {
        const Result<HeightPages> pages = fitHeightPages(side, side, 4, 256, {2048, 16384});
        ASSERT_TRUE(pages);
        const double perSample = double(pages.value().bytes()) / (double(side) * double(side));
        EXPECT_GT(perSample, 8.0 / 3.0) << side;
        EXPECT_LT(perSample, 2.8) << side;
    }
}

// Streamed: the pages of the pooled levels (0 and 1 by default, or as many as asked) share a pool
// of layers, their table entries start absent, and the other levels keep their pages, each with a
// layer of its own after the pool; a pyramid of two levels pools level 0 alone (no level 2 would
// stand in for a missing level-1 page).
TEST(HeightPages, AStreamedLayoutPoolsItsLowerLevelsAndKeepsTheRest) {
    const HeightPages full = planHeightPages(203, 141, 4, 8);
    ASSERT_GE(full.level.size(), size_t(4));
    int pooled = 0;
    for (const int asked : {0, 3}) {
        const int levels = asked == 0 ? 2 : asked;
        pooled = 0;
        for (int k = 0; k < levels; ++k) {
            pooled += full.level[size_t(k)].pagesX * full.level[size_t(k)].pagesY;
        }
        const HeightPages streamed = streamedHeightPages(full, 10, asked);
        EXPECT_EQ(streamed.poolLayers, 10);
        EXPECT_EQ(streamed.pooledLevels, levels);
        EXPECT_EQ(streamed.pooledPages(), pooled);
        EXPECT_EQ(streamed.layers, full.layers - pooled + 10);
        EXPECT_EQ(streamed.pageCount, full.pageCount);
        EXPECT_LT(streamed.bytes(), full.bytes());
        const std::vector<uint16_t> a = full.table(), b = streamed.table();
        ASSERT_EQ(a.size(), b.size());
        std::vector<int> uses(size_t(streamed.layers), 0);
        for (size_t k = 0; k < full.level.size(); ++k) {
            const PageLevel& l = full.level[k];
            EXPECT_EQ(streamed.level[k].firstPage, l.firstPage);
            for (int py = 0; py < l.pagesY; ++py) {
                for (int px = 0; px < l.pagesX; ++px) {
                    const size_t at =
                        size_t(l.tableRow + py) * size_t(full.tableWidth) + size_t(px);
                    const uint32_t page = uint32_t(l.firstPage + py * l.pagesX + px);
                    EXPECT_EQ(streamed.levelOfPage(page), int(k));
                    int x = -1, y = -1;
                    streamed.tableCell(page, x, y);
                    EXPECT_EQ(size_t(y) * size_t(full.tableWidth) + size_t(x), at);
                    if (int(k) < levels) {
                        EXPECT_EQ(b[at], kAbsentPage);
                        EXPECT_EQ(streamed.level[k].firstLayer, -1);
                    } else {
                        EXPECT_EQ(int(b[at]), int(a[at]) - pooled + 10);
                        ASSERT_GE(int(b[at]), 10);
                        ASSERT_LT(int(b[at]), streamed.layers);
                        ++uses[b[at]];
                    }
                }
            }
        }
        for (int layer = 10; layer < streamed.layers; ++layer) {
            EXPECT_EQ(uses[size_t(layer)], 1) << layer;
        }
    }
    // A pool larger than the pooled levels is theirs.
    EXPECT_EQ(streamedHeightPages(full, pooled + 5, 3).layers, full.layers);
    // Two levels: level 0 alone.
    const HeightPages two = planHeightPages(17, 17, 8, 16);
    ASSERT_EQ(two.level.size(), size_t(2));
    const HeightPages streamedTwo = streamedHeightPages(two, 1);
    EXPECT_EQ(streamedTwo.pooledLevels, 1);
    EXPECT_EQ(streamedTwo.layers, 1 + 1);
    EXPECT_EQ(streamedTwo.table()[size_t(streamedTwo.level[1].tableRow) * size_t(two.tableWidth)],
              1);
}

}  // namespace
}  // namespace qt
