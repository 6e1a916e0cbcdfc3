// Which samples of a map are present, for a map whose codes arrive as they are asked for (a
// layout streamed by tiles, core/streaming/layout_tiles.h): readers of a sample under a point
// (the ground under the eye, picking) tell a sample not yet present from a height, and readers of
// the whole map (the light's sweeps) ask for every sample first. A map held whole has none.
#pragma once

#include <atomic>
#include <functional>

#include "core/base/result.h"

namespace qt {

struct SamplePresence {
    // Whether every sample of columns [x0, x1] and rows [y0, y1] is present now. Any thread; a
    // sample once present stays so.
    std::function<bool(int x0, int y0, int x1, int y1)> present;
    // Makes them present, reading those that are not (blocking the caller); the first failure's
    // line. Any thread.
    std::function<Status(int x0, int y0, int x1, int y1)> ensure;
};

// Makes every sample of a width x height map present, kPresenceBandRows rows at a time, so that a
// reader of the whole map on a thread of its own stops within one band once `stop` is set (a new
// map, the program's end): the first failure's line, or "stopped" when it stopped first.
constexpr int kPresenceBandRows = 256;
Status ensureWholeMap(const SamplePresence& presence, int width, int height,
                      const std::atomic<bool>& stop);

}  // namespace qt
