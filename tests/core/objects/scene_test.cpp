// Objects on the terrain (core/objects/scene.h) and their culling in the frame pipeline: the
// scatter, the balls' steps (no overlap left, no tunnelling, downhill, reproducible), and the
// frame's object sets against brute force: the frustum set equals Frustum::classify of every box,
// and no object with a clear line of sight from the eye to a point of its box is occluded.
#include "core/objects/scene.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/heap_count.h"
#include "core/config.h"
#include "core/frame/frame.h"
#include "core/terrain/synthetic.h"
#include "core/view/camera_fit.h"
#include "core/view/flight_path.h"
#include "test_files.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::Random;
using test::Scene;

// A plane tilted down towards +x by `slope` (height per unit of x), 129 samples a side.
Heightmap tiltedPlane(float slope) {
    const int n = 129;
    std::vector<float> samples(size_t(n) * n);
    for (int row = 0; row < n; ++row) {
        for (int col = 0; col < n; ++col) {
            samples[size_t(row) * n + size_t(col)] = 20000.0f - slope * float(col);
        }
    }
    return makeHeightmap(n, n, samples).value();
}

// Every pair that overlaps, by brute force.
std::string firstOverlap(const ObjectScene& scene, float tolerance) {
    for (uint32_t a = 0; a < scene.count(); ++a) {
        for (uint32_t b = a + 1; b < scene.count(); ++b) {
            if (scene.overlapping(a, b, tolerance)) {
                return std::to_string(a) + " and " + std::to_string(b);
            }
        }
    }
    return "";
}

TEST(ObjectScene, ScatterIsTheSameForASeedAndStandsOnTheGround) {
    const Heightmap map = syntheticHeightmap(257, 257, 3);
    const WorldMapping mapping{1.0f, 0.002f, 0.0f};
    ObjectScene a = ObjectScene::scatter(map, mapping, 3000, 300, 42).value();
    ObjectScene b = ObjectScene::scatter(map, mapping, 3000, 300, 42).value();
    ObjectScene c = ObjectScene::scatter(map, mapping, 3000, 300, 43).value();
    ASSERT_EQ(a.count(), 3000u);
    ASSERT_EQ(a.movingCount(), 300u);
    bool differs = false;
    for (uint32_t id = 0; id < a.count(); ++id) {
        ASSERT_EQ(a.base(id), b.base(id));
        ASSERT_EQ(a.kind(id), b.kind(id));
        differs = differs || a.base(id) != c.base(id);
        const glm::vec3 p = a.base(id);
        const float ground = surfaceAt(map, mapping, p.x, p.z).height;
        const Box box = a.box(id);
        ASSERT_LE(box.min.y, ground + 1e-3f) << "object " << id << " floats";
        ASSERT_GE(box.max.y, ground) << "object " << id << " is buried";
        ASSERT_EQ(a.kind(id) == ObjectKind::Ball, id >= 2700u);
        if (a.kind(id) == ObjectKind::Ball) {
            ASSERT_NEAR(p.y, ground + a.radius(id), 1e-3f);
        }
    }
    EXPECT_TRUE(differs);
    EXPECT_EQ(firstOverlap(a, 0.0f), "");
    EXPECT_EQ(a.index().check(), "");
}

// Trees and rocks stand on drawn ground: none over a square with a nodata corner, on a map whose
// east half and a disc are holes.
TEST(ObjectScene, TreesAndRocksStandOnlyWhereTheGroundIsDrawn) {
    const Heightmap map = test::withNodata(syntheticHeightmap(257, 257, 3), [](int col, int row) {
        return col > 128 || (col - 60) * (col - 60) + (row - 100) * (row - 100) < 900;
    });
    const WorldMapping mapping{1.0f, 0.002f, 0.0f};
    const ObjectScene scene = ObjectScene::scatter(map, mapping, 2000, 0, 7).value();
    for (uint32_t id = 0; id < scene.count(); ++id) {
        const glm::vec3 p = scene.base(id);
        const int col = std::min(int(p.x), 255), row = std::min(int(p.z), 255);
        ASSERT_FALSE(map.nodata.holeSquare(col, row))
            << "object " << id << " at " << p.x << ", " << p.z;
    }
}

