// The headless renderer: a context, a target and a view in it, destroyed in reverse.
#include "render/offscreen.h"

#include <optional>
#include <utility>

#include <EGL/egl.h>

#include "render/framebuffer.h"
#include "render/gl_context.h"

namespace qt {

struct OffscreenRenderer::Parts {
    int width = 0;
    int height = 0;
    GlContext context;
    Framebuffer target;
    std::optional<TerrainView> view;

    ~Parts() {
        view.reset();
        target.destroy();
        context.destroy();
    }
};

OffscreenRenderer::OffscreenRenderer(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
OffscreenRenderer::OffscreenRenderer(OffscreenRenderer&& other) noexcept = default;
OffscreenRenderer& OffscreenRenderer::operator=(OffscreenRenderer&& other) noexcept = default;
OffscreenRenderer::~OffscreenRenderer() = default;

Result<OffscreenRenderer> OffscreenRenderer::open(const std::string& mapPath,
                                                  const OffscreenOptions& options) {
    using R = Result<OffscreenRenderer>;
    // The map first: a bad file is one line, before any GL.
    TerrainViewOptions viewOptions = options.view;
    viewOptions.viewportHeight = options.height;
    Result<OpenedMap> opened = TerrainView::openMap(mapPath, viewOptions);
    if (!opened) {
        return R::failure(opened.error());
    }
    auto parts = std::make_unique<Parts>();
    parts->width = options.width;
    parts->height = options.height;
    GlContextOptions contextOptions;
    contextOptions.width = options.width;
    contextOptions.height = options.height;
    contextOptions.visible = false;
    Result<GlContext> context = GlContext::createHeadless(contextOptions);
    if (!context) {
        return R::failure(context.error());
    }
    parts->context = context.value();
    Result<Framebuffer> target = Framebuffer::create(options.width, options.height);
    if (!target) {
        return R::failure(target.error());
    }
    parts->target = target.value();
    Result<TerrainView> view =
        TerrainView::create(mapPath, std::move(opened).value(),
                            reinterpret_cast<GlLoader>(eglGetProcAddress), viewOptions);
    if (!view) {
        return R::failure(view.error());
    }
    parts->view.emplace(std::move(view).value());
    return OffscreenRenderer(std::move(parts));
}

int OffscreenRenderer::width() const {
    return parts_->width;
}

int OffscreenRenderer::height() const {
    return parts_->height;
}

TerrainView& OffscreenRenderer::view() {
    return *parts_->view;
}

const TerrainView& OffscreenRenderer::view() const {
    return *parts_->view;
}

Camera OffscreenRenderer::overviewCamera(float fovY) const {
    return view().overviewCamera(float(width()) / float(height()), fovY);
}

Camera OffscreenRenderer::lookAt(const glm::vec3& eye, const glm::vec3& target, float fovY) const {
    return view().lookAt(eye, target, float(width()) / float(height()), fovY);
}

Result<FrameStats> OffscreenRenderer::render(const Camera& camera, std::vector<uint8_t>& rgba,
                                             const ViewFrame& frame) {
    Parts& p = *parts_;
    p.target.bind();
    Result<FrameStats> stats = p.view->draw(camera, p.width, p.height, frame);
    if (stats) {
        readPixels(p.width, p.height, rgba);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return stats;
}

}  // namespace qt
