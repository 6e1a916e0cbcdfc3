// Refusing a map over the memory budget from its size alone.
#include "core/io/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <string>

namespace qt {

uint64_t loadPeakBytes(int64_t width, int64_t height, uint64_t bytesPerSample) {
    return uint64_t(width) * uint64_t(height) * bytesPerSample;
}

Status checkMemoryBudget(int64_t width, int64_t height, uint64_t bytesPerSample,
                         const MemoryBudget& budget) {
    const uint64_t estimate = loadPeakBytes(width, height, bytesPerSample);
    const uint64_t held = std::min(budget.heldBytes, budget.limitBytes);
    if (budget.limitBytes == 0 || estimate <= budget.limitBytes - held) {
        return {};
    }
    constexpr uint64_t kMiB = uint64_t(1) << 20;
    const auto mib = [&](uint64_t bytes) { return std::to_string((bytes + kMiB - 1) / kMiB); };
    return Status::failure("size " + std::to_string(width) + "x" + std::to_string(height) +
                           " needs about " + mib(estimate) + " MiB loaded (" +
                           std::to_string(bytesPerSample) + " bytes a sample), over the memory " +
                           "budget of " + std::to_string(budget.limitBytes / kMiB) + " MiB" +
                           (held > 0 ? " with " + mib(held) + " MiB held by the current map" : "") +
                           " (raise it with --memory-budget MB)");
}

uint64_t physicalMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : UINT64_MAX;
}

uint64_t defaultMemoryBudgetBytes(uint64_t physicalBytes) {
    return physicalBytes == UINT64_MAX ? 0 : uint64_t(kDefaultMemoryShare * double(physicalBytes));
}

}  // namespace qt
