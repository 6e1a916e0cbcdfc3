// Movement keys' held time per step, from event timestamps rather than the state at each frame.
#include "app/move_keys.h"

#include <algorithm>

#include "core/config.h"

namespace qt {

void MoveKeys::press(Move m, double t) {
    const size_t i = size_t(m);
    if (!started_) {
        restart(t);
    }
    if (down_[i]++ == 0) {
        since_[i] = std::max(t, stepStart_);
        pressedAt_[i] = t;
    }
}

void MoveKeys::release(Move m, double t) {
    const size_t i = size_t(m);
    if (down_[i] == 0) {
        return;  // pressed before the window saw it
    }
    if (--down_[i] == 0) {
        const double held = std::max(std::max(t, stepStart_) - since_[i], 0.0);
        heldSoFar_[i] += t <= pressedAt_[i] ? kTapSeconds : held;
    }
}

MoveStep MoveKeys::step(double now) {
    MoveStep s;
    if (!started_) {
        restart(now);
        return s;
    }
    now = std::max(now, stepStart_);
    s.seconds = now - stepStart_;
    for (size_t i = 0; i < size_t(kMoveCount); ++i) {
        s.held[i] = heldSoFar_[i] + (down_[i] > 0 ? now - since_[i] : 0.0);
        heldSoFar_[i] = 0.0;
        since_[i] = now;
    }
    if (s.seconds > kMaxCameraStepSeconds) {
        const double scale = kMaxCameraStepSeconds / s.seconds;
        for (double& held : s.held) {
            held *= scale;
        }
        s.seconds = kMaxCameraStepSeconds;
    }
    stepStart_ = now;
    return s;
}

void MoveKeys::restart(double now) {
    started_ = true;
    stepStart_ = now;
    since_.fill(now);
    heldSoFar_.fill(0.0);
}

void MoveKeys::releaseAll(double now) {
    for (size_t i = 0; i < size_t(kMoveCount); ++i) {
        if (down_[i] > 0) {
            down_[i] = 0;
            heldSoFar_[i] += std::max(std::max(now, stepStart_) - since_[i], 0.0);
        }
    }
}

glm::vec3 displacement(const MoveStep& step, const Camera& camera, float speed) {
    const glm::vec3 held = camera.forward() * float(step.of(Move::Forward) - step.of(Move::Back)) +
                           camera.right() * float(step.of(Move::Right) - step.of(Move::Left)) +
                           glm::vec3(0.0f, float(step.of(Move::Up) - step.of(Move::Down)), 0.0f);
    const double fastShare = step.seconds > 0.0 ? step.of(Move::Fast) / step.seconds : 0.0;
    return held * speed * (1.0f + (kFastFactor - 1.0f) * float(std::min(fastShare, 1.0)));
}

bool MoveKeys::anyDown() const {
    return std::any_of(down_.begin(), down_.end(), [](int n) { return n > 0; });
}

}  // namespace qt
