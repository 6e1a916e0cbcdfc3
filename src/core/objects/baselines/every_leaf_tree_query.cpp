// The object quadtree's queries (rectangle, frustum, ray, collision pairs), its statistics and
// its invariants' check. References (docs/references.md): Heroic Virtue 2004 (a moving object
// checks the leaves of its previous and current position); zombiecalypse, "The Quad Tree (I)"
// (allIntersecting(R)).
#include <algorithm>
#include <array>
#include <string>

#include "core/objects/baselines/every_leaf_tree.h"
#include "core/objects/baselines/every_leaf_tree_walk.h"
#include "core/objects/tree_common.h"

namespace qt {

using namespace object_tree_internal;
using Walk = ObjectTreeWalk;
using Frame = ObjectTreeWalk::Frame;

// ---- queries ----

// zombiecalypse's allIntersecting(R): the leaves meeting R, each object reported by the one leaf
// that owns its box's lowest corner within R, so that no sort is needed to remove repeats.
void ObjectTree::queryRect(const Rect& r, std::vector<uint32_t>& out) const {
    out.clear();
    if (!validRect(r)) {
        return;
    }
    const Box area{{r.minX, 0.0f, r.minZ}, {r.maxX, 0.0f, r.maxZ}};
    Walk::walk(
        *this, area, [](const Frame&) {},
        [&](const Frame& f) {
            for (uint32_t e = nodes_[f.node].head; e != kNone; e = elements_[e].next) {
                const Element& element = elements_[e];
                if (element.minX > r.maxX || element.maxX < r.minX || element.minZ > r.maxZ ||
                    element.maxZ < r.minZ) {
                    continue;  // the swept box misses R, so does the box in it
                }
                const uint32_t o = element.object;
                const Box& b = objects_.box[o];
                // The corner lies in b, which lies in the swept box: this object is in its leaf.
                if (boxMeetsRect(b, r) &&
                    Walk::owns(f, std::max(b.min.x, r.minX), std::max(b.min.z, r.minZ))) {
                    out.push_back(o);
                }
            }
        });
    std::sort(out.begin(), out.end());
}

void ObjectTree::queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out) const {
    queryFrustum(frustum, out, nullptr, true);
}

// Plane masking as in cull.cpp: a node tests only the planes its parent straddled; a node inside
// every plane takes its objects untested. An object is in several leaves: only the one leaf that
// owns the lowest corner of its swept box reports it (the corner lies in the swept box, so that
// leaf holds the object, and its bounds hold the swept box: where that leaf is culled, so is the
// object), so there are no repeats to sort away, and the others are not even tested.
void ObjectTree::allInTreeOrder(std::vector<uint32_t>& out) const {
    Frustum everything{};
    frustumWalk(everything, 0, out, nullptr);
}

void ObjectTree::queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out,
                              FrustumQueryStats* stats, bool sortById) const {
    frustumWalk(frustum, kAllPlanes, out, stats);
    if (sortById) {
        std::sort(out.begin(), out.end());
    }
}

// The frustum query's walk from the root with `rootPlanes` to test (0: none, every object).
void ObjectTree::frustumWalk(const Frustum& frustum, uint8_t rootPlanes, std::vector<uint32_t>& out,
                             FrustumQueryStats* stats) const {
    out.clear();
    uint32_t nodesTested = 0, objectsTested = 0;
    std::array<Frame, Walk::kStack> stack;
    size_t top = 0;
    stack[top++] = Walk::root(config_);
    stack[0].planes = rootPlanes;
    while (top > 0) {
        const Frame f = stack[--top];
        const Node& n = nodes_[f.node];
        if (!(n.bounds.min.x <= n.bounds.max.x)) {
            continue;  // nothing ever came here
        }
        bool outside = false;
        nodesTested += f.planes ? 1 : 0;
        const uint8_t planes = f.planes ? frustum.classify(n.bounds, f.planes, outside) : 0;
        if (outside) {
            continue;
        }
        if (n.firstChild != kNone) {
            for (int q = 3; q >= 0; --q) {
                Frame c = Walk::child(f, n.firstChild, q);
                c.planes = planes;
                stack[top++] = c;
            }
            continue;
        }
        for (uint32_t e = n.head; e != kNone; e = elements_[e].next) {
            const Element& element = elements_[e];
            if (!Walk::owns(f, element.minX, element.minZ)) {
                continue;
            }
            const uint32_t o = element.object;
            bool objectOutside = false;
            if (planes) {
                frustum.classify(objects_.box[o], planes, objectOutside);
                ++objectsTested;
            }
            if (!objectOutside) {
                out.push_back(o);
            }
        }
    }
    if (stats) {
        *stats = {nodesTested, objectsTested};
    }
}

