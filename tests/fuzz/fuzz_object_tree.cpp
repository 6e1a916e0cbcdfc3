// libFuzzer harness for the object quadtrees, every strategy (every leaf, rebuilt, loose): the
// input is a sequence of inserts, removes, moves, cleanups and queries with boxes from its bytes
// (NaN, infinities, huge, tiny, inverted and negative-size ones among them). Boxes that are not
// finite with min <= max must be refused with an error and change nothing; every query must equal
// brute force; the tree's invariants must hold after each cleanup. Any difference aborts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/objects/baselines/brute_force.h"
#include "core/objects/baselines/every_leaf_tree.h"
#include "core/objects/baselines/rebuilt_tree.h"
#include "core/objects/loose_tree.h"
#include "core/view/camera.h"

namespace {

using namespace qt;

constexpr uint32_t kMaxObjects = 400;  // keeps a run short: huge boxes sit in every leaf

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_object_tree: %s\n", what);
    std::abort();
}

// Reads the input front to back; past its end, zeros.
struct Bytes {
    const uint8_t* data;
    size_t size;
    size_t at = 0;

    bool done() const { return at >= size; }
    uint8_t byte() { return at < size ? data[at++] : 0; }
    uint16_t word() { return uint16_t(byte() | byte() << 8); }
    // A coordinate: mostly over the map and a margin, sometimes a special value.
    float coordinate() {
        const uint8_t kind = byte();
        static const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                                        std::numeric_limits<float>::infinity(),
                                        -std::numeric_limits<float>::infinity(),
                                        1e30f,
                                        -1e30f,
                                        1e-30f,
                                        0.0f,
                                        512.0f,
                                        std::numeric_limits<float>::max(),
                                        std::numeric_limits<float>::denorm_min()};
        if (kind < 10) {
            return special[kind];
        }
        return -200.0f + 1500.0f * float(word()) / 65535.0f;
    }
    // A box: a corner and sizes, any of them special; sizes may be negative (inverted boxes).
    Box box() {
        const glm::vec3 corner(coordinate(), coordinate(), coordinate());
        const uint8_t shape = byte();
        glm::vec3 size(0.0f);
        if (shape < 64) {
            size = glm::vec3(float(shape % 8) * 0.5f);  // small, or a point
        } else if (shape < 128) {
            size = {coordinate(), coordinate(), coordinate()};  // anything, negative too
        } else {
            size = glm::vec3(float(shape - 128) * 4.0f);
        }
        return {corner, corner + size};
    }
};

struct Pair {
    std::unique_ptr<ObjectIndex> index[3];
    ObjectArrays model;
    std::vector<uint32_t> live;
};

