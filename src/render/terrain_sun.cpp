// A given Sun on a loaded terrain: shadows requested, taken and uploaded at frame boundaries.
#include "render/terrain_sun.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "core/io/memory_budget.h"

namespace qt {
namespace {

// Threads computing the shadows: all cores but the frame's, at least one.
int shadowThreads() {
    const int cores = int(std::thread::hardware_concurrency());
    return std::clamp(cores - 1, 1, 8);
}

// A map whose codes are mapped from a file streams: its shadows would page it in whole.
bool shadowsPossible(const Terrain& terrain) {
    return !terrain.map.codes.isMapped();
}

}  // namespace

void setTerrainSun(Terrain& terrain, TerrainRenderer& renderer, std::optional<SunDirection> sun,
                   bool wait, uint64_t budgetBytes) {
    if (!sun) {
        renderer.sun.reset();
        return;
    }
    const uint64_t samples = uint64_t(terrain.map.sampleCount());
    terrain.shadowsOverBudget =
        !terrain.sunlight && budgetBytes > 0 &&
        samples > budgetBytes / (kHeldBytesPerSample + kLightBytesPerSample);
    if (!shadowsPossible(terrain) || terrain.shadowsOverBudget) {
        renderer.sun = sun;
        return;
    }
    if (!terrain.sunlight) {
        terrain.sunlight = std::make_unique<SunlightJob>(terrain.map, terrain.mapping, kShadowBands,
                                                         shadowThreads(), kSkyLightAzimuths);
    }
    terrain.sunlight->request(*sun);
    // Until the first shadows arrive the terrain is lit from `sun` alone.
    const bool shown = terrain.gpu.shadows != 0 && !terrain.sunlight->bytes().empty();
    renderer.sun = shown ? terrain.sunlight->shownSun() : *sun;
    if (wait) {
        terrain.sunlight->waitIdle();
    }
    updateTerrainSun(terrain, renderer);
}

bool updateTerrainSun(Terrain& terrain, TerrainRenderer& renderer) {
    if (!terrain.sunlight || !terrain.sunlight->takeFinished()) {
        return false;
    }
    const std::vector<uint8_t>& bytes = terrain.sunlight->bytes();
    if (terrain.gpu.shadows == 0 && !terrain.gpu.createShadows()) {
        return false;  // shadowsOff() says why; the terrain stays lit without them
    }
    terrain.gpu.uploadShadows(bytes.data());
    if (renderer.sun) {
        renderer.sun = terrain.sunlight->shownSun();
    }
    return true;
}

void remapTerrainSun(Terrain& terrain, TerrainRenderer& renderer, std::optional<SunDirection> sun,
                     uint64_t budgetBytes) {
    terrain.sunlight.reset();
    setTerrainSun(terrain, renderer, sun, false, budgetBytes);
}

ShadowsOff shadowsOff(const Terrain& terrain, const TerrainRenderer& renderer) {
    if (!renderer.sun) {
        return ShadowsOff::None;
    }
    if (!shadowsPossible(terrain)) {
        return ShadowsOff::Streamed;
    }
    if (terrain.shadowsOverBudget) {
        return ShadowsOff::OverBudget;
    }
    const bool computed = terrain.sunlight && !terrain.sunlight->bytes().empty();
    return computed && terrain.gpu.shadows == 0 ? ShadowsOff::TooLarge : ShadowsOff::None;
}

}  // namespace qt
