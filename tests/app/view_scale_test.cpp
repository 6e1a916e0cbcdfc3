// The HUD's compass heading, pixel size at the view's centre and round scale bar.
#include "app/view_scale.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>
#include <glm/trigonometric.hpp>

#include "core/cull/pick.h"
#include "core/view/camera.h"

namespace qt {
namespace {

// Degrees apart around the circle: a float yaw of -pi/2 may read 359.999998.
double apart(double a, double b) {
    const double d = std::fmod(std::fabs(a - b), 360.0);
    return std::min(d, 360.0 - d);
}

TEST(ViewScale, HeadingIsClockwiseFromMapNorth) {
    EXPECT_NEAR(apart(headingDegrees(-glm::half_pi<float>()), 0.0), 0.0, 1e-4);  // towards -z
    EXPECT_NEAR(headingDegrees(0.0f), 90.0, 1e-4);                               // east, +x
    EXPECT_NEAR(headingDegrees(glm::half_pi<float>()), 180.0, 1e-4);             // +z
    EXPECT_NEAR(headingDegrees(glm::pi<float>()), 270.0, 1e-4);                  // -x
    EXPECT_NEAR(headingDegrees(-glm::pi<float>()), 270.0, 1e-4);
    EXPECT_NEAR(headingDegrees(glm::radians(-138.0f)), 312.0, 1e-3);
    // The heading's direction is the camera's forward on the ground: sin east, -cos south.
    for (const double heading : {0.0, 90.0, 312.0, 359.9}) {
        EXPECT_GE(headingDegrees(glm::radians(float(heading) - 90.0f)), 0.0);
        EXPECT_LT(headingDegrees(glm::radians(float(heading) - 90.0f)), 360.0);
    }
    for (const float yaw : {-2.5f, -1.0f, 0.3f, 1.2f, 3.0f}) {
        Camera c;
        c.yaw = yaw;
        c.pitch = -0.4f;
        const glm::vec3 f = c.forward();
        const double h = glm::radians(headingDegrees(yaw));
        EXPECT_NEAR(std::sin(h), f.x / std::hypot(f.x, f.z), 1e-5) << yaw;
        EXPECT_NEAR(-std::cos(h), f.z / std::hypot(f.x, f.z), 1e-5) << yaw;
    }
    EXPECT_EQ(headingText(312.4), "heading 312\u00b0");
    EXPECT_EQ(headingText(359.6), "heading 0\u00b0");
    EXPECT_EQ(headingText(0.0), "heading 0\u00b0");
}

// Straight down from height h, the viewport's height spans 2 h tan(fovY / 2): a pixel's share of
// it, the same as two pixel rays a pixel apart meet on the ground.
TEST(ViewScale, PixelsLookingStraightDownSpanTheirShareOfTheView) {
    const float fovY = glm::radians(60.0f);
    const double h = 500.0;
    const int height = 720;
    const double perPixel = worldPerPixel(h, fovY, height);
    EXPECT_NEAR(perPixel, 2.0 * h * std::tan(fovY / 2.0) / height, 1e-9);
    EXPECT_NEAR(100.0 * perPixel, 2.0 * 500.0 * std::tan(glm::radians(30.0)) * 100.0 / 720.0, 1e-5);

    Camera c;
    c.position = {0.0f, float(h), 0.0f};
    c.pitch = -glm::half_pi<float>();
    c.fovY = fovY;
    c.aspect = 1280.0f / 720.0f;
    const auto ground = [&](float px, float py) {
        const PickRay ray = pixelRay(c, px, py, 1280, height);
        return c.position + ray.direction * (-c.position.y / ray.direction.y);
    };
    const glm::vec3 a = ground(640.0f, 360.0f);
    const glm::vec3 b = ground(740.0f, 360.0f);
    EXPECT_NEAR(glm::length(b - a), 100.0 * perPixel, 1e-3 * 100.0 * perPixel);

    EXPECT_EQ(worldPerPixel(0.0, fovY, height), 0.0);
    EXPECT_EQ(worldPerPixel(10.0, fovY, 0), 0.0);
}

TEST(ViewScale, TheBarIsARoundLengthThatFits) {
    // 3.7 units a pixel: 160 px hold 592, so 500 at 135 px.
    ScaleBar bar = roundScaleBar(3.7, 160.0f);
    EXPECT_DOUBLE_EQ(bar.length, 500.0);
    EXPECT_NEAR(bar.pixels, 500.0 / 3.7, 1e-3);
    EXPECT_DOUBLE_EQ(roundScaleBar(1.0, 160.0f).length, 100.0);
    EXPECT_DOUBLE_EQ(roundScaleBar(0.01, 160.0f).length, 1.0);
    EXPECT_DOUBLE_EQ(roundScaleBar(0.0101, 160.0f).length, 1.0);
    EXPECT_DOUBLE_EQ(roundScaleBar(0.0126, 160.0f).length, 2.0);
    EXPECT_NEAR(roundScaleBar(2e-4, 160.0f).length, 0.02, 1e-12);
    for (double perPixel = 1e-3; perPixel < 1e5; perPixel *= 1.37) {
        const ScaleBar b = roundScaleBar(perPixel, 160.0f);
        EXPECT_LE(b.pixels, 160.0f + 1e-3f) << perPixel;
        EXPECT_GE(b.pixels, 160.0f / 2.5f - 1e-3f) << perPixel;
    }
    EXPECT_EQ(roundScaleBar(0.0, 160.0f).length, 0.0);
    EXPECT_EQ(roundScaleBar(INFINITY, 160.0f).length, 0.0);
}

TEST(ViewScale, LabelsInMetresKilometresOrMapUnits) {
    EXPECT_EQ(scaleText(500.0, true), "500 m");
    EXPECT_EQ(scaleText(2000.0, true), "2 km");
    EXPECT_EQ(scaleText(50000.0, true), "50 km");
    EXPECT_EQ(scaleText(0.05, true), "0.05 m");
    EXPECT_EQ(scaleText(20.0, false), "20 map units");
    EXPECT_EQ(scaleText(10000.0, false), "10,000 map units");
    EXPECT_EQ(scaleText(0.2, false), "0.2 map units");
}

}  // namespace
}  // namespace qt
