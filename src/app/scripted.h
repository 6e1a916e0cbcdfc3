// Runs without user input: --screenshot, --stats-json, --cull-map (one frame) and --bench.
#pragma once

#include "app/session.h"

namespace qt {

// Renders max(--frames, 1) frames offscreen at --window size, then writes every requested file.
// Returns the exit status; errors are one line on stderr.
int runOneShot(Session& session);

// Flies flightPath() culled, then unculled; one CSV row per frame and a summary on stdout.
int runBench(Session& session);

}  // namespace qt
