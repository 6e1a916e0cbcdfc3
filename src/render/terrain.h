// A loaded terrain (heightmap, quadtree, world mapping, GL objects, cull buffers) and the per-frame
// steps on it: the conservative culling frustum, the walk, the draw, the camera's clip planes.
#pragma once

#include <functional>
#include <string>

#include "core/camera.h"
#include "core/cull.h"
#include "core/frustum.h"
#include "core/heightmap.h"
#include "core/lod.h"
#include "core/occlusion.h"
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

// The steps of a load, each reported as it begins (a progress line, a loading frame).
enum class LoadStep { Decode, BuildTree, Upload };
using LoadProgress = std::function<void(LoadStep step)>;
const char* loadStepName(LoadStep step);

// Wall time of each step of the last load.
struct LoadTimes {
    double decodeMs = 0.0;  // reading the file and decoding it into codes
    double treeMs = 0.0;    // building the quadtree and its exact bounds
    double uploadMs = 0.0;  // the codes into the GPU's buffer texture

    double totalMs() const { return decodeMs + treeMs + uploadMs; }
};

struct Terrain {
    std::string path;
    Heightmap map;  // size, coding and range; its codes live only on the GPU once uploaded
    Quadtree tree;
    WorldMapping mapping;
    TerrainGpu gpu;
    CullOutput cull;             // reserved for tree with recordDecisions: culling never allocates
    OcclusionBuffers occlusion;  // the occlusion stage's scratch, reserved for tree
    std::vector<LeafRange> drawn;  // the leaves drawn: cull.ranges less the occluded ones
    // The drawn leaves' coordinates, one instance each: cull.ranges expanded (left empty when
    // drawing by level of detail). Room for every leaf, reserved once (untouched capacity costs
    // no resident memory).
    std::vector<LeafCoord> drawList;
    LodOutput lod;  // with level of detail: the nodes drawn, reserved once
    // With level of detail and occlusion: the full-detail leaves (the stage's candidates), those
    // it keeps, and those it removes; reserved once.
    std::vector<LeafRange> lodLeaves, lodKept, lodOccluded;
    LoadTimes times;

    // Builds the tree and the GL objects; nothing is kept on failure. `times` holds the decode
    // time measured by the caller, and gets the tree and upload times.
    static Result<Terrain> create(Heightmap map, int leafSize, std::string path,
                                  LoadTimes times = {}, const LoadProgress& progress = {});
    void destroy();
};

// The first step of a load: reports LoadStep::Decode, runs loadHeightmap, times it.
Result<Heightmap> decodeStep(const std::string& path, const LoadOptions& options, LoadTimes& times,
                             const LoadProgress& progress = {});

// decodeStep + Terrain::create, with the default mapping of the map.
Result<Terrain> loadTerrain(const std::string& path, const LoadOptions& options, int leafSize,
                            const LoadProgress& progress = {});

// Loads `path` into a new terrain and only then swaps it for `current` (destroying the old GL
// objects). On failure `current` is untouched and the one-line error is returned; "" on success.
std::string replaceTerrain(Terrain& current, const std::string& path, const LoadOptions& options,
                           int leafSize, const LoadProgress& progress = {});

// How a frame culls: the culling camera (the viewing one unless frozen), the height in pixels of
// the viewport (the occlusion stage's margins are pixels), and which stages run.
struct CullView {
    Camera camera;
    int viewportHeight = 0;
    bool frustum = true;    // false: every leaf, nothing tested (the --no-cull reference)
    bool occlusion = true;  // after the walk, drop the leaves nearer terrain provably hides
    // Level of detail: far nodes drawn at coarser strides, a grid step at most this many pixels
    // long (0: off, every leaf at full detail). The walk still runs for the counts and minimap;
    // the occlusion stage then tests the nodes drawn at full detail.
    float lodPixels = 0.0f;
};

struct FrameStats {
    CullStats cull;  // leavesDrawn and triangles are what is drawn, after occlusion
    OcclusionStats occlusion;
    bool lod = false;  // drawn by level of detail: cull.triangles are the nodes' triangles
    LodStats lodStats;
    uint32_t nodesTotal = 0;
    uint32_t leavesTotal = 0;
    int drawCalls = 0;             // terrain draws only
    bool syncedDraws = false;      // drawn in synchronised batches (TerrainRenderer::syncDraws)
    bool backFacesCulled = false;  // back faces culled (TerrainRenderer::backFaceCulling)
    double cullMs = 0.0;
    double frameMs = 0.0;  // filled by the caller, who knows where the frame ends
};

Frustum cullingFrustum(const glm::mat4& viewProjection, const WorldMapping& mapping);

// Runs the walk (or selects every leaf) into terrain.cull, the occlusion stage into
// terrain.drawn, expands that into terrain.drawList, and times it all. With level of detail:
// the walk, then selectLod into terrain.lod (culled by the same frustum, or not at all).
FrameStats cullTerrain(Terrain& terrain, const CullView& view);

// Culls as `view` says and draws terrain.drawList as seen from `camera`, culling back faces
// when the renderer allows it and backFacesHidden() holds for `camera`; the caller has bound and
// cleared the target.
FrameStats renderTerrain(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                         const CullView& view, bool wireframe);

// Far plane covering the whole map from the camera (at least farPlaneFor()), near from far.
void fitClipPlanes(Camera& camera, const Heightmap& map, const WorldMapping& mapping);

// Above the map's south-west side, looking at its centre, pitched down: the whole map in view.
Camera overviewCamera(const Heightmap& map, const WorldMapping& mapping, float aspect, float fovY);

}  // namespace qt
