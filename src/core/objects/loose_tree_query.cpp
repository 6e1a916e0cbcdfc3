// The loose object quadtree's queries (rectangle, frustum, ray, collision pairs), its statistics
// and its invariants' check. Each object is in one node, so no query removes repeats; every node
// on the way holds objects, not only the leaves, and a node is entered when its bounds (the union
// of the swept boxes under it) meet the query.
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <utility>

#include "core/base/radix_sort.h"
#include "core/objects/loose_tree.h"
#include "core/objects/tree_common.h"

namespace qt {

namespace {

constexpr size_t kStack = 3 * LooseObjectTree::kMaxDepth + 8;  // depth first, 4 per level
constexpr uint32_t kIdMask = ~LooseObjectTree::kMovingBit;
const Box kEmpty = {glm::vec3(std::numeric_limits<float>::infinity()),
                    glm::vec3(-std::numeric_limits<float>::infinity())};

bool boundsMeetRect(const Box& b, const Rect& r) {
    return b.min.x <= r.maxX && r.minX <= b.max.x && b.min.z <= r.maxZ && r.minZ <= b.max.z;
}

// boxesOverlap with every comparison made and combined without a branch: in a pair walk the
// outcome is as good as random, and the six comparisons cost less than a misprediction.
bool boxesMeet(const Box& a, const Box& b) {
    return (a.min.x <= b.max.x) & (b.min.x <= a.max.x) & (a.min.y <= b.max.y) &
           (b.min.y <= a.max.y) & (a.min.z <= b.max.z) & (b.min.z <= a.max.z);
}

// Asks for the lines of the first min(count, most) entries from `from`: the start of a run that
// is read later (the hardware's own prefetcher takes over once a run has been read a little way).
template <class T>
void prefetchLines(const T* from, uint32_t count, uint32_t most) {
    const char* begin = reinterpret_cast<const char*>(from);
    const char* end = reinterpret_cast<const char*>(from + std::min(count, most));
    for (const char* line = begin; line < end; line += 64) {
        __builtin_prefetch(line);
    }
}
constexpr uint32_t kPrefetchIds = 64;       // 4 lines
constexpr uint32_t kPrefetchElements = 16;  // 7 lines

// False for a node nothing ever came to (min > max): its children hold nothing either.
bool boundsInsideRect(const Box& b, const Rect& r) {
    return r.minX <= b.min.x && b.max.x <= r.maxX && r.minZ <= b.min.z && b.max.z <= r.maxZ &&
           b.min.x <= b.max.x;
}

}  // namespace

// Writes the ids of n's own objects to `to` (room for n.count), in list order, with no test: the
// chained elements by next, then the run as one masked copy (a loop the compiler vectorizes).
void LooseObjectTree::copyIds(const Node& n, uint32_t* to) const {
    uint32_t e = n.head;
    for (uint32_t k = 0; k < n.chained; ++k) {
        *to++ = ids_[e] & kIdMask;
        e = elements_[e].next;
    }
    const uint32_t* from = ids_.data() + e;
    for (uint32_t k = 0, run = n.count - n.chained; k < run; ++k) {
        to[k] = from[k] & kIdMask;
    }
}

// The rectangle query's buffers, one set a thread (a query is const and may run on several
// threads at once): grown to the largest query seen, never given back, so a query allocates
// nothing once they have room.
struct LooseObjectTree::RectScratch {
    struct Entry {
        uint32_t node;
        uint32_t inside;  // the parent's bounds lie inside R, so this node's do
    };
    std::vector<Entry> level, next;  // the walk's nodes: this level, the next
    std::vector<Entry> lists;        // this level's nodes whose own lists are read one by one
    std::vector<uint32_t> runs;      // begin, end: ranges of ids_ reported whole
    std::vector<uint32_t> found;     // ids reported one by one
    std::vector<uint32_t> pending;   // moving objects whose box, not their swept box, decides
    std::vector<uint32_t> sort;      // the radix sort's second buffer
};

// Reports the objects of n's own list that meet R into s.found, testing each element's swept box
// and writing each id with the test's outcome added to the count, no branch on it (in a node R
// cuts, the outcome is as good as random). A moving object whose swept box meets R without lying
// inside it goes to s.pending instead: its box, read only then, decides, and the line is asked for
// now so that it has come by the time the walk ends.
void LooseObjectTree::appendMeeting(const Node& n, const Rect& r, RectScratch& s) const {
    const size_t begin = s.found.size();
    s.found.resize(begin + n.count);
    uint32_t* to = s.found.data() + begin;
    uint32_t kept = 0;
    forEachElement(n, [&](uint32_t e) {
        const Box& b = elements_[e].box;
        const uint32_t id = ids_[e];
        bool hit =
            (b.min.x <= r.maxX) & (r.minX <= b.max.x) & (b.min.z <= r.maxZ) & (r.minZ <= b.max.z);
        if ((id & kMovingBit) && hit && !boundsInsideRect(b, r)) {
            __builtin_prefetch(&objects_.box[id & kIdMask]);
            s.pending.push_back(id & kIdMask);
            hit = false;
        }
        to[kept] = id & kIdMask;
        kept += hit ? 1u : 0u;
    });
    s.found.resize(begin + kept);
}

// Level by level (breadth first): each level's nodes are classified before any list under them is
// read, and the lines each will need are asked for as it is classified, so the memory system
// fetches a level's lines together; a depth-first walk would wait for each node, then for its
// list, in turn. The ids end sorted, so the walk's order does not matter.
// A node whose bounds lie inside R reports its own objects and its subtree's with no test
// (zombiecalypse's rectangle query reports whole contained nodes): every swept box lies in the
// bounds, every box in its swept box. While its subtree's lists are one run (subtreeRun_), or its
// own list is a run, that run is reported as a range of ids_, which the sort reads in place. Other
// nodes test each element's swept box, and a moving object's box after it (appendMeeting).
void LooseObjectTree::queryRect(const Rect& r, std::vector<uint32_t>& out) const {
    if (!validRect(r)) {
        out.clear();
        return;
    }
    thread_local RectScratch s;
    s.level.clear();
    s.runs.clear();
    s.found.clear();
    s.pending.clear();
    s.level.push_back({0, 0});
    size_t inRuns = 0;
    while (!s.level.empty()) {
        s.next.clear();
        s.lists.clear();
        for (const RectScratch::Entry entry : s.level) {
            const Node& n = nodes_[entry.node];
            bool inside = entry.inside != 0;
            if (!inside) {
                if (!boundsMeetRect(n.bounds, r)) {
                    continue;  // also a node nothing ever came to (min > max)
                }
                inside = boundsInsideRect(n.bounds, r);
            }
            if (inside && subtreeRun_[entry.node].end != kNone) {
                // The whole subtree's ids in one range: none of its nodes need be read.
                const SubtreeRun run = subtreeRun_[entry.node];
                prefetchLines(ids_.data() + run.begin, run.end - run.begin, kPrefetchIds);
                s.runs.push_back(run.begin);
                s.runs.push_back(run.end);
                inRuns += run.end - run.begin;
                continue;
            }
            if (n.count > 0) {
                // A list with chained elements starts at its head, the rest lies elsewhere.
                const uint32_t run = n.chained == 0 ? n.count : 1;
                prefetchLines(ids_.data() + n.head, run, kPrefetchIds);
                if (inside && n.chained == 0) {
                    s.runs.push_back(n.head);
                    s.runs.push_back(n.head + n.count);
                    inRuns += n.count;
                } else {
                    prefetchLines(elements_.data() + n.head, run, kPrefetchElements);
                    s.lists.push_back({entry.node, inside ? 1u : 0u});
                }
            }
            if (n.firstChild != kNone) {
                for (uint32_t q = 0; q < 4; ++q) {
                    __builtin_prefetch(&nodes_[n.firstChild + q]);
                    s.next.push_back({n.firstChild + q, inside ? 1u : 0u});
                }
            }
        }
        for (const RectScratch::Entry entry : s.lists) {
            const Node& n = nodes_[entry.node];
            if (entry.inside) {
                const size_t begin = s.found.size();
                s.found.resize(begin + n.count);
                copyIds(n, s.found.data() + begin);
            } else {
                appendMeeting(n, r, s);
            }
        }
        s.level.swap(s.next);
    }
    for (const uint32_t id : s.pending) {
        if (boxMeetsRect(objects_.box[id], r)) {
            s.found.push_back(id);
        }
    }
    radixSortVisit(
        [&](auto&& f) {
            const uint32_t* ids = ids_.data();
            for (size_t k = 0; k < s.runs.size(); k += 2) {
                for (uint32_t e = s.runs[k]; e < s.runs[k + 1]; ++e) {
                    f(ids[e] & kIdMask);
                }
            }
            for (const uint32_t id : s.found) {
                f(id);
            }
        },
        inRuns + s.found.size(), uint32_t(objects_.alive.size()), out, s.sort);
}

// Plane masking as in cull.cpp: a node tests only the planes its parent straddled; a node inside
// every plane takes its subtree untested. Exact: an object's box lies in its node's bounds, so a
// plane the bounds are inside cannot have the box outside it (the tests are monotone in the
// corners, in floating point too).
void LooseObjectTree::queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out) const {
    queryFrustum(frustum, out, nullptr, true);
}

