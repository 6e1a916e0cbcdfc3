// Samples asked for off the frame's thread: an absent window is read, a present one costs no
// read, a failure is its line until a read succeeds, and while a read runs the newest ask
// replaces those not begun.
#include "core/streaming/sample_asker.h"

#include <future>
#include <vector>

#include <gtest/gtest.h>

#include "core/terrain/synthetic.h"
#include "test_presence.h"

namespace qt {
namespace {

TEST(SampleAsker, ReadsWhatIsAbsentAndNothingThatIsPresent) {
    const Heightmap map = syntheticHeightmap(65, 65, 1);
    test::TilesArriving tiles(map, 16, [](size_t i) { return i == 0; });
    SampleAsker asker(tiles.presence());
    asker.ask(0, 0, 15, 15);  // present
    asker.waitIdle();
    EXPECT_EQ(tiles.asked(), 0);
    asker.ask(20, 20, 40, 21);  // tiles 1-2 of row 1
    asker.waitIdle();
    EXPECT_EQ(tiles.asked(), 1);
    EXPECT_EQ(tiles.read(), 2);
    EXPECT_TRUE(tiles.present(16, 16, 47, 31));
    EXPECT_EQ(asker.lastFailure(), "");

    tiles.failWith("heights-0.tif: tile (3, 3) cannot be read");
    asker.ask(50, 50, 51, 51);
    asker.waitIdle();
    EXPECT_EQ(asker.lastFailure(), "heights-0.tif: tile (3, 3) cannot be read");
    EXPECT_FALSE(tiles.present(50, 50, 51, 51));
    tiles.failWith("");
    asker.ask(50, 50, 51, 51);
    asker.waitIdle();
    EXPECT_EQ(asker.lastFailure(), "");
    EXPECT_TRUE(tiles.present(50, 50, 51, 51));
}

TEST(SampleAsker, WhileAReadRunsTheNewestAskReplacesThoseNotBegun) {
    std::promise<void> started, release;
    std::shared_future<void> go = release.get_future().share();
    bool first = true;
    std::vector<int> read;  // the asks' x0, in the order read
    SamplePresence presence;
    presence.present = [](int, int, int, int) { return false; };
    presence.ensure = [&](int x0, int, int, int) -> Status {
        if (first) {
            first = false;
            started.set_value();
            go.wait();
        }
        read.push_back(x0);
        return {};
    };
    SampleAsker asker(presence);
    asker.ask(1, 0, 1, 0);
    started.get_future().wait();  // the first is being read
    asker.ask(2, 0, 2, 0);
    asker.ask(3, 0, 3, 0);
    release.set_value();
    asker.waitIdle();
    EXPECT_EQ(read, (std::vector<int>{1, 3}));
}

}  // namespace
}  // namespace qt
