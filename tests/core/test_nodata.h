// Test helper: nodata marked on a map by a predicate, for the culling, picking and render tests
// of holes.
#pragma once

#include <cstdint>
#include <utility>

#include "core/terrain/heightmap.h"

namespace qt::test {

// The map with the samples isNodata(col, row) picks marked as nodata (Heightmap::nodata): holes,
// their codes left as they are, standing for the fill.
template <typename F>
Heightmap withNodata(Heightmap map, F isNodata) {
    NodataMask mask;
    mask.width = map.width;
    mask.height = map.height;
    mask.total = map.sampleCount();
    mask.bits.assign(size_t(mask.total + 63) / 64, 0);
    for (int row = 0; row < map.height; ++row) {
        for (int col = 0; col < map.width; ++col) {
            if (isNodata(col, row)) {
                const size_t i = size_t(row) * size_t(map.width) + size_t(col);
                mask.bits[i >> 6] |= uint64_t(1) << (i & 63);
                ++mask.samples;
            }
        }
    }
    if (mask.samples == 0) {
        mask.bits.clear();
    }
    map.nodata = std::move(mask);
    return map;
}

}  // namespace qt::test
