// Pictures of a terrain without a window: a headless OpenGL 3.3 context (EGL), a TerrainView in
// it and an offscreen target to read back. For programs that only want pictures
// (examples/render_view.cpp, the Python module); a program with a window of its own uses
// TerrainView directly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/terrain_view.h"

namespace qt {

struct OffscreenOptions {
    int width = 1280;  // the picture's size, also the viewport level of detail is measured in
    int height = 720;
    TerrainViewOptions view;  // how the map opens (its viewportHeight is the picture's height)
};

// Owns the context and everything drawn with it; destroyed in order (the view's GL objects, the
// target, then the context). Move-only. Its context is made current on the thread that opens it.
class OffscreenRenderer {
public:
    static Result<OffscreenRenderer> open(const std::string& mapPath,
                                          const OffscreenOptions& options = {});
    OffscreenRenderer(OffscreenRenderer&& other) noexcept;
    OffscreenRenderer& operator=(OffscreenRenderer&& other) noexcept;
    OffscreenRenderer(const OffscreenRenderer&) = delete;
    OffscreenRenderer& operator=(const OffscreenRenderer&) = delete;
    ~OffscreenRenderer();

    int width() const;
    int height() const;
    // The terrain: map, tree, mapping, objects, the last frame.
    TerrainView& view();
    const TerrainView& view() const;
    // TerrainView's cameras at the picture's aspect.
    Camera overviewCamera(float fovY = kDefaultFovY) const;
    Camera lookAt(const glm::vec3& eye, const glm::vec3& target, float fovY = kDefaultFovY) const;

    // Culls and draws one frame from `camera` (TerrainView::draw) and reads it back into `rgba`:
    // width x height RGBA8 pixels, top row first.
    Result<FrameStats> render(const Camera& camera, std::vector<uint8_t>& rgba,
                              const ViewFrame& frame = {});

private:
    struct Parts;
    explicit OffscreenRenderer(std::unique_ptr<Parts> parts);
    std::unique_ptr<Parts> parts_;
};

}  // namespace qt
