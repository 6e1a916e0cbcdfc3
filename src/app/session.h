// What one run of the viewer owns: window and context, renderers, the terrain and the camera.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/options.h"
#include "core/cull/pick.h"
#include "core/light/sun_position.h"
#include "core/objects/scatter_job.h"
#include "core/terrain/geo_transform.h"
#include "core/view/camera.h"
#include "render/debug_lines.h"
#include "render/gl_context.h"
#include "render/terrain.h"
#include "render/terrain_imagery.h"
#include "render/terrain_renderer.h"

namespace qt {

// Exit statuses: usage errors, and failures to load or to get a working OpenGL.
constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

struct Session {
    ViewerOptions options;
    GlContext context;
    TerrainRenderer renderer;
    ObjectRenderer objectRenderer;
    DebugLines lines;
    Terrain terrain;
    GeoTransform geo;  // the terrain's map to its CRS and WGS 84, made at each load
    Camera camera;
    std::string shaderDir;
    // --sun or --sun-azimuth/--sun-elevation, then the HUD's; none: the fixed light.
    std::optional<SunDirection> sun;
    // The imagery asked for (--imagery, then the HUD's); "": none. It follows the terrain to a
    // newly loaded map.
    std::string imageryPath;
    // A map being read by startLoad.
    struct PendingLoad {
        std::string path;
        std::future<Result<OpenedTerrain>> read;
        // How far its read has gone (LoadOptions::readProgress, ReadProgress's steps), set by the
        // reading thread; total 0 while nothing is counted.
        struct Progress {
            std::atomic<int64_t> done{0};
            std::atomic<int64_t> total{0};
        };
        std::shared_ptr<Progress> progress = std::make_shared<Progress>();
    };
    std::unique_ptr<PendingLoad> pendingLoad;
    // The heights objects stand on, fetched for a map whose tiles arrive as asked for: the rest of
    // its samples read on a thread of their own (ensureWholeMap), so that the window keeps
    // answering, the objects scattered once they are in (finishObjectHeights). A fetch for a map
    // since replaced is told to stop and kept until it has (retiring).
    struct HeightsFetch {
        std::shared_ptr<LayoutStream> map;  // what it fetches into, held: known by its address
        std::shared_ptr<std::atomic<bool>> stop = std::make_shared<std::atomic<bool>>(false);
        std::future<Status> done;
    };
    std::unique_ptr<HeightsFetch> objectHeights;
    std::vector<HeightsFetch> retiring;
    // The scatter of scatterObjects(false), made off the frame's thread with its static objects'
    // order (core/objects/scatter_job.h), so that the window keeps answering while a million
    // objects are placed, and taken by finishObjects. It reads the terrain's map in place, so
    // whatever replaces the map ends it first.
    ScatterJob objectScatter;

    // Loads the heightmap first (so a bad file is reported even without a display), then opens
    // the window (hidden for scripted runs), loads the shaders and uploads the terrain.
    // `usage` is set when the failure is the command line's (exit status 2).
    static Result<Session> create(const ViewerOptions& options, bool* usage = nullptr);
    // Everything GL first, then the window and GLFW.
    void destroy();

    // Loads another heightmap; the current terrain stays when that fails (error returned).
    Status replaceTerrain(const std::string& path, const LoadProgress& progress = {});
    // The same in two steps, so that frames go on while a map is read (a large file, a slow
    // server): startLoad reads `path` on a thread of its own (openTerrain), and finishLoad, called
    // between frames, makes the terrain from it once read (createTerrain, GL) and replaces the
    // current one as replaceTerrain does; nullopt while the read goes on, or with none started.
    // One load at a time: startLoad while one is reading fails with its line.
    Status startLoad(const std::string& path);
    std::optional<Status> finishLoad(const LoadProgress& progress = {});
    // The path being read, "" when none is.
    std::string loadingPath() const { return pendingLoad ? pendingLoad->path : std::string(); }
    // How far that read has gone, (done, total) in its own steps (ReadProgress); total 0 when
    // none is read or nothing is counted.
    std::pair<int64_t, int64_t> loadingProgress() const {
        return pendingLoad ? std::pair<int64_t, int64_t>{pendingLoad->progress->done.load(),
                                                         pendingLoad->progress->total.load()}
                           : std::pair<int64_t, int64_t>{0, 0};
    }
    // The options of a load that replaces the current terrain: the current map counted as held
    // against the memory budget while the new one loads.
    LoadOptions nextLoadOptions(const std::string& path) const;
    // The current terrain replaced by `loaded` (the old GL objects destroyed), then the Sun, the
    // imagery, the camera and the objects set up on it (scatterObjects(waitForObjects));
    // `loaded`'s error when it failed, the current terrain untouched.
    Status adoptTerrain(Result<Terrain> loaded, bool waitForObjects = true);
    // Scatters the options' objects (--objects, --moving, --seed) on the current terrain, the
    // objects it had gone at once; on failure the terrain keeps no objects and the one-line error
    // is returned. `wait` true scatters them before returning (on a map whose tiles arrive as
    // asked for, the absent ones fetched first). `wait` false leaves the frame's thread free:
    // the absent tiles are fetched (objectsWaitForHeights() says so) and the scatter made
    // (objectsScattering()) on threads of their own, and finishObjects takes the scene; a
    // failure then comes from there.
    Status scatterObjects(bool wait = true);
    bool objectsWaitForHeights() const { return objectHeights != nullptr; }
    bool objectsScattering() const { return objectScatter.running(); }
    // What the HUD says of the options' objects once scattered.
    std::string scatteredLine() const {
        return "scattered " + std::to_string(options.objects) + " objects";
    }
    // Each frame: once the objects' heights are in, their scatter started; once a scatter has
    // ended, its scene on the terrain. What to tell the user ("" when nothing happened).
    std::string finishObjects();
    // `made` on the terrain, its static objects' order given to the object renderer.
    void adoptObjects(ScatteredObjects made);
    // Reloads every shader; old programs stay on failure.
    Status reloadShaders();
    // The first failure of a program made when first drawn since the last reload (Program-
    // Family::lateFailure), terrain's or objects'; "" when none. Such a program draws nothing.
    const std::string& lateShaderFailure() const;
    // Lights the terrain by `sun` and asks for its shadows (render/terrain_sun.h); `wait`: until
    // they are on the GPU (scripted runs). Once the session is where it stays: the shadows' job
    // reads the terrain's map in place.
    void applySun(bool wait);
    // The ray through window pixel (pixelX, pixelY) (its centre at + 0.5) of a window width x
    // height, from the viewing camera, meeting the triangles the renderer draws: from above
    // alone when it draws the terrain with one side (drawsFrontFacesOnly, core/cull/occlusion.h),
    // so that a pick through a hole finds what the hole shows.
    PickRay viewRay(float pixelX, float pixelY, int width, int height) const;
    // Where a streamed map's light keeps its scratch files: the cache folder (--cache-dir), made
    // when missing, else scratchFolder().
    std::string lightScratchDir() const;
    // Starts loading `path` as imagery over the terrain (render/terrain_imagery.h) on a thread
    // of its own; finishImagery takes it.
    void startImagery(const std::string& path);
    // When the load has finished (with `wait`, once it has): its imagery on the terrain (the
    // terrain keeps what it had when it failed), its warnings printed, and how it ended.
    std::optional<ImageryOutcome> finishImagery(bool wait);
    // The camera the options ask for, or the overview of the map.
    void resetCamera(float aspect);
};

}  // namespace qt
