// The frame budget's steps: a median of the frames at the present step, compared with the target.
#include "app/frame_budget.h"

#include <algorithm>

namespace qt {

FrameBudget::FrameBudget(double targetMs, float startPixels) : targetMs_(targetMs) {
    const auto at =
        std::lower_bound(kFrameBudgetSteps.begin(), kFrameBudgetSteps.end(), startPixels);
    lowest_ = at == kFrameBudgetSteps.end() ? int(kFrameBudgetSteps.size()) - 1
                                            : int(at - kFrameBudgetSteps.begin());
    step_ = lowest_;
}

bool FrameBudget::update(double frameMs) {
    recent_[std::size_t(count_++)] = frameMs;
    if (count_ < kFrameBudgetSettleFrames) {
        return false;
    }
    count_ = 0;
    std::array<double, kFrameBudgetSettleFrames> sorted = recent_;
    std::nth_element(sorted.begin(), sorted.begin() + kFrameBudgetSettleFrames / 2, sorted.end());
    const double median = sorted[kFrameBudgetSettleFrames / 2];
    const int last = int(kFrameBudgetSteps.size()) - 1;
    if (median > targetMs_ && step_ < last) {
        ++step_;
        return true;
    }
    if (step_ > lowest_) {
        const double ratio = double(pixels()) / double(kFrameBudgetSteps[std::size_t(step_ - 1)]);
        if (median * ratio * ratio <= kFrameBudgetFinerShare * targetMs_) {
            --step_;
            return true;
        }
    }
    return false;
}

}  // namespace qt
