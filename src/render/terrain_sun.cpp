// A given Sun on a terrain: shadows requested, taken and uploaded at frame boundaries.
#include "render/terrain_sun.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <thread>

#include "core/io/memory_budget.h"
#include "core/streaming/cache_folder.h"
#include "core/streaming/streamed_map.h"

namespace qt {
namespace {

// Threads computing the shadows: all cores but the frame's, at least one.
int shadowThreads() {
    const int cores = int(std::thread::hardware_concurrency());
    return std::clamp(cores - 1, 1, 8);
}

// A terrain whose level 0 streams through a pool of layers takes its light as pages beside its
// heights'; one whose codes are mapped from a file (larger than memory) keeps its light's bytes
// in scratch files.
bool pagedLight(const Terrain& terrain) {
    return terrain.gpu.streamed();
}
bool lightInFiles(const Terrain& terrain) {
    return terrain.map.codes.isMapped();
}

// Whether the light's bytes would pass the budget: a map held whole holds its own and its
// light's bytes; a streamed map's light adds its pages beside the heights' (one byte a texel to
// their two) to what the map takes.
bool lightOverBudget(const Terrain& terrain, uint64_t budgetBytes) {
    if (budgetBytes == 0) {
        return false;
    }
    const uint64_t samples = uint64_t(terrain.map.sampleCount());
    if (lightInFiles(terrain)) {
        return streamedPeakBytes(terrain.map.width, terrain.map.height, terrain.tree.leafSize) +
                   terrain.gpu.pages.bytes() / 2 >
               budgetBytes;
    }
    // Paged, the light of levels 1 and up is also laid out as pages: a third of a byte a sample
    // and their borders in each of the job's three buffers.
    return samples > budgetBytes / (kHeldBytesPerSample + kLightBytesPerSample +
                                    (pagedLight(terrain) ? 1 : 0));
}

// Whether the terrain's light is on the GPU.
bool lightOnGpu(const Terrain& terrain) {
    return terrain.gpu.shadows != 0 || terrain.gpu.lightPaged();
}

}  // namespace

void setTerrainSun(Terrain& terrain, TerrainRenderer& renderer, std::optional<SunDirection> sun,
                   bool wait, uint64_t budgetBytes, const std::string& scratchDir) {
    if (!sun) {
        renderer.sun.reset();
        return;
    }
    terrain.shadowsOverBudget = !terrain.sunlight && lightOverBudget(terrain, budgetBytes);
    if (terrain.shadowsOverBudget || !terrain.shadowsProblem.empty()) {
        renderer.sun = sun;
        return;
    }
    if (!terrain.sunlight && lightInFiles(terrain)) {
        const std::string dir = scratchDir.empty() ? scratchFolder() : scratchDir;
        Result<std::unique_ptr<SunlightJob>> job = SunlightJob::inFiles(
            terrain.map, terrain.mapping, kShadowBands, shadowThreads(), kSkyLightAzimuths, dir,
            pagedLight(terrain) ? &terrain.gpu.pages : nullptr);
        if (!job) {
            terrain.shadowsProblem = "shadows off: " + job.error();
            std::fprintf(stderr, "quadterrain: %s\n", terrain.shadowsProblem.c_str());
            renderer.sun = sun;
            return;
        }
        terrain.sunlight = std::move(job).value();
    }
    if (!terrain.sunlight) {
        terrain.sunlight = std::make_unique<SunlightJob>(
            terrain.map, terrain.mapping, kShadowBands, shadowThreads(), kSkyLightAzimuths,
            pagedLight(terrain) ? &terrain.gpu.pages : nullptr);
    }
    if (const SamplePresence* presence = terrain.arriving();
        presence && !terrain.sunlight->hasShown()) {
        terrain.sunlight->ensureFirst(*presence);  // the sweeps read every sample
    }
    terrain.sunlight->request(*sun);
    // Until the first shadows arrive the terrain is lit from `sun` alone; while new ones are on
    // their way to the GPU, from the Sun of those it has.
    const bool shown = lightOnGpu(terrain) && terrain.sunlight->hasShown();
    if (!terrain.gpu.shadowUploading()) {
        renderer.sun = shown ? terrain.sunlight->shownSun() : *sun;
    }
    if (!wait) {
        updateTerrainSun(terrain, renderer);
        return;
    }
    // Whole: the upload under way, then the newest shadows.
    terrain.sunlight->waitIdle();
    while (updateTerrainSun(terrain, renderer, SIZE_MAX)) {
    }
}

namespace {

// Lights the renderer from the Sun of the shadows shown, with the sky's table made beside them.
void showJobsSun(const SunlightJob& job, TerrainRenderer& renderer) {
    if (renderer.sun) {
        renderer.sun = job.shownSun();
        renderer.skyTable.update(job.shownSun(), job.skyTexels().data());
    }
}

}  // namespace

bool updateTerrainSun(Terrain& terrain, TerrainRenderer& renderer, size_t sliceBytes) {
    if (!terrain.sunlight) {
        return false;
    }
    if (terrain.shadowsProblem.empty()) {
        if (const std::string failure = terrain.sunlight->failure(); !failure.empty()) {
            terrain.shadowsProblem = "shadows off: " + failure;
            std::fprintf(stderr, "quadterrain: %s\n", terrain.shadowsProblem.c_str());
        }
    }
    TerrainGpu& gpu = terrain.gpu;
    if (gpu.shadowUploading()) {  // the shown bytes stay until the next takeFinished
        if (!gpu.continueShadowUpload(terrain.sunlight->bytes().data(), sliceBytes)) {
            return false;
        }
        showJobsSun(*terrain.sunlight, renderer);
        return true;
    }
    if (!terrain.sunlight->takeFinished()) {
        return false;
    }
    const LightBuffer& bytes = terrain.sunlight->bytes();
    if (pagedLight(terrain)) {
        if (!gpu.lightPaged()) {
            if (!gpu.createLightPages()) {
                return false;  // shadowsOff() says why; the terrain stays lit without them
            }
            terrain.lightStaging.resize(size_t(gpu.pages.texels) * size_t(gpu.pages.texels));
        }
        gpu.uploadLightLevels(terrain.sunlight->pyramid().data());
        // The resident pooled pages; a page streamed in later takes its light with its heights
        // (uploadStreamedPages).
        const uint32_t pages = uint32_t(gpu.pages.pooledPages());
        const bool started = terrain.streamer && terrain.streamer->running();
        for (uint32_t page = 0; started && page < pages; ++page) {
            if (const int layer = terrain.streamer->layerOf(page); layer >= 0) {
                gpu.uploadLightPage(layer, page, *terrain.sunlight, terrain.lightStaging.data());
            }
        }
        bytes.dropResident();
        terrain.sunlight->pyramid().dropResident();  // in files: read again page by page
    } else {
        if (gpu.shadows == 0 && !gpu.createShadows()) {
            return false;  // shadowsOff() says why; the terrain stays lit without them
        }
        gpu.beginShadowUpload();
        if (!gpu.continueShadowUpload(bytes.data(), sliceBytes)) {
            return false;
        }
    }
    showJobsSun(*terrain.sunlight, renderer);
    return true;
}

void remapTerrainSun(Terrain& terrain, TerrainRenderer& renderer, std::optional<SunDirection> sun,
                     uint64_t budgetBytes, const std::string& scratchDir) {
    terrain.gpu.cancelShadowUpload();  // its bytes go with the job
    terrain.sunlight.reset();
    setTerrainSun(terrain, renderer, sun, false, budgetBytes, scratchDir);
}

ShadowsOff shadowsOff(const Terrain& terrain, const TerrainRenderer& renderer) {
    if (!renderer.sun) {
        return ShadowsOff::None;
    }
    if (!terrain.shadowsProblem.empty()) {
        return ShadowsOff::NoScratch;
    }
    if (terrain.shadowsOverBudget) {
        return ShadowsOff::OverBudget;
    }
    const bool computed = terrain.sunlight && terrain.sunlight->hasShown();
    return computed && !lightOnGpu(terrain) ? ShadowsOff::TooLarge : ShadowsOff::None;
}

}  // namespace qt
