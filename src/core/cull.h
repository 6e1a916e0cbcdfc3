// The culling walk over the quadtree, its statistics, and the brute-force reference it must equal.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/frustum.h"
#include "core/quadtree.h"
#include "core/terrain_grid.h"

namespace qt {

struct CullStats {
    uint32_t nodesTested = 0;  // nodes whose box met at least one plane test
    uint32_t leavesDrawn = 0;
    uint32_t leavesCulled = 0;
    uint32_t subtreesAccepted = 0;  // inner nodes inside every plane, taken whole without tests
    uint64_t triangles = 0;         // triangles of the drawn leaves (real squares, not padding)
};

struct CullOptions {
    bool planeMasking = true;  // children skip the planes their parent is wholly inside
    bool acceptWhole = true;   // a node inside every plane takes its subtree untested
};

// Per-frame output; construct once per tree and reuse: cull() never allocates.
struct CullOutput {
    std::vector<LeafCoord> visible;  // tree order
    CullStats stats;
    // With recordDecisions: the nodes where the walk stopped, for the minimap. A culled node's
    // whole subtree is outside; an accepted node (leaf or whole subtree) is drawn.
    bool recordDecisions = false;
    std::vector<uint32_t> culledNodes;
    std::vector<uint32_t> acceptedNodes;

    // Sizes every buffer for the tree once, so that culling this tree never allocates.
    void reserveFor(const Quadtree& tree);
};

// The node box in world space: x/z from the sample box, y from the exact sample range.
inline Box nodeBox(const QuadtreeNode& node, const WorldMapping& mapping) {
    float y0 = mapping.worldHeight(node.minSample);
    float y1 = mapping.worldHeight(node.maxSample);
    if (y0 > y1) {
        std::swap(y0, y1);  // a negative height scale turns the range over
    }
    return {{float(node.x0) * mapping.spacing, y0, float(node.z0) * mapping.spacing},
            {float(node.x1) * mapping.spacing, y1, float(node.z1) * mapping.spacing}};
}

// The node box in sample space: columns, raw samples, rows (for Frustum::inSampleSpace planes).
inline Box sampleBox(const QuadtreeNode& node) {
    return {{float(node.x0), node.minSample, float(node.z0)},
            {float(node.x1), node.maxSample, float(node.z1)}};
}

// Walks the tree from the root; `out` must have been reserved for this tree.
void cullQuadtree(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                  CullOutput& out, const CullOptions& options = {});

// Tests every leaf's box against all six planes: the reference the walk must equal exactly.
// Both test sampleBox() against the frustum moved into sample space, with the same arithmetic.
void cullBruteForce(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                    CullOutput& out);

// Every leaf, as if nothing were culled (the --no-cull path); the decision is the root, whole.
void selectAll(const Quadtree& tree, CullOutput& out);

}  // namespace qt
