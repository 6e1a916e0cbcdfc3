// Picking equals the brute-force test of every triangle, exactly, for thousands of rays over
// synthetic and real maps: from above and below, grazing the ground, vertical, and missing; and
// the walk tests a small share of the leaves.
#include "core/cull/pick.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>

#include "core/terrain/synthetic.h"
#include "qt_source_paths.h"
#include "test_files.h"
#include "test_presence.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::Random;
using test::Scene;

// Rays of every kind the viewer and its users cast, in turn: from an eye over the map at a point
// of the map (a mouse pick), grazing just above the ground, from below the terrain upward,
// vertical, from outside the map, and away from it.
PickRay anyRay(const Scene& s, Random& rng, int kind) {
    const WorldExtent e = worldExtent(s.map, s.mapping);
    const float relief = std::max(e.maxY - e.minY, 1.0f);
    const auto inside = [&] {
        return glm::vec3(rng.uniform(0.0f, e.sizeX), 0.0f, rng.uniform(0.0f, e.sizeZ));
    };
    PickRay r;
    switch (kind % 6) {
        case 0: {  // from above, at a point of the map
            r.origin = inside() + glm::vec3(0.0f, e.maxY + rng.uniform(0.1f, 2.0f) * relief, 0.0f);
            glm::vec3 target = inside();
            target.y = rng.uniform(e.minY, e.maxY);
            r.direction = target - r.origin;
            break;
        }
        case 1: {  // grazing: a sample's height plus a little, nearly level
            const int col = int(rng.below(uint32_t(s.map.width)));
            const int row = int(rng.below(uint32_t(s.map.height)));
            r.origin = vertexPosition(s.map, s.mapping, col, row) +
                       glm::vec3(0.0f, rng.uniform(1e-4f, 0.02f) * relief, 0.0f);
            const float yaw = rng.uniform(-3.14159f, 3.14159f);
            r.direction = {std::cos(yaw), rng.uniform(-0.02f, 0.005f), std::sin(yaw)};
            break;
        }
        case 2:  // from below the terrain, upward
            r.origin = inside() + glm::vec3(0.0f, e.minY - rng.uniform(0.01f, 1.0f) * relief, 0.0f);
            r.direction = {rng.uniform(-1.0f, 1.0f), rng.uniform(0.2f, 1.0f),
                           rng.uniform(-1.0f, 1.0f)};
            break;
        case 3:  // straight down onto a vertex, an edge or a square
            r.origin = inside() + glm::vec3(0.0f, e.maxY + relief, 0.0f);
            if (rng.below(2) == 0) {
                r.origin.x = std::round(r.origin.x / s.mapping.spacingX) * s.mapping.spacingX;
            }
            r.direction = {0.0f, -1.0f, 0.0f};
            break;
        case 4:  // from outside the map, toward it or past it
            r.origin = {rng.uniform(-e.sizeX, 2.0f * e.sizeX),
                        rng.uniform(e.minY - relief, e.maxY + relief),
                        rng.uniform(-e.sizeZ, 2.0f * e.sizeZ)};
            r.direction = inside() +
                          glm::vec3(rng.uniform(-0.5f, 0.5f) * e.sizeX, rng.uniform(e.minY, e.maxY),
                                    rng.uniform(-0.5f, 0.5f) * e.sizeZ) -
                          r.origin;
            break;
        default:  // up and away: a miss
            r.origin = inside() + glm::vec3(0.0f, e.maxY + 0.1f * relief, 0.0f);
            r.direction = {rng.uniform(-1.0f, 1.0f), rng.uniform(0.01f, 1.0f),
                           rng.uniform(-1.0f, 1.0f)};
    }
    return r;
}

struct Totals {
    int rays = 0, hits = 0;
    double leafShare = 0.0;  // summed over the hits
};

// Rays for a map: as many as keep the brute force near 8e6 triangle tests, 24 to 1000.
int raysFor(const Scene& s) {
    const double triangles = 2.0 * double(s.map.width - 1) * double(s.map.height - 1);
    return int(std::clamp(8e6 / triangles, 24.0, 1000.0));
}