void LooseObjectTree::queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out,
                                   FrustumQueryStats* stats, bool sortById) const {
    frustumWalk(frustum, kAllPlanes, out, nullptr, stats);
    if (sortById) {
        thread_local std::vector<uint32_t> scratch;
        radixSortIds(out, uint32_t(objects_.alive.size()), scratch);
    }
}

void LooseObjectTree::queryFrustumGroups(const Frustum& frustum, std::vector<uint32_t>& out,
                                         ObjectGroups& groups, FrustumQueryStats* stats) const {
    frustumWalk(frustum, kAllPlanes, out, &groups, stats);
}

void LooseObjectTree::allInTreeOrder(std::vector<uint32_t>& out) const {
    const Frustum everything{};
    frustumWalk(everything, 0, out, nullptr, nullptr);
}

// Appends the objects of the subtree under `root` (whose bounds are not empty) to `out` in tree
// order, with no test, and with `groups` one group per node holding any: a leaf's bounds as its
// box (they cover every swept box in it, and reading them spares reading its elements), an inner
// node's the union of its own elements' boxes. A list that is a run goes in as one copy of ids_,
// moving bits and all: the caller masks them once at the end. Children whose bounds are empty
// (nothing ever came there) are not visited.
void LooseObjectTree::appendSubtree(uint32_t root, uint64_t rootKey, std::vector<uint32_t>& out,
                                    ObjectGroups* groups) const {
    struct Entry {
        uint32_t node;
        uint64_t key;
    };
    std::array<Entry, kStack> stack;
    size_t top = 0;
    stack[top++] = {root, rootKey};
    while (top > 0) {
        const Entry entry = stack[--top];
        const Node& n = nodes_[entry.node];
        if (n.count > 0) {
            if (n.chained == 0) {
                out.insert(out.end(), ids_.data() + n.head, ids_.data() + n.head + n.count);
            } else {
                forEachElement(n, [&](uint32_t e) { out.push_back(ids_[e]); });
            }
            if (groups) {
                groups->end.push_back(uint32_t(out.size()));
                Box box = n.bounds;
                if (n.firstChild != kNone) {
                    box = kEmpty;
                    forEachElement(n, [&](uint32_t e) { box = unionBox(box, elements_[e].box); });
                }
                groups->box.push_back(box);
                groups->node.push_back({entry.key, stamp_[entry.node], entry.node,
                                        uint16_t(n.depth), uint8_t(n.firstChild == kNone), 1});
            }
        }
        if (n.firstChild != kNone) {
            const Node* children = &nodes_[n.firstChild];
            const uint64_t step = subtreeKeys(config_.maxDepth - n.depth - 1);
            for (uint32_t q = 4; q-- > 0;) {
                stack[top] = {n.firstChild + q, entry.key + 1 + q * step};
                top += children[q].bounds.min.x <= children[q].bounds.max.x ? 1 : 0;
            }
        }
    }
}

