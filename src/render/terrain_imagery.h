// Imagery on a loaded terrain: read and resampled over its map (core/io/imagery.h) on a thread of
// its own, then put on the GPU (render/imagery_gpu.h) at a frame boundary in place of the imagery
// it had.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/io/imagery.h"
#include "render/terrain.h"

namespace qt {

// RGBA8 texels an imagery load may take in memory and on the GPU (the mips a third more):
// 16384^2, the density of four texels a sample over a 4097^2 map.
constexpr uint64_t kImageryBytes = uint64_t(1) << 30;

// How a load of imagery ended: its path, its one-line error (the terrain keeps what it had), and
// what it said without failing (placement, density lowered, 16-bit stretched, no coverage),
// each line naming the file.
struct ImageryOutcome {
    std::string path;
    Status status;
    std::vector<std::string> warnings;
};

// Starts loading `path` over `terrain` on a thread of its own, within `maxBytes` of texels and
// the GPU's largest texture (asked here, on the GL thread); the terrain draws what it has until
// finishTerrainImagery takes the result. Asked while a load runs, `path` is loaded after it
// (the latest ask only).
void startTerrainImagery(Terrain& terrain, const std::string& path,
                         uint64_t maxBytes = kImageryBytes);
// At a frame boundary: when a load has finished (or, with `wait`, once it has), uploads its
// imagery in place of the terrain's and returns how it ended; imagery that covers none of the
// map leaves the terrain without imagery. Nothing when no load finished.
std::optional<ImageryOutcome> finishTerrainImagery(Terrain& terrain, bool wait);
// Drops the terrain's imagery (not a load under way): its own colours again.
void clearTerrainImagery(Terrain& terrain);

}  // namespace qt