void expectPickEqualsBruteForce(const Scene& s, uint32_t seed, const std::string& what,
                                Totals& totals) {
    const int count = raysFor(s);
    Random rng(seed);
    for (int i = 0; i < count; ++i) {
        PickRay ray = anyRay(s, rng, i);
        ray.frontFacesOnly = (i / 6) % 2 == 1;  // every kind both ways
        const PickHit walk = pickTerrain(s.map, s.tree, s.mapping, ray);
        const PickHit brute = pickBruteForce(s.map, s.mapping, ray);
        const std::string where = what + " ray " + std::to_string(i) + " kind " +
                                  std::to_string(i % 6) +
                                  (ray.frontFacesOnly ? " front faces only" : "");
        ASSERT_EQ(walk.hit, brute.hit) << where;
        ++totals.rays;
        if (!walk.hit) {
            continue;
        }
        ASSERT_EQ(walk.triangle, brute.triangle) << where;
        ASSERT_EQ(walk.t, brute.t) << where;
        ASSERT_EQ(walk.col, brute.col) << where;
        ASSERT_EQ(walk.row, brute.row) << where;
        ++totals.hits;
        totals.leafShare += double(walk.leavesTested) / double(s.tree.leaves.size());
    }
}

TEST(Pick, EqualsBruteForceOnSyntheticMaps) {
    Totals totals;
    uint32_t seed = 40;
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const Scene s =
            test::makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        expectPickEqualsBruteForce(s, seed, "synthetic " + std::to_string(seed), totals);
        ASSERT_FALSE(HasFatalFailure());
        ++seed;
    }
    EXPECT_GT(totals.hits, totals.rays / 4);
    EXPECT_LT(totals.hits, totals.rays);
    EXPECT_GE(totals.rays, 1000);
}

TEST(Pick, EqualsBruteForceOnFlatGround) {
    Totals totals;
    const Scene s = test::makeScene(flatHeightmap(129, 65, 7.0f), {1.0f, 1.0f, 0.0f}, 4);
    expectPickEqualsBruteForce(s, 5, "flat", totals);
    EXPECT_GT(totals.hits, 0);
}

// A ray goes through a square with a nodata corner (it is not drawn) to what lies beyond, the
// walk as the brute force.
TEST(Pick, RaysPassThroughHoles) {
    Totals totals;
    auto hole = [](int col, int row) {
        return (col - 40) * (col - 40) + (row - 30) * (row - 30) < 100 || (col * 5 + row) % 37 == 0;
    };
    const Scene holey = test::makeScene(test::withNodata(syntheticHeightmap(129, 65, 8), hole),
                                        {1.0f, 0.05f, 0.0f});
    expectPickEqualsBruteForce(holey, 9, "holes", totals);
    EXPECT_GT(totals.hits, 0);
    // Straight down over the hole's centre on flat ground: nothing below; beside it: the ground.
    const Scene flat =
        test::makeScene(test::withNodata(flatHeightmap(129, 65, 7.0f), hole), {1.0f, 1.0f, 0.0f});
    const PickRay down{{40.5f, 50.0f, 30.5f}, {0.0f, -1.0f, 0.0f}};
    EXPECT_FALSE(pickTerrain(flat.map, flat.tree, flat.mapping, down).hit);
    EXPECT_FALSE(pickBruteForce(flat.map, flat.mapping, down).hit);
    const PickRay beside{{60.3f, 50.0f, 30.3f}, {0.0f, -1.0f, 0.0f}};
    const PickHit ground = pickTerrain(flat.map, flat.tree, flat.mapping, beside);
    ASSERT_TRUE(ground.hit);
    EXPECT_EQ(ground.col, 60);
    EXPECT_EQ(ground.row, 30);
    // A slanted ray over the hole meets the ground beyond it.
    const PickRay slanted{{35.5f, 10.0f, 30.5f}, glm::normalize(glm::vec3(1.0f, -0.2f, 0.0f))};
    const PickHit beyond = pickTerrain(flat.map, flat.tree, flat.mapping, slanted);
    ASSERT_TRUE(beyond.hit);
    EXPECT_FALSE(flat.map.nodata.holeSquare(beyond.col, beyond.row));
    EXPECT_GE(beyond.col, 50);
}

