// The soak run: many scripted frames of abuse, checking memory, NaNs and culling as it goes.
#pragma once

#include "app/session.h"

namespace qt {

// Flies --soak N frames: random teleports and turns, extreme heights, offscreen resizes down to
// 0x0 and back, culling and frozen-frustum toggles, good and bad reloads. Fails (exit 1, one line
// each) on a NaN in the camera or frustum, a failed good reload, a bad reload that lost the
// terrain, or a culled frame differing from the unculled one at a checkpoint. Resident memory is
// reported, not judged: on Mesa llvmpipe the driver's own heap (80 of 91 MB peak in heaptrack,
// against 0.5 MB of quadterrain's) swings by tens of MB from frame to frame.
int runSoak(Session& session);

}  // namespace qt
