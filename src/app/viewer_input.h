// The viewer's state shared by its frame loop and its input handlers, and those handlers: GLFW
// callbacks that queue keys (handed to Dear ImGui and the camera a batch a frame), mouse picking,
// measuring drags, double-click flights, the screenshot key.
#pragma once

#include <cstdint>
#include <string>

#include "app/fly_control.h"
#include "app/frame_budget.h"
#include "app/hud.h"
#include "app/input_queue.h"
#include "app/session.h"
#include "core/config.h"

struct GLFWwindow;

namespace qt {

struct Viewer {
    explicit Viewer(Session& s) : session(s) {}
    Session& session;
    HudState hud;
    FlyControl fly;
    FrameBudget budget{0.0, kAutoLodPixels};  // set up with the map (hud.frameBudgetMs > 0: on)
    Camera frozenCamera;                      // the culling camera while frozen
    std::string droppedPath;                  // set by the drop callback, loaded after the frame
    int loadReported = -1;  // the percent of a load's read the message line last said
    bool hudVisible = true;
    bool reloadRequested = false;
    int shaderReloads = 0;
    std::string lateShaderFailure;  // the last one reported (Session::lateShaderFailure)
    InputQueue input;  // keyboard events, handed to ImGui and the camera a batch a frame
    // Frames the queue waits after a Focus event (a mouse press, Ctrl+O) before handing over the
    // keys behind it: Dear ImGui activates a clicked or focused text field while drawing the next
    // frame and says so (WantCaptureKeyboard) at the one after, so keys typed right after the
    // click go to the field, never to the shortcuts.
    int inputHoldFrames = 0;
    // Esc outside a text field with the mouse free asks first ("Esc again to quit"); a second
    // Esc before this time on the key clock quits.
    double quitArmedUntil = -1.0;
    enum class Shot { None, WithHud, WithoutHud } shotRequest = Shot::None;  // F12, Shift+F12
    std::string lastShot;                 // the last screenshot the key saved
    std::string shotFolder = ".";         // where the key saves (picturesFolder)
    double cursorX = 0.0, cursorY = 0.0;  // the cursor as of the last event handled
    double pressX = 0.0, pressY = 0.0;    // where the left button went down on the terrain
    double lastClickTime = -1.0;          // the last click (press and release in one place)
    double lastClickX = 0.0, lastClickY = 0.0;
    float objectClock = 0.0f;  // simulated time owed to the objects, below one step
    // With --state-json, the sync key (Pause) that a test sends after its input: the frame that
    // took it in, and how many presses wait for their answer (the state written and a line
    // "quadterrain: sync N" once a whole frame has run after that one).
    int frame = 0;  // frames drawn so far
    int syncFrame = -1;
    int syncsPending = 0;
    int syncsAnswered = 0;
};

// Before Dear ImGui's backend is set up, which chains to them: the window's user pointer, scroll,
// mouse buttons, cursor motion and dropped files.
void installMouseCallbacks(GLFWwindow* window, Viewer& v);
// After it, replacing its own: keys and characters only queue (see InputQueue).
void installKeyboardCallbacks(GLFWwindow* window);
// This frame's batch of the key queue: to Dear ImGui's handlers, then to the viewer's.
void handOverInput(GLFWwindow* window, Viewer& v);
// The pick under the cursor for the HUD (none over the HUD or with the mouse captured), and the
// measurement's far end while dragging.
void updateCursor(GLFWwindow* window, Viewer& v);
// FOLDER/quadterrain-YYYYMMDD-HHMMSS.png, -2, -3... when that exists.
std::string screenshotName(const std::string& folder);

}  // namespace qt
