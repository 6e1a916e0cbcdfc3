// The one-shot scripted run: offscreen frames and the files they write.
#include "app/scripted.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cull_map.h"
#include "app/stats_json.h"
#include "core/base/text.h"
#include "render/framebuffer.h"

namespace qt {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

FrameStats renderFrame(Session& s, const Framebuffer& target, const Camera& camera, CullMode mode,
                       float lodPixels, DrawVariant variant) {
    const Clock::time_point start = Clock::now();
    target.bind();
    GpuSections& timer = s.renderer.frameTimer;
    timer.reset();
    {
        const GpuSection clear(&timer);
        TerrainRenderer::clear(target.width, target.height);
    }
    const CullView view{camera, target.height, mode != CullMode::None,
                        mode == CullMode::FrustumAndOcclusion, lodPixels};
    const bool synced = s.renderer.syncDraws;
    const bool backFaceCulling = s.renderer.backFaceCulling;
    s.renderer.syncDraws = synced && variant != DrawVariant::OneDraw;
    s.renderer.backFaceCulling = backFaceCulling && variant != DrawVariant::TwoSided;
    FrameStats stats =
        renderTerrain(s.renderer, s.terrain, camera, view, false, &s.objectRenderer, &timer);
    s.renderer.syncDraws = synced;
    s.renderer.backFaceCulling = backFaceCulling;
    glFinish();
    stats.frameMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    stats.gpuMs = timer.milliseconds();
    stats.objectGpuMs = timer.milliseconds(GpuWork::Objects);
    return stats;
}

int runOneShot(Session& s) {
    const ViewerOptions& o = s.options;
    Result<Framebuffer> target = Framebuffer::create(o.windowWidth, o.windowHeight);
    if (!target) {
        std::fprintf(stderr, "quadterrain: %s\n", target.error().c_str());
        return kExitFailure;
    }
    const bool cull = !o.noCull;
    const CullMode mode = o.noCull        ? CullMode::None
                          : o.noOcclusion ? CullMode::FrustumOnly
                                          : CullMode::FrustumAndOcclusion;
    s.terrain.stepObjects(o.steps);
    // The same picture and counts however soon the frame follows the load: the exact errors.
    s.terrain.finishErrors();
    const float lodPixels = lodPixelsFor(o, s.terrain.map.width, s.terrain.map.height);
    // Streamed: every page the view asks for in before the frame, so that the picture and counts
    // are the same however fast the worker runs.
    // A frame is never taken with pages outstanding: a view the pool cannot settle is an error.
    if (!s.terrain.settleStreaming(CullView{s.camera, target.value().height, mode != CullMode::None,
                                            mode == CullMode::FrustumAndOcclusion, lodPixels})) {
        const int pool = s.terrain.streamStats().pool;
        const std::string unread = s.terrain.streamer ? s.terrain.streamer->lastFailure() : "";
        std::fprintf(stderr, "quadterrain: %s\n",
                     (!unread.empty() ? "heights the view reads are unread: " + unread
                      : s.terrain.poolFixed
                          ? "--stream-pool " + std::to_string(pool) +
                                ": the view needs more level-0 pages than that many layers "
                                "hold; raise it, or leave it out to size the pool from the view"
                          : "the view needs more level-0 pages than the GPU holds (" +
                                std::to_string(pool) + " layers); narrow the view or raise --lod")
                         .c_str());
        target.value().destroy();
        return kExitFailure;
    }
    FrameStats stats;
    for (int frame = 0; frame < std::max(o.frames, 1); ++frame) {
        stats = renderFrame(s, target.value(), s.camera, mode, lodPixels);
    }
    std::vector<uint8_t> pixels;
    readPixels(target.value().width, target.value().height, pixels);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    target.value().destroy();
    s.context.checkErrors("the scripted frames");

    int status = 0;
    auto fail = [&status](const std::string& message) {
        std::fprintf(stderr, "quadterrain: %s\n", message.c_str());
        status = kExitFailure;
    };
    // A page the frames read that GDAL could not read was drawn from a coarser level: not the
    // picture asked for.
    // So is a view that reads more pages than the pool holds.
    if (s.terrain.imageryStreamer) {
        const ImageryStreamStats st = s.terrain.imageryStreamer->stats();
        if (const std::string unread = s.terrain.imageryStreamer->error(); !unread.empty()) {
            fail(escapedPath(s.imageryPath) + ": imagery pages unread (" +
                 std::to_string(st.failed) + "): " + unread);
        } else if (st.starved) {
            fail(escapedPath(s.imageryPath) + ": the view reads " + std::to_string(st.wanted) +
                 " imagery pages, more than the GPU's pool holds (" + std::to_string(st.pool) +
                 "); narrow the view or raise --memory-budget");
        }
    }
    if (!o.screenshotPath.empty()) {
        if (Status e = writeRgbaAsRgbPng(o.screenshotPath, o.windowWidth, o.windowHeight, pixels);
            !e) {
            fail(e.error());
        }
    }
    if (!o.statsJsonPath.empty()) {
        StatsReport report;
        report.path = s.terrain.path;
        report.width = s.terrain.map.width;
        report.height = s.terrain.map.height;
        report.glRenderer = s.renderer.glRenderer;
        report.mapping = s.terrain.mapping;
        report.map = &s.terrain.map;
        report.sun = s.sun;
        report.shadows = s.terrain.gpu.shadows != 0 || s.terrain.gpu.lightPaged();
        report.camera = s.camera;
        report.viewportHeight = o.windowHeight;
        report.target = o.target ? *o.target : s.camera.position + s.camera.forward();
        report.leafSize = s.terrain.tree.leafSize;
        report.gpu = &s.terrain.gpu;
        report.culling = cull;
        const StreamStats streaming = s.terrain.streamStats();
        report.streaming = s.terrain.streamed() ? &streaming : nullptr;
        report.mapped = s.terrain.map.codes.isMapped();
        report.onDemand = s.terrain.onDemand;
        report.sidecar = s.terrain.sidecar;
        report.codeCache = s.terrain.codeCache;
        report.codeCachePath = s.terrain.codeCachePath;
        report.sidecarPath = s.terrain.sidecarPath;
        if (s.terrain.tiles) {
            s.terrain.finishTiles(true);  // the same counts however fast the cache is kept
            report.tiles = layoutTileCounts(*s.terrain.tiles);
            report.tilesKept = s.terrain.tilesKept;
        }
        report.stats = stats;
        report.times = s.terrain.times;
        report.lodErrors = s.terrain.tree.lodErrors;
        if (o.dumpLeaves && stats.lod) {  // level of detail leaves the leaves as runs
            s.terrain.frame.drawList.clear();
            appendLeafCoords(s.terrain.tree, s.terrain.frame.drawn, s.terrain.frame.drawList);
        }
        report.visibleLeaves = o.dumpLeaves ? &s.terrain.frame.drawList : nullptr;
        report.objects = s.terrain.objects.get();
        report.lastStep = s.terrain.lastStep;
        report.imagery = &s.terrain.imagery;
        report.imageryStyle = s.renderer.imagery;
        if (s.terrain.imageryStreamer) {
            report.imageryStream = s.terrain.imageryStreamer->stats();
        }
        report.frame = &s.terrain.frame;
        report.dumpObjects = o.dumpObjects;
        PickHit pick;
        if (o.pick) {  // through the pixel's centre, for the frame's camera
            const Terrain& t = s.terrain;
            const PickRay ray = s.viewRay(float((*o.pick)[0]) + 0.5f, float((*o.pick)[1]) + 0.5f,
                                          o.windowWidth, o.windowHeight);
            if (const SamplePresence* presence = t.arriving()) {  // its tiles read first
                Result<PickHit> present = pickPresent(t.map, t.tree, t.mapping, ray, *presence);
                if (!present) {
                    fail("--pick: " + present.error());
                } else {
                    pick = present.value();
                }
            } else {
                pick = pickTerrain(t.map, t.tree, t.mapping, ray);
            }
            report.pick = &pick;
            if (pick.hit) {
                report.pickHeight = t.mapping.mapHeight(pick.world.y);
                report.pickGeo = s.geo.at(pick.world.x, pick.world.z, t.mapping);
            }
            if (t.objects) {
                report.pickObject = pickObjectBefore(*t.objects, ray, pick);
            }
        }
        const std::string json = statsJson(report);
        if (Status e = writeFile(o.statsJsonPath, json.data(), json.size()); !e) {
            fail(e.error());
        }
    }
    if (!o.cullMapPath.empty()) {
        const glm::mat4 viewProjection = s.camera.viewProjection();
        const RgbImage image = cullMapImage(s.terrain.tree, s.terrain.mapping,
                                            s.terrain.frame.walk.ranges, s.terrain.frame.drawn,
                                            Frustum::corners(viewProjection), s.camera.position);
        if (Status e = writePng(o.cullMapPath, image.width, image.height, 3, image.rgb.data());
            !e) {
            fail(e.error());
        }
    }
    return status;
}

}  // namespace qt