TEST(ObjectScene, RefusesMoreBallsThanObjectsTooManyObjectsAndNoRoom) {
    const Heightmap map = syntheticHeightmap(65, 65, 1);
    const WorldMapping mapping{1.0f, 0.002f, 0.0f};
    Result<ObjectScene> moreMoving = ObjectScene::scatter(map, mapping, 10, 11, 1);
    ASSERT_FALSE(moreMoving);
    EXPECT_EQ(moreMoving.error(), "--moving 11 is more than --objects 10");
    EXPECT_FALSE(ObjectScene::scatter(map, mapping, kMaxObjects + 1, 0, 1));
    // No room even at a quarter of the size.
    Result<ObjectScene> crowded = ObjectScene::scatter(map, mapping, 200000, 200000, 1);
    ASSERT_FALSE(crowded);
    EXPECT_EQ(crowded.error(),
              "--objects: no room for 200000 balls on this map, even with every "
              "object at a quarter of its size; ask for fewer");
}

// A map too crowded for the balls among objects of full size: the scatter makes every object
// smaller, step by step, until each ball finds a free place, and the scene is as sound as any
// (no overlap, the tree's invariants, the same for the seed); one that fits keeps the full size.
TEST(ObjectScene, ACrowdedMapShrinksEveryObjectUntilTheBallsFit) {
    const Heightmap map = syntheticHeightmap(129, 129, 7);
    const WorldMapping mapping{1.0f, 0.004f, 0.0f};
    const float unit = 128.0f / 256.0f;  // half a sample: 1/256 of the map's side
    ObjectScene roomy = ObjectScene::scatter(map, mapping, 3000, 300, 5).value();
    EXPECT_EQ(roomy.sizeScale(), 1.0f);
    Result<ObjectScene> crowded = ObjectScene::scatter(map, mapping, 12000, 2000, 5);
    ASSERT_TRUE(crowded) << crowded.error();
    const ObjectScene& a = crowded.value();
    ASSERT_LT(a.sizeScale(), 1.0f);
    ASSERT_GE(a.sizeScale(), 0.25f);
    ASSERT_EQ(a.count(), 12000u);
    ASSERT_EQ(a.movingCount(), 2000u);
    float largest = 0.0f;
    for (uint32_t id = 0; id < a.count(); ++id) {
        largest = std::max(largest, a.radius(id));
    }
    // Radii are at most 2 units (a tree's), now times the scale.
    EXPECT_LE(largest, 2.0f * unit * a.sizeScale() * 1.0001f);
    EXPECT_GT(largest, 1.5f * unit * a.sizeScale());
    EXPECT_EQ(firstOverlap(a, 0.0f), "");
    EXPECT_EQ(a.index().check(), "");
    const ObjectScene b = ObjectScene::scatter(map, mapping, 12000, 2000, 5).value();
    EXPECT_EQ(b.sizeScale(), a.sizeScale());
    for (uint32_t id = 0; id < a.count(); ++id) {
        ASSERT_EQ(a.base(id), b.base(id));
        ASSERT_EQ(a.radius(id), b.radius(id));
    }
}

