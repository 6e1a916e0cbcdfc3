// The drawn objects' instances (core/objects/instances.h): every drawn object once as its mesh or
// its impostor, or once each way in the band between, the static ones as their ids (selection in
// bit 31, the band in bit 30) and the balls as whole instances with their own
// shape, kind, selection and band, each mesh's in the drawn list's order, the fine meshes near
// the eye and the impostors far from it; the choice each object's own, whether its frame's groups
// decided it or its record did; and the static records as the vertex shader fetches them.
#include "core/objects/instances.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "core/frame/frame.h"
#include "core/terrain/synthetic.h"
#include "core/view/flight_path.h"
#include "test_scene.h"

namespace qt {
namespace {

// The way by the definition (MeshChoice): the size max(radius, height) spans kFineObjectPixels at
// fineAt and kImpostorObjectPixels at impostorAt (neither nearer than kNearestImpostor sizes); the
// mesh alone up to fineAt, the impostor alone past impostorAt, both between.
DrawnAs expectedWay(const ObjectScene& scene, uint32_t id, const Camera& camera,
                    float finePixels = kFineObjectPixels,
                    float impostorPixels = kImpostorObjectPixels) {
    const ObjectShape& o = scene.shape(id);
    const float pixelsAtOne = 720.0f / (2.0f * std::tan(0.5f * camera.fovY));
    const float size = std::max(o.radius, o.height);
    const float fineAt = size * std::max(pixelsAtOne / finePixels, kNearestImpostor);
    const float impostorAt = size * std::max(pixelsAtOne / impostorPixels, kNearestImpostor);
    const float d = glm::length(o.base - camera.position);
    return d <= fineAt ? DrawnAs::Mesh : d > impostorAt ? DrawnAs::Impostor : DrawnAs::Both;
}

// Whether mesh list `mesh` holds an object of `kind` drawn as `way`.
bool inList(int mesh, ObjectKind kind, DrawnAs way) {
    const bool impostor = isImpostor(ObjectMesh(mesh));
    return meshOf(kind, impostor) == ObjectMesh(mesh) &&
           way != (impostor ? DrawnAs::Mesh : DrawnAs::Impostor);
}

// `out` holds exactly `drawn`, each with its mesh, in the drawn order per mesh, a fine mesh's
// objects in the band after the others (each part in the drawn order); statics by id when
// `byId`.
void expectInstancesOf(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                       const std::vector<uint8_t>& selected, const Camera& camera, bool byId,
                       const ObjectInstances& out, int& meshesUsed) {
    size_t ids = 0, whole = 0;
    meshesUsed = 0;
    for (int mesh = 0; mesh < kObjectMeshes; ++mesh) {
        const uint32_t idsBefore = uint32_t(ids);
        size_t wholeAt = 0;
        for (int m = 0; m < mesh; ++m) {
            wholeAt += out.counts[size_t(m)];
        }
        const bool fine = !isImpostor(ObjectMesh(mesh));
        const size_t shape = ObjectMesh(mesh) == ObjectMesh::TreeFine ? 0 : 1;
        size_t bandIds = 0, bandWhole = 0;
        // A fine mesh's objects out of the band, then those in it; an impostor's all at once.
        for (int part = 0; part < (fine ? 2 : 1); ++part) {
            for (uint32_t id : drawn) {
                const DrawnAs way = expectedWay(scene, id, camera);
                if (!inList(mesh, scene.kind(id), way) ||
                    (fine && (way == DrawnAs::Both) != (part == 1))) {
                    continue;
                }
                if (part == 1) {
                    ++(byId && id < scene.firstBall() ? bandIds : bandWhole);
                }
                const bool picked = id < selected.size() && selected[id];
                if (byId && id < scene.firstBall()) {
                    ASSERT_LT(ids - idsBefore, out.idCounts[size_t(mesh)]) << "mesh " << mesh;
                    EXPECT_EQ(
                        out.ids(mesh)[ids - idsBefore],
                        id | (picked ? kSelectedId : 0u) | (way == DrawnAs::Both ? kBandId : 0u));
                    ++ids;
                    continue;
                }
                ASSERT_LT(wholeAt, out.sorted.size());
                const ObjectShape& o = scene.shape(id);
                const ObjectInstance& i = out.sorted[wholeAt++];
                ++whole;
                EXPECT_EQ(i.x, o.base.x);
                EXPECT_EQ(i.y, o.base.y);
                EXPECT_EQ(i.z, o.base.z);
                EXPECT_EQ(i.radius, o.radius);
                EXPECT_EQ(i.height, o.height);
                EXPECT_EQ(i.look, uint32_t(o.kind) | (picked ? kSelectedLook : 0u) |
                                      (way == DrawnAs::Both ? kBandLook : 0u));
            }
        }
        if (fine) {
            EXPECT_EQ(out.bandIds[shape], bandIds) << "mesh " << mesh;
            EXPECT_EQ(out.bandWhole[shape], bandWhole) << "mesh " << mesh;
        }
        EXPECT_EQ(ids - idsBefore, out.idCounts[size_t(mesh)]) << "mesh " << mesh;
        meshesUsed += out.idCounts[size_t(mesh)] + out.counts[size_t(mesh)] > 0 ? 1 : 0;
    }
    size_t both[2] = {0, 0};
    for (uint32_t id : drawn) {
        const bool inBand = expectedWay(scene, id, camera) == DrawnAs::Both;
        both[scene.kind(id) == ObjectKind::Tree ? 0 : 1] += inBand ? 1 : 0;
    }
    EXPECT_EQ(out.inBoth[0], both[0]);
    EXPECT_EQ(out.inBoth[1], both[1]);
    EXPECT_EQ(whole, out.sorted.size());
    EXPECT_EQ(ids + whole, drawn.size() + both[0] + both[1]);
}

TEST(ObjectInstances, EachDrawnObjectOnceGroupedByMeshInTheDrawnOrder) {
    const Heightmap map = syntheticHeightmap(1025, 1025, 3);
    const WorldMapping mapping = defaultMapping(map);
    const ObjectScene scene = ObjectScene::scatter(map, mapping, 3000, 300, 7).value();
    // Every other object, in an order that is not the ids' (as the tree's order is not).
    std::vector<uint32_t> drawn;
    for (uint32_t id = 0; id < scene.count(); id += 2) {
        drawn.push_back((id * 7919u) % scene.count());
    }
    std::vector<uint8_t> selected(scene.count(), 0);
    for (uint32_t id = 0; id < scene.count(); id += 5) {
        selected[id] = 1;
    }
    Camera camera;
    camera.lookAt({0.0f, 30.0f, 0.0f}, {128.0f, 0.0f, 128.0f});
    for (const bool byId : {true, false}) {
        ObjectInstances out;
        buildObjectInstances(scene, drawn, nullptr, selected, camera, 720,
                             byId ? StaticsSent::ById : StaticsSent::Whole, out);
        int meshesUsed = 0;
        expectInstancesOf(scene, drawn, selected, camera, byId, out, meshesUsed);
        EXPECT_EQ(meshesUsed, kObjectMeshes)
            << "the camera should see near and far trees and spheres";
        EXPECT_GT(out.inBoth[0], 0u) << "no tree in the band between mesh and impostor";
        EXPECT_GT(out.inBoth[1], 0u) << "no sphere in the band between mesh and impostor";
        if (byId) {
            EXPECT_GT(out.idCounts[0] + out.idCounts[1] + out.idCounts[2] + out.idCounts[3], 0u);
        } else {
            EXPECT_EQ(out.idCounts[0] + out.idCounts[1] + out.idCounts[2] + out.idCounts[3], 0u);
        }
    }
}

// What the instances draw and send, counted object by object from the definitions: each drawn
// object's mesh's triangles (objectMesh: 40 a fine tree, 320 a fine sphere) and 2 for an
// impostor, both in the band (expectedWay); the same objects as meshes alone, fine at
// kCoarseMeshPixels or more and coarse ones of 16 and 20 triangles below (meshOnlyTriangles); and 4
// bytes for a static object sent by id, 24 (ObjectInstance) for one sent whole, for each way it is
// drawn. Both ways of sending, the second all whole.
TEST(ObjectInstances, TrianglesAndUploadBytesAreThoseOfEachDrawnObject) {
    const Heightmap map = syntheticHeightmap(513, 513, 5);
    const WorldMapping mapping = defaultMapping(map);
    const ObjectScene scene = ObjectScene::scatter(map, mapping, 2000, 200, 3).value();
    std::vector<uint32_t> drawn;
    for (uint32_t id = 0; id < scene.count(); id += 3) {
        drawn.push_back(id);
    }
    Camera camera;
    camera.lookAt({0.0f, 30.0f, 0.0f}, {128.0f, 0.0f, 128.0f});
    for (const bool byId : {true, false}) {
        ObjectInstances out;
        buildObjectInstances(scene, drawn, nullptr, {}, camera, 720,
                             byId ? StaticsSent::ById : StaticsSent::Whole, out);
        uint64_t triangles = 0, meshOnly = 0, bytes = 0, balls = 0, impostors = 0;
        for (const uint32_t id : drawn) {
            const DrawnAs way = expectedWay(scene, id, camera);
            const bool tree = scene.kind(id) == ObjectKind::Tree;
            const uint64_t fine = tree ? 40 : 320;
            const bool asMesh = way != DrawnAs::Impostor, asImpostor = way != DrawnAs::Mesh;
            const int ways = (asMesh ? 1 : 0) + (asImpostor ? 1 : 0);
            triangles += (asImpostor ? 2 : 0) + (asMesh ? fine : 0);
            const bool fineAlone = expectedWay(scene, id, camera, kCoarseMeshPixels,
                                               kCoarseMeshPixels) == DrawnAs::Mesh;
            meshOnly += fineAlone ? fine : tree ? 16 : 20;
            impostors += asImpostor ? 1 : 0;
            const bool ball = id >= scene.firstBall();
            balls += ball ? 1 : 0;
            bytes += uint64_t(ways) * (byId && !ball ? 4 : 24);
        }
        ASSERT_GT(balls, 0u);
        ASSERT_LT(balls, drawn.size());
        ASSERT_GT(impostors, 0u);
        ASSERT_LT(impostors, drawn.size());
        EXPECT_EQ(instanceTriangles(out), triangles) << (byId ? "by id" : "whole");
        EXPECT_EQ(meshOnlyTriangles(scene, drawn, camera, 720), meshOnly);
        EXPECT_EQ(instanceUploadBytes(out), bytes) << (byId ? "by id" : "whole");
    }
}

// The meshes: an impostor is a quad of 2 triangles; the coarse meshes the impostors are counted
// against have the triangles meshOnlyTriangles counts for them; the cone's side is lit by its true
// normal, square to the slant from each rim corner to the apex (as the impostor's ray cast finds
// it).
TEST(ObjectMeshes, ImpostorQuadCoarseCountsAndTheConesNormals) {
    EXPECT_EQ(impostorQuad().indices.size(), 6u);
    EXPECT_EQ(objectMesh(ObjectMesh::TreeImpostor).indices.size(), 6u);
    EXPECT_EQ(treeMesh(4).indices.size() / 3, size_t(kCoarseTreeTriangles));
    EXPECT_EQ(sphereMesh(0).indices.size() / 3, size_t(kCoarseSphereTriangles));
    int rims = 0;
    for (const MeshVertex& v : treeMesh(10).vertices) {
        const float across = std::hypot(v.position.x, v.position.z);
        if (v.material != 0.0f || std::abs(v.position.y - kConeBase) > 1e-6f ||
            std::abs(across - 1.0f) > 1e-5f || v.normal.y <= 0.0f) {
            continue;  // not a rim corner of the cone's side
        }
        const glm::vec3 slant = glm::vec3(0.0f, 1.0f, 0.0f) - v.position;
        EXPECT_NEAR(glm::dot(v.normal, glm::normalize(slant)), 0.0f, 1e-5f);
        EXPECT_NEAR(glm::length(v.normal), 1.0f, 1e-5f);
        ++rims;
    }
    EXPECT_EQ(rims, 20);  // two a side, 10 sides
}

TEST(ObjectInstances, ScatteredIdsAreTreesThenRocksThenBalls) {
    const Heightmap map = syntheticHeightmap(257, 257, 5);
    const ObjectScene scene = ObjectScene::scatter(map, defaultMapping(map), 2000, 200, 3).value();
    ASSERT_GT(scene.firstRock(), 0u);
    ASSERT_LT(scene.firstRock(), scene.firstBall());
    ASSERT_EQ(scene.firstBall(), 1800u);
    for (uint32_t id = 0; id < scene.count(); ++id) {
        const ObjectKind expected = id < scene.firstRock()   ? ObjectKind::Tree
                                    : id < scene.firstBall() ? ObjectKind::Rock
                                                             : ObjectKind::Ball;
        ASSERT_EQ(scene.kind(id), expected) << id;
        if (id < scene.firstBall()) {
            ASSERT_EQ(scene.staticSize(id), std::max(scene.radius(id), scene.height(id))) << id;
        }
    }
}

// Over flight cameras: the frame's drawn list with its groups gives exactly the output of the same
// list without groups (each record read), so a culled frame and an unculled one choose alike; and
// the groups decide at least 90% of the statics without their records (the point of them).
TEST(ObjectInstances, GroupsDecideEachObjectsOwnMesh) {
    test::Scene s =
        test::makeScene(syntheticHeightmap(1025, 1025, 9), WorldMapping{1.0f, 0.01f, 0.0f});
    const ObjectScene scene = ObjectScene::scatter(s.map, s.mapping, 30000, 300, 5).value();
    FrameBuffers frame;
    frame.reserveFor(s.tree);
    frame.reserveObjects(scene.count());
    std::vector<uint8_t> selected(scene.count(), 0);
    for (uint32_t id = 0; id < scene.count(); id += 3) {
        selected[id] = 1;
    }
    ObjectInstances grouped, plain;
    size_t groupsSeen = 0, impostors = 0, fine = 0, both = 0;
    for (const Camera& c : flightPath(s.map, s.mapping, 24, 16.0f / 9.0f)) {
        runFrame(s.map, s.tree, s.mapping, {c, 720, true, true, 2.0f}, frame, &scene.index());
        groupsSeen += frame.objectsDrawnGroups.end.size();
        ASSERT_EQ(frame.objectsDrawnGroups.end.empty() ? 0u : frame.objectsDrawnGroups.end.back(),
                  frame.objectsDrawn.size());
        buildObjectInstances(scene, frame.objectsDrawn, &frame.objectsDrawnGroups, selected, c, 720,
                             StaticsSent::ById, grouped);
        buildObjectInstances(scene, frame.objectsDrawn, nullptr, selected, c, 720,
                             StaticsSent::ById, plain);
        ASSERT_EQ(grouped.idCounts, plain.idCounts);
        for (int m = 0; m < kObjectMeshes; ++m) {
            ASSERT_TRUE(std::equal(grouped.ids(m), grouped.ids(m) + grouped.idCounts[size_t(m)],
                                   plain.ids(m)))
                << "mesh " << m;
        }
        ASSERT_EQ(grouped.counts, plain.counts);
        ASSERT_EQ(grouped.sorted.size(), plain.sorted.size());
        for (size_t i = 0; i < grouped.sorted.size(); ++i) {
            ASSERT_EQ(std::memcmp(&grouped.sorted[i], &plain.sorted[i], sizeof(ObjectInstance)), 0);
        }
        int meshesUsed = 0;
        expectInstancesOf(scene, frame.objectsDrawn, selected, c, true, grouped, meshesUsed);
        ASSERT_EQ(grouped.inBoth, plain.inBoth);
        fine += grouped.idCounts[0] + grouped.idCounts[2];
        impostors += grouped.idCounts[1] + grouped.idCounts[3];
        both += grouped.inBoth[0] + grouped.inBoth[1];
        const uint32_t statics =
            uint32_t(std::count_if(frame.objectsDrawn.begin(), frame.objectsDrawn.end(),
                                   [&scene](uint32_t id) { return id < scene.firstBall(); }));
        EXPECT_EQ(plain.recordsRead, statics);
        EXPECT_LE(grouped.recordsRead, statics / 10) << "the groups decide most";
    }
    EXPECT_GT(groupsSeen, 0u);
    EXPECT_GT(fine, 0u);
    EXPECT_GT(impostors, 0u);
    EXPECT_GT(both, 0u);
}

TEST(ObjectInstances, RecordTexelsHoldEachStaticObjectsShapeAndKind) {
    const Heightmap map = syntheticHeightmap(257, 257, 4);
    const ObjectScene scene = ObjectScene::scatter(map, defaultMapping(map), 500, 50, 2).value();
    std::vector<float> texels;
    objectRecordTexels(scene, texels);
    ASSERT_EQ(texels.size(), size_t(scene.firstBall()) * kTexelsPerRecord * 4);
    for (uint32_t id = 0; id < scene.firstBall(); ++id) {
        const float* t = &texels[size_t(id) * 8];
        const ObjectShape& o = scene.shape(id);
        EXPECT_EQ(t[0], o.base.x);
        EXPECT_EQ(t[1], o.base.y);
        EXPECT_EQ(t[2], o.base.z);
        EXPECT_EQ(t[3], o.radius);
        EXPECT_EQ(t[4], o.height);
        EXPECT_EQ(t[5], float(o.kind));
    }
}

}  // namespace
}  // namespace qt
