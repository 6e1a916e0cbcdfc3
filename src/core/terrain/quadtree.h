// The flat-array quadtree over the grid: 3D node boxes with the exact height range beneath them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "core/base/result.h"
#include "core/terrain/heightmap.h"

namespace qt {

constexpr uint32_t kNoNode = 0xFFFFFFFFu;

// A leaf by its cell coordinates: leaf (col, row) starts at sample (col * leafSize, row *
// leafSize).
struct LeafCoord {
    uint16_t col;
    uint16_t row;
};

// A run of consecutive tree-order leaves, [first, first + count): a subtree's leaves are one run.
struct LeafRange {
    uint32_t first;
    uint32_t count;
};

// Bits set in a 4-bit mask, from a table in a constant (no popcount instruction is assumed).
constexpr uint32_t bitCount4(unsigned mask) {
    return uint32_t(0x4332322132212110ull >> (4 * (mask & 0xFu))) & 0xFu;
}

// One node, 16 bytes: all the culling walk reads. Every inner node's present children sit side
// by side, in child order, as one group; the groups fill the array from its start in a
// depth-first walk (a node's children, then each child's subtree in turn), and the root, in no
// group, comes last. A group of four is one 64-byte cache line when the array starts on one and
// no partial group (at the map's right and bottom borders) came before it. Leaves are numbered in
// the same depth-first order ("tree order"), so a subtree's leaves are one contiguous run. A
// node's leaves are the ones its box covers (Quadtree::firstLeaf and leafCount find them). So in a
// whole subtree (no map border through it) every group sits at a fixed offset: a node's group of
// four, then each child's subtree in turn, (4^(h+1) - 4) / 3 nodes for h levels below the child.
// A node with four children, each with four leaves, owns 20 consecutive nodes: its children's
// group, then its 16 leaves in tree order. The walk fetches groups by these offsets.
struct QuadtreeNode {
    // The sample box [x0, x1()] x [z0, z1()], inclusive: every sample of the node's cells. Its far
    // side is held as the column and row of its last grid square (x1 - 1, z1 - 1), so that 16 bits
    // reach the last sample of a map kMaxSide (65537) samples wide.
    uint16_t x0, z0;
    uint16_t lastColumn, lastRow;
    uint16_t minCode;  // exact minimum of every sample's code in the box
    uint16_t maxCode;  // exact maximum of every sample's code in the box
    uint32_t links;    // first child << 4 | bit q for child q present (NW NE SW SE); 0: leaf

    int x1() const { return int(lastColumn) + 1; }
    int z1() const { return int(lastRow) + 1; }
    // Sets the far side to samples x1, z1 (each past x0, z0: a node holds a square at least).
    void setFarSide(int x1, int z1) {
        lastColumn = uint16_t(x1 - 1);
        lastRow = uint16_t(z1 - 1);
    }