// Plane masking as in cull.cpp: a node tests only the planes its parent straddled; a node inside
// every plane takes its own objects and its subtree's untested (appendSubtree). Each object is
// stored once, so nothing repeats. `rootPlanes` 0: nothing tested, every object.
void LooseObjectTree::frustumWalk(const Frustum& frustum, uint8_t rootPlanes,
                                  std::vector<uint32_t>& out, ObjectGroups* groups,
                                  FrustumQueryStats* stats) const {
    out.clear();
    if (groups) {
        groups->clear();
    }
    uint32_t nodesTested = 0, objectsTested = 0;
    struct Entry {
        uint32_t node;
        uint8_t planes;
        uint64_t key;  // fullKey's numbering
    };
    std::array<Entry, kStack> stack;
    size_t top = 0;
    stack[top++] = {0, rootPlanes, 0};
    while (top > 0) {
        const Entry entry = stack[--top];
        const Node& n = nodes_[entry.node];
        if (!(n.bounds.min.x <= n.bounds.max.x)) {
            continue;  // nothing ever came here
        }
        uint8_t planes = 0;
        if (entry.planes) {
            bool outside = false;
            ++nodesTested;
            planes = frustum.classify(n.bounds, entry.planes, outside);
            if (outside) {
                continue;
            }
        }
        if (planes == 0) {
            appendSubtree(entry.node, entry.key, out, groups);
            continue;
        }
        const size_t begin = out.size();
        Box reported = kEmpty;
        forEachElement(n, [&](uint32_t e) {
            const Element& element = elements_[e];
            const uint32_t o = ids_[e] & kIdMask;
            bool outside = false;
            frustum.classify((ids_[e] & kMovingBit) ? objects_.box[o] : element.box, planes,
                             outside);
            ++objectsTested;
            if (!outside) {
                out.push_back(o);
                if (groups) {
                    reported = unionBox(reported, element.box);
                }
            }
        });
        if (groups && out.size() > begin) {
            groups->end.push_back(uint32_t(out.size()));
            groups->box.push_back(reported);
            groups->node.push_back({entry.key, stamp_[entry.node], entry.node, uint16_t(n.depth),
                                    uint8_t(n.firstChild == kNone),
                                    uint8_t(out.size() - begin == n.count)});
        }
        if (n.firstChild != kNone) {
            const uint64_t step = subtreeKeys(config_.maxDepth - n.depth - 1);
            for (uint32_t q = 4; q-- > 0;) {
                stack[top++] = {n.firstChild + q, planes, entry.key + 1 + q * step};
            }
        }
    }
    for (uint32_t& id : out) {
        id &= kIdMask;
    }
    if (stats) {
        *stats = {nodesTested, objectsTested};
    }
}

