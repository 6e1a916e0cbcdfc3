// Objects on the terrain (trees, rocks, rolling balls): the interface every spatial index of them
// implements (the incremental quadtree, the tree rebuilt every frame), and the exact tests that
// each index and the brute-force reference share, so that their answers can be compared exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include <glm/vec3.hpp>

#include "core/base/result.h"
#include "core/view/frustum.h"

namespace qt {

enum class Motion : uint8_t { Static, Moving };

// Two objects whose swept boxes overlap, a < b.
struct ObjectPair {
    uint32_t a;
    uint32_t b;
};

inline bool operator==(const ObjectPair& x, const ObjectPair& y) {
    return x.a == y.a && x.b == y.b;
}
inline bool operator<(const ObjectPair& x, const ObjectPair& y) {
    return x.a != y.a ? x.a < y.a : x.b < y.b;
}

// What a frustum query tested: node bounds, and object boxes (objects under a node inside every
// plane are taken untested).
struct FrustumQueryStats {
    uint32_t nodesTested = 0;
    uint32_t objectsTested = 0;
};

// The first object a ray enters: its id and the distance along the ray (0 when the origin is in
// its box); ties go to the lowest id.
struct RayHit {
    uint32_t object;
    float distance;
};

// A rectangle over x/z, closed: [minX, maxX] x [minZ, maxZ].
struct Rect {
    float minX, minZ, maxX, maxZ;
};

// An object box is accepted when every coordinate is finite and min <= max on each axis (a point
// is a box); anything else is a user error that insert() and move() return as a Status.
inline bool validObjectBox(const Box& b) {
    for (int i = 0; i < 3; ++i) {
        if (!(std::isfinite(b.min[i]) && std::isfinite(b.max[i]) && b.min[i] <= b.max[i])) {
            return false;
        }
    }
    return true;
}

inline Box unionBox(const Box& a, const Box& b) {
    return {glm::min(a.min, b.min), glm::max(a.max, b.max)};
}

// Closed overlap on all three axes: boxes that touch overlap.
// `outer` holds `inner` on all three axes.
inline bool boxContains(const Box& outer, const Box& inner) {
    return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && outer.min.z <= inner.min.z &&
           outer.max.x >= inner.max.x && outer.max.y >= inner.max.y && outer.max.z >= inner.max.z;
}
inline bool boxesOverlap(const Box& a, const Box& b) {
    return a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y &&
           a.min.z <= b.max.z && b.min.z <= a.max.z;
}

// Closed overlap of a box with a rectangle over x/z; a rectangle that is not ordered (or has a
// NaN) meets nothing.
inline bool validRect(const Rect& r) {
    return r.minX <= r.maxX && r.minZ <= r.maxZ;
}
inline bool boxMeetsRect(const Box& b, const Rect& r) {
    return b.min.x <= r.maxX && r.minX <= b.max.x && b.min.z <= r.maxZ && r.minZ <= b.max.z;
}

// A ray from origin along direction (any length, not zero), up to maxDistance in units of
// direction; precomputed once per query.
struct Ray {
    glm::vec3 origin;
    glm::vec3 inverse;  // 1 / direction per axis (+-inf where the direction is 0)
    float maxDistance;
    bool valid;  // origin and direction finite, direction not zero, maxDistance >= 0 (not NaN)