    // An inner node always has its NW child (the node's origin lies inside the map).
    bool isLeaf() const { return (links & 0xFu) == 0; }
    unsigned childMask() const { return links & 0xFu; }
    bool hasChild(int q) const { return (links >> q & 1u) != 0; }
    uint32_t firstChild() const { return links >> 4; }
    // Child q's index, for a present child: the present ones before it come first in the group.
    uint32_t child(int q) const { return firstChild() + bitCount4(links & ((1u << q) - 1u)); }
    // Triangles of the grid squares in the box: two per square.
    uint64_t triangleCount() const { return 2ull * uint64_t(x1() - x0) * uint64_t(z1() - z0); }
};

static_assert(sizeof(QuadtreeNode) == 16, "box, range and links, no padding");

// Node indices fit the 28 bits of QuadtreeNode::links.
constexpr uint32_t kMaxNodes = 1u << 28;

// Allocates on 64-byte cache-line boundaries, so that the node groups line up with them.
template <typename T>
struct CacheLineAllocator {
    using value_type = T;
    static constexpr std::align_val_t kAlignment{64};
    CacheLineAllocator() = default;
    template <typename U>
    CacheLineAllocator(const CacheLineAllocator<U>&) {}
    T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
    void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
    template <typename U>
    bool operator==(const CacheLineAllocator<U>&) const {
        return true;
    }
    template <typename U>
    bool operator!=(const CacheLineAllocator<U>&) const {
        return false;
    }
};

using NodeArray = std::vector<QuadtreeNode, CacheLineAllocator<QuadtreeNode>>;

// A leaf's code range again, 4 bytes, in tree order: the walk tests the 16 leaves of a whole node
// two levels above them from these (their boxes follow from the node's), one cache line when the
// node's first leaf is a multiple of 16 (always in a whole tree), not four lines of leaf nodes.
using LeafCodes = CodeRange;

static_assert(sizeof(LeafCodes) == 4, "16 leaves to a cache line");

using LeafCodeArray = std::vector<LeafCodes, CacheLineAllocator<LeafCodes>>;

// Which bound Quadtree::coarseErrors holds (core/lod/lod_error.h). Each bounds the distance between
// every fold of a node's strip and the full-detail surface, so any keeps the drawn surface
// within the level of detail's pixels; the exact one lets more nodes stay coarse.
enum class LodErrors : uint8_t {
    Range,  // maxCode - minCode of each inner node: made with the tree, at no cost
    Exact,  // the largest distance over every fold and sample (computeCoarseErrors)
    Mixed,  // exact on levels 1..Quadtree::exactLevels, the range bound above (a streamed map)
};

// "range", "exact" or "mixed", for the HUD and --stats-json.
const char* lodErrorsName(LodErrors errors);

// A box of samples [x0, x1] x [z0, z1] (Quadtree::holeLeafSolid).
struct SolidBox {
    int32_t x0 = 0, z0 = 0, x1 = 0, z1 = 0;
};

// The squares of a leaf that have a nodata corner (Quadtree::holeLeafBox): their bounding sample
// box [x0, x1] x [z0, z1], and the least and greatest code of their corners, fills included.
struct HoleBox {
    int32_t x0 = 0, z0 = 0, x1 = 0, z1 = 0;
    uint16_t minCode = 0, maxCode = 0;
};

struct Quadtree {
    HeightCoding coding;              // the map's: node heights are codes
    int leafSize = 0;                 // grid squares along a full leaf's side
    int leafShift = 0;                // log2(leafSize)
    int leavesX = 0;                  // leaf columns: ceil((width - 1) / leafSize)
    int leavesZ = 0;                  // leaf rows
    int depth = 0;                    // levels below the root
    NodeArray nodes;                  // sibling groups, then the root
    std::vector<LeafCoord> leaves;    // tree order (depth-first, NW NE SW SE)
    std::vector<uint32_t> leafNodes;  // tree-order leaf -> node index
    LeafCodeArray leafCodes;          // tree-order leaf -> its node's code range
    std::vector<uint32_t> leafGrid;   // row * leavesX + col -> tree-order leaf index
    // Inner nodes (levels 1..depth) by level, for level of detail: level L's nodes are a
    // row-major grid levelWidth[L] = ceil(leavesX / 2^L) wide from levelStart[L]. depth + 2
    // entries each, level 0's unused; levelStart[depth + 1] is the number of inner nodes.
    std::vector<uint32_t> levelStart;
    std::vector<uint32_t> levelWidth;
    // Per inner node, by levelIndex: its index in `nodes`. With leafNodes it finds any node from
    // its level and a leaf it holds (nodeAt), so a node's parent too: 4 bytes an inner node, a
    // quarter of the nodes, where a parent link per node would take 4 bytes a node.
    std::vector<uint32_t> levelNodes;
    // Per inner node, by levelIndex: a bound on its coarse-surface error in height codes
    // (core/lod/lod_error.h), of the kind lodErrors says. 2 bytes per inner node (as foldErrors):
    // about 0.04 bytes a sample at leaves of 4.
    std::vector<uint16_t> coarseErrors;
    // Per inner node, by levelIndex, where its error is exact (computeCoarseErrors, a streamed
    // map's exact levels): the error of the triangles its strip draws only where an edge folds
    // onto a coarser neighbour (or morphs toward its parent's grid, as it does beside a morphing
    // neighbour), which coarseErrors then leaves out. A fold happens where the level-up node
    // beside the edge does not split, so these are charged to the level-up nodes touching the node
    // (LodReach), not to the node itself. 0 where coarseErrors is the range bound, which holds the
    // node's folds itself. Same size as coarseErrors.
    std::vector<uint16_t> foldErrors;
    // Per leaf (row * leavesX + col), with the exact errors (computeCoarseErrors, the background
    // job, a streamed map's exact levels): the error of the triangles a leaf's strip draws
    // only where an edge folds, charged to the level-1 nodes beside it (LodReach). Empty
    // otherwise: level 1 then splits by its grid step (core/lod/lod.h). 2 bytes a leaf, about
    // 0.13 bytes a sample at leaves of 4.
    std::vector<uint16_t> leafFoldErrors;
    LodErrors lodErrors = LodErrors::Range;
    int exactLevels = 0;  // levels 1..exactLevels hold exact errors: depth with Exact, 0 with Range
    // Holes (Heightmap::nodata): entry i counts the tree-order leaves before leaf i that hold a
    // square with a nodata corner, leaves + 1 entries, so that a leaf's or a subtree's (one run of
    // leaves) holes are a difference. Empty when the map shows no holes.
    std::vector<uint32_t> holeLeavesBefore;
    // Per leaf with a hole, in the order holeLeavesBefore counts them: its largest rectangle of
    // squares without a nodata corner, as a sample box (x0 == x1 when every square has one). The
    // occlusion stage lets a leaf with a hole occlude with it.
    std::vector<SolidBox> holeLeafSolid;
    // Per leaf with a hole, in the same order: the box of its squares with a nodata corner. A ray
    // that passes below the drawn surface through holes lies, somewhere on the way, inside the box
    // of one such square (occlusion.cpp's argument 7), so inside its leaf's hole box.
    std::vector<HoleBox> holeLeafBox;
    // Like holeLeavesBefore, the leaves before leaf i none of whose squares is drawn (every one
    // has a nodata corner): nothing over them is ever drawn. Empty when the map shows no holes.
    std::vector<uint32_t> emptyLeavesBefore;

