// The Dear ImGui HUD: what the map is, toggles, culling statistics and frame times, loading,
// mapping sliders, the minimap; over the view, the compass, scale bar and message toast.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "app/cull_map.h"
#include "app/hud_cursor.h"
#include "app/hud_overlay.h"
#include "app/minimap.h"
#include "app/stats_json.h"
#include "core/view/camera.h"
#include "render/fog.h"
#include "render/terrain.h"

namespace qt {

// Leaf boxes drawn at most, so the debug lines stay one bounded buffer.
constexpr int kMaxLeafBoxes = 20000;
// Frame times kept for the graph.
constexpr int kFrameHistory = 240;
// The HUD window's width in pixels; its height is the viewport's.
constexpr float kHudWidth = 380.0f;

struct HudState {
    bool cull = true;
    bool occlusion = true;   // the occlusion stage after the frustum walk
    bool lod = false;        // level of detail
    float lodPixels = 1.0f;  // the drawn surface's largest distance from full detail
    // > 0: lodPixels follows the frame budget of this many milliseconds (FrameBudget), until the
    // slider is moved by hand.
    int frameBudgetMs = 0;
    bool freeze = false;
    bool wireframe = false;
    bool boxes = false;
    char path[1024] = {};
    std::string message;  // last load or shader error, or what just happened
    std::string toast;    // the message on screen in the toast line, and since when (ImGui time)
    double toastSince = 0.0;
    std::array<float, kFrameHistory> frameMs{};
    int frameCursor = 0;  // next slot of frameMs to write
    int boxesDrawn = 0;
    std::vector<MapCell> minimapCells;  // the minimap's scratch, kept so frames do not allocate
    MinimapObjects minimapObjects;      // the minimap's object layer and selection
    bool objectsPaused = false;         // the simulation stands still
    int objectCount = 0;                // the scatter the objects section asks for
    int movingCount = 0;
    int objectSeed = 1;
    // > 0: this many objects are being scattered off the frame's thread (their heights fetched
    // first on a map whose tiles arrive as asked for), shown until they come.
    uint32_t objectsComing = 0;
    CursorReadout cursor;          // the terrain under the cursor and the measurement
    bool follow = false;           // ground-follow (T)
    float followHeight = 1.0f;     // its least height over the terrain, world units
    bool focusPath = false;        // Ctrl+O: open the load section and type in the path box
    bool quitAsked = false;        // Esc was pressed once: the next one quits
    Fog fog;                       // distance fog, on or off and where it starts
    bool contours = false;         // contour lines on the terrain
    float contourInterval = 0.0f;  // their interval in the map's height units (0: unset)
    float viewDistance = 0.0f;     // to the terrain along the view's centre line (0: none hit)
    // A Sun lights the terrain, from this azimuth (degrees clockwise from north) and elevation
    // (degrees above the horizon); off: the fixed light. sunNote: why no shadows show ("": they
    // do), set by the viewer.
    // The elevations the slider and the keys reach: the twilight below the horizon to the zenith.
    static constexpr float kSunElevationLowest = -10.0f;
    static constexpr float kSunElevationHighest = 90.0f;
    bool sun = false;
    float sunAzimuth = 0.0f;
    float sunElevation = 0.0f;
    const char* sunNote = "";
    // Imagery (the imagery section): the path box, shown or not, its opacity and lighting.
    char imageryPath[1024] = {};
    bool imageryOn = true;
    float imageryOpacity = 1.0f;
    bool imageryLit = true;
    std::array<float, 3> minimapSquare{};  // its left, top and side on screen (side 0: hidden)
    std::array<float, 4> pathBoxRect{};    // the path box's left, top, width, height (0: hidden)

    void recordFrame(float ms);
};

struct HudRequests {
    bool load = false;  // load HudState::path
    bool reloadShaders = false;
    bool resetCamera = false;
    bool scatterObjects = false;      // scatter objectCount objects, movingCount moving, objectSeed
    bool mappingChanged = false;      // the sliders moved the ground: the objects follow it
    bool loadImagery = false;         // load HudState::imageryPath over the terrain
    bool removeImagery = false;       // drop the terrain's imagery
    std::optional<glm::vec2> moveTo;  // world x, z clicked on the minimap
};

// The HUD's windows shown at the last frame (the panel, the cursor bar, the toast), with how far
// each one's content overflows it, for --state-json (tests/render/input_test.py's layout case).
std::vector<HudWindowRecord> hudWindowRecords();

// Builds the HUD window for this frame; `terrain.mapping` is edited in place by the sliders.
HudRequests drawHud(HudState& state, const FrameStats& stats, Terrain& terrain,
                    const Camera& camera, const std::array<glm::vec3, 8>& cullCorners, float speed);

}  // namespace qt
