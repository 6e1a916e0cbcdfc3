// A loaded terrain (heightmap, quadtree, world mapping, GL objects, the frame pipeline's buffers),
// its loading in steps, and the frame drawn from what the pipeline (core/frame/frame.h) decided.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/frame/frame.h"
#include "core/light/sunlight_job.h"
#include "core/objects/scene.h"
#include "core/streaming/coarse_error_job.h"
#include "core/streaming/imagery_streamer.h"
#include "core/streaming/layout_stream_access.h"
#include "core/streaming/open_map.h"
#include "core/streaming/page_streamer.h"
#include "core/streaming/sample_asker.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/sample_presence.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "core/view/camera_fit.h"
#include "render/object_renderer.h"
#include "render/terrain_renderer.h"

namespace qt {

// The steps of a load, each reported as it begins (a progress line, a loading frame).
enum class LoadStep { Decode, BuildTree, Upload };
using LoadProgress = std::function<void(LoadStep step)>;
const char* loadStepName(LoadStep step);

// Wall time of each step of the last load. The first frame follows decode, tree and upload; the
// exact coarse errors are computed behind it, on a background thread, while frames draw with the
// range bound (Quadtree::lodErrors).
struct LoadTimes {
    double decodeMs = 0.0;  // reading the file and decoding it into codes
    // Building the quadtree: its exact bounds and the range error bound. A GDAL raster's tree is
    // built during its read, so its time is in decodeMs.
    double treeMs = 0.0;
    double uploadMs = 0.0;  // the pyramid's pages into the GPU's texture array
    // Level 0 on demand: the level-0 pages the first view needs, filled and uploaded before it is
    // drawn (Terrain::settleStreaming); 0 otherwise.
    double pagesMs = 0.0;
    double errorsMs = 0.0;  // the exact coarse errors in the background; 0 until they are in use
    // Level 0 on demand: the rest of its pages, uploaded when a frame first drew without level of
    // detail (Terrain::completeLevel0); not part of the load.
    double restMs = 0.0;
    // The imagery (render/terrain_imagery.h): opened over the map (its header and its pyramid's
    // top page) on a thread of its own from the load's end, and put on the GPU at the first frame
    // boundary after; 0 without imagery. Its other pages stream as frames ask for them. The
    // interactive viewer's first frame does not wait for it (scripted runs do).
    double imageryMs = 0.0;

