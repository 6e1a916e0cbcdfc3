// Fly-camera input: GLFW key events timed into MoveKeys, cursor state for looking.
#include "app/fly_control.h"

#include <algorithm>
#include <cmath>

#include <GLFW/glfw3.h>

#include "core/config.h"

namespace qt {
namespace {

// Radians of turn per pixel of mouse movement.
constexpr float kLookSensitivity = 0.0025f;

// The move a key drives, or none.
bool moveOf(int key, Move& move) {
    switch (key) {
        case GLFW_KEY_W:
            move = Move::Forward;
            return true;
        case GLFW_KEY_S:
            move = Move::Back;
            return true;
        case GLFW_KEY_A:
            move = Move::Left;
            return true;
        case GLFW_KEY_D:
            move = Move::Right;
            return true;
        case GLFW_KEY_E:
        case GLFW_KEY_SPACE:
            move = Move::Up;
            return true;
        case GLFW_KEY_Q:
        case GLFW_KEY_LEFT_CONTROL:
        case GLFW_KEY_RIGHT_CONTROL:
            move = Move::Down;
            return true;
        case GLFW_KEY_LEFT_SHIFT:
        case GLFW_KEY_RIGHT_SHIFT:
            move = Move::Fast;
            return true;
        default:
            return false;
    }
}

}  // namespace

float FlyControl::defaultSpeed(const Heightmap& map, const WorldMapping& mapping) {
    return std::max(worldExtent(map, mapping).longerSide() / 20.0f, 1e-3f);
}

void FlyControl::reset(const Heightmap& map, const WorldMapping& mapping) {
    speed = defaultSpeed(map, mapping);
    followHeight = std::max(kFollowHeightFraction * worldExtent(map, mapping).longerSide(), 1e-3f);
    flight.active = false;
}

void FlyControl::setCaptured(GLFWwindow* window, bool on) {
    captured = on;
    glfwSetInputMode(window, GLFW_CURSOR, on ? GLFW_CURSOR_DISABLED : GLFW_CURSOR_NORMAL);
    haveLast = false;
}

bool FlyControl::onKey(int key, int action, double time, bool keyboard) {
    Move move;
    if (!moveOf(key, move)) {
        return false;
    }
    if (action == GLFW_PRESS && keyboard) {
        keys.press(move, time);
    } else if (action == GLFW_RELEASE) {
        keys.release(move, time);
    }
    return true;
}

void FlyControl::update(GLFWwindow* window, Camera& camera, double now, bool mouse,
                        const Heightmap& map, const WorldMapping& mapping, const Quadtree& tree,
                        const SamplePresence* presence) {
    const bool looking =
        captured || (mouse && glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS);
    double x = 0.0;
    double y = 0.0;
    glfwGetCursorPos(window, &x, &y);
    if (looking && haveLast && (x != lastX || y != lastY)) {
        camera.turn(float(x - lastX) * kLookSensitivity, -float(y - lastY) * kLookSensitivity);
        flight.active = false;
    }
    lastX = x;
    lastY = y;
    haveLast = looking;

    // Distance = speed x seconds held, whatever the steps.
    const MoveStep step = keys.step(now);
    if (const glm::vec3 move = displacement(step, camera, speed); move != glm::vec3(0.0f)) {
        camera.position += move;
        flight.active = false;
    }
    flight.advance(camera, float(step.seconds));
    keepAboveGround(camera, map, mapping, eyeFloor(map, mapping, camera, follow, followHeight),
                    &tree, presence);
}

void FlyControl::onScroll(double notches) {
    speed = std::clamp(speed * std::pow(1.2f, float(notches)), 1e-4f, 1e9f);
}

}  // namespace qt