// On a map in metres (its georeference gives the spacing, 30 m here) objects are made in a unit of
// kObjectUnitMetres metres: trees' radii 0.8 to 2 of it; on the same map with another spacing
// (--spacing) or without a georeference, in a sample spacing (at most 1/256 of the map's side);
// --object-scale multiplies either.
// A scale outside (0, kMaxObjectScale] is refused in one line.
TEST(ObjectScene, ObjectsAreSizedInMetresOnMapsInMetresAndInSpacingsElsewhere) {
    Heightmap map = syntheticHeightmap(129, 129, 3);
    map.geo.present = true;
    map.geo.metresX = map.geo.metresZ = 30.0;
    map.metres = true;
    const WorldMapping metres = defaultMapping(map);
    ASSERT_TRUE(horizontalMetres(map, metres));
    WorldMapping respaced = metres;
    respaced.spacingX = respaced.spacingZ = 2.0f;
    EXPECT_FALSE(horizontalMetres(map, respaced));
    const auto largestTree = [&](const WorldMapping& mapping, float scale, float& unit) {
        const ObjectScene scene = ObjectScene::scatter(map, mapping, 400, 0, 3, scale).value();
        EXPECT_EQ(scene.sizeScale(), 1.0f);
        unit = scene.sizing().unit;
        float smallest = 1e30f, largest = 0.0f;
        for (uint32_t id = 0; id < scene.count(); ++id) {
            if (scene.kind(id) == ObjectKind::Tree) {
                smallest = std::min(smallest, scene.radius(id));
                largest = std::max(largest, scene.radius(id));
            }
        }
        EXPECT_GE(smallest, 0.8f * unit * 0.9999f);
        EXPECT_LE(largest, 2.0f * unit * 1.0001f);
        return largest;
    };
    float unit = 0.0f;
    const float inMetres = largestTree(metres, 1.0f, unit);
    EXPECT_EQ(unit, kObjectUnitMetres);
    EXPECT_GT(inMetres, 1.5f * kObjectUnitMetres);
    largestTree(metres, 2.5f, unit);
    EXPECT_EQ(unit, 2.5f * kObjectUnitMetres);
    // A sample spacing, at most 1/256 of the map's longer side: half a spacing on 129 samples.
    largestTree(respaced, 1.0f, unit);
    EXPECT_EQ(unit, 1.0f);
    map.geo = {};
    map.metres = false;
    largestTree(WorldMapping{30.0f, 1.0f, 0.0f}, 1.0f, unit);
    EXPECT_EQ(unit, 15.0f);
    for (const float bad : {0.0f, -1.0f, kMaxObjectScale * 2.0f, std::nanf("")}) {
        Result<ObjectScene> refused = ObjectScene::scatter(map, metres, 10, 0, 1, bad);
        ASSERT_FALSE(refused);
        EXPECT_EQ(refused.error(), "--object-scale must lie in (0, 1000]");
    }
}

TEST(ObjectScene, StepsLeaveNoOverlapKeepBallsOnTheMapAndRepeat) {
    const Heightmap map = syntheticHeightmap(129, 129, 5);
    const WorldMapping mapping{1.0f, 0.004f, 0.0f};
    ObjectScene scene = ObjectScene::scatter(map, mapping, 1500, 600, 9).value();
    ObjectScene again = ObjectScene::scatter(map, mapping, 1500, 600, 9).value();
    const WorldExtent extent = worldExtent(map, mapping);
    uint64_t contacts = 0, pairs = 0;
    for (int step = 0; step < 240; ++step) {
        const StepStats stats = scene.step(map, mapping);
        again.step(map, mapping);
        contacts += stats.contacts;
        pairs += stats.pairsTested;
        if (step % 40 == 39) {
            ASSERT_EQ(firstOverlap(scene, 1e-4f), "") << "after step " << step;
            ASSERT_EQ(scene.index().check(), "") << "after step " << step;
        }
    }
    EXPECT_GT(contacts, 0u) << "no collision happened: the test proves nothing";
    EXPECT_GE(pairs, contacts);
    float moved = 0.0f;
    for (uint32_t id = 900; id < scene.count(); ++id) {
        const glm::vec3 p = scene.base(id);
        ASSERT_EQ(p, again.base(id)) << "the same steps gave another result";
        ASSERT_GE(p.x, scene.radius(id) - 1e-3f);
        ASSERT_LE(p.x, extent.sizeX - scene.radius(id) + 1e-3f);
        ASSERT_GE(p.z, scene.radius(id) - 1e-3f);
        ASSERT_LE(p.z, extent.sizeZ - scene.radius(id) + 1e-3f);
        moved = std::max(moved, glm::length(scene.velocity(id)));
    }
    EXPECT_GT(moved, 0.0f);
}

TEST(ObjectScene, BallsRollDownhill) {
    const Heightmap map = tiltedPlane(50.0f);
    const WorldMapping mapping{1.0f, 0.01f, 0.0f};  // 0.5 units down per unit of x
    ObjectScene scene = ObjectScene::scatter(map, mapping, 20, 20, 4).value();
    std::vector<float> startX;
    for (uint32_t id = 0; id < scene.count(); ++id) {
        startX.push_back(scene.base(id).x);
    }
    for (int step = 0; step < 30; ++step) {
        scene.step(map, mapping);
    }
    for (uint32_t id = 0; id < scene.count(); ++id) {
        EXPECT_GT(scene.velocity(id).x, 0.0f) << "ball " << id;
        EXPECT_GT(scene.base(id).x, startX[id]) << "ball " << id;
    }
}

