// Session set-up and tear-down in dependency order; loads go into temporaries first.
#include "app/session.h"

#include <unistd.h>
#include <chrono>

#include <algorithm>
#include <cstdio>

#include <glm/trigonometric.hpp>

#include "app/folders.h"
#include "app/resources.h"
#include "app/sun_option.h"
#include "core/base/text.h"
#include "core/cull/occlusion.h"
#include "core/streaming/cache_folder.h"
#include "core/streaming/streamed_map.h"
#include "core/terrain/sample_presence.h"
#include "qt_source_paths.h"
#include "render/terrain_sun.h"

namespace qt {
namespace {

// On a terminal, one line that shows the step of the load under way and is then replaced by the
// times of each step; nothing when stderr is a file or a pipe (scripts and tests read it).
struct TerminalProgress {
    explicit TerminalProgress(const std::string& path)
        : name(escapedPath(path)), on(isatty(STDERR_FILENO)) {}

    void operator()(LoadStep step) const {
        if (on) {
            std::fprintf(stderr, "\rquadterrain: loading %s: %s...\033[K", name.c_str(),
                         loadStepName(step));
            std::fflush(stderr);
        }
    }
    void done(const Terrain& t) const {
        if (on) {
            std::fprintf(stderr,
                         "\rquadterrain: loaded %s, %dx%d, in %.2f s (decode %.2f s, tree %.2f s, "
                         "upload %.2f s)\033[K\n",
                         name.c_str(), t.map.width, t.map.height, t.times.totalMs() / 1000.0,
                         t.times.decodeMs / 1000.0, t.times.treeMs / 1000.0,
                         t.times.uploadMs / 1000.0);
        }
    }
    void failed() const {
        if (on) {
            std::fprintf(stderr, "\r\033[K");  // the error line follows on a clean line
        }
    }
    // LoadOptions::readProgress: a long first read (a layout's level 0, a raster's pass into its
    // code cache), in whole percents, said again when the percent moves.
    void read(int64_t done, int64_t total) const {
        const int percent = readPercent(done, total);
        if (on && percent != shownPercent) {
            shownPercent = percent;
            std::fprintf(stderr, "\rquadterrain: loading %s: %d%% read...\033[K", name.c_str(),
                         percent);
            std::fflush(stderr);
        }
    }
    mutable int shownPercent = -1;

