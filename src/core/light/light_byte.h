// The renderer's light in one byte a sample (qt::TerrainGpu::shadows): the share of the Sun's
// disc a sample sees, in the bands' levels of computeSunlight, and the share of the sky it sees
// (skyFraction), in kLightSkyLevels levels: byte = sun level * kLightSkyLevels + sky level.
// shaders/terrain.vert and objects.vert decode it.
#pragma once

#include <cstdint>

namespace qt {

constexpr int kLightBands = 4;       // the Sun's disc in 4 bands: 5 levels of sunlight
constexpr int kLightSkyLevels = 51;  // the sky seen, 0 to 50 fiftieths
static_assert((kLightBands + 1) * kLightSkyLevels <= 256, "two levels in one byte");

// The byte for `sunlit` (computeSunlight's, kLightBands bands: 0, 64, 128, 191 or 255) and `sky`
// (skyFraction's: 0 none to 255 open).
constexpr uint8_t lightByte(uint8_t sunlit, uint8_t sky) {
    const int sunLevel = (int(sunlit) * kLightBands + 127) / 255;
    const int skyLevel = (int(sky) * (kLightSkyLevels - 1) + 127) / 255;
    return uint8_t(sunLevel * kLightSkyLevels + skyLevel);
}

// Its two shares, each 0 to 1.
constexpr float lightSun(uint8_t byte) {
    return float(byte / kLightSkyLevels) / float(kLightBands);
}
constexpr float lightSky(uint8_t byte) {
    return float(byte % kLightSkyLevels) / float(kLightSkyLevels - 1);
}

}  // namespace qt
