// The object quadtree: objects' boxes over x/z in a tree of flat, pooled nodes, each object in
// every leaf it overlaps, updated in place as objects move (insert, remove, move), with deferred
// merging. Answers the rectangle, frustum and ray queries and the moving objects' collision pairs.
//
// Objects over a node boundary: this tree puts each object in every leaf it overlaps (Abound's
// design, Heroic Virtue 2004); the loose tree (../loose_tree.h, the loose octree of Ulrich 2000 in
// two dimensions) stores each object once, in the deepest node whose square doubled holds it. Both
// answer exactly, behind ObjectIndex. Measured interleaved in one run
// (core_bench --benchmark_filter='BM_Step(Tree|Loose)/1100000$|BM_Rect(Tree|Loose)|
// BM_Frustum(Tree|Loose)' --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true;
// CPU medians, commit 9a55473, 2026-11-26, on a 2-core machine other work shares) on
// bench/object_bench's scene, 1,000,000 static objects of 1-6 units and 100,000 balls of radius
// 1-2 over 4097 units, leaf limit 32, the loose tree wins clearly:
//                                                    this tree   loose tree
//   step at 1.1M objects (moves, cleanup, pairs)       315 ms      108 ms
//   rectangle over 1% of the map (10k hits)           1116 us       39 us
//   rectangle over 0.01% of the map (117 hits)         3.5 us      1.9 us
//   frustum 500 units far (14k hits)                   885 us      112 us
//   frustum 2000 units far (150k hits)                9338 us      697 us
//   bytes per object, pools reserved                    96.5        81.6
//   bytes per object, in use                            42.1        45.7 (with each node's
//   subtree run, each element's id, and each object's node and element links)
// Here each object is 1.58 elements; a ball's move walks the leaves of its old and new box and
// edits each list, and a pair or hit found in several leaves costs an owner test. In the loose
// tree a move that stays in its node rewrites one element in place, a removal is O(1), and a pair
// is decided from the element alone. What the loose tree pays, queries entering every node whose
// bounds (up to twice its square) meet them and scanning inner nodes' objects too, costs less
// than the repeats. So on the bench scene (objects smaller than a leaf) the loose tree is the
// choice, and the objects on the terrain (ObjectScene, ../scene.h) use it; this tree stays as
// the second exact strategy the tests and benches compare. Huge objects are this tree's weak
// case: such an object is in every leaf under it (a leaf's split ignores the objects covering it,
// so they cannot make the tree deeper, but they are copied into every leaf that smaller objects
// split); in the loose tree it stays in one node near the root, and only objects far outside the
// root square gather in the root.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/objects/index.h"
#include "core/objects/records.h"
#include "core/objects/tree_common.h"

namespace qt {

// The incremental tree. Removals and moves that empty leaves queue their parents; cleanup()
// merges (once per frame) every queued node whose children are leaves holding no more than
// mergeLimit() distinct objects (not counting those covering the node), and then its parent in
// turn: merging is deferred to cleanup(), and between cleanups leaves may hold fewer objects
// than a merge would allow.
class ObjectTree final : public RecordedObjectIndex {
public:
    static constexpr uint32_t kMaxDepth =
        20;  // the deepest maxDepth (query stacks are sized to it)
    static constexpr uint32_t kNone = 0xFFFFFFFFu;

    explicit ObjectTree(const ObjectTreeConfig& config = {});

    Result<uint32_t> insert(const Box& box, Motion motion) override;
    void remove(uint32_t id) override;
    Status move(uint32_t id, const Box& box) override;
    Status build(const Box* boxes, const Motion* motions, uint32_t count) override;
    void cleanup() override;

