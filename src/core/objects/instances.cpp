// The drawn objects' ids and instances, grouped by mesh for the renderer's instanced draws.
#include "core/objects/instances.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace qt {
namespace {

// Stable counting sort of `from` by `list` into `to`, `counts` per list.
template <typename T, size_t Lists>
void groupByList(const std::vector<T>& from, const std::vector<uint8_t>& list,
                 const std::array<uint32_t, Lists>& counts, std::vector<T>& to) {
    std::array<uint32_t, Lists> next{};
    for (size_t i = 1; i < next.size(); ++i) {
        next[i] = next[i - 1] + counts[i - 1];
    }
    to.resize(from.size());
    for (size_t k = 0; k < from.size(); ++k) {
        to[next[list[k]]++] = from[k];
    }
}

// Moves the `band` ids written backwards from the end of a fine mesh's run of `stride` to follow
// its `plain` ids, in the order they were written.
void appendBand(uint32_t* run, size_t stride, size_t plain, size_t band) {
    if (band == 0) {
        return;
    }
    uint32_t* const back = run + stride - band;
    std::reverse(back, run + stride);
    std::copy(back, run + stride, run + plain);  // forward: run + plain is not past back
}

}  // namespace

// Squared distances from `eye` to the nearest and the farthest point of `box`, widened.
GroupReach groupReach(const Box& box, const glm::vec3& eye) {
    float nearest = 0.0f, farthest = 0.0f;
    for (int a = 0; a < 3; ++a) {
        const float below = box.min[a] - eye[a], above = eye[a] - box.max[a];
        const float gap = std::max(std::max(below, above), 0.0f);
        const float reach = std::max(std::abs(below), std::abs(above));
        nearest += gap * gap;
        farthest += reach * reach;
    }
    return {nearest * 0.999f, farthest * 1.001f};
}

MeshChoice::MeshChoice(const Camera& camera, int viewportHeight, const ObjectDetail& detail)
    : eye(camera.position) {
    // Pixels per unit of size at distance 1; a size of `pixels` on screen at pixelsAtOne / pixels
    // per unit of size (no impostor at all for 0 pixels).
    const float pixelsAtOne = float(viewportHeight) / (2.0f * std::tan(0.5f * camera.fovY));
    const auto beyond = [pixelsAtOne](float pixels) {
        return pixels > 0.0f ? std::max(pixelsAtOne / pixels, kNearestImpostor) : 1e30f;
    };
    fineBeyond = beyond(detail.finePixels);
    impostorBeyond = std::max(beyond(detail.impostorPixels), fineBeyond);
}

ObjectMesh meshOf(ObjectKind kind, bool impostor) {
    return kind == ObjectKind::Tree
               ? (impostor ? ObjectMesh::TreeImpostor : ObjectMesh::TreeFine)
               : (impostor ? ObjectMesh::SphereImpostor : ObjectMesh::SphereFine);
}

uint64_t instanceTriangles(const ObjectInstances& in) {
    // Built once: a mesh is a few hundred triangles, made by objectMesh on the first call.
    static const std::array<uint64_t, kObjectMeshes> triangles = [] {
        std::array<uint64_t, kObjectMeshes> t{};
        for (int m = 0; m < kObjectMeshes; ++m) {
            t[size_t(m)] = objectMesh(ObjectMesh(m)).indices.size() / 3;
        }
        return t;
    }();
    uint64_t sum = 0;
    for (size_t m = 0; m < size_t(kObjectMeshes); ++m) {
        sum += triangles[m] * (uint64_t(in.counts[m]) + uint64_t(in.idCounts[m]));
    }
    return sum;
}

