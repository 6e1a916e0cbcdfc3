// The camera's movement keys: the same held time, so the same distance, at 1 and 60 steps a
// second; quick taps within a step count; a stall moves no farther than the step cap.
#include "app/move_keys.h"

#include <iterator>

#include <gtest/gtest.h>

#include "core/config.h"

namespace qt {
namespace {

// Forward held from `down` to `up` seconds, stepped `fps` times a second until `end`: the total
// forward time the steps report.
double heldForward(double fps, double down, double up, double end) {
    MoveKeys keys;
    keys.step(0.0);
    double total = 0.0;
    bool pressed = false, released = false;
    const int frames = int(end * fps + 0.5);
    for (int frame = 1; frame <= frames; ++frame) {
        const double now = frame / fps;
        if (!pressed && down <= now) {  // events come in during the frame before the step
            keys.press(Move::Forward, down);
            pressed = true;
        }
        if (!released && up <= now) {
            keys.release(Move::Forward, up);
            released = true;
        }
        total += keys.step(now).of(Move::Forward);
    }
    return total;
}

TEST(MoveKeys, SameHeldTimeAtOneAndSixtyStepsASecond) {
    const double at1 = heldForward(1.0, 0.3, 3.55, 5.0);
    const double at60 = heldForward(60.0, 0.3, 3.55, 5.0);
    EXPECT_NEAR(at1, 3.25, 1e-9);
    EXPECT_NEAR(at60, 3.25, 1e-9);
    EXPECT_NEAR(heldForward(1.0, 0.0, 1.5, 1.0), 1.0, 1e-9);  // still down at the last step
}

// The camera flown with W (and D for part of the time) held over the same wall time, stepped at
// 1 and at 60 frames a second: the same place, speed x seconds from the start.
glm::vec3 flown(double fps) {
    struct Event {
        double time;
        Move move;
        bool press;
    };
    const Event events[] = {{0.25, Move::Forward, true},
                            {1.1, Move::Right, true},
                            {1.6, Move::Right, false},
                            {3.75, Move::Forward, false}};
    Camera camera;
    camera.lookAt({0.0f, 10.0f, 0.0f}, {1.0f, 9.0f, 2.0f});
    MoveKeys keys;
    keys.step(0.0);
    size_t next = 0;
    for (int frame = 1; frame <= int(5 * fps); ++frame) {
        const double now = frame / fps;
        for (; next < std::size(events) && events[next].time <= now; ++next) {  // polled
            const Event& e = events[next];
            e.press ? keys.press(e.move, e.time) : keys.release(e.move, e.time);
        }
        camera.position += displacement(keys.step(now), camera, 8.0f);
    }
    return camera.position;
}

TEST(MoveKeys, SameDistanceAtOneAndSixtyFramesASecond) {
    Camera camera;
    camera.lookAt({0.0f, 10.0f, 0.0f}, {1.0f, 9.0f, 2.0f});
    const glm::vec3 expected =
        camera.position + camera.forward() * (8.0f * 3.5f) + camera.right() * (8.0f * 0.5f);
    for (const double fps : {1.0, 60.0}) {
        const glm::vec3 at = flown(fps);
        EXPECT_NEAR(at.x, expected.x, 1e-3f) << fps;
        EXPECT_NEAR(at.y, expected.y, 1e-3f) << fps;
        EXPECT_NEAR(at.z, expected.z, 1e-3f) << fps;
    }
}

TEST(MoveKeys, ShiftForTheWholeStepMovesFiveTimesFaster) {
    Camera camera;
    MoveStep step;
    step.seconds = 0.5;
    step.held[size_t(Move::Back)] = 0.5;
    step.held[size_t(Move::Fast)] = 0.5;
    const glm::vec3 d = displacement(step, camera, 2.0f);
    EXPECT_NEAR(d.x, -2.0f * 0.5f * kFastFactor, 1e-6f);  // yaw 0 looks along +x
    step.held[size_t(Move::Fast)] = 0.0;
    EXPECT_NEAR(displacement(step, camera, 2.0f).x, -1.0f, 1e-6f);
}

TEST(MoveKeys, ATapWithinOneStepCountsItsTime) {
    MoveKeys keys;
    keys.step(0.0);
    keys.press(Move::Left, 0.2);
    keys.release(Move::Left, 0.25);
    const MoveStep s = keys.step(1.0);
    EXPECT_NEAR(s.of(Move::Left), 0.05, 1e-12);
    EXPECT_NEAR(s.seconds, 1.0, 1e-12);
    EXPECT_EQ(keys.step(2.0).of(Move::Left), 0.0);
}

TEST(MoveKeys, ATapInsideOneSlowFrameCountsAQuickKeystroke) {
    MoveKeys keys;
    keys.step(0.0);
    keys.press(Move::Forward, 0.7);  // both taken in by the poll at 0.7 s
    keys.release(Move::Forward, 0.7);
    EXPECT_DOUBLE_EQ(keys.step(1.0).of(Move::Forward), kTapSeconds);
    keys.press(Move::Forward, 1.5);
    keys.releaseAll(1.5);  // focus lost: not a tap
    EXPECT_DOUBLE_EQ(keys.step(2.0).of(Move::Forward), 0.0);
}

TEST(MoveKeys, TwoKeysOfOneMoveHoldItUntilBothAreUp) {
    MoveKeys keys;
    keys.step(0.0);
    keys.press(Move::Up, 0.1);  // E
    keys.press(Move::Up, 0.2);  // Space
    keys.release(Move::Up, 0.3);
    EXPECT_TRUE(keys.anyDown());
    keys.release(Move::Up, 0.6);
    EXPECT_FALSE(keys.anyDown());
    EXPECT_NEAR(keys.step(1.0).of(Move::Up), 0.5, 1e-12);
    keys.release(Move::Up, 1.5);  // a release never pressed changes nothing
    EXPECT_EQ(keys.step(2.0).of(Move::Up), 0.0);
}

TEST(MoveKeys, AStallMovesNoFartherThanTheStepCap) {
    MoveKeys keys;
    keys.step(0.0);
    keys.press(Move::Forward, 0.0);
    const MoveStep s = keys.step(30.0);
    EXPECT_DOUBLE_EQ(s.seconds, kMaxCameraStepSeconds);
    EXPECT_DOUBLE_EQ(s.of(Move::Forward), kMaxCameraStepSeconds);
    // A step under the cap is whole.
    EXPECT_DOUBLE_EQ(keys.step(31.5).of(Move::Forward), 1.5);
}

TEST(MoveKeys, RestartDropsTheStallAndReleaseAllEndsEveryMove) {
    MoveKeys keys;
    keys.step(0.0);
    keys.press(Move::Back, 0.5);
    keys.restart(10.0);  // a load took ten seconds
    EXPECT_NEAR(keys.step(10.25).of(Move::Back), 0.25, 1e-12);
    keys.releaseAll(10.5);
    EXPECT_FALSE(keys.anyDown());
    EXPECT_NEAR(keys.step(11.0).of(Move::Back), 0.25, 1e-12);
}

}  // namespace
}  // namespace qt
