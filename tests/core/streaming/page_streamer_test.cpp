// The page streamer: every requested page delivered once with fillHeightPage's texels, a budget per
// upload, and recycling that never takes a layer drawn by the last frame.
#include "core/streaming/page_streamer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/terrain/synthetic.h"

namespace qt {
namespace {

struct Delivery {
    int layer;
    uint32_t page;
    int64_t evicted;
};

// The pages a streamer hands to its upload, in order, with their texels.
struct Recorded {
    explicit Recorded(const HeightPages& of) : pages(of) {}

    const HeightPages& pages;
    std::vector<Delivery> deliveries;
    std::vector<std::vector<uint16_t>> texels;  // per delivery

    PageStreamer::Upload upload() {
        return [this](int layer, uint32_t page, const uint16_t* t, int64_t evicted) {
            deliveries.push_back({layer, page, evicted});
            texels.emplace_back(t, t + size_t(pages.texels) * size_t(pages.texels));
        };
    }
};

// A streamer over a 129 x 97 synthetic map in pages of 8 squares (16 x 12 level-0 pages).
struct Fixture {
    Heightmap map = syntheticHeightmap(129, 97, 3);
    HeightPages pages = planHeightPages(129, 97, 4, 8);
    std::vector<Delivery> deliveries;
    std::vector<std::vector<uint16_t>> texels;  // per delivery

