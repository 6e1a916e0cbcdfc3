// The loose object quadtree's structure: pooled nodes and free-listed elements, canonical
// placement, splits, deferred merging, compaction, the objects' changes (the queries:
// loose_tree_query.cpp). References (docs/references.md): Ulrich 2000, "Loose Octrees" (Game
// Programming Gems); Java Programmer Notes 2015 (split at a per-node limit, merge on removal);
// zombiecalypse, "The Quad Tree (I)" (the maximum depth); Heroic Virtue 2004 (a moving object
// indexed over its previous and current position).
#include "core/objects/loose_tree.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <limits>
#include <string>

namespace qt {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const Box kEmpty = {glm::vec3(kInf), glm::vec3(-kInf)};

using Node = LooseObjectTree::Node;

// The child (0..3) whose half-open square holds the box's centre; halves first, so that the sum
// cannot overflow. A child's x0 is computed as its parent's x0 + half in allocGroup, the same
// value as the midline here, so placement and the children's squares agree to the bit.
int quadrant(const Node& n, const Box& b) {
    const float half = n.size * 0.5f;
    const float cx = 0.5f * b.min.x + 0.5f * b.max.x, cz = 0.5f * b.min.z + 0.5f * b.max.z;
    return (cx >= n.x0 + half ? 1 : 0) | (cz >= n.z0 + half ? 2 : 0);
}

void childSquare(const Node& n, int q, float& x0, float& z0, float& size) {
    const float half = n.size * 0.5f;
    x0 = (q & 1) ? n.x0 + half : n.x0;
    z0 = (q & 2) ? n.z0 + half : n.z0;
    size = half;
}

// The square [x0, x0 + size]^2 loosened by size / 2 on every side holds the box over x/z.
bool looseHolds(float x0, float z0, float size, const Box& b) {
    const float margin = size * 0.5f;
    return b.min.x >= x0 - margin && b.max.x <= x0 + size + margin && b.min.z >= z0 - margin &&
           b.max.z <= z0 + size + margin;
}

}  // namespace

LooseObjectTree::LooseObjectTree(const ObjectTreeConfig& config) : config_(config) {
    assert(config.size > 0 && std::isfinite(config.size) && config.leafLimit >= 1);
    assert(config.maxDepth <= kMaxDepth);
    clearNodes();
}

void LooseObjectTree::clearNodes() {
    nodes_.resize(1);
    mergeQueue_.reset(1);
    subtreeRun_.assign(1, {0, kNone});
    stamp_.assign(1, ++lastStamp_);
    nodes_[0] = {kNone,           kNone,        0,      0, kNone, 0, config_.originX,
                 config_.originZ, config_.size, kEmpty, 0};
    freeGroups_ = kNone;
    usedGroups_ = 0;
    elements_.clear();
    ids_.clear();
    freeElements_ = kNone;
    usedElements_ = 0;
    allocatedSinceCompact_ = 0;
}

// ---- pools ----

uint32_t LooseObjectTree::allocGroup(uint32_t parent) {
    uint32_t first = freeGroups_;
    if (first != kNone) {
        freeGroups_ = nodes_[first].firstChild;
    } else {
        first = uint32_t(nodes_.size());
        nodes_.resize(nodes_.size() + 4);
        mergeQueue_.resize(nodes_.size());
        subtreeRun_.resize(nodes_.size());
        stamp_.resize(nodes_.size());
    }
    markChanged(parent);
    stamp_[parent] = ++lastStamp_;  // a leaf no longer
    const Node& p = nodes_[parent];
    for (int q = 0; q < 4; ++q) {
        Node c{kNone, kNone, 0, 0, parent, p.depth + 1, 0.0f, 0.0f, 0.0f, kEmpty, 0};
        childSquare(p, q, c.x0, c.z0, c.size);
        nodes_[first + uint32_t(q)] = c;
        subtreeRun_[first + uint32_t(q)] = {0, kNone};
        stamp_[first + uint32_t(q)] = ++lastStamp_;
    }
    ++usedGroups_;
    return first;
}

void LooseObjectTree::freeGroup(uint32_t first) {
    for (uint32_t q = 0; q < 4; ++q) {
        nodes_[first + q] = {kNone, kNone, 0, 0, kFreeNode, 0, 0.0f, 0.0f, 0.0f, kEmpty, 0};
    }
    nodes_[first].firstChild = freeGroups_;
    freeGroups_ = first;
    --usedGroups_;
}