// Balls rolling down a 45 degree plane into the map's edge, reaching more than their diameter a
// step: without the swept boxes' pairs and the contact time they would pass through each other
// and through the ones piled against the edge between two steps. The map is 1.28 units wide, so
// that its objects (sized to 1/256 of its side) are small against the speeds gravity gives.
TEST(ObjectScene, FastBallsCollideInsteadOfTunnelling) {
    const Heightmap slope = tiltedPlane(400.0f);
    const WorldMapping mapping{0.01f, 0.01f / 400.0f, 0.0f};  // one unit down per unit of x
    ObjectScene falling = ObjectScene::scatter(slope, mapping, 300, 300, 12).value();
    uint64_t contacts = 0;
    float fastest = 0.0f;
    for (int step = 0; step < 180; ++step) {
        contacts += falling.step(slope, mapping).contacts;
        ASSERT_EQ(firstOverlap(falling, 1e-4f), "") << "after step " << step;
        for (uint32_t id = 0; id < falling.count(); ++id) {
            fastest = std::max(fastest, glm::length(falling.velocity(id)) * kObjectStepSeconds /
                                            (2.0f * falling.radius(id)));
        }
    }
    EXPECT_GT(contacts, 0u);
    EXPECT_GT(fastest, 1.0f) << "no ball went faster than its diameter a step";
}

// A point of the box is in plain sight when the segment from the eye to it stays above the
// drawn surface (sampled every tenth of a spacing) and is within the frustum.
bool inPlainSight(const Scene& s, const Camera& c, const glm::vec3& point) {
    const glm::vec3 d = point - c.position;
    const float length = glm::length(d);
    const float step = 0.1f * std::min(s.mapping.spacingX, s.mapping.spacingZ);
    const int samples = int(length / step) + 2;
    for (int i = 1; i < samples; ++i) {
        const glm::vec3 p = c.position + d * (float(i) / float(samples));
        if (p.y < surfaceAt(s.map, s.mapping, p.x, p.z).height) {
            return false;
        }
    }
    return true;
}

void expectObjectsCulledSafely(const Scene& s, const ObjectScene& objects,
                               const std::vector<Camera>& cameras, const std::string& what,
                               int& occludedViews) {
    FrameBuffers frame;
    frame.reserveFor(s.tree);
    frame.reserveObjects(objects.count());
    const WorldExtent extent = worldExtent(s.map, s.mapping);
    for (size_t i = 0; i < cameras.size(); ++i) {
        const Camera& c = cameras[i];
        for (const float lod : {0.0f, 2.0f}) {
            const CullView view{c, 720, true, true, lod};
            const FrameStats stats =
                runFrame(s.map, s.tree, s.mapping, view, frame, &objects.index());
            const std::string where = what + " camera " + std::to_string(i);
            const Frustum frustum = cullingFrustum(c, s.mapping, extent);
            std::vector<uint32_t> inFrustum;
            for (uint32_t id = 0; id < objects.count(); ++id) {
                bool outside = false;
                frustum.classify(objects.box(id), kAllPlanes, outside);
                if (!outside) {
                    inFrustum.push_back(id);
                }
            }
            std::vector<uint32_t> found = frame.objectsInFrustum;
            std::sort(found.begin(), found.end());
            ASSERT_EQ(found, inFrustum) << where;
            std::vector<uint32_t> drawnSorted = frame.objectsDrawn;
            std::sort(drawnSorted.begin(), drawnSorted.end());
            ASSERT_EQ(stats.objects.total, objects.count());
            ASSERT_EQ(stats.objects.drawn + stats.objects.culled + stats.objects.occluded,
                      objects.count())
                << where;
            ASSERT_TRUE(std::includes(inFrustum.begin(), inFrustum.end(), drawnSorted.begin(),
                                      drawnSorted.end()));
            occludedViews += stats.objects.occluded > 0;
            // Every occluded object: no corner, edge midpoint or centre of its box in plain sight.
            size_t d = 0;
            for (uint32_t id : inFrustum) {
                if (d < drawnSorted.size() && drawnSorted[d] == id) {
                    ++d;
                    continue;
                }
                const Box b = objects.box(id);
                for (int k = 0; k < 27; ++k) {
                    const glm::vec3 t(float(k % 3) * 0.5f, float(k / 3 % 3) * 0.5f,
                                      float(k / 9) * 0.5f);
                    const glm::vec3 p = b.min + t * (b.max - b.min);
                    ASSERT_FALSE(inPlainSight(s, c, p))
                        << where << ": object " << id << " occluded but seen at (" << p.x << ", "
                        << p.y << ", " << p.z << ")";
                }
            }
        }
    }
}

