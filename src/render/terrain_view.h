// A terrain drawn into the caller's own OpenGL 3.3 core context (a GLFW window of theirs, an EGL
// surface, a toolkit's GL widget): the map opened whole or streamed, its renderers with their
// compiled-in shaders, and one call that culls and draws a frame into whatever framebuffer is
// bound. No GL header of ours reaches the caller: the GL functions are loaded through the
// caller's own loader (glfwGetProcAddress, eglGetProcAddress).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <glm/vec3.hpp>

#include "core/base/result.h"
#include "core/config.h"
#include "core/frame/frame.h"
#include "core/io/load.h"
#include "core/objects/scene.h"
#include "core/streaming/open_map.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"

namespace qt {

// A GL function by name, as glfwGetProcAddress and eglGetProcAddress give them.
using GlFunction = void (*)();
using GlLoader = GlFunction (*)(const char* name);

// The vertical field of view the viewer starts with: 60 degrees.
constexpr float kDefaultFovY = 1.04719755f;

struct TerrainViewOptions {
    int leafSize = kDefaultLeafSize;
    LoadOptions load;       // headerless size, PNG encoding, memory budget
    bool stream = false;    // open a .r16 or GDAL raster streamed even when it fits
    std::string shaderDir;  // "": the shaders compiled into the renderer
    int pageSize = kDefaultPageSize;
    int viewportHeight = 720;  // a streamed map's page pool is sized for views this tall at first
};

// How one frame is culled and drawn.
struct ViewFrame {
    bool cull = true;         // false: every leaf drawn (the unculled reference)
    bool occlusion = true;    // drop what nearer terrain provably hides
    float lodPixels = -1.0f;  // level of detail in pixels; 0: full detail; < 0: autoLodPixels
    // Wait for everything the view needs (the exact level-of-detail errors; streamed, every
    // page it asks for), so the picture does not depend on how fast the machine is. Off, frames
    // draw at once with what is there, as the viewer's interactive frames do.
    bool settle = true;
};

class TerrainView {
public:
    // Loads the map first (a bad file is one line, before any GL), then loads the GL functions
    // through `loader` in the context current on this thread and makes the renderers and the
    // terrain's GPU heights in it. Errors are one line.
    static Result<TerrainView> open(const std::string& mapPath, GlLoader loader,
                                    const TerrainViewOptions& options = {});
    // open in two steps, for a caller that makes its context only once the map has loaded: the
    // map (openMap, no GL), then the view of it in the context current on this thread.
    static Result<OpenedMap> openMap(const std::string& mapPath,
                                     const TerrainViewOptions& options = {});
    static Result<TerrainView> create(const std::string& mapPath, OpenedMap opened, GlLoader loader,
                                      const TerrainViewOptions& options = {});
    TerrainView(TerrainView&& other) noexcept;
    TerrainView& operator=(TerrainView&& other) noexcept;
    TerrainView(const TerrainView&) = delete;
    TerrainView& operator=(const TerrainView&) = delete;
    // Frees the GL objects: the context they were made in must be current.
    ~TerrainView();

    // The map (its codes mapped from the file when streamed), its tree and its world mapping.
    const Heightmap& map() const;
    const Quadtree& tree() const;
    const WorldMapping& mapping() const;
    // Whether the map was opened streamed: its codes mapped, level 0 paged to the GPU as needed.
    bool streamed() const;
    // GL_RENDERER and GL_VERSION of the context.
    const std::string& glRenderer() const;
    // The last frame's buffers: drawList (the leaves drawn at full detail) or lod.nodes (the
    // nodes drawn by level of detail), objectsDrawn, and the walk's decisions.
    const FrameBuffers& lastFrame() const;
    // The objects on the terrain; null when there are none.
    const ObjectScene* objects() const;

    // The overview of the whole map, and a camera at `eye` looking at `target`, clip planes
    // fitted to the map.
    Camera overviewCamera(float aspect, float fovY = kDefaultFovY) const;
    Camera lookAt(const glm::vec3& eye, const glm::vec3& target, float aspect,
                  float fovY = kDefaultFovY) const;

    // Scatters `count` objects on the terrain, the last `moving` of them balls, `scale` times
    // their size, as the viewer's --objects and --object-scale do (ObjectScene::scatter); 0
    // removes them. On failure the terrain keeps none.
    Status scatterObjects(uint32_t count, uint32_t moving = 0, uint64_t seed = 1,
                          float scale = 1.0f);
    // Runs `steps` fixed steps of the balls' simulation (nothing without moving objects).
    void stepObjects(int steps);

    // Culls for `camera` and draws the frame into the framebuffer bound now, over the viewport
    // (0, 0, width, height), cleared first. Returns the frame's counts; an error when OpenGL
    // reported one.
    Result<FrameStats> draw(const Camera& camera, int width, int height,
                            const ViewFrame& frame = {});

private:
    struct Parts;
    explicit TerrainView(std::unique_ptr<Parts> parts);
    std::unique_ptr<Parts> parts_;
};

}  // namespace qt
