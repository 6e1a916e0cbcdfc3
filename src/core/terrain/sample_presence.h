// Which samples of a map are present, for a map whose codes arrive as they are asked for (a
// layout streamed by tiles, core/streaming/layout_tiles.h): readers of a sample under a point
// (the ground under the eye, picking) tell a sample not yet present from a height, and readers of
// the whole map (the light's sweeps) ask for every sample first. A map held whole has none.
#pragma once

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

}  // namespace qt