void compareQueries(Pair& p, Bytes& in) {
    std::vector<uint32_t> got, want;
    const Rect r{in.coordinate(), in.coordinate(), in.coordinate(), in.coordinate()};
    bruteRect(p.model, r, want);
    Camera c;
    c.fovY = 0.2f + float(in.byte()) / 100.0f;
    c.farPlane = 1.0f + float(in.word());
    c.lookAt({in.coordinate(), in.coordinate(), in.coordinate()},
             {in.coordinate(), in.coordinate(), in.coordinate()});
    const Frustum f = Frustum::fromViewProjection(c.viewProjection());
    std::vector<uint32_t> wantFrustum;
    bruteFrustum(p.model, f, wantFrustum);
    const Ray ray =
        Ray::make({in.coordinate(), in.coordinate(), in.coordinate()},
                  {in.coordinate(), in.coordinate(), in.coordinate()},
                  in.byte() < 128 ? std::numeric_limits<float>::infinity() : float(in.word()));
    const std::optional<RayHit> wantRay = bruteRay(p.model, ray);
    std::vector<ObjectPair> pairs, wantPairs;
    brutePairs(p.model, wantPairs);
    for (auto& index : p.index) {
        index->queryRect(r, got);
        if (got != want) {
            fail("rectangle query differs from brute force");
        }
        index->queryFrustum(f, got);
        if (got != wantFrustum) {
            fail("frustum query differs from brute force");
        }
        const std::optional<RayHit> hit = index->queryRay(ray);
        if (hit.has_value() != wantRay.has_value() ||
            (hit && (hit->object != wantRay->object || !(hit->distance == wantRay->distance)))) {
            fail("ray query differs from brute force");
        }
        index->collisionPairs(pairs);
        if (pairs != wantPairs) {
            fail("collision pairs differ from brute force");
        }
    }
    // The loose tree's ray query with a narrower test after each box (picking's): a shape that
    // only the even ids have, entered a little past their boxes, against every box so tested.
    const auto shape = [](uint32_t id, float boxEntry) {
        return id % 2 == 0 ? std::optional<float>(boxEntry * 1.25f + 1.0f) : std::nullopt;
    };
    std::optional<RayHit> wantShape;
    for (uint32_t i = 0; ray.valid && i < p.model.box.size(); ++i) {
        const std::optional<float> t =
            p.model.alive[i] ? rayEntry(ray, p.model.box[i]) : std::nullopt;
        const std::optional<float> s = t ? shape(i, *t) : std::nullopt;
        if (s && (!wantShape || *s < wantShape->distance)) {  // ascending ids: ties keep the lowest
            wantShape = RayHit{i, *s};
        }
    }
    const std::optional<RayHit> shapeHit =
        static_cast<const LooseObjectTree&>(*p.index[2]).queryRay(ray, shape);
    if (shapeHit.has_value() != wantShape.has_value() ||
        (shapeHit &&
         (shapeHit->object != wantShape->object || !(shapeHit->distance == wantShape->distance)))) {
        fail("ray query with a shape test differs from brute force");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Bytes in{data, size};
    ObjectTreeConfig config;
    config.size = in.byte() < 200 ? 1024.0f : 1.0f + float(in.word());
    config.leafLimit = 1 + in.byte() % 16;
    config.maxDepth = in.byte() % 13;
    Pair p;
    p.index[0] = std::make_unique<ObjectTree>(config);
    p.index[1] = std::make_unique<RebuiltObjectTree>(config);
    p.index[2] = std::make_unique<LooseObjectTree>(config);
    bool clean = true;  // cleanup() ran since the last change: queries allowed
    while (!in.done()) {
        const uint8_t op = in.byte() % 8;
        if (op <= 1 && p.live.size() < kMaxObjects) {
            const Box b = in.box();
            const Motion m = in.byte() & 1 ? Motion::Moving : Motion::Static;
            const bool valid = validObjectBox(b);
            uint32_t id = 0;
            for (int k = 0; k < 3; ++k) {
                const Result<uint32_t> r = p.index[k]->insert(b, m);
                if (r.ok() != valid || (!r.ok() && r.error().empty())) {
                    fail("insert accepted an invalid box or refused a valid one");
                }
                if (r.ok() && k > 0 && r.value() != id) {
                    fail("the strategies gave different ids");
                }
                id = r.ok() ? r.value() : 0;
            }
            if (valid) {
                if (id == p.model.box.size()) {
                    p.model.box.push_back(b);
                    p.model.swept.push_back(b);
                    p.model.moving.push_back(uint8_t(m));
                    p.model.alive.push_back(1);
                } else {
                    p.model.box[id] = p.model.swept[id] = b;
                    p.model.moving[id] = uint8_t(m);
                    p.model.alive[id] = 1;
                }
                p.live.push_back(id);
                clean = false;
            }
        } else if (op == 2 && !p.live.empty()) {
            const size_t slot = in.word() % p.live.size();
            const uint32_t id = p.live[slot];
            for (auto& index : p.index) {
                index->remove(id);
            }
            p.model.alive[id] = 0;
            p.live[slot] = p.live.back();
            p.live.pop_back();
            clean = false;
        } else if ((op == 3 || op == 4) && !p.live.empty()) {
            const uint32_t id = p.live[in.word() % p.live.size()];
            Box b;
            if (op == 3) {
                b = in.box();
            } else {  // a step of a few units
                const glm::vec3 d(float(int(in.byte()) - 128) / 16.0f, 0.0f,
                                  float(int(in.byte()) - 128) / 16.0f);
                b = {p.model.box[id].min + d, p.model.box[id].max + d};
            }
            const bool valid = validObjectBox(b);
            for (auto& index : p.index) {
                const Status s = index->move(id, b);
                if (s.ok() != valid || (!s.ok() && s.error().empty())) {
                    fail("move accepted an invalid box or refused a valid one");
                }
            }
            if (valid) {
                p.model.swept[id] = p.model.moving[id] ? unionBox(p.model.box[id], b) : b;
                p.model.box[id] = b;
                clean = false;
            }
        } else if (op == 5) {
            for (auto& index : p.index) {
                index->cleanup();
            }
            clean = true;
            const std::string a = static_cast<ObjectTree&>(*p.index[0]).check();
            const std::string b = static_cast<RebuiltObjectTree&>(*p.index[1]).tree().check();
            const std::string c = static_cast<LooseObjectTree&>(*p.index[2]).check();
            if (!a.empty() || !b.empty() || !c.empty()) {
                std::fprintf(stderr, "%s / %s / %s\n", a.c_str(), b.c_str(), c.c_str());
                fail("tree invariants broken");
            }
        } else if (op >= 6 && clean) {
            compareQueries(p, in);
        }
    }
    for (auto& index : p.index) {
        index->cleanup();
    }
    compareQueries(p, in);
    // Everything removed and cleaned up: one empty root again.
    for (const uint32_t id : p.live) {
        for (auto& index : p.index) {
            index->remove(id);
        }
    }
    for (auto& index : p.index) {
        index->cleanup();
    }
    if (!static_cast<ObjectTree&>(*p.index[0]).isEmptyRoot() ||
        !static_cast<RebuiltObjectTree&>(*p.index[1]).tree().isEmptyRoot() ||
        !static_cast<LooseObjectTree&>(*p.index[2]).isEmptyRoot()) {
        fail("not one empty root after removing everything");
    }
    return 0;
}
