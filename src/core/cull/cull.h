// The culling walk over the quadtree, its statistics, and the brute-force reference it must equal.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/frustum.h"

namespace qt {

struct CullStats {
    uint32_t nodesTested = 0;  // nodes whose box met at least one plane test
    uint32_t leavesDrawn = 0;
    uint32_t leavesCulled = 0;      // outside the frustum
    uint32_t leavesOccluded = 0;    // inside it, but hidden by nearer terrain (occlusion stage)
    uint32_t subtreesAccepted = 0;  // inner nodes inside every plane, taken whole without tests
    uint64_t triangles = 0;         // triangles of the drawn leaves (real squares, not padding)
};

struct CullOptions {
    bool planeMasking = true;  // children skip the planes their parent is wholly inside
    bool acceptWhole = true;   // a node inside every plane takes its subtree untested
    bool lanes = true;         // four children per test in SSE lanes (where the CPU has SSE2)
};

// Per-frame output; construct once per tree and reuse: cull() never allocates.
struct CullOutput {
    // The drawn leaves as sorted, maximal runs of tree-order leaves (no two runs touch): an
    // accepted subtree is one run, written in O(1) however many leaves it holds.
    std::vector<LeafRange> ranges;
    CullStats stats;
    // With recordDecisions: the nodes where the walk stopped, for the minimap. A culled node's
    // whole subtree is outside; an accepted node (leaf or whole subtree) is drawn.
    bool recordDecisions = false;
    std::vector<uint32_t> culledNodes;
    std::vector<uint32_t> acceptedNodes;

    // Sizes every buffer for the tree once, so that culling this tree never allocates.
    void reserveFor(const Quadtree& tree);
};

// The most runs a cull can output: runs are separated by at least one culled leaf.
inline size_t maxLeafRanges(const Quadtree& tree) {
    return tree.leaves.size() / 2 + 1;
}

// Appends the run [first, first + count) to sorted runs, merging it with the last one if they
// touch; `first` must not come before the end of the last run.
inline void appendLeafRange(std::vector<LeafRange>& ranges, uint32_t first, uint32_t count) {
    if (!ranges.empty() && ranges.back().first + ranges.back().count == first) {
        ranges.back().count += count;
    } else {
        ranges.push_back({first, count});
    }
}

// out = the leaves of `from` that are not in `removed` (both sorted runs), as sorted maximal runs.
// O(runs of both); out must not alias either.
void subtractLeafRuns(const std::vector<LeafRange>& from, const std::vector<LeafRange>& removed,
                      std::vector<LeafRange>& out);

// Triangles of the leaves of `ranges` (two per real grid square; partial border leaves have
// fewer).
uint64_t triangleCount(const Quadtree& tree, const std::vector<LeafRange>& ranges);

// The leaves of `ranges`, in order, as cell coordinates (for listings, pictures and the GL 3.3
// draw path): appended to `out`.
void appendLeafCoords(const Quadtree& tree, const std::vector<LeafRange>& ranges,
                      std::vector<LeafCoord>& out);

// The node box in world space: x/z from the sample box, y from the exact code range.
inline Box nodeBox(const Quadtree& tree, const QuadtreeNode& node, const WorldMapping& mapping) {
    const HeightTransform height = heightTransform(tree.coding, mapping);
    float y0 = height.worldHeight(float(node.minCode));
    float y1 = height.worldHeight(float(node.maxCode));
    if (y0 > y1) {
        std::swap(y0, y1);  // a negative height scale turns the range over
    }
    return {{float(node.x0) * mapping.spacingX, y0, float(node.z0) * mapping.spacingZ},
            {float(node.x1()) * mapping.spacingX, y1, float(node.z1()) * mapping.spacingZ}};
}

// The node box in grid space: columns, height codes, rows (for gridFrustum()'s planes).
inline Box gridBox(const QuadtreeNode& node) {
    return {{float(node.x0), float(node.minCode), float(node.z0)},
            {float(node.x1()), float(node.maxCode), float(node.z1())}};
}

// The frustum's planes over the tree's grid space, where both the walk and brute force test.
Frustum gridFrustum(const Frustum& frustum, const Quadtree& tree, const WorldMapping& mapping);

// Walks the tree from the root; `out` must have been reserved for this tree.
void cullQuadtree(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                  CullOutput& out, const CullOptions& options = {});

// Tests every leaf's box against all six planes: the reference the walk must equal exactly.
// Both test gridBox() against gridFrustum() with the same arithmetic (the walk four boxes at a
// time in SSE lanes, each lane computing exactly what Frustum::classify computes).
void cullBruteForce(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                    CullOutput& out);

// Every leaf, as if nothing were culled (the --no-cull path); the decision is the root, whole.
void selectAll(const Quadtree& tree, CullOutput& out);

}  // namespace qt
