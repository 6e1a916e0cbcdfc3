// The fly camera's movement keys integrated over time from timestamped presses and releases, so
// the distance moved is speed x time held whatever the frame rate; no GLFW, so unit-tested.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <glm/vec3.hpp>

#include "core/view/camera.h"

namespace qt {

enum class Move : uint8_t { Forward, Back, Left, Right, Up, Down, Fast };
constexpr int kMoveCount = 7;

// Seconds each move was held during one step, and the step's length (both capped at
// kMaxCameraStepSeconds: a stall moves the camera no farther than a 2-second step).
struct MoveStep {
    std::array<double, kMoveCount> held{};
    double seconds = 0.0;

    double of(Move m) const { return held[size_t(m)]; }
};

// Seconds a tap counts when its press and release came in one poll (their stamps equal).
constexpr double kTapSeconds = 0.1;
// Speed multiplier while Shift (Move::Fast) is held.
constexpr float kFastFactor = 5.0f;

// The camera's move for a step: speed x seconds held along forward, right and world up, less the
// opposite keys; the share of the step Shift was held scales it towards kFastFactor.
glm::vec3 displacement(const MoveStep& step, const Camera& camera, float speed);

class MoveKeys {
public:
    // A key of `m` went down or up at time `t` (seconds, the clock step() reads). Several keys
    // may drive one move (E and Space): it is held while any of them is down.
    void press(Move m, double t);
    // A release stamped at its press's very time (both came in one poll: a tap inside one slow
    // frame) counts kTapSeconds, the length of a quick keystroke, rather than nothing.
    void release(Move m, double t);
    // Ends the step at `now` and starts the next: a key pressed and released within the step
    // counts the time between, and one still down counts until `now`.
    MoveStep step(double now);
    // Drops the time since the last step (after a known stall: a load, a minimised window);
    // keys down stay down from `now`.
    void restart(double now);
    // Every key up at `now` (the window lost focus, a text box took the keyboard).
    void releaseAll(double now);
    bool anyDown() const;

private:
    std::array<int, kMoveCount> down_{};          // keys of each move down now
    std::array<double, kMoveCount> since_{};      // when a held move went down (or the step began)
    std::array<double, kMoveCount> heldSoFar_{};  // seconds held in this step before since_
    std::array<double, kMoveCount> pressedAt_{};  // the press's own stamp, for taps
    double stepStart_ = 0.0;
    bool started_ = false;
};

}  // namespace qt
