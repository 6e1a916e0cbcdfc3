// Fly-camera input: WASD, Q/E (Ctrl/Space) down/up, Shift faster, right-drag or captured mouse to
// look, scroll wheel for speed.
#pragma once

#include "core/camera.h"
#include "core/heightmap.h"
#include "core/terrain_grid.h"

struct GLFWwindow;

namespace qt {

struct FlyControl {
    float speed = 10.0f;    // world units per second
    bool captured = false;  // cursor hidden and locked: the mouse always looks
    double lastX = 0.0;     // cursor at the previous look update
    double lastY = 0.0;
    bool haveLast = false;

    // A speed that crosses the map in about 20 seconds.
    static float defaultSpeed(const Heightmap& map, const WorldMapping& mapping);

    void setCaptured(GLFWwindow* window, bool on);
    // keyboard / mouse: false while the HUD wants that device.
    void update(GLFWwindow* window, Camera& camera, float seconds, bool keyboard, bool mouse);
    // Scroll wheel: each notch changes the speed by 20 percent.
    void onScroll(double notches);
};

}  // namespace qt