// Down through a window in a slope rising away from the eye, a ray passes under the slope and
// meets its far side, falling away, from below: on a back face, the first hit from either side.
// With front faces only (the terrain drawn with one side) it passes that and meets the next
// slope, rising, from above, the walk as the brute force. From below, every triangle is a back
// face: nothing is met.
TEST(Pick, WithFrontFacesOnlyARayThroughAHolePassesTheUndersideBeyondIt) {
    std::vector<float> samples(129 * 129);
    for (int row = 0; row < 129; ++row) {
        const float h = row <= 70   ? 0.5f * float(row)
                        : row <= 90 ? 35.0f - 2.0f * float(row - 70)
                                    : -5.0f + 3.0f * float(row - 90);
        for (int col = 0; col < 129; ++col) {
            samples[size_t(row) * 129 + size_t(col)] = h;
        }
    }
    const Scene s = test::makeScene(
        test::withNodata(
            makeHeightmap(129, 129, samples).value(),
            [](int col, int row) { return col >= 40 && col <= 60 && row >= 50 && row <= 60; }),
        {1.0f, 1.0f, 0.0f});
    PickRay ray{{50.5f, 40.0f, 20.5f}, glm::normalize(glm::vec3(0.0f, -0.45f, 1.0f))};
    const PickHit both = pickTerrain(s.map, s.tree, s.mapping, ray);
    ASSERT_TRUE(both.hit);
    EXPECT_GT(both.row, 70);
    EXPECT_LE(both.row, 90);
    ray.frontFacesOnly = true;
    const PickHit front = pickTerrain(s.map, s.tree, s.mapping, ray);
    const PickHit brute = pickBruteForce(s.map, s.mapping, ray);
    ASSERT_TRUE(front.hit);
    ASSERT_TRUE(brute.hit);
    EXPECT_EQ(front.triangle, brute.triangle);
    EXPECT_EQ(front.t, brute.t);
    EXPECT_GT(front.t, both.t);
    EXPECT_GT(front.row, 90);
    const PickRay fromBelow{{50.5f, -10.0f, 30.5f}, {0.0f, 1.0f, 0.0f}, true};
    EXPECT_FALSE(pickTerrain(s.map, s.tree, s.mapping, fromBelow).hit);
    EXPECT_FALSE(pickBruteForce(s.map, s.mapping, fromBelow).hit);
    EXPECT_TRUE(pickTerrain(s.map, s.tree, s.mapping, {fromBelow.origin, fromBelow.direction}).hit);
}

TEST(Pick, EqualsBruteForceOnRealMapsAndTestsFewLeaves) {
    Totals totals;
    const int found = test::forEachSharedScene(
        {"puget_sound_1025x1025.png", "N47E009.hgt", "jacksboro_fault_403x344.png",
         "r_volcano_maunga_whau_87x61.png"},
        [&](const Scene& s, const std::string& name, int index) {
            expectPickEqualsBruteForce(s, 60u + uint32_t(index), name, totals);
        });
    if (found == 0) {
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map checks skipped";
    }
    ASSERT_GT(totals.hits, 0);
    const double meanShare = totals.leafShare / totals.hits;
    std::printf("pick: %d of %d rays hit; the walk tested %.3f%% of the leaves on average\n",
                totals.hits, totals.rays, 100.0 * meanShare);
    EXPECT_LT(meanShare, 0.05) << "the walk should test a small share of the leaves";
}

