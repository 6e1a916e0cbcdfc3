// Deterministic synthetic heightmaps: value-noise octaves plus isolated spikes.
#include "core/terrain/synthetic.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace qt {
namespace {

uint32_t hash(uint32_t x, uint32_t y, uint32_t seed) {
    uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return h;
}

float lattice(int x, int y, uint32_t seed) {
    return float(hash(uint32_t(x), uint32_t(y), seed) & 0xFFFF) / 65535.0f;
}

float smooth(float t) {
    return t * t * (3.0f - 2.0f * t);
}

float valueNoise(float x, float y, uint32_t seed) {
    const int x0 = int(std::floor(x));
    const int y0 = int(std::floor(y));
    const float fx = smooth(x - float(x0));
    const float fy = smooth(y - float(y0));
    const float a =
        lattice(x0, y0, seed) + (lattice(x0 + 1, y0, seed) - lattice(x0, y0, seed)) * fx;
    const float b = lattice(x0, y0 + 1, seed) +
                    (lattice(x0 + 1, y0 + 1, seed) - lattice(x0, y0 + 1, seed)) * fx;
    return a + (b - a) * fy;
}

}  // namespace

Heightmap syntheticHeightmap(int width, int height, uint32_t seed) {
    std::vector<float> samples(size_t(width) * size_t(height));
    for (int row = 0; row < height; ++row) {
        for (int col = 0; col < width; ++col) {
            float sum = 0.0f;
            float amplitude = 0.5f;
            float frequency = 1.0f / 96.0f;
            for (int octave = 0; octave < 5; ++octave) {
                sum += amplitude * valueNoise(float(col) * frequency, float(row) * frequency,
                                              seed + uint32_t(octave));
                amplitude *= 0.5f;
                frequency *= 2.0f;
            }
            float value = std::clamp(sum, 0.0f, 1.0f) * 50000.0f;
            // One sample in about 500 is a spike well above its neighbours.
            if (hash(uint32_t(col), uint32_t(row), seed ^ 0x9e3779b9u) % 509 == 0) {
                value = std::min(value + 15000.0f, 65535.0f);
            }
            samples[size_t(row) * size_t(width) + size_t(col)] = std::round(value);
        }
    }
    Result<Heightmap> map = makeHeightmap(width, height, std::move(samples));
    assert(map.ok());
    return std::move(map).value();
}

Heightmap flatHeightmap(int width, int height, float value) {
    Result<Heightmap> map =
        makeHeightmap(width, height, std::vector<float>(size_t(width) * size_t(height), value));
    assert(map.ok());
    return std::move(map).value();
}

}  // namespace qt
