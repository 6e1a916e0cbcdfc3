// Test helper: a heightmap with its world mapping and quadtree, for the culling tests.
#pragma once

#include <utility>

#include "core/heightmap.h"
#include "core/quadtree.h"
#include "core/terrain_grid.h"

namespace qt::test {

struct Scene {
    Heightmap map;
    WorldMapping mapping;
    Quadtree tree;

    float sizeX() const { return float(map.width - 1) * mapping.spacing; }
    float sizeZ() const { return float(map.height - 1) * mapping.spacing; }
    // World height of a sample, as the vertex shader computes it.
    double height(int col, int row) const {
        return double(
            heightTransform(map.coding, mapping).worldHeight(float(map.codeAt(col, row))));
    }
};

inline Scene makeScene(Heightmap map, WorldMapping mapping, int leafSize = 4) {
    Quadtree tree = buildQuadtree(map, leafSize).value();
    return {std::move(map), mapping, std::move(tree)};
}

}  // namespace qt::test
