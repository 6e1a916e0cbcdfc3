// Scattering the objects and stepping the balls: gravity along the drawn surface's slope, the
// map's edge, and collisions found through the object tree's swept-box pairs.
#include "core/objects/scene.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cmath>
#include <string>

#include <glm/geometric.hpp>

#include "core/config.h"

namespace qt {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Draws of a tree's or rock's place before it keeps one over a hole (a map nearly all nodata).
constexpr int kPlaceTries = 64;

// Whether world point (x, z) lies over a grid square with a nodata corner (Heightmap::nodata).
bool overHole(const Heightmap& map, const WorldMapping& mapping, float x, float z) {
    if (!map.nodata.holes()) {
        return false;
    }
    const int col = std::clamp(int(std::floor(x / mapping.spacingX)), 0, map.width - 2);
    const int row = std::clamp(int(std::floor(z / mapping.spacingZ)), 0, map.height - 2);
    return map.nodata.holeSquare(col, row);
}

// splitmix64: a seed gives the same scene on every machine.
struct Random {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) * 0x1p-24f; }
};

// How far back from its first contact a stopped ball stays, as a share of the step: its distance
// then exceeds the touching distance by that share of the closing motion.
constexpr float kStopBefore = 1e-3f;
// Attempts at a free spot for a ball before the scatter gives up at a size.
constexpr int kPlaceAttempts = 64;
// The sizes a scatter tries, as shares of the objects' own, until every ball finds a free spot:
// on a crowded map (say 200,000 objects, 20,000 of them balls, over 1025 x 1025 samples) the
// trees and rocks at full size leave no room, and smaller ones do; down to a quarter, where a
// request the map cannot hold is refused. A scene that fits keeps its full size.
constexpr float kSizeScales[] = {1.0f, 0.7f, 0.5f, 0.35f, 0.25f};
// Balls, whose discs over x/z never overlap, can cover no more than this share of the map (the
// densest packing of circles, pi / sqrt(12)): a size at which their mean total area is more is
// not tried.
constexpr double kDensestPacking = 0.9069;
// A ball's radius in units (ObjectScene::scatterAt), and the mean of pi r^2 over it.
constexpr float kBallRadius[2] = {0.8f, 1.6f};
constexpr double kBallDiscArea = 3.14159265358979 *
                                 (double(kBallRadius[1]) * kBallRadius[1] * kBallRadius[1] -
                                  double(kBallRadius[0]) * kBallRadius[0] * kBallRadius[0]) /
                                 (3.0 * (double(kBallRadius[1]) - kBallRadius[0]));

// Codes mapped from a file (a map bigger than memory): objects at random places touch pages all
// over it, so every kDropEvery objects the scatter hands the mapping's pages back (they stay in
// the page cache), keeping at most a few pages an object of them resident, not the whole map.
constexpr uint32_t kDropEvery = 8192;

void dropMappedPages(const Heightmap& map, uint32_t id) {
    if (id % kDropEvery == kDropEvery - 1) {
        map.codes.dropResident(0, map.codes.size());
    }
}

// The earliest t in [0, 1] at which |d0 + t e| = r, approaching; 2 when there is none. Shapes
// that already overlap at t = 0 and are closing give 0.
float firstTouch(const glm::vec3& d0, const glm::vec3& e, float r) {
    const float c = glm::dot(d0, d0) - r * r;
    const float b = glm::dot(d0, e);
    if (c < 0.0f) {
        return b < 0.0f ? 0.0f : 2.0f;
    }
    const float a = glm::dot(e, e);
    if (a == 0.0f || b >= 0.0f) {
        return 2.0f;
    }
    const float disc = b * b - a * c;
    if (disc < 0.0f) {
        return 2.0f;
    }
    const float t = (-b - std::sqrt(disc)) / a;
    return t <= 1.0f ? std::max(t, 0.0f) : 2.0f;
}

glm::vec3 flat(const glm::vec3& v) {
    return {v.x, 0.0f, v.z};
}

}  // namespace