// A map whose samples arrive by tiles (a layout streamed by tiles), half of them present: a pick
// that says it has a hit has the whole map's (brute force over every triangle, the absent tiles'
// included), and one that cannot know says "arriving" and names an absent leaf; asked for the
// leaves it names until it knows (pickPresent), every pick is the whole map's, having read only
// some of the tiles. With every tile present a pick never waits.
TEST(Pick, WithSamplesArrivingAHitIsTheWholeMapsOrSaysItIsArriving) {
    int known = 0, arriving = 0;
    uint32_t seed = 70;
    for (const test::SyntheticCase& c : test::kSyntheticCases) {
        const Scene s =
            test::makeScene(syntheticHeightmap(c.width, c.height, seed), c.mapping, c.leaf);
        Random coin(seed);
        const test::TilesArriving tiles(s.map, 16, [&](size_t) { return coin.below(2) == 0; });
        const SamplePresence presence = tiles.presence();
        const test::TilesArriving whole(s.map, 16, [](size_t) { return true; });
        const SamplePresence all = whole.presence();
        Random rng(seed + 1000);
        for (int i = 0; i < raysFor(s); ++i) {
            const PickRay ray = anyRay(s, rng, i);
            const std::string where = "synthetic " + std::to_string(seed) + " ray " +
                                      std::to_string(i) + " kind " + std::to_string(i % 6);
            const PickHit brute = pickBruteForce(s.map, s.mapping, ray);
            const PickHit walk = pickTerrain(s.map, s.tree, s.mapping, ray, &presence);
            if (walk.arriving) {
                ++arriving;
                ASSERT_FALSE(walk.hit) << where;
                ASSERT_FALSE(
                    tiles.present(walk.absentX0, walk.absentZ0, walk.absentX1, walk.absentZ1))
                    << where;
            } else {
                ++known;
                ASSERT_EQ(walk.hit, brute.hit) << where;
                if (brute.hit) {
                    ASSERT_EQ(walk.triangle, brute.triangle) << where;
                    ASSERT_EQ(walk.t, brute.t) << where;
                }
            }
            const Result<PickHit> present = pickPresent(s.map, s.tree, s.mapping, ray, presence);
            ASSERT_TRUE(present) << where << ": " << present.error();
            ASSERT_FALSE(present.value().arriving) << where;
            ASSERT_EQ(present.value().hit, brute.hit) << where;
            if (brute.hit) {
                ASSERT_EQ(present.value().triangle, brute.triangle) << where;
                ASSERT_EQ(present.value().t, brute.t) << where;
                ASSERT_EQ(present.value().col, brute.col) << where;
                ASSERT_EQ(present.value().row, brute.row) << where;
            }
            const PickHit full = pickTerrain(s.map, s.tree, s.mapping, ray, &all);
            ASSERT_FALSE(full.arriving) << where;
            ASSERT_EQ(full.hit, brute.hit) << where;
        }
        EXPECT_GT(tiles.read(), 0);
        ++seed;
    }
    EXPECT_GT(known, 100);
    EXPECT_GT(arriving, 100);
}

// A leaf that cannot be read is the pick's one line; once it can, the pick is the map's.
TEST(Pick, ALeafThatCannotBeReadIsOneLine) {
    const Scene s = test::makeScene(flatHeightmap(129, 65, 7.0f), {1.0f, 1.0f, 0.0f}, 4);
    test::TilesArriving tiles(s.map, 16, [](size_t) { return false; });
    tiles.failWith("heights-0.tif: tile (2, 1) cannot be read");
    const PickRay down{{40.5f, 50.0f, 20.5f}, {0.0f, -1.0f, 0.0f}};
    const Result<PickHit> failed = pickPresent(s.map, s.tree, s.mapping, down, tiles.presence());
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error(), "heights-0.tif: tile (2, 1) cannot be read");
    tiles.failWith("");
    const Result<PickHit> read = pickPresent(s.map, s.tree, s.mapping, down, tiles.presence());
    ASSERT_TRUE(read) << read.error();
    const PickHit brute = pickBruteForce(s.map, s.mapping, down);
    ASSERT_TRUE(brute.hit);
    EXPECT_EQ(read.value().triangle, brute.triangle);
    EXPECT_EQ(tiles.read(), 1);  // the one tile holding the leaf under a vertical ray
}

TEST(Pick, BadRaysMissWithoutTestingAnything) {
    const Scene s = test::makeScene(syntheticHeightmap(33, 33, 3), {1.0f, 0.01f, 0.0f}, 4);
    for (const PickRay& ray :
         {PickRay{{10, 1000, 10}, {0, 0, 0}}, PickRay{{NAN, 1000, 10}, {0, -1, 0}},
          PickRay{{10, 1000, 10}, {0, -INFINITY, 0}}}) {
        const PickHit hit = pickTerrain(s.map, s.tree, s.mapping, ray);
        EXPECT_FALSE(hit.hit);
        EXPECT_EQ(hit.leavesTested, 0u);
    }
}

TEST(Pick, PixelRayThroughTheCentreLooksAlongTheCamera) {
    Camera c;
    c.lookAt({1, 2, 3}, {10, -4, 30});
    const PickRay r = pixelRay(c, 640.0f, 360.0f, 1280, 720);
    EXPECT_EQ(r.origin, c.position);
    EXPECT_GT(glm::dot(glm::normalize(r.direction), c.forward()), 0.99999f);
    // The top-left pixel is up and to the left of the view axis.
    const PickRay corner = pixelRay(c, 0.5f, 0.5f, 1280, 720);
    EXPECT_GT(glm::dot(corner.direction, c.up()), 0.0f);
    EXPECT_LT(glm::dot(corner.direction, c.right()), 0.0f);
}

}  // namespace
}  // namespace qt
