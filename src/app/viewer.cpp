// The interactive frame loop: poll, move, cull, draw terrain and debug lines, HUD, swap.
#include "app/viewer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include "app/cull_map.h"
#include "app/fly_control.h"
#include "app/hud.h"
#include "render/framebuffer.h"

namespace qt {
namespace {

constexpr uint32_t kFrustumLineColour = 0xFF3CDCFAu;  // ABGR in memory order: yellow
constexpr uint32_t kLeafBoxColour = 0xFFFF9040u;      // light blue
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
};

Viewer& viewerOf(GLFWwindow* window) {
    return *static_cast<Viewer*>(glfwGetWindowUserPointer(window));
}

void onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
    if (action != GLFW_PRESS || ImGui::GetIO().WantCaptureKeyboard) {
        return;
    }
    Viewer& v = viewerOf(window);
    switch (key) {
        case GLFW_KEY_R:
        case GLFW_KEY_F5:
            v.reloadRequested = true;
            break;
        case GLFW_KEY_C:
            v.hud.cull = !v.hud.cull;
            break;
        case GLFW_KEY_O:
            v.hud.occlusion = !v.hud.occlusion;
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
        case GLFW_KEY_H:
            v.hudVisible = !v.hudVisible;
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
    v.fly.speed = FlyControl::defaultSpeed(s.terrain.map, s.terrain.mapping);
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

}  // namespace

int runViewer(Session& s) {
    GLFWwindow* window = s.context.window;
    Viewer v(s);
    v.fly.speed = FlyControl::defaultSpeed(s.terrain.map, s.terrain.mapping);
    v.hud.cull = !s.options.noCull;
    v.hud.occlusion = !s.options.noOcclusion;
    const float lodPixels = lodPixelsFor(s.options, s.terrain.map.width, s.terrain.map.height);
    v.hud.lod = lodPixels > 0.0f;
    if (v.hud.lod) {
        v.hud.lodPixels = lodPixels;
    }
    std::snprintf(v.hud.path, sizeof(v.hud.path), "%s", s.terrain.path.c_str());
    s.lines.lines.reserve(size_t(kMaxLeafBoxes) * 24 + 24);

    // Ours first: the ImGui backend chains to callbacks installed before it.
    glfwSetWindowUserPointer(window, &v);
    glfwSetKeyCallback(window, onKey);
    glfwSetScrollCallback(window, onScroll);
    glfwSetDropCallback(window, onDrop);
    glfwSwapInterval(1);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");

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
    int status = 0;

    using Clock = std::chrono::steady_clock;
    Clock::time_point previous = Clock::now();
    int frame = 0;
    while (!glfwWindowShouldClose(window) && (frames == 0 || frame < frames)) {
        glfwPollEvents();
        int width = 0;
        int height = 0;
        glfwGetFramebufferSize(window, &width, &height);
        if (width <= 0 || height <= 0) {  // minimised: nothing to draw into
            glfwWaitEventsTimeout(0.1);
            previous = Clock::now();
            continue;
        }
        const Clock::time_point now = Clock::now();
        const float seconds = std::min(std::chrono::duration<float>(now - previous).count(), 0.1f);
        v.hud.recordFrame(std::chrono::duration<float, std::milli>(now - previous).count());
        previous = now;

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        const ImGuiIO& io = ImGui::GetIO();
        v.fly.update(window, s.camera, seconds, !io.WantCaptureKeyboard,
                     !io.WantCaptureMouse || v.fly.captured);
        s.camera.aspect = float(width) / float(height);
        fitClipPlanes(s.camera, s.terrain.map, s.terrain.mapping);
        const glm::mat4 viewProjection = s.camera.viewProjection();
        if (!v.hud.freeze) {
            v.frozenCamera = s.camera;
        }
        const CullView view{v.frozenCamera, height, v.hud.cull, v.hud.occlusion,
                            v.hud.lod ? v.hud.lodPixels : 0.0f};

        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        TerrainRenderer::clear(width, height);
        // Frozen: the rest of the map faded around the frozen set, so that it is seen in place.
        FrameStats stats =
            v.hud.freeze ? renderFrozenView(s.renderer, s.terrain, s.camera, view, v.hud.wireframe)
                         : renderTerrain(s.renderer, s.terrain, s.camera, view, v.hud.wireframe);
        s.lines.clear();
        const std::array<glm::vec3, 8> corners = Frustum::corners(v.frozenCamera.viewProjection());
        if (v.hud.freeze) {
            s.lines.addFrustum(corners, kFrustumLineColour);
        }
        v.hud.boxesDrawn = v.hud.boxes ? addLeafBoxes(s.lines, s.terrain) : 0;
        s.lines.draw(viewProjection);

        HudRequests requests;
        if (v.hudVisible) {
            requests = drawHud(v.hud, stats, s.terrain, s.camera, corners, v.fly.speed);
        }
        ImGui::Render();
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        if (shot && frame + 1 == frames && !saveWindow(s.options.windowShotPath, width, height)) {
            status = kExitFailure;
        }
        glfwSwapBuffers(window);
        if (s.context.debugOutput) {
            s.context.checkErrors("a frame");
        }
        ++frame;

        if (requests.reloadShaders || v.reloadRequested) {
            v.reloadRequested = false;
            const Status reloaded = s.reloadShaders();
            report(v, reloaded ? "shaders reloaded" : reloaded.error(), !reloaded);
        }
        if (requests.resetCamera) {
            s.resetCamera(s.camera.aspect);
        }
        if (requests.load) {
            load(v, v.hud.path);
        }
        if (!v.droppedPath.empty()) {
            const std::string path = std::move(v.droppedPath);
            v.droppedPath.clear();
            load(v, path);
        }
    }

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwSetWindowUserPointer(window, nullptr);
    return status;
}

}  // namespace qt