const char* objectKindName(ObjectKind kind) {
    switch (kind) {
        case ObjectKind::Tree:
            return "tree";
        case ObjectKind::Rock:
            return "rock";
        case ObjectKind::Ball:
            return "ball";
    }
    return "";
}

ObjectSizing objectSizing(const Heightmap& map, const WorldMapping& mapping, float scale) {
    if (horizontalMetres(map, mapping)) {
        return {kObjectUnitMetres * scale, true, scale};
    }
    const WorldExtent extent = worldExtent(map, mapping);
    const float spacing =
        std::min(std::min(mapping.spacingX, mapping.spacingZ), extent.longerSide() / 256.0f);
    return {spacing * scale, false, scale};
}

Result<ObjectScene> ObjectScene::scatter(const Heightmap& map, const WorldMapping& mapping,
                                         uint32_t count, uint32_t moving, uint64_t seed,
                                         float scale) {
    if (moving > count) {
        return Result<ObjectScene>::failure("--moving " + std::to_string(moving) +
                                            " is more than --objects " + std::to_string(count));
    }
    if (count > kMaxObjects) {
        return Result<ObjectScene>::failure("--objects " + std::to_string(count) +
                                            " is more than the most objects, " +
                                            std::to_string(kMaxObjects));
    }
    if (!(scale > 0.0f && scale <= kMaxObjectScale)) {
        return Result<ObjectScene>::failure("--object-scale must lie in (0, " +
                                            std::to_string(int(kMaxObjectScale)) + "]");
    }
    const WorldExtent extent = worldExtent(map, mapping);
    const ObjectSizing sizing = objectSizing(map, mapping, scale);
    for (const float crowding : kSizeScales) {
        const double unit = double(crowding) * double(sizing.unit);
        if (double(moving) * kBallDiscArea * unit * unit >
            kDensestPacking * double(extent.sizeX) * double(extent.sizeZ)) {
            continue;
        }
        bool crowded = false;
        Result<ObjectScene> scene =
            scatterAt(map, mapping, count, moving, seed, sizing, crowding, crowded);
        if (scene || !crowded) {
            return scene;
        }
    }
    return Result<ObjectScene>::failure(
        "--objects: no room for " + std::to_string(moving) +
        " balls on this map, even with every object at a quarter of its size; ask for fewer");
}

