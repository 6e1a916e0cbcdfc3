// The soak run: many scripted frames of abuse, checking memory, NaNs and culling as it goes.
#pragma once

#include "app/session.h"

namespace qt {

// Flies --soak N frames: random teleports and turns, extreme heights, offscreen resizes down to
// 0x0 and back, culling and frozen-frustum toggles, good and bad reloads. Fails (exit 1, one line
// each) on a NaN in the camera or frustum, a failed good reload, a bad reload that lost the
// terrain, a culled frame differing from the unculled one at a checkpoint, or memory drift of 1% or
// more after warm-up. Memory is sampled at every checkpoint in one reference state (same target
// size, camera and frame): resident memory, and the live bytes of operator new (heap_count.h).
// Resident drift is only printed with --soak-rss-report-only: llvmpipe's rasterizer threads keep
// scene memory (64 KB blocks) whose amount depends on timing and history, so identical states
// differ by tens of MB with no trend; with LP_NUM_THREADS=0 they agree to 0.1%.
int runSoak(Session& session);

}  // namespace qt
