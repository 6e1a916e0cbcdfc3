// Exact cast shadows of a heightmap under the Sun, with the soft edge of the Sun's disc: one byte
// per sample, computed by sweeps along lines parallel to the Sun's direction (the terrain model
// they are exact for: sun_lines.h).
#pragma once

#include <cstdint>

#include "core/base/worker_pool.h"
#include "core/light/sun_lines.h"
#include "core/light/sun_position.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"

namespace qt {

// Writes out[row * width + col] for every sample: the share of the Sun's disc above the terrain
// seen from it, from `bands` strips of equal area (1: the disc's centre only, a hard shadow),
// 0 in full shadow and 255 fully lit. Each line keeps, per band, the greatest key of the terrain
// passed (everything between the sample and the Sun along its line), so a sample costs one
// comparison per band: O(samples * bands) in all, and 8 bytes a line per band besides `out`.
// The lines are shared among the pool's threads. With `bandRows` > 0 the map's rows are taken in
// bands of that many, `done` told of each band's rows once they are final and no longer read
// (sweepInRowBands): the same bytes, with the memory a band touches bounded for a map larger
// than memory.
void computeSunlight(const Heightmap& map, const WorldMapping& mapping, SunDirection sun, int bands,
                     uint8_t* out, WorkerPool* pool = nullptr, int bandRows = 0,
                     const RowsDone& done = {});

// The same bytes by marching from every sample towards the Sun: O(samples * length) for tests.
void sunlightReference(const Heightmap& map, const WorldMapping& mapping, SunDirection sun,
                       int bands, uint8_t* out);

}  // namespace qt