Result<ObjectScene> ObjectScene::scatterAt(const Heightmap& map, const WorldMapping& mapping,
                                           uint32_t count, uint32_t moving, uint64_t seed,
                                           const ObjectSizing& sizing, float scale, bool& crowded) {
    crowded = false;
    const WorldExtent extent = worldExtent(map, mapping);
    const float unit = scale * sizing.unit;
    ObjectTreeConfig config;
    config.size = std::max(extent.longerSide(), unit);
    config.leafLimit = kObjectLeafLimit;
    ObjectScene scene;
    scene.sizeScale_ = scale;
    scene.sizing_ = sizing;
    scene.index_ = LooseObjectTree(config);
    scene.shape_.resize(count);
    scene.firstBall_ = count - moving;
    static std::atomic<uint64_t> scatters{0};
    scene.serial_ = ++scatters;
    Random random{seed};
    std::vector<Box> boxes(scene.firstBall_);
    std::vector<Motion> motions(scene.firstBall_, Motion::Static);
    for (uint32_t id = 0; id < scene.firstBall_; ++id) {
        dropMappedPages(map, id);
        const bool tree = random.uniform(0.0f, 1.0f) < 0.6f;
        float x = random.uniform(0.0f, extent.sizeX), z = random.uniform(0.0f, extent.sizeZ);
        // Trees and rocks stand on drawn ground: a place over a hole (a square with a nodata
        // corner) is drawn again, a bounded number of times.
        for (int tries = 0; tries < kPlaceTries && overHole(map, mapping, x, z); ++tries) {
            x = random.uniform(0.0f, extent.sizeX);
            z = random.uniform(0.0f, extent.sizeZ);
        }
        const float r =
            tree ? random.uniform(0.8f, 2.0f) * unit : random.uniform(0.6f, 1.8f) * unit;
        float y = surfaceAt(map, mapping, x, z).height;
        if (tree) {  // the trunk starts at the lowest ground under its cylinder
            for (const auto& [ox, oz] : {std::pair{r, 0.0f}, {-r, 0.0f}, {0.0f, r}, {0.0f, -r}}) {
                y = std::min(y, surfaceAt(map, mapping, x + ox, z + oz).height);
            }
        }
        scene.shape_[id].kind = tree ? ObjectKind::Tree : ObjectKind::Rock;
        scene.shape_[id].base = {x, y, z};
        scene.shape_[id].radius = r;
        const float centre = surfaceAt(map, mapping, x, z).height;
        scene.shape_[id].height = tree ? centre - y + random.uniform(4.0f, 9.0f) * unit : 0.6f * r;
    }
    // Ids along a Morton curve of the objects' places over the tree's square: the objects a view
    // finds, node by node in tree order, then lie next to each other in shape_, and the drawn
    // objects' instances (buildObjectInstances) stream their records instead of missing the
    // cache on nearly every one.
    {
        std::vector<uint32_t> order(scene.firstBall_);
        for (uint32_t id = 0; id < scene.firstBall_; ++id) {
            order[id] = id;
            const glm::vec3& p = scene.shape_[id].base;
            boxes[id] = {p, p};
        }
        std::vector<uint64_t> keys;
        std::vector<uint32_t> slot(scene.firstBall_);
        sortByMorton(boxes, config.originX, config.originZ, config.size, order, keys, slot);
        // Trees first, then rocks, each along the curve: an id's kind is then its range
        // (firstRock()), which the renderer reads without reading the record.
        std::stable_partition(order.begin(), order.end(), [&](uint32_t id) {
            return scene.shape_[id].kind == ObjectKind::Tree;
        });
        std::vector<ObjectShape> placed(scene.firstBall_);
        for (uint32_t k = 0; k < scene.firstBall_; ++k) {
            placed[k] = scene.shape_[order[k]];
            if (placed[k].kind == ObjectKind::Tree) {
                scene.firstRock_ = k + 1;
            }
        }
        std::copy(placed.begin(), placed.end(), scene.shape_.begin());
        scene.size_.resize(scene.firstBall_);
        for (uint32_t id = 0; id < scene.firstBall_; ++id) {
            scene.size_[id] = std::max(placed[id].radius, placed[id].height);
        }
    }
    for (uint32_t id = 0; id < scene.firstBall_; ++id) {
        boxes[id] = scene.shapeBox(id, scene.shape_[id].base);
    }
    Status built = scene.index_.build(boxes.data(), motions.data(), scene.firstBall_);
    if (!built) {
        return Result<ObjectScene>::failure("objects: " + built.error());
    }
    std::vector<uint32_t> near;
    for (uint32_t id = scene.firstBall_; id < count; ++id) {
        dropMappedPages(map, id);
        const float r = random.uniform(kBallRadius[0], kBallRadius[1]) * unit;
        scene.shape_[id].kind = ObjectKind::Ball;
        scene.shape_[id].radius = r;
        scene.shape_[id].height = r;
        bool placed = false;
        for (int attempt = 0; attempt < kPlaceAttempts && !placed; ++attempt) {
            const float x = random.uniform(r, extent.sizeX - r);
            const float z = random.uniform(r, extent.sizeZ - r);
            scene.shape_[id].base = {x, surfaceAt(map, mapping, x, z).height + r, z};
            scene.index_.queryRect({x - r, z - r, x + r, z + r}, near);
            placed = std::none_of(near.begin(), near.end(), [&](uint32_t other) {
                return scene.overlapsAt(id, other, 1.0f, 1.0f, -1e-3f * r);
            });
        }
        if (!placed || !(2.0f * r <= std::min(extent.sizeX, extent.sizeZ))) {
            crowded = true;
            return Result<ObjectScene>::failure("no free place for ball " +
                                                std::to_string(id - scene.firstBall_ + 1));
        }
        Result<uint32_t> inserted =
            scene.index_.insert(scene.shapeBox(id, scene.shape_[id].base), Motion::Moving);
        if (!inserted) {
            return Result<ObjectScene>::failure("objects: " + inserted.error());
        }
        assert(inserted.value() == id);
        scene.balls_.push_back(id);
    }
    scene.velocity_.assign(moving, glm::vec2(0.0f));
    scene.normal_.assign(moving, glm::vec3(0.0f));  // 0: not known, sampled at the first step
    scene.start_.resize(moving);
    scene.fraction_.resize(moving);
    scene.index_.cleanup();
    // The balls went in one by one, each chained ahead of its node's run: one pass lays every
    // node's list out as a run again, which the frame's walk reads by index.
    scene.index_.compact();
    // The last pages read leave the process too; the balls read their ground back as they roll.
    map.codes.dropResident(0, map.codes.size());
    return scene;
}

