// Frustum planes from the view-projection matrix and the n/p-vertex box test.
#include "core/view/frustum.h"

#include <gtest/gtest.h>
#include <glm/ext/matrix_clip_space.hpp>
#include <glm/ext/matrix_transform.hpp>
#include <glm/geometric.hpp>

namespace qt {
namespace {

// Camera at the origin looking down -z, 90 degree fov, square, near 1, far 100.
Frustum simpleFrustum(float margin = 0.0f) {
    return Frustum::fromViewProjection(glm::perspective(glm::radians(90.0f), 1.0f, 1.0f, 100.0f),
                                       margin);
}

TEST(Frustum, PlanesAreNormalisedAndPointInward) {
    const Frustum f = simpleFrustum();
    for (const glm::vec4& p : f.planes) {
        EXPECT_NEAR(glm::length(glm::vec3(p)), 1.0f, 1e-6f);
        EXPECT_GT(p.x * 0 + p.y * 0 + p.z * -50 + p.w, 0.0f);  // a point on the axis is inside
    }
    EXPECT_NEAR(f.distance(kPlaneNear, {0, 0, -1}), 0.0f, 1e-5f);
    EXPECT_NEAR(f.distance(kPlaneFar, {0, 0, -100}), 0.0f, 1e-3f);
    EXPECT_NEAR(f.distance(kPlaneNear, {0, 0, -3}), 2.0f, 1e-5f);  // distances in world units
    EXPECT_NEAR(f.distance(kPlaneLeft, {-10, 0, -10}), 0.0f, 1e-5f);
    EXPECT_LT(f.distance(kPlaneRight, {11, 0, -10}), 0.0f);
}

TEST(Frustum, ClassifiesBoxesInsideStraddlingAndOutside) {
    const Frustum f = simpleFrustum();
    bool outside = false;
    EXPECT_EQ(f.classify({{-1, -1, -11}, {1, 1, -9}}, kAllPlanes, outside), 0);
    EXPECT_FALSE(outside);
    const uint8_t straddled = f.classify({{-20, -1, -11}, {1, 1, -9}}, kAllPlanes, outside);
    EXPECT_FALSE(outside);
    EXPECT_EQ(straddled, 1 << kPlaneLeft);
    f.classify({{-1, -1, 1}, {1, 1, 5}}, kAllPlanes, outside);  // behind the camera
    EXPECT_TRUE(outside);
    // A box wrapped around a frustum corner is not outside even though no corner is inside.
    f.classify({{-200, -200, -150}, {200, 200, -50}}, kAllPlanes, outside);
    EXPECT_FALSE(outside);
    // Masked planes are not tested: the box behind the camera passes when near/far are masked
    // and only planes it is inside remain (here: none).
    f.classify({{-1, -1, 1}, {1, 1, 5}}, 0, outside);
    EXPECT_FALSE(outside);
}

TEST(Frustum, MarginMovesPlanesOutward) {
    bool outside = false;
    const Box justOutside{{10.5f, -1, -10}, {10.6f, 1, -9}};
    simpleFrustum().classify(justOutside, kAllPlanes, outside);
    EXPECT_TRUE(outside);
    simpleFrustum(1.0f).classify(justOutside, kAllPlanes, outside);
    EXPECT_FALSE(outside);
}

TEST(Frustum, CornersInvertTheMatrix) {
    const glm::mat4 vp = glm::perspective(glm::radians(90.0f), 1.0f, 1.0f, 100.0f);
    const auto c = Frustum::corners(vp);
    EXPECT_NEAR(c[0].x, -1.0f, 1e-4f);
    EXPECT_NEAR(c[0].z, -1.0f, 1e-4f);
    EXPECT_NEAR(c[6].x, 100.0f, 1e-2f);
    EXPECT_NEAR(c[6].z, -100.0f, 1e-2f);
}

}  // namespace
}  // namespace qt
