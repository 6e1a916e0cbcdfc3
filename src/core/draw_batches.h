// How a frame's instances split into terrain draw calls: one draw, or on a driver whose queued
// triangles take host memory, bounded batches of which the renderer lets a bounded number queue.
#pragma once

#include <algorithm>
#include <cstdint>

namespace qt {

// Most terrain draw calls in a frame, whatever the view.
constexpr int kMaxTerrainDraws = 16;
// Triangles a batch aims at when draws are synchronised: llvmpipe bins about 190 bytes a
// triangle, so a batch's binned triangles fit one of its 36 MiB scenes.
constexpr uint64_t kTrianglesPerBatch = 131072;

// Triangles the driver may hold queued at once when draws are synchronised: four batches' worth,
// about 100 MB of llvmpipe scenes. Two queued batches or more let it bin one while it rasterises
// another; one at a time cost the 4097 flight 1.25x to 1.4x, four 1.15x.
constexpr uint64_t kQueuedTriangles = 4 * kTrianglesPerBatch;

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

// Batches of perDraw instances the renderer queues before it waits for the oldest: as many as
// kQueuedTriangles holds, and at least one. A batch that the draw limit makes larger than half
// the queue goes alone.
inline int batchesInFlight(uint32_t perDraw, uint32_t trianglesPerInstance) {
    const uint64_t batch = std::max<uint64_t>(uint64_t(perDraw) * trianglesPerInstance, 1);
    return int(std::min<uint64_t>(std::max<uint64_t>(kQueuedTriangles / batch, 1),
                                  uint64_t(kMaxTerrainDraws)));
}

// Draw calls that instancesPerDraw's batches make.
inline int drawCount(uint32_t instances, uint32_t perDraw) {
    return instances == 0 ? 0 : int((uint64_t(instances) + perDraw - 1) / perDraw);
}

}  // namespace qt
