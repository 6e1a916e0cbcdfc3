// The viewer's command line: parsed and checked without GL, so it is unit-tested and fuzzed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "core/base/result.h"
#include "core/config.h"
#include "core/io/imagery.h"
#include "core/io/load.h"
#include "core/io/memory_budget.h"
#include "core/light/sun_position.h"
#include "core/lod/lod.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/heightmap.h"

namespace qt {

// Largest --window side, and most pixels: an 8192x8192 offscreen frame takes about 1 GiB with its
// depth buffer, readback and PNG encoding, and llvmpipe about 20 s to draw and write it.
constexpr int kMaxWindowSide = 16384;
constexpr int64_t kMaxWindowPixels = int64_t{8192} * 8192;

struct ViewerOptions {
    std::string heightmapPath;  // empty: the default map in data/
    // --spacing X[,Z]: world units between columns and between rows (Z = X when one is given);
    // unset: defaultMapping() of the loaded map.
    std::optional<float> spacingX;
    std::optional<float> spacingZ;
    std::optional<float> heightScale;
    float exaggeration = 1.0f;  // --exaggeration: the height scale (given or default) times this
    std::optional<float> heightOffset;
    int leafSize = 4;
    // --page-size: squares along a GPU height page's side (core/terrain/height_pages.h); small
    // pages make a small map cross page borders at every level, for tests.
    int pageSize = kDefaultPageSize;
    // --stream: level-0 height pages streamed to the GPU on demand (render/terrain.h
    // StreamSettings); --stream-pool N: the pool's layers (0: derived from the view).
    bool stream = false;
    int streamPool = 0;
    // --upload: how a map read into memory sends its level-0 height pages to the GPU
    // (core/terrain/height_pages.h Level0Upload; Auto is Whole when --lod is off).
    Level0Upload upload = Level0Upload::Auto;
    int rawWidth = 0;  // --size, for headerless .r16/.raw
    int rawHeight = 0;
    HeightEncoding encoding = HeightEncoding::Gray;  // --encoding, for RGB-packed PNG heights
    bool water = false;       // --water: a flat water plane at sea level (maps in metres)
    bool fillNodata = false;  // --fill-nodata: nodata drawn as its fill, not as holes
    bool fogOn = true;        // --fog off: no distance fog
    float fogStart = -1.0f;   // --fog DISTANCE: where it begins (below 0: render/fog.h's default)
    // --contours: contour lines every this many metres (map units when not metres); 0: none.
    float contourInterval = 0.0f;
    // --sun DATE: the Sun at this instant over the map's centre (a georeferenced map);
    // --sun-azimuth, --sun-elevation: its direction in degrees (sun_option.h). None of them: the
    // fixed light.
    std::optional<UtcInstant> sunInstant;
    std::optional<double> sunAzimuth;
    std::optional<double> sunElevation;
    // --imagery PATH: a raster draped over the heights (core/io/imagery.h); --imagery-opacity:
    // over the terrain's own colours, 0 to 1; --imagery-light off: shown unlit (its shading baked
    // in); --imagery-compression bc3: its GPU pages as BC3 blocks (a quarter of the bytes).
    std::string imageryPath;
    float imageryOpacity = 1.0f;
    bool imageryLit = true;
    ImageryCompression imageryCompression = ImageryCompression::None;
    int windowWidth = 1280;
    int windowHeight = 720;
    std::optional<glm::vec3> eye;  // both set or both unset
    std::optional<glm::vec3> target;
    float fovDegrees = 60.0f;
    bool noCull = false;
    bool noOcclusion = false;  // frustum culling only
    // --lod: level of detail, the drawn surface's distance from full detail at most this many
    // pixels; 0 (--lod off): off; unset (--lod auto): autoLodPixels of the map.
    std::optional<float> lodPixels;
    // --frame-budget: with --lod auto, the viewer's level of detail holds frames to this many
    // milliseconds (FrameBudget); 0: a fixed bound. Unset: kDefaultFrameBudgetMs when the viewer
    // is flown by hand, a fixed bound in scripted runs (--frames, --window-shot, --state-json).
    std::optional<uint64_t> frameBudgetMs;
    // --sync-draws: terrain drawn in batches with a bounded number queued (fences); unset
    // (auto): on software rasterisers only (TerrainRenderer::syncDraws).
    std::optional<bool> syncDraws;
    bool drawBackFaces = false;  // --back-faces draw: never cull back faces
    std::string screenshotPath;
    std::string statsJsonPath;
    bool dumpLeaves = false;
    std::string cullMapPath;
    std::string benchCsvPath;
    bool benchLodOnly = false;              // --bench-lod-only: fly the level-of-detail mode alone
    int frames = 0;                         // --frames: render this many frames, then exit (0: run)
    int soakFrames = 0;                     // --soak: that many frames of scripted abuse, then exit
    bool soakRssReportOnly = false;         // --soak-rss-report-only: RSS drift printed, not judged
    std::string windowShotPath;             // --window-shot: the viewer's window, HUD included
    uint32_t objects = 0;                   // --objects: things scattered on the terrain
    uint32_t moving = 0;                    // --moving: how many of them are rolling balls
    float objectScale = 1.0f;               // --object-scale: times the objects' size unit
    uint64_t seed = 1;                      // --seed: the scatter's
    int steps = 0;                          // --steps: simulation steps before the frame
    bool dumpObjects = false;               // --dump-objects: every object in --stats-json
    std::optional<glm::vec3> freezeEye;     // start with the culling frustum frozen here
    std::optional<glm::vec3> freezeTarget;  // (both set or both unset)
    std::optional<std::array<int, 2>> pick;  // --pick PX,PY: a window pixel, origin top-left
    std::string stateJsonPath;  // --state-json: the viewer's camera, pick and more at exit
    std::string screenshotDir;  // --screenshot-dir: where F12 saves (else picturesFolder's)
    // --cache-dir: the folder of streamed maps' code caches and tree sidecars ("": the cache
    // folder, core/streaming/cache_folder.h); --cache-beside: beside each map instead.
    std::string cacheDir;
    // --shaders: the folder the GLSL shaders are read from (and reloaded from by R, F5 and the
    // HUD); "": shaders/ beside the executable, else the source tree's.
    std::string shaderDir;
    std::optional<uint64_t> cacheSizeMb;  // --cache-size
    bool cacheBeside = false;
    std::string georef;  // --georef N47E009: the SRTM tile an .hgt lies on, whatever its name
    int maxFps = 0;      // --max-fps: frames a second at most (0: no cap)
    // --memory-budget MB: the MiB a loaded map may take (0: no budget); unset: the default,
    // kDefaultMemoryShare of physical memory (memoryBudgetBytes).
    std::optional<uint64_t> memoryBudgetMb;
    bool help = false;

