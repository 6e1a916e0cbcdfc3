// How a frame's instances split into terrain draw calls: one draw, or on a driver whose queued
// triangles take host memory, bounded batches of which the renderer lets a bounded number queue.
#pragma once

#include <algorithm>
#include <cstdint>

namespace qt {

// Most batches a frame's instances make, whatever the view: the renderer sizes the batches for
// all of them (instancesPerDraw) and draws its runs of alike instances apart, each run's last
// batch partial, so a frame takes at most kMaxTerrainDraws + kMaxTerrainRuns - 1 draw calls.
constexpr int kMaxTerrainDraws = 16;
// Runs of alike instances a frame draws: those over no hole and those over holes, each split by
// the program its nodes take (qt::programKey: part way through a morph or not, taking finer
// normals or not).
constexpr int kMaxTerrainRuns = 8;
// Triangles a batch aims at when draws are synchronised: llvmpipe bins about 190 bytes a
// triangle, so a batch's binned triangles fit one of its 36 MiB scenes.
constexpr uint64_t kTrianglesPerBatch = 131072;

// Most triangles the driver may hold queued at once when draws are synchronised: about 150 MB of
// llvmpipe scenes, two batches of up to 393,216 triangles, so that frames of up to about 6.3
// million triangles (16 such batches) still overlap binning and rasterising.
constexpr uint64_t kQueuedTriangles = 6 * kTrianglesPerBatch;

// Instances per draw call for `instances` instances of `trianglesPerInstance` triangles each:
// all of them when draws are not synchronised; otherwise about kTrianglesPerBatch triangles a
// draw, but never more than kMaxTerrainDraws draws. At least 1.
inline uint32_t instancesPerDraw(uint32_t instances, uint32_t trianglesPerInstance,
                                 bool synchronised) {
    if (!synchronised || instances == 0) {
        return std::max<uint32_t>(instances, 1);
    }
    const uint64_t byTriangles =
        std::max<uint64_t>(kTrianglesPerBatch / std::max<uint32_t>(trianglesPerInstance, 1), 1);
    const uint64_t byDraws = (uint64_t(instances) + kMaxTerrainDraws - 1) / kMaxTerrainDraws;
    return uint32_t(std::min<uint64_t>(std::max(byTriangles, byDraws), instances));
}

// Batches of perDraw instances the renderer queues before it waits for the oldest: two when two
// fit in kQueuedTriangles, so that llvmpipe bins one while it rasterises the other, else one.
// On the 4097 flight, whose batches the draw limit makes 145,000 to 360,000 triangles, one at a
// time costs 1.25x to 1.4x and two about nothing; more than two overlap no further and only hold
// more memory (docs/design/render.md, synchronised batches).
inline int batchesInFlight(uint32_t perDraw, uint32_t trianglesPerInstance) {
    const uint64_t batch = uint64_t(perDraw) * trianglesPerInstance;
    return 2 * batch <= kQueuedTriangles ? 2 : 1;
}

// Draw calls that instancesPerDraw's batches make.
inline int drawCount(uint32_t instances, uint32_t perDraw) {
    return instances == 0 ? 0 : int((uint64_t(instances) + perDraw - 1) / perDraw);
}

}  // namespace qt
