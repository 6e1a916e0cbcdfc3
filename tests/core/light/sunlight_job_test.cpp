// The shadows' thread: results equal computeSunlight's, the shown bytes stay until a finished
// result is taken, and of requests made in a burst the last is the one shown.
#include "core/light/sunlight_job.h"

#include <vector>

#include <gtest/gtest.h>

#include "core/light/sunlight.h"
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
    EXPECT_TRUE(job.bytes().empty());
    job.request({120.0, 5.0});
    job.waitIdle();
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.bytes(), direct(map, m, {120.0, 5.0}));
    EXPECT_EQ(job.shownSun().azimuth, 120.0);
    EXPECT_FALSE(job.takeFinished());  // nothing new

    job.request({300.0, 2.0});
    job.waitIdle();
    EXPECT_EQ(job.bytes(), direct(map, m, {120.0, 5.0}));  // not taken yet: the old shadows
    ASSERT_TRUE(job.takeFinished());
    EXPECT_EQ(job.bytes(), direct(map, m, {300.0, 2.0}));
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
    EXPECT_EQ(job.bytes(), direct(map, m, {19 * 17.0, 20.0}));
}

TEST(SunlightJob, StopsWhileComputing) {
    const Heightmap map = syntheticHeightmap(513, 513, 2);
    SunlightJob job(map, {1.0f, 1.0f, 0.0f}, 8, 2);
    job.request({45.0, 3.0});
}  // the destructor lets the computation finish and joins

}  // namespace
}  // namespace qt
