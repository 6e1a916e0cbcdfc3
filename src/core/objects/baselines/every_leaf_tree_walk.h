// Internal to the object quadtree's sources (every_leaf_tree.cpp, every_leaf_tree_query.cpp): a
// node being walked with its region, and the walk.
#pragma once

#include <algorithm>
#include <array>
#include <limits>

#include "core/objects/baselines/every_leaf_tree.h"

namespace qt {

namespace object_tree_internal {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kFreeNode = 0xFFFFFFFEu;                     // Node::parent of a free node
inline const Box kEmpty = {glm::vec3(kInf), glm::vec3(-kInf)};  // bounds of nothing

}  // namespace object_tree_internal

// A node being walked. Its square is [x0, x0 + size] over x/z (where its children's midlines
// are); its region is [loX, hiX] x [loZ, hiZ]: the square, but reaching to infinity on the
// root's border sides, so that the leaves' regions cover the whole plane. Leaves own the
// half-open [lo, hi) of their region: bounds are the ancestors' midlines, computed the same way
// on every walk, so each point has exactly one owning leaf.
struct ObjectTree::Frame {
    uint32_t node;
    uint32_t depth;
    float x0, z0, size;
    float loX, hiX, loZ, hiZ;
    uint8_t planes;  // the frustum walk: planes still to test
};

struct ObjectTreeWalk {
    using Frame = ObjectTree::Frame;
    static constexpr size_t kStack = 3 * ObjectTree::kMaxDepth + 8;  // depth-first, 4 per level

    static Frame root(const ObjectTreeConfig& c) {
        return {0,
                0,
                c.originX,
                c.originZ,
                c.size,
                -object_tree_internal::kInf,
                object_tree_internal::kInf,
                -object_tree_internal::kInf,
                object_tree_internal::kInf,
                kAllPlanes};
    }
    static Frame child(const Frame& f, uint32_t firstChild, int q) {
        const float half = f.size * 0.5f;
        const float midX = f.x0 + half, midZ = f.z0 + half;
        Frame c = f;
        c.node = firstChild + uint32_t(q);
        c.depth = f.depth + 1;
        c.size = half;
        if (q & 1) {
            c.x0 = midX;
            c.loX = midX;
        } else {
            c.hiX = midX;
        }
        if (q & 2) {
            c.z0 = midZ;
            c.loZ = midZ;
        } else {
            c.hiZ = midZ;
        }
        return c;
    }
    // Closed overlap of a box's x/z with the frame's region.
    static bool meets(const Frame& f, const Box& b) {
        return b.min.x <= f.hiX && b.max.x >= f.loX && b.min.z <= f.hiZ && b.max.z >= f.loZ;
    }
    static bool meets(const Frame& f, const Rect& r) {
        return r.minX <= f.hiX && r.maxX >= f.loX && r.minZ <= f.hiZ && r.maxZ >= f.loZ;
    }
    // The leaf owns the point (x, z): the one leaf whose half-open region holds it.
    static bool owns(const Frame& f, float x, float z) {
        return x >= f.loX && x < f.hiX && z >= f.loZ && z < f.hiZ;
    }
    // The box covers the node's square (splitting cannot separate such objects).
    static bool covers(const Frame& f, const Box& b) {
        return b.min.x <= f.x0 && b.max.x >= f.x0 + f.size && b.min.z <= f.z0 &&
               b.max.z >= f.z0 + f.size;
    }
    // Calls leaf(frame) for each leaf whose region meets `b`, depth first; inner(frame) first for
    // each inner node that does. Nodes may be added under the current leaf by `leaf`.
    template <class Inner, class Leaf>
    static void walk(const ObjectTree& t, const Box& b, Inner&& inner, Leaf&& leaf) {
        std::array<Frame, kStack> stack;
        size_t top = 0;
        stack[top++] = root(t.config_);
        while (top > 0) {
            const Frame f = stack[--top];
            const uint32_t first = t.nodes_[f.node].firstChild;
            if (first == ObjectTree::kNone) {
                leaf(f);
                continue;
            }
            inner(f);
            for (int q = 3; q >= 0; --q) {
                const Frame c = child(f, first, q);
                if (meets(c, b)) {
                    stack[top++] = c;
                }
            }
        }
    }
};

}  // namespace qt