void LooseObjectTree::occupiedCells(float smallest, std::vector<Rect>& out) const {
    out.clear();
    std::array<uint32_t, kStack> stack;
    size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node& n = nodes_[stack[--top]];
        if (!(n.bounds.min.x <= n.bounds.max.x)) {
            continue;  // nothing here
        }
        const Rect square{n.x0, n.z0, n.x0 + n.size, n.z0 + n.size};
        if (n.firstChild == kNone || n.size < smallest) {
            if (n.firstChild != kNone || n.count > 0) {
                out.push_back(square);
            }
            continue;
        }
        if (n.count > 0) {
            out.push_back(square);
        }
        for (uint32_t q = 4; q-- > 0;) {
            stack[top++] = n.firstChild + q;
        }
    }
}

// Nearest node first, and none whose bounds the ray enters after the best hit so far: an object's
// entry point lies in its box, so in the bounds of its node. A node's own objects are tested when
// it is reached, before its children; the shape test runs only for boxes entered no farther than
// the best hit so far (a shape is entered no nearer than its box).
template <class Entry>
std::optional<RayHit> LooseObjectTree::rayWalk(const Ray& ray, const Entry& shapeEntry) const {
    if (!ray.valid) {
        return std::nullopt;
    }
    struct StackEntry {
        uint32_t node;
        float t;
    };
    std::array<StackEntry, kStack> stack;
    size_t top = 0;
    RayHit best{kNone, std::numeric_limits<float>::infinity()};
    if (const std::optional<float> t = rayEntry(ray, nodes_[0].bounds)) {
        stack[top++] = {0, *t};
    }
    while (top > 0) {
        const StackEntry entry = stack[--top];
        if (entry.t > best.distance) {
            continue;
        }
        const Node& n = nodes_[entry.node];
        for (uint32_t e = n.head; e != kNone; e = elements_[e].next) {
            const Element& element = elements_[e];
            const uint32_t o = ids_[e] & kIdMask;
            const std::optional<float> t =
                rayEntry(ray, (ids_[e] & kMovingBit) ? objects_.box[o] : element.box);
            if (t && *t <= best.distance) {
                keepNearer(best, o, shapeEntry(o, *t));
            }
        }
        if (n.firstChild == kNone) {
            continue;
        }
        pushChildrenNearestLast(ray, nodes_, n.firstChild, stack, top);
    }
    if (best.object == kNone) {
        return std::nullopt;
    }
    return best;
}

