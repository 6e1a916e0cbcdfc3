// The loose object quadtree (Ulrich's loose octree, "Loose Octrees", Game Programming Gems, 2000,
// in two dimensions): each object stored once, in the deepest node on its centre's path whose
// square loosened to twice its side holds the object's swept box over x/z; flat pooled nodes,
// free-listed elements, splits at a per-node limit (Java Programmer Notes 2015) and deferred
// merging. The third strategy behind ObjectIndex, measured against the every-leaf tree
// (baselines/every_leaf_tree.h, where the choice and the figures are).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/function_ref.h"
#include "core/base/huge_pages.h"
#include "core/objects/index.h"
#include "core/objects/records.h"
#include "core/objects/tree_common.h"

namespace qt {

// The same configuration as the every-leaf tree (ObjectTreeConfig), read as: the root square;
// leafLimit objects in a leaf that would go down on a split (those whose loose child square holds
// them) before it splits; maxDepth; merging at half the limit. An object that fits no child of
// the root (outside the root square by more than a quarter of it) stays in the root, so nothing
// is lost and every query stays exact, only slower for those objects.
//
// Placement is canonical: from the root, down to the child whose half-open square holds the swept
// box's centre while that child's loose square holds the whole box; so an object's node depends
// only on its swept box and the tree's shape, and a query never needs to remove repeats. Removals
// and moves that thin a leaf queue its parent; cleanup() merges a node whose children are leaves
// holding no more than mergeLimit() objects together, then its parent in turn.

// The node holding a frame's group (ObjectGroups::node): its key (LooseObjectTree::fullKey's
// numbering), its number in the pool and its stamp there (LooseObjectTree::stamp: what a caller
// found of the node's keys holds while the stamp is the same), its depth, whether it is a leaf
// (it then holds every object whose full key lies in its subtree), and whether the group holds
// all of the node's own objects (inside every plane) or those of them whose boxes met the
// frustum.
struct GroupNode {
    uint64_t key;
    uint64_t stamp;
    uint32_t node;
    uint16_t depth;
    uint8_t leaf;
    uint8_t whole;
};

// The objects a frustum walk reports, by the node that holds them: group g is the ids
// [end[g - 1], end[g]) of the walk's output (from 0 for g = 0), all held by one node, and box[g]
// holds each of their swept boxes, so each of their boxes: the union of those swept boxes, or, for
// a leaf inside every plane (all of its objects reported), the leaf's bounds, read without reading
// its elements. A box that nearer terrain
// hides hides the whole group (the occlusion stage's argument holds for anything drawn inside a
// box, core/cull/occlusion.h's BoxOccludees), so the frame tests each group once. node[g] names
// the node.
struct ObjectGroups {
    std::vector<uint32_t> end;
    std::vector<Box> box;
    std::vector<GroupNode> node;

    void clear() {
        end.clear();
        box.clear();
        node.clear();
    }
};

class LooseObjectTree final : public RecordedObjectIndex {
public:
    static constexpr uint32_t kMaxDepth =
        20;  // the deepest maxDepth (query stacks are sized to it)
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    static constexpr uint32_t kFreeNode = 0xFFFFFFFEu;   // Node::parent of a free node
    static constexpr uint32_t kMovingBit = 0x80000000u;  // Element::object's flag; ids stay below

    explicit LooseObjectTree(const ObjectTreeConfig& config = {});

    Result<uint32_t> insert(const Box& box, Motion motion) override;
    void remove(uint32_t id) override;
    Status move(uint32_t id, const Box& box) override;
    Status build(const Box* boxes, const Motion* motions, uint32_t count) override;
    // Merges the queued nodes; then compacts once a quarter of the elements in use were allocated
    // since the last compaction, or else gives the next slice of leaves exact bounds
    // (refreshLeafBounds); then the moving objects' Morton order.
    void cleanup() override;