std::vector<Camera> lowCameras(const Scene& s, int count, uint32_t seed) {
    Random rng(seed);
    std::vector<Camera> cameras = flightPath(s.map, s.mapping, count / 2, 16.0f / 9.0f);
    const WorldExtent e = worldExtent(s.map, s.mapping);
    while (int(cameras.size()) < count) {
        Camera c;
        const float x = rng.uniform(0.05f, 0.95f) * e.sizeX;
        const float z = rng.uniform(0.05f, 0.95f) * e.sizeZ;
        c.position = {x, surfaceAt(s.map, s.mapping, x, z).height + 0.01f * (e.maxY - e.minY), z};
        c.yaw = rng.uniform(-3.14f, 3.14f);
        c.pitch = rng.uniform(-0.2f, 0.05f);
        c.fovY = 1.0f;
        fitClipPlanes(c, s.map, s.mapping);
        cameras.push_back(c);
    }
    return cameras;
}

TEST(ObjectCulling, FrustumSetIsBruteForceAndOccludedObjectsAreOutOfSightOnSyntheticMaps) {
    int occluded = 0;
    const Scene s = test::makeScene(syntheticHeightmap(257, 257, 21), {1.0f, 0.01f, 0.0f});
    ObjectScene objects = ObjectScene::scatter(s.map, s.mapping, 4000, 400, 5).value();
    for (int step = 0; step < 30; ++step) {
        objects.step(s.map, s.mapping);
    }
    expectObjectsCulledSafely(s, objects, lowCameras(s, 24, 77), "synthetic", occluded);
    EXPECT_GT(occluded, 0) << "no view occluded an object: the test proves nothing";
}

TEST(ObjectCulling, FrustumSetIsBruteForceAndOccludedObjectsAreOutOfSightOnRealMaps) {
    int occluded = 0;
    const int found = test::forEachSharedScene(
        {"jacksboro_fault_403x344.png", "puget_sound_1025x1025.png"},
        [&](const Scene& s, const std::string& name, int) {
            ObjectScene objects = ObjectScene::scatter(s.map, s.mapping, 3000, 300, 8).value();
            expectObjectsCulledSafely(s, objects, lowCameras(s, 12, 78), name, occluded);
        });
    if (found == 0) {
        GTEST_SKIP() << "no shared heightmaps";
    }
    EXPECT_GT(occluded, 0);
}

TEST(ObjectCulling, AFrameWithObjectsAllocatesNothingOnceReserved) {
    const Scene s = test::makeScene(syntheticHeightmap(257, 257, 2), {1.0f, 0.01f, 0.0f});
    ObjectScene objects = ObjectScene::scatter(s.map, s.mapping, 5000, 1000, 3).value();
    FrameBuffers frame;
    frame.reserveFor(s.tree);
    frame.reserveObjects(objects.count());
    const std::vector<Camera> cameras = lowCameras(s, 16, 5);
    for (int step = 0; step < 10; ++step) {
        objects.step(s.map, s.mapping);
    }
    const uint64_t before = heapCount().allocations;
    for (const Camera& c : cameras) {
        for (const float lod : {0.0f, 2.0f}) {
            runFrame(s.map, s.tree, s.mapping, {c, 720, true, true, lod}, frame, &objects.index());
            runFrame(s.map, s.tree, s.mapping, {c, 720, false, false, lod}, frame,
                     &objects.index());
        }
    }
    EXPECT_EQ(heapCount().allocations - before, 0u);
}

}  // namespace
}  // namespace qt
