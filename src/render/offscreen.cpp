// The headless renderer: parts made in dependency order and destroyed in reverse.
#include "render/offscreen.h"

#include <utility>

#include "core/lod/lod.h"
#include "core/streaming/open_map.h"
#include "core/terrain/world.h"
#include "core/view/camera_fit.h"
#include "render/framebuffer.h"
#include "render/gl_context.h"
#include "render/object_renderer.h"
#include "render/terrain.h"
#include "render/terrain_renderer.h"

namespace qt {

struct OffscreenRenderer::Parts {
    OffscreenOptions options;
    GlContext context;
    TerrainRenderer renderer;
    ObjectRenderer objects;
    Terrain terrain;
    Framebuffer target;

    ~Parts() {
        terrain.destroy();
        target.destroy();
        objects.destroy();
        renderer.destroy();
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
    LoadTimes times;
    Result<OpenedMap> opened =
        openStep(mapPath, options.load, times, {}, {}, options.leafSize, options.stream);
    if (!opened) {
        return R::failure(opened.error());
    }
    auto parts = std::make_unique<Parts>();
    parts->options = options;
    GlContextOptions contextOptions;
    contextOptions.width = options.width;
    contextOptions.height = options.height;
    contextOptions.visible = false;
    Result<GlContext> context = GlContext::createHeadless(contextOptions);
    if (!context) {
        return R::failure(context.error());
    }
    parts->context = context.value();
    // From here on, a failure destroys what was made through ~Parts.
    Result<TerrainRenderer> renderer = TerrainRenderer::create(options.shaderDir);
    if (!renderer) {
        return R::failure(renderer.error());
    }
    parts->renderer = renderer.value();
    Result<ObjectRenderer> objects = ObjectRenderer::create(options.shaderDir);
    if (!objects) {
        return R::failure(objects.error());
    }
    parts->objects = std::move(objects).value();
    Result<Framebuffer> target = Framebuffer::create(options.width, options.height);
    if (!target) {
        return R::failure(target.error());
    }
    parts->target = target.value();
    OpenedMap& o = opened.value();
    StreamSettings stream;
    stream.on = options.stream || o.streamed;
    stream.viewportHeight = options.height;
    Result<Terrain> terrain = Terrain::create(std::move(o.map), o.leafSize, mapPath, times, {},
                                              options.pageSize, std::move(o.tree), stream);
    if (!terrain) {
        return R::failure(terrain.error());
    }
    parts->terrain = std::move(terrain).value();
    parts->terrain.adoptOpened(o);
    if (parts->context.checkErrors("opening the offscreen renderer") != 0) {
        return R::failure("OpenGL reported an error while opening the offscreen renderer");
    }
    return OffscreenRenderer(std::move(parts));
}

int OffscreenRenderer::width() const {
    return parts_->options.width;
}

int OffscreenRenderer::height() const {
    return parts_->options.height;
}

const Heightmap& OffscreenRenderer::map() const {
    return parts_->terrain.map;
}

const Quadtree& OffscreenRenderer::tree() const {
    return parts_->terrain.tree;
}

const WorldMapping& OffscreenRenderer::mapping() const {
    return parts_->terrain.mapping;
}

bool OffscreenRenderer::streamed() const {
    return parts_->terrain.map.codes.isMapped();
}

const FrameBuffers& OffscreenRenderer::lastFrame() const {
    return parts_->terrain.frame;
}

const ObjectScene* OffscreenRenderer::objects() const {
    return parts_->terrain.objects.get();
}

void OffscreenRenderer::stepObjects(int steps) {
    parts_->terrain.stepObjects(steps);
}

const std::string& OffscreenRenderer::glRenderer() const {
    return parts_->renderer.glRenderer;
}

Camera OffscreenRenderer::overviewCamera(float fovYRadians) const {
    const Terrain& t = parts_->terrain;
    return qt::overviewCamera(t.map, t.mapping, float(width()) / float(height()), fovYRadians);
}

Status OffscreenRenderer::scatterObjects(uint32_t count, uint32_t moving, uint64_t seed) {
    Terrain& t = parts_->terrain;
    t.setObjects(nullptr);
    if (count == 0) {
        return {};
    }
    Result<ObjectScene> scene = ObjectScene::scatter(t.map, t.mapping, count, moving, seed);
    if (!scene) {
        return Status::failure(scene.error());
    }
    parts_->objects.reserve(count);
    t.setObjects(std::make_unique<ObjectScene>(std::move(scene).value()));
    return {};
}

Camera OffscreenRenderer::lookAt(const glm::vec3& eye, const glm::vec3& target,
                                 float fovYRadians) const {
    Camera camera;
    camera.fovY = fovYRadians;
    camera.aspect = float(width()) / float(height());
    camera.lookAt(eye, target);
    fitClipPlanes(camera, parts_->terrain.map, parts_->terrain.mapping);
    return camera;
}

Result<FrameStats> OffscreenRenderer::render(const Camera& camera, std::vector<uint8_t>& rgba,
                                             const OffscreenFrame& frame) {
    Parts& p = *parts_;
    Terrain& t = p.terrain;
    const float lodPixels =
        frame.lodPixels >= 0.0f ? frame.lodPixels : autoLodPixels(t.map.width, t.map.height);
    const CullView view{camera, height(), frame.cull, frame.cull && frame.occlusion, lodPixels};
    t.finishErrors();
    t.settleStreaming(view);
    p.target.bind();
    TerrainRenderer::clear(width(), height());
    FrameStats stats = renderTerrain(p.renderer, t, camera, view, false, &p.objects);
    readPixels(width(), height(), rgba);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (p.context.checkErrors("an offscreen frame") != 0) {
        return Result<FrameStats>::failure("OpenGL reported an error while drawing the frame");
    }
    return stats;
}

}  // namespace qt