    // To the first frame: the background errors and the imagery are not in it.
    double totalMs() const { return decodeMs + treeMs + uploadMs + pagesMs; }
};

// How a terrain's height pages of its pooled levels reach the GPU.
struct StreamSettings {
    // Off: every page of every level uploaded at create. On: the pooled levels (levels 0 and 1,
    // and more on a map whose levels above would take over heldLevelsBytes:
    // HeightPages::pooledLevels) streamed on demand (core/streaming/page_streamer.h) into a pool
    // of layers, the next level up drawn where a page has not arrived yet; the levels above
    // uploaded at create.
    bool on = false;
    // Pool layers; 0: streamPoolLayers for the view below at kStreamFinestPixels, grown when a
    // frame's view needs more (Terrain::growPool).
    int pool = 0;
    // The view a pool sized from the view is made for at first: a viewport this many pixels high
    // (the window's) at this vertical field of view.
    int viewportHeight = kStreamPoolViewport;
    float fovY = 1.04719755f;  // 60 degrees
    // A map in memory when `on` is off (codes mapped from a file always stream).
    Level0Upload level0 = Level0Upload::Whole;
    // Pages in texture arrays of at most this many layers (0: as many as the driver takes), as a
    // driver that caps a texture's bytes spreads them: tests of the many-arrays programs.
    int maxLayersPerArray = 0;
    // The most bytes of pages held whole above the pooled levels (streamedLevels): below the
    // default, tests pool more levels of a small map.
    uint64_t heldLevelsBytes = kHeldLevelsBytes;
    // A map whose codes arrive as they are asked for (a layout streamed by tiles,
    // OpenedMap::tiles), `on` with it: the page streamer asks `samples` for a page's window
    // before it reads it, and levels 1 and up come from `coarse` with the codes unread (level 1's
    // pages through the streamer).
    SampleSource samples;
    CoarsePageFill coarse;
    // The page streamer's workers (PageStreamer::start): more than one for a layout by URL.
    int workers = 1;
};

// Imagery being read and resampled on a thread of its own (render/terrain_imagery.h), while the
// frames draw the terrain as it is. The loader reads only its own copies of the map's size and
// georeference, so the terrain may move while it runs.
struct ImageryLoad {
    std::string path;
    std::future<Result<OpenedImagery>> result;
    std::chrono::steady_clock::time_point start;
    uint64_t maxBytes = 0;  // the GPU bytes its pool of pages may take (imageryPoolLayers)
    ImageryCompression compression = ImageryCompression::None;  // how its pages are stored
    std::string queued;  // asked for while this one ran: loaded next ("" none)
};

struct Terrain {
    std::string path;
    Heightmap map;  // size, coding, range and the codes (also on the GPU once uploaded)
    Quadtree tree;
    WorldMapping mapping;
    // A layout streamed by tiles (OpenedMap::tiles, adoptOpened): its level 0 arrives as it is
    // asked for, and `presence` says which samples have (arriving()); null and empty for a map
    // held whole or mapped whole. Declared before the streamer and the light's job, which read
    // the tiles, so that it goes after them.
    std::shared_ptr<LayoutStream> tiles;
    SamplePresence presence;
    // With tiles: what the frame's readers found absent (the cursor's pick, the ground under the
    // eye), fetched off the frame's thread.
    std::unique_ptr<SampleAsker> asker;
    // Its code cache being finished on a thread of its own once every tile arrived (finishTiles:
    // that reads the layout's tree again, a fetch for a layout by URL); then whether it was kept,
    // or why not ("" none). Tried once.
    std::future<Result<bool>> tilesFinishing;
    bool tilesFinishStarted = false;
    bool tilesKept = false;
    std::string tilesProblem;
    TerrainGpu gpu;
    // What gpu.imagery shows (render/terrain_imagery.h); default while it has none.
    ImageryInfo imagery;
    // The imagery being loaded; null when none is.
    std::unique_ptr<ImageryLoad> imageryLoad;
    // The shown imagery's pages, streamed into gpu.imagery (null without imagery).
    std::unique_ptr<ImageryStreamer> imageryStreamer;
    FrameBuffers frame;  // reserved for tree, with the walk's decisions: a frame never allocates
    LodOutput context;   // with the frustum frozen: the rest of the map, from the viewing camera
    LoadTimes times;
    // Objects standing and rolling on the terrain (--objects); null when there are none.
    std::unique_ptr<ObjectScene> objects;
    std::vector<uint8_t> selectedObjects;  // per object: 1 when selected (minimap rectangle)
    uint64_t selectionVersion = 0;         // changed by whoever changes selectedObjects
    StepStats lastStep;                    // the last simulation step's counts
    // The exact coarse errors being computed; taken into `tree` by cullTerrain. Declared after
    // map and tree, so that it is stopped before they go.
    CoarseErrorJob errorJob;
    // A streamed terrain's pooled pages (null when not streamed). Its worker reads map's
    // codes: it starts at the first frame, when the terrain is where it stays, and is declared
    // after map so that it stops before the map goes.
    std::unique_ptr<PageStreamer> streamer;
    // StreamSettings' samples and coarse: what the streamer asks, and the pages of levels 1 and up
    // when the heights are made again; and its workers.
    SampleSource samples;
    CoarsePageFill coarse;
    int streamWorkers = 1;
    // The cast shadows' job while a Sun is given (render/terrain_sun.h); null otherwise. It reads
    // map: made once the terrain is where it stays, declared after map so that it stops before
    // the map goes.
    std::unique_ptr<SunlightJob> sunlight;
    // A Sun was given but its light's bytes would pass the memory budget (setTerrainSun).
    bool shadowsOverBudget = false;
    // Why a streamed map's light has no scratch files, the HUD's line ("shadows off: ..."; ""
    // when it has them or needs none).
    std::string shadowsProblem;
    // A level-0 page's light on its way to the GPU (texels^2 bytes; a streamed map's under a Sun).
    std::vector<uint8_t> lightStaging;
    // A streamed map's tree: "read" from its sidecar (.qtree), "written" to it by this load (a
    // .r16's first open: once its exact errors are in); else "".
    std::string sidecar;
    // A streamed GDAL raster's codes: "written" into its code cache by this load, or "read" from
    // it; "" when the codes are the map's own file (a .r16) or not mapped.
    std::string codeCache;
    // Where they are: the code cache and the sidecar named by codeCache and sidecar ("" when
    // none is).
    std::string codeCachePath;
    std::string sidecarPath;
    // Level 0 on demand (Level0Upload::OnDemand): a map held in memory whose level-0 pages go to
    // the GPU as views need them, through the streamer and a pool sized from the view as a
    // streamed map's (so that the GPU does not hold, nor a driver clear, level 0 whole). The load
    // uploads levels 2 and up; the first view waits for its pages (settleStreaming, timed as
    // LoadTimes::pagesMs), later ones take them as streamed terrains do; a frame without level of
    // detail first makes the heights whole (completeLevel0).
    bool onDemand = false;
    // Whether a view has been settled since the load: on demand, the first cull settles its view.
    bool viewSettled = false;
    // A streamed terrain whose pool is sized from the view (StreamSettings::pool 0): the viewport
    // height it is sized for; 0 when the pool stays as it is.
    int poolViewport = 0;
    // The pool's layers were given (StreamSettings::pool, --stream-pool): it never grows.
    bool poolFixed = false;
    int pageSize = kDefaultPageSize;  // the page size asked at create (the GPU's may be larger)
    int maxLayersPerArray = 0;        // StreamSettings::maxLayersPerArray, asked at create
    uint64_t heldLevelsBytes = kHeldLevelsBytes;  // StreamSettings::heldLevelsBytes, the same

