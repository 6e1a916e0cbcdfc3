// Runs without user input: --screenshot, --stats-json, --cull-map (one frame) and --bench.
#pragma once

#include "app/session.h"
#include "render/framebuffer.h"

namespace qt {

// How a frame culls in the scripted runs.
enum class CullMode { FrustumAndOcclusion, FrustumOnly, None };

// How the renderer draws a frame: as set up, in one draw without synchronised batches, or
// drawing back faces.
enum class DrawVariant { AsSetUp, OneDraw, TwoSided };

// Draws one frame into `target` and waits for the GPU, so frameMs is the real frame time;
// lodPixels > 0 draws by level of detail.
FrameStats renderFrame(Session& s, const Framebuffer& target, const Camera& camera, CullMode mode,
                       float lodPixels, DrawVariant variant = DrawVariant::AsSetUp);

// Renders max(--frames, 1) frames offscreen at --window size, then writes every requested file.
// Returns the exit status; errors are one line on stderr.
int runOneShot(Session& session);

// Flies flightPath() in every mode, interleaved (app/bench_flight.cpp); one CSV row per frame and
// a summary on stdout.
int runBench(Session& session);

}  // namespace qt