glm::vec2 ObjectScene::velocity(uint32_t id) const {
    return id >= firstBall_ ? velocity_[id - firstBall_] : glm::vec2(0.0f);
}

Box ObjectScene::shapeBox(uint32_t id, const glm::vec3& at) const {
    const float r = shape_[id].radius;
    switch (shape_[id].kind) {
        case ObjectKind::Tree:
            return {{at.x - r, at.y, at.z - r}, {at.x + r, at.y + shape_[id].height, at.z + r}};
        case ObjectKind::Rock:
        case ObjectKind::Ball:
            break;
    }
    const float h = shape_[id].height;
    return {{at.x - r, at.y - h, at.z - r}, {at.x + r, at.y + h, at.z + r}};
}

glm::vec3 ObjectScene::positionAt(uint32_t id, float fraction) const {
    if (id < firstBall_ || fraction >= 1.0f) {
        return shape_[id].base;
    }
    const glm::vec3& s = start_[id - firstBall_];
    return s + fraction * (shape_[id].base - s);
}

// Two balls: spheres. A ball and a tree or rock: the ball's circle over x/z against the standing
// object's, when their height ranges meet.
bool ObjectScene::overlapsAt(uint32_t a, uint32_t b, float fa, float fb, float tolerance) const {
    if (a < firstBall_ && b < firstBall_) {
        return false;
    }
    if (a < firstBall_) {
        std::swap(a, b);
        std::swap(fa, fb);
    }
    const glm::vec3 pa = positionAt(a, fa), pb = positionAt(b, fb);
    const float reach = shape_[a].radius + shape_[b].radius - tolerance;
    if (b >= firstBall_) {
        const glm::vec3 d = pb - pa;
        return glm::dot(d, d) < reach * reach;
    }
    const Box standing = shapeBox(b, pb);
    const glm::vec3 d = flat(pb - pa);
    return glm::dot(d, d) < reach * reach && pa.y - shape_[a].radius < standing.max.y - tolerance &&
           pa.y + shape_[a].radius > standing.min.y + tolerance;
}

// The first time in the step at which the pair touches, moving along their segments (a sphere
// pair in 3D; a ball and a standing object over x/z, when the ball's height range over the step
// meets the object's), or 2 when it does not.
float ObjectScene::contactTime(uint32_t a, uint32_t b) const {
    if (a < firstBall_ && b < firstBall_) {
        return 2.0f;
    }
    if (a < firstBall_) {
        std::swap(a, b);
    }
    const glm::vec3 a0 = positionAt(a, 0.0f), a1 = shape_[a].base;
    const glm::vec3 b0 = positionAt(b, 0.0f), b1 = shape_[b].base;
    const float reach = shape_[a].radius + shape_[b].radius;
    if (b >= firstBall_) {
        return firstTouch(b0 - a0, (b1 - b0) - (a1 - a0), reach);
    }
    const Box standing = shapeBox(b, b1);
    const float low = std::min(a0.y, a1.y) - shape_[a].radius,
                high = std::max(a0.y, a1.y) + shape_[a].radius;
    if (high <= standing.min.y || low >= standing.max.y) {
        return 2.0f;
    }
    return firstTouch(flat(b0 - a0), flat(-(a1 - a0)), reach);
}

