// Builds the flat node array (sibling groups in depth-first order, then the root), the leaf order
// and the exact per-node sample ranges.
#include "core/terrain/quadtree.h"

#include <algorithm>
#include <cassert>
#include <initializer_list>

#include "core/base/huge_pages.h"
#include "core/config.h"
#include "core/terrain/leaf_ranges.h"

namespace qt {
namespace {

// Writes the nodes and leaves at its cursors into arrays already sized for the whole tree (no
// capacity check per node or leaf).
struct Builder {
    Quadtree& tree;
    int width = 0;          // the map's samples along x
    int height = 0;         // and along z
    uint32_t nextNode = 0;  // where the next sibling group goes
    uint32_t nextLeaf = 0;  // the next leaf's tree-order number

    // Sets node `index` to cover leaves [lx, lx + size) x [lz, lz + size), clipped to the map,
    // its box set and the rest zero, written in place (no temporary copied in).
    void setNode(uint32_t index, int lx, int lz, int size) {
        QuadtreeNode& node = tree.nodes[index];
        node.x0 = uint16_t(lx * tree.leafSize);
        node.z0 = uint16_t(lz * tree.leafSize);
        node.setFarSide(std::min((lx + size) * tree.leafSize, width - 1),
                        std::min((lz + size) * tree.leafSize, height - 1));
        node.minCode = 0;
        node.maxCode = 0;
        node.links = 0;
    }

    // A leaf: its tree-order number and its coordinates.
    void completeLeaf(uint32_t index, int lx, int lz) {
        const uint32_t leaf = nextLeaf++;
        tree.leafGrid[size_t(lz) * size_t(tree.leavesX) + size_t(lx)] = leaf;
        LeafCoord& coord = tree.leaves[leaf];
        coord.col = uint16_t(lx);
        coord.row = uint16_t(lz);
        tree.leafNodes[leaf] = index;
    }

    // Gives inner node `self` (leaves [lx, lx + 2 half) squared) its children as one group at
    // the cursor.
    void appendChildren(QuadtreeNode& self, int lx, int lz, int half) {
        const uint32_t first = nextNode;
        unsigned present = 0;
        for (int q = 0; q < 4; ++q) {
            const int cx = lx + (q & 1) * half;
            const int cz = lz + (q >> 1) * half;
            if (cx < tree.leavesX && cz < tree.leavesZ) {
                present |= 1u << q;
                setNode(nextNode++, cx, cz, half);
            }
        }
        assert(present & 1u);
        self.links = first << 4 | present;
    }

    // Completes child q of `self`, whose children are `half` leaves wide.
    void completeChild(const QuadtreeNode& self, int q, int lx, int lz, int half) {
        const uint32_t c = self.child(q);
        QuadtreeNode& child = tree.nodes[c];
        if (half == 1) {  // the leaves under a level 1 node, without a call each
            completeLeaf(c, lx + (q & 1), lz + (q >> 1));
        } else {
            complete(child, c, lx + (q & 1) * half, lz + (q >> 1) * half, half);
        }
    }

