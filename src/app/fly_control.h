// Fly-camera input: WASD, Q/E (Ctrl/Space) down/up, Shift faster, right-drag or captured mouse to
// look, scroll wheel for speed; the eye kept above the terrain (higher in ground-follow mode) and
// the double-click flight.
#pragma once

#include "app/move_keys.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "core/view/camera_flight.h"

struct GLFWwindow;

namespace qt {

struct FlyControl {
    float speed = 10.0f;    // world units per second
    bool captured = false;  // cursor hidden and locked: the mouse always looks
    double lastX = 0.0;     // cursor at the previous look update
    double lastY = 0.0;
    bool haveLast = false;
    MoveKeys keys;              // movement keys, timed from their events
    bool follow = false;        // ground-follow: the eye at least followHeight over the terrain
    float followHeight = 1.0f;  // world units
    CameraFlight flight;        // a double-click flight under way

    // A speed that crosses the map in about 20 seconds.
    static float defaultSpeed(const Heightmap& map, const WorldMapping& mapping);
    // Speed, ground-follow height and no flight, for a newly loaded map.
    void reset(const Heightmap& map, const WorldMapping& mapping);

    void setCaptured(GLFWwindow* window, bool on);
    // A key event at `time` (glfwGetTime seconds): true when it is a movement key. Presses are
    // taken only when `keyboard` (the HUD does not want the keyboard); releases always.
    bool onKey(int key, int action, double time, bool keyboard);
    // Mouse look (when `mouse`), the movement of the keys held since the last update, the
    // flight, then the eye's floor over the terrain (keepAboveGround: as far as `presence`
    // tells, from `tree` where samples are absent); `now` on the clock of onKey's times.
    void update(GLFWwindow* window, Camera& camera, double now, bool mouse, const Heightmap& map,
                const WorldMapping& mapping, const Quadtree& tree, const SamplePresence* presence);
    // Scroll wheel: each notch changes the speed by 20 percent.
    void onScroll(double notches);
};

}  // namespace qt