uint32_t LooseObjectTree::allocElement() {
    uint32_t e = freeElements_;
    if (e != kNone) {
        freeElements_ = elements_[e].next;
    } else {
        e = uint32_t(elements_.size());
        elements_.emplace_back();
        ids_.push_back(0);
    }
    ++usedElements_;
    ++allocatedSinceCompact_;
    return e;
}

void LooseObjectTree::freeElement(uint32_t e) {
    elements_[e].next = freeElements_;
    freeElements_ = e;
    --usedElements_;
}

uint32_t LooseObjectTree::newId(const Box& box, Motion motion) {
    const uint32_t id = objects_.add(box, motion);
    assert(id < kMovingBit);
    if (id >= nodeOf_.size()) {
        nodeOf_.push_back(kNone);
        elementOf_.push_back(kNone);
    }
    return id;
}

// ---- placement ----

// The canonical node: down the centre's path while the child's loose square holds the box.
uint32_t LooseObjectTree::place(const Box& swept) const {
    uint32_t node = 0;
    for (;;) {
        const Node& n = nodes_[node];
        if (n.firstChild == kNone) {
            return node;
        }
        const uint32_t c = n.firstChild + uint32_t(quadrant(n, swept));
        const Node& child = nodes_[c];
        if (!looseHolds(child.x0, child.z0, child.size, swept)) {
            return node;
        }
        node = c;
    }
}

uint64_t LooseObjectTree::fullKey(const Box& swept) const {
    Node n = nodes_[0];
    uint64_t key = 0;
    for (uint32_t depth = 0; depth < config_.maxDepth; ++depth) {
        const int q = quadrant(n, swept);
        Node child = n;
        childSquare(n, q, child.x0, child.z0, child.size);
        if (!looseHolds(child.x0, child.z0, child.size, swept)) {
            break;
        }
        key += 1 + uint64_t(q) * subtreeKeys(config_.maxDepth - depth - 1);
        n = child;
    }
    return key;
}

// A split of `leaf` would send the object down: its centre child's loose square holds it.
bool LooseObjectTree::wouldGoDown(const Node& leaf, const Box& swept) const {
    float x0, z0, size;
    childSquare(leaf, quadrant(leaf, swept), x0, z0, size);
    return looseHolds(x0, z0, size, swept);
}

// Grows the bounds from `node` up while they miss part of `b` (a parent's bounds cover its
// children's, so above the first node that holds `b` every node does).
void LooseObjectTree::growUp(uint32_t node, const Box& b) {
    while (node != kNone && !boxContains(nodes_[node].bounds, b)) {
        nodes_[node].bounds = unionBox(nodes_[node].bounds, b);
        node = nodes_[node].parent;
    }
}

// Stops at the first node already marked: its ancestors are (the invariant on subtreeRun_), so a
// frame's later changes under it cost one read. A node with chained elements is marked already
// (only link() chains one, after marking; only compact() unmarks, and it unchains every list),
// so link() and unlink() call this only for a node whose list is a run.
void LooseObjectTree::markChanged(uint32_t node) {
    while (node != kNone && subtreeRun_[node].end != kNone) {
        subtreeRun_[node].end = kNone;
        node = nodes_[node].parent;
    }
}

void LooseObjectTree::link(uint32_t node, uint32_t e, uint32_t object) {
    Node& n = nodes_[node];
    if (n.chained == 0) {
        markChanged(node);  // else marked already (see markChanged), no read of subtreeRun_
    }
    if (n.count > 0 && !(n.chained == 0 && e + 1 == n.head)) {
        ++n.chained;  // else the run grows at its front
    }
    elements_[e].next = n.head;
    n.head = e;
    ++n.count;
    nodeOf_[object] = node;
    elementOf_[object] = e;
}

void LooseObjectTree::addToNode(uint32_t node, uint32_t object) {
    const uint32_t e = allocElement();
    const Box& s = objects_.swept[object];
    ids_[e] = object | (objects_.moving[object] ? kMovingBit : 0u);
    elements_[e].box = s;
    link(node, e, object);
    Node& n = nodes_[node];
    if (n.firstChild == kNone && wouldGoDown(n, s)) {
        ++n.separable;
    }
    growUp(node, s);
}

