// Each inner node's coarse-surface error: the largest vertical distance, in height codes, between
// the surface its strip draws at its stride (edges folded or not) and the samples under it.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/base/result.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"

namespace qt {

// One triangle of a node's strip in the node's local vertex grid (i, j in 0..leafSize), after
// the vertex shader's edge folds.
struct LocalTriangle {
    uint8_t i[3];
    uint8_t j[3];
};

// Every triangle with area that a node's strip can draw, whichever of its edges are folded (all
// 16 edge masks), each once: the drawn surface, in any fold, is a union of some of them. The
// first 2 leafSize^2 are the unfolded strip's; the rest are drawn only where an edge folds.
std::vector<LocalTriangle> foldedStripTriangles(int leafSize);

// The codes of a map, or of a window of it, by pointer: what the error scan reads, so that a
// background scan does not depend on where the Heightmap object lives (only its codes' storage
// must stay), and a bake reads one region of the map at a time. `codes` holds sample (originX,
// originZ) first, rows `pitch` apart; a scan reads only the samples of the nodes it is given.
struct CodeGrid {
    const uint16_t* codes = nullptr;
    int width = 0;  // the map's size, whose last row and column clamp the nodes
    int height = 0;
    int originX = 0;
    int originZ = 0;
    size_t pitch = 0;

    uint16_t codeAt(int col, int row) const {
        return codes[size_t(row - originZ) * pitch + size_t(col - originX)];
    }
};

inline CodeGrid codeGrid(const Heightmap& map) {
    return {map.codes.data(), map.width, map.height, 0, 0, size_t(map.width)};
}

// A block of one level's grid of nodes (or of leaves): columns [firstCol, lastCol), rows
// [firstRow, lastRow).
struct NodeBlock {
    int firstCol = 0;
    int lastCol = 0;
    int firstRow = 0;
    int lastRow = 0;
};

// The exact errors by Quadtree::levelIndex, reading the tree's level grids (levelStart,
// levelWidth, depth, leafSize, leavesZ) and nothing else of it. Without `folds`, each node's
// error over every triangle of foldedStripTriangles (its own folds included); with `folds`, the
// unfolded strip's error alone, and into *folds the error of the triangles only folds draw
// (computeCoarseErrors). Rows of nodes are shared out between load threads. Returns an empty
// vector (and empties *folds) when `cancel` is set before the scan ends (checked once per row of
// nodes).
std::vector<uint16_t> exactCoarseErrors(const CodeGrid& map, const Quadtree& tree,
                                        const std::atomic<bool>* cancel = nullptr,
                                        std::vector<uint16_t>* folds = nullptr);

// exactCoarseErrors of the nodes of one level (1..depth), folds apart into `folds` when given
// (else included), in rows [firstNodeRow, lastNodeRow) of
// that level's grid, written into `errors` (by Quadtree::levelIndex, sized for the whole tree).
// They read only sample rows firstNodeRow * (leafSize << level) to lastNodeRow * (leafSize <<
// level), clamped to the map: a streamed map computes them band by band. Rows of nodes are
// shared out between load threads; `cancel` is checked once per row of nodes.
void exactCoarseErrorsOfRows(const CodeGrid& map, const Quadtree& tree, int level, int firstNodeRow,
                             int lastNodeRow, uint16_t* errors,
                             const std::atomic<bool>* cancel = nullptr, uint16_t* folds = nullptr);

// Each leaf's fold error (Quadtree::leafFoldErrors): the largest vertical distance, in whole
// codes rounded up, between the triangles its strip draws only where an edge folds (any of the 16
// masks) and the full-detail surface, by leaf (row * leavesX + col). The leaves' unfolded strips
// are the full-detail surface itself. Empty when `cancel` is set before the scan ends.
std::vector<uint16_t> exactLeafFoldErrors(const CodeGrid& map, const Quadtree& tree,
                                          const std::atomic<bool>* cancel = nullptr);

// exactLeafFoldErrors of the leaves in rows [firstLeafRow, lastLeafRow), written into `folds`
// (by leaf, sized for the whole map). They read only the sample rows of those leaves: a streamed
// map computes them band by band.
void exactLeafFoldErrorsOfRows(const CodeGrid& map, const Quadtree& tree, int firstLeafRow,
                               int lastLeafRow, uint16_t* folds,
                               const std::atomic<bool>* cancel = nullptr);

// exactCoarseErrorsOfRows (level 1..depth) and exactLeafFoldErrorsOfRows (level 0, into `folds`
// by leaf; `errors` unused) for a block of the level's grid, on the calling thread (a bake runs
// its regions side by side): they read only the samples of those nodes, so `map` may be a window
// holding them (a bake's region). With `blockLocal`, `errors` and `folds` hold the block's nodes
// alone, row after row of the block (a bake's job keeps no array of the whole tree).
void exactErrorsOfBlock(const CodeGrid& map, const Quadtree& tree, int level,
                        const NodeBlock& block, uint16_t* errors, uint16_t* folds,
                        bool blockLocal = false);

// Sets tree.coarseErrors, tree.foldErrors and tree.leafFoldErrors to exactCoarseErrors with folds
// apart and exactLeafFoldErrors, tree.lodErrors to LodErrors::Exact and tree.exactLevels to its
// depth. An error is, for one node and a set of triangles (the unfolded strip's, or those only
// folds draw) at the node's stride, vertices clamped to the map as the shader places them, the
// largest |h(sample) - surface(sample)| over the samples each covers, rounded up to whole codes
// (saturated at 65535). Where a triangle's edge crosses the full-detail triangles between samples
// (folded and clamped triangles), the samples on both sides of the edge count too, so the value
// bounds the distance at every point of the surface, not only at samples. The tree's level grids
// (levelStart, levelWidth) must be set.
void computeCoarseErrors(const Heightmap& map, Quadtree& tree);

// buildQuadtree, then computeCoarseErrors: the tree with every inner node's exact error
// (LodErrors::Exact). Fails only for a leaf size out of range.
Result<Quadtree> buildQuadtreeExact(const Heightmap& map, int leafSize);

}  // namespace qt