std::optional<RayHit> LooseObjectTree::queryRay(const Ray& ray) const {
    return rayWalk(ray, [](uint32_t, float boxEntry) { return std::optional<float>(boxEntry); });
}

std::optional<RayHit> LooseObjectTree::queryRay(const Ray& ray, const ShapeEntry& entry) const {
    return rayWalk(ray, entry);
}

// Each moving object walks the nodes whose bounds meet its swept box (Heroic Virtue 2004: previous
// and current position together) and tests their own elements, whose copies of the swept boxes
// decide the test without reading the objects. A pair of two moving objects is reported by the
// lower id. Each object is in one node, so each pair is found once; then sorted. A node's four
// children are tested at the node, and only those that meet the box are visited; the tests compute
// every comparison, no branch between them (boxesMeet). The moving objects go in Morton order, so
// one walk reads what the last one did; their own records, kept by id, are asked for a few objects
// ahead.
void LooseObjectTree::collisionPairs(std::vector<ObjectPair>& out) const {
    out.clear();
    std::array<uint32_t, kStack> stack;
    const Element* elements = elements_.data();  // held apart from the pools, which out's
    const uint32_t* ids = ids_.data();           // growth could otherwise be taken to change
    const std::vector<uint32_t>& moving = objects_.movingList;
    constexpr size_t kAhead = 8;
    for (size_t k = 0; k < moving.size(); ++k) {
        if (k + kAhead < moving.size()) {
            __builtin_prefetch(&objects_.swept[moving[k + kAhead]]);
            __builtin_prefetch(&elementOf_[moving[k + kAhead]]);
        }
        const uint32_t m = moving[k];
        const Box& sm = objects_.swept[m];
        const uint32_t own = elementOf_[m];  // its own element, skipped without reading its id
        size_t top = 0;
        if (boxesMeet(nodes_[0].bounds, sm)) {
            stack[top++] = 0;
        }
        while (top > 0) {
            const Node& n = nodes_[stack[--top]];
            forEachElement(n, [&](uint32_t e) {
                if (!boxesMeet(elements[e].box, sm) || e == own) {
                    return;
                }
                const uint32_t o = ids[e] & kIdMask;
                if ((ids[e] & kMovingBit) && o < m) {
                    return;
                }
                out.push_back(m < o ? ObjectPair{m, o} : ObjectPair{o, m});
            });
            if (n.firstChild != kNone) {
                const Node* children = &nodes_[n.firstChild];
                for (uint32_t q = 4; q-- > 0;) {
                    stack[top] = n.firstChild + q;
                    top += boxesMeet(children[q].bounds, sm) ? 1 : 0;
                }
            }
        }
    }
    std::sort(out.begin(), out.end());
}

