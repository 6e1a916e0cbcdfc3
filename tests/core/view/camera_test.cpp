// Camera maths: view matrix agrees with lookAt, stays finite looking straight up or down.
#include "core/view/camera.h"

#include <gtest/gtest.h>
#include <glm/ext/matrix_transform.hpp>
#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>

namespace qt {
namespace {

void expectFinite(const glm::mat4& m) {
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            ASSERT_TRUE(std::isfinite(m[c][r])) << c << "," << r;
        }
    }
}

TEST(Camera, LookAtMatchesGlm) {
    Camera c;
    const glm::vec3 eye(10, 20, 30), target(50, 5, -7);
    c.lookAt(eye, target);
    const glm::mat4 expected = glm::lookAt(eye, target, glm::vec3(0, 1, 0));
    const glm::mat4 view = c.view();
    for (int col = 0; col < 4; ++col) {
        for (int row = 0; row < 4; ++row) {
            EXPECT_NEAR(view[col][row], expected[col][row], 1e-4f);
        }
    }
    EXPECT_NEAR(glm::dot(c.forward(), glm::normalize(target - eye)), 1.0f, 1e-6f);
}

TEST(Camera, StraightUpAndDownStayFinite) {
    Camera c;
    c.yaw = 0.7f;
    c.lookAt({5, 100, 5}, {5, 0, 5});
    EXPECT_FLOAT_EQ(c.pitch, -glm::half_pi<float>());
    EXPECT_FLOAT_EQ(c.yaw, 0.7f);  // kept: a vertical line has no heading
    expectFinite(c.viewProjection());
    const glm::vec4 below = c.view() * glm::vec4(5, 0, 5, 1);
    EXPECT_NEAR(below.x, 0.0f, 1e-4f);
    EXPECT_NEAR(below.y, 0.0f, 1e-4f);
    EXPECT_NEAR(below.z, -100.0f, 1e-3f);
    c.lookAt({5, 0, 5}, {5, 100, 5});
    EXPECT_FLOAT_EQ(c.pitch, glm::half_pi<float>());
    expectFinite(c.viewProjection());
    c.turn(0.1f, 5.0f);
    EXPECT_FLOAT_EQ(c.pitch, glm::half_pi<float>());
    expectFinite(c.viewProjection());
}

TEST(Camera, TurnWrapsYawAndClampsPitch) {
    Camera c;
    c.turn(10.0f * glm::pi<float>() + 0.5f, -9.0f);
    EXPECT_NEAR(c.yaw, 0.5f, 1e-4f);
    EXPECT_FLOAT_EQ(c.pitch, -glm::half_pi<float>());
}

}  // namespace
}  // namespace qt
