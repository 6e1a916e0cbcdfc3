// The drawn surface's height equals a vertical pick (pickTerrain, itself equal to brute force);
// the floor keeps the eye above it; a flight ends at its destination looking at the point, eased
// and independent of the step size.
#include "core/view/camera_flight.h"

#include <cmath>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "core/config.h"
#include "core/cull/pick.h"
#include "core/terrain/surface.h"
#include "core/terrain/synthetic.h"
#include "test_presence.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::Random;
using test::Scene;

TEST(SurfaceHeight, EqualsAVerticalPickEverywhere) {
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const Scene s =
            test::makeScene(syntheticHeightmap(c.width, c.height, 5), c.mapping, c.leaf);
        const WorldExtent e = worldExtent(s.map, s.mapping);
        Random rng(11);
        for (int i = 0; i < 2000; ++i) {
            const float x = rng.uniform(0.0f, e.sizeX), z = rng.uniform(0.0f, e.sizeZ);
            const PickRay down{{x, e.maxY + 10.0f, z}, {0.0f, -1.0f, 0.0f}};
            const PickHit hit = pickTerrain(s.map, s.tree, s.mapping, down);  // = brute force
            const std::optional<float> h = surfaceHeight(s.map, s.mapping, x, z);
            ASSERT_TRUE(hit.hit && h.has_value()) << x << ", " << z;
            const float tolerance = 1e-5f * std::max(std::fabs(e.maxY - e.minY), 1.0f);
            ASSERT_NEAR(*h, hit.world.y, tolerance) << x << ", " << z;
        }
    }
}

TEST(SurfaceHeight, IsTheSampleAtEveryVertexAndNoneOffTheMap) {
    const Scene s = test::makeScene(syntheticHeightmap(33, 17, 2), {2.0f, 0.05f, 3.0f}, 4);
    for (int row = 0; row < s.map.height; ++row) {
        for (int col = 0; col < s.map.width; ++col) {
            const glm::vec3 v = vertexPosition(s.map, s.mapping, col, row);
            EXPECT_FLOAT_EQ(*surfaceHeight(s.map, s.mapping, v.x, v.z), v.y);
        }
    }
    EXPECT_FALSE(surfaceHeight(s.map, s.mapping, -0.01f, 3.0f));
    EXPECT_FALSE(surfaceHeight(s.map, s.mapping, 3.0f, 32.01f));
    EXPECT_FALSE(surfaceHeight(s.map, s.mapping, 64.01f, 3.0f));
    EXPECT_FALSE(surfaceHeight(s.map, s.mapping, std::nanf(""), 3.0f));
}

TEST(CameraFloor, LiftsAnEyeBelowTheGroundAndLeavesOneAboveIt) {
    const Scene s = test::makeScene(syntheticHeightmap(65, 65, 3), {1.0f, 0.02f, 0.0f}, 4);
    Camera camera;
    camera.position = {20.0f, -1000.0f, 30.0f};
    const float floor = eyeFloor(s.map, s.mapping, camera, false, 0.0f);
    EXPECT_GT(floor, 0.0f);
    EXPECT_TRUE(keepAboveGround(camera, s.map, s.mapping, floor));
    EXPECT_FLOAT_EQ(camera.position.y, *surfaceHeight(s.map, s.mapping, 20.0f, 30.0f) + floor);
    EXPECT_FALSE(keepAboveGround(camera, s.map, s.mapping, floor));
    camera.position.y += 5.0f;
    EXPECT_FALSE(keepAboveGround(camera, s.map, s.mapping, floor));
    // Ground-follow keeps its own height; off the map nothing moves.
    EXPECT_EQ(eyeFloor(s.map, s.mapping, camera, true, 12.0f), 12.0f);
    EXPECT_TRUE(keepAboveGround(camera, s.map, s.mapping, 12.0f));
    camera.position = {-5.0f, -1000.0f, 30.0f};
    EXPECT_FALSE(keepAboveGround(camera, s.map, s.mapping, floor));
    EXPECT_EQ(camera.position.y, -1000.0f);
}