// Each ball goes as far along its step as its first contact allows; then, pair by pair, two
// balls that would still overlap (one stopped in the way of the other) both stop at the earlier
// of their two fractions, where they are moving along their segments at the same time and so do
// not touch, or (at equal fractions, or a ball against a standing object, where only rounding
// can leave an overlap) at 0, where the step started and nothing overlapped; a pass without
// change ends it.
void ObjectScene::stopAtContacts() {
    std::fill(fraction_.begin(), fraction_.end(), 1.0f);
    auto fractionOf = [&](uint32_t id) {
        return id >= firstBall_ ? fraction_[id - firstBall_] : 1.0f;
    };
    contact_.resize(pairs_.size());
    for (size_t k = 0; k < pairs_.size(); ++k) {
        contact_[k] = contactTime(pairs_[k].a, pairs_[k].b);
        if (contact_[k] <= 1.0f) {
            const float stop = std::max(contact_[k] - kStopBefore, 0.0f);
            for (uint32_t id : {pairs_[k].a, pairs_[k].b}) {
                if (id >= firstBall_) {
                    fraction_[id - firstBall_] = std::min(fraction_[id - firstBall_], stop);
                }
            }
        }
    }
    // Fractions only fall, each to one of the values above or to 0, so this ends; a pass that
    // walks the pairs in order settles a pile of stopped balls in one or a few passes.
    for (bool settled = false; !settled;) {
        settled = true;
        for (const ObjectPair& p : pairs_) {
            const float fa = fractionOf(p.a), fb = fractionOf(p.b);
            if (!overlapsAt(p.a, p.b, fa, fb, 0.0f)) {
                continue;
            }
            // Two balls at one time, or a ball and a standing object: back to the start.
            const bool apart = fa != fb && p.a >= firstBall_;
            const float both = apart ? std::min(fa, fb) : 0.0f;
            for (uint32_t id : {p.a, p.b}) {
                if (id >= firstBall_ && fraction_[id - firstBall_] != both) {
                    fraction_[id - firstBall_] = both;
                    settled = false;
                }
            }
        }
    }
}

// An elastic bounce of two balls (masses as their volumes) or of a ball off a standing object,
// along the line between them over x/z, when they are closing.
void ObjectScene::bounce(uint32_t a, uint32_t b) {
    if (a < firstBall_) {
        std::swap(a, b);
    }
    const glm::vec3 pa = positionAt(a, fraction_[a - firstBall_]);
    const glm::vec3 pb =
        b >= firstBall_ ? positionAt(b, fraction_[b - firstBall_]) : shape_[b].base;
    glm::vec2 n(pb.x - pa.x, pb.z - pa.z);
    const float length = std::sqrt(glm::dot(n, n));
    if (!(length > 0.0f)) {
        return;
    }
    n /= length;
    glm::vec2& va = velocity_[a - firstBall_];
    if (b < firstBall_) {
        const float closing = glm::dot(va, n);
        if (closing > 0.0f) {
            va -= 2.0f * closing * n;
        }
        return;
    }
    glm::vec2& vb = velocity_[b - firstBall_];
    const float closing = glm::dot(va - vb, n);
    if (closing <= 0.0f) {
        return;
    }
    const float ma = shape_[a].radius * shape_[a].radius * shape_[a].radius;
    const float mb = shape_[b].radius * shape_[b].radius * shape_[b].radius;
    const float impulse = 2.0f * closing / (1.0f / ma + 1.0f / mb);
    va -= (impulse / ma) * n;
    vb += (impulse / mb) * n;
}