void ObjectTree::occupiedCells(float smallest, std::vector<Rect>& out) const {
    out.clear();
    std::array<Frame, Walk::kStack> stack;
    size_t top = 0;
    stack[top++] = Walk::root(config_);
    while (top > 0) {
        const Frame f = stack[--top];
        const Node& n = nodes_[f.node];
        if (!(n.bounds.min.x <= n.bounds.max.x) || (n.firstChild == kNone && n.count == 0)) {
            continue;  // nothing here
        }
        if (n.firstChild == kNone || f.size < smallest) {
            out.push_back({f.x0, f.z0, f.x0 + f.size, f.z0 + f.size});
            continue;
        }
        for (int q = 3; q >= 0; --q) {
            stack[top++] = Walk::child(f, n.firstChild, q);
        }
    }
}

// Nearest node first, and none whose bounds the ray enters after the best hit so far: an object's
// entry point lies in its box, so in the bounds of every node holding it.
std::optional<RayHit> ObjectTree::queryRay(const Ray& ray) const {
    if (!ray.valid) {
        return std::nullopt;
    }
    struct Entry {
        uint32_t node;
        float t;
    };
    std::array<Entry, Walk::kStack> stack;
    size_t top = 0;
    RayHit best{kNone, kInf};
    if (const std::optional<float> t = rayEntry(ray, nodes_[0].bounds)) {
        stack[top++] = {0, *t};
    }
    while (top > 0) {
        const Entry entry = stack[--top];
        if (entry.t > best.distance) {
            continue;
        }
        const Node& n = nodes_[entry.node];
        if (n.firstChild == kNone) {
            for (uint32_t e = n.head; e != kNone; e = elements_[e].next) {
                const uint32_t o = elements_[e].object;
                const std::optional<float> t = rayEntry(ray, objects_.box[o]);
                keepNearer(best, o, t);
            }
            continue;
        }
        pushChildrenNearestLast(ray, nodes_, n.firstChild, stack, top);
    }
    if (best.object == kNone) {
        return std::nullopt;
    }
    return best;
}

// Each moving object walks the leaves of its swept box (Heroic Virtue 2004: previous and
// current position together). A pair is reported by the moving object with the lower id when both
// move, and only in the one leaf owning the lowest corner of the two swept boxes' overlap (both
// boxes hold that point, so both are in its leaf): unique without a hash set, then sorted.
void ObjectTree::collisionPairs(std::vector<ObjectPair>& out) const {
    out.clear();
    for (const uint32_t m : objects_.movingList) {
        const Box& sm = objects_.swept[m];
        Walk::walk(
            *this, sm, [](const Frame&) {},
            [&](const Frame& f) {
                for (uint32_t e = nodes_[f.node].head; e != kNone; e = elements_[e].next) {
                    const Element& element = elements_[e];
                    if (element.minX > sm.max.x || element.maxX < sm.min.x ||
                        element.minZ > sm.max.z || element.maxZ < sm.min.z) {
                        continue;  // most elements: decided without reading the object
                    }
                    const uint32_t o = element.object;
                    if (o == m || (objects_.moving[o] && o < m)) {
                        continue;
                    }
                    const Box& so = objects_.swept[o];
                    if (boxesOverlap(sm, so) &&
                        Walk::owns(f, std::max(sm.min.x, so.min.x), std::max(sm.min.z, so.min.z))) {
                        out.push_back(m < o ? ObjectPair{m, o} : ObjectPair{o, m});
                    }
                }
            });
    }
    std::sort(out.begin(), out.end());
}

// ---- statistics and invariants ----

size_t ObjectTree::indexBytes() const {
    return nodes_.capacity() * sizeof(Node) + mergeQueue_.bytes() +
           (elements_.capacity() + spare_.capacity()) * sizeof(Element) +
           scratch_.capacity() * sizeof(uint32_t);
}

