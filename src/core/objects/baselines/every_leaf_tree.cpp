// The object quadtree's structure: pooled nodes and free-listed element lists, splits, deferred
// merging, compaction, the objects' changes (the queries: every_leaf_tree_query.cpp). References
// (docs/references.md): Heroic Virtue 2004 (every leaf an object overlaps; a moving object indexed
// over its previous and current position); Java Programmer Notes 2015 (split at a per-node limit,
// merge on removal); zombiecalypse, "The Quad Tree (I)" (the maximum depth); Savant, "Quadtree"
// (the rebuild into pooled nodes).
#include "core/objects/baselines/every_leaf_tree.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <string>

#include "core/objects/baselines/every_leaf_tree_walk.h"

namespace qt {

using namespace object_tree_internal;
using Walk = ObjectTreeWalk;
using Frame = ObjectTreeWalk::Frame;

ObjectTree::ObjectTree(const ObjectTreeConfig& config) : config_(config) {
    assert(config.size > 0 && std::isfinite(config.size) && config.leafLimit >= 1);
    assert(config.maxDepth <= kMaxDepth);
    nodes_.push_back({kNone, kNone, 0, kNone, kEmpty});
    mergeQueue_.reset(1);
}

// ---- pools ----

uint32_t ObjectTree::allocGroup(uint32_t parent) {
    uint32_t first = freeGroups_;
    if (first != kNone) {
        freeGroups_ = nodes_[first].firstChild;
    } else {
        first = uint32_t(nodes_.size());
        nodes_.resize(nodes_.size() + 4);
        mergeQueue_.resize(nodes_.size());
    }
    for (uint32_t q = 0; q < 4; ++q) {
        nodes_[first + q] = {kNone, kNone, 0, parent, kEmpty};
    }
    ++usedGroups_;
    return first;
}

void ObjectTree::freeGroup(uint32_t first) {
    for (uint32_t q = 0; q < 4; ++q) {
        nodes_[first + q] = {kNone, kNone, 0, kFreeNode, kEmpty};
    }
    nodes_[first].firstChild = freeGroups_;
    freeGroups_ = first;
    --usedGroups_;
}

uint32_t ObjectTree::allocElement(uint32_t object, uint32_t next) {
    const Box& b = objects_.swept[object];
    const Element element{object, next, b.min.x, b.min.z, b.max.x, b.max.z};
    uint32_t e = freeElements_;
    if (e != kNone) {
        freeElements_ = elements_[e].next;
        elements_[e] = element;
    } else {
        e = uint32_t(elements_.size());
        elements_.push_back(element);
    }
    ++usedElements_;
    ++allocatedSinceCompact_;
    return e;
}

void ObjectTree::addToLeaf(uint32_t leaf, uint32_t object) {
    const uint32_t e = allocElement(object, nodes_[leaf].head);
    Node& n = nodes_[leaf];
    n.head = e;
    ++n.count;
    n.bounds = unionBox(n.bounds, objects_.swept[object]);
}

bool ObjectTree::removeFromLeaf(uint32_t leaf, uint32_t object) {
    Node& n = nodes_[leaf];
    for (uint32_t* link = &n.head; *link != kNone; link = &elements_[*link].next) {
        const uint32_t e = *link;
        if (elements_[e].object == object) {
            *link = elements_[e].next;
            elements_[e].next = freeElements_;
            freeElements_ = e;
            --usedElements_;
            --n.count;
            return true;
        }
    }
    return false;
}

void ObjectTree::refreshInLeaf(uint32_t leaf, uint32_t object) {
    for (uint32_t e = nodes_[leaf].head; e != kNone; e = elements_[e].next) {
        Element& element = elements_[e];
        if (element.object == object) {
            const Box& b = objects_.swept[object];
            element.minX = b.min.x;
            element.minZ = b.min.z;
            element.maxX = b.max.x;
            element.maxZ = b.max.z;
            return;
        }
    }
    assert(false && "object not in the leaf");
}

// ---- structure ----

void ObjectTree::grow(uint32_t node, const Box& b) {
    nodes_[node].bounds = unionBox(nodes_[node].bounds, b);
}

// A leaf with more than leafLimit objects that do not cover its square becomes four leaves, each
// object going to every child it meets (Java Programmer Notes 2015), and so on down; never at
// maxDepth (zombiecalypse). Objects covering the whole square are not counted: no split could
// separate them, and a few huge boxes would otherwise split the tree to maxDepth around every small
// object.
void ObjectTree::splitLeaf(const Frame& f) {
    const Node& n = nodes_[f.node];
    if (n.count <= config_.leafLimit || f.depth >= config_.maxDepth) {
        return;
    }
    uint32_t separable = 0;
    for (uint32_t e = n.head; e != kNone && separable <= config_.leafLimit; e = elements_[e].next) {
        separable += !Walk::covers(f, objects_.swept[elements_[e].object]);
    }
    if (separable <= config_.leafLimit) {
        return;
    }
    const uint32_t first = allocGroup(f.node);
    uint32_t e = nodes_[f.node].head;
    nodes_[f.node].firstChild = first;
    nodes_[f.node].head = kNone;
    nodes_[f.node].count = 0;
    Frame children[4];
    for (int q = 0; q < 4; ++q) {
        children[q] = Walk::child(f, first, q);
    }
    while (e != kNone) {
        const uint32_t object = elements_[e].object;
        const uint32_t next = elements_[e].next;
        elements_[e].next = freeElements_;  // freed first, so the children reuse it
        freeElements_ = e;
        --usedElements_;
        for (int q = 0; q < 4; ++q) {
            if (Walk::meets(children[q], objects_.swept[object])) {
                addToLeaf(first + uint32_t(q), object);
            }
        }
        e = next;
    }
    for (int q = 0; q < 4; ++q) {
        splitLeaf(children[q]);
    }
}

void ObjectTree::index(uint32_t object, const Box& stored) {
    Walk::walk(
        *this, stored, [&](const Frame& f) { grow(f.node, stored); },
        [&](const Frame& f) {
            addToLeaf(f.node, object);
            splitLeaf(f);
        });
}

void ObjectTree::unindex(uint32_t object, const Box& stored) {
    Walk::walk(
        *this, stored, [](const Frame&) {},
        [&](const Frame& f) {
            const bool found = removeFromLeaf(f.node, object);
            assert(found);
            (void)found;
            queueMerge(f.node);
        });
}

// One walk over both boxes: leaves of the old box only lose the object, leaves of the new box
// only gain it, leaves of both keep it (the common case for a ball: nothing but its descent).
void ObjectTree::reindexMoved(uint32_t object, const Box& oldStored, const Box& newStored) {
    Walk::walk(
        *this, unionBox(oldStored, newStored),
        [&](const Frame& f) {
            if (Walk::meets(f, newStored)) {
                grow(f.node, newStored);
            }
        },
        [&](const Frame& f) {
            const bool inOld = Walk::meets(f, oldStored), inNew = Walk::meets(f, newStored);
            if (inOld && !inNew) {
                const bool found = removeFromLeaf(f.node, object);
                assert(found);
                (void)found;
                queueMerge(f.node);
            } else if (inNew && !inOld) {
                addToLeaf(f.node, object);
                splitLeaf(f);
            } else if (inNew) {
                grow(f.node, newStored);
                refreshInLeaf(f.node, object);
                splitLeaf(f);  // it may have stopped covering the leaf
            }
        });
}

void ObjectTree::queueMerge(uint32_t leaf) {
    const uint32_t parent = nodes_[leaf].parent;
    if (parent != kNone) {
        mergeQueue_.push(parent);
    }
}

// The frame of a node, from the root down the path of its ancestors.
Frame ObjectTree::frameOf(uint32_t node) const {
    std::array<uint32_t, kMaxDepth + 1> path;
    uint32_t depth = 0;
    for (uint32_t n = node; n != 0; n = nodes_[n].parent) {
        path[depth++] = n;
    }
    Frame f = Walk::root(config_);
    while (depth-- > 0) {
        const uint32_t first = nodes_[f.node].firstChild;
        f = Walk::child(f, first, int(path[depth] - first));
    }
    return f;
}

// Merges a node whose children are all leaves holding no more than mergeLimit() distinct objects
// that do not cover its square (an object over a midline is in several) into one leaf (Java
// Programmer Notes 2015).
bool ObjectTree::tryMerge(uint32_t node) {
    const Node& n = nodes_[node];
    if (n.parent == kFreeNode || n.firstChild == kNone) {
        return false;
    }
    const uint32_t first = n.firstChild;
    for (uint32_t q = 0; q < 4; ++q) {
        if (nodes_[first + q].firstChild != kNone) {
            return false;
        }
    }
    const Frame f = frameOf(node);
    scratch_.clear();
    uint32_t separable = 0;
    for (uint32_t q = 0; q < 4; ++q) {
        for (uint32_t e = nodes_[first + q].head; e != kNone; e = elements_[e].next) {
            const uint32_t object = elements_[e].object;
            if (std::find(scratch_.begin(), scratch_.end(), object) == scratch_.end()) {
                separable += !Walk::covers(f, objects_.swept[object]);
                if (separable > config_.mergeLimit()) {
                    return false;
                }
                scratch_.push_back(object);
            }
        }
    }
    for (uint32_t q = 0; q < 4; ++q) {
        for (uint32_t e = nodes_[first + q].head; e != kNone;) {
            const uint32_t next = elements_[e].next;
            elements_[e].next = freeElements_;
            freeElements_ = e;
            --usedElements_;
            e = next;
        }
    }
    freeGroup(first);
    Node& m = nodes_[node];
    m.firstChild = kNone;
    m.bounds = kEmpty;
    for (const uint32_t object : scratch_) {
        addToLeaf(node, object);
    }
    queueMerge(node);
    return true;
}

void ObjectTree::compact() {
    spare_.clear();
    spare_.reserve(elements_.capacity());  // once: later the two swap, both at this capacity
    for (uint32_t i = 0; i < nodes_.size(); ++i) {
        Node& n = nodes_[i];
        if (n.firstChild != kNone || n.parent == kFreeNode) {
            continue;
        }
        uint32_t e = n.head;
        n.head = e == kNone ? kNone : uint32_t(spare_.size());
        while (e != kNone) {
            spare_.push_back(elements_[e]);
            e = elements_[e].next;
            spare_.back().next = e == kNone ? kNone : uint32_t(spare_.size());
        }
    }
    assert(spare_.size() == usedElements_);
    elements_.swap(spare_);
    freeElements_ = kNone;
    allocatedSinceCompact_ = 0;
}

void ObjectTree::sortMoving() {
    objects_.sortMoving(config_.originX, config_.originZ, config_.size);
}

void ObjectTree::cleanup() {
    mergeQueue_.drain([&](uint32_t node) { tryMerge(node); });  // may queue the parents it frees
    if (allocatedSinceCompact_ > usedElements_ / 4) {
        compact();
    }
    sortMoving();
}

// ---- objects ----

uint32_t ObjectTree::insertUnindexed(const Box& box, Motion motion) {
    assert(validObjectBox(box));
    return objects_.add(box, motion);
}

Result<uint32_t> ObjectTree::insert(const Box& box, Motion motion) {
    if (!validObjectBox(box)) {
        return Result<uint32_t>::failure("object box is not finite with min <= max on each axis");
    }
    const uint32_t id = insertUnindexed(box, motion);
    index(id, box);
    return id;
}

void ObjectTree::removeUnindexed(uint32_t id) {
    assert(alive(id));
    objects_.drop(id);
}

void ObjectTree::remove(uint32_t id) {
    assert(alive(id));
    unindex(id, objects_.swept[id]);
    removeUnindexed(id);
}

Status ObjectTree::move(uint32_t id, const Box& box) {
    assert(alive(id));
    if (!validObjectBox(box)) {
        return Status::failure("object box is not finite with min <= max on each axis");
    }
    // Heroic Virtue 2004: a moving object is indexed over its previous and its current box
    // together.
    const Box stored = objects_.moving[id] ? unionBox(objects_.box[id], box) : box;
    const Box oldStored = objects_.swept[id];
    objects_.box[id] = box;
    objects_.swept[id] = stored;  // first: splits below read it
    reindexMoved(id, oldStored, stored);
    return {};
}

void ObjectTree::setBoxUnindexed(uint32_t id, const Box& box) {
    assert(alive(id) && validObjectBox(box));
    objects_.swept[id] = objects_.moving[id] ? unionBox(objects_.box[id], box) : box;
    objects_.box[id] = box;
}

Status ObjectTree::build(const Box* boxes, const Motion* motions, uint32_t count) {
    objects_.box.clear();
    objects_.swept.clear();
    objects_.moving.clear();
    objects_.alive.clear();
    objects_.movingList.clear();
    objects_.movingSlot.clear();
    objects_.freeIds.clear();
    objects_.liveCount = 0;
    for (uint32_t i = 0; i < count; ++i) {
        if (!validObjectBox(boxes[i])) {
            reindex();
            return Status::failure("object " + std::to_string(i) +
                                   ": box is not finite with min <= max on each axis");
        }
    }
    objects_.box.assign(boxes, boxes + count);
    objects_.swept.assign(boxes, boxes + count);
    objects_.moving.resize(count);
    objects_.alive.assign(count, 1);
    objects_.movingSlot.assign(count, kNone);
    for (uint32_t i = 0; i < count; ++i) {
        objects_.moving[i] = uint8_t(motions[i]);
        if (motions[i] == Motion::Moving) {
            objects_.movingSlot[i] = uint32_t(objects_.movingList.size());
            objects_.movingList.push_back(i);
        }
    }
    objects_.liveCount = count;
    reindex();
    return {};
}

// Savant's per-frame rebuild with pooled nodes: the pools are emptied, not freed, and the tree is
// built top down from one root list split recursively, not by insertions one by one.
void ObjectTree::reindex() {
    nodes_.resize(1);
    mergeQueue_.reset(1);
    nodes_[0] = {kNone, kNone, 0, kNone, kEmpty};
    freeGroups_ = kNone;
    usedGroups_ = 0;
    elements_.clear();
    freeElements_ = kNone;
    usedElements_ = 0;
    for (uint32_t id = uint32_t(objects_.alive.size());
         id-- > 0;) {  // the list then runs in id order
        if (objects_.alive[id]) {
            addToLeaf(0, id);
        }
    }
    splitLeaf(Walk::root(config_));
    compact();
    sortMoving();
    // A node split keeps the bounds it had as a leaf: those of all its objects, exact.
}

}  // namespace qt