StepStats ObjectScene::step(const Heightmap& map, const WorldMapping& mapping) {
    StepStats stats;
    Clock::time_point start = Clock::now();
    const WorldExtent extent = worldExtent(map, mapping);
    const float dt = kObjectStepSeconds;
    const float keep = 1.0f - kRollingDrag * dt;
    // The balls in the tree's Morton order: each one's ground and nodes lie next to the previous
    // one's. A ball's update reads only its own state and the ground, so the order changes
    // nothing but the speed. The balls' own records, kept by id, lie apart in that order: those
    // of the ball 2 kAhead ahead are asked for, then the ground under the one kAhead ahead and
    // its place in the tree.
    order_.assign(index_.movingInOrder().begin(), index_.movingInOrder().end());
    constexpr size_t kAhead = 8;
    const uint16_t* codes = map.codes.data();
    for (size_t k = 0; k < order_.size(); ++k) {
        if (k + 2 * kAhead < order_.size()) {
            const uint32_t later = order_[k + 2 * kAhead];
            __builtin_prefetch(&shape_[later]);
            __builtin_prefetch(&velocity_[later - firstBall_]);
            __builtin_prefetch(&start_[later - firstBall_]);
            __builtin_prefetch(&normal_[later - firstBall_]);
            index_.prefetchRecords(later);
        }
        if (k + kAhead < order_.size()) {
            const uint32_t next = order_[k + kAhead];
            const glm::vec3& b = shape_[next].base;
            const int col = std::max(0, std::min(int(b.x / mapping.spacingX), map.width - 2));
            const int row = std::max(0, std::min(int(b.z / mapping.spacingZ), map.height - 2));
            __builtin_prefetch(codes + size_t(row) * size_t(map.width) + size_t(col));
            __builtin_prefetch(codes + size_t(row + 1) * size_t(map.width) + size_t(col));
            index_.prefetchPlace(next);
        }
        const uint32_t id = order_[k];
        const size_t i = id - firstBall_;
        const float r = shape_[id].radius;
        glm::vec3 p = shape_[id].base;
        start_[i] = p;
        // The ground's normal where the ball stands: kept from the sample that placed it there
        // (the same point, so the same value), sampled when nothing is kept.
        const glm::vec3 n =
            normal_[i].y != 0.0f ? normal_[i] : surfaceAt(map, mapping, p.x, p.z).normal;
        glm::vec2& v = velocity_[i];
        v = (v + kGravity * n.y * glm::vec2(n.x, n.z) * dt) * keep;
        p.x += v.x * dt;
        p.z += v.y * dt;
        // The edge: mirrored back inside, the velocity across it reversed.
        if (p.x < r || p.x > extent.sizeX - r) {
            p.x = p.x < r ? 2.0f * r - p.x : 2.0f * (extent.sizeX - r) - p.x;
            v.x = -v.x;
        }
        if (p.z < r || p.z > extent.sizeZ - r) {
            p.z = p.z < r ? 2.0f * r - p.z : 2.0f * (extent.sizeZ - r) - p.z;
            v.y = -v.y;
        }
        p.x = std::min(std::max(p.x, r), extent.sizeX - r);
        p.z = std::min(std::max(p.z, r), extent.sizeZ - r);
        const SurfacePoint ground = surfaceAt(map, mapping, p.x, p.z);
        p.y = ground.height + r;
        normal_[i] = ground.normal;
        shape_[id].base = p;
        Status moved = index_.move(id, shapeBox(id, p));
        assert(moved);
        (void)moved;
    }
    index_.cleanup();
    stats.updateMs = msSince(start);
    start = Clock::now();
    index_.collisionPairs(pairs_);
    stats.pairsTested = uint32_t(pairs_.size());
    stopAtContacts();
    for (size_t k = 0; k < pairs_.size(); ++k) {
        if (contact_[k] <= 1.0f) {
            bounce(pairs_[k].a, pairs_[k].b);
            ++stats.contacts;
        }
    }
    for (const uint32_t id : order_) {
        const size_t i = id - firstBall_;
        if (fraction_[i] < 1.0f) {
            shape_[id].base = positionAt(id, fraction_[i]);
            normal_[i] = glm::vec3(0.0f);  // stands elsewhere now
            Status moved = index_.move(id, shapeBox(id, shape_[id].base));
            assert(moved);
            (void)moved;
        }
    }
    stats.collideMs = msSince(start);
    ++steps_;
    return stats;
}

bool ObjectScene::overlapping(uint32_t a, uint32_t b, float tolerance) const {
    return overlapsAt(a, b, 1.0f, 1.0f, tolerance);
}

}  // namespace qt