// Takes the object out of its node in O(1): the list's head element moves into the object's
// slot and the head's slot is freed: one chained element fewer, or the run one shorter at its
// front when nothing is chained.
// Returns the node.
uint32_t LooseObjectTree::unlink(uint32_t object) {
    const uint32_t node = nodeOf_[object];
    const uint32_t e = elementOf_[object];
    Node& n = nodes_[node];
    if (n.chained == 0) {
        markChanged(node);
    }
    if (n.firstChild == kNone && wouldGoDown(n, elements_[e].box)) {
        --n.separable;
    }
    const uint32_t h = n.head;
    if (e != h) {
        ids_[e] = ids_[h];
        elements_[e].box = elements_[h].box;
        elementOf_[ids_[h] & ~kMovingBit] = e;
    }
    n.head = elements_[h].next;
    --n.count;
    if (n.chained > 0) {
        --n.chained;
    }
    freeElement(h);
    nodeOf_[object] = kNone;
    elementOf_[object] = kNone;
    return node;
}

// ---- structure ----

// A leaf with more than leafLimit objects that a split would send down becomes four leaves, each
// such object going to its centre child, the others staying (Java Programmer Notes 2015), and so on
// down; never at maxDepth (zombiecalypse). Objects that fit no child do not count: no split could
// move them.
void LooseObjectTree::trySplit(uint32_t node) {
    {
        const Node& n = nodes_[node];
        if (n.firstChild != kNone || n.separable <= config_.leafLimit ||
            n.depth >= config_.maxDepth) {
            return;
        }
    }
    const uint32_t first = allocGroup(node);  // may move nodes_
    Node& n = nodes_[node];
    uint32_t e = n.head;
    n.firstChild = first;
    n.head = kNone;
    n.count = 0;
    n.chained = 0;
    n.separable = 0;
    while (e != kNone) {
        const uint32_t next = elements_[e].next;
        const Box& s = elements_[e].box;
        const uint32_t object = ids_[e] & ~kMovingBit;
        const uint32_t c = first + uint32_t(quadrant(nodes_[node], s));
        Node& child = nodes_[c];
        if (looseHolds(child.x0, child.z0, child.size, s)) {
            link(c, e, object);
            child.separable += wouldGoDown(child, s) ? 1 : 0;
            child.bounds = unionBox(child.bounds, s);
        } else {
            link(node, e, object);
        }
        e = next;
    }
    for (uint32_t q = 0; q < 4; ++q) {
        trySplit(first + q);
    }
}

void LooseObjectTree::queueMerge(uint32_t leaf) {
    const uint32_t parent = nodes_[leaf].parent;
    if (parent != kNone) {
        mergeQueue_.push(parent);
    }
}

// Merges a node whose children are all leaves holding no more than mergeLimit() objects together
// (each of them would go down again on a split) into one leaf, with exact bounds (Java Programmer
// Notes 2015).
bool LooseObjectTree::tryMerge(uint32_t node) {
    const Node& n = nodes_[node];
    if (n.parent == kFreeNode || n.firstChild == kNone) {
        return false;
    }
    const uint32_t first = n.firstChild;
    uint32_t total = 0;
    for (uint32_t q = 0; q < 4; ++q) {
        const Node& c = nodes_[first + q];
        if (c.firstChild != kNone) {
            return false;
        }
        total += c.count;
    }
    if (total > config_.mergeLimit()) {
        return false;
    }
    Node& m = nodes_[node];
    m.firstChild = kNone;
    for (uint32_t q = 0; q < 4; ++q) {
        for (uint32_t e = nodes_[first + q].head; e != kNone;) {
            const uint32_t next = elements_[e].next;
            link(node, e, ids_[e] & ~kMovingBit);
            e = next;
        }
    }
    freeGroup(first);
    stamp_[node] = ++lastStamp_;  // a leaf again
    m.separable = 0;
    m.bounds = kEmpty;
    for (uint32_t e = m.head; e != kNone; e = elements_[e].next) {
        m.separable += wouldGoDown(m, elements_[e].box) ? 1 : 0;
        m.bounds = unionBox(m.bounds, elements_[e].box);
    }
    queueMerge(node);
    return true;
}

