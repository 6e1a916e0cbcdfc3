// The whole map made present by bands of rows.
#include "core/terrain/sample_presence.h"

#include <algorithm>

namespace qt {

Status ensureWholeMap(const SamplePresence& presence, int width, int height,
                      const std::atomic<bool>& stop) {
    for (int y = 0; y < height; y += kPresenceBandRows) {
        if (stop.load(std::memory_order_relaxed)) {
            return Status::failure("stopped");
        }
        const int last = std::min(y + kPresenceBandRows, height) - 1;
        if (!presence.present(0, y, width - 1, last)) {
            if (Status got = presence.ensure(0, y, width - 1, last); !got) {
                return got;
            }
        }
    }
    return {};
}

}  // namespace qt
