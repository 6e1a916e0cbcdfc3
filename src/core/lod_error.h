// Each inner node's coarse-surface error: the largest vertical distance, in height codes, between
// the surface its strip draws at its stride (edges folded or not) and the samples under it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/heightmap.h"

namespace qt {

struct Quadtree;

// One triangle of a node's strip in the node's local vertex grid (i, j in 0..leafSize), after
// the vertex shader's edge folds.
struct LocalTriangle {
    uint8_t i[3];
    uint8_t j[3];
};

// Every triangle with area that a node's strip can draw, whichever of its edges are folded (all
// 16 edge masks), each once: the drawn surface, in any fold, is a union of some of them.
std::vector<LocalTriangle> foldedStripTriangles(int leafSize);

// Fills tree.coarseErrors: for each inner node, the largest |h(sample) - surface(sample)| over
// every triangle of foldedStripTriangles at the node's stride, vertices clamped to the map
// as the shader places them, and the samples each covers, rounded up to whole codes (saturated
// at 65535). Where a triangle's edge crosses the full-detail triangles between samples (folded
// and clamped triangles), the samples on both sides of the edge count too, so the value bounds
// the distance at every point of the surface, not only at samples. The tree's level grids
// (levelStart, levelWidth) must be set.
void computeCoarseErrors(const Heightmap& map, Quadtree& tree);

}  // namespace qt
