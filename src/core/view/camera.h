// Camera maths: a yaw/pitch fly camera whose view matrix stays finite looking straight up or down.
#pragma once

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

namespace qt {

struct Camera {
    glm::vec3 position{0.0f};
    float yaw = 0.0f;         // radians; 0 looks along +x, pi/2 along +z
    float pitch = 0.0f;       // radians in [-pi/2, pi/2]; positive looks up
    float fovY = 1.0471976f;  // radians (60 degrees)
    float aspect = 16.0f / 9.0f;
    float nearPlane = 0.5f;
    float farPlane = 5000.0f;

    glm::vec3 forward() const;
    glm::vec3 right() const;  // horizontal, from yaw alone: defined even at pitch +-90 degrees
    glm::vec3 up() const;
    glm::mat4 view() const;
    glm::mat4 projection() const;
    glm::mat4 viewProjection() const { return projection() * view(); }
    // The same matrix in double, from the same float basis, eye and planes: for the culling
    // frustum, whose near plane comes from rows that nearly cancel (2 near / far of each other).
    glm::dmat4 viewProjectionDouble() const;
    // The view from the origin, looking the same way: for positions taken relative to the eye
    // (the renderer's), which keeps far-off coordinates from cancelling in float.
    glm::mat4 viewProjectionFromEye() const {
        glm::mat4 rotation = view();
        rotation[3] = glm::vec4(0.0f, 0.0f, 0.0f, 1.0f);
        return projection() * rotation;
    }

    // Aims from eye at target; yaw keeps its current value when the line is vertical.
    void lookAt(const glm::vec3& eye, const glm::vec3& target);
    // Turns by the given radians, clamping pitch to [-pi/2, pi/2] and wrapping yaw.
    void turn(float yawDelta, float pitchDelta);
};

}  // namespace qt
