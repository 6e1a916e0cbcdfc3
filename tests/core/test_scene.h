// Test helper: a heightmap with its world mapping and quadtree, for the culling tests.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <glm/gtc/constants.hpp>
#include <glm/trigonometric.hpp>

#include "core/config.h"
#include "core/io/load.h"
#include "core/lod/lod_error.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/synthetic.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "test_files.h"
#include "test_nodata.h"

namespace qt::test {

struct Scene {
    Heightmap map;
    WorldMapping mapping;
    Quadtree tree;

    float sizeX() const { return worldExtent(map, mapping).sizeX; }
    float sizeZ() const { return worldExtent(map, mapping).sizeZ; }
    // World height of a sample, as the vertex shader computes it.
    double height(int col, int row) const {
        return double(
            heightTransform(map.coding, mapping).worldHeight(float(map.codeAt(col, row))));
    }
};

// Synthetic maps for the exhaustive camera tests: square and not, every leaf size's border cases,
// spacings and height scales of either sign, cells square and not (a geographic raster's
// east-west spacing is a fraction of its north-south one; projected pixels may be rectangles).
struct SyntheticCase {
    int width, height, leaf;
    WorldMapping mapping;
};

inline constexpr SyntheticCase kSyntheticCases[] = {
    {257, 257, 4, {1.0f, 0.01f, 0.0f}},           {203, 141, 4, {2.0f, 0.02f, -50.0f}},
    {129, 300, 8, {0.5f, 0.005f, 10.0f}},         {65, 65, 2, {1.0f, 0.1f, 0.0f}},
    {300, 77, 16, {3.0f, -0.01f, 0.0f}},          {513, 513, 64, {1.0f, 0.003f, 0.0f}},
    {203, 141, 4, {0.676f, 1.0f, 0.02f, -50.0f}}, {129, 300, 8, {2.5f, 0.4f, 0.005f, 10.0f}},
};

inline Scene makeScene(Heightmap map, WorldMapping mapping, int leafSize = 4) {
    Quadtree tree = buildQuadtreeExact(map, leafSize).value();
    return {std::move(map), mapping, std::move(tree)};
}

// Calls f(scene, name, index) for each of `names` found in the shared heightmaps, with its default
// mapping and leaves of 4; index counts the maps found. Returns how many were found.
template <typename F>
int forEachSharedScene(std::initializer_list<const char*> names, F f) {
    int found = 0;
    for (const char* name : names) {
        const std::string path = sharedHeightmap(name);
        if (path.empty()) {
            continue;
        }
        Heightmap map = loadHeightmap(path).value();
        const WorldMapping mapping = defaultMapping(map);
        f(makeScene(std::move(map), mapping, 4), std::string(name), found++);
    }
    return found;
}

// Anywhere from half a map beyond its sides to twice its relief above it, looking anywhere
// (straight up and down included), with fields of view from 3 to 150 degrees and any aspect.
inline Camera anyCamera(const Scene& s, Random& rng) {
    const WorldExtent e = worldExtent(s.map, s.mapping);
    const float sizeX = e.sizeX, sizeZ = e.sizeZ, y0 = e.minY, y1 = e.maxY;
    const float relief = std::max(y1 - y0, 1.0f);
    const float extent = std::max({sizeX, sizeZ, relief});
    Camera c;
    c.position = {rng.uniform(-0.5f * sizeX, 1.5f * sizeX),
                  rng.uniform(y0 - 0.3f * relief, y1 + 2.0f * relief),
                  rng.uniform(-0.5f * sizeZ, 1.5f * sizeZ)};
    c.yaw = rng.uniform(-glm::pi<float>(), glm::pi<float>());
    switch (rng.below(8)) {
        case 0:
            c.pitch = -glm::half_pi<float>();
            break;  // straight down
        case 1:
            c.pitch = glm::half_pi<float>();
            break;  // straight up
        default:
            c.pitch = rng.uniform(-glm::half_pi<float>(), glm::half_pi<float>());
    }
    c.fovY = glm::radians(rng.uniform(3.0f, 150.0f));
    c.aspect = rng.uniform(0.3f, 3.0f);
    c.nearPlane = extent * rng.uniform(1e-5f, 1e-2f);
    c.farPlane = extent * rng.uniform(0.05f, 3.0f);
    return c;
}

// Maps kMaxSide samples wide (in leaves of 2: the deepest tree) and long (leaves of 4), whose far
// nodes end at sample 65536, one past what a node's 16-bit fields hold; with their names.
inline std::vector<std::pair<Scene, std::string>> longestSideScenes(uint32_t seed) {
    std::vector<std::pair<Scene, std::string>> scenes;
    scenes.emplace_back(makeScene(syntheticHeightmap(kMaxSide, 17, seed), {1.0f, 0.01f, 0.0f}, 2),
                        std::to_string(kMaxSide) + "x17");
    scenes.emplace_back(
        makeScene(syntheticHeightmap(9, kMaxSide, seed + 1), {0.5f, 0.004f, 3.0f}, 4),
        "9x" + std::to_string(kMaxSide));
    return scenes;
}

// A camera as anyCamera's, its eye moved within `reach` world units of the map's far corner (its
// last column and row, the largest sample coordinates) and at most 10% of reach beyond it.
inline Camera cameraNearTheFarCorner(const Scene& s, Random& rng, float reach) {
    Camera c = anyCamera(s, rng);
    const WorldExtent e = worldExtent(s.map, s.mapping);
    c.position.x = std::max(e.sizeX - rng.uniform(-0.1f, 1.0f) * reach, -0.5f * e.sizeX);
    c.position.z = std::max(e.sizeZ - rng.uniform(-0.1f, 1.0f) * reach, -0.5f * e.sizeZ);
    return c;
}

}  // namespace qt::test