// Renumbers the nodes too: the root, then each node's group of children in depth-first order of
// the parents, so that a depth-first walk reads the node pool front to back (each group it comes
// to lies after the ones it has read, siblings already loaded with their group).
void LooseObjectTree::compact() {
    order_.clear();
    std::array<uint32_t, 3 * kMaxDepth + 8> stack;
    size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const uint32_t node = stack[--top];
        order_.push_back(node);
        const uint32_t first = nodes_[node].firstChild;
        if (first != kNone) {
            for (uint32_t q = 4; q-- > 0;) {
                stack[top++] = first + q;
            }
        }
    }
    // New numbers: a parent comes before its children in order_, so it has one when they get
    // theirs.
    renumber_.assign(nodes_.size(), kNone);
    renumber_[0] = 0;
    uint32_t nextGroup = 1;
    for (const uint32_t node : order_) {
        const uint32_t first = nodes_[node].firstChild;
        if (first != kNone) {
            for (uint32_t q = 0; q < 4; ++q) {
                renumber_[first + q] = nextGroup + q;
            }
            nextGroup += 4;
        }
    }
    assert(nextGroup == nodeCount());
    spare_.clear();
    spare_.reserve(elements_.capacity());  // once: later the two swap, both at this capacity
    spareIds_.clear();
    spareIds_.reserve(ids_.capacity());
    subtreeRun_.resize(std::max(subtreeRun_.size(), size_t(nextGroup)));
    for (uint32_t& node : order_) {
        const uint32_t to = renumber_[node];
        Node& n = nodes_[node];
        n.parent = n.parent == kNone ? kNone : renumber_[n.parent];
        n.firstChild = n.firstChild == kNone ? kNone : renumber_[n.firstChild];
        uint32_t e = n.head;
        n.head = e == kNone ? kNone : uint32_t(spare_.size());
        subtreeRun_[to].begin = uint32_t(spare_.size());
        n.chained = 0;
        while (e != kNone) {
            const uint32_t object = ids_[e] & ~kMovingBit;
            elementOf_[object] = uint32_t(spare_.size());
            nodeOf_[object] = to;
            spare_.push_back(elements_[e]);
            spareIds_.push_back(ids_[e]);
            e = elements_[e].next;
            spare_.back().next = e == kNone ? kNone : uint32_t(spare_.size());
        }
        node = to;
    }
    assert(spare_.size() == usedElements_);
    mergeQueue_.renumber(renumber_, kNone, nextGroup);
    // Each node keeps its stamp under its new number.
    spareStamps_.assign(nextGroup, 0);
    for (uint32_t i = 0; i < renumber_.size(); ++i) {
        if (renumber_[i] != kNone) {
            spareStamps_[renumber_[i]] = stamp_[i];
        }
    }
    // The nodes to their new places, in place, cycle by cycle: each one moved marks its old
    // place's number done (its own); a free node's place (no number) ends a cycle and is dropped.
    for (uint32_t i = 0; i < renumber_.size(); ++i) {
        if (renumber_[i] == kNone || renumber_[i] == i) {
            continue;
        }
        Node carried = nodes_[i];
        uint32_t target = renumber_[i];
        renumber_[i] = i;
        for (;;) {
            const Node displaced = nodes_[target];
            const uint32_t next = renumber_[target];
            nodes_[target] = carried;
            renumber_[target] = target;
            if (next == kNone || next == target) {
                break;
            }
            carried = displaced;
            target = next;
        }
    }
    nodes_.resize(nextGroup);
    freeGroups_ = kNone;
    subtreeRun_.resize(nodes_.size());
    stamp_.swap(spareStamps_);
    elements_.swap(spare_);
    ids_.swap(spareIds_);
    freeElements_ = kNone;
    allocatedSinceCompact_ = 0;
    // Exact bounds and the subtrees' runs, children before parents.
    for (size_t i = order_.size(); i-- > 0;) {
        Node& n = nodes_[order_[i]];
        SubtreeRun& run = subtreeRun_[order_[i]];
        run.end = n.firstChild == kNone ? run.begin + n.count : subtreeRun_[n.firstChild + 3].end;
        Box b = kEmpty;
        for (uint32_t e = n.head; e != kNone; e = elements_[e].next) {
            b = unionBox(b, elements_[e].box);
        }
        if (n.firstChild != kNone) {
            for (uint32_t q = 0; q < 4; ++q) {
                b = unionBox(b, nodes_[n.firstChild + q].bounds);
            }
        }
        n.bounds = b;
    }
}

void LooseObjectTree::sortMoving() {
    objects_.sortMoving(config_.originX, config_.originZ, config_.size);
}

void LooseObjectTree::cleanup() {
    mergeQueue_.drain([&](uint32_t node) { tryMerge(node); });  // may queue the parents it frees
    if (allocatedSinceCompact_ > usedElements_ / 4) {
        compact();
    } else {
        refreshLeafBounds();
    }
    sortMoving();
}