uint64_t meshOnlyTriangles(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                           const Camera& camera, int viewportHeight) {
    static const uint64_t treeFine = objectMesh(ObjectMesh::TreeFine).indices.size() / 3;
    static const uint64_t sphereFine = objectMesh(ObjectMesh::SphereFine).indices.size() / 3;
    const MeshChoice coarseBelow(camera, viewportHeight, {kCoarseMeshPixels, kCoarseMeshPixels});
    uint64_t sum = 0;
    for (const uint32_t id : drawn) {
        const ObjectShape& o = scene.shape(id);
        const bool fine = coarseBelow.way(std::max(o.radius, o.height), o.base) == DrawnAs::Mesh;
        sum += o.kind == ObjectKind::Tree ? (fine ? treeFine : uint64_t(kCoarseTreeTriangles))
                                          : (fine ? sphereFine : uint64_t(kCoarseSphereTriangles));
    }
    return sum;
}

uint64_t instanceUploadBytes(const ObjectInstances& in) {
    uint64_t ids = 0;
    for (const uint32_t count : in.idCounts) {
        ids += count;
    }
    return uint64_t(in.sorted.size()) * sizeof(ObjectInstance) + ids * sizeof(uint32_t);
}

void ObjectInstances::reserve(uint32_t count) {
    if (count > idStride) {
        idSpace.reset(new uint32_t[size_t(count) * kObjectMeshes]);
        idStride = count;
    }
    sorted.reserve(2 * size_t(count));
    wholeIds.reserve(count);
    unsorted.reserve(2 * size_t(count));
    listOf.reserve(2 * size_t(count));
}

