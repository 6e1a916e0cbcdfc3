// Fly-camera input handling on GLFW key and cursor state.
#include "app/fly_control.h"

#include <algorithm>
#include <cmath>

#include <GLFW/glfw3.h>

namespace qt {
namespace {

// Radians of turn per pixel of mouse movement.
constexpr float kLookSensitivity = 0.0025f;
// Speed multiplier while Shift is held.
constexpr float kFastFactor = 5.0f;

bool down(GLFWwindow* window, int key) {
    return glfwGetKey(window, key) == GLFW_PRESS;
}

}  // namespace

float FlyControl::defaultSpeed(const Heightmap& map, const WorldMapping& mapping) {
    return std::max(worldExtent(map, mapping).longerSide() / 20.0f, 1e-3f);
}

void FlyControl::setCaptured(GLFWwindow* window, bool on) {
    captured = on;
    glfwSetInputMode(window, GLFW_CURSOR, on ? GLFW_CURSOR_DISABLED : GLFW_CURSOR_NORMAL);
    haveLast = false;
}

void FlyControl::update(GLFWwindow* window, Camera& camera, float seconds, bool keyboard,
                        bool mouse) {
    const bool looking =
        captured || (mouse && glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS);
    double x = 0.0;
    double y = 0.0;
    glfwGetCursorPos(window, &x, &y);
    if (looking && haveLast) {
        camera.turn(float(x - lastX) * kLookSensitivity, -float(y - lastY) * kLookSensitivity);
    }
    lastX = x;
    lastY = y;
    haveLast = looking;

    if (!keyboard) {
        return;
    }
    glm::vec3 move(0.0f);
    const glm::vec3 forward = camera.forward();
    const glm::vec3 right = camera.right();
    move += forward * float(down(window, GLFW_KEY_W) - down(window, GLFW_KEY_S));
    move += right * float(down(window, GLFW_KEY_D) - down(window, GLFW_KEY_A));
    const bool up = down(window, GLFW_KEY_E) || down(window, GLFW_KEY_SPACE);
    const bool lower = down(window, GLFW_KEY_Q) || down(window, GLFW_KEY_LEFT_CONTROL) ||
                       down(window, GLFW_KEY_RIGHT_CONTROL);
    move.y += float(up) - float(lower);
    const bool fast = down(window, GLFW_KEY_LEFT_SHIFT) || down(window, GLFW_KEY_RIGHT_SHIFT);
    camera.position += move * speed * seconds * (fast ? kFastFactor : 1.0f);
}

void FlyControl::onScroll(double notches) {
    speed = std::clamp(speed * std::pow(1.2f, float(notches)), 1e-4f, 1e9f);
}

}  // namespace qt