// ---- statistics and invariants ----

size_t LooseObjectTree::indexBytes() const {
    return nodes_.capacity() * sizeof(Node) + subtreeRun_.capacity() * sizeof(SubtreeRun) +
           mergeQueue_.bytes() + (elements_.capacity() + spare_.capacity()) * sizeof(Element) +
           (ids_.capacity() + spareIds_.capacity() + order_.capacity() + renumber_.capacity() +
            nodeOf_.capacity() + elementOf_.capacity()) *
               sizeof(uint32_t);
}

uint32_t LooseObjectTree::depth() const {
    uint32_t deepest = 0;
    for (const Node& n : nodes_) {
        if (n.parent != kFreeNode && n.firstChild == kNone) {
            deepest = std::max(deepest, n.depth);
        }
    }
    return deepest;
}

bool LooseObjectTree::isEmptyRoot() const {
    return nodes_[0].firstChild == kNone && nodes_[0].count == 0 && usedGroups_ == 0 &&
           usedElements_ == 0;
}

std::string LooseObjectTree::check() const {
    std::string problem;
    auto fail = [&](const std::string& what) {
        if (problem.empty()) {
            problem = what;
        }
    };
    auto subtreeCount = [&](uint32_t root) {
        uint32_t total = 0;
        std::vector<uint32_t> pending{root};
        while (!pending.empty()) {
            const Node& m = nodes_[pending.back()];
            pending.pop_back();
            total += m.count;
            for (uint32_t q = 0; m.firstChild != kNone && q < 4; ++q) {
                pending.push_back(m.firstChild + q);
            }
        }
        return total;
    };
    std::vector<uint32_t> seen(objects_.alive.size(), 0);
    uint32_t listed = 0, inner = 0;
    std::vector<uint64_t> stamps;
    std::vector<std::pair<uint32_t, uint64_t>> stack{{0, 0}};  // a node and its full key
    while (!stack.empty()) {
        const auto [node, key] = stack.back();
        stack.pop_back();
        const Node& n = nodes_[node];
        stamps.push_back(stamp_[node]);
        if (stamp_[node] == 0 || stamp_[node] > lastStamp_) {
            fail("node's stamp was never given");
        }
        const uint64_t keyEnd =
            key + (n.firstChild == kNone ? subtreeKeys(config_.maxDepth - n.depth) : 1);
        if (n.depth > config_.maxDepth) {
            fail("node below the depth bound");
        }
        uint32_t count = 0, separable = 0;
        for (uint32_t e = n.head; e != kNone && count <= elements_.size(); e = elements_[e].next) {
            ++count;
            const Element& element = elements_[e];
            const uint32_t o = ids_[e] & kIdMask;
            if (!alive(o)) {
                fail("dead object in a node");
                continue;
            }
            ++seen[o];
            const Box& s = objects_.swept[o];
            if (element.box.min != s.min || element.box.max != s.max) {
                fail("element's copy of the swept box is stale");
            }
            if (((ids_[e] & kMovingBit) != 0) != (objects_.moving[o] != 0)) {
                fail("element's moving flag is wrong");
            }
            if (nodeOf_[o] != node || elementOf_[o] != e) {
                fail("object " + std::to_string(o) + "'s node or element link is wrong");
            }
            if (place(s) != node) {
                fail("object " + std::to_string(o) + " is not in its canonical node");
            }
            if (const uint64_t k = fullKey(s); k < key || k >= keyEnd) {
                fail("object " + std::to_string(o) + "'s full key is not among its node's");
            }
            if (!boxContains(n.bounds, s)) {
                fail("node bounds do not cover an object's swept box");
            }
            if (n.firstChild == kNone) {
                separable += wouldGoDown(n, s) ? 1 : 0;
            }
        }
        listed += count;
        if (count != n.count) {
            fail("node count differs from its list");
        }
        if (n.chained > count) {
            fail("node has more chained elements than it holds");
        }
        uint32_t e = n.head;
        for (uint32_t k = 0; k < n.chained && e != kNone; ++k) {
            e = elements_[e].next;
        }
        for (uint32_t k = n.chained + 1; k < count && e != kNone; ++k, e = elements_[e].next) {
            if (elements_[e].next != e + 1) {
                fail("node's list after its chained elements is not a run");
            }
        }
        if (subtreeRun_[node].end == kNone && n.parent != kNone &&
            subtreeRun_[n.parent].end != kNone) {
            fail("a node's subtree run is gone while its parent's is kept");
        }
        if (subtreeRun_[node].end != kNone) {
            const SubtreeRun run = subtreeRun_[node];
            uint32_t under = 0;
            for (uint32_t k = run.begin; k < run.end && k < ids_.size(); ++k) {
                uint32_t m = nodeOf_[ids_[k] & kIdMask];
                while (m != kNone && m != node) {
                    m = nodes_[m].parent;
                }
                under += m == node ? 1 : 0;
            }
            if (run.end < run.begin || run.end > ids_.size() || under != run.end - run.begin ||
                under != subtreeCount(node)) {
                fail("a node's subtree run does not hold exactly its subtree's objects");
            }
        }
        if (separable != n.separable) {
            fail("separable count is wrong");
        }
        if (n.firstChild == kNone) {
            if (n.separable > config_.leafLimit && n.depth < config_.maxDepth) {
                fail("leaf over the limit above the depth bound");
            }
            continue;
        }
        ++inner;
        for (uint32_t q = 0; q < 4; ++q) {
            const uint32_t c = n.firstChild + q;
            const Node& child = nodes_[c];
            const float half = n.size * 0.5f;
            const float x0 = (q & 1) ? n.x0 + half : n.x0, z0 = (q & 2) ? n.z0 + half : n.z0;
            if (child.parent != node || child.depth != n.depth + 1) {
                fail("child's parent link or depth is wrong");
            }
            if (child.x0 != x0 || child.z0 != z0 || child.size != half) {
                fail("child's square is wrong");
            }
            if (child.bounds.min.x <= child.bounds.max.x && !boxContains(n.bounds, child.bounds)) {
                fail("node bounds do not cover a child's");
            }
            stack.push_back({c, key + 1 + q * subtreeKeys(config_.maxDepth - n.depth - 1)});
        }
    }
    std::sort(stamps.begin(), stamps.end());
    if (std::adjacent_find(stamps.begin(), stamps.end()) != stamps.end()) {
        fail("two nodes have one stamp");
    }
    if (stamp_.size() != nodes_.size()) {
        fail("stamps and nodes differ in number");
    }
    if (inner != usedGroups_) {
        fail("inner nodes differ from the groups in use");
    }
    if (listed != usedElements_) {
        fail("listed elements differ from those in use");
    }
    checkPools(elements_, freeElements_, usedElements_, nodes_, freeGroups_, usedGroups_, kNone,
               fail);
    const bool addsUp = objects_.forEachLiveAddsUp([&](uint32_t o) {
        if (seen[o] != 1) {
            fail("object " + std::to_string(o) + " is in " + std::to_string(seen[o]) + " nodes");
        }
    });
    if (!addsUp) {
        fail("live objects and free ids do not add up");
    }
    return problem;
}

}  // namespace qt
