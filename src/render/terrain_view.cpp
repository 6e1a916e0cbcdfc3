// A terrain in the caller's context: the parts made in dependency order, freed in reverse.
#include "render/terrain_view.h"

#include <utility>

#include "core/lod/lod.h"
#include "core/streaming/open_map.h"
#include "core/view/camera_fit.h"
#include "render/gl_context.h"
#include "render/object_renderer.h"
#include "render/terrain.h"
#include "render/terrain_renderer.h"

namespace qt {

struct TerrainView::Parts {
    TerrainRenderer renderer;
    ObjectRenderer objects;
    Terrain terrain;

    ~Parts() {
        terrain.destroy();
        objects.destroy();
        renderer.destroy();
    }
};

TerrainView::TerrainView(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
TerrainView::TerrainView(TerrainView&& other) noexcept = default;
TerrainView& TerrainView::operator=(TerrainView&& other) noexcept = default;
TerrainView::~TerrainView() = default;

Result<TerrainView> TerrainView::open(const std::string& mapPath, GlLoader loader,
                                      const TerrainViewOptions& options) {
    Result<OpenedMap> opened = openMap(mapPath, options);
    if (!opened) {
        return Result<TerrainView>::failure(opened.error());
    }
    return create(mapPath, std::move(opened).value(), loader, options);
}

Result<OpenedMap> TerrainView::openMap(const std::string& mapPath,
                                       const TerrainViewOptions& options) {
    return qt::openMap(mapPath, options.load, {}, options.leafSize, options.stream);
}

Result<TerrainView> TerrainView::create(const std::string& mapPath, OpenedMap opened,
                                        GlLoader loader, const TerrainViewOptions& options) {
    using R = Result<TerrainView>;
    if (Status loaded = loadGlFunctions(reinterpret_cast<GLADloadfunc>(loader)); !loaded) {
        return R::failure(loaded.error());
    }
    const int errorsBefore = checkGlErrors("before opening a terrain view");
    auto parts = std::make_unique<Parts>();
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
    OpenedMap& o = opened;
    StreamSettings stream;
    stream.on = options.stream || o.streamed;
    stream.viewportHeight = options.viewportHeight;
    Result<Terrain> terrain = Terrain::create(std::move(o.map), o.leafSize, mapPath, {}, {},
                                              options.pageSize, std::move(o.tree), stream);
    if (!terrain) {
        return R::failure(terrain.error());
    }
    parts->terrain = std::move(terrain).value();
    parts->terrain.adoptOpened(o);
    if (checkGlErrors("opening a terrain view") != errorsBefore) {
        return R::failure("OpenGL reported an error while opening " + mapPath);
    }
    return TerrainView(std::move(parts));
}

const Heightmap& TerrainView::map() const {
    return parts_->terrain.map;
}

const Quadtree& TerrainView::tree() const {
    return parts_->terrain.tree;
}

const WorldMapping& TerrainView::mapping() const {
    return parts_->terrain.mapping;
}

bool TerrainView::streamed() const {
    return parts_->terrain.map.codes.isMapped();
}

const std::string& TerrainView::glRenderer() const {
    return parts_->renderer.glRenderer;
}

const FrameBuffers& TerrainView::lastFrame() const {
    return parts_->terrain.frame;
}

const ObjectScene* TerrainView::objects() const {
    return parts_->terrain.objects.get();
}

Camera TerrainView::overviewCamera(float aspect, float fovY) const {
    return qt::overviewCamera(map(), mapping(), aspect, fovY);
}

Camera TerrainView::lookAt(const glm::vec3& eye, const glm::vec3& target, float aspect,
                           float fovY) const {
    Camera camera;
    camera.fovY = fovY;
    camera.aspect = aspect;
    camera.lookAt(eye, target);
    fitClipPlanes(camera, map(), mapping());
    return camera;
}

Status TerrainView::scatterObjects(uint32_t count, uint32_t moving, uint64_t seed, float scale) {
    Terrain& t = parts_->terrain;
    t.setObjects(nullptr);
    if (count == 0) {
        return {};
    }
    Result<ObjectScene> scene = ObjectScene::scatter(t.map, t.mapping, count, moving, seed, scale);
    if (!scene) {
        return Status::failure(scene.error());
    }
    parts_->objects.reserve(count);
    t.setObjects(std::make_unique<ObjectScene>(std::move(scene).value()));
    return {};
}

void TerrainView::stepObjects(int steps) {
    parts_->terrain.stepObjects(steps);
}

Result<FrameStats> TerrainView::draw(const Camera& camera, int width, int height,
                                     const ViewFrame& frame) {
    Parts& p = *parts_;
    Terrain& t = p.terrain;
    const int errorsBefore = checkGlErrors("before a terrain view's frame");
    const float lodPixels =
        frame.lodPixels >= 0.0f ? frame.lodPixels : autoLodPixels(t.map.width, t.map.height);
    const CullView view{camera, height, frame.cull, frame.cull && frame.occlusion, lodPixels};
    if (frame.settle) {
        t.finishErrors();
        t.settleStreaming(view);
    }
    TerrainRenderer::clear(width, height);
    FrameStats stats = renderTerrain(p.renderer, t, camera, view, false, &p.objects);
    if (checkGlErrors("a terrain view's frame") != errorsBefore) {
        return Result<FrameStats>::failure("OpenGL reported an error while drawing the frame");
    }
    return stats;
}

}  // namespace qt