    void queryRect(const Rect& rect, std::vector<uint32_t>& out) const override;
    void queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out) const override;
    // The same, counting the plane tests, and with sortById false in the tree's order (the same
    // for the same tree), for callers that need no sort.
    void queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out, FrustumQueryStats* stats,
                      bool sortById) const;
    // The frame's query: as queryFrustum(..., sortById false), with the reported objects grouped
    // by node (ObjectGroups).
    void queryFrustumGroups(const Frustum& frustum, std::vector<uint32_t>& out,
                            ObjectGroups& groups, FrustumQueryStats* stats) const;
    // Every live object in the order queryFrustum(..., sortById false) reports them: a frame
    // without culling draws them in this order, so that a culled frame draws its subset in the
    // same relative order and objects at equal depth win the same pixels in both.
    void allInTreeOrder(std::vector<uint32_t>& out) const;
    // The squares of the nodes holding objects of their own, and of the nodes smaller than
    // `smallest` holding anything (their subtrees taken as one): a map of the tree at a given
    // resolution.
    void occupiedCells(float smallest, std::vector<Rect>& out) const;
    std::optional<RayHit> queryRay(const Ray& ray) const override;
    // The first object along the ray by a narrower test than its box: `entry(id, boxEntry)`
    // gives the distance at which the ray enters the object's shape, never less than the
    // distance it enters the box (boxEntry), or none when it misses the shape. Nodes farther than
    // the best hit so far are not entered, as for boxes. Allocates nothing (picking runs every
    // frame).
    using ShapeEntry = FunctionRef<std::optional<float>(uint32_t id, float boxEntry)>;
    std::optional<RayHit> queryRay(const Ray& ray, const ShapeEntry& entry) const;
    void collisionPairs(std::vector<ObjectPair>& out) const override;

    size_t indexBytes() const override;

    const ObjectTreeConfig& config() const { return config_; }
    // The node numbering that does not change as the tree splits and merges: each node of the
    // tree split everywhere down to maxDepth numbered in pre-order (a node, then its children's
    // subtrees NW, NE, SW, SE), so that any node's subtree is the keys [key, key +
    // subtreeKeys(maxDepth - depth)). fullKey(swept) is the key of the node an object's swept box
    // would be placed in by that tree: in any shape of the tree an inner node holds exactly the
    // objects whose full key is its own, and a leaf exactly those whose full key lies in its
    // subtree (the placement is canonical). Sorting objects by it gives every group of a frame
    // (GroupNode) one run.
    uint64_t fullKey(const Box& swept) const;
    // Node `node`'s stamp: a number no other node has had, given anew whenever the node turns
    // from leaf to inner or back (a split, a merge) or its number goes to a new node (a split's
    // children); compact() renumbers the nodes with their stamps. While it stays, the node's
    // keys (its own, or as a leaf its subtree's) stay, and so do the static objects it holds.
    uint64_t stamp(uint32_t node) const { return stamp_[node]; }
    // The nodes of a complete quadtree of `levels` levels below its root, root included.
    static uint64_t subtreeKeys(uint32_t levels) {
        return ((uint64_t(1) << (2 * levels + 2)) - 1) / 3;
    }

    // Rewrites the element pool so that each node's list is one contiguous run, nodes depth first,
    // renumbers the nodes in the same order (groups of four siblings kept together), and makes
    // every node's bounds exact again (they only grow between compactions); run by build(), and
    // by cleanup() once a quarter of the elements in use were allocated since.
    void compact();
    // Orders the moving objects along a Morton curve, so that collisionPairs' consecutive walks go
    // down the same nodes (as ObjectTree::sortMoving); run by cleanup() and build().
    void sortMoving();
    // The live moving objects in that order (as of the last cleanup() or build(), with those
    // inserted since at the end): a caller that visits them in this order reads the tree, and
    // whatever else it keeps by position, nearly in place from one object to the next.
    const std::vector<uint32_t>& movingInOrder() const { return objects_.movingList; }
    // Ask the caches for what move(id) reads, for a caller about to move objects in a known order
    // (their records lie apart, by id): first the object's records (its boxes, motion, and the
    // numbers of its node and element), then, once those have come (a few objects later), its
    // element and node.
    void prefetchRecords(uint32_t id) const {
        __builtin_prefetch(&objects_.box[id]);
        __builtin_prefetch(&objects_.swept[id]);
        __builtin_prefetch(&objects_.moving[id]);
        __builtin_prefetch(&elementOf_[id]);
        __builtin_prefetch(&nodeOf_[id]);
    }
    void prefetchPlace(uint32_t id) const {
        __builtin_prefetch(&elements_[elementOf_[id]]);
        __builtin_prefetch(&nodes_[nodeOf_[id]]);
    }

    // Invariants, for the tests: every live object is in exactly one node, the one its swept box's
    // canonical placement gives; element copies, counts and separable counts match; no leaf above
    // maxDepth holds more than leafLimit separable objects; bounds cover what is under them;
    // squares, depths and parent links agree; each kept subtree run holds exactly its subtree's
    // objects, and a node whose run is gone has a parent whose run is gone; the pools add up. An
    // empty string or the first thing wrong.
    std::string check() const;
    uint32_t nodeCount() const { return 1 + 4 * usedGroups_; }
    uint32_t leafCount() const { return 1 + 3 * usedGroups_; }
    uint32_t elementCount() const { return usedElements_; }  // one per live object
    uint32_t depth() const;                                  // the deepest leaf's (root: 0)
    bool isEmptyRoot() const;                                // one leaf, no elements

    // Node of the pool: children are four consecutive nodes (NW, NE, SW, SE over x then z).
    struct Node {
        uint32_t firstChild;  // kNone for a leaf; free group: the next free group
        uint32_t head;        // first element of the node's own list (kNone when empty)
        uint32_t count;       // elements in its own list
        uint32_t separable;   // leaf: own objects a split would send down; inner: 0
        uint32_t parent;      // kNone for the root
        uint32_t depth;       // root: 0
        float x0, z0, size;   // the square [x0, x0 + size] over x/z; its loose square reaches
                              // size / 2 further on every side (the root's reaches everywhere)
        Box bounds;           // covers every swept box in the subtree, all three axes (grows as
                              // objects come; exact again after a merge or compact(), and a
                              // leaf's within kBoundsRefreshSlices cleanups); min > max while
                              // nothing came
        uint32_t chained;     // the list is `chained` elements linked by next, then a run of
                              // the count - chained elements that follow the last of them in
                              // the pool, in order; compact() makes every list a run (0),
                              // link() adds one unless the new element comes just before a run,
                              // unlink() takes one off (or the run's first)
    };
    static_assert(sizeof(Node) == 64, "one node a cache line");
    // Element of a node's list: the next element (kNone ends the list) and a copy of its object's
    // swept box, so that a pair test reads only the element; its object's id is ids_[e].
    struct Element {
        uint32_t next;
        Box box;
    };
    static_assert(sizeof(Element) == 28, "a link and a box");