    uint32_t pageCount() const { return uint32_t(pages.level[0].pagesX * pages.level[0].pagesY); }
    PageStreamer::Upload recorder() {
        return [this](int layer, uint32_t page, const uint16_t* t, int64_t evicted) {
            deliveries.push_back({layer, page, evicted});
            texels.emplace_back(t, t + size_t(pages.texels) * size_t(pages.texels));
        };
    }
    void expectTexels(size_t delivery) const {
        std::vector<uint16_t> expected(size_t(pages.texels) * size_t(pages.texels));
        const uint32_t page = deliveries[delivery].page;
        const int px = int(page % uint32_t(pages.level[0].pagesX));
        const int py = int(page / uint32_t(pages.level[0].pagesX));
        fillHeightPage(map, pages, 0, px, py, expected.data());
        EXPECT_EQ(texels[delivery], expected) << "page " << page;
    }
};

TEST(PageStreamer, DeliversEveryRequestedPageOnceWithItsTexels) {
    Fixture f;
    PageStreamer streamer;
    streamer.start(f.map, f.pages, int(f.pageCount()), 3, 4);
    std::vector<PageRequest> requests;
    for (uint32_t p = 0; p < f.pageCount(); p += 3) {
        requests.push_back({p, float(f.pageCount() - p)});  // duplicates too
        requests.push_back({p, float(f.pageCount() - p) + 1.0f});
    }
    streamer.request(requests);
    // A budgeted upload never exceeds its budget.
    for (int frame = 0; frame < 5; ++frame) {
        EXPECT_LE(streamer.upload(f.recorder()), 3);
    }
    streamer.settle(f.recorder());
    std::map<uint32_t, int> times;
    for (const Delivery& d : f.deliveries) {
        ++times[d.page];
        EXPECT_EQ(d.evicted, -1);
    }
    EXPECT_EQ(times.size(), size_t((f.pageCount() + 2) / 3));
    for (const auto& [page, count] : times) {
        EXPECT_EQ(page % 3, 0u);
        EXPECT_EQ(count, 1) << "page " << page;
        EXPECT_EQ(streamer.state(page), PageState::Resident);
        EXPECT_NE(streamer.layerOf(page), -1);
        EXPECT_NE(streamer.residency().level[0].resident[page], 0);
    }
    for (size_t d = 0; d < f.deliveries.size(); ++d) {
        f.expectTexels(d);
    }
    const StreamStats stats = streamer.stats();
    EXPECT_EQ(stats.resident, int(times.size()));
    EXPECT_EQ(stats.requested, 0);
    // Asking again for resident pages delivers nothing more.
    streamer.request(requests);
    streamer.settle(f.recorder());
    EXPECT_EQ(f.deliveries.size(), times.size());
}

// Requests dropped before the worker reaches them are not delivered: only what the last frame
// still wants, plus what the worker had already begun.
TEST(PageStreamer, DroppedRequestsGoBackToAbsent) {
    Fixture f;
    PageStreamer streamer;
    streamer.start(f.map, f.pages, int(f.pageCount()), 2, 2);
    std::vector<PageRequest> first;
    for (uint32_t p = 0; p < f.pageCount(); ++p) {
        first.push_back({p, float(p)});
    }
    streamer.request(first);
    std::vector<PageRequest> second = {{5, 1.0f}};
    streamer.request(second);
    streamer.settle(f.recorder());
    // The worker holds at most two staging pages and one page in hand: at most 3 + page 5.
    EXPECT_LE(f.deliveries.size(), 4u);
    EXPECT_EQ(streamer.state(5), PageState::Resident);
    for (uint32_t p = 0; p < f.pageCount(); ++p) {
        const PageState s = streamer.state(p);
        EXPECT_TRUE(s == PageState::Absent || s == PageState::Resident) << p;
    }
}

// A pool of 4 layers: the fifth page takes the least recently drawn layer, never one the last
// frame drew; with every layer drawn by the last frame, pages wait.
TEST(PageStreamer, RecyclesTheLeastRecentlyDrawnLayerNeverOneJustDrawn) {
    Fixture f;
    PageStreamer streamer;
    streamer.start(f.map, f.pages, 4, 8, 8);
    std::vector<PageRequest> requests = {{0, 0.0f}, {1, 1.0f}, {2, 2.0f}, {3, 3.0f}};
    streamer.request(requests);
    streamer.settle(f.recorder());
    ASSERT_EQ(f.deliveries.size(), 4u);
    // Level-0 nodes (leaves, col/row in leaves of 4: pages of 8 are 2 leaves) in pages 0..3.
    const auto nodeIn = [&](uint32_t page) {
        DrawNode n{};
        n.col = uint16_t(page % uint32_t(f.pages.level[0].pagesX) * 2);
        n.row = uint16_t(page / uint32_t(f.pages.level[0].pagesX) * 2);
        n.level = 0;
        return n;
    };
    streamer.markDrawn({nodeIn(2), nodeIn(0), nodeIn(3), nodeIn(1)}, 2);  // all in one frame
    streamer.markDrawn({nodeIn(1), nodeIn(3)}, 2);                        // 0 and 2 older
    streamer.markDrawn({nodeIn(3), nodeIn(0), nodeIn(1)}, 2);             // 2 the oldest
    requests = {{20, 0.0f}};
    streamer.request(requests);
    streamer.settle(f.recorder());
    ASSERT_EQ(f.deliveries.size(), 5u);
    EXPECT_EQ(f.deliveries[4].page, 20u);
    EXPECT_EQ(f.deliveries[4].evicted, 2);
    EXPECT_EQ(streamer.state(2), PageState::Absent);
    EXPECT_EQ(streamer.residency().level[0].resident[2], 0);
    // Every layer drawn by the last frame: the page is filled but waits.
    streamer.markDrawn({nodeIn(0), nodeIn(1), nodeIn(3), nodeIn(20)}, 2);
    requests = {{30, 0.0f}};
    streamer.request(requests);
    streamer.settle(f.recorder());
    EXPECT_EQ(f.deliveries.size(), 5u);
    EXPECT_EQ(streamer.state(30), PageState::Ready);
    // A frame that draws only page 1: the least recently drawn of the others goes.
    streamer.markDrawn({nodeIn(1)}, 2);
    EXPECT_EQ(streamer.upload(f.recorder()), 1);
    ASSERT_EQ(f.deliveries.size(), 6u);
    EXPECT_NE(f.deliveries[5].evicted, 1);
    EXPECT_EQ(streamer.state(30), PageState::Resident);
    for (size_t d = 0; d < f.deliveries.size(); ++d) {
        f.expectTexels(d);
    }
}

// A page uploaded keeps its layer until a frame has been drawn: the frame about to be drawn asked
// for it, so no later upload before that frame (in the same batch or not) takes its layer. Then,
// never drawn, it goes first.
TEST(PageStreamer, NeverRecyclesAPageUploadedSinceTheLastFrame) {
    Fixture f;
    PageStreamer streamer;
    streamer.start(f.map, f.pages, 2, 8, 8);
    std::vector<PageRequest> requests = {{0, 0.0f}, {1, 1.0f}, {2, 2.0f}};
    streamer.request(requests);
    streamer.settle(f.recorder());
    ASSERT_EQ(f.deliveries.size(), 2u);
    EXPECT_EQ(streamer.state(0), PageState::Resident);
    EXPECT_EQ(streamer.state(1), PageState::Resident);
    EXPECT_EQ(streamer.state(2), PageState::Ready);  // waits: both layers are this frame's
    EXPECT_EQ(streamer.upload(f.recorder()), 0);
    EXPECT_TRUE(streamer.starved());
    // A frame draws page 1 alone: page 0 is now the least recently drawn and goes.
    DrawNode n{};
    n.col = 2;  // page 1: pages of 8 samples are 2 leaves of 4
    streamer.markDrawn({n}, 2);
    EXPECT_EQ(streamer.upload(f.recorder()), 1);
    ASSERT_EQ(f.deliveries.size(), 3u);
    EXPECT_EQ(f.deliveries[2].page, 2u);
    EXPECT_EQ(f.deliveries[2].evicted, 0);
    EXPECT_EQ(streamer.state(0), PageState::Absent);
    for (size_t d = 0; d < f.deliveries.size(); ++d) {
        f.expectTexels(d);
    }
}

TEST(PageStreamer, PoolCoversTheFinestViewAndNeverExceedsTheMap) {
    const HeightPages pages = planHeightPages(32769, 32769, 16, 256);
    const int pool = streamPoolLayers(pages, 1.0472f, 1080, 1.0f, 16);
    // stepsAway 935: radius 2338 steps, (2 * 2338 / 256 + 2)^2 = 412 level-0 pages, and level 1's
    // (20.3 + 2)^2 = 496; levels 0 to 2 are pooled at this size (streamedLevels), and level 2's
    // are as many.
    ASSERT_EQ(streamedLevels(pages), 3);
    EXPECT_GE(pool, 400 + 480 + 480);
    EXPECT_LE(pool, 430 + 510 + 510);
    // Each level's part capped by its pages: 8193^2 has 16^2 level-1 pages.
    const int capped =
        streamPoolLayers(planHeightPages(8193, 8193, 16, 256), 1.0472f, 1080, 1.0f, 16);
    EXPECT_GE(capped, 400 + 256);
    EXPECT_LE(capped, 430 + 256);
    const HeightPages small = planHeightPages(257, 257, 4, 8);
    EXPECT_EQ(streamPoolLayers(small, 1.0472f, 1080, 1.0f, 4), 32 * 32 + 16 * 16);
    // A pyramid of two levels pools level 0 alone.
    const HeightPages two = planHeightPages(17, 17, 8, 16);
    ASSERT_EQ(two.level.size(), size_t(2));
    EXPECT_EQ(streamPoolLayers(two, 1.0472f, 1080, 1.0f, 8), 1);
}

// With level 1 pooled (a streamed layout of three levels or more), its pages are numbered after
// level 0's and delivered with fillHeightPage's level-1 texels; a drawn level-0 node keeps the
// level-1 pages around its own from being recycled (its parent split on them), a drawn level-1
// node its own.
TEST(PageStreamer, StreamsLevelOnePagesAndKeepsThoseADrawnNodeStandsOn) {
    const Heightmap map = syntheticHeightmap(129, 97, 5);
    const HeightPages pages = streamedHeightPages(planHeightPages(129, 97, 4, 8), 5);
    ASSERT_EQ(pages.pooledLevels, 2);
    const PageLevel& one = pages.level[1];
    const uint32_t first1 = uint32_t(one.firstPage);
    ASSERT_EQ(first1, uint32_t(pages.level[0].pagesX * pages.level[0].pagesY));
    Recorded recorded(pages);
    std::vector<Delivery>& deliveries = recorded.deliveries;
    std::vector<std::vector<uint16_t>>& texels = recorded.texels;
    const PageStreamer::Upload recorder = recorded.upload();
    PageStreamer streamer;
    streamer.start(map, pages, pages.poolLayers, 8, 8);
    const LodResidency& r = streamer.residency();
    ASSERT_EQ(r.levels, 2);
    EXPECT_EQ(r.level[1].first, first1);
    EXPECT_EQ(r.level[1].pagesX, one.pagesX);
    // Level-1 pages (0, 0), (1, 0), (0, 1), (1, 1) and level-0 page (0, 0); then level-0 page
    // (1, 1).
    const uint32_t page11 = uint32_t(pages.level[0].pagesX) + 1;
    std::vector<PageRequest> requests = {{first1, 0.0f},
                                         {first1 + 1, 1.0f},
                                         {first1 + uint32_t(one.pagesX), 2.0f},
                                         {first1 + uint32_t(one.pagesX) + 1, 3.0f},
                                         {0, 4.0f}};
    streamer.request(requests);
    streamer.settle(recorder);
    ASSERT_EQ(deliveries.size(), 5u);
    ASSERT_EQ(deliveries[4].page, 0u);
    std::vector<uint16_t> expected(size_t(pages.texels) * size_t(pages.texels));
    for (size_t d = 0; d < 4; ++d) {
        const uint32_t at = deliveries[d].page - first1;
        fillHeightPage(map, pages, 1, int(at % uint32_t(one.pagesX)),
                       int(at / uint32_t(one.pagesX)), expected.data());
        EXPECT_EQ(texels[d], expected) << "level-1 page " << at;
        EXPECT_TRUE(
            r.holds(1, int(at % uint32_t(one.pagesX)) * 16, int(at / uint32_t(one.pagesX)) * 16));
    }
    // A level-0 node of page (0, 0) marks its page and the four level-1 pages the map has around
    // level-1 page (0, 0): with every layer drawn by the last frame, a new page waits.
    DrawNode leaf{};
    leaf.level = 0;
    DrawNode level1{};
    level1.level = 1;
    level1.col = 4;  // leaves of 4 squares: level-1 page (1, 0) spans leaves 4..7
    streamer.markDrawn({leaf}, 2);
    requests = {{page11, 0.0f}};
    streamer.request(requests);
    streamer.settle(recorder);
    EXPECT_EQ(deliveries.size(), 5u);
    EXPECT_EQ(streamer.state(page11), PageState::Ready);
    // A frame drawing only a level-1 node of page (1, 0): the least recently drawn of the others
    // goes, never (1, 0).
    streamer.markDrawn({level1}, 2);
    EXPECT_EQ(streamer.upload(recorder), 1);
    ASSERT_EQ(deliveries.size(), 6u);
    EXPECT_EQ(deliveries[5].page, page11);
    EXPECT_NE(deliveries[5].evicted, int64_t(first1 + 1));
    EXPECT_GE(deliveries[5].evicted, 0);
    fillHeightPage(map, pages, 0, 1, 1, expected.data());
    EXPECT_EQ(texels[5], expected);
    EXPECT_TRUE(r.holds(0, 8, 8));
}

// With several workers (a layout by URL, whose pages wait on round trips), pages are filled side by
// side, at most one of them from the coarse source at a time (it takes one thread a level), and
// every page still comes once with its texels. The first level-0 fill waits (up to 10 s) for a
// second fill to start, so that one worker at a time fails the test rather than passes it by luck.
TEST(PageStreamer, WorkersFillPagesSideBySideWithOneCoarseFillAtATime) {
    const Heightmap map = syntheticHeightmap(129, 97, 5);
    const HeightPages pages = streamedHeightPages(planHeightPages(129, 97, 4, 8), 5);
    ASSERT_EQ(pages.pooledLevels, 2);
    const int all = pages.pooledPages();
    std::mutex mutex;
    std::condition_variable changed;
    int inFlight = 0, peak = 0, coarseInFlight = 0, coarsePeak = 0;
    bool waited = false;
    const auto enter = [&](bool coarse) {
        std::unique_lock<std::mutex> lock(mutex);
        ++inFlight;
        coarseInFlight += coarse ? 1 : 0;
        peak = std::max(peak, inFlight);
        coarsePeak = std::max(coarsePeak, coarseInFlight);
        changed.notify_all();
        if (!coarse && !waited) {
            waited = true;
            changed.wait_for(lock, std::chrono::seconds(10), [&] { return peak >= 2; });
        }
    };
    const auto leave = [&](bool coarse) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a fill that takes a while
        const std::lock_guard<std::mutex> lock(mutex);
        --inFlight;
        coarseInFlight -= coarse ? 1 : 0;
    };
    const SampleSource source = [&](int, int, int, int) {
        enter(false);
        leave(false);
        return Status();
    };
    const CoarsePageFill coarse = [&](const HeightPages& p, int level, int px, int py,
                                      uint16_t* out) {
        enter(true);
        fillHeightPage(map, p, level, px, py, out);
        leave(true);
        return Status();
    };
    std::map<uint32_t, std::vector<uint16_t>> delivered;
    const PageStreamer::Upload recorder = [&](int, uint32_t page, const uint16_t* t, int64_t) {
        EXPECT_EQ(delivered.count(page), 0u) << "page " << page << " twice";
        delivered[page].assign(t, t + size_t(pages.texels) * size_t(pages.texels));
    };
    PageStreamer streamer;
    streamer.start(map, pages, all, 8, 8, source, coarse, 3);
    std::vector<PageRequest> requests;
    for (int p = 0; p < all; ++p) {
        requests.push_back({uint32_t(p), float(p % 7)});  // the levels' pages interleaved
    }
    streamer.request(requests);
    streamer.settle(recorder);
    ASSERT_EQ(int(delivered.size()), all);
    EXPECT_GE(peak, 2);
    EXPECT_EQ(coarsePeak, 1);
    std::vector<uint16_t> expected(size_t(pages.texels) * size_t(pages.texels));
    for (const auto& [page, texels] : delivered) {
        const int level = pages.levelOfPage(page);
        const PageLevel& l = pages.level[size_t(level)];
        const int at = int(page) - l.firstPage;
        fillHeightPage(map, pages, level, at % l.pagesX, at / l.pagesX, expected.data());
        EXPECT_EQ(texels, expected) << "page " << page;
        EXPECT_EQ(streamer.state(page), PageState::Resident);
    }
    EXPECT_EQ(streamer.stats().requested, 0);
}

// With three levels pooled, level 2's pages come from the coarse source as level 1's do; a level-1
// node splits once its level-0 page and the pages above it that its split needs are in
// (LodResidency::forEachNeeded), and stops when one of them goes; a drawn level-0 node keeps all of
// them from being recycled.
TEST(PageStreamer, PoolsThreeLevelsAndKeepsThePagesADrawnNodeStandsOn) {
    const Heightmap map = syntheticHeightmap(129, 97, 5);
    const HeightPages full = planHeightPages(129, 97, 4, 8);
    ASSERT_GE(full.level.size(), 4u);
    const HeightPages pages = streamedHeightPages(full, 9, 3);
    ASSERT_EQ(pages.pooledLevels, 3);
    ASSERT_EQ(pages.poolLayers, 9);
    std::mutex mutex;
    std::vector<int> coarseLevels;
    const CoarsePageFill coarse = [&](const HeightPages& p, int level, int px, int py,
                                      uint16_t* out) {
        {
            const std::lock_guard<std::mutex> lock(mutex);
            coarseLevels.push_back(level);
        }
        fillHeightPage(map, p, level, px, py, out);
        return Status();
    };
    Recorded recorded(pages);
    std::vector<Delivery>& deliveries = recorded.deliveries;
    std::vector<std::vector<uint16_t>>& texels = recorded.texels;
    const PageStreamer::Upload recorder = recorded.upload();
    PageStreamer streamer;
    streamer.start(map, pages, pages.poolLayers, 16, 8, {}, coarse, 1);
    const LodResidency& r = streamer.residency();
    ASSERT_EQ(r.levels, 3);
    // The pages the level-1 node at the map's corner needs: level-0 page (0, 0), and the 2 x 2
    // pages the map has around page (0, 0) of levels 1 and 2.
    std::vector<PageRequest> requests;
    r.forEachNeeded(1, 0, 0, [&](int j, int qx0, int qy0, int qx1, int qy1) {
        for (int y = qy0; y <= qy1; ++y) {
            for (int x = qx0; x <= qx1; ++x) {
                requests.push_back(
                    {r.level[size_t(j)].first + uint32_t(y * r.level[size_t(j)].pagesX + x),
                     float(requests.size())});
            }
        }
    });
    ASSERT_EQ(requests.size(), 9u);
    EXPECT_FALSE(r.splits(1, 0, 0));
    streamer.request(requests);
    streamer.settle(recorder);
    ASSERT_EQ(deliveries.size(), 9u);
    std::vector<uint16_t> expected(size_t(pages.texels) * size_t(pages.texels));
    for (size_t d = 0; d < deliveries.size(); ++d) {
        const int level = pages.levelOfPage(deliveries[d].page);
        const PageLevel& l = pages.level[size_t(level)];
        const int at = int(deliveries[d].page) - l.firstPage;
        fillHeightPage(map, pages, level, at % l.pagesX, at / l.pagesX, expected.data());
        EXPECT_EQ(texels[d], expected) << "page " << deliveries[d].page;
    }
    std::sort(coarseLevels.begin(), coarseLevels.end());
    EXPECT_EQ(coarseLevels, (std::vector<int>{1, 1, 1, 1, 2, 2, 2, 2}));
    EXPECT_TRUE(r.splits(1, 0, 0));
    EXPECT_TRUE(r.splits(2, 0, 0));
    EXPECT_TRUE(r.splits(3, 0, 0));
    EXPECT_FALSE(r.splits(1, 8, 0));  // level-0 page (1, 0) is not in
    // Every layer drawn by a frame with a level-0 node of page (0, 0): a new page waits.
    DrawNode leaf{};
    leaf.level = 0;
    streamer.markDrawn({leaf}, 2);
    requests = {{1, 0.0f}};
    streamer.request(requests);
    streamer.settle(recorder);
    EXPECT_EQ(deliveries.size(), 9u);
    EXPECT_EQ(streamer.state(1), PageState::Ready);
    // A frame drawing only a level-2 node of level-2 page (0, 0): another page goes, and the
    // level-1 node at the corner no longer splits.
    DrawNode two{};
    two.level = 2;
    streamer.markDrawn({two}, 2);
    EXPECT_EQ(streamer.upload(recorder), 1);
    ASSERT_EQ(deliveries.size(), 10u);
    EXPECT_EQ(deliveries[9].page, 1u);
    EXPECT_GE(deliveries[9].evicted, 0);
    EXPECT_NE(deliveries[9].evicted, int64_t(pages.level[2].firstPage));
    EXPECT_FALSE(r.splits(1, 0, 0));
    // Page (1, 0)'s level-1 node needs the same pages above as page (0, 0)'s, and its own page.
    EXPECT_EQ(r.splits(1, 8, 0), deliveries[9].evicted == 0);
}

}  // namespace
}  // namespace qt
