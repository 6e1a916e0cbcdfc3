// Test helper: nodata marked on a map by a predicate, for the culling, picking and render tests
// of holes.
#pragma once

#include <cstdint>
#include <vector>

#include "core/terrain/heightmap.h"

namespace qt::test {

// The map with the samples isNodata(col, row) picks marked as nodata (Heightmap::nodata): holes,
// their codes left as they are, standing for the fill.
template <typename F>
Heightmap withNodata(Heightmap map, F isNodata) {
    std::vector<float> marks(size_t(map.sampleCount()), 0.0f);
    for (int row = 0; row < map.height; ++row) {
        for (int col = 0; col < map.width; ++col) {
            if (isNodata(col, row)) {
                marks[size_t(row) * size_t(map.width) + size_t(col)] = 1.0f;
            }
        }
    }
    map.nodata = markNodata(marks.data(), map.width, map.height, 1.0f);
    return map;
}

}  // namespace qt::test