    // Completes node `self` (index `index`, its box already set): a leaf gets its leaf number;
    // an inner node its place in the level grids, then its children as one group at the cursor,
    // then their subtrees in order.
    void complete(QuadtreeNode& self, uint32_t index, int lx, int lz, int size) {
        if (size == 1) {
            completeLeaf(index, lx, lz);
            return;
        }
        tree.levelNodes[tree.levelIndex(__builtin_ctz(unsigned(size)), lx, lz)] = index;
        const int half = size / 2;
        appendChildren(self, lx, lz, half);
        for (int q = 0; q < 4; ++q) {
            if (self.hasChild(q)) {
                completeChild(self, q, lx, lz, half);
            }
        }
    }
};

// Nodes of a complete quadtree over a side x side square of leaves, clipped to leavesX x leavesZ.
size_t countNodes(int lx, int lz, int size, int leavesX, int leavesZ) {
    if (lx >= leavesX || lz >= leavesZ) {
        return 0;
    }
    if (lx + size <= leavesX && lz + size <= leavesZ) {  // whole: (4 size^2 - 1) / 3 nodes
        return (4 * size_t(size) * size_t(size) - 1) / 3;
    }
    const int half = size / 2;
    return 1 + countNodes(lx, lz, half, leavesX, leavesZ) +
           countNodes(lx + half, lz, half, leavesX, leavesZ) +
           countNodes(lx, lz + half, half, leavesX, leavesZ) +
           countNodes(lx + half, lz + half, half, leavesX, leavesZ);
}

}  // namespace

bool isValidLeafSize(int leafSize) {
    return leafSize >= kMinLeafSize && leafSize <= kMaxLeafSize && (leafSize & (leafSize - 1)) == 0;
}

const char* lodErrorsName(LodErrors errors) {
    switch (errors) {
        case LodErrors::Range:
            return "range";
        case LodErrors::Exact:
            return "exact";
        case LodErrors::Mixed:
            return "mixed";
    }
    return "range";
}

uint64_t quadtreeNodeCount(int width, int height, int leafSize) {
    assert(isValidLeafSize(leafSize) && width >= 2 && height >= 2);
    const int leavesX = leavesAlong(width, leafSize);
    const int leavesZ = leavesAlong(height, leafSize);
    int rootSize = 1;
    while (rootSize < std::max(leavesX, leavesZ)) {
        rootSize *= 2;
    }
    return countNodes(0, 0, rootSize, leavesX, leavesZ);
}

Result<Quadtree> buildQuadtreeLevelGrids(int width, int height, int leafSize) {
    if (!isValidLeafSize(leafSize)) {
        return Result<Quadtree>::failure(
            "leaf size " + std::to_string(leafSize) + " is not a power of two from " +
            std::to_string(kMinLeafSize) + " to " + std::to_string(kMaxLeafSize));
    }
    assert(width >= 2 && height >= 2);
    Quadtree tree;
    tree.leafSize = leafSize;
    tree.leafShift = __builtin_ctz(unsigned(leafSize));
    tree.leavesX = (width - 2) / leafSize + 1;
    tree.leavesZ = (height - 2) / leafSize + 1;
    int rootSize = 1;
    while (rootSize < std::max(tree.leavesX, tree.leavesZ)) {
        rootSize *= 2;
        ++tree.depth;
    }
    if (tree.depth > kMaxTreeDepth) {  // a bake's long and narrow map in small leaves
        return Result<Quadtree>::failure("the map's quadtree would be " +
                                         std::to_string(tree.depth) +
                                         " levels deep, over the deepest (" +
                                         std::to_string(kMaxTreeDepth) + "); give larger leaves");
    }
    const size_t nodeCount = countNodes(0, 0, rootSize, tree.leavesX, tree.leavesZ);
    if (nodeCount > kMaxNodes) {  // a 32769-class map in leaves of 2 (358 million nodes)
        return Result<Quadtree>::failure("the map needs " + std::to_string(nodeCount) +
                                         " quadtree nodes, more than " + std::to_string(kMaxNodes));
    }
    tree.levelStart.assign(size_t(tree.depth) + 2, 0);
    tree.levelWidth.assign(size_t(tree.depth) + 2, 0);
    for (int level = 1; level <= tree.depth + 1; ++level) {
        const uint32_t below = tree.levelStart[size_t(level - 1)] +
                               (level > 1 ? tree.levelWidth[size_t(level - 1)] *
                                                uint32_t(((tree.leavesZ - 1) >> (level - 1)) + 1)
                                          : 0);
        tree.levelStart[size_t(level)] = below;
        tree.levelWidth[size_t(level)] = uint32_t(((tree.leavesX - 1) >> level) + 1);
    }
    assert(tree.levelStart.back() + size_t(tree.leavesX) * size_t(tree.leavesZ) == nodeCount);
    return tree;
}

Result<Quadtree> buildQuadtreeStructure(int width, int height, int leafSize) {
    Result<Quadtree> grids = buildQuadtreeLevelGrids(width, height, leafSize);
    if (!grids) {
        return grids;
    }
    Quadtree tree = std::move(grids).value();
    const int rootSize = 1 << tree.depth;
    const size_t leafCount = size_t(tree.leavesX) * size_t(tree.leavesZ);
    const size_t nodeCount = size_t(tree.levelStart.back()) + leafCount;
    // Each array under 2 MB pages, a fault every 2 MB rather than every 4 KB: a 65537² map's
    // tree in leaves of 16 is 770 MB, and on a virtual machine a fault costs more than zeroing
    // its page (docs/design/streaming.md, the first frame's work).
    resizeHuge(tree.nodes, nodeCount);
    resizeHuge(tree.levelNodes, tree.levelStart.back());
    resizeHuge(tree.leaves, leafCount);
    resizeHuge(tree.leafNodes, leafCount);
    resizeHuge(tree.leafCodes, leafCount);
    resizeHuge(tree.leafGrid, leafCount);
    resizeHuge(tree.coarseErrors, tree.levelStart.back());
    resizeHuge(tree.foldErrors, tree.levelStart.back());
    tree.leafFoldErrors.clear();
    tree.lodErrors = LodErrors::Range;
    tree.exactLevels = 0;
    // The root goes last: its index is known, and the groups start at the array's start.
    const uint32_t rootIndex = uint32_t(nodeCount - 1);
    QuadtreeNode& root = tree.nodes[rootIndex];
    root.setFarSide(std::min(rootSize * leafSize, width - 1),
                    std::min(rootSize * leafSize, height - 1));
    Builder builder{tree, width, height};
    builder.complete(root, rootIndex, 0, 0, rootSize);
    assert(builder.nextNode == rootIndex && builder.nextLeaf == leafCount);
    assert(tree.nodes.size() == nodeCount && tree.nodes.capacity() == nodeCount);
    assert(tree.leaves.size() == leafCount && tree.leafCodes.size() == leafCount);
    return tree;
}

void fillQuadtreeBounds(Quadtree& tree, const Heightmap& map,
                        const std::vector<CodeRange>* leafRanges) {
    assert(tree.leavesX == (map.width - 2) / tree.leafSize + 1);
    assert(tree.leavesZ == (map.height - 2) / tree.leafSize + 1);
    tree.coding = map.coding;
    std::vector<CodeRange> computed;
    if (leafRanges == nullptr) {
        computed = leafCodeRanges(map, tree.leafSize);
        leafRanges = &computed;
    }
    assert(leafRanges->size() == tree.leaves.size());
    const CodeRange* ranges = leafRanges->data();
    for (size_t leaf = 0; leaf < tree.leaves.size(); ++leaf) {
        const LeafCoord coord = tree.leaves[leaf];
        const CodeRange range = ranges[size_t(coord.row) * size_t(tree.leavesX) + coord.col];
        tree.leafCodes[leaf] = range;
        QuadtreeNode& node = tree.nodes[tree.leafNodes[leaf]];
        node.minCode = range.minCode;
        node.maxCode = range.maxCode;
    }
    // A node's children's group lies after the node in the array (the root's, at the start,
    // excepted), so from the end down every inner node meets its children complete.
    auto finish = [&](uint32_t index) {
        QuadtreeNode& node = tree.nodes[index];
        if (node.isLeaf()) {
            return;
        }
        const uint32_t first = node.firstChild();
        const uint32_t count = bitCount4(node.childMask());
        uint16_t lo = 0xFFFF;
        uint16_t hi = 0;
        for (uint32_t c = first; c < first + count; ++c) {
            lo = std::min(lo, tree.nodes[c].minCode);
            hi = std::max(hi, tree.nodes[c].maxCode);
        }
        node.minCode = lo;
        node.maxCode = hi;
        // The level: steps down the always-present NW children to a leaf.
        int level = 1;
        for (uint32_t c = first; !tree.nodes[c].isLeaf(); c = tree.nodes[c].firstChild()) {
            ++level;
        }
        // The range bound: the strip's vertices and the samples under it all lie in [lo, hi].
        tree.coarseErrors[tree.levelIndex(level, node.x0 >> tree.leafShift,
                                          node.z0 >> tree.leafShift)] = uint16_t(hi - lo);
    };
    const uint32_t rootIndex = tree.rootIndex();
    for (uint32_t index = rootIndex; index-- > 0;) {
        finish(index);
    }
    finish(rootIndex);
    // The range bound holds each node's folds too: nothing to charge to its neighbours.
    tree.foldErrors.assign(tree.coarseErrors.size(), 0);
    tree.leafFoldErrors.clear();
    tree.lodErrors = LodErrors::Range;
    tree.exactLevels = 0;
    markLeafHoles(tree, map);
}

std::vector<uint16_t> rangeBoundErrors(const Quadtree& grids,
                                       const std::vector<CodeRange>& leaves) {
    assert(leaves.size() == size_t(grids.leavesX) * size_t(grids.leavesZ));
    std::vector<uint16_t> errors(grids.levelStart.back(), 0);
    std::vector<CodeRange> below;  // level - 1's ranges (the leaves' for level 1)
    std::vector<CodeRange> level;
    int belowColumns = grids.leavesX;
    int belowRows = grids.leavesZ;
    for (int l = 1; l <= grids.depth; ++l) {
        const CodeRange* from = l == 1 ? leaves.data() : below.data();
        const int columns = int(grids.levelWidth[size_t(l)]);
        const int rows = ((grids.leavesZ - 1) >> l) + 1;
        level.assign(size_t(columns) * size_t(rows), CodeRange{});
        for (int row = 0; row < rows; ++row) {
            for (int col = 0; col < columns; ++col) {
                uint16_t lo = 0xFFFF;
                uint16_t hi = 0;
                for (int z = 2 * row; z < std::min(2 * row + 2, belowRows); ++z) {
                    for (int x = 2 * col; x < std::min(2 * col + 2, belowColumns); ++x) {
                        const CodeRange& r = from[size_t(z) * size_t(belowColumns) + size_t(x)];
                        lo = std::min(lo, r.minCode);
                        hi = std::max(hi, r.maxCode);
                    }
                }
                const size_t at = size_t(row) * size_t(columns) + size_t(col);
                level[at] = CodeRange{lo, hi};
                errors[grids.levelStart[size_t(l)] + at] = uint16_t(hi - lo);
            }
        }
        below.swap(level);
        belowColumns = columns;
        belowRows = rows;
    }
    return errors;
}

namespace {

// The largest rectangle of squares without a nodata corner in the leaf's box: the largest
// rectangle under a histogram of solid runs, row by row, with a stack of rising heights.
SolidBox largestSolidRectangle(const NodataMask& nodata, const QuadtreeNode& node,
                               std::vector<int>& runs, std::vector<int>& stack) {
    const int cols = node.x1() - node.x0;
    runs.assign(size_t(cols) + 1, 0);  // the last stays 0: it empties the stack
    SolidBox best;
    int bestArea = 0;
    for (int row = node.z0; row < node.z1(); ++row) {
        for (int c = 0; c < cols; ++c) {
            runs[size_t(c)] = nodata.holeSquare(node.x0 + c, row) ? 0 : runs[size_t(c)] + 1;
        }
        stack.clear();
        for (int c = 0; c <= cols; ++c) {
            while (!stack.empty() && runs[size_t(stack.back())] >= runs[size_t(c)]) {
                const int height = runs[size_t(stack.back())];
                stack.pop_back();
                const int left = stack.empty() ? 0 : stack.back() + 1;
                if (height * (c - left) > bestArea) {
                    bestArea = height * (c - left);
                    best = {node.x0 + left, row + 1 - height, node.x0 + c, row + 1};
                }
            }
            stack.push_back(c);
        }
    }
    return best;
}

// The box of the leaf's squares with a nodata corner and the codes of their corners (the leaf's
// code range where the map holds no codes).
HoleBox holeBox(const Heightmap& map, const QuadtreeNode& node) {
    const bool codes = map.codes.size() >= size_t(map.sampleCount());
    HoleBox box{node.x1(),
                node.z1(),
                node.x0,
                node.z0,
                codes ? uint16_t(0xFFFF) : node.minCode,
                codes ? uint16_t(0) : node.maxCode};
    for (int row = node.z0; row < node.z1(); ++row) {
        for (int col = node.x0; col < node.x1(); ++col) {
            if (!map.nodata.holeSquare(col, row)) {
                continue;
            }
            box.x0 = std::min(box.x0, col);
            box.z0 = std::min(box.z0, row);
            box.x1 = std::max(box.x1, col + 1);
            box.z1 = std::max(box.z1, row + 1);
            if (!codes) {
                continue;
            }
            for (const uint16_t code : {map.codeAt(col, row), map.codeAt(col + 1, row),
                                        map.codeAt(col, row + 1), map.codeAt(col + 1, row + 1)}) {
                box.minCode = std::min(box.minCode, code);
                box.maxCode = std::max(box.maxCode, code);
            }
        }
    }
    return box;
}

}  // namespace

void markLeafHoles(Quadtree& tree, const Heightmap& map) {
    const NodataMask& nodata = map.nodata;
    tree.holeLeavesBefore.clear();
    tree.holeLeafSolid.clear();
    tree.holeLeafBox.clear();
    tree.emptyLeavesBefore.clear();
    if (!nodata.holes()) {
        tree.holeLeavesBefore.shrink_to_fit();
        tree.holeLeafSolid.shrink_to_fit();
        tree.holeLeafBox.shrink_to_fit();
        tree.emptyLeavesBefore.shrink_to_fit();
        return;
    }
    tree.holeLeavesBefore.resize(tree.leaves.size() + 1);
    tree.emptyLeavesBefore.resize(tree.leaves.size() + 1);
    uint32_t count = 0;
    uint32_t empty = 0;
    std::vector<int> runs, stack;
    for (size_t leaf = 0; leaf < tree.leaves.size(); ++leaf) {
        tree.holeLeavesBefore[leaf] = count;
        tree.emptyLeavesBefore[leaf] = empty;
        const QuadtreeNode& node = tree.nodes[tree.leafNodes[leaf]];
        if (boxHasNodata(nodata, node.x0, node.z0, node.x1(), node.z1())) {
            const SolidBox solid = largestSolidRectangle(nodata, node, runs, stack);
            tree.holeLeafSolid.push_back(solid);
            tree.holeLeafBox.push_back(holeBox(map, node));
            empty += solid.x0 == solid.x1 ? 1 : 0;  // no rectangle: no square drawn
            ++count;
        }
    }
    tree.holeLeavesBefore.back() = count;
    tree.emptyLeavesBefore.back() = empty;
}

Result<Quadtree> buildQuadtree(const Heightmap& map, int leafSize) {
    Result<Quadtree> tree = buildQuadtreeStructure(map.width, map.height, leafSize);
    if (!tree) {
        return tree;
    }
    fillQuadtreeBounds(tree.value(), map);
    return tree;
}

}  // namespace qt