    // True when the run renders once (or a fixed path) and exits without user input.
    bool scripted() const {
        return !screenshotPath.empty() || !statsJsonPath.empty() || !cullMapPath.empty() ||
               !benchCsvPath.empty() || frames > 0 || soakFrames > 0;
    }
};

// Bytes an object adds to the viewer's peak resident memory (its shape and ball state, its tree
// entries, the scatter's scratch, the GPU's copy of its record, the frame's lists with every
// object drawn), rounded up from `python3 bench/memory.py --objects N MAP`: 355 and 383 bytes at
// 550,000 and 1,100,000 objects on a 4097x4097 map, 405 with the window and HUD (2026-11-26);
// and the share of physical memory the objects may take.
constexpr uint64_t kObjectBytes = 448;
constexpr double kObjectMemoryShare = 0.5;

// Whether `count` objects fit in kObjectMemoryShare of `physicalBytes`; the error names --objects.
Status checkObjectMemory(uint64_t count, uint64_t physicalBytes);

// The largest --memory-budget, in MiB (16 TiB).
constexpr uint64_t kMaxMemoryBudgetMb = uint64_t(1) << 24;

// The bytes a map may take loaded: --memory-budget, else kDefaultMemoryShare of
// `physicalBytes` (0: no budget).
uint64_t memoryBudgetBytes(const ViewerOptions& options, uint64_t physicalBytes);

// Parses the arguments after the program name. Errors are one line naming the option.
Result<ViewerOptions> parseOptions(const std::vector<std::string>& args);

// The --help text.
std::string usageText();

// The level of detail a run over a width x height map starts with: --lod, or autoLodPixels.
// The frame budget when --frame-budget is not given, in milliseconds (30 frames a second).
constexpr uint64_t kDefaultFrameBudgetMs = 33;
// The most --frame-budget takes, in milliseconds.
constexpr uint64_t kMaxFrameBudgetMs = 10000;

inline float lodPixelsFor(const ViewerOptions& options, int width, int height) {
    return options.lodPixels.has_value() ? *options.lodPixels : autoLodPixels(width, height);
}

}  // namespace qt
