// The reference for level of detail's limit (tests and benches, not the viewer): a brute-force
// selection from the live one's family of nodes that measures each node's on-screen deviation.
#pragma once

#include <cstdint>
#include <vector>

#include "core/lod/lod_error.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "core/view/frustum.h"

namespace qt {

// What a node's deviation is measured against: the camera's projection into a viewport
// `viewportHeight` pixels high (and camera.aspect times as wide).
struct LodScreen {
    const Heightmap& map;
    const Quadtree& tree;
    const WorldMapping& mapping;
    const Camera& camera;
    int viewportHeight = 0;
};

// The node at `level` holding leaf (col, row)'s measured deviation, in pixels: over every sample
// under the node's box (edges included) and each triangle of its unfolded strip at its stride
// (vertices clamped to the map as the shader places them) that covers the sample, the largest
// on-screen distance between the sample's full-detail point and the point of the strip above or
// below it, where both are in front of the eye and within the viewport. 0 for leaves (level 0).
// Stops as soon as it finds more than `stopAbove` (returning that larger distance).
float lodNodeDeviation(const LodScreen& screen, int level, int col, int row,
                       float stopAbove = 1e30f);

// The reference selection for one camera. It computes:
//  1. greedily from the root, skipping nodes outside `frustum` (world space, as selectLod takes it;
//     null: none): a node is drawn whole when it is a leaf or its measured deviation
//     (lodNodeDeviation) is at most `pixels`, else its children are visited the same way;
//  2. then, while a drawn node at level L has a drawn neighbour (sharing an edge) below L - 1,
//     that node is replaced by its children, each visited as in 1.
// So every drawn node stands within `pixels` of full detail over its samples (its edges
// unfolded: the folds a coarser neighbour causes are the live selection's charge, not counted
// here), drawn neighbours differ by one level at most, and a node is split only for its own
// deviation or for that neighbour rule: the coarsest such choice that greedy splitting finds.
struct LodReference {
    std::vector<int8_t> levelAt;  // per leaf (row * leavesX + col): drawn level; -1: not drawn
    uint64_t triangles = 0;       // as LodStats::triangles counts them
    uint32_t nodesDrawn = 0;
    uint32_t neighbourSplits = 0;  // nodes split by step 2
};

void selectLodReference(const LodScreen& screen, float pixels, const Frustum* frustum,
                        LodReference& out);

}  // namespace qt
