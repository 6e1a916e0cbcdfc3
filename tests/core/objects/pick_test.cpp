// Picking objects (core/objects/pick.h): each shape's entry point where geometry puts it (a ray
// through a tree's box beside its cone misses it), the tree's first hit equal to the test of
// every object's shape over thousands of rays, moving balls included, and the terrain in front
// of an object hiding it.
#include "core/objects/pick.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include <gtest/gtest.h>

#include "app/heap_count.h"
#include "core/objects/mesh.h"
#include "core/terrain/synthetic.h"
#include "test_files.h"

namespace qt {
namespace {

struct PickScene {
    Heightmap map = syntheticHeightmap(257, 257, 5);
    WorldMapping mapping{1.0f, 0.002f, 0.0f};
    ObjectScene scene = ObjectScene::scatter(map, mapping, 4000, 400, 9).value();
};

PickScene& pickScene() {
    static PickScene s;
    return s;
}

uint32_t firstOfKind(const ObjectScene& scene, ObjectKind kind) {
    for (uint32_t id = 0; id < scene.count(); ++id) {
        if (scene.kind(id) == kind) {
            return id;
        }
    }
    ADD_FAILURE() << "no " << objectKindName(kind);
    return 0;
}

std::optional<float> entry(const ObjectScene& scene, uint32_t id, const glm::vec3& origin,
                           const glm::vec3& direction) {
    return objectShapeEntry(scene, id, PickRay{origin, direction}, 1e6f);
}

TEST(ObjectPick, TreeEntersAtItsApexTrunkAndConeAndMissesItsBoxCorners) {
    const ObjectScene& scene = pickScene().scene;
    const uint32_t id = firstOfKind(scene, ObjectKind::Tree);
    const glm::vec3 b = scene.base(id);
    const float r = scene.radius(id), h = scene.height(id);
    const float tol = 1e-3f * (r + h);
    // Straight down the axis: the apex.
    std::optional<float> t = entry(scene, id, b + glm::vec3(0, h + 10, 0), {0, -1, 0});
    ASSERT_TRUE(t);
    EXPECT_NEAR(*t, 10.0f, tol);
    // Across the axis at a tenth of the height: the trunk alone, radius kTrunkRadius r.
    t = entry(scene, id, b + glm::vec3(-5 * r, 0.1f * h, 0), {1, 0, 0});
    ASSERT_TRUE(t);
    EXPECT_NEAR(*t, 5 * r - kTrunkRadius * r, tol);
    // At 0.3 of the height trunk and cone overlap: the cone's radius there is the wider.
    const float coneAt = r * (1.0f - (0.3f - kConeBase) / (1.0f - kConeBase));
    t = entry(scene, id, b + glm::vec3(0, 0.3f * h, -5 * r), {0, 0, 2});  // direction of length 2
    ASSERT_TRUE(t);
    EXPECT_NEAR(*t, (5 * r - coneAt) / 2, tol);
    // Near the top the cone is thin: half a radius off the axis misses, though the box is met.
    const glm::vec3 beside = b + glm::vec3(-5 * r, 0.9f * h, 0.5f * r);
    EXPECT_FALSE(entry(scene, id, beside, {1, 0, 0}));
    EXPECT_TRUE(rayEntry(Ray::make(beside, {1, 0, 0}, 1e6f), scene.box(id)));
    // Below the cone, beside the trunk: a miss inside the box too.
    EXPECT_FALSE(entry(scene, id, b + glm::vec3(-5 * r, 0.2f * h, 0.5f * r), {1, 0, 0}));
    // From inside: 0.
    t = entry(scene, id, b + glm::vec3(0, 0.5f * h, 0), {1, 0, 0});
    ASSERT_TRUE(t);
    EXPECT_EQ(*t, 0.0f);
    // Too far: the hit lies past maxDistance.
    EXPECT_FALSE(objectShapeEntry(scene, id, PickRay{b + glm::vec3(0, h + 10, 0), {0, -1, 0}}, 9));
}

TEST(ObjectPick, BallsAndRocksAreEnteredOnTheirRoundSurfaces) {
    const ObjectScene& scene = pickScene().scene;
    for (const ObjectKind kind : {ObjectKind::Ball, ObjectKind::Rock}) {
        SCOPED_TRACE(objectKindName(kind));
        const uint32_t id = firstOfKind(scene, kind);
        const glm::vec3 c = scene.base(id);
        const float r = scene.radius(id), h = scene.height(id);
        const float tol = 1e-3f * r;
        std::optional<float> t = entry(scene, id, c + glm::vec3(0, 10 * r, 0), {0, -1, 0});
        ASSERT_TRUE(t);
        EXPECT_NEAR(*t, 10 * r - h, tol);
        t = entry(scene, id, c + glm::vec3(-10 * r, 0, 0), {1, 0, 0});
        ASSERT_TRUE(t);
        EXPECT_NEAR(*t, 9 * r, tol);
        EXPECT_TRUE(entry(scene, id, c + glm::vec3(-10 * r, 0, 0.99f * r), {1, 0, 0}));
        EXPECT_FALSE(entry(scene, id, c + glm::vec3(-10 * r, 0, 1.01f * r), {1, 0, 0}));
        // A ray through the box's corner region passes beside the round shape.
        EXPECT_FALSE(entry(scene, id, c + glm::vec3(-10 * r, 0.9f * h, 0.9f * r), {1, 0, 0}));
    }
}

// Rays of every kind (down from above, grazing along the ground, from inside objects, with a
// short reach) over a scene whose balls have rolled: the tree's pick is the brute force's,
// object and distance.
TEST(ObjectPick, TreePickEqualsEveryShapeTestedOverRandomRays) {
    PickScene s;
    for (int step = 0; step < 20; ++step) {
        s.scene.step(s.map, s.mapping);
    }
    test::Random random(17);
    int hits = 0;
    for (int i = 0; i < 3000; ++i) {
        PickRay ray;
        float reach = 1e6f;
        const float x = random.uniform(-20.0f, 276.0f), z = random.uniform(-20.0f, 276.0f);
        switch (i % 4) {
            case 0:  // from above, steeply down
                ray = {{x, random.uniform(600.0f, 900.0f), z},
                       {random.uniform(-1.0f, 1.0f), -3.0f, random.uniform(-1.0f, 1.0f)}};
                break;
            case 1: {  // grazing: along the ground at an object's height
                const uint32_t id = random.below(s.scene.count());
                const glm::vec3 b = s.scene.base(id);
                ray = {{b.x - 40.0f, b.y + random.uniform(0.0f, 3.0f),
                        b.z + random.uniform(-2.0f, 2.0f)},
                       {1.0f, random.uniform(-0.05f, 0.05f), random.uniform(-0.2f, 0.2f)}};
                break;
            }
            case 2: {  // from inside an object, any way
                const uint32_t id = random.below(s.scene.count());
                ray = {s.scene.base(id) + glm::vec3(0, 0.1f * s.scene.height(id), 0),
                       {random.uniform(-1.0f, 1.0f), random.uniform(-1.0f, 1.0f),
                        random.uniform(-1.0f, 1.0f)}};
                break;
            }
            default:  // a short reach
                ray = {{x, random.uniform(400.0f, 500.0f), z},
                       {random.uniform(-1.0f, 1.0f), -2.0f, random.uniform(-1.0f, 1.0f)}};
                reach = random.uniform(100.0f, 300.0f);
                break;
        }
        const std::optional<RayHit> tree = pickObject(s.scene, ray, reach);
        const std::optional<RayHit> brute = pickObjectBruteForce(s.scene, ray, reach);
        ASSERT_EQ(tree.has_value(), brute.has_value()) << "ray " << i;
        if (tree) {
            ASSERT_EQ(tree->object, brute->object) << "ray " << i;
            ASSERT_EQ(tree->distance, brute->distance) << "ray " << i;
            ASSERT_LE(tree->distance, reach);
            ++hits;
        }
    }
    EXPECT_GT(hits, 1000) << "the rays should hit objects often";
}

// The viewer picks every frame: a pick allocates nothing.
TEST(ObjectPick, PickingAllocatesNothing) {
    const ObjectScene& scene = pickScene().scene;
    test::Random random(5);
    uint64_t hits = 0;
    const size_t before = heapCount().allocations;
    for (int i = 0; i < 200; ++i) {
        const PickRay ray{{random.uniform(0.0f, 256.0f), 500.0f, random.uniform(0.0f, 256.0f)},
                          {random.uniform(-0.1f, 0.1f), -1.0f, random.uniform(-0.1f, 0.1f)}};
        hits += pickObjectBefore(scene, ray, PickHit{}).has_value() ? 1 : 0;
    }
    EXPECT_EQ(heapCount().allocations, before);
    EXPECT_GT(hits, 10u);
}

TEST(ObjectPick, TerrainInFrontHidesTheObject) {
    const ObjectScene& scene = pickScene().scene;
    const uint32_t id = firstOfKind(scene, ObjectKind::Ball);
    const glm::vec3 c = scene.base(id);
    const PickRay ray{c + glm::vec3(0, 50, 0), {0, -1, 0}};
    PickHit terrain;  // a miss: the object alone decides
    std::optional<ObjectPickHit> seen = pickObjectBefore(scene, ray, terrain);
    ASSERT_TRUE(seen);
    EXPECT_EQ(seen->id, id);
    EXPECT_NEAR(seen->world.y, c.y + scene.height(id), 1e-3f);
    terrain.hit = true;
    terrain.t = 60.0;  // behind the ball
    EXPECT_TRUE(pickObjectBefore(scene, ray, terrain));
    terrain.t = 40.0;  // in front of it
    EXPECT_FALSE(pickObjectBefore(scene, ray, terrain));
}

}  // namespace
}  // namespace qt
