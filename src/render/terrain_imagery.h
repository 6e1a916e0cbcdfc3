// Imagery on a loaded terrain: opened over its map (core/io/imagery.h) on a thread of its own, then
// put on the GPU (render/imagery_gpu.h) at a frame boundary in place of the imagery it had, its
// pages streamed as the frames ask for them (core/streaming/imagery_streamer.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/io/imagery.h"
#include "render/terrain.h"

namespace qt {

// The GPU bytes an imagery's pool of pages may take: 1,422 pages of 520^2 texels, a 16385^2
// image's whole pyramid (four texels a sample over a 4097^2 map), so that such imagery is read
// once however the eye moves; larger imagery streams through it.
constexpr uint64_t kImageryBytes = uint64_t(3) << 29;

// How a load of imagery ended: its path, its one-line error (the terrain keeps what it had), and
// what it said without failing (placement, density lowered, 16-bit stretched, no coverage),
// each line naming the file.
struct ImageryOutcome {
    std::string path;
    Status status;
    std::vector<std::string> warnings;
};

// Starts opening `path` over `terrain` on a thread of its own, its pool of pages within `maxBytes`
// on the GPU, stored as `compression` says; the terrain draws what it has until
// finishTerrainImagery takes the result. Asked while a load runs, `path` is loaded after it (the
// latest ask only).
void startTerrainImagery(Terrain& terrain, const std::string& path,
                         uint64_t maxBytes = kImageryBytes,
                         ImageryCompression compression = ImageryCompression::None);
// At a frame boundary: when a load has finished (or, with `wait`, once it has), puts its imagery
// in place of the terrain's and returns how it ended; imagery that covers none of the map leaves
// the terrain without imagery. Nothing when no load finished.
std::optional<ImageryOutcome> finishTerrainImagery(Terrain& terrain, bool wait);
// Puts opened imagery on the terrain in place of what it had, in a pool of `layers` GPU layers
// (imageryPoolLayers) of pages stored as `compression` says, and starts streaming its pages. Fails
// with one line when the GPU refuses the pool, leaving the terrain's imagery as it was.
Status setTerrainImagery(Terrain& terrain, OpenedImagery opened, int layers,
                         ImageryCompression compression = ImageryCompression::None);
// Drops the terrain's imagery (not a load under way): its own colours again.
void clearTerrainImagery(Terrain& terrain);

}  // namespace qt