    uint32_t rootIndex() const { return uint32_t(nodes.size() - 1); }
    const QuadtreeNode& root() const { return nodes.back(); }
    float minSample(const QuadtreeNode& node) const { return coding.sample(node.minCode); }
    float maxSample(const QuadtreeNode& node) const { return coding.sample(node.maxCode); }
    bool hasHoles() const { return !holeLeavesBefore.empty(); }
    // Whether the run of `count` tree-order leaves from `first` holds a hole (false without holes).
    bool holesIn(uint32_t first, uint32_t count) const {
        return hasHoles() && holeLeavesBefore[first + count] != holeLeavesBefore[first];
    }
    // Whether every leaf of the run draws nothing (false without holes).
    bool emptyIn(uint32_t first, uint32_t count) const {
        return hasHoles() && emptyLeavesBefore[first + count] - emptyLeavesBefore[first] == count;
    }
    uint32_t leafIndexAt(int col, int row) const { return leafGrid[size_t(row) * leavesX + col]; }
    // The inner node at `level` (1..depth) holding leaf (col, row), in the level grids.
    uint32_t levelIndex(int level, int col, int row) const {
        return levelStart[size_t(level)] + uint32_t(row >> level) * levelWidth[size_t(level)] +
               uint32_t(col >> level);
    }
    // The index in `nodes` of the node at `level` (0, a leaf, to depth, the root) holding leaf
    // (col, row); its parent is the one at level + 1.
    uint32_t nodeAt(int level, int col, int row) const {
        return level == 0 ? leafNodes[size_t(leafIndexAt(col, row))]
                          : levelNodes[levelIndex(level, col, row)];
    }
    // Leaves in the node's subtree: they tile its box, partial border leaves included.
    uint32_t leafCount(const QuadtreeNode& node) const {
        const uint32_t cols = (uint32_t(node.x1() - node.x0) + uint32_t(leafSize) - 1) >> leafShift;
        const uint32_t rows = (uint32_t(node.z1() - node.z0) + uint32_t(leafSize) - 1) >> leafShift;
        return cols * rows;
    }
    // Tree-order index of the subtree's first leaf: its north-west one, as the depth-first order
    // visits NW first; the subtree's leaves are [firstLeaf, firstLeaf + leafCount) of `leaves`.
    uint32_t firstLeaf(const QuadtreeNode& node) const {
        return leafIndexAt(node.x0 >> leafShift, node.z0 >> leafShift);
    }
};

// True for 2, 4, ... kMaxLeafSize.
bool isValidLeafSize(int leafSize);

// Builds the tree; leaves on the right and bottom border are partial where the map's squares do
// not divide by leafSize. The coarse errors are the range bound (LodErrors::Range); the exact ones,
// many times the rest of the build, are level of detail's (buildQuadtreeExact,
// core/lod/lod_error.h). Fails only for a leaf size out of range.
Result<Quadtree> buildQuadtree(const Heightmap& map, int leafSize);

// The first half of buildQuadtree: everything that depends only on the map's size and the leaf
// size (node boxes, links, leaf order, leaf grid, level grids and their nodes), so that a loader
// can build it while it reads the samples. Codes, ranges and coarse errors are left zero for
// fillQuadtreeBounds. Fails for a leaf size out of range or more than kMaxNodes nodes.
Result<Quadtree> buildQuadtreeStructure(int width, int height, int leafSize);

// Its level grids alone (leafSize, leafShift, leavesX, leavesZ, depth, levelStart, levelWidth):
// what levelIndex and a scan of a block of nodes read (exactErrorsOfBlock), without the nodes'
// arrays (a bake's job holds its regions' entries, not the tree). Fails as it does.
Result<Quadtree> buildQuadtreeLevelGrids(int width, int height, int leafSize);

// The second half: the map's coding, each node's exact code range and the range bound as the
// coarse errors (LodErrors::Range), into a structure built for the map's size. `leafRanges`, when
// given, holds each leaf's code range by row * leavesX + col (as leafCodeRanges computes them, or
// encodeSamples while quantising) and replaces the pass over the codes that finds them.
void fillQuadtreeBounds(Quadtree& tree, const Heightmap& map,
                        const std::vector<CodeRange>* leafRanges = nullptr);

// The range bound fillQuadtreeBounds gives every inner node (its leaves' highest code less their
// lowest), by levelIndex, from the leaves' ranges (by row * leavesX + col) and the level grids
// alone (buildQuadtreeLevelGrids): each level's ranges merged from 2 x 2 blocks of the level's
// below, a level at a time, so that a bake writes a tree without the tree's nodes.
std::vector<uint16_t> rangeBoundErrors(const Quadtree& grids, const std::vector<CodeRange>& leaves);

// Counts the leaves with a hole (Quadtree::holeLeavesBefore) from the map's nodata mask, with
// their solid rectangles and hole boxes (from the map's codes); clears them when the map shows
// none. fillQuadtreeBounds calls it.
void markLeafHoles(Quadtree& tree, const Heightmap& map);

// Nodes of the tree of a width x height map in leaves of leafSize squares (what
// buildQuadtreeStructure allocates), without building it.
uint64_t quadtreeNodeCount(int width, int height, int leafSize);

}  // namespace qt
