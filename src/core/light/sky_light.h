// Light from the open sky: the terrain's horizon angle towards an azimuth at every sample, over
// the lines of sun_lines.h, and from a few azimuths the share of the sky each sample sees.
#pragma once

#include <cstdint>
#include <functional>

#include "core/base/worker_pool.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"

namespace qt {

// out[row * width + col]: the elevation angle in radians of the highest terrain along the
// sample's line towards `azimuth` (degrees clockwise from north), at least 0 (beyond the map the
// horizon is level). Each line keeps the upper convex hull of the terrain passed; a sample's
// horizon is its tangent to that hull, found by bisection: O(samples log length). With
// `bandRows` > 0 the rows in bands of that many (sweepInRowBands, sun_lines.h): the same angles.
void horizonAngles(const Heightmap& map, const WorldMapping& mapping, double azimuth, float* out,
                   WorkerPool* pool = nullptr, int bandRows = 0);

// The same angles by marching from every sample along its line: for tests.
void horizonAnglesReference(const Heightmap& map, const WorldMapping& mapping, double azimuth,
                            float* out);

// The share of the sky seen from each sample, from `azimuths` horizons 360 / azimuths degrees
// apart starting at north: the mean over them of 1 - sin(horizon), the sky's solid angle above
// the horizon in each azimuth's wedge; 255 for open sky. Each azimuth's sweep adds its angles
// straight into the sum: 4 bytes a sample while it runs.
void skyFraction(const Heightmap& map, const WorldMapping& mapping, int azimuths, uint8_t* out,
                 WorkerPool* pool = nullptr);
// The same with the caller's 4 bytes a sample for the sum, `open` (a scratch file for a map
// larger than memory), and with `bandRows` > 0 each azimuth's sweep in bands of the map's rows
// (sweepInRowBands, sun_lines.h): `done` is told of rows [first, end) after each band, once no
// later step of that azimuth reads them, `final` for the last azimuth's, whose bytes are then
// written. The hulls held at once are those of the lines begun and not yet ended.
using SkyRowsDone = std::function<void(int first, int end, bool final)>;
void skyFraction(const Heightmap& map, const WorldMapping& mapping, int azimuths, uint8_t* out,
                 WorkerPool* pool, float* open, int bandRows, const SkyRowsDone& done);

// The byte skyFraction stores for the summed 1 - sin(horizon) of `azimuths` azimuths.
inline uint8_t skyByte(double openSum, int azimuths) {
    return uint8_t(255.0 * openSum / azimuths + 0.5);
}

}  // namespace qt
