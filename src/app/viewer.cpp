// The interactive frame loop: poll, hand the keyboard queue's batch over, move, pick, cull, draw
// terrain and debug lines, HUD, screenshots, swap; loads and shader reloads between frames.
#include "app/viewer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <glm/geometric.hpp>

#include "app/cull_map.h"
#include "app/fly_control.h"
#include "app/folders.h"
#include "app/hud.h"
#include "app/options.h"
#include "app/stats_json.h"
#include "app/sun_option.h"
#include "app/viewer_input.h"
#include "core/config.h"
#include "core/cull/pick.h"
#include "core/terrain/surface.h"
#include "render/framebuffer.h"
#include "render/terrain_imagery.h"
#include "render/terrain_sun.h"

namespace qt {
namespace {

constexpr uint32_t kFrustumLineColour = 0xFF3CDCFAu;  // ABGR in memory order: yellow
constexpr uint32_t kLeafBoxColour = 0xFFFF9040u;      // light blue
// Frames --window-shot runs before saving when --frames is not given (the HUD settles).
constexpr int kWindowShotFrames = 5;

// Simulation steps a frame may run at most: a slow frame slows the objects down rather than
// making the next frame slower still.
constexpr int kMaxStepsPerFrame = 4;

// The objects' fixed steps for `seconds` of wall time (none while paused).
void stepObjects(Viewer& v, float seconds) {
    if (v.hud.objectsPaused || !v.session.terrain.objects) {
        v.objectClock = 0.0f;
        return;
    }
    v.objectClock += seconds;
    const int steps = std::min(int(v.objectClock / kObjectStepSeconds), kMaxStepsPerFrame);
    v.objectClock = std::min(v.objectClock - float(steps) * kObjectStepSeconds, kObjectStepSeconds);
    v.session.terrain.stepObjects(steps);
}

// A scatter the objects section asked for, checked as the command line's is.
void scatterFromHud(Viewer& v) {
    Session& s = v.session;
    if (Status memory = checkObjectMemory(uint64_t(v.hud.objectCount), physicalMemoryBytes());
        !memory) {
        v.hud.message = memory.error();
        return;
    }
    s.options.objects = uint32_t(v.hud.objectCount);
    s.options.moving = uint32_t(v.hud.movingCount);
    s.options.seed = uint64_t(v.hud.objectSeed);
    v.hud.minimapObjects.selected.clear();
    const Status scattered = s.scatterObjects(false);
    const std::string count = std::to_string(s.options.objects);
    v.hud.message =
        !scattered ? scattered.error()
        : s.objectsWaitForHeights()
            ? "scattering " + count + " objects once the map's heights are in (fetching its tiles)"
        : s.objectsScattering() ? "scattering " + count + " objects"
                                : s.scatteredLine();
}

// An azimuth as the HUD's slider holds it: degrees in [0, 360), the command line's -360 to 360.
float hudAzimuth(double azimuth) {
    return float(std::fmod(azimuth + 720.0, 360.0));
}

// The HUD's Sun onto the session: a moved slider or the checkbox asks for new shadows; finished
// shadows go to the GPU (the previous ones show until then).
void updateSun(Viewer& v) {
    Session& s = v.session;
    // Compared as the sliders' floats: the command line's Sun stays exact until a slider moves.
    const bool same = v.hud.sun == s.sun.has_value() &&
                      (!s.sun || (hudAzimuth(s.sun->azimuth) == hudAzimuth(v.hud.sunAzimuth) &&
                                  float(s.sun->elevation) == v.hud.sunElevation));
    if (!same) {
        s.sun.reset();
        if (v.hud.sun) {
            s.sun = SunDirection{double(v.hud.sunAzimuth), double(v.hud.sunElevation)};
        }
        s.applySun(false);
    }
    updateTerrainSun(s.terrain, s.renderer);
    switch (shadowsOff(s.terrain, s.renderer)) {
        case ShadowsOff::NoScratch:
            v.hud.sunNote = s.terrain.shadowsProblem.c_str();  // "shadows off: ..." (setTerrainSun)
            break;
        case ShadowsOff::TooLarge:
            v.hud.sunNote = "shadows off: the GPU has no room for them";
            break;
        case ShadowsOff::OverBudget:
            v.hud.sunNote = "shadows off: over the memory budget (--memory-budget)";
            break;
        case ShadowsOff::None:
            v.hud.sunNote = "";
            break;
    }
}

void report(Viewer& v, const std::string& message, bool error) {
    v.hud.message = message;
    if (error) {
        std::fprintf(stderr, "quadterrain: %s\n", message.c_str());
    }
}

// One frame of the current terrain under a panel naming the load step under way: a load's GL
// steps (createTerrain) hold the frame loop, and a large map's take seconds, so the window says
// what it is doing meanwhile.
void drawLoadingFrame(Viewer& v, const std::string& path, LoadStep step) {
    Session& s = v.session;
    glfwPollEvents();  // keeps the window responsive to the window manager
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(s.context.window, &width, &height);
    if (width <= 0 || height <= 0) {
        return;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    TerrainRenderer::clear(width, height);
    const CullView view{v.hud.freeze ? v.frozenCamera : s.camera, height, v.hud.cull,
                        v.hud.occlusion, v.hud.lod ? v.hud.lodPixels : 0.0f};
    renderTerrain(s.renderer, s.terrain, s.camera, view, v.hud.wireframe);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0.5f * float(width), 0.5f * float(height)), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
    ImGui::Begin("Loading", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoSavedSettings);
    ImGui::Text("Loading %s", path.c_str());
    const int done = int(step);
    ImGui::Text("Step %d of 3: %s...", done + 1, loadStepName(step));
    ImGui::ProgressBar(float(done) / 3.0f, ImVec2(360.0f, 0.0f));
    ImGui::End();
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(s.context.window);
}

// A finished load of imagery: what it shows, or why it failed (the terrain keeps what it had),
// in the HUD and, for a failure or a warning, on the terminal.
void reportImagery(Viewer& v, const ImageryOutcome& outcome) {
    if (!outcome.status) {
        report(v, outcome.status.error(), true);
        return;
    }
    std::string message =
        v.session.terrain.gpu.imagery.present() ? "imagery " + outcome.path : "no imagery";
    for (const std::string& warning : outcome.warnings) {
        message += "; " + warning;
    }
    report(v, message, false);
}

// Starts reading `path` behind the frames (Session::startLoad): the current terrain stays drawn
// and flown until finishLoad takes the new one.
void load(Viewer& v, const std::string& path) {
    if (Status started = v.session.startLoad(path); !started) {
        report(v, started.error(), true);
        return;
    }
    report(v, "reading " + path + " ...", false);
    v.loadReported = -1;
}

// A long first read's progress (a layout's level 0, a raster's pass into its code cache) in the
// message line, in whole percents, said again when the percent moves.
void reportLoadProgress(Viewer& v) {
    const auto [done, total] = v.session.loadingProgress();
    const int percent = readPercent(done, total);
    if (total <= 0 || percent == v.loadReported) {
        return;
    }
    v.loadReported = percent;
    report(v, "reading " + v.session.loadingPath() + ": " + std::to_string(percent) + "% read",
           false);
}

// Between frames, once the map being read is in: the terrain made from it (its GL steps shown
// as loading frames) and the view set on it, or its error with the current terrain kept. True
// when a load ended.
bool finishLoad(Viewer& v) {
    Session& s = v.session;
    const std::string path = s.loadingPath();
    if (path.empty()) {
        return false;
    }
    const auto progress = [&](LoadStep step) { drawLoadingFrame(v, path, step); };
    const std::optional<Status> loaded = s.finishLoad(progress);
    if (!loaded) {
        return false;
    }
    if (!*loaded) {
        report(v, loaded->error(), true);
        return true;
    }
    v.fly.reset(s.terrain.map, s.terrain.mapping);
    v.hud.followHeight = v.fly.followHeight;
    v.hud.cursor = {};
    v.hud.cursor.setMap(s.geo);
    std::snprintf(v.hud.path, sizeof(v.hud.path), "%s", path.c_str());
    const LoadTimes& t = s.terrain.times;
    char message[160];
    std::snprintf(message, sizeof(message), " in %.2f s (decode %.2f, tree %.2f, upload %.2f)",
                  t.totalMs() / 1000.0, t.decodeMs / 1000.0, t.treeMs / 1000.0,
                  t.uploadMs / 1000.0);
    report(v, "loaded " + path + message, false);
    return true;
}

// Leaf boxes of the first kMaxLeafBoxes drawn leaves, in tree order.
int addLeafBoxes(DebugLines& lines, const Terrain& t) {
    int count = 0;
    for (const LeafRange& range : t.frame.drawn) {
        for (uint32_t leaf = range.first; leaf < range.first + range.count; ++leaf) {
            if (count == kMaxLeafBoxes) {
                return count;
            }
            lines.addBox(nodeBox(t.tree, t.tree.nodes[t.tree.leafNodes[leaf]], t.mapping),
                         kLeafBoxColour);
            ++count;
        }
    }
    return count;
}

// On a map whose samples arrive as asked for: the square under the eye, fetched off the frame's
// thread, so that the eye's floor becomes the ground's own rather than its leaf's highest sample.
void askGroundUnderEye(const Session& s) {
    const Terrain& t = s.terrain;
    if (!t.asker) {
        return;
    }
    if (const std::optional<SquareUnder> at =
            squareUnder(t.map, t.mapping, s.camera.position.x, s.camera.position.z)) {
        t.asker->ask(at->col, at->row, at->col + 1, at->row + 1);
    }
}

// The distance from the eye to the terrain along the view's centre line, for the scale bar;
// 0 when it meets none.
float viewCentreDistance(const Session& s, int width, int height) {
    const Terrain& t = s.terrain;
    const PickRay ray = s.viewRay(0.5f * float(width), 0.5f * float(height), width, height);
    const PickHit hit = pickTerrain(t.map, t.tree, t.mapping, ray, t.arriving());
    return hit.hit ? float(hit.t * double(glm::length(ray.direction))) : 0.0f;
}

// The back buffer as drawn this frame, HUD included, as a PNG.
Status saveWindow(const std::string& path, int width, int height) {
    std::vector<uint8_t> rgba;
    readPixels(width, height, rgba);
    return writeRgbaAsRgbPng(path, width, height, rgba);
}

// What --state-json records at exit: camera, map, the cursor's pick, the measurement, the last
// screenshot, frames drawn.
std::string stateJson(const Viewer& v, int frames, double seconds) {
    const Session& s = v.session;
    ViewerState state;
    state.path = s.terrain.path;
    state.camera = s.camera;
    state.speed = v.fly.speed;
    state.follow = v.hud.follow;
    state.followHeight = v.hud.followHeight;
    state.frames = frames;
    state.seconds = seconds;
    state.message = v.hud.message;
    state.screenshot = v.lastShot;
    state.cursor = v.hud.cursor.hover;
    state.cursorHeight = v.hud.cursor.hoverHeight;
    state.cursorGeo = v.hud.cursor.hoverGeo;
    state.cursorObject = v.hud.cursor.hoverObject;
    state.selectedObjects = v.hud.minimapObjects.selected;
    state.objects = s.terrain.objects ? s.terrain.objects->count() : 0;
    state.scattering = s.objectsScattering();
    state.measured = v.hud.cursor.measured;
    state.measureA = v.hud.cursor.a;
    state.measureB = v.hud.cursor.b;
    state.cull = v.hud.cull;
    state.occlusion = v.hud.occlusion;
    state.lod = v.hud.lod;
    state.lodPixels = v.hud.lodPixels;
    state.frameBudgetMs = v.hud.frameBudgetMs;
    state.freeze = v.hud.freeze;
    state.wireframe = v.hud.wireframe;
    state.boxes = v.hud.boxes;
    state.objectsPaused = v.hud.objectsPaused;
    state.hudVisible = v.hudVisible;
    state.sun = s.sun;
    state.shaderReloads = v.shaderReloads;
    state.pathBox = v.hud.path;
    state.pathBoxRect = v.hud.pathBoxRect;
    state.textFieldActive = ImGui::GetIO().WantTextInput;
    state.minimapSquare = v.hud.minimapSquare;
    state.flying = v.fly.flight.active;
    state.hudWindows = hudWindowRecords();
    return viewerStateJson(state);
}

}  // namespace

int runViewer(Session& s) {
    GLFWwindow* window = s.context.window;
    Viewer v(s);
    v.shotFolder = picturesFolder(s.options.screenshotDir);
    v.fly.reset(s.terrain.map, s.terrain.mapping);
    v.hud.followHeight = v.fly.followHeight;
    v.hud.cursor.setMap(s.geo);
    v.hud.cull = !s.options.noCull;
    v.hud.fog = s.renderer.fog;
    v.hud.contours = s.renderer.contourInterval > 0.0f;
    v.hud.contourInterval = s.renderer.contourInterval;
    v.hud.occlusion = !s.options.noOcclusion;
    // The HUD's Sun starts at the given one, or off at the fixed light's direction.
    v.hud.sun = s.sun.has_value();
    v.hud.sunAzimuth = hudAzimuth(s.sun ? s.sun->azimuth : kFixedSunAzimuth);
    v.hud.sunElevation = float(s.sun ? s.sun->elevation : kFixedSunElevation);
    const float lodPixels = lodPixelsFor(s.options, s.terrain.map.width, s.terrain.map.height);
    v.hud.lod = lodPixels > 0.0f;
    if (v.hud.lod) {
        v.hud.lodPixels = lodPixels;
    }
    // --lod auto holds the frame budget: by default only when flown by hand, so that scripted
    // runs draw with a fixed bound.
    const bool scripted = s.options.frames > 0 || !s.options.windowShotPath.empty() ||
                          !s.options.stateJsonPath.empty();
    const uint64_t budgetMs =
        s.options.frameBudgetMs.value_or(scripted ? 0 : kDefaultFrameBudgetMs);
    if (v.hud.lod && !s.options.lodPixels && budgetMs > 0) {
        v.budget = FrameBudget(double(budgetMs), lodPixels);
        v.hud.frameBudgetMs = int(budgetMs);
        v.hud.lodPixels = v.budget.pixels();
    }
    std::snprintf(v.hud.path, sizeof(v.hud.path), "%s", s.terrain.path.c_str());
    std::snprintf(v.hud.imageryPath, sizeof(v.hud.imageryPath), "%s", s.imageryPath.c_str());
    v.hud.imageryOpacity = s.renderer.imagery.opacity;
    v.hud.imageryLit = s.renderer.imagery.lit;
    v.hud.objectCount = int(s.options.objects);
    v.hud.movingCount = int(s.options.moving);
    v.hud.objectSeed = int(std::min<uint64_t>(s.options.seed, INT32_MAX));
    s.lines.lines.reserve(size_t(kMaxLeafBoxes) * 24 + 24);

    // Ours first where the ImGui backend chains to callbacks installed before it (scroll, mouse
    // buttons); the keyboard's after it, replacing its own: they queue, and the frame hands
    // the queue's batch to ImGui (handOverInput).
    installMouseCallbacks(window, v);
    glfwSwapInterval(1);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    installKeyboardCallbacks(window);

    if (s.options.freezeEye) {  // a culling camera of its own, frozen from the first frame
        Camera frozen = s.camera;
        frozen.lookAt(*s.options.freezeEye, *s.options.freezeTarget);
        frozen.aspect = float(s.options.windowWidth) / float(s.options.windowHeight);
        fitClipPlanes(frozen, s.terrain.map, s.terrain.mapping);
        v.frozenCamera = frozen;
        v.hud.freeze = true;
    }
    const bool shot = !s.options.windowShotPath.empty();
    const int frames = s.options.frames > 0 ? s.options.frames : shot ? kWindowShotFrames : 0;
    const double frameSeconds = s.options.maxFps > 0 ? 1.0 / s.options.maxFps : 0.0;
    int status = 0;

    const double startTime = glfwGetTime();
    double previous = startTime;
    v.fly.keys.restart(previous);
    int frame = 0;
    while (!glfwWindowShouldClose(window) && (frames == 0 || frame < frames)) {
        glfwPollEvents();
        int width = 0;
        int height = 0;
        glfwGetFramebufferSize(window, &width, &height);
        if (width <= 0 || height <= 0) {  // minimised: nothing to draw into
            glfwWaitEventsTimeout(0.1);
            previous = glfwGetTime();
            v.fly.keys.restart(previous);
            continue;
        }
        handOverInput(window, v);
        const double now = glfwGetTime();
        v.hud.quitAsked = now <= v.quitArmedUntil;
        s.renderer.fog = s.objectRenderer.fog = v.hud.fog;
        s.renderer.contourInterval = v.hud.contours ? v.hud.contourInterval : 0.0f;
        s.renderer.imagery =
            ImageryStyle{v.hud.imageryOn, v.hud.imageryOpacity, v.hud.imageryLit, false};
        updateSun(v);
        v.hud.recordFrame(float((now - previous) * 1000.0));
        const float seconds = float(now - previous);
        previous = now;

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        const ImGuiIO& io = ImGui::GetIO();
        if (io.WantCaptureKeyboard && v.fly.keys.anyDown()) {
            v.fly.keys.releaseAll(now);  // a text box took the keyboard
        }
        v.fly.follow = v.hud.follow;
        v.fly.followHeight = v.hud.followHeight;
        v.fly.update(window, s.camera, now, !io.WantCaptureMouse || v.fly.captured, s.terrain.map,
                     s.terrain.mapping, s.terrain.tree, s.terrain.arriving());
        askGroundUnderEye(s);
        s.camera.aspect = float(width) / float(height);
        fitClipPlanes(s.camera, s.terrain.map, s.terrain.mapping);
        updateCursor(window, v);
        const glm::mat4 viewProjection = s.camera.viewProjection();
        if (!v.hud.freeze) {
            v.frozenCamera = s.camera;
        }
        const CullView view{v.frozenCamera, height, v.hud.cull, v.hud.occlusion,
                            v.hud.lod ? v.hud.lodPixels : 0.0f};

        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        TerrainRenderer::clear(width, height);
        stepObjects(v, seconds);
        // Frozen: the rest of the map faded around the frozen set, so that it is seen in place.
        FrameStats stats = v.hud.freeze ? renderFrozenView(s.renderer, s.terrain, s.camera, view,
                                                           v.hud.wireframe, &s.objectRenderer)
                                        : renderTerrain(s.renderer, s.terrain, s.camera, view,
                                                        v.hud.wireframe, &s.objectRenderer);
        // A program made for this frame failed to compile: its nodes or objects were not drawn.
        if (const std::string& late = s.lateShaderFailure(); late != v.lateShaderFailure) {
            v.lateShaderFailure = late;
            if (!late.empty()) {
                report(v, late, true);
            }
        }
        s.lines.clear();
        const std::array<glm::vec3, 8> corners = Frustum::corners(v.frozenCamera.viewProjection());
        if (v.hud.freeze) {
            s.lines.addFrustum(corners, kFrustumLineColour);
        }
        v.hud.boxesDrawn = v.hud.boxes ? addLeafBoxes(s.lines, s.terrain) : 0;
        s.lines.draw(viewProjection);

        const Viewer::Shot shotNow = v.shotRequest;
        v.shotRequest = Viewer::Shot::None;
        HudRequests requests;
        if (v.hudVisible && shotNow != Viewer::Shot::WithoutHud) {
            v.hud.viewDistance = viewCentreDistance(s, width, height);
            v.hud.objectsComing =
                s.objectsScattering() || s.objectsWaitForHeights() ? s.options.objects : 0;
            requests = drawHud(v.hud, stats, s.terrain, s.camera, corners, v.fly.speed);
        }
        ImGui::Render();
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        if (shot && frame + 1 == frames) {
            if (Status e = saveWindow(s.options.windowShotPath, width, height); !e) {
                std::fprintf(stderr, "quadterrain: %s\n", e.error().c_str());
                status = kExitFailure;
            }
        }
        if (shotNow != Viewer::Shot::None) {
            const std::string name = screenshotName(v.shotFolder);
            if (Status saved = saveWindow(name, width, height); !saved) {
                report(v, saved.error(), true);  // the HUD and the terminal
            } else {
                v.lastShot = name;
                report(v,
                       "saved " + name + " (" + std::to_string(width) + "x" +
                           std::to_string(height) +
                           (shotNow == Viewer::Shot::WithHud ? ", with the HUD)" : ", no HUD)"),
                       false);
            }
        }
        glfwSwapBuffers(window);
        if (v.hud.frameBudgetMs > 0 && v.hud.lod) {
            // The frame's own time, from its start to its swap (a --max-fps wait left out).
            v.budget.update((glfwGetTime() - now) * 1000.0);
            v.hud.lodPixels = v.budget.pixels();
        }
        if (s.context.debugOutput) {
            s.context.checkErrors("a frame");
        }
        ++frame;
        v.frame = frame;
        if (frame == 1 && !s.options.stateJsonPath.empty()) {
            std::printf("quadterrain: ready\n");  // a test driving the window may start
            std::fflush(stdout);
        }
        // Every event sent before the sync key went through the frame that took the key in, and
        // this one ran whole after it: the state a test checks is settled.
        // A map being read is part of what the events asked for: the state waits for it.
        if (v.syncsPending > 0 && frame >= v.syncFrame + 2 && s.loadingPath().empty()) {
            const std::string json = stateJson(v, frame, glfwGetTime() - startTime);
            if (Status e = writeFile(s.options.stateJsonPath, json.data(), json.size()); !e) {
                std::fprintf(stderr, "quadterrain: %s\n", e.error().c_str());
                status = kExitFailure;
            }
            for (; v.syncsPending > 0; --v.syncsPending) {
                std::printf("quadterrain: sync %d\n", ++v.syncsAnswered);
            }
            std::fflush(stdout);
        }

        bool stalled = false;
        if (requests.reloadShaders || v.reloadRequested) {
            v.reloadRequested = false;
            ++v.shaderReloads;
            const Status reloaded = s.reloadShaders();
            report(v, reloaded ? "shaders reloaded" : reloaded.error(), !reloaded);
            stalled = true;
        }
        if (requests.resetCamera) {
            s.resetCamera(s.camera.aspect);
            v.fly.flight.active = false;
        }
        if (requests.moveTo) {  // over the point clicked on the minimap, at the same height
            s.camera.position.x = requests.moveTo->x;
            s.camera.position.z = requests.moveTo->y;
            v.fly.flight.active = false;
        }
        reportLoadProgress(v);
        if (finishLoad(v)) {
            stalled = true;
        }
        if (requests.load) {
            load(v, v.hud.path);
        }
        if (requests.scatterObjects) {
            scatterFromHud(v);
        }
        if (std::string said = s.finishObjects(); !said.empty()) {
            v.hud.message = std::move(said);
        }
        if (requests.loadImagery) {
            s.startImagery(v.hud.imageryPath);
            report(v, std::string("loading imagery ") + v.hud.imageryPath, false);
        }
        if (std::optional<ImageryOutcome> draped = s.finishImagery(false)) {
            reportImagery(v, *draped);
            stalled = true;  // the upload held this frame up
        }
        if (requests.removeImagery) {
            clearTerrainImagery(s.terrain);
            s.imageryPath.clear();
        }
        if (requests.mappingChanged) {  // the shadows of the new heights
            remapTerrainSun(s.terrain, s.renderer, s.sun,
                            memoryBudgetBytes(s.options, physicalMemoryBytes()),
                            s.lightScratchDir());
        }
        if (requests.mappingChanged && (s.terrain.objects || s.objectsScattering())) {
            v.hud.minimapObjects.selected.clear();
            if (Status scattered = s.scatterObjects(false); !scattered) {
                report(v, scattered.error(), true);
            }
        }
        if (!v.droppedPath.empty()) {
            const std::string path = std::move(v.droppedPath);
            v.droppedPath.clear();
            load(v, path);
        }
        if (frameSeconds > 0.0) {  // --max-fps: wait out the frame, taking input meanwhile
            for (double left = previous + frameSeconds - glfwGetTime(); left > 0.0;
                 left = previous + frameSeconds - glfwGetTime()) {
                glfwWaitEventsTimeout(left);
            }
        }
        if (stalled) {  // the camera does not jump by a load's or a compile's seconds
            previous = glfwGetTime();
            v.fly.keys.restart(previous);
        }
    }

    if (!s.options.stateJsonPath.empty()) {
        const std::string json = stateJson(v, frame, glfwGetTime() - startTime);
        if (Status e = writeFile(s.options.stateJsonPath, json.data(), json.size()); !e) {
            std::fprintf(stderr, "quadterrain: %s\n", e.error().c_str());
            status = kExitFailure;
        }
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwSetWindowUserPointer(window, nullptr);
    return status;
}

}  // namespace qt