uint32_t ObjectTree::nodeCount() const {
    return 1 + 4 * usedGroups_;
}

uint32_t ObjectTree::elementCount() const {
    return usedElements_;
}

uint32_t ObjectTree::leafCount() const {
    return 1 + 3 * usedGroups_;
}

uint32_t ObjectTree::depth() const {
    uint32_t deepest = 0;
    Walk::walk(
        *this, Box{glm::vec3(-kInf), glm::vec3(kInf)}, [](const Frame&) {},
        [&](const Frame& f) { deepest = std::max(deepest, f.depth); });
    return deepest;
}

bool ObjectTree::isEmptyRoot() const {
    return nodes_[0].firstChild == kNone && nodes_[0].count == 0 && usedGroups_ == 0 &&
           usedElements_ == 0;
}

std::string ObjectTree::check() const {
    std::string problem;
    auto fail = [&](const std::string& what) {
        if (problem.empty()) {
            problem = what;
        }
    };
    std::vector<uint32_t> leavesOf(objects_.alive.size(), 0);
    std::vector<uint32_t> seenIn(objects_.alive.size(),
                                 kNone);  // the last leaf listing each object
    uint32_t listed = 0;
    uint32_t inner = 0;
    Walk::walk(
        *this, Box{glm::vec3(-kInf), glm::vec3(kInf)},
        [&](const Frame& f) {
            ++inner;
            const Node& n = nodes_[f.node];
            for (uint32_t q = 0; q < 4; ++q) {
                const Node& c = nodes_[n.firstChild + q];
                if (c.parent != f.node) {
                    fail("child's parent link is wrong");
                }
                if (c.firstChild == kNone && c.count > 0 && !boxContains(n.bounds, c.bounds)) {
                    fail("node bounds do not cover a child's");
                }
            }
        },
        [&](const Frame& f) {
            const Node& n = nodes_[f.node];
            uint32_t count = 0;
            uint32_t separable = 0;
            for (uint32_t e = n.head; e != kNone; e = elements_[e].next) {
                ++count;
                const uint32_t o = elements_[e].object;
                if (!alive(o)) {
                    fail("dead object in a leaf");
                    continue;
                }
                ++leavesOf[o];
                const Box& s = objects_.swept[o];
                const Element& element = elements_[e];
                if (element.minX != s.min.x || element.minZ != s.min.z || element.maxX != s.max.x ||
                    element.maxZ != s.max.z) {
                    fail("element's copy of the swept box is stale");
                }
                separable += !Walk::covers(f, s);
                if (!Walk::meets(f, s)) {
                    fail("object " + std::to_string(o) + " in a leaf it does not meet");
                }
                if (!boxContains(n.bounds, s)) {
                    fail("leaf bounds do not cover an object's swept box");
                }
                if (seenIn[o] == f.node) {
                    fail("object twice in one leaf");
                }
                seenIn[o] = f.node;
            }
            listed += count;
            if (count != n.count) {
                fail("leaf count differs from its list");
            }
            if (separable > config_.leafLimit && f.depth < config_.maxDepth) {
                fail("leaf over the limit above the depth bound");
            }
            if (f.depth > config_.maxDepth) {
                fail("leaf below the depth bound");
            }
        });
    if (inner != usedGroups_) {
        fail("inner nodes differ from the groups in use");
    }
    if (listed != usedElements_) {
        fail("listed elements differ from those in use");
    }
    checkPools(elements_, freeElements_, usedElements_, nodes_, freeGroups_, usedGroups_, kNone,
               fail);
    const bool addsUp = objects_.forEachLiveAddsUp([&](uint32_t o) {
        uint32_t expected = 0;
        Walk::walk(
            *this, objects_.swept[o], [](const Frame&) {}, [&](const Frame&) { ++expected; });
        if (expected != leavesOf[o]) {
            fail("object " + std::to_string(o) + " is in " + std::to_string(leavesOf[o]) +
                 " leaves, meets " + std::to_string(expected));
        }
    });
    if (!addsUp) {
        fail("live objects and free ids do not add up");
    }
    return problem;
}

}  // namespace qt