private:
    // The pools: big arrays that queries jump around in, under 2 MB pages.
    template <class T>
    using HugeVector = std::vector<T, HugePageAllocator<T>>;

    // f(e) for each element e of n's list, in list order: the chained ones by next, the run by
    // index.
    template <class F>
    void forEachElement(const Node& n, F&& f) const {
        uint32_t e = n.head;
        for (uint32_t k = 0; k < n.chained; ++k) {
            f(e);
            e = elements_[e].next;
        }
        for (const uint32_t end = e + (n.count - n.chained); e != end; ++e) {
            f(e);
        }
    }
    struct RectScratch;
    void copyIds(const Node& n, uint32_t* to) const;
    void appendMeeting(const Node& n, const Rect& r, RectScratch& s) const;
    template <class Entry>
    std::optional<RayHit> rayWalk(const Ray& ray, const Entry& entry) const;
    void appendSubtree(uint32_t root, uint64_t rootKey, std::vector<uint32_t>& out,
                       ObjectGroups* groups) const;
    void frustumWalk(const Frustum& frustum, uint8_t rootPlanes, std::vector<uint32_t>& out,
                     ObjectGroups* groups, FrustumQueryStats* stats) const;

    uint32_t allocGroup(uint32_t parent);
    void freeGroup(uint32_t first);
    uint32_t allocElement();
    void freeElement(uint32_t e);
    uint32_t place(const Box& swept) const;
    bool wouldGoDown(const Node& leaf, const Box& swept) const;
    void link(uint32_t node, uint32_t e, uint32_t object);
    void addToNode(uint32_t node, uint32_t object);
    uint32_t unlink(uint32_t object);
    void growUp(uint32_t node, const Box& b);
    void markChanged(uint32_t node);  // node's list changed: its and its ancestors' runs are gone
    void trySplit(uint32_t node);
    bool tryMerge(uint32_t node);
    void queueMerge(uint32_t leaf);
    uint32_t newId(const Box& box, Motion motion);  // objects_.add, growing nodeOf_ and elementOf_
    void clearNodes();
    void refreshLeafBounds();

    ObjectTreeConfig config_;
    HugeVector<Node> nodes_;       // nodes_[0] is the root
    uint32_t freeGroups_ = kNone;  // first node of the first free group of four
    uint32_t usedGroups_ = 0;
    HugeVector<Element> elements_;  // every node's list, and the free list
    // Per element, parallel to elements_: its object's id, kMovingBit set when the object moves.
    // Apart from the elements so that the ids of a node's run lie contiguous, 16 to a cache line,
    // for a query that reports the whole node.
    HugeVector<uint32_t> ids_;
    uint32_t freeElements_ = kNone;
    uint32_t usedElements_ = 0;
    uint32_t allocatedSinceCompact_ = 0;
    // cleanup() gives each leaf exact bounds again within this many calls, a slice of the pool a
    // call from refreshCursor_ on.
    static constexpr uint32_t kBoundsRefreshSlices = 8;
    uint32_t refreshCursor_ = 0;
    HugeVector<Element> spare_;       // compact()'s destination, kept for the next one
    HugeVector<uint32_t> spareIds_;   // the same for ids_
    std::vector<uint32_t> order_;     // compact(): the nodes depth first
    std::vector<uint32_t> renumber_;  // compact(): each node's new number
    // Per node: while the lists of its subtree lie, depth first, in one run of the pool (as
    // compact() leaves them), that run [begin, end); end kNone once a list under it has changed
    // since (and then its ancestors' too), so a query reads the subtree's ids as one range.
    struct SubtreeRun {
        uint32_t begin;
        uint32_t end;
    };
    HugeVector<SubtreeRun> subtreeRun_;
    std::vector<uint64_t> stamp_;        // per node (stamp())
    std::vector<uint64_t> spareStamps_;  // compact()'s
    uint64_t lastStamp_ = 0;
    MergeQueue mergeQueue_;  // parents of leaves that lost objects since cleanup()

    std::vector<uint32_t> nodeOf_;     // per object: the node holding it while live
    std::vector<uint32_t> elementOf_;  // its element there
};

}  // namespace qt
