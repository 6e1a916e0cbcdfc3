// Refusing a map over the memory budget from its size alone.
#include "core/memory_budget.h"

#include <string>

namespace qt {

uint64_t loadPeakBytes(int64_t width, int64_t height, uint64_t bytesPerSample) {
    return uint64_t(width) * uint64_t(height) * bytesPerSample;
}

Status checkMemoryBudget(int64_t width, int64_t height, uint64_t bytesPerSample,
                         uint64_t budgetBytes) {
    const uint64_t estimate = loadPeakBytes(width, height, bytesPerSample);
    if (budgetBytes == 0 || estimate <= budgetBytes) {
        return {};
    }
    constexpr uint64_t kMiB = uint64_t(1) << 20;
    return Status::failure(
        "size " + std::to_string(width) + "x" + std::to_string(height) + " needs about " +
        std::to_string((estimate + kMiB - 1) / kMiB) + " MiB loaded (" +
        std::to_string(bytesPerSample) + " bytes a sample), over the memory budget of " +
        std::to_string(budgetBytes / kMiB) + " MiB (raise it with --memory-budget MB)");
}

}  // namespace qt