    static Ray make(const glm::vec3& origin, const glm::vec3& direction, float maxDistance) {
        Ray r{origin, 1.0f / direction, maxDistance, true};
        for (int i = 0; i < 3; ++i) {
            r.valid = r.valid && std::isfinite(origin[i]) && std::isfinite(direction[i]);
        }
        r.valid = r.valid && (direction.x != 0 || direction.y != 0 || direction.z != 0) &&
                  maxDistance >= 0.0f;
        return r;
    }
};

// The slab test: the distance at which the ray enters `b` (0 if it starts inside), when that is
// at most the ray's maxDistance. An axis the ray is parallel to keeps it only when the origin
// lies within that slab (the 0 * inf = NaN case is decided that way, not by arithmetic).
inline std::optional<float> rayEntry(const Ray& ray, const Box& b) {
    float enter = 0.0f, leave = ray.maxDistance;
    for (int i = 0; i < 3; ++i) {
        if (std::isinf(ray.inverse[i])) {
            if (ray.origin[i] < b.min[i] || ray.origin[i] > b.max[i]) {
                return std::nullopt;
            }
            continue;
        }
        float t0 = (b.min[i] - ray.origin[i]) * ray.inverse[i];
        float t1 = (b.max[i] - ray.origin[i]) * ray.inverse[i];
        if (t0 > t1) {
            std::swap(t0, t1);
        }
        enter = t0 > enter ? t0 : enter;
        leave = t1 < leave ? t1 : leave;
        if (!(enter <= leave)) {
            return std::nullopt;
        }
    }
    return enter;
}

// Orders `moving` (object ids) along a Morton curve of their swept boxes' centres over the square
// of side `size` from (originX, originZ), ties by id, and writes each id's new position to
// slot[id]; `keys` is scratch. Consecutive moving objects then lie in the same nodes, so the
// trees' pair walks reuse what the previous one loaded.
void sortByMorton(const std::vector<Box>& swept, float originX, float originZ, float size,
                  std::vector<uint32_t>& moving, std::vector<uint64_t>& keys,
                  std::vector<uint32_t>& slot);

// What every object index answers. Ids are handles: dense 0..N-1 while nothing is removed; insert
// reuses the most recently removed id first (a free list), so the ids stay deterministic. Queries
// write into caller-owned vectors (cleared first, sorted by id) and allocate nothing once those
// have room. A moving object's swept box is the union of its box before its last move() and its box
// now; a static object's is its box (a static object moved is teleported).
class ObjectIndex {
public:
    virtual ~ObjectIndex() = default;

    // A new object; fails (and changes nothing) when the box is not valid (validObjectBox).
    virtual Result<uint32_t> insert(const Box& box, Motion motion) = 0;
    // Removes a live object (a dead id is a programmer error).
    virtual void remove(uint32_t id) = 0;
    // The object's new box; fails (and changes nothing) when the box is not valid.
    virtual Status move(uint32_t id, const Box& box) = 0;
    // Replaces everything with objects 0..count-1; fails (and leaves the index empty) when a box
    // is not valid.
    virtual Status build(const Box* boxes, const Motion* motions, uint32_t count) = 0;
    // Once per frame, after the frame's changes and before its queries: whatever the strategy
    // deferred (merging emptied nodes, or the whole rebuild).
    virtual void cleanup() = 0;

    // Objects whose box meets the rectangle over x/z (closed).
    virtual void queryRect(const Rect& rect, std::vector<uint32_t>& out) const = 0;
    // Objects whose 3D box is not wholly outside any plane (Frustum::classify).
    virtual void queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out) const = 0;
    // The first object the ray enters (rayEntry), ties to the lowest id.
    virtual std::optional<RayHit> queryRay(const Ray& ray) const = 0;
    // Every pair with at least one moving object whose swept boxes overlap (boxesOverlap), a < b,
    // sorted: the exact set, so a fast object never tunnels through another.
    virtual void collisionPairs(std::vector<ObjectPair>& out) const = 0;

    virtual uint32_t objectCount() const = 0;  // live objects
    virtual bool alive(uint32_t id) const = 0;
    virtual const Box& box(uint32_t id) const = 0;
    virtual const Box& sweptBox(uint32_t id) const = 0;
    virtual Motion motion(uint32_t id) const = 0;
    // Bytes of the index itself (nodes, element lists, free lists), not of the object boxes.
    virtual size_t indexBytes() const = 0;
};

}  // namespace qt
