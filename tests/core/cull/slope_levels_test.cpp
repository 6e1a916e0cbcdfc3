// Slope levels keep every overlap of two slope ranges an overlap of their masks, whatever the
// camera, which is all the occlusion stage and the back-face test ask of them.
#include "core/cull/slope_levels.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <glm/trigonometric.hpp>

#include "test_scene.h"

namespace qt {
namespace {

TEST(SlopeLevels, OverlappingRangesHaveOverlappingMasksAndLevelsRiseWithSlope) {
    test::Random rng(5);
    constexpr float kInf = std::numeric_limits<float>::infinity();
    for (int k = 0; k < 40; ++k) {
        Camera c;
        c.pitch = glm::radians(rng.uniform(-90.0f, 90.0f));
        c.yaw = rng.uniform(-3.0f, 3.0f);
        c.fovY = glm::radians(rng.uniform(10.0f, 120.0f));
        c.aspect = rng.uniform(0.5f, 3.0f);
        SlopeLevels levels;
        levels.fill(c);
        for (int i = 1; i < SlopeLevels::kLevels - 1; ++i) {
            ASSERT_LT(levels.bounds[i - 1], levels.bounds[i]) << "camera " << k;
        }
        EXPECT_EQ(levels.level(-kInf), 0);
        EXPECT_EQ(levels.level(kInf), SlopeLevels::kLevels - 1);
        const SlopeLevels::Set all = levels.mask(std::nanf(""), 0.0f);
        for (const uint64_t word : all.word) {
            EXPECT_EQ(word, ~uint64_t(0));
        }
        float previous = -kInf;
        for (int i = 0; i < 2000; ++i) {
            const float a = std::tan(rng.uniform(-1.55f, 1.55f));
            const float b = std::tan(rng.uniform(-1.55f, 1.55f));
            const float c0 = std::tan(rng.uniform(-1.55f, 1.55f));
            const float d = std::tan(rng.uniform(-1.55f, 1.55f));
            const bool overlap = std::max(std::min(a, b), std::min(c0, d)) <=
                                 std::min(std::max(a, b), std::max(c0, d));
            if (overlap) {
                ASSERT_TRUE(levels.mask(a, b).meets(levels.mask(c0, d)))
                    << a << ".." << b << " and " << c0 << ".." << d;
            }
            ASSERT_TRUE(levels.mask(a, a).meets(levels.mask(a, a)));
            // The set holds exactly the levels from a's to b's.
            const SlopeLevels::Set ab = levels.mask(a, b);
            for (int level = 0; level < SlopeLevels::kLevels; ++level) {
                const bool in =
                    level >= levels.level(std::min(a, b)) && level <= levels.level(std::max(a, b));
                ASSERT_EQ((ab.word[level / 64] >> (level % 64)) & 1u, in ? 1u : 0u) << level;
            }
            const float s = std::min(a, previous);
            ASSERT_LE(levels.level(s), levels.level(a));
            previous = a;
        }
    }
}

}  // namespace
}  // namespace qt