void buildObjectInstances(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                          const ObjectGroups* groups, const std::vector<uint8_t>& selected,
                          const Camera& camera, int viewportHeight, StaticsSent statics,
                          ObjectInstances& out, const ObjectDetail& detail) {
    out.reserve(uint32_t(drawn.size()));
    const MeshChoice choice(camera, viewportHeight, detail);
    const uint32_t firstRock = scene.firstRock();
    const uint32_t byIdBelow = statics == StaticsSent::Whole ? 0 : scene.firstBall();
    // Without the static objects, no group decides anything: the balls alone, in one group.
    const bool staticsElsewhere = statics == StaticsSent::AsRuns;
    const bool grouped = groups && !groups->end.empty() && !staticsElsewhere;
    const size_t groupCount = grouped ? groups->end.size() : 1;
    // Raw pointers and counts in registers: a store through a uint8_t or into a counter array
    // would make every later iteration reload them.
    const uint32_t* drawnIds = drawn.data();
    const float* sizes = scene.staticSizes();
    const uint8_t* selection = selected.data();
    const size_t selectable = selected.size();
    uint32_t* const space = out.idSpace.get();
    const size_t stride = out.idStride;
    // Ids of each mesh so far (a fine mesh's out of the band), and of a fine mesh's in the band,
    // written from the end of its run.
    size_t n0 = 0, n1 = 0, n2 = 0, n3 = 0;
    size_t b0 = 0, b2 = 0;
    uint32_t bothTrees = 0, bothSpheres = 0;
    uint32_t recordsRead = 0;
    out.wholeIds.clear();
    for (size_t g = 0, begin = 0; g < groupCount; ++g) {
        const size_t end = grouped ? groups->end[g] : drawn.size();
        // A static object's base lies in its group's box (groupReach); decided from its
        // record otherwise (and without groups).
        const GroupReach reach = grouped ? groupReach(groups->box[g], choice.eye) : GroupReach{};
        for (size_t k = begin; k < end; ++k) {
            const uint32_t id = drawnIds[k];
            if (staticsElsewhere && id < byIdBelow) {
                continue;
            }
            const uint32_t mark = id < selectable && selection[id] ? kSelectedId : 0u;
            if (id >= byIdBelow) {
                out.wholeIds.push_back(id | mark);
                continue;
            }
            const float size = sizes[id];
            const int decided = wayInGroup(size, choice, reach);
            DrawnAs way = DrawnAs(decided);
            if (decided == kWayUndecided) {  // rare: a box across an end of the band
                way = choice.way(size, scene.base(id));
                ++recordsRead;
            }
            // meshOf: TreeFine 0, TreeImpostor 1, SphereFine 2, SphereImpostor 3.
            const bool both = way == DrawnAs::Both;
            const uint32_t entry = id | mark | (both ? kBandId : 0u);
            const size_t shape = id >= firstRock ? 2 : 0;
            if (way != DrawnAs::Impostor) {
                uint32_t* const run = space + shape * stride;
                if (both) {
                    run[stride - 1 - (shape == 0 ? b0++ : b2++)] = entry;
                } else {
                    run[shape == 0 ? n0++ : n2++] = entry;
                }
            }
            if (way != DrawnAs::Mesh) {
                space[(shape + 1) * stride + (shape == 0 ? n1++ : n3++)] = entry;
            }
            (shape == 0 ? bothTrees : bothSpheres) += both ? 1 : 0;
        }
        begin = end;
    }
    appendBand(space, stride, n0, b0);
    appendBand(space + 2 * stride, stride, n2, b2);
    out.idCounts = {uint32_t(n0 + b0), uint32_t(n1), uint32_t(n2 + b2), uint32_t(n3)};
    out.bandIds = {uint32_t(b0), uint32_t(b2)};
    out.recordsRead = recordsRead;
    // The objects drawn whole, read record by record, each asked for this many ahead so that the
    // loop does not wait on every one (the drawn ids come in tree order, the balls' records in
    // no order).
    constexpr size_t kAhead = 16;
    const size_t whole = out.wholeIds.size();
    std::array<uint32_t, 2 * kObjectMeshes> listCounts{};
    out.unsorted.clear();
    out.listOf.clear();
    for (size_t k = 0; k < whole; ++k) {
        if (k + kAhead < whole) {
            __builtin_prefetch(&scene.shape(out.wholeIds[k + kAhead] & ~kSelectedId));
        }
        const uint32_t id = out.wholeIds[k] & ~kSelectedId;
        const bool picked = (out.wholeIds[k] & kSelectedId) != 0;
        const ObjectShape& o = scene.shape(id);
        const DrawnAs way = choice.way(std::max(o.radius, o.height), o.base);
        const bool both = way == DrawnAs::Both;
        const uint32_t look =
            uint32_t(o.kind) | (picked ? kSelectedLook : 0u) | (both ? kBandLook : 0u);
        const ObjectInstance instance = {o.base.x, o.base.y, o.base.z, o.radius, o.height, look};
        for (const bool asImpostor : {false, true}) {
            if (way != (asImpostor ? DrawnAs::Mesh : DrawnAs::Impostor)) {
                const uint8_t list =
                    uint8_t(2 * int(meshOf(o.kind, asImpostor)) + (both && !asImpostor ? 1 : 0));
                out.unsorted.push_back(instance);
                out.listOf.push_back(list);
                ++listCounts[list];
            }
        }
        if (both) {
            ++(o.kind == ObjectKind::Tree ? bothTrees : bothSpheres);
        }
    }
    out.inBoth = {bothTrees, bothSpheres};
    for (size_t m = 0; m < size_t(kObjectMeshes); ++m) {
        out.counts[m] = listCounts[2 * m] + listCounts[2 * m + 1];
    }
    out.bandWhole = {listCounts[2 * size_t(ObjectMesh::TreeFine) + 1],
                     listCounts[2 * size_t(ObjectMesh::SphereFine) + 1]};
    groupByList(out.unsorted, out.listOf, listCounts, out.sorted);
}

void objectRecordTexels(const ObjectScene& scene, std::vector<float>& out, const uint32_t* idAt) {
    const uint32_t count = scene.firstBall();
    out.resize(size_t(count) * kTexelsPerRecord * 4);
    for (uint32_t k = 0; k < count; ++k) {
        const ObjectShape& o = scene.shape(idAt ? idAt[k] : k);
        float* t = &out[size_t(k) * kTexelsPerRecord * 4];
        t[0] = o.base.x;
        t[1] = o.base.y;
        t[2] = o.base.z;
        t[3] = o.radius;
        t[4] = o.height;
        t[5] = float(o.kind);
        t[6] = 0.0f;
        t[7] = 0.0f;
    }
}

}  // namespace qt
