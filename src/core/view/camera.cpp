// Fly-camera maths; right() comes from yaw alone so no cross product degenerates at the poles.
#include "core/view/camera.h"

#include <cmath>

#include <glm/ext/matrix_clip_space.hpp>
#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>

namespace qt {

glm::vec3 Camera::forward() const {
    return {std::cos(pitch) * std::cos(yaw), std::sin(pitch), std::cos(pitch) * std::sin(yaw)};
}

glm::vec3 Camera::right() const {
    return {-std::sin(yaw), 0.0f, std::cos(yaw)};
}

glm::vec3 Camera::up() const {
    return glm::cross(right(), forward());
}

namespace {

// The view matrix from the eye's axes (right, up, forward) and position, in float or double.
template <typename T>
glm::mat<4, 4, T> viewFrom(const glm::vec<3, T>& r, const glm::vec<3, T>& u,
                           const glm::vec<3, T>& f, const glm::vec<3, T>& eye) {
    glm::mat<4, 4, T> m(T(1));
    m[0][0] = r.x;
    m[1][0] = r.y;
    m[2][0] = r.z;
    m[0][1] = u.x;
    m[1][1] = u.y;
    m[2][1] = u.z;
    m[0][2] = -f.x;
    m[1][2] = -f.y;
    m[2][2] = -f.z;
    m[3][0] = -glm::dot(r, eye);
    m[3][1] = -glm::dot(u, eye);
    m[3][2] = glm::dot(f, eye);
    return m;
}

}  // namespace

glm::mat4 Camera::view() const {
    const glm::vec3 f = forward();
    const glm::vec3 r = right();
    return viewFrom(r, glm::cross(r, f), f, position);
}

glm::dmat4 Camera::viewProjectionDouble() const {
    const glm::vec3 f = forward();
    const glm::vec3 r = right();
    return glm::perspective(double(fovY), double(aspect), double(nearPlane), double(farPlane)) *
           viewFrom(glm::dvec3(r), glm::dvec3(glm::cross(r, f)), glm::dvec3(f),
                    glm::dvec3(position));
}

glm::mat4 Camera::projection() const {
    return glm::perspective(fovY, aspect, nearPlane, farPlane);
}

void Camera::lookAt(const glm::vec3& eye, const glm::vec3& target) {
    position = eye;
    const glm::vec3 d = target - eye;
    const float horizontal = std::sqrt(d.x * d.x + d.z * d.z);
    if (horizontal > 0.0f) {
        yaw = std::atan2(d.z, d.x);
    }
    pitch = std::atan2(d.y, horizontal);
}

void Camera::turn(float yawDelta, float pitchDelta) {
    const float halfPi = glm::half_pi<float>();
    yaw = std::remainder(yaw + yawDelta, glm::two_pi<float>());
    pitch = std::fmin(std::fmax(pitch + pitchDelta, -halfPi), halfPi);
}

}  // namespace qt
