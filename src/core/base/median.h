// The median of a handful of measurements, for the bench and soak summaries.
#pragma once

#include <algorithm>
#include <vector>

namespace qt {

// Middle value (mean of the two middle ones for an even count); 0 for no values.
inline double median(std::vector<double> values) {
    if (values.empty()) {
        return 0.0;
    }
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace qt
