// Pictures of a terrain without a window: a headless OpenGL 3.3 context (EGL), the terrain and
// object renderers with their compiled-in shaders, the terrain opened whole or streamed, and an
// offscreen target. For programs that only want pictures (examples/render_view.cpp, the Python
// module); the viewer runs its own loop over the same parts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "core/base/result.h"
#include "core/config.h"
#include "core/frame/frame.h"
#include "core/io/load.h"
#include "core/objects/scene.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"

namespace qt {

// The vertical field of view the viewer starts with: 60 degrees.
constexpr float kDefaultFovY = 1.04719755f;

struct OffscreenOptions {
    int width = 1280;  // the picture's size, also the viewport level of detail is measured in
    int height = 720;
    int leafSize = kDefaultLeafSize;
    LoadOptions load;       // headerless size, PNG encoding, memory budget
    bool stream = false;    // open a .r16 or GDAL raster streamed even when it fits
    std::string shaderDir;  // "": the shaders compiled into the renderer
    int pageSize = kDefaultPageSize;
};

// How one picture is culled and drawn.
struct OffscreenFrame {
    bool cull = true;         // false: every leaf drawn (the unculled reference)
    bool occlusion = true;    // drop what nearer terrain provably hides
    float lodPixels = -1.0f;  // level of detail in pixels; 0: full detail; < 0: autoLodPixels
};

// Owns the context and everything drawn with it; destroyed in order (GL objects, then the
// context). Move-only. One per thread: its context is current on the thread that made it.
class OffscreenRenderer {
public:
    // Loads the map first (a bad file is one line, before any GL), then makes the context, the
    // renderers and the terrain's GPU heights. Errors are one line.
    static Result<OffscreenRenderer> open(const std::string& mapPath,
                                          const OffscreenOptions& options = {});
    OffscreenRenderer(OffscreenRenderer&& other) noexcept;
    OffscreenRenderer& operator=(OffscreenRenderer&& other) noexcept;
    OffscreenRenderer(const OffscreenRenderer&) = delete;
    OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;
    ~OffscreenRenderer();

    int width() const;
    int height() const;
    // The map (its codes mapped from the file when streamed), its tree and its world mapping.
    const Heightmap& map() const;
    const Quadtree& tree() const;
    const WorldMapping& mapping() const;
    // Whether the map was opened streamed (its level-0 heights paged to the GPU on demand).
    bool streamed() const;
    // The last frame's buffers: drawList (the leaves drawn at full detail) or lod.nodes (the
    // nodes drawn by level of detail), objectsDrawn, and the walk's decisions.
    const FrameBuffers& lastFrame() const;
    // The objects on the terrain; null when there are none.
    const ObjectScene* objects() const;
    // GL_RENDERER and GL_VERSION.
    const std::string& glRenderer() const;
    // The overview of the whole map at the picture's aspect.
    Camera overviewCamera(float fovYRadians = kDefaultFovY) const;
    // A camera at `eye` looking at `target`, with clip planes fitted to the map.
    Camera lookAt(const glm::vec3& eye, const glm::vec3& target, float fovYRadians) const;

    // Scatters `count` objects on the terrain, the last `moving` of them balls, as the viewer's
    // --objects does (ObjectScene::scatter); 0 removes them. On failure the terrain keeps none.
    Status scatterObjects(uint32_t count, uint32_t moving = 0, uint64_t seed = 1);
    // Runs `steps` fixed steps of the balls' simulation (nothing without moving objects).
    void stepObjects(int steps);

    // Culls and draws one frame from `camera` and reads it back into `rgba` (width x height RGBA8
    // pixels, top row first), as the viewer's scripted frames do: the exact level-of-detail
    // errors in and, streamed, every page the view asks for resident first, so the picture does
    // not depend on how fast the machine is. Returns the frame's counts; an error when OpenGL
    // reported one.
    Result<FrameStats> render(const Camera& camera, std::vector<uint8_t>& rgba,
                              const OffscreenFrame& frame = {});

private:
    struct Parts;
    explicit OffscreenRenderer(std::unique_ptr<Parts> parts);
    std::unique_ptr<Parts> parts_;
};

}  // namespace qt
