// The heightmap type: its size limits, its code range, and maps made from samples in memory.
#include "core/terrain/heightmap.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/config.h"
#include "core/terrain/quantise.h"

namespace qt {

void setCodeRange(Heightmap& map, uint16_t lo, uint16_t hi) {
    map.minCode = lo;
    map.maxCode = hi;
    map.minSample = map.coding.sample(lo);
    map.maxSample = map.coding.sample(hi);
}

void findCodeRange(Heightmap& map) {
    const auto [lo, hi] = std::minmax_element(map.codes.begin(), map.codes.end());
    setCodeRange(map, *lo, *hi);
}

Heightmap blankHeightmap(int width, int height, HeightmapFormat format) {
    Heightmap map;
    map.width = width;
    map.height = height;
    map.format = format;
    map.codes.resize(size_t(width) * size_t(height), 0);
    return map;
}

Status checkDimensions(int64_t width, int64_t height, SizeLimit limit) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (width < 2 || height < 2) {
        return Status::failure("size " + size +
                               " is too small; a heightmap needs at least 2x2 samples");
    }
    if (width > limit.side || height > limit.side || width * height > limit.samples) {
        return Status::failure("size " + size + " is over the limit (" +
                               std::to_string(limit.side) + " samples a side, " +
                               std::to_string(limit.samples) + " samples in all)");
    }
    return {};
}

Result<Heightmap> makeHeightmap(int width, int height, const std::vector<float>& samples,
                                HeightmapFormat format) {
    if (Status problem = checkDimensions(width, height); !problem) {
        return Result<Heightmap>::failure(problem.error());
    }
    if (samples.size() != size_t(width) * size_t(height)) {
        return Result<Heightmap>::failure("sample count does not match the size");
    }
    if (!std::all_of(samples.begin(), samples.end(), [](float v) { return std::isfinite(v); })) {
        return Result<Heightmap>::failure("a sample is NaN or infinite");
    }
    if (!std::all_of(samples.begin(), samples.end(),
                     [](float v) { return std::fabs(v) <= kMaxWorldCoordinate; })) {
        return Result<Heightmap>::failure("a sample is beyond the limit for a height");
    }
    Heightmap map;
    map.width = width;
    map.height = height;
    map.format = format;
    encodeFloatSamples(map, samples.data(), samples.size());
    return map;
}

std::vector<float> heightmapSamples(const Heightmap& map) {
    std::vector<float> samples(map.codes.size());
    std::transform(map.codes.begin(), map.codes.end(), samples.begin(),
                   [&](uint16_t code) { return map.coding.sample(code); });
    return samples;
}

}  // namespace qt
