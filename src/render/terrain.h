// A loaded terrain (heightmap, quadtree, world mapping, GL objects, cull buffers) and the per-frame
// steps on it: the conservative culling frustum, the walk, the draw, the camera's clip planes.
#pragma once

#include <string>

#include "core/camera.h"
#include "core/cull.h"
#include "core/frustum.h"
#include "core/heightmap.h"
#include "core/quadtree.h"
#include "core/terrain_grid.h"
#include "render/terrain_renderer.h"

namespace qt {

// The culling frustum's planes move out by this many sample spacings, so that culling never
// removes a triangle the rasteriser would have touched (culled == unculled, pixel for pixel).
constexpr float kCullMarginSpacings = 1e-3f;
// Near plane = far plane / this, but at least kMinNearPlane.
constexpr float kFarToNear = 20000.0f;
constexpr float kMinNearPlane = 1e-3f;

struct Terrain {
    std::string path;
    Heightmap map;
    Quadtree tree;
    WorldMapping mapping;
    TerrainGpu gpu;
    CullOutput cull;  // reserved for tree with recordDecisions: culling never allocates

    // Builds the tree and the GL objects; nothing is kept on failure.
    static Result<Terrain> create(Heightmap map, int leafSize, std::string path);
    void destroy();
};

// loadHeightmap + Terrain::create, with the default mapping of the map.
Result<Terrain> loadTerrain(const std::string& path, const LoadOptions& options, int leafSize);

// Loads `path` into a new terrain and only then swaps it for `current` (destroying the old GL
// objects). On failure `current` is untouched and the one-line error is returned; "" on success.
std::string replaceTerrain(Terrain& current, const std::string& path, const LoadOptions& options,
                           int leafSize);

struct FrameStats {
    CullStats cull;
    uint32_t nodesTotal = 0;
    uint32_t leavesTotal = 0;
    int drawCalls = 0;  // terrain draws only
    double cullMs = 0.0;
    double frameMs = 0.0;  // filled by the caller, who knows where the frame ends
};

Frustum cullingFrustum(const glm::mat4& viewProjection, const WorldMapping& mapping);

// Runs the walk (or selects every leaf) into terrain.cull and times it.
FrameStats cullTerrain(Terrain& terrain, const Frustum& frustum, bool cullEnabled);

// Culls with `frustum` and draws terrain.cull.visible as seen from `camera`; the caller has bound
// and cleared the target.
FrameStats renderTerrain(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                         const Frustum& frustum, bool cullEnabled, bool wireframe);

// Far plane covering the whole map from the camera (at least farPlaneFor()), near from far.
void fitClipPlanes(Camera& camera, const Heightmap& map, const WorldMapping& mapping);

// Above the map's south-west side, looking at its centre, pitched down: the whole map in view.
Camera overviewCamera(const Heightmap& map, const WorldMapping& mapping, float aspect, float fovY);

}  // namespace qt
