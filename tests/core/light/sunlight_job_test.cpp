// The shadows' thread: results equal computeSunlight's, the shown bytes (and the sky's table of
// their Sun) stay until a finished result is taken, and of requests made in a burst the last is
// the one shown.
#include "core/light/sunlight_job.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/light/daylight_sky.h"
#include "core/light/light_byte.h"
#include "core/light/sky_light.h"
#include "core/light/sunlight.h"
#include "core/streaming/cache_folder.h"
#include "core/terrain/synthetic.h"

namespace qt {
namespace {

std::vector<uint8_t> direct(const Heightmap& map, const WorldMapping& m, SunDirection sun) {
    std::vector<uint8_t> out(size_t(map.sampleCount()));
    computeSunlight(map, m, sun, 4, out.data());
    return out;
}

TEST(SunlightJob, ShowsTheLastFinishedResultUntilTaken) {
    const Heightmap map = syntheticHeightmap(129, 97, 4);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    SunlightJob job(map, m, 4, 2);
    EXPECT_FALSE(job.takeFinished());
    EXPECT_FALSE(job.hasShown());
    job.request({120.0, 5.0});
    job.waitIdle();
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.bytes().copy(), direct(map, m, {120.0, 5.0}));
    EXPECT_EQ(job.shownSun().azimuth, 120.0);
    EXPECT_FALSE(job.takeFinished());  // nothing new

    job.request({300.0, 2.0});
    job.waitIdle();
    EXPECT_EQ(job.bytes().copy(), direct(map, m, {120.0, 5.0}));  // not taken yet: the old shadows
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.bytes().copy(), direct(map, m, {300.0, 2.0}));
}

// The sky's table comes with the shadows, made for their Sun: the frame that shows them need not
// compute it, and until they are taken the table is the shown Sun's.
TEST(SunlightJob, TheSkysTableComesWithTheShadowsOfItsSun) {
    const Heightmap map = syntheticHeightmap(65, 65, 5);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    SunlightJob job(map, m, 4, 2);
    const auto table = [](SunDirection sun) {
        std::vector<uint16_t> texels(size_t(kSkyTableWidth) * kSkyTableHeight * 4);
        skyTable(daylightSky(sun), texels.data());
        return texels;
    };
    job.request({120.0, 5.0});
    job.waitIdle();
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.skyTexels(), table({120.0, 5.0}));
    job.request({300.0, -2.0});
    job.waitIdle();
    EXPECT_EQ(job.skyTexels(), table({120.0, 5.0}));
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.skyTexels(), table({300.0, -2.0}));
    EXPECT_NE(job.skyTexels(), table({120.0, 5.0}));
}

TEST(SunlightJob, TheLastOfABurstOfRequestsIsShown) {
    const Heightmap map = syntheticHeightmap(257, 257, 6);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    SunlightJob job(map, m, 4, 2);
    for (int k = 0; k < 20; ++k)
        job.request({k * 17.0, 1.0 + k});
    job.waitIdle();
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.shownSun().azimuth, 19 * 17.0);
    EXPECT_EQ(job.bytes().copy(), direct(map, m, {19 * 17.0, 20.0}));
}

// With the sky's azimuths the job's bytes are light bytes: each sample's shadow packed with its
// sky fraction, the fraction computed once and kept for every Sun.
TEST(SunlightJob, WithTheSkyItsBytesPackTheShadowsWithTheSkyFraction) {
    const Heightmap map = syntheticHeightmap(129, 97, 4);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    std::vector<uint8_t> sky(size_t(map.sampleCount()));
    skyFraction(map, m, 8, sky.data());
    SunlightJob job(map, m, kLightBands, 2, 8);
    for (const SunDirection sun : {SunDirection{120.0, 5.0}, SunDirection{300.0, 20.0}}) {
        job.request(sun);
        job.waitIdle();
        ASSERT_TRUE(job.takeFinished());
        const std::vector<uint8_t> shadows = direct(map, m, sun);
        std::vector<uint8_t> expected(shadows.size());
        for (size_t i = 0; i < shadows.size(); ++i) {
            expected[i] = lightByte(shadows[i], sky[i]);
        }
        EXPECT_EQ(job.bytes().copy(), expected);
    }
}

