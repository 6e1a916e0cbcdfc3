// Terrain loading into temporaries, culling with the conservative frustum, clip planes, overview.
#include "render/terrain.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include <glm/geometric.hpp>

#include "core/flight_path.h"

namespace qt {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void report(const LoadProgress& progress, LoadStep step) {
    if (progress) {
        progress(step);
    }
}

}  // namespace

const char* loadStepName(LoadStep step) {
    switch (step) {
        case LoadStep::Decode:
            return "reading and decoding";
        case LoadStep::BuildTree:
            return "building the quadtree";
        case LoadStep::Upload:
            return "uploading to the GPU";
    }
    return "";
}

Result<Terrain> Terrain::create(Heightmap map, int leafSize, std::string path, LoadTimes times,
                                const LoadProgress& progress) {
    report(progress, LoadStep::BuildTree);
    Clock::time_point start = Clock::now();
    Result<Quadtree> tree = buildQuadtree(map, leafSize);
    if (!tree) {
        return Result<Terrain>::failure(path + ": " + tree.error());
    }
    times.treeMs = msSince(start);
    report(progress, LoadStep::Upload);
    start = Clock::now();
    Result<TerrainGpu> gpu = TerrainGpu::create(map, tree.value());
    if (!gpu) {
        return Result<Terrain>::failure(path + ": " + gpu.error());
    }
    times.uploadMs = msSince(start);
    // The buffer texture is now the one copy of the heights; the tree keeps their exact ranges.
    map.codes.clear();
    map.codes.shrink_to_fit();
#if defined(__GLIBC__)
    // A load frees hundreds of MB (file, decoder buffers, codes); glibc keeps what it freed below
    // its top of heap unless asked, and that would stay resident while the terrain is flown.
    malloc_trim(0);
#endif
    Terrain terrain;
    terrain.times = times;
    terrain.path = std::move(path);
    terrain.mapping = defaultMapping(map);
    terrain.map = std::move(map);
    terrain.tree = std::move(tree).value();
    terrain.gpu = gpu.value();
    terrain.cull.recordDecisions = true;
    terrain.cull.reserveFor(terrain.tree);
    terrain.occlusion.reserveFor(terrain.tree);
    terrain.drawn.reserve(maxLeafRanges(terrain.tree));
    terrain.drawList.reserve(terrain.tree.leaves.size());
    terrain.lod.reserveFor(terrain.tree);
    for (std::vector<LeafRange>* runs :
         {&terrain.lodLeaves, &terrain.lodKept, &terrain.lodOccluded}) {
        runs->reserve(maxLeafRanges(terrain.tree));
    }
    return terrain;
}

void Terrain::destroy() {
    gpu.destroy();
}

std::string replaceTerrain(Terrain& current, const std::string& path, const LoadOptions& options,
                           int leafSize, const LoadProgress& progress) {
    Result<Terrain> loaded = loadTerrain(path, options, leafSize, progress);
    if (!loaded) {
        return loaded.error();
    }
    current.destroy();
    current = std::move(loaded).value();
    return "";
}

Result<Terrain> loadTerrain(const std::string& path, const LoadOptions& options, int leafSize,
                            const LoadProgress& progress) {
    LoadTimes times;
    Result<Heightmap> map = decodeStep(path, options, times, progress);
    if (!map) {
        return Result<Terrain>::failure(map.error());
    }
    return Terrain::create(std::move(map).value(), leafSize, path, times, progress);
}

Result<Heightmap> decodeStep(const std::string& path, const LoadOptions& options, LoadTimes& times,
                             const LoadProgress& progress) {
    report(progress, LoadStep::Decode);
    const Clock::time_point start = Clock::now();
    Result<Heightmap> map = loadHeightmap(path, options);
    times.decodeMs = msSince(start);
    return map;
}

Frustum cullingFrustum(const glm::mat4& viewProjection, const WorldMapping& mapping) {
    return Frustum::fromViewProjection(viewProjection, kCullMarginSpacings * mapping.spacing);
}

namespace {

// After the walk, with level of detail: the drawn nodes into terrain.lod, culled by `frustum`
// unless view.frustum is off; the occlusion stage over the nodes drawn at full detail. The
// walk's leaves, less those occluded, stay the frame's leaves (minimap, cull map, --dump-leaves)
// as runs: expanding them per frame would cost what level of detail saves.
void selectLodNodes(Terrain& terrain, const CullView& view, const Frustum& frustum,
                    FrameStats& stats) {
    const Camera& c = view.camera;
    const LodParams params =
        lodParams(terrain.tree, terrain.mapping, c.position, c.fovY, view.viewportHeight,
                  view.lodPixels, terrain.mapping.worldHeight(terrain.map.minSample),
                  terrain.mapping.worldHeight(terrain.map.maxSample));
    selectLod(terrain.tree, terrain.mapping, params, view.frustum ? &frustum : nullptr,
              terrain.lod);
    if (view.frustum && view.occlusion) {
        terrain.lodLeaves.clear();
        appendFullDetailLeaves(terrain.tree, terrain.lod, terrain.lodLeaves);
        cullOccluded(terrain.tree, terrain.mapping, c, view.viewportHeight, terrain.lodLeaves,
                     terrain.occlusion, terrain.lodKept, stats.occlusion);
    }
    if (stats.occlusion.leavesOccluded > 0) {
        keepFullDetailLeaves(terrain.tree, terrain.lodKept, terrain.lod);
        subtractLeafRuns(terrain.lodLeaves, terrain.lodKept, terrain.lodOccluded);
        subtractLeafRuns(terrain.cull.ranges, terrain.lodOccluded, terrain.drawn);
        stats.cull.leavesOccluded = stats.occlusion.leavesOccluded;
        stats.cull.leavesDrawn -= stats.occlusion.leavesOccluded;
    } else {
        terrain.drawn.assign(terrain.cull.ranges.begin(), terrain.cull.ranges.end());
    }
    terrain.drawList.clear();
    stats.lod = true;
    stats.lodStats = terrain.lod.stats;
    stats.cull.triangles = terrain.lod.stats.triangles;
}

}  // namespace