    // Puts `scene` on this terrain (or removes the objects, with an empty one) and sizes the
    // frame's buffers for it.
    void setObjects(std::unique_ptr<ObjectScene> scene);
    // Runs `steps` simulation steps of the objects (nothing without moving ones).
    void stepObjects(int steps);

    // Builds the tree (with the range error bound) and the GL objects, the heights in pages of
    // at least pageSize squares, and starts the exact errors' background job; nothing is kept on
    // failure. `times` holds the decode time measured by the caller, and gets the tree and upload
    // times. A `builtTree` with nodes (decodeStep's, built during a GDAL read, of leafSize) is
    // taken as the tree instead of building one; its time is in the decode's.
    static Result<Terrain> create(Heightmap map, int leafSize, std::string path,
                                  LoadTimes times = {}, const LoadProgress& progress = {},
                                  int pageSize = kDefaultPageSize, Quadtree builtTree = {},
                                  StreamSettings stream = {});
    bool streamed() const { return streamer != nullptr; }
    // Streamed: culls `view` and fills and uploads every page it asks for, with no per-frame
    // budget, until a cull asks for nothing more and no filled page waits for a layer: the same
    // picture as a terrain that is not streamed, for tests and scripted frames. A pool too small
    // for the view (its pages evicting each other) doubles, up to level 0's pages, unless its
    // size was given (poolFixed). Returns whether the view settled (not while a page's samples
    // cannot be read: PageStreamer::lastFailure says why); true when not streamed.
    bool settleStreaming(const CullView& view);
    // Streamed: the streamer's counts (zero when not streamed).
    StreamStats streamStats() const;
    // A pool sized from the view: when `view` needs more layers than it has (a taller window, a
    // narrower field of view), remakes the GPU heights with a pool for a viewport a quarter
    // taller than the view's, so that a window being dragged larger remakes them seldom, and
    // restarts the streamer (the pooled levels arrive anew; the levels above are uploaded again).
    // When that
    // fails the pool stays, and with it less detail where pages wait, never a hole. A pool whose
    // pages wait because every layer was drawn by the last frame (PageStreamer::starved) doubles
    // the same way, up to the pooled levels' pages; a given pool (poolFixed) never grows.
    void growPool(const CullView& view);
    // Level 0 on demand: makes the GPU heights whole (every page of every level, on every core),
    // drops the streamer and ends onDemand, so the terrain is drawn as if uploaded whole. Nothing
    // otherwise.
    void completeLevel0();
    // Makes the GPU heights anew with level 0 through `pool` (whole without one) and a new
    // streamer (none when whole); false, and nothing changed, when the GPU refuses them.
    bool remakeHeights(const PagePool& pool);
    // Blocks until the exact coarse errors are in the tree (scripted frames: the same picture
    // however fast the machine).
    void finishErrors();
    // What the open of the map it was made from says of it (sidecar, code cache), and the
    // background errors a streamed .r16's first open deferred (CoarseErrorJob::startStreamed).
    void adoptOpened(const OpenedMap& opened);
    // After the error job's errors were taken into the tree: their time, and the sidecar a
    // streamed job wrote.
    void tookErrors();
    // The presence of a map whose samples arrive as they are asked for; null when every sample
    // is present from the open.
    const SamplePresence* arriving() const { return tiles ? &presence : nullptr; }
    // Once every tile of a layout streamed by tiles has arrived: its code cache finished
    // (LayoutStream::finishWhenComplete) on a thread of its own, so that the next open maps it;
    // when that is done, tilesKept or tilesProblem. Called at every frame's uploads (cullTerrain,
    // drawTerrain), cheap until then; `wait`: until it is done (scripted runs, before their stats).
    void finishTiles(bool wait = false);
    // Stops the error job and frees the GL objects.
    void destroy();
};

// `stream` for a map opened streamed by tiles (OpenedMap::tiles, null: `stream` as it is): the
// page streamer asks the tiles for a page's samples, and levels 1 and up come from the layout's
// heights-K files with level 0 unread (LayoutLevelPages).
StreamSettings streamByTiles(StreamSettings stream, const std::shared_ptr<LayoutStream>& tiles);

// The first step of a load: reports LoadStep::Decode, runs loadHeightmap, times it. With `tree`
// set, a GDAL raster's first-frame tree is built during its read into *tree (loadHeightmap), its
// time part of the decode's.
Result<Heightmap> decodeStep(const std::string& path, const LoadOptions& options, LoadTimes& times,
                             const LoadProgress& progress = {}, const SizeCheck& acceptSize = {},
                             int treeLeafSize = 0, Quadtree* tree = nullptr);

// The first step of a load, either way (openMap, core/streaming/open_map.h), reported as
// LoadStep::Decode and timed as the decode.
Result<OpenedMap> openStep(const std::string& path, const LoadOptions& options, LoadTimes& times,
                           const LoadProgress& progress, const SizeCheck& acceptSize, int leafSize,
                           bool stream);

// A map read for a terrain: loadTerrain's first, GL-free step, which may run on a thread of its
// own while frames are drawn (the viewer's loads), and what its second step takes.
struct OpenedTerrain {
    OpenedMap opened;
    LoadTimes times;
    StreamSettings stream;  // stream.on set when the map opened streamed
};

// Reads `path` for a terrain (openStep with the GPU's size check against `limits`, queried on the
// GL thread, and the map's world checked to be finite floats); no GL call, so safe on a thread
// without the context. `progress` sees LoadStep::Decode from the calling thread.
Result<OpenedTerrain> openTerrain(const std::string& path, const LoadOptions& options, int leafSize,
                                  int pageSize, StreamSettings stream, const PageLimits& limits,
                                  const LoadProgress& progress = {});

// The second step, on the GL thread: Terrain::create from what openTerrain read.
Result<Terrain> createTerrain(OpenedTerrain read, const std::string& path, int pageSize,
                              const LoadProgress& progress = {});

// openTerrain + createTerrain, with the default mapping of the map. A map whose size, known from
// its header, the GPU cannot hold as pages (checkHeightPages) is refused before it is decoded.
Result<Terrain> loadTerrain(const std::string& path, const LoadOptions& options, int leafSize,
                            const LoadProgress& progress = {}, int pageSize = kDefaultPageSize,
                            StreamSettings stream = {});

// Loads `path` into a new terrain and only then swaps it for `current` (destroying the old GL
// objects). On failure `current` is untouched and the one-line error is returned.
Status replaceTerrain(Terrain& current, const std::string& path, const LoadOptions& options,
                      int leafSize, const LoadProgress& progress = {},
                      int pageSize = kDefaultPageSize, StreamSettings stream = {});

// Takes the exact coarse errors into the tree when the job has finished (the frame boundary: no
// frame is reading them), then runs the frame pipeline on the terrain into terrain.frame
// (core/frame/frame.h). Streamed, it first uploads the pages filled since the last frame (at most
// kStreamUploadsPerFrame), culls with level of detail (kStreamFinestPixels when view.lodPixels is
// 0) over the resident pages, and then posts the pages the selection asked for and marks those
// it drew.
FrameStats cullTerrain(Terrain& terrain, const CullView& view);

// Culls as `view` says and draws what the pipeline left as seen from `camera`, culling back faces
// when the renderer allows it and drawsFrontFacesOnly() holds for `camera`, then the objects drawn
// (with `objects`, when the terrain has some); the caller has bound and cleared the target. With
// `sections`, the uploads and the draws are each timed in a section of their own.
FrameStats renderTerrain(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                         const CullView& view, bool wireframe, ObjectRenderer* objects = nullptr,
                         GpuSections* sections = nullptr);

// The frozen frustum seen in place: what `view` (culled by the frozen camera) keeps, drawn as
// renderTerrain draws it and marked in the stencil; then the rest of the map in view of `camera`,
// at kFrozenContextPixels level of detail and faded kFrozenContextDim of the way to the sky, only
// where the frozen set left the frame empty. The target needs a stencil buffer. Returns the
// frozen set's stats, drawCalls counting both.
FrameStats renderFrozenView(const TerrainRenderer& renderer, Terrain& terrain, const Camera& camera,
                            const CullView& view, bool wireframe,
                            ObjectRenderer* objects = nullptr);

}  // namespace qt
