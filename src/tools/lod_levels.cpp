// lod_levels: the level-of-detail selection along the bench path, without a GPU: triangles and
// nodes a frame at each level, to see where one map's selection differs from another's.
//
// Usage: lod_levels MAP [--lod PIXELS] [--frames N] [--height PIXELS] [--step-only]
//                       [--no-occlusion]
//
// The same cameras as `quadterrain MAP --bench --frames N` (core/view/flight_path.h), a viewport
// --height pixels high (default 720) at 16:9, the exact coarse errors. --step-only splits by the
// grid step alone (no error term); --no-occlusion keeps the full-detail nodes that nearer terrain
// hides. Prints one line for the median frame's triangles, then each level's mean triangles and
// nodes a frame (a node's strip counted whole, as LodStats counts its real squares).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/frame/frame.h"
#include "core/lod/lod.h"
#include "core/streaming/coarse_error_job.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/view/camera_fit.h"
#include "core/view/flight_path.h"
#include "core/view/frustum.h"

int main(int argc, char** argv) {
    using namespace qt;
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: lod_levels MAP [--lod PIXELS] [--frames N] [--height PIXELS] "
                     "[--step-only] [--no-occlusion]\n");
        return 2;
    }
    float pixels = 2.0f;
    int frames = 60;
    int height = 720;
    bool stepOnly = false;
    bool occlusion = true;
    for (int i = 2; i < argc; ++i) {
        const bool value = i + 1 < argc;
        if (std::strcmp(argv[i], "--lod") == 0 && value) {
            pixels = float(std::atof(argv[++i]));
        } else if (std::strcmp(argv[i], "--frames") == 0 && value) {
            frames = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--height") == 0 && value) {
            height = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--step-only") == 0) {
            stepOnly = true;
        } else if (std::strcmp(argv[i], "--no-occlusion") == 0) {
            occlusion = false;
        } else {
            std::fprintf(stderr, "lod_levels: unknown or incomplete option %s\n", argv[i]);
            return 2;
        }
    }
    if (!(pixels > 0.0f) || frames < 1 || height < 1) {
        std::fprintf(stderr, "lod_levels: --lod, --frames and --height must be positive\n");
        return 2;
    }
    LoadOptions load;
    load.memory.limitBytes = 0;
    Quadtree built;
    Result<Heightmap> loaded = loadHeightmap(argv[1], load, {}, kDefaultLeafSize, &built);
    if (!loaded) {
        std::fprintf(stderr, "lod_levels: %s\n", loaded.error().c_str());
        return 1;
    }
    const Heightmap& map = loaded.value();
    Quadtree tree = std::move(built);
    if (tree.nodes.empty()) {
        tree = buildQuadtree(map, kDefaultLeafSize).value();
    }
    if (tree.lodErrors != LodErrors::Exact) {
        CoarseErrorJob job;
        job.start(map, tree);
        job.finish(tree);
    }
    const WorldMapping mapping = defaultMapping(map);
    const std::vector<Camera> path = flightPath(map, mapping, frames, 16.0f / 9.0f);
    FrameBuffers frame;
    frame.reserveFor(tree);
    std::vector<double> triangles(size_t(tree.depth) + 1, 0.0), nodes(triangles.size(), 0.0);
    std::vector<uint64_t> perFrame;
    const double strip = 2.0 * tree.leafSize * tree.leafSize;
    for (const Camera& camera : path) {
        if (stepOnly) {
            const LodParams params =
                lodParams(tree, mapping, camera, height, pixels, mapping.worldHeight(map.minSample),
                          mapping.worldHeight(map.maxSample));
            const Frustum frustum = cullingFrustum(camera, mapping, worldExtent(map, mapping));
            selectLod(tree, mapping, params, &frustum, frame.lod);
        } else {
            runFrame(map, tree, mapping, CullView{camera, height, true, occlusion, pixels}, frame);
        }
        perFrame.push_back(frame.lod.stats.triangles);
        for (const DrawNode& node : frame.lod.nodes) {
            triangles[node.level] += strip;
            nodes[node.level] += 1.0;
        }
    }
    std::sort(perFrame.begin(), perFrame.end());
    std::printf("%s %dx%d, %.2f px, %d px high, %s%s: median frame %llu triangles\n", argv[1],
                map.width, map.height, double(pixels), height,
                stepOnly ? "grid step alone" : "step and error", occlusion ? "" : ", no occlusion",
                (unsigned long long)perFrame[perFrame.size() / 2]);
    for (size_t level = 0; level < triangles.size(); ++level) {
        if (nodes[level] > 0.0) {
            std::printf("  level %2zu (step %5d samples): %10.0f triangles, %8.0f nodes a frame\n",
                        level, 1 << level, triangles[level] / double(frames),
                        nodes[level] / double(frames));
        }
    }
    return 0;
}