// While a square's samples arrive, the ground under a point is bounded by its leaf's highest
// sample, never below the surface there; where they are present it is the surface. The eye kept
// above it is never under the ground, and goes no lower when the samples arrive.
TEST(GroundBound, IsTheSurfaceWherePresentAndNeverBelowItWhereNot) {
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const Scene s =
            test::makeScene(syntheticHeightmap(c.width, c.height, 9), c.mapping, c.leaf);
        const WorldExtent e = worldExtent(s.map, s.mapping);
        Random coin(3);
        const test::TilesArriving tiles(s.map, 8, [&](size_t) { return coin.below(2) == 0; });
        const SamplePresence presence = tiles.presence();
        Random rng(12);
        int exact = 0, bounded = 0;
        for (int i = 0; i < 2000; ++i) {
            const float x = rng.uniform(0.0f, e.sizeX), z = rng.uniform(0.0f, e.sizeZ);
            const std::optional<float> surface = surfaceHeight(s.map, s.mapping, x, z);
            const std::optional<GroundBound> ground =
                groundBound(s.map, s.tree, s.mapping, &presence, x, z);
            ASSERT_TRUE(surface && ground) << x << ", " << z;
            const int col = std::min(int(x / s.mapping.spacingX), s.map.width - 2);
            const int row = std::min(int(z / s.mapping.spacingZ), s.map.height - 2);
            ASSERT_EQ(ground->exact, tiles.present(col, row, col + 1, row + 1)) << x << ", " << z;
            if (ground->exact) {
                ++exact;
                ASSERT_EQ(ground->height, *surface) << x << ", " << z;
            } else {
                ++bounded;
                ASSERT_GE(ground->height, *surface) << x << ", " << z;
                Camera camera;
                camera.position = {x, e.minY - 10.0f, z};
                EXPECT_TRUE(keepAboveGround(camera, s.map, s.mapping, 1.0f, &s.tree, &presence));
                EXPECT_GE(camera.position.y, *surface + 1.0f);
                EXPECT_FALSE(keepAboveGround(camera, s.map, s.mapping, 1.0f));  // all present
            }
        }
        EXPECT_GT(exact, 100);
        EXPECT_GT(bounded, 100);
        EXPECT_FALSE(groundBound(s.map, s.tree, s.mapping, &presence, -1.0f, 0.0f));
    }
}

TEST(CameraFlight, EndsLookingAtThePointTheSameForAnyStepSize) {
    Camera start;
    start.lookAt({0.0f, 100.0f, 0.0f}, {10.0f, 100.0f, -10.0f});
    const glm::vec3 point(300.0f, 20.0f, 200.0f);
    for (const float step : {1.0f / 60.0f, 0.1f, 0.35f, 5.0f}) {
        Camera camera = start;
        CameraFlight flight = CameraFlight::towards(camera, point, 0.8f);
        int steps = 0;
        while (flight.active && steps < 1000) {
            flight.advance(camera, step);
            ++steps;
            // Never beyond the straight line between the ends.
            const float along = glm::dot(camera.position - flight.from, flight.to - flight.from) /
                                glm::dot(flight.to - flight.from, flight.to - flight.from);
            EXPECT_GE(along, -1e-6f);
            EXPECT_LE(along, 1.0f + 1e-6f);
        }
        EXPECT_LE(std::abs(steps - int(std::ceil(0.8f / step))), 1) << step;  // float sums
        EXPECT_EQ(camera.position, flight.to);
        const glm::vec3 expected = point + (start.position - point) * kFlightApproach;
        EXPECT_LT(glm::length(camera.position - expected), 1e-3f);
        const glm::vec3 toPoint = glm::normalize(point - camera.position);
        EXPECT_GT(glm::dot(camera.forward(), toPoint), 0.99999f) << step;
    }
}

}  // namespace
}  // namespace qt
