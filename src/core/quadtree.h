// The flat-array quadtree over the grid: 3D node boxes with the exact height range beneath them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/heightmap.h"
#include "core/result.h"

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

// One node. The root is node 0; every inner node's children sit side by side, in child order, as
// one group, and the groups follow a depth-first walk (a node's children, then each child's
// subtree in turn). The culling walk reads a node's four children together: one group is 128
// bytes, about two cache lines, instead of four scattered ones. Leaves are numbered in the same
// depth-first order ("tree order"), so a subtree's leaves are one contiguous run.
// 32 bytes; the first 16 (box and height range) are what the culling walk reads. A node's leaves
// are the ones its box covers (Quadtree::firstLeaf and leafCount find them).
struct QuadtreeNode {
    uint16_t x0, z0, x1, z1;  // sample box, inclusive: every sample of the node's cells
    uint16_t minCode;         // exact minimum of every sample's code in the box
    uint16_t maxCode;         // exact maximum of every sample's code in the box
    uint32_t parent;          // kNoNode for the root
    uint32_t child[4];        // NW, NE, SW, SE (row-major); kNoNode beyond the map or in leaves

    // An inner node always has its NW child (the node's origin lies inside the map); its present
    // children are consecutive nodes from child[0].
    bool isLeaf() const { return child[0] == kNoNode; }
    // Children present: bit q for child[q].
    unsigned childMask() const {
        return unsigned(child[0] != kNoNode) | unsigned(child[1] != kNoNode) << 1 |
               unsigned(child[2] != kNoNode) << 2 | unsigned(child[3] != kNoNode) << 3;
    }
    // Triangles of the grid squares in the box: two per square.
    uint64_t triangleCount() const { return 2ull * uint64_t(x1 - x0) * uint64_t(z1 - z0); }
};

static_assert(sizeof(QuadtreeNode) == 32, "box, range and links, no padding");

struct Quadtree {
    HeightCoding coding;  // the map's: node heights are codes
    int leafSize = 0;     // grid squares along a full leaf's side
    int leafShift = 0;    // log2(leafSize)
    int leavesX = 0;      // leaf columns: ceil((width - 1) / leafSize)
    int leavesZ = 0;      // leaf rows
    int depth = 0;        // levels below the root
    std::vector<QuadtreeNode> nodes;
    std::vector<LeafCoord> leaves;    // tree order (depth-first, NW NE SW SE)
    std::vector<uint32_t> leafNodes;  // tree-order leaf -> node index
    std::vector<uint32_t> leafGrid;   // row * leavesX + col -> tree-order leaf index

    const QuadtreeNode& root() const { return nodes.front(); }
    float minSample(const QuadtreeNode& node) const { return coding.sample(node.minCode); }
    float maxSample(const QuadtreeNode& node) const { return coding.sample(node.maxCode); }
    uint32_t leafIndexAt(int col, int row) const { return leafGrid[size_t(row) * leavesX + col]; }
    // Leaves in the node's subtree: they tile its box, partial border leaves included.
    uint32_t leafCount(const QuadtreeNode& node) const {
        const uint32_t cols = (uint32_t(node.x1 - node.x0) + uint32_t(leafSize) - 1) >> leafShift;
        const uint32_t rows = (uint32_t(node.z1 - node.z0) + uint32_t(leafSize) - 1) >> leafShift;
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
// not divide by leafSize. Fails only for a leaf size out of range.
Result<Quadtree> buildQuadtree(const Heightmap& map, int leafSize);

}  // namespace qt
