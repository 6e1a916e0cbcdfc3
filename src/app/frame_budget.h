// --frame-budget: the level of detail's error bound that holds a frame-time target in the viewer.
#pragma once

#include <array>
#include <cstddef>

namespace qt {

// The bounds the budget moves between, in pixels: never above 8.
constexpr std::array<float, 7> kFrameBudgetSteps = {1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, 8.0f};
// Frames judged together (their median) before a step, and waited after one.
constexpr int kFrameBudgetSettleFrames = 8;
// A finer step is taken when its frames, estimated from these at the present step, would still
// be at most this share of the target: the margin that keeps two steps from chasing each other.
constexpr double kFrameBudgetFinerShare = 0.9;

// Frames slower than the target (the median of kFrameBudgetSettleFrames of them) raise the bound
// a step; frames with time for the next finer step lower it, never below the step it started at.
// A finer step's frames are estimated as the present ones times the square of the steps' ratio
// (triangles go with the inverse square of the grid step on screen, and the rest of a frame does
// not shrink: an overestimate, so a step down is one the frames can take). Each step waits for
// kFrameBudgetSettleFrames frames drawn at it, so one slow frame (a page upload) moves nothing.
class FrameBudget {
public:
    // From the smallest step at or above `startPixels` (the first step when none is).
    FrameBudget(double targetMs, float startPixels);

    float pixels() const { return kFrameBudgetSteps[std::size_t(step_)]; }
    double targetMs() const { return targetMs_; }
    // The time of a frame drawn at pixels(); true when pixels() changed.
    bool update(double frameMs);

private:
    double targetMs_;
    int lowest_;
    int step_;
    std::array<double, kFrameBudgetSettleFrames> recent_{};
    int count_ = 0;  // frames in recent_, drawn at the present step
};

}  // namespace qt
