// The interactive frame loop: poll, hand the keyboard queue's batch over, move, pick, cull, draw
// terrain and debug lines, HUD, swap; mouse picking, measuring, flights and screenshots.
#include "app/viewer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "app/cull_map.h"
#include "app/fly_control.h"
#include "app/hud.h"
#include "app/input_queue.h"
#include "app/stats_json.h"
#include "core/config.h"
#include "render/framebuffer.h"

namespace qt {
namespace {

constexpr uint32_t kFrustumLineColour = 0xFF3CDCFAu;  // ABGR in memory order: yellow
constexpr uint32_t kLeafBoxColour = 0xFFFF9040u;      // light blue
// Two left clicks within this many seconds and kClickPixels pixels make a double-click.
constexpr double kDoubleClickSeconds = 0.4;
// A press and release within this many pixels is a click, not a measuring drag.
constexpr double kClickPixels = 4.0;
// Frames --window-shot runs before saving when --frames is not given (the HUD settles).
constexpr int kWindowShotFrames = 5;

struct Viewer {
    explicit Viewer(Session& s) : session(s) {}
    Session& session;
    HudState hud;
    FlyControl fly;
    Camera frozenCamera;      // the culling camera while frozen
    std::string droppedPath;  // set by the drop callback, loaded after the frame
    bool hudVisible = true;
    bool reloadRequested = false;
    InputQueue input;  // keyboard events, handed to ImGui and the camera a batch a frame
    enum class Shot { None, WithHud, WithoutHud } shotRequest = Shot::None;  // F12, Shift+F12
    std::string lastShot;                 // the last screenshot the key saved
    double cursorX = 0.0, cursorY = 0.0;  // the cursor as of the last event handled
    double pressX = 0.0, pressY = 0.0;    // where the left button went down on the terrain
    double lastClickTime = -1.0;          // the last click (press and release in one place)
    double lastClickX = 0.0, lastClickY = 0.0;
};

Viewer& viewerOf(GLFWwindow* window) {
    return *static_cast<Viewer*>(glfwGetWindowUserPointer(window));
}

// A key event from the queue, in order with what Dear ImGui was handed: movement keys to the
// camera, toggles on a press the HUD does not want.
void handleKey(GLFWwindow* window, Viewer& v, const InputEvent& e) {
    const bool keyboard = !ImGui::GetIO().WantCaptureKeyboard;
    if (v.fly.onKey(e.key, e.action, e.time, keyboard) || e.action != GLFW_PRESS || !keyboard) {
        return;
    }
    switch (e.key) {
        case GLFW_KEY_R:
        case GLFW_KEY_F5:
            v.reloadRequested = true;
            break;
        case GLFW_KEY_C:
            v.hud.cull = !v.hud.cull;
            break;
        case GLFW_KEY_O:
            if (e.mods & GLFW_MOD_CONTROL) {
                v.hud.focusPath = true;
                v.hudVisible = true;
            } else {
                v.hud.occlusion = !v.hud.occlusion;
            }
            break;
        case GLFW_KEY_L:
            v.hud.lod = !v.hud.lod;
            break;
        case GLFW_KEY_F:
            v.hud.freeze = !v.hud.freeze;
            break;
        case GLFW_KEY_G:
            v.hud.wireframe = !v.hud.wireframe;
            break;
        case GLFW_KEY_B:
            v.hud.boxes = !v.hud.boxes;
            break;
        case GLFW_KEY_T:
            v.hud.follow = !v.hud.follow;
            break;
        case GLFW_KEY_H:
            v.hudVisible = !v.hudVisible;
            break;
        case GLFW_KEY_F12:
            v.shotRequest =
                (e.mods & GLFW_MOD_SHIFT) ? Viewer::Shot::WithoutHud : Viewer::Shot::WithHud;
            break;
        case GLFW_KEY_TAB:
            v.fly.setCaptured(window, !v.fly.captured);
            break;
        case GLFW_KEY_ESCAPE:
            if (v.fly.captured) {
                v.fly.setCaptured(window, false);
            } else {
                glfwSetWindowShouldClose(window, GLFW_TRUE);
            }
            break;
        default:
            break;
    }
}

// GLFW's key and character callbacks only queue, timed: see InputQueue.
void onKeyQueued(GLFWwindow* window, int key, int scancode, int action, int mods) {
    InputEvent e;
    e.key = key;
    e.scancode = scancode;
    e.action = action;
    e.mods = mods;
    e.time = glfwGetTime();
    viewerOf(window).input.push(e);
}

void onCharQueued(GLFWwindow* window, unsigned codepoint) {
    InputEvent e;
    e.kind = InputEvent::Kind::Char;
    e.codepoint = codepoint;
    e.time = glfwGetTime();
    viewerOf(window).input.push(e);
}

// This frame's batch of the queue: to Dear ImGui's handlers, then to ours.
void handOverInput(GLFWwindow* window, Viewer& v) {
    const size_t count = v.input.frameBatch();
    for (size_t i = 0; i < count; ++i) {
        const InputEvent& e = v.input[i];
        if (e.kind == InputEvent::Kind::Char) {
            ImGui_ImplGlfw_CharCallback(window, e.codepoint);
        } else {
            ImGui_ImplGlfw_KeyCallback(window, e.key, e.scancode, e.action, e.mods);
            handleKey(window, v, e);
        }
    }
    v.input.pop(count);
}

// The terrain under window point (x, y) (GLFW's cursor coordinates, origin top-left).
PickHit pickAt(GLFWwindow* window, const Session& s, double x, double y) {
    int width = 0;
    int height = 0;
    glfwGetWindowSize(window, &width, &height);
    if (width <= 0 || height <= 0 || x < 0.0 || y < 0.0 || x >= width || y >= height) {
        return {};
    }
    const Terrain& t = s.terrain;
    // The pointer is on pixel (floor x, floor y): through its centre, as --pick PX,PY.
    return pickTerrain(t.map, t.tree, t.mapping,
                       pixelRay(s.camera, float(std::floor(x)) + 0.5f, float(std::floor(y)) + 0.5f,
                                width, height));
}

// Left button on the terrain: a press starts a measurement there; a release in the same place is
// a click, and a second click soon after in the same place flies to the point.
void onMouseButton(GLFWwindow* window, int button, int action, int /*mods*/) {
    Viewer& v = viewerOf(window);
    if (button != GLFW_MOUSE_BUTTON_LEFT || v.fly.captured) {
        return;
    }
    const double x = v.cursorX;  // where the button event happened
    const double y = v.cursorY;
    CursorReadout& c = v.hud.cursor;
    if (action == GLFW_PRESS) {
        if (ImGui::GetIO().WantCaptureMouse) {
            return;
        }
        const PickHit hit = pickAt(window, v.session, x, y);
        c.measured = hit.hit;
        c.dragging = hit.hit;
        c.a = c.b = hit.world;
        v.pressX = x;
        v.pressY = y;
        return;
    }
    if (action != GLFW_RELEASE || !c.dragging) {
        return;
    }
    c.dragging = false;
    if (std::hypot(x - v.pressX, y - v.pressY) > kClickPixels) {
        if (const PickHit end = pickAt(window, v.session, x, y); end.hit) {
            c.b = end.world;  // a measuring drag, ending where the button came up
        }
        return;
    }
    c.measured = false;
    const double now = glfwGetTime();
    if (v.lastClickTime >= 0.0 && now - v.lastClickTime <= kDoubleClickSeconds &&
        std::hypot(x - v.lastClickX, y - v.lastClickY) <= kClickPixels) {
        v.fly.flight = CameraFlight::towards(v.session.camera, c.a, kFlightSeconds);
        v.lastClickTime = -1.0;
        return;
    }
    v.lastClickTime = now;
    v.lastClickX = x;
    v.lastClickY = y;
}

// The cursor's position in event order: glfwGetCursorPos asks the X server where the pointer is
// now, so a button event handled late would be placed where the pointer went after it.
void onCursorPos(GLFWwindow* window, double x, double y) {
    Viewer& v = viewerOf(window);
    v.cursorX = x;
    v.cursorY = y;
}

// The pick under the cursor for the HUD (none over the HUD or with the mouse captured), and the
// measurement's far end while dragging.
void updateCursor(GLFWwindow* window, Viewer& v) {
    CursorReadout& c = v.hud.cursor;
    c.hover = {};
    if (v.fly.captured) {
        return;
    }
    const PickHit hit = pickAt(window, v.session, v.cursorX, v.cursorY);
    if (c.dragging && hit.hit) {
        c.b = hit.world;
    }
    if (!ImGui::GetIO().WantCaptureMouse) {
        c.hover = hit;
        c.hoverSample = CursorReadout::sampleAt(v.session.terrain.map, hit);
    }
}

// quadterrain-YYYYMMDD-HHMMSS.png in the current folder, -2, -3... when that exists.
std::string screenshotName() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
    std::string name = std::string("quadterrain-") + stamp + ".png";
    for (int n = 2; n < 100; ++n) {
        if (std::FILE* f = std::fopen(name.c_str(), "rb")) {
            std::fclose(f);
            name = std::string("quadterrain-") + stamp + "-" + std::to_string(n) + ".png";
        } else {
            break;
        }
    }
    return name;
}

void onScroll(GLFWwindow* window, double /*dx*/, double dy) {
    if (!ImGui::GetIO().WantCaptureMouse) {
        viewerOf(window).fly.onScroll(dy);
    }
}

void onDrop(GLFWwindow* window, int count, const char** paths) {
    if (count > 0) {
        viewerOf(window).droppedPath = paths[count - 1];
    }
}

void report(Viewer& v, const std::string& message, bool error) {
    v.hud.message = message;
    if (error) {
        std::fprintf(stderr, "quadterrain: %s\n", message.c_str());
    }
}

// One frame of the current terrain under a panel naming the load step under way: a load blocks
// the frame loop, and a large map takes seconds, so the window says what it is doing meanwhile.
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

void load(Viewer& v, const std::string& path) {
    Session& s = v.session;
    const auto progress = [&](LoadStep step) { drawLoadingFrame(v, path, step); };
    if (Status loaded = s.replaceTerrain(path, progress); !loaded) {
        report(v, loaded.error(), true);
        return;
    }
    v.fly.reset(s.terrain.map, s.terrain.mapping);
    v.hud.followHeight = v.fly.followHeight;
    v.hud.cursor = {};
    v.hud.cursor.metres = s.terrain.map.format == HeightmapFormat::Hgt;
    std::snprintf(v.hud.path, sizeof(v.hud.path), "%s", path.c_str());
    const LoadTimes& t = s.terrain.times;
    char message[160];
    std::snprintf(message, sizeof(message), " in %.2f s (decode %.2f, tree %.2f, upload %.2f)",
                  t.totalMs() / 1000.0, t.decodeMs / 1000.0, t.treeMs / 1000.0,
                  t.uploadMs / 1000.0);
    report(v, "loaded " + path + message, false);
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

// The back buffer as drawn this frame, HUD included, as a PNG.
bool saveWindow(const std::string& path, int width, int height) {
    std::vector<uint8_t> rgba;
    readPixels(width, height, rgba);
    if (Status e = writeRgbaAsRgbPng(path, width, height, rgba); !e) {
        std::fprintf(stderr, "quadterrain: %s\n", e.error().c_str());
        return false;
    }
    return true;
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
    state.cursorSample = v.hud.cursor.hoverSample;
    state.measured = v.hud.cursor.measured;
    state.measureA = v.hud.cursor.a;
    state.measureB = v.hud.cursor.b;
    state.cull = v.hud.cull;
    state.occlusion = v.hud.occlusion;
    state.minimapSquare = v.hud.minimapSquare;
    return viewerStateJson(state);
}

}  // namespace

int runViewer(Session& s) {
    GLFWwindow* window = s.context.window;
    Viewer v(s);
    v.fly.reset(s.terrain.map, s.terrain.mapping);
    v.hud.followHeight = v.fly.followHeight;
    v.hud.cursor.metres = s.terrain.map.format == HeightmapFormat::Hgt;
    v.hud.cull = !s.options.noCull;
    v.hud.occlusion = !s.options.noOcclusion;
    v.hud.lod = s.options.lodPixels > 0.0f;
    if (v.hud.lod) {
        v.hud.lodPixels = s.options.lodPixels;
    }
    std::snprintf(v.hud.path, sizeof(v.hud.path), "%s", s.terrain.path.c_str());
    s.lines.lines.reserve(size_t(kMaxLeafBoxes) * 24 + 24);

    // Ours first where the ImGui backend chains to callbacks installed before it (scroll, mouse
    // buttons); the keyboard's after it, replacing its own: they queue, and the frame hands
    // the queue's batch to ImGui (handOverInput).
    glfwSetWindowUserPointer(window, &v);
    glfwSetScrollCallback(window, onScroll);
    glfwSetMouseButtonCallback(window, onMouseButton);
    glfwSetCursorPosCallback(window, onCursorPos);
    glfwGetCursorPos(window, &v.cursorX, &v.cursorY);
    glfwSetDropCallback(window, onDrop);
    glfwSwapInterval(1);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    glfwSetKeyCallback(window, onKeyQueued);
    glfwSetCharCallback(window, onCharQueued);

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
        v.hud.recordFrame(float((now - previous) * 1000.0));
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
                     s.terrain.mapping);
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
        FrameStats stats = renderTerrain(s.renderer, s.terrain, s.camera, view, v.hud.wireframe);
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
            requests = drawHud(v.hud, stats, s.terrain, s.camera, corners, v.fly.speed);
        }
        ImGui::Render();
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        if (shot && frame + 1 == frames && !saveWindow(s.options.windowShotPath, width, height)) {
            status = kExitFailure;
        }
        if (shotNow != Viewer::Shot::None) {
            const std::string name = screenshotName();
            if (saveWindow(name, width, height)) {
                v.lastShot = name;
                report(v,
                       "saved " + name + " in the current folder (" + std::to_string(width) + "x" +
                           std::to_string(height) +
                           (shotNow == Viewer::Shot::WithHud ? ", with the HUD)" : ", no HUD)"),
                       false);
            } else {
                report(v, "could not save " + name + " (see the terminal)", false);
            }
        }
        glfwSwapBuffers(window);
        if (s.context.debugOutput) {
            s.context.checkErrors("a frame");
        }
        ++frame;
        if (frame == 1 && !s.options.stateJsonPath.empty()) {
            std::printf("quadterrain: ready\n");  // a test driving the window may start
            std::fflush(stdout);
        }

        bool stalled = false;
        if (requests.reloadShaders || v.reloadRequested) {
            v.reloadRequested = false;
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
        if (requests.load) {
            load(v, v.hud.path);
            stalled = true;
        }
        if (!v.droppedPath.empty()) {
            const std::string path = std::move(v.droppedPath);
            v.droppedPath.clear();
            load(v, path);
            stalled = true;
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
