// The viewer's input: queued keys and their toggles, the cursor's pick, measuring drags and
// double-click flights on the left button, scroll and dropped files.
#include "app/viewer_input.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

#include "core/config.h"

namespace qt {
namespace {

// The Sun's keys: [ and ] sweep its azimuth by this many degrees, with Shift its elevation by
// kSunElevationStep (within the HUD slider's -10 to 90 degrees); either turns the Sun on.
constexpr float kSunAzimuthStep = 15.0f;
constexpr float kSunElevationStep = 5.0f;

// Two left clicks within this many seconds and kClickPixels pixels make a double-click.
constexpr double kDoubleClickSeconds = 0.4;
// With --state-json, the key a test driving the window sends to wait for its input to be taken
// in (Viewer::syncFrame).
constexpr int kSyncKey = GLFW_KEY_PAUSE;
// A press and release within this many pixels is a click, not a measuring drag.
constexpr double kClickPixels = 4.0;
// Frames the keys behind a Focus event wait (Viewer::inputHoldFrames): the one in which Dear
// ImGui activates the field, and the one whose start says so.
constexpr int kFocusHoldFrames = 2;
// A second Esc within this many seconds of the first quits.
constexpr double kQuitSeconds = 2.0;

Viewer& viewerOf(GLFWwindow* window) {
    return *static_cast<Viewer*>(glfwGetWindowUserPointer(window));
}

// One step of the Sun's keys, `way` -1 or +1: the frame then asks for its shadows as the HUD's
// sliders do.
void sweepSun(HudState& hud, int way, bool elevation) {
    hud.sun = true;
    if (elevation) {
        hud.sunElevation =
            std::clamp(hud.sunElevation + float(way) * kSunElevationStep,
                       HudState::kSunElevationLowest, HudState::kSunElevationHighest);
    } else {
        hud.sunAzimuth = std::fmod(hud.sunAzimuth + float(way) * kSunAzimuthStep + 360.0f, 360.0f);
    }
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
                v.inputHoldFrames = kFocusHoldFrames;
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
        case GLFW_KEY_P:
            v.hud.objectsPaused = !v.hud.objectsPaused;
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
        case GLFW_KEY_LEFT_BRACKET:
        case GLFW_KEY_RIGHT_BRACKET:
            sweepSun(v.hud, e.key == GLFW_KEY_RIGHT_BRACKET ? 1 : -1,
                     (e.mods & GLFW_MOD_SHIFT) != 0);
            break;
        case GLFW_KEY_ESCAPE:
            if (v.fly.captured) {
                v.fly.setCaptured(window, false);
            } else if (e.time <= v.quitArmedUntil) {
                glfwSetWindowShouldClose(window, GLFW_TRUE);
            } else {
                v.quitArmedUntil = e.time + kQuitSeconds;
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

// The ray through the window pixel that window point (x, y) (GLFW's cursor coordinates, origin
// top-left) is on, (floor x, floor y), through its centre as --pick PX,PY; false off the window.
bool pointerRay(GLFWwindow* window, const Session& s, double x, double y, PickRay& ray) {
    int width = 0;
    int height = 0;
    glfwGetWindowSize(window, &width, &height);
    if (width <= 0 || height <= 0 || x < 0.0 || y < 0.0 || x >= width || y >= height) {
        return false;
    }
    ray = s.viewRay(float(std::floor(x)) + 0.5f, float(std::floor(y)) + 0.5f, width, height);
    return true;
}

// The terrain under window point (x, y), for a measurement or a flight the user asked for: on a
// map whose samples arrive as asked for, those the pick needs are read first (pickPresent), and a
// failure to read them is the HUD's message and no hit.
PickHit pickAt(GLFWwindow* window, Viewer& v, double x, double y) {
    PickRay ray;
    if (!pointerRay(window, v.session, x, y, ray)) {
        return {};
    }
    const Terrain& t = v.session.terrain;
    if (const SamplePresence* presence = t.arriving()) {
        Result<PickHit> hit = pickPresent(t.map, t.tree, t.mapping, ray, *presence);
        if (!hit) {
            v.hud.message = hit.error();
            return {};
        }
        return hit.value();
    }
    return pickTerrain(t.map, t.tree, t.mapping, ray);
}

// What window point (x, y) shows: the terrain, and the object in front of it (none without
// objects or off the window).
struct PointerPick {
    PickHit terrain;
    std::optional<ObjectPickHit> object;
};

PointerPick pointerPick(GLFWwindow* window, const Session& s, double x, double y) {
    PointerPick pick;
    PickRay ray;
    if (!pointerRay(window, s, x, y, ray)) {
        return pick;
    }
    const Terrain& t = s.terrain;
    pick.terrain = pickTerrain(t.map, t.tree, t.mapping, ray, t.arriving());  // never waits
    if (t.objects) {
        pick.object = pickObjectBefore(*t.objects, ray, pick.terrain);
    }
    return pick;
}

// Left button on the terrain: a press starts a measurement there; a release in the same place is
// a click, and a second click soon after in the same place flies to the point. With Shift, a
// press on an object selects it, or deselects it when selected.
void onMouseButton(GLFWwindow* window, int button, int action, int mods) {
    Viewer& v = viewerOf(window);
    if (action == GLFW_PRESS) {  // the keys typed after it wait for the HUD (InputQueue)
        InputEvent e;
        e.kind = InputEvent::Kind::Focus;
        e.time = glfwGetTime();
        v.input.push(e);
    }
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
        if (mods & GLFW_MOD_SHIFT) {
            if (const PointerPick pick = pointerPick(window, v.session, x, y); pick.object) {
                toggleObject(v.session.terrain, pick.object->id, v.hud.minimapObjects);
            }
            return;
        }
        const PickHit hit = pickAt(window, v, x, y);
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
        if (const PickHit end = pickAt(window, v, x, y); end.hit) {
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

}  // namespace

void handOverInput(GLFWwindow* window, Viewer& v) {
    if (v.inputHoldFrames > 0) {
        --v.inputHoldFrames;
        return;
    }
    const size_t count = v.input.frameBatch();
    for (size_t i = 0; i < count; ++i) {
        const InputEvent& e = v.input[i];
        if (e.kind == InputEvent::Kind::Focus) {
            v.inputHoldFrames = kFocusHoldFrames;
            continue;
        }
        if (e.kind == InputEvent::Kind::Key && e.key == kSyncKey &&
            !v.session.options.stateJsonPath.empty()) {
            if (e.action == GLFW_PRESS) {
                v.syncFrame = v.frame;
                ++v.syncsPending;
            }
            continue;  // the tests' key: neither the HUD's nor the camera's
        }
        if (e.kind == InputEvent::Kind::Char) {
            ImGui_ImplGlfw_CharCallback(window, e.codepoint);
        } else {
            ImGui_ImplGlfw_KeyCallback(window, e.key, e.scancode, e.action, e.mods);
            handleKey(window, v, e);
        }
    }
    v.input.pop(count);
}

void updateCursor(GLFWwindow* window, Viewer& v) {
    CursorReadout& c = v.hud.cursor;
    c.hover = {};
    c.hoverGeo.reset();
    c.hoverObject.reset();
    const Terrain& t = v.session.terrain;
    if (v.fly.captured) {
        return;
    }
    const PointerPick pick = pointerPick(window, v.session, v.cursorX, v.cursorY);
    if (c.dragging && pick.terrain.hit) {
        c.b = pick.terrain.world;
    }
    if (c.measured) {  // a few transforms a frame; the mapping may change under it
        c.distance = groundDistance(v.session.geo, t.mapping, c.a, c.b);
    }
    if (pick.terrain.arriving && t.asker) {  // fetched off the frame's thread
        const PickHit& p = pick.terrain;
        t.asker->ask(p.absentX0, p.absentZ0, p.absentX1, p.absentZ1);
    }
    if (!ImGui::GetIO().WantCaptureMouse) {
        c.hover = pick.terrain;
        if (pick.terrain.hit) {
            c.hoverHeight = t.mapping.mapHeight(pick.terrain.world.y);
            c.hoverGeo = v.session.geo.at(pick.terrain.world.x, pick.terrain.world.z, t.mapping);
        }
        c.hoverObject = pick.object;
        if (pick.object) {
            c.hoverShape = t.objects->shape(pick.object->id);
            c.hoverVelocity = t.objects->velocity(pick.object->id);
        }
    }
}

std::string screenshotName(const std::string& folder) {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
    const std::string start = folder + "/quadterrain-" + stamp;
    std::string name = start + ".png";
    for (int n = 2; n < 100; ++n) {
        if (std::FILE* f = std::fopen(name.c_str(), "rb")) {
            std::fclose(f);
            name = start + "-" + std::to_string(n) + ".png";
        } else {
            break;
        }
    }
    return name;
}

void installMouseCallbacks(GLFWwindow* window, Viewer& v) {
    glfwSetWindowUserPointer(window, &v);
    glfwSetScrollCallback(window, onScroll);
    glfwSetMouseButtonCallback(window, onMouseButton);
    glfwSetCursorPosCallback(window, onCursorPos);
    glfwGetCursorPos(window, &v.cursorX, &v.cursorY);
    glfwSetDropCallback(window, onDrop);
}

void installKeyboardCallbacks(GLFWwindow* window) {
    glfwSetKeyCallback(window, onKeyQueued);
    glfwSetCharCallback(window, onCharQueued);
}

}  // namespace qt