    std::string name;
    bool on;
};

// The map's default mapping with the options' values in place of its defaults.
WorldMapping optionsMapping(const Heightmap& map, const ViewerOptions& options) {
    WorldMapping mapping = defaultMapping(map);
    mapping.spacingX = options.spacingX.value_or(mapping.spacingX);
    mapping.spacingZ = options.spacingZ.value_or(mapping.spacingZ);
    mapping.heightScale = options.heightScale.value_or(mapping.heightScale) * options.exaggeration;
    mapping.heightOffset = options.heightOffset.value_or(mapping.heightOffset);
    return mapping;
}

// How the options' maps are read: raw size, encoding and the memory budget checked before
// the pixels are read.
LoadOptions loadOptions(const ViewerOptions& options) {
    LoadOptions load;
    load.rawWidth = options.rawWidth;
    load.rawHeight = options.rawHeight;
    load.encoding = options.encoding;
    load.memory.limitBytes = memoryBudgetBytes(options, physicalMemoryBytes());
    load.fillNodata = options.fillNodata;
    load.cacheDir = options.cacheDir;
    load.cacheBeside = options.cacheBeside;
    load.cacheSizeBytes = options.cacheSizeMb.value_or(0) << 20;
    // A layout opened streamed fetches its level 0 by tiles as the view asks for them, unless
    // objects are scattered over it at open: that reads every sample.
    load.layoutByTiles = options.objects == 0;
    return load;
}

// How the options' maps send their heights to the GPU; `mapped`: the map opened streamed.
StreamSettings streamSettings(const ViewerOptions& options, bool mapped) {
    StreamSettings stream;
    stream.on = options.stream || mapped;
    stream.pool = options.streamPool;
    stream.viewportHeight = options.windowHeight;
    stream.fovY = glm::radians(options.fovDegrees);
    // On demand pays off only while frames draw by level of detail.
    const bool lodOff = options.lodPixels && *options.lodPixels <= 0.0f;
    stream.level0 =
        options.upload == Level0Upload::Auto && lodOff ? Level0Upload::Whole : options.upload;
    return stream;
}

// What ObjectScene::scatter takes of the options.
ScatterRequest scatterRequest(const ViewerOptions& options) {
    return {options.objects, options.moving, options.seed, options.objectScale};
}

}  // namespace

Result<Session> Session::create(const ViewerOptions& options, bool* usage) {
    Session session;
    session.options = options;
    const std::string path =
        options.heightmapPath.empty() ? defaultHeightmapPath() : options.heightmapPath;
    LoadOptions load = loadOptions(options);
    load.hgtTile = options.georef;
    const TerminalProgress terminal(path);
    load.readProgress = [&terminal](int64_t done, int64_t total) { terminal.read(done, total); };
    LoadTimes times;
    Result<OpenedMap> opened =
        openStep(path, load, times, std::cref(terminal), {}, options.leafSize, options.stream);
    load.readProgress = {};  // `terminal` goes with this function
    if (!opened) {
        terminal.failed();
        return Result<Session>::failure(opened.error());
    }
    if (!options.georef.empty() && opened.value().map.format != HeightmapFormat::Hgt) {
        terminal.failed();
        return Result<Session>::failure("--georef " + options.georef + " places an SRTM .hgt; " +
                                        escapedPath(path) + " is not one");
    }
    Result<Heightmap> map(std::move(opened.value().map));
    Quadtree tree = std::move(opened.value().tree);  // a GDAL raster's or a streamed map's
    // The options' mapping is checked before any GL: a world that is not finite floats is refused,
    // naming the option or the map that set the value at fault.
    MappingOrigin origin;
    origin.mapName = escapedPath(path);
    origin.spacingGiven = options.spacingX.has_value();
    origin.heightScaleGiven = options.heightScale.has_value();
    origin.exaggeration = options.exaggeration;
    if (Status world = checkWorldFinite(map.value(), optionsMapping(map.value(), options), origin);
        !world) {
        terminal.failed();
        return Result<Session>::failure(world.error());
    }
    // The Sun too: --sun needs the map's longitude and latitude.
    Result<std::optional<SunDirection>> sun = sunForMap(
        options, map.value(), options.sunInstant ? GeoTransform(map.value()) : GeoTransform());
    if (!sun) {
        terminal.failed();
        if (usage != nullptr) {
            *usage = true;
        }
        return Result<Session>::failure(sun.error());
    }
    session.sun = sun.value();
    // The objects too: a scene the map has no room for is refused before any window opens.
    std::optional<ScatteredObjects> objects;
    if (options.objects > 0) {
        Result<ScatteredObjects> made = scatterWithOrder(
            map.value(), optionsMapping(map.value(), options), scatterRequest(options));
        if (!made) {
            terminal.failed();
            return Result<Session>::failure(made.error());
        }
        objects.emplace(std::move(made).value());
    }
    if (!options.shaderDir.empty()) {
        if (!isDirectory(options.shaderDir)) {
            terminal.failed();
            return Result<Session>::failure("--shaders " + escapedPath(options.shaderDir) +
                                            ": not a folder");
        }
        session.shaderDir = options.shaderDir;
    } else {
        session.shaderDir = findResourceDir("shaders");
    }
    if (session.shaderDir.empty()) {
        terminal.failed();
        return Result<Session>::failure(
            "cannot find the shaders/ directory next to the executable or in " +
            std::string(QT_SOURCE_DIR));
    }

    GlContextOptions contextOptions;
    contextOptions.width = options.windowWidth;
    contextOptions.height = options.windowHeight;
    // Runs that only write files never show a window; --frames alone shows the viewer.
    contextOptions.visible = options.screenshotPath.empty() && options.statsJsonPath.empty() &&
                             options.cullMapPath.empty() && options.benchCsvPath.empty() &&
                             options.soakFrames == 0;
    Result<GlContext> context = GlContext::create(contextOptions);
    if (!context) {
        terminal.failed();
        return Result<Session>::failure(context.error());
    }
    session.context = context.value();

    Result<TerrainRenderer> renderer = TerrainRenderer::create(session.shaderDir);
    Result<DebugLines> lines =
        renderer ? DebugLines::create(session.shaderDir) : Result<DebugLines>(DebugLines{});
    Result<ObjectRenderer> objectRenderer = renderer && lines
                                                ? ObjectRenderer::create(session.shaderDir)
                                                : Result<ObjectRenderer>(ObjectRenderer{});
    Result<Terrain> terrain =
        renderer && lines && objectRenderer
            ? Terrain::create(std::move(map).value(), opened.value().leafSize, path, times,
                              std::cref(terminal), options.pageSize, std::move(tree),
                              streamByTiles(streamSettings(options, opened.value().streamed),
                                            opened.value().tiles))
            : Result<Terrain>::failure("");
    if (!renderer || !lines || !objectRenderer || !terrain) {
        // A shader's compile log on the error's one line.
        const std::string error = !renderer         ? joinedLines(renderer.error())
                                  : !lines          ? joinedLines(lines.error())
                                  : !objectRenderer ? joinedLines(objectRenderer.error())
                                                    : terrain.error();
        if (renderer) {
            renderer.value().destroy();
        }
        if (lines) {
            lines.value().destroy();
        }
        if (objectRenderer) {
            objectRenderer.value().destroy();
        }
        session.context.destroy();
        terminal.failed();
        return Result<Session>::failure(error);
    }
    terminal.done(terrain.value());
    session.renderer = renderer.value();
    if (options.syncDraws) {
        session.renderer.syncDraws = *options.syncDraws;
    }
    session.renderer.backFaceCulling = !options.drawBackFaces;
    session.renderer.water = options.water;
    session.renderer.fog = Fog{options.fogOn, options.fogStart};
    session.objectRenderer.fog = session.renderer.fog;
    session.renderer.contourInterval = options.contourInterval;
    session.renderer.imagery.opacity = options.imageryOpacity;
    session.renderer.imagery.lit = options.imageryLit;
    session.lines = std::move(lines).value();
    session.objectRenderer = std::move(objectRenderer).value();
    session.terrain = std::move(terrain).value();
    session.terrain.adoptOpened(opened.value());
    session.terrain.mapping = optionsMapping(session.terrain.map, options);
    session.geo = GeoTransform(session.terrain.map);
    session.objectRenderer.reserve(options.objects);
    if (objects) {
        session.adoptObjects(std::move(*objects));
    }
    session.resetCamera(float(options.windowWidth) / float(options.windowHeight));
    // Imagery: a scripted run waits for it, and fails as a bad map does when it cannot be shown;
    // the viewer draws its first frames without it and takes it when it is ready.
    if (!options.imageryPath.empty()) {
        session.startImagery(options.imageryPath);
        if (!contextOptions.visible) {
            std::optional<ImageryOutcome> draped = session.finishImagery(true);
            if (draped && !draped->status) {
                session.destroy();
                return Result<Session>::failure(draped->status.error());
            }
        }
    }
    return session;
}

void Session::startImagery(const std::string& path) {
    imageryPath = path;
    // Its texels take at most a quarter of the memory budget (a software rasteriser's GPU
    // memory is host memory, and the texels are held once more while they go to the GPU).
    const uint64_t budget = memoryBudgetBytes(options, physicalMemoryBytes());
    startTerrainImagery(terrain, path, std::min(kImageryBytes, budget / 4),
                        options.imageryCompression);
}

std::optional<ImageryOutcome> Session::finishImagery(bool wait) {
    std::optional<ImageryOutcome> outcome = finishTerrainImagery(terrain, wait);
    if (outcome) {
        for (const std::string& warning : outcome->warnings) {
            std::fprintf(stderr, "quadterrain: %s\n", warning.c_str());
        }
        if (!terrain.gpu.imagery.present()) {
            imageryPath.clear();
        }
    }
    return outcome;
}

Status Session::scatterObjects(bool wait) {
    terrain.setObjects(nullptr);
    objectScatter.drop();  // one asked for before
    if (objectHeights != nullptr && objectHeights->map != terrain.tiles) {
        objectHeights->stop->store(true);  // a map since replaced: its fetch ends
        retiring.push_back(std::move(*objectHeights));
        objectHeights.reset();
    }
    if (options.objects == 0) {
        return {};
    }
    // They stand on the heights everywhere: a map whose tiles arrive as asked for fetches the rest.
    const SamplePresence* presence = terrain.arriving();
    const int width = terrain.map.width, height = terrain.map.height;
    if (presence != nullptr && !presence->present(0, 0, width - 1, height - 1)) {
        if (!wait) {
            if (objectHeights == nullptr) {  // else the one under way goes on
                objectHeights = std::make_unique<HeightsFetch>();
                objectHeights->map = terrain.tiles;
                objectHeights->done =
                    std::async(std::launch::async,
                               [copy = *presence, width, height, stop = objectHeights->stop] {
                                   return ensureWholeMap(copy, width, height, *stop);
                               });
            }
            return {};
        }
        if (Status all = presence->ensure(0, 0, width - 1, height - 1); !all) {
            return all;
        }
    }
    if (!wait) {
        objectScatter.start(terrain.map, terrain.mapping, scatterRequest(options));
        return {};
    }
    Result<ScatteredObjects> made =
        scatterWithOrder(terrain.map, terrain.mapping, scatterRequest(options));
    if (!made) {
        return Status::failure(made.error());
    }
    adoptObjects(std::move(made).value());
    return {};
}

void Session::adoptObjects(ScatteredObjects made) {
    objectRenderer.reserve(made.scene.count());
    objectRenderer.adoptOrder(std::move(made.order));
    terrain.setObjects(std::make_unique<ObjectScene>(std::move(made.scene)));
}

std::string Session::finishObjects() {
    retiring.erase(std::remove_if(retiring.begin(), retiring.end(),
                                  [](const HeightsFetch& f) {
                                      return f.done.wait_for(std::chrono::seconds(0)) ==
                                             std::future_status::ready;
                                  }),
                   retiring.end());
    if (std::optional<Result<ScatteredObjects>> made = objectScatter.take()) {
        if (!*made) {
            return "objects not scattered: " + made->error();
        }
        adoptObjects(std::move(*made).value());
        return scatteredLine();
    }
    if (objectHeights == nullptr ||
        objectHeights->done.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return "";
    }
    const Status fetched = objectHeights->done.get();
    const bool thisMap = objectHeights->map == terrain.tiles;
    objectHeights.reset();
    if (!thisMap) {
        return "";
    }
    if (!fetched) {
        return "objects not scattered: " + fetched.error();
    }
    const Status scattered = scatterObjects(false);
    return scattered ? "" : scattered.error();
}

void Session::destroy() {
    objectScatter.end();
    // A fetch of the objects' heights stops within a band of rows (the futures wait for it).
    if (objectHeights != nullptr) {
        objectHeights->stop->store(true);
    }
    for (HeightsFetch& f : retiring) {
        f.stop->store(true);
    }
    objectHeights.reset();
    retiring.clear();
    terrain.destroy();
    objectRenderer.destroy();
    lines.destroy();
    renderer.destroy();
    context.destroy();
}

LoadOptions Session::nextLoadOptions(const std::string& path) const {
    // The current map stays loaded until the new one has: both count against the budget.
    LoadOptions load = loadOptions(options);
    // --georef places the map it came with, reloaded too; another .hgt goes by its own name.
    load.hgtTile = path == options.heightmapPath ? options.georef : "";
    // A streamed map holds its tree and its GPU pages, not its codes.
    load.memory.heldBytes =
        terrain.map.codes.isMapped()
            ? quadtreeBytes(terrain.map.width, terrain.map.height, terrain.tree.leafSize) +
                  uint64_t(terrain.gpu.bytesPerSample() * double(terrain.map.sampleCount()))
            : loadPeakBytes(terrain.map.width, terrain.map.height, kHeldBytesPerSample);
    return load;
}

Status Session::replaceTerrain(const std::string& path, const LoadProgress& progress) {
    return adoptTerrain(loadTerrain(path, nextLoadOptions(path), options.leafSize, progress,
                                    options.pageSize, streamSettings(options, false)));
}

Status Session::startLoad(const std::string& path) {
    if (pendingLoad) {
        return Status::failure("still reading " + escapedPath(pendingLoad->path) +
                               "; one map is read at a time");
    }
    auto pending = std::make_unique<PendingLoad>();
    pending->path = path;
    LoadOptions load = nextLoadOptions(path);
    load.readProgress = [progress = pending->progress](int64_t done, int64_t total) {
        progress->total.store(total);
        progress->done.store(done);
    };
    // Everything the thread needs is taken here, on the GL thread: the GL's limits too.
    pending->read = std::async(
        std::launch::async,
        [path, load = std::move(load), leafSize = options.leafSize, pageSize = options.pageSize,
         stream = streamSettings(options, false), limits = queryPageLimits()] {
            return openTerrain(path, load, leafSize, pageSize, stream, limits);
        });
    pendingLoad = std::move(pending);
    return {};
}

std::optional<Status> Session::finishLoad(const LoadProgress& progress) {
    if (!pendingLoad ||
        pendingLoad->read.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return std::nullopt;
    }
    Result<OpenedTerrain> read = pendingLoad->read.get();
    const std::string path = pendingLoad->path;
    pendingLoad.reset();
    if (!read) {
        return Status::failure(read.error());
    }
    return adoptTerrain(createTerrain(std::move(read).value(), path, options.pageSize, progress),
                        false);
}

Status Session::adoptTerrain(Result<Terrain> loaded, bool waitForObjects) {
    if (!loaded) {
        return Status::failure(loaded.error());
    }
    objectScatter.end();  // it reads the map about to go
    terrain.destroy();
    terrain = std::move(loaded).value();
    geo = GeoTransform(terrain.map);
    applySun(false);
    // The imagery follows to the new map, loaded behind its first frames; its failure is no
    // failure of the load (the map shows without it).
    if (!imageryPath.empty()) {
        startImagery(imageryPath);
    }
    options.eye.reset();  // the command line's camera belonged to the first map
    options.target.reset();
    resetCamera(camera.aspect);
    // The objects follow the new ground; a map with no room for them keeps none.
    return scatterObjects(waitForObjects);
}

Status Session::reloadShaders() {
    Status terrainShaders = renderer.reloadShaders();
    Status lineShaders = lines.reloadShaders(shaderDir);
    Status objectShaders = objectRenderer.reloadShaders();
    return !terrainShaders ? terrainShaders : !lineShaders ? lineShaders : objectShaders;
}

const std::string& Session::lateShaderFailure() const {
    const std::string& terrainFailure = renderer.programs.lateFailure();
    return !terrainFailure.empty() ? terrainFailure : objectRenderer.programs.lateFailure();
}

void Session::applySun(bool wait) {
    setTerrainSun(terrain, renderer, sun, wait, memoryBudgetBytes(options, physicalMemoryBytes()),
                  lightScratchDir());
}

PickRay Session::viewRay(float pixelX, float pixelY, int width, int height) const {
    PickRay ray = pixelRay(camera, pixelX, pixelY, width, height);
    ray.frontFacesOnly =
        renderer.backFaceCulling && drawsFrontFacesOnly(terrain.tree, terrain.mapping, camera);
    return ray;
}

std::string Session::lightScratchDir() const {
    if (!terrain.map.codes.isMapped()) {
        return "";  // held whole: its light is on the heap
    }
    const std::string folder = cacheFolder(options.cacheDir);
    return !folder.empty() && makeCacheFolder(folder) ? folder : scratchFolder();
}

void Session::resetCamera(float aspect) {
    const float fovY = glm::radians(options.fovDegrees);
    if (options.eye && options.target) {
        camera = Camera{};
        camera.fovY = fovY;
        camera.aspect = aspect;
        camera.lookAt(*options.eye, *options.target);
        fitClipPlanes(camera, terrain.map, terrain.mapping);
    } else {
        camera = overviewCamera(terrain.map, terrain.mapping, aspect, fovY);
    }
}

}  // namespace qt