FrameStats cullTerrain(Terrain& terrain, const CullView& view) {
    FrameStats stats;
    const Clock::time_point start = Clock::now();
    const Frustum frustum = cullingFrustum(view.camera.viewProjection(), terrain.mapping);
    if (view.frustum) {
        cullQuadtree(terrain.tree, terrain.mapping, frustum, terrain.cull);
    } else {
        selectAll(terrain.tree, terrain.cull);
    }
    stats.cull = terrain.cull.stats;
    if (view.lodPixels > 0.0f) {
        selectLodNodes(terrain, view, frustum, stats);
    } else {
        if (view.frustum && view.occlusion) {
            cullOccluded(terrain.tree, terrain.mapping, view.camera, view.viewportHeight,
                         terrain.cull.ranges, terrain.occlusion, terrain.drawn, stats.occlusion);
        } else {
            terrain.drawn.assign(terrain.cull.ranges.begin(), terrain.cull.ranges.end());
        }
        if (stats.occlusion.leavesOccluded > 0) {
            stats.cull.leavesOccluded = stats.occlusion.leavesOccluded;
            stats.cull.leavesDrawn -= stats.occlusion.leavesOccluded;
            stats.cull.triangles = triangleCount(terrain.tree, terrain.drawn);
        }
        terrain.drawList.clear();
        appendLeafCoords(terrain.tree, terrain.drawn, terrain.drawList);
    }
    stats.cullMs = msSince(start);
    stats.nodesTotal = uint32_t(terrain.tree.nodes.size());
    stats.leavesTotal = uint32_t(terrain.tree.leaves.size());
    return stats;
}

FrameStats renderTerrain(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                         const CullView& view, bool wireframe) {
    FrameStats stats = cullTerrain(terrain, view);
    // Decided by the viewing camera alone, so culled and unculled frames draw alike.
    DrawStyle style;
    style.wireframe = wireframe;
    style.cullBackFaces =
        renderer.backFaceCulling && backFacesHidden(terrain.tree, terrain.mapping, camera);
    stats.drawCalls =
        stats.lod ? renderer.draw(terrain.gpu, terrain.mapping, camera, terrain.lod.nodes, style)
                  : renderer.draw(terrain.gpu, terrain.mapping, camera, terrain.drawList, style);
    stats.syncedDraws = renderer.syncDraws;
    stats.backFacesCulled = style.cullBackFaces;
    return stats;
}

void fitClipPlanes(Camera& camera, const Heightmap& map, const WorldMapping& mapping) {
    const float sizeX = float(map.width - 1) * mapping.spacing;
    const float sizeZ = float(map.height - 1) * mapping.spacing;
    const float y0 = mapping.worldHeight(map.minSample);
    const float y1 = mapping.worldHeight(map.maxSample);
    float farthest = 0.0f;
    for (int corner = 0; corner < 8; ++corner) {
        const glm::vec3 p((corner & 1) ? sizeX : 0.0f, (corner & 2) ? y1 : y0,
                          (corner & 4) ? sizeZ : 0.0f);
        farthest = std::max(farthest, glm::length(p - camera.position));
    }
    camera.farPlane = std::max(farPlaneFor(map, mapping), 1.05f * farthest);
    if (!std::isfinite(camera.farPlane)) {
        camera.farPlane = 1e30f;
    }
    camera.nearPlane = std::max(camera.farPlane / kFarToNear, kMinNearPlane);
}

Camera overviewCamera(const Heightmap& map, const WorldMapping& mapping, float aspect, float fovY) {
    const float sizeX = float(map.width - 1) * mapping.spacing;
    const float sizeZ = float(map.height - 1) * mapping.spacing;
    const float y0 = mapping.worldHeight(map.minSample);
    const float y1 = mapping.worldHeight(map.maxSample);
    const glm::vec3 centre(0.5f * sizeX, 0.5f * (y0 + y1), 0.5f * sizeZ);
    // Far enough back that the sphere around the map fits the narrower field of view.
    const float radius = 0.5f * glm::length(glm::vec3(sizeX, y1 - y0, sizeZ));
    const float halfFov = 0.5f * std::min(fovY, 2.0f * std::atan(std::tan(0.5f * fovY) * aspect));
    const float distance = std::max(1.15f * radius / std::tan(halfFov), 1e-3f);
    // From above the south-west side (high z, low x), about 50 degrees down.
    const glm::vec3 direction = glm::normalize(glm::vec3(-0.35f, 0.8f, 0.6f));
    Camera camera;
    camera.fovY = fovY;
    camera.aspect = aspect;
    camera.lookAt(centre + direction * distance, centre);
    fitClipPlanes(camera, map, mapping);
    return camera;
}

}  // namespace qt
