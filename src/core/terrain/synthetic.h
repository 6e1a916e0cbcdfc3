// Deterministic synthetic heightmaps for tests and benchmarks (no files, no randomness source).
#pragma once

#include <cstdint>

#include "core/terrain/heightmap.h"

namespace qt {

// Rolling fractal hills over 0..65535 with sharp single-sample peaks, so that a box built from
// corner samples alone would be wrong. Same seed, same map, on every machine.
Heightmap syntheticHeightmap(int width, int height, uint32_t seed = 1);

// Every sample equal to `value`: a map with zero height range.
Heightmap flatHeightmap(int width, int height, float value = 1000.0f);

}  // namespace qt
