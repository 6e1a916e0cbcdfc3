// A given Sun on a terrain: its cast shadows computed off the frame's thread
// (core/light/sunlight_job.h) and uploaded to the terrain's light texture (a streamed map's
// light pages) at frame boundaries, the renderer lit from the Sun of the shadows shown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/light/light_byte.h"
#include "core/light/sun_position.h"
#include "render/terrain.h"
#include "render/terrain_renderer.h"

namespace qt {

// Bands of the Sun's disc the shadows are computed with: a soft edge of four steps, packed with
// the sky fraction into one byte a sample (core/light/light_byte.h).
constexpr int kShadowBands = kLightBands;
// Azimuths the sky fraction is taken over, 45 degrees apart.
constexpr int kSkyLightAzimuths = 8;

// Why a terrain lit by a Sun shows no cast shadows.
enum class ShadowsOff {
    None,        // shadows shown (or being computed), or no Sun
    NoScratch,   // a streamed map's light cannot have its scratch files (Terrain::shadowsProblem)
    TooLarge,    // wider than the GPU's largest texture, or no GPU memory left for a byte a sample
    OverBudget,  // the map and its light's bytes would pass the memory budget
};

// Peak bytes a sample of a Sun's light (SunlightJob): the bytes shown, finished and being computed
// (3), the sky's fraction (1, and 4 more while it is computed), the GPU's copy (1, host memory
// on a software rasteriser) and the new shadows on their way to it (1, the driver's).
constexpr uint64_t kLightBytesPerSample = 10;
// The most of new shadows' bytes a frame copies on their way to the GPU (updateTerrainSun): 4 MiB,
// under a millisecond of copying, so that a new Sun's shadows reach a 4097^2 map in five frames
// and no frame stalls on a whole map's light.
constexpr size_t kShadowSliceBytes = size_t(4) << 20;

// Lights `terrain` by `sun`, none: the fixed light. Starts its shadows' job at the first Sun
// (kept while the terrain lives) and asks for `sun`'s shadows; the terrain is lit from the Sun of
// the shadows shown, the ones before until the new ones are uploaded. A map held whole keeps its
// light's bytes in memory and on the GPU as one texture; one whose held bytes
// (kHeldBytesPerSample) and light's (kLightBytesPerSample) would pass `budgetBytes` (0: none) is
// lit from `sun` without shadows. A streamed map keeps its light's bytes in unnamed scratch files
// in `scratchDir` ("": scratchFolder()) and on the GPU as pages beside its height pages
// (TerrainGpu::lightPages, half their bytes), left out when those would pass the budget beside
// the map's own (streamedPeakBytes) or the files cannot be made (one line on stderr).
// `wait`: blocks until the shadows are computed and uploads them (scripted frames: the same
// picture however fast the machine).
void setTerrainSun(Terrain& terrain, TerrainRenderer& renderer, std::optional<SunDirection> sun,
                   bool wait, uint64_t budgetBytes = 0, const std::string& scratchDir = "");
// At a frame boundary: uploads the shadows the job finished since the last call (no
// reallocation after the first) and lights the terrain from their Sun, while a Sun is given.
// A map held whole gets them `sliceBytes` a call (TerrainGpu::continueShadowUpload), the
// shadows before and their Sun shown until the last slice is copied. True when new shadows
// went to the GPU.
bool updateTerrainSun(Terrain& terrain, TerrainRenderer& renderer,
                      size_t sliceBytes = kShadowSliceBytes);
// After the terrain's mapping changed (heights scaled): its shadows' job is made anew, for the
// new heights, and asked for `sun` when one is given.
void remapTerrainSun(Terrain& terrain, TerrainRenderer& renderer, std::optional<SunDirection> sun,
                     uint64_t budgetBytes = 0, const std::string& scratchDir = "");
ShadowsOff shadowsOff(const Terrain& terrain, const TerrainRenderer& renderer);

}  // namespace qt
