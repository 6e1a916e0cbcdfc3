// The culling walk: pre-order traversal with plane masking and whole-subtree acceptance.
#include "core/cull.h"

#include <algorithm>
#include <cassert>

namespace qt {
namespace {

// Deepest tree is log2(65535 / 2) = 15 levels; each level leaves at most 3 siblings waiting.
constexpr int kStackSize = 4 * 17;

struct StackEntry {
    uint32_t node;
    uint8_t mask;  // planes still to test: the parent straddled them
};

Frustum toSampleSpace(const Frustum& frustum, const WorldMapping& mapping) {
    return frustum.inSampleSpace(mapping.spacing, mapping.heightScale, mapping.heightOffset);
}

void acceptSubtree(const Quadtree& tree, const QuadtreeNode& node, CullOutput& out) {
    const LeafCoord* first = tree.leaves.data() + node.firstLeaf;
    out.visible.insert(out.visible.end(), first, first + node.leafCount);
    out.stats.leavesDrawn += node.leafCount;
    out.stats.triangles += node.triangleCount();
}

}  // namespace

void CullOutput::reserveFor(const Quadtree& tree) {
    visible.clear();
    visible.reserve(tree.leaves.size());
    culledNodes.clear();
    acceptedNodes.clear();
    if (recordDecisions) {
        culledNodes.reserve(tree.nodes.size());
        acceptedNodes.reserve(tree.nodes.size());
    }
    stats = {};
}

void cullQuadtree(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                  CullOutput& out, const CullOptions& options) {
    assert(out.visible.capacity() >= tree.leaves.size());
    out.visible.clear();
    out.culledNodes.clear();
    out.acceptedNodes.clear();
    out.stats = {};
    const bool record = out.recordDecisions;
    assert(!record || out.acceptedNodes.capacity() >= tree.nodes.size());
    const Frustum local = toSampleSpace(frustum, mapping);
    StackEntry stack[kStackSize];
    int top = 0;
    stack[top++] = {0, kAllPlanes};
    while (top > 0) {
        const StackEntry entry = stack[--top];
        const QuadtreeNode& node = tree.nodes[entry.node];
        bool outside = false;
        ++out.stats.nodesTested;
        const uint8_t straddled = local.classify(sampleBox(node), entry.mask, outside);
        if (outside) {
            out.stats.leavesCulled += node.leafCount;
            if (record) {
                out.culledNodes.push_back(entry.node);
            }
            continue;
        }
        if (node.isLeaf() || (options.acceptWhole && straddled == 0)) {
            if (record) {
                out.acceptedNodes.push_back(entry.node);
            }
            if (node.isLeaf()) {  // one leaf: a push, not a range copy
                out.visible.push_back(tree.leaves[node.firstLeaf]);
                ++out.stats.leavesDrawn;
                out.stats.triangles += node.triangleCount();
            } else {
                ++out.stats.subtreesAccepted;
                acceptSubtree(tree, node, out);
            }
            continue;
        }
        const uint8_t mask = options.planeMasking ? straddled : kAllPlanes;
        // Push in reverse so children pop in order and the output stays in tree order.
        for (int q = 3; q >= 0; --q) {
            if (node.child[q] != kNoNode) {
                assert(top < kStackSize);
                stack[top++] = {node.child[q], mask};
            }
        }
    }
}

void cullBruteForce(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                    CullOutput& out) {
    out.visible.clear();
    out.stats = {};
    const Frustum local = toSampleSpace(frustum, mapping);
    for (size_t i = 0; i < tree.leaves.size(); ++i) {
        const QuadtreeNode& leaf = tree.nodes[tree.leafNodes[i]];
        bool outside = false;
        ++out.stats.nodesTested;
        local.classify(sampleBox(leaf), kAllPlanes, outside);
        if (outside) {
            ++out.stats.leavesCulled;
        } else {
            out.visible.push_back(tree.leaves[i]);
            ++out.stats.leavesDrawn;
            out.stats.triangles += leaf.triangleCount();
        }
    }
}

void selectAll(const Quadtree& tree, CullOutput& out) {
    out.visible.clear();
    out.culledNodes.clear();
    out.acceptedNodes.clear();
    if (out.recordDecisions) {
        out.acceptedNodes.push_back(0);  // the root, drawn whole
    }
    out.stats = {};
    acceptSubtree(tree, tree.root(), out);
}

}  // namespace qt
