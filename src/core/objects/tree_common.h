// What the two object quadtrees share: their configuration, the queue of nodes to try merging at
// the next cleanup, the check that the node and element pools add up, and the ray query's hit and
// child order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/objects/index.h"

namespace qt {

// The configuration of both object quadtrees (the loose tree reads it as loose_tree.h says).
struct ObjectTreeConfig {
    // The root square over x/z. Objects outside it are kept in the border leaves they are
    // nearest to (a border node's region reaches to infinity on its border side), so nothing is
    // lost and every query stays exact, only slower for those objects.
    float originX = 0.0f;
    float originZ = 0.0f;
    float size = 4097.0f;
    // Objects a leaf holds before it splits, not counting those covering its whole square (no
    // split could separate them). Measured on bench/object_bench's scene (1,000,000 static
    // objects of 1-6 units and 100,000 balls over 4097 units): limit 8 gave 3.7 elements per
    // object and 700 ms a step, 16 gave 2.2 and 470 ms, 32 gave 1.6 and 430 ms.
    uint32_t leafLimit = 32;
    uint32_t maxDepth = 12;   // leaves at this depth never split: 10,000 objects at one point
                              // make one leaf of 10,000, not an unbounded recursion (zombiecalypse)
    bool mergeAtHalf = true;  // merge at leafLimit / 2, not leafLimit: a ball going back and
                              // forth over a midline then does not split and merge the same
                              // node every frame (split and merge were 22% of a bench step)

    uint32_t mergeLimit() const { return mergeAtHalf ? leafLimit / 2 : leafLimit; }
};

// Nodes to try merging, each once: push() queues a node unless it is queued already; drain()
// hands each to tryMerge in turn, including those tryMerge pushes while it runs (a merged
// node's parent), and leaves the queue empty.
class MergeQueue {
public:
    // Room for the flags of `nodeCount` nodes (the node pool's size), new ones not queued.
    void resize(size_t nodeCount) { queued_.resize(nodeCount, 0); }
    // No node queued, flags for `nodeCount` nodes.
    void reset(size_t nodeCount) {
        queued_.assign(nodeCount, 0);
        nodes_.clear();
    }
    void push(uint32_t node) {
        if (!queued_[node]) {
            queued_[node] = 1;
            nodes_.push_back(node);
        }
    }
    // The nodes renumbered: node k is now newNumber[k], in a pool of `nodeCount` nodes; queued
    // nodes that have none (freed since they were queued) leave the queue.
    void renumber(const std::vector<uint32_t>& newNumber, uint32_t none, size_t nodeCount) {
        queued_.assign(nodeCount, 0);
        size_t kept = 0;
        for (const uint32_t node : nodes_) {
            if (newNumber[node] != none) {
                nodes_[kept++] = newNumber[node];
                queued_[newNumber[node]] = 1;
            }
        }
        nodes_.resize(kept);
    }
    template <class TryMerge>
    void drain(TryMerge&& tryMerge) {
        for (size_t i = 0; i < nodes_.size(); ++i) {  // tryMerge may push
            const uint32_t node = nodes_[i];
            queued_[node] = 0;
            tryMerge(node);
        }
        nodes_.clear();
    }
    size_t bytes() const { return queued_.capacity() + nodes_.capacity() * sizeof(uint32_t); }

private:
    std::vector<uint32_t> nodes_;  // in the order pushed; each queued once
    std::vector<uint8_t> queued_;  // per node of the pool: in nodes_
};

// The free element list (linked by Element::next) and the `usedElements` fill the element pool;
// the free groups of four (linked by the first node's firstChild) and the `usedGroups`, with
// the root, fill the node pool. Calls fail(what) for each that does not.
template <class Elements, class Nodes, class Fail>
void checkPools(const Elements& elements, uint32_t freeElements, uint32_t usedElements,
                const Nodes& nodes, uint32_t freeGroups, uint32_t usedGroups, uint32_t none,
                Fail&& fail) {
    size_t free = 0;
    for (uint32_t e = freeElements; e != none && free <= elements.size(); e = elements[e].next) {
        ++free;
    }
    if (free + usedElements != elements.size()) {
        fail("element pool does not add up");
    }
    free = 0;
    for (uint32_t g = freeGroups; g != none && free <= nodes.size(); g = nodes[g].firstChild) {
        ++free;
    }
    if (1 + 4 * (free + usedGroups) != nodes.size()) {
        fail("node pool does not add up");
    }
}

// The ray query's best hit so far after object `object`, entered at t (none: missed): the
// nearer, and the lower id at equal distance, so the answer does not depend on the walk's order.
inline void keepNearer(RayHit& best, uint32_t object, const std::optional<float>& t) {
    if (t && (*t < best.distance || (*t == best.distance && object < best.object))) {
        best = {object, *t};
    }
}

// Pushes the children of a node (nodes[firstChild], ..., nodes[firstChild + 3]) whose bounds the
// ray enters onto the ray query's stack, each as an Entry {node, entry distance t}, farthest
// first, so that the nearest is walked first.
template <class Nodes, class Entry, size_t kSize>
void pushChildrenNearestLast(const Ray& ray, const Nodes& nodes, uint32_t firstChild,
                             std::array<Entry, kSize>& stack, size_t& top) {
    Entry children[4];
    int count = 0;
    for (uint32_t q = 0; q < 4; ++q) {
        if (const std::optional<float> t = rayEntry(ray, nodes[firstChild + q].bounds)) {
            children[count++] = {firstChild + q, *t};
        }
    }
    for (int i = 1; i < count; ++i) {  // insertion sort of at most four, farthest first
        for (int k = i; k > 0 && children[k - 1].t < children[k].t; --k) {
            std::swap(children[k - 1], children[k]);
        }
    }
    for (int i = 0; i < count; ++i) {
        stack[top++] = children[i];
    }
}

}  // namespace qt