// A streamed map's job keeps its bytes in scratch files: the same light bytes as on the heap, for
// every Sun, the sky fraction computed once from its own scratch floats, whether it sweeps the
// map whole or in bands of 1 or 7 rows (from each side: the bands go away from the Sun).
TEST(SunlightJob, InScratchFilesItsBytesAreTheHeapsBytes) {
    const Heightmap map = syntheticHeightmap(129, 97, 4);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    SunlightJob heap(map, m, kLightBands, 2, 8);
    for (const size_t bandSamples : {kLightBandSamples, size_t(129), size_t(7 * 129)}) {
        Result<std::unique_ptr<SunlightJob>> files =
            SunlightJob::inFiles(map, m, kLightBands, 2, 8, scratchFolder(), nullptr, bandSamples);
        ASSERT_TRUE(files) << files.error();
        SunlightJob& job = *files.value();
        EXPECT_TRUE(job.bytes().isFile());
        for (const SunDirection sun : {SunDirection{120.0, 5.0}, SunDirection{300.0, 20.0},
                                       SunDirection{10.0, 8.0}, SunDirection{190.0, 3.0}}) {
            heap.request(sun);
            job.request(sun);
            heap.waitIdle();
            job.waitIdle();
            ASSERT_TRUE(heap.takeFinished());
            ASSERT_TRUE(job.takeFinished());
            EXPECT_EQ(job.bytes().copy(), heap.bytes().copy())
                << "band of " << bandSamples << " samples, azimuth " << sun.azimuth;
        }
    }
}

// With a pyramid the job lays the light of levels 1 and up out as their pages, in layer order
// from level 1's first layer, and in files level 0's pages after them: every page's texels are
// fillBytePage's from the same bytes, on the heap and in files, swept whole or in bands of 5 rows
// (each band's texel rows laid out as the band is final); without one it lays out nothing.
TEST(SunlightJob, ItsPyramidHoldsTheLightsPagesOfLevelsOneAndUpAndInFilesOfLevelZero) {
    const Heightmap map = syntheticHeightmap(129, 97, 4);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    const HeightPages pages = streamedHeightPages(planHeightPages(129, 97, 4, 8), 6);
    ASSERT_GT(pages.level.size(), size_t(3));
    SunlightJob heap(map, m, kLightBands, 2, 8, &pages);
    Result<std::unique_ptr<SunlightJob>> files =
        SunlightJob::inFiles(map, m, kLightBands, 2, 8, scratchFolder(), &pages);
    ASSERT_TRUE(files) << files.error();
    Result<std::unique_ptr<SunlightJob>> banded =
        SunlightJob::inFiles(map, m, kLightBands, 2, 8, scratchFolder(), &pages, 5 * 129);
    ASSERT_TRUE(banded) << banded.error();
    SunlightJob plain(map, m, kLightBands, 2, 8);
    const size_t texels = size_t(pages.texels) * size_t(pages.texels);
    const int first = pages.level[1].firstPage;
    std::vector<uint8_t> expected(texels);
    for (SunlightJob* job : {&heap, files.value().get(), banded.value().get(), &plain}) {
        job->request({200.0, 15.0});
        job->waitIdle();
        ASSERT_TRUE(job->takeFinished());
        if (job == &plain) {
            EXPECT_TRUE(job->pyramid().empty());
            continue;
        }
        // In files, level 0's pages follow the levels above (page order): the frame uploads a
        // resident page from there, not gathered from the mapped bytes.
        const PageLevel& zero = pages.level[0];
        const bool inFiles = job != &heap;
        ASSERT_EQ(job->pyramid().size(),
                  size_t(pages.pageCount - first) * texels +
                      (inFiles ? size_t(zero.pagesX) * size_t(zero.pagesY) * texels : 0));
        ASSERT_EQ(job->levelZeroPage(0) != nullptr, inFiles);
        for (int py = 0; inFiles && py < zero.pagesY; ++py) {
            for (int px = 0; px < zero.pagesX; ++px) {
                fillBytePage(job->bytes().data(), map.width, map.height, pages, 0, px, py,
                             expected.data());
                const uint8_t* laid = job->levelZeroPage(uint32_t(py * zero.pagesX + px));
                ASSERT_TRUE(std::equal(expected.begin(), expected.end(), laid))
                    << "level 0 page (" << px << ", " << py << ")";
            }
        }
        int compared = 0;
        for (int level = 1; level < int(pages.level.size()); ++level) {
            const PageLevel& l = pages.level[size_t(level)];
            for (int py = 0; py < l.pagesY; ++py) {
                for (int px = 0; px < l.pagesX; ++px) {
                    fillBytePage(job->bytes().data(), map.width, map.height, pages, level, px, py,
                                 expected.data());
                    const int page = l.firstPage + py * l.pagesX + px;
                    const uint8_t* laid = job->pyramid().data() + size_t(page - first) * texels;
                    ASSERT_EQ(job->upperPage(uint32_t(page)), laid);
                    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), laid))
                        << "level " << level << " page (" << px << ", " << py << ")";
                    ++compared;
                }
            }
        }
        EXPECT_EQ(compared, pages.pageCount - first);
    }
}

