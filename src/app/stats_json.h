// The --stats-json report: map, mapping, camera and the last frame's culling counts.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/cull/pick.h"
#include "core/light/sun_position.h"
#include "core/objects/pick.h"
#include "core/streaming/imagery_streamer.h"
#include "core/streaming/layout_stream_access.h"
#include "core/terrain/geo_transform.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "render/terrain.h"

namespace qt {

struct StatsReport {
    std::string path;
    int width = 0;
    int height = 0;
    std::string glRenderer;  // "GL_RENDERER, GL_VERSION"
    WorldMapping mapping;
    const Heightmap* map = nullptr;   // its georeference and height range; null: left out
    std::optional<SunDirection> sun;  // the "sun" block, degrees; none (the fixed light): left out
    bool shadows = false;             // the Sun's cast shadows drawn (none on streamed maps)
    Camera camera;
    int viewportHeight = 0;  // the frame's, in pixels
    glm::vec3 target{0.0f};
    int leafSize = 0;
    const TerrainGpu* gpu = nullptr;  // the "gpu_heights" block (pages, bytes); null: left out
    // The "imagery" block: what the terrain shows of its imagery and how (null: none, "imagery":
    // null); the texture is gpu->imagery.
    const ImageryInfo* imagery = nullptr;
    ImageryStyle imageryStyle;
    ImageryStreamStats imageryStream;  // its pages' streamer's counts
    // A streamed terrain's counts after the frame (the "streaming" block); null: not streamed.
    const StreamStats* streaming = nullptr;
    bool mapped = false;  // streamed with its codes mapped (a .r16's file, a raster's code cache)
    std::string sidecar;  // its tree: "read" from its .qtree, "written" to it, or ""
    // A streamed GDAL raster's code cache: "written" by this load or "read"; "" when the codes
    // are the map's own file (a .r16).
    std::string codeCache;
    // Where they are (the "cache" block): the code cache and the sidecar, "" when none is.
    std::string codeCachePath;
    std::string sidecarPath;
    bool onDemand = false;  // a map in memory taking its level-0 pages on demand (Terrain)
    // A layout streamed by tiles: its tiles' counts (the streaming block's "tiles"), and whether
    // its code cache was kept once every tile arrived; none else.
    std::optional<LayoutTileCounts> tiles;
    bool tilesKept = false;
    bool culling = true;
    FrameStats stats;
    LoadTimes times;                                        // the load's steps
    LodErrors lodErrors = LodErrors::Exact;                 // the coarse errors the frame split by
    const std::vector<LeafCoord>* visibleLeaves = nullptr;  // null: not listed
    // Objects (null: none): the "objects" block from stats.objects, the last step and the
    // scene; with dumpObjects every object and its state from the frame's object lists.
    const ObjectScene* objects = nullptr;
    StepStats lastStep;
    const FrameBuffers* frame = nullptr;
    bool dumpObjects = false;
    const PickHit* pick = nullptr;    // --pick; null: not asked
    double pickHeight = 0.0;          // the surface's height at the pick's hit, in the map's units
    std::optional<GeoPoint> pickGeo;  // the hit in the map's CRS and WGS 84
    std::optional<ObjectPickHit> pickObject;  // the object the pick's pixel shows (objects)
};

// A HUD window shown at the last frame: its left, top, width and height in window pixels, and how
// far its content reaches past its inside on each axis (ImGui's scroll range: 0 when it fits).
struct HudWindowRecord {
    std::string name;
    std::array<float, 4> rect{};
    std::array<float, 2> overflow{};
};

// What the interactive viewer writes for --state-json at exit.
struct ViewerState {
    std::string path;
    Camera camera;
    float speed = 0.0f;
    bool follow = false;
    float followHeight = 0.0f;
    int frames = 0;
    double seconds = 0.0;                       // since the first frame began
    std::string message;                        // the HUD's last message
    std::string screenshot;                     // the last screenshot the key saved; empty: none
    PickHit cursor;                             // the terrain under the cursor at the last frame
    double cursorHeight = 0.0;                  // the surface's height there, in the map's units
    std::optional<GeoPoint> cursorGeo;          // the point in the map's CRS and WGS 84
    std::optional<ObjectPickHit> cursorObject;  // the object under it, nearer than the terrain
    std::vector<uint32_t> selectedObjects;  // sorted ids: the minimap's and Shift+click's selection
    uint32_t objects = 0;                   // on the terrain (0 while a scatter is under way)
    bool scattering = false;                // a scatter under way off the frame's thread
    bool measured = false;                  // a measurement from measureA to measureB is shown
    glm::vec3 measureA{0.0f}, measureB{0.0f};
    bool cull = true, occlusion = true;  // the HUD's toggles
    bool lod = false, freeze = false, wireframe = false, boxes = false, objectsPaused = false;
    bool hudVisible = true;
    float lodPixels = 0.0f;  // the level of detail's bound (the HUD slider's), drawn when lod
    int frameBudgetMs = 0;   // > 0: the bound follows this frame budget (--frame-budget)
    std::optional<SunDirection> sun;  // the Sun the terrain is lit by; none: the fixed light
    int shaderReloads = 0;            // times the shaders were reloaded (R, F5, the HUD's button)
    std::string pathBox;              // the text in the HUD's path box
    std::array<float, 4>
        pathBoxRect{};             // its left, top, width, height in window pixels (0: hidden)
    bool textFieldActive = false;  // a HUD text field has the keyboard
    std::array<float, 3> minimapSquare{};     // left, top, side in window pixels (side 0: hidden)
    bool flying = false;                      // a double-click's flight is under way
    std::vector<HudWindowRecord> hudWindows;  // the HUD's windows shown (hud.h hudWindowRecords)
};

// {"hit": true, "world": [x, y, z], "sample": [column, row], "height": h, "lonlat": [lon, lat],
// "crs_xy": [x, y], "object": o}: h the surface's height at the point hit in the map's units
// (metres for georeferenced maps); lonlat WGS 84 degrees and crs_xy the map's CRS coordinates of
// that point, null without a georeference (lonlat also without a CRS GDAL takes to WGS 84). A
// miss of the terrain has nulls; o is null, or {"id": id, "kind": "tree", "world": [x, y, z]}
// for the object the pixel shows in front of the terrain (or over none) and the point where its
// shape is entered.
std::string pickJson(const PickHit& hit, double height, const std::optional<GeoPoint>& geo,
                     const std::optional<ObjectPickHit>& object = std::nullopt);

std::string viewerStateJson(const ViewerState& state);

std::string statsJson(const StatsReport& report);

// JSON string literal of `text`, quotes included; control bytes as \u00XX.
std::string jsonString(const std::string& text);

}  // namespace qt