// A leaf's bounds only grow while objects move in it (growUp); they are the frame's group box for
// its objects, so the next slice of the pool's leaves gets exact bounds again, the union of its
// elements' boxes: every leaf within kBoundsRefreshSlices cleanups. Smaller leaf bounds still lie
// in the parent's, so the tree's invariants hold.
void LooseObjectTree::refreshLeafBounds() {
    const uint32_t count = uint32_t(nodes_.size());
    const uint32_t slice = (count + kBoundsRefreshSlices - 1) / kBoundsRefreshSlices;
    uint32_t node = refreshCursor_ < count ? refreshCursor_ : 0;
    for (const uint32_t end = std::min(count, node + slice); node < end; ++node) {
        Node& n = nodes_[node];
        if (n.firstChild != kNone || n.parent == kFreeNode) {
            continue;
        }
        Box b = kEmpty;
        forEachElement(n, [&](uint32_t e) { b = unionBox(b, elements_[e].box); });
        n.bounds = b;
    }
    refreshCursor_ = node;
}

// ---- objects ----

Result<uint32_t> LooseObjectTree::insert(const Box& box, Motion motion) {
    if (!validObjectBox(box)) {
        return Result<uint32_t>::failure("object box is not finite with min <= max on each axis");
    }
    const uint32_t id = newId(box, motion);
    const uint32_t node = place(box);
    addToNode(node, id);
    trySplit(node);
    return id;
}

void LooseObjectTree::remove(uint32_t id) {
    assert(alive(id));
    const uint32_t node = unlink(id);
    if (nodes_[node].firstChild == kNone) {
        queueMerge(node);
    }
    objects_.drop(id);
}

// The common case for a ball: the same node, so only its element's copy, the separable count and
// the bounds change; otherwise out of the old node, into the new one.
Status LooseObjectTree::move(uint32_t id, const Box& box) {
    assert(alive(id));
    if (!validObjectBox(box)) {
        return Status::failure("object box is not finite with min <= max on each axis");
    }
    // Heroic Virtue 2004: a moving object is indexed over its previous and its current box
    // together.
    const Box stored = objects_.moving[id] ? unionBox(objects_.box[id], box) : box;
    objects_.box[id] = box;
    objects_.swept[id] = stored;
    const uint32_t target = place(stored);
    const uint32_t node = nodeOf_[id];
    if (target == node) {
        Element& element = elements_[elementOf_[id]];
        Node& n = nodes_[node];
        if (n.firstChild == kNone) {
            n.separable -= wouldGoDown(n, element.box) ? 1 : 0;
            n.separable += wouldGoDown(n, stored) ? 1 : 0;
        }
        element.box = stored;
        growUp(node, stored);
        trySplit(node);
        return {};
    }
    unlink(id);
    if (nodes_[node].firstChild == kNone) {
        queueMerge(node);
    }
    addToNode(target, id);
    trySplit(target);
    return {};
}

// Top down: every object into the root's list, then one recursive split (the same shape as
// inserting them one by one, whose splits happen at the same counts).
Status LooseObjectTree::build(const Box* boxes, const Motion* motions, uint32_t count) {
    objects_.box.clear();
    objects_.swept.clear();
    objects_.moving.clear();
    objects_.alive.clear();
    nodeOf_.clear();
    elementOf_.clear();
    objects_.movingList.clear();
    objects_.movingSlot.clear();
    objects_.freeIds.clear();
    objects_.liveCount = 0;
    clearNodes();
    for (uint32_t i = 0; i < count; ++i) {
        if (!validObjectBox(boxes[i])) {
            return Status::failure("object " + std::to_string(i) +
                                   ": box is not finite with min <= max on each axis");
        }
    }
    assert(count < kMovingBit);
    objects_.box.assign(boxes, boxes + count);
    objects_.swept.assign(boxes, boxes + count);
    objects_.moving.resize(count);
    objects_.alive.assign(count, 1);
    nodeOf_.assign(count, kNone);
    elementOf_.assign(count, kNone);
    objects_.movingSlot.assign(count, kNone);
    for (uint32_t i = 0; i < count; ++i) {
        objects_.moving[i] = uint8_t(motions[i]);
        if (motions[i] == Motion::Moving) {
            objects_.movingSlot[i] = uint32_t(objects_.movingList.size());
            objects_.movingList.push_back(i);
        }
    }
    objects_.liveCount = count;
    elements_.reserve(count);
    ids_.reserve(count);
    for (uint32_t id = count; id-- > 0;) {  // the list then runs in id order
        addToNode(0, id);
    }
    trySplit(0);
    compact();
    sortMoving();
    return {};
}

}  // namespace qt