// A folder that cannot take the files is one line, before any thread starts.
TEST(SunlightJob, InAFolderThatCannotTakeTheFilesIsRefusedInOneLine) {
    const Heightmap map = syntheticHeightmap(33, 33, 4);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    Result<std::unique_ptr<SunlightJob>> files =
        SunlightJob::inFiles(map, m, kLightBands, 2, 8, "/nonexistent/quadterrain");
    ASSERT_FALSE(files);
    EXPECT_EQ(files.error().find('\n'), std::string::npos);
    EXPECT_NE(files.error().find("scratch file"), std::string::npos) << files.error();
}

// Every pair of levels survives the byte: the Sun's share exactly in its bands, the sky's to the
// nearest fiftieth.
// A map whose samples arrive as they are asked for: the job makes every one present on its own
// thread before it reads them, so its shadows are the whole map's; a read that fails is its line,
// the request dropped, and the next request tries again.
TEST(SunlightJob, MakesEverySamplePresentBeforeItReadsThem) {
    const Heightmap map = syntheticHeightmap(129, 97, 4);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    Heightmap arriving = map;  // its codes zero until they arrive
    std::fill(arriving.codes.begin(), arriving.codes.begin() + map.sampleCount(), uint16_t(0));
    std::string failure = "heights-0.tif: tile (1, 0) cannot be read";
    int asked = 0;
    SamplePresence presence;
    presence.present = [](int, int, int, int) { return false; };  // the job asks ensure alone
    presence.ensure = [&](int x0, int y0, int x1, int y1) -> Status {
        ++asked;
        EXPECT_EQ(x0, 0);
        EXPECT_EQ(y0, 0);
        EXPECT_EQ(x1, map.width - 1);
        EXPECT_EQ(y1, map.height - 1);
        if (!failure.empty()) {
            return Status::failure(failure);
        }
        std::copy(map.codes.begin(), map.codes.begin() + map.sampleCount(), arriving.codes.begin());
        return {};
    };
    SunlightJob job(arriving, m, 4, 2);
    job.ensureFirst(presence);
    job.request({120.0, 5.0});
    job.waitIdle();
    EXPECT_EQ(job.failure(), "heights-0.tif: tile (1, 0) cannot be read");
    EXPECT_FALSE(job.takeFinished());
    failure.clear();
    job.request({120.0, 5.0});
    job.waitIdle();
    EXPECT_EQ(job.failure(), "");
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.bytes().copy(), direct(map, m, {120.0, 5.0}));
    job.request({300.0, 2.0});  // present once: not asked again
    job.waitIdle();
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.bytes().copy(), direct(map, m, {300.0, 2.0}));
    EXPECT_EQ(asked, 2);
}

// A job ended (a new map, the program's end) while it fetches a map's samples stops within a band
// of rows (ensureWholeMap) rather than fetching the whole map first.
TEST(SunlightJob, EndedWhileItFetchesTheSamplesStopsWithinABand) {
    const int bands = 8;
    const Heightmap map = syntheticHeightmap(33, bands * kPresenceBandRows + 1, 4);
    const WorldMapping m(20.0f, 20.0f, 1.0f, 0.0f);
    std::atomic<int> asked{0};
    SamplePresence presence;
    presence.present = [](int, int, int, int) { return false; };
    presence.ensure = [&](int, int, int, int) -> Status {
        ++asked;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a band from afar
        return {};
    };
    {
        SunlightJob job(map, m, 4, 2);
        job.ensureFirst(presence);
        job.request({120.0, 5.0});
        while (asked.load() == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }  // ended during the first band
    EXPECT_LT(asked.load(), bands);
}

TEST(LightByte, HoldsBothSharesForEveryPairOfLevels) {
    for (int lit = 0; lit <= kLightBands; ++lit) {
        const uint8_t sunlit = uint8_t((255 * lit + kLightBands / 2) / kLightBands);
        for (int sky = 0; sky <= 255; ++sky) {
            const uint8_t byte = lightByte(sunlit, uint8_t(sky));
            EXPECT_EQ(lightSun(byte), float(lit) / kLightBands) << lit << ", " << sky;
            EXPECT_LE(std::fabs(lightSky(byte) - sky / 255.0f), 0.5f / (kLightSkyLevels - 1))
                << lit << ", " << sky;
        }
    }
    EXPECT_EQ(lightByte(255, 255), (kLightBands + 1) * kLightSkyLevels - 1);
    EXPECT_EQ(lightByte(0, 0), 0);
}

TEST(SunlightJob, StopsWhileComputing) {
    const Heightmap map = syntheticHeightmap(513, 513, 2);
    SunlightJob job(map, {1.0f, 1.0f, 0.0f}, 8, 2);
    job.request({45.0, 3.0});
}  // the destructor lets the computation finish and joins

}  // namespace
}  // namespace qt
