// Terrain loading into temporaries, and a frame: the pipeline's decisions, then the draw.
#include "render/terrain.h"

#include <malloc.h>

#include <cassert>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/base/text.h"
#include "core/base/worker_pool.h"
#include "core/config.h"
#include "core/cull/occlusion.h"

namespace qt {

namespace {

using Clock = std::chrono::steady_clock;

// Culls a settling view may take before its pool is judged too small: each pass makes more of
// its pages resident while they fit (a handful of passes settles every view the tests fly).
constexpr int kSettlePasses = 8;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

void report(const LoadProgress& progress, LoadStep step) {
    if (progress) {
        progress(step);
    }
}

// A pool of `layers` whatever the page size (at most level 0's pages).
PagePool fixedPool(int layers) {
    return [layers](const HeightPages&) { return layers; };
}

// The pool for a view `viewportHeight` pixels high at `fovY`, at the finest level of detail a
// streamed terrain draws.
PagePool viewPool(int viewportHeight, float fovY, int leafSize) {
    return [=](const HeightPages& full) {
        return streamPoolLayers(full, fovY, viewportHeight, kStreamFinestPixels, leafSize);
    };
}

// The pool a streamed terrain starts with.
PagePool streamedPool(const StreamSettings& stream, int leafSize) {
    return stream.pool > 0 ? fixedPool(stream.pool)
                           : viewPool(stream.viewportHeight, stream.fovY, leafSize);
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
                                const LoadProgress& progress, int pageSize, Quadtree builtTree,
                                StreamSettings stream) {
    report(progress, LoadStep::BuildTree);
    Clock::time_point start = Clock::now();
    assert(builtTree.nodes.empty() || builtTree.leafSize == leafSize);
    Result<Quadtree> tree = !builtTree.nodes.empty() ? Result<Quadtree>(std::move(builtTree))
                                                     : buildQuadtree(map, leafSize);
    if (!tree) {
        return Result<Terrain>::failure(path + ": " + tree.error());
    }
    times.treeMs = msSince(start);
    report(progress, LoadStep::Upload);
    start = Clock::now();
    // A map in memory may take its level-0 pages on demand, through a pool sized from the view
    // as a streamed map's; its whole layout must fit the GPU all the same, for the frames
    // without level of detail (completeLevel0).
    // Level 0 streams only where a level 1 stands in for a page not yet arrived: a map of one
    // leaf (a tree of depth 0) is small, and its heights go to the GPU whole.
    stream.on = stream.on && tree.value().depth > 0;
    const bool onDemand =
        !stream.on && !map.codes.isMapped() && tree.value().depth > 0 &&
        (stream.level0 == Level0Upload::OnDemand ||
         (stream.level0 == Level0Upload::Auto && map.sampleCount() > kOnDemandSamples));
    if (onDemand) {
        if (Status whole = checkHeightPages(map.width, map.height, leafSize, pageSize); !whole) {
            return Result<Terrain>::failure(path + ": " + whole.error());
        }
    }
    const PagePool pool = stream.on || onDemand ? streamedPool(stream, leafSize) : PagePool{};
    assert(!stream.coarse || stream.on);
    Result<TerrainGpu> gpu =
        TerrainGpu::create(map, tree.value(), pageSize, stream.maxLayersPerArray, pool,
                           stream.coarse, stream.heldLevelsBytes);
    if (!gpu) {
        return Result<Terrain>::failure(path + ": " + gpu.error());
    }
    times.uploadMs = msSince(start);
    // The codes stay on the CPU as well (2 bytes a sample): picking, ground-follow and objects
    // standing on the terrain read the exact heights under a point (core/cull/pick.h).
#if defined(__GLIBC__)
    // A load frees hundreds of MB (file, decoder buffers); glibc keeps what it freed below
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
    terrain.frame.reserveFor(terrain.tree);
    terrain.context.reserveFor(terrain.tree);
    // The codes' storage moves with the map, so the job's view of them stays valid.
    // A tree that came with its exact errors (or a streamed map's, exact below its band cap)
    // needs no job; nor may mapped codes be read whole, which the job would do.
    if (terrain.tree.lodErrors == LodErrors::Range && !terrain.map.codes.isMapped()) {
        terrain.errorJob.start(terrain.map, terrain.tree);
    }
    if (stream.on || onDemand) {
        terrain.streamer = std::make_unique<PageStreamer>();
    }
    terrain.samples = std::move(stream.samples);
    terrain.coarse = std::move(stream.coarse);
    terrain.streamWorkers = stream.workers;
    terrain.onDemand = onDemand;
    terrain.pageSize = pageSize;
    terrain.maxLayersPerArray = stream.maxLayersPerArray;
    terrain.heldLevelsBytes = stream.heldLevelsBytes;
    if ((stream.on || onDemand) && stream.pool == 0) {
        terrain.poolViewport = stream.viewportHeight;
    }
    terrain.poolFixed = stream.pool > 0;
    return terrain;
}

namespace {

// Before a streamed frame's cull: starts the worker (at the terrain's final place, the first
// frame) and uploads what it filled, within the per-frame budget.
void uploadStreamedPages(Terrain& terrain, bool settle) {
    PageStreamer& streamer = *terrain.streamer;
    if (!streamer.running()) {
        streamer.start(terrain.map, terrain.gpu.pages, terrain.gpu.pages.poolLayers,
                       kStreamUploadsPerFrame, kStreamStagingPages, terrain.samples, terrain.coarse,
                       terrain.streamWorkers);
    }
    assert(streamer.map() == &terrain.map && "a streamed terrain does not move once drawn");
    // Under a Sun whose light is shown a page takes its light with its heights, from the bytes
    // shown (render/terrain_sun.h uploads the resident pages' at each new light).
    const PageStreamer::Upload upload = [&terrain](int layer, uint32_t page, const uint16_t* texels,
                                                   int64_t evicted) {
        terrain.gpu.uploadPage(layer, page, texels, evicted);
        if (terrain.gpu.lightPaged() && terrain.sunlight && terrain.sunlight->hasShown()) {
            terrain.gpu.uploadLightPage(layer, page, *terrain.sunlight,
                                        terrain.lightStaging.data());
        }
    };
    if (settle) {
        streamer.settle(upload);
    } else {
        streamer.upload(upload);
    }
}

// A streamed terrain always draws by level of detail, over its resident pages.
CullView streamedView(const Terrain& terrain, CullView view) {
    if (terrain.streamer) {
        view.lodPixels = view.lodPixels > 0.0f ? view.lodPixels : kStreamFinestPixels;
        view.residency = &terrain.streamer->residency();
    }
    return view;
}

}  // namespace

bool Terrain::settleStreaming(const CullView& view) {
    if (!streamer) {
        return true;
    }
    const bool firstOnDemand = !viewSettled && onDemand;
    viewSettled = true;  // before the culls below, which would otherwise settle again
    // Each pass culls (asking for every page its view needs from what is resident: more pages
    // make more level-1 nodes split, which may ask for more) and uploads every page filled. A
    // pass that asks for nothing and leaves no filled page waiting has settled. A view whose
    // pages fit the pool settles in a few passes; one that does not evicts what it asks for and
    // never does: its pool doubles. On demand, the first view's pages are timed from after the
    // first cull, which stands for the frame's own (a view without level of detail makes the
    // heights whole in it instead).
    Clock::time_point start = Clock::now();
    bool timed = false;
    bool settled = false;
    while (!settled && streamer) {
        const uint64_t failedBefore = streamer->stats().failedTotal;  // a new pool's streamer anew
        for (int pass = 0; pass < kSettlePasses && streamer; ++pass) {
            const uint64_t failedAtPass = streamer->stats().failedTotal;
            cullTerrain(*this, view);
            if (!timed) {
                start = Clock::now();
                timed = true;
            }
            // A page whose samples could not be read is Absent again, not asked for: the view
            // has not settled while one failed in the pass.
            const StreamStats st = streamStats();
            if (!streamer ||
                (st.requested == 0 && st.ready == 0 && st.failedTotal == failedAtPass)) {
                settled = true;
                break;
            }
            uploadStreamedPages(*this, true);
        }
        if (settled || !streamer || (poolFixed && !onDemand)) {
            break;
        }
        const StreamStats st = streamer->stats();
        if (st.failedTotal > failedBefore) {
            break;  // a page whose samples could not be read: no larger pool settles it
        }
        const int pooled = gpu.pages.pooledPages();
        if (st.pool >= pooled || !remakeHeights(fixedPool(std::min(2 * st.pool, pooled)))) {
            break;
        }
    }
    if (firstOnDemand) {
        times.pagesMs = onDemand ? msSince(start) : times.restMs;
    }
    return settled || !streamer;
}

bool Terrain::remakeHeights(const PagePool& pool) {
    Result<TerrainGpu> made =
        TerrainGpu::create(map, tree, pageSize, maxLayersPerArray, pool, coarse, heldLevelsBytes);
    if (!made) {
        return false;
    }
    if (streamer) {
        streamer->stop();
    }
    // A new streamer, started by the next frame over the new pool; none for whole heights.
    streamer = pool ? std::make_unique<PageStreamer>() : nullptr;
    gpu.destroy();
    gpu = made.value();
    return true;
}

StreamStats Terrain::streamStats() const {
    return streamer ? streamer->stats() : StreamStats{};
}

void Terrain::growPool(const CullView& view) {
    if (!streamer || poolFixed) {
        return;
    }
    const int pooled = gpu.pages.pooledPages();
    if (streamer->starved() && gpu.pages.poolLayers < pooled) {
        remakeHeights(fixedPool(std::min(2 * gpu.pages.poolLayers, pooled)));
        return;
    }
    if (poolViewport == 0) {
        return;
    }
    const int needed = streamPoolLayers(gpu.pages, view.camera.fovY, view.viewportHeight,
                                        kStreamFinestPixels, tree.leafSize);
    if (needed <= gpu.pages.poolLayers) {
        return;
    }
    const int viewport = view.viewportHeight + view.viewportHeight / 4;
    poolViewport = remakeHeights(viewPool(viewport, view.camera.fovY, tree.leafSize))
                       ? viewport
                       : 0;  // no more tries: the pool stays
}

void Terrain::completeLevel0() {
    if (!onDemand) {
        return;
    }
    const Clock::time_point start = Clock::now();
    // When even that fails (out of GPU memory), the terrain streams on as a map bigger than
    // memory does, drawn by level of detail.
    remakeHeights({});
    onDemand = false;
    poolViewport = 0;
    times.restMs = msSince(start);
}

StreamSettings streamByTiles(StreamSettings stream, const std::shared_ptr<LayoutStream>& tiles) {
    if (!tiles) {
        return stream;
    }
    stream.on = true;
    stream.samples = layoutSamples(tiles);
    stream.coarse = layoutLevelPages(tiles);  // at create and when remade, a thread a level
    stream.workers = layoutByNetwork(*tiles) ? kStreamNetworkWorkers : 1;
    return stream;
}

void Terrain::finishTiles(bool wait) {
    if (!tiles) {
        return;
    }
    if (!tilesFinishing.valid()) {
        if (tilesFinishStarted) {
            return;  // done
        }
        const LayoutTileCounts counts = layoutTileCounts(*tiles);
        if (counts.finished || counts.present < counts.total) {
            return;
        }
        tilesFinishStarted = true;
        tilesFinishing = std::async(std::launch::async, [stream = tiles] {
            runThisThreadInBackground();
            return finishLayoutCache(*stream);
        });
    }
    if (!wait && tilesFinishing.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return;
    }
    const Result<bool> finished = tilesFinishing.get();
    tilesKept = finished && finished.value();
    if (!finished) {
        tilesProblem = finished.error();
        std::fprintf(stderr, "quadterrain: %s\n", tilesProblem.c_str());
    }
}

void Terrain::adoptOpened(const OpenedMap& opened) {
    tiles = opened.tiles;
    presence = tiles ? layoutPresence(tiles) : SamplePresence{};
    asker = tiles ? std::make_unique<SampleAsker>(presence) : nullptr;
    sidecar = opened.sidecar;
    codeCache = opened.codeCache;
    codeCachePath = opened.codeCachePath;
    sidecarPath = opened.sidecarPath;
    if (opened.deferred.pending) {
        errorJob.startStreamed(map, tree, opened.deferred);
    }
}

void Terrain::finishErrors() {
    if (errorJob.pending()) {
        errorJob.finish(tree);
        tookErrors();
    }
}

void Terrain::tookErrors() {
    times.errorsMs = errorJob.milliseconds();
    if (errorJob.sidecarWritten()) {
        sidecar = "written";
    }
}

void Terrain::destroy() {
    imageryLoad.reset();  // waits for a load under way: it holds no reference to the terrain
    imageryStreamer.reset();
    errorJob.stop();
    sunlight.reset();
    if (streamer) {
        streamer->stop();
    }
    gpu.destroy();
}

void Terrain::setObjects(std::unique_ptr<ObjectScene> scene) {
    objects = std::move(scene);
    const uint32_t count = objects ? objects->count() : 0;
    selectedObjects.assign(count, 0);
    ++selectionVersion;
    frame.reserveObjects(count);
    lastStep = {};
}

void Terrain::stepObjects(int steps) {
    if (!objects || objects->movingCount() == 0) {
        return;
    }
    for (int i = 0; i < steps; ++i) {
        lastStep = objects->step(map, mapping);
    }
}

Status replaceTerrain(Terrain& current, const std::string& path, const LoadOptions& options,
                      int leafSize, const LoadProgress& progress, int pageSize,
                      StreamSettings stream) {
    Result<Terrain> loaded = loadTerrain(path, options, leafSize, progress, pageSize, stream);
    if (!loaded) {
        return Status::failure(loaded.error());
    }
    current.destroy();
    current = std::move(loaded).value();
    return {};
}

Result<OpenedTerrain> openTerrain(const std::string& path, const LoadOptions& options, int leafSize,
                                  int pageSize, StreamSettings stream, const PageLimits& limits,
                                  const LoadProgress& progress) {
    using R = Result<OpenedTerrain>;
    OpenedTerrain read;
    // A map that streams counts only its level-0 pool.
    const PagePool pool = stream.on || opensStreamed(path, options, stream.on)
                              ? streamedPool(stream, leafSize)
                              : PagePool{};
    const SizeCheck fitsGpu = [leafSize, pageSize, pool, limits](int width, int height) {
        return checkHeightPages(width, height, leafSize, pageSize, pool, limits);
    };
    Result<OpenedMap> opened =
        openStep(path, options, read.times, progress, fitsGpu, leafSize, stream.on);
    if (!opened) {
        return R::failure(opened.error());
    }
    read.opened = std::move(opened).value();
    // The map's own mapping must be a world of finite floats (a georeference may space samples
    // 1e-300 or 1e300 metres apart); the command line's map is checked with its options instead.
    MappingOrigin origin;
    origin.mapName = escapedPath(path);
    origin.spacingGiven = false;
    origin.heightScaleGiven = false;
    if (Status world = checkWorldFinite(read.opened.map, defaultMapping(read.opened.map), origin);
        !world) {
        return R::failure(world.error());
    }
    read.stream = streamByTiles(stream, read.opened.tiles);
    read.stream.on = stream.on || read.opened.streamed;
    return read;
}

Result<Terrain> createTerrain(OpenedTerrain read, const std::string& path, int pageSize,
                              const LoadProgress& progress) {
    OpenedMap& o = read.opened;
    Result<Terrain> terrain = Terrain::create(std::move(o.map), o.leafSize, path, read.times,
                                              progress, pageSize, std::move(o.tree), read.stream);
    if (terrain) {
        terrain.value().adoptOpened(o);
    }
    return terrain;
}

Result<Terrain> loadTerrain(const std::string& path, const LoadOptions& options, int leafSize,
                            const LoadProgress& progress, int pageSize, StreamSettings stream) {
    Result<OpenedTerrain> read =
        openTerrain(path, options, leafSize, pageSize, stream, queryPageLimits(), progress);
    if (!read) {
        return Result<Terrain>::failure(read.error());
    }
    return createTerrain(std::move(read).value(), path, pageSize, progress);
}

Result<OpenedMap> openStep(const std::string& path, const LoadOptions& options, LoadTimes& times,
                           const LoadProgress& progress, const SizeCheck& acceptSize, int leafSize,
                           bool stream) {
    report(progress, LoadStep::Decode);
    const Clock::time_point start = Clock::now();
    Result<OpenedMap> opened = openMap(path, options, acceptSize, leafSize, stream);
    times.decodeMs = msSince(start);
    return opened;
}

Result<Heightmap> decodeStep(const std::string& path, const LoadOptions& options, LoadTimes& times,
                             const LoadProgress& progress, const SizeCheck& acceptSize,
                             int treeLeafSize, Quadtree* tree) {
    report(progress, LoadStep::Decode);
    const Clock::time_point start = Clock::now();
    Result<Heightmap> map = loadHeightmap(path, options, acceptSize, treeLeafSize, tree);
    times.decodeMs = msSince(start);
    return map;
}

namespace {

// cullTerrain in its two parts: the GL uploads (the errors taken, the pages filled since the last
// frame), then the CPU's pipeline and the pages asked for.
void uploadForView(Terrain& terrain, const CullView& view) {
    terrain.finishTiles();
    if (terrain.errorJob.takeIfDone(terrain.tree)) {
        terrain.tookErrors();
    }
    if (terrain.onDemand) {
        if (view.lodPixels <= 0.0f) {
            terrain.completeLevel0();  // full detail reads every level-0 page
        } else if (!terrain.viewSettled) {
            terrain.settleStreaming(view);  // the first view waits for its pages
        }
    }
    if (terrain.streamer) {
        terrain.growPool(view);
        uploadStreamedPages(terrain, false);
    }
}

FrameStats cullUploaded(Terrain& terrain, const CullView& view) {
    FrameStats stats =
        runFrame(terrain.map, terrain.tree, terrain.mapping, streamedView(terrain, view),
                 terrain.frame, terrain.objects ? &terrain.objects->index() : nullptr);
    if (terrain.streamer) {
        terrain.streamer->request(terrain.frame.lod.requests);
        terrain.streamer->markDrawn(terrain.frame.lod.nodes, terrain.tree.leafShift,
                                    terrain.frame.lod.shadingPages);
    }
    return stats;
}

}  // namespace

FrameStats cullTerrain(Terrain& terrain, const CullView& view) {
    uploadForView(terrain, view);
    return cullUploaded(terrain, view);
}

namespace {

// The imagery pages the frame's instances read, asked for from the viewing camera, and those read
// since the last frame uploaded: all of them first when the terrain waits for its imagery.
void streamImagery(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                   const CullView& view, bool lod, bool wireframe) {
    if (!terrain.imageryStreamer || !renderer.imagery.on || wireframe) {
        return;
    }
    ImageryStreamer& streamer = *terrain.imageryStreamer;
    const Heightmap& map = terrain.map;
    const ImageryView at = imageryView(
        streamer.plan(), terrain.mapping, camera, view.viewportHeight,
        terrain.mapping.worldHeight(map.minSample), terrain.mapping.worldHeight(map.maxSample));
    if (lod) {
        streamer.request(terrain.tree, at, terrain.frame.lod.nodes);
    } else {
        streamer.request(terrain.tree, at, terrain.frame.drawList);
    }
    ImageryGpu& gpu = terrain.gpu.imagery;
    const ImageryStreamer::Upload upload = [&gpu](int layer, uint32_t page, const uint8_t* rgba,
                                                  int64_t evicted) {
        gpu.uploadPage(layer, page, rgba, evicted);
    };
    if (renderer.imagery.waitForPages) {
        streamer.settle(upload);
    } else {
        streamer.upload(upload);
    }
}

// The GL work in sections (the terrain's uploads; the objects' uploads and runs' expansion; the
// terrain's draws; the objects' draws; the sky) around the CPU's culling and the objects'
// instances, so that `sections` (when not null) times the GPU's work alone, the objects' apart.
FrameStats cullAndDraw(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                       const CullView& view, DrawStyle style, ObjectRenderer* objects,
                       GpuSections* sections) {
    {
        const GpuSection uploads(sections);
        uploadForView(terrain, view);
    }
    FrameStats stats = cullUploaded(terrain, view);
    // Back faces: decided by the viewing camera alone, so culled and unculled frames draw alike.
    const FrameBuffers& frame = terrain.frame;
    if (stats.lod) {
        groupByProgram(terrain.frame);
    }
    const uint32_t instances = uint32_t(stats.lod ? frame.lod.nodes.size() : frame.drawList.size());
    style.cullBackFaces = renderer.backFaceCulling && instances > 0 &&
                          drawsFrontFacesOnly(terrain.tree, terrain.mapping, camera);
    style.viewportHeight = view.viewportHeight;
    stats.instancesFrontOnly = style.cullBackFaces ? instances : 0;
    const bool drawObjects = objects && terrain.objects;
    if (drawObjects) {
        const auto start = std::chrono::steady_clock::now();
        objects->prepare(*terrain.objects, frame.objectsDrawn, &frame.objectsDrawnGroups,
                         terrain.selectedObjects, terrain.selectionVersion, camera,
                         view.viewportHeight);
        stats.objectPrepareMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        const GpuSection uploads(sections, GpuWork::Objects);
        objects->upload();
    }
    {
        const GpuSection draws(sections);
        streamImagery(renderer, terrain, camera, view, stats.lod, style.wireframe);
        stats.drawCalls = stats.lod ? renderer.draw(terrain.gpu, terrain.mapping, camera,
                                                    frame.lod.nodes, frame.holesFrom, style)
                                    : renderer.draw(terrain.gpu, terrain.mapping, camera,
                                                    frame.drawList, frame.holesFrom, style);
        stats.drawCalls += renderer.drawWater(terrain.gpu, terrain.mapping, camera);
    }
    if (drawObjects) {
        const GpuSection draws(sections, GpuWork::Objects);
        objects->sky = renderer.skyFrameFor(terrain.gpu, terrain.mapping, camera);
        objects->sun.reset();
        if (renderer.sun) {
            objects->sun = ObjectRenderer::SunLight{
                sunVector(*renderer.sun),
                terrain.gpu.shadows,
                glm::ivec2(terrain.gpu.shadowColumnsPerLayer, terrain.gpu.shadowRowsPerLayer),
                terrain.gpu.shadowLayersAcross,
                glm::vec2(terrain.mapping.spacingX, terrain.mapping.spacingZ),
                glm::ivec2(terrain.gpu.width, terrain.gpu.height),
                &terrain.gpu};
        }
        stats.objectDrawCalls = objects->submit(camera);
        stats.objectTriangles = instanceTriangles(objects->instances);
        stats.objectUploadBytes = objects->uploadBytes;
    }
    const GpuSection sky(sections);
    stats.drawCalls += renderer.drawSky(terrain.gpu, terrain.mapping, camera);
    stats.syncedDraws = renderer.syncDraws;
    stats.backFacesCulled = style.cullBackFaces;
    return stats;
}

}  // namespace

FrameStats renderTerrain(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                         const CullView& view, bool wireframe, ObjectRenderer* objects,
                         GpuSections* sections) {
    DrawStyle style;
    style.wireframe = wireframe;
    return cullAndDraw(renderer, terrain, camera, view, style, objects, sections);
}

FrameStats renderFrozenView(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                            const CullView& view, bool wireframe, ObjectRenderer* objects) {
    DrawStyle style;
    style.wireframe = wireframe;
    style.markStencil = true;
    FrameStats stats = cullAndDraw(renderer, terrain, camera, view, style, objects, nullptr);
    // The rest: the viewing camera's own level-of-detail selection, culled by its frustum.
    const Heightmap& map = terrain.map;
    const WorldMapping& mapping = terrain.mapping;
    LodParams params =
        lodParams(terrain.tree, mapping, camera, view.viewportHeight, kFrozenContextPixels,
                  mapping.worldHeight(map.minSample), mapping.worldHeight(map.maxSample));
    updateLodReach(terrain.tree, mapping, params, terrain.frame.lodReach);
    params.reach = &terrain.frame.lodReach;
    params.residency = terrain.streamer ? &terrain.streamer->residency() : nullptr;
    const Frustum frustum = cullingFrustum(camera, mapping, worldExtent(map, mapping));
    selectLod(terrain.tree, mapping, params, &frustum, terrain.context);
    DrawStyle context;
    context.wireframe = wireframe;
    context.outsideStencil = true;
    context.dim = kFrozenContextDim;
    context.viewportHeight = view.viewportHeight;
    // The context is a debugging view: every node with the hole test on a map with holes.
    stats.drawCalls +=
        renderer.draw(terrain.gpu, mapping, camera, terrain.context.nodes, 0, context);
    return stats;
}

}  // namespace qt