    void queryRect(const Rect& rect, std::vector<uint32_t>& out) const override;
    void queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out) const override;
    // The same, counting the plane tests (nodes whose bounds were tested, object boxes; objects
    // under a node inside every plane are not), and with sortById false in the tree's order (the
    // same for the same tree), for the frame, which needs no sort.
    void queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out, FrustumQueryStats* stats,
                      bool sortById) const;
    // Every live object in the order queryFrustum(..., sortById false) reports them: a frame
    // without culling draws them in this order, so that a culled frame draws its subset in the
    // same relative order and objects at equal depth win the same pixels in both.
    void allInTreeOrder(std::vector<uint32_t>& out) const;
    std::optional<RayHit> queryRay(const Ray& ray) const override;
    void collisionPairs(std::vector<ObjectPair>& out) const override;

    size_t indexBytes() const override;

    // For the rebuild strategy: change the objects without touching the tree (which is then
    // stale: only reindex() may follow), then reindex() clears the tree (keeping every pool's
    // capacity) and puts every live object back, top down. Boxes are checked by the caller.
    uint32_t insertUnindexed(const Box& box, Motion motion);
    // Rewrites the element pool so that each leaf's list is one contiguous run, leaves in pool
    // order (siblings together): a leaf is then scanned from one or two cache lines instead of
    // one per element. Run by reindex(), and by cleanup() once a quarter of the elements in use
    // were allocated since the last time (moves scatter new elements over the free list).
    void compact();
    // Orders the moving objects along a Morton curve, so that collisionPairs' consecutive walks
    // go down the same nodes (its node and first element loads, cache misses, were 60% of its
    // time); run by cleanup() and reindex().
    void sortMoving();
    void removeUnindexed(uint32_t id);
    void setBoxUnindexed(uint32_t id, const Box& box);
    void reindex();

    // The squares of the leaves, and of the nodes smaller than `smallest` (their subtrees taken
    // as one), that hold something: what a map of the tree can show at a given resolution.
    void occupiedCells(float smallest, std::vector<Rect>& out) const;

    // Invariants, for the tests: every live object is in exactly the leaves whose region its
    // swept box meets; leaf counts match their lists; no leaf above maxDepth holds more than
    // leafLimit objects that do not cover its square; bounds cover what is under them; the free
    // lists and the pools add up. Returns an empty string or the first thing wrong.
    std::string check() const;
    uint32_t nodeCount() const;  // nodes in use
    uint32_t leafCount() const;
    uint32_t elementCount() const;  // elements in use (an object in k leaves counts k)
    uint32_t depth() const;         // the deepest leaf's depth (root: 0)
    bool isEmptyRoot() const;       // one leaf, no elements

    // Node of the pool: children are four consecutive nodes (NW, NE, SW, SE over x then z).
    struct Node {
        uint32_t firstChild;  // kNone for a leaf; free group: the next free group
        uint32_t head;        // leaf: first element of its list (kNone when empty)
        uint32_t count;       // leaf: elements in its list
        uint32_t parent;      // kNone for the root
        Box bounds;           // covers every swept box in the subtree, all three axes (grows as
                              // objects come; exact again after a merge or reindex); min > max
                              // while nothing came. Over x/z it may reach past the node's region:
                              // then a box not outside a plane never has its node culled, and a
                              // node inside every plane holds only boxes inside them, so the
                              // frustum query equals Frustum::classify on each box exactly.
    };
    // Element of a leaf's list: an object, the next element (kNone ends the list), and a copy of
    // the object's swept box over x/z, so that scanning a leaf reads only its elements: the loads
    // of each element's object were most of collisionPairs' time (perf), cache misses.
    struct Element {
        uint32_t object;
        uint32_t next;
        float minX, minZ, maxX, maxZ;
    };

private:
    friend struct ObjectTreeWalk;
    struct Frame;  // a node being walked, with its region (every_leaf_tree.cpp)

    void frustumWalk(const Frustum& frustum, uint8_t rootPlanes, std::vector<uint32_t>& out,
                     FrustumQueryStats* stats) const;
    uint32_t allocGroup(uint32_t parent);
    void freeGroup(uint32_t first);
    uint32_t allocElement(uint32_t object, uint32_t next);
    void addToLeaf(uint32_t leaf, uint32_t object);
    bool removeFromLeaf(uint32_t leaf, uint32_t object);
    void refreshInLeaf(uint32_t leaf, uint32_t object);
    void splitLeaf(const Frame& f);
    void index(uint32_t object, const Box& stored);
    void unindex(uint32_t object, const Box& stored);
    void reindexMoved(uint32_t object, const Box& oldStored, const Box& newStored);
    void queueMerge(uint32_t leaf);
    bool tryMerge(uint32_t node);
    Frame frameOf(uint32_t node) const;
    void grow(uint32_t node, const Box& b);

    ObjectTreeConfig config_;
    std::vector<Node> nodes_;        // nodes_[0] is the root
    uint32_t freeGroups_ = kNone;    // first node of the first free group of four
    uint32_t usedGroups_ = 0;        // groups in use
    std::vector<Element> elements_;  // every leaf's list, and the free list
    uint32_t freeElements_ = kNone;
    uint32_t usedElements_ = 0;
    uint32_t allocatedSinceCompact_ = 0;
    std::vector<Element> spare_;     // compact()'s destination, kept for the next one
    MergeQueue mergeQueue_;          // parents of leaves that lost elements since cleanup()
    std::vector<uint32_t> scratch_;  // cleanup(): the distinct objects of a merge candidate
};

}  // namespace qt
