// Builds the flat node array (sibling groups in depth-first order, then the root), the leaf order
// and the exact per-node sample ranges.
#include "core/quadtree.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>

#include "core/config.h"
#include "core/lod_error.h"

namespace qt {
namespace {

struct Builder {
    const Heightmap& map;
    Quadtree& tree;

    // Exact sample range of a leaf's box: every sample, not just the corners.
    void scanLeaf(QuadtreeNode& node) const {
        uint16_t lo = map.codeAt(node.x0, node.z0);
        uint16_t hi = lo;
        for (int row = node.z0; row <= node.z1; ++row) {
            const uint16_t* line = &map.codes[size_t(row) * size_t(map.width)];
            for (int col = node.x0; col <= node.x1; ++col) {
                lo = std::min(lo, line[col]);
                hi = std::max(hi, line[col]);
            }
        }
        node.minCode = lo;
        node.maxCode = hi;
    }

    // A node covering leaves [lx, lx + size) x [lz, lz + size), clipped to the map.
    QuadtreeNode makeNode(int lx, int lz, int size) const {
        QuadtreeNode node{};
        node.x0 = uint16_t(lx * tree.leafSize);
        node.z0 = uint16_t(lz * tree.leafSize);
        node.x1 = uint16_t(std::min((lx + size) * tree.leafSize, map.width - 1));
        node.z1 = uint16_t(std::min((lz + size) * tree.leafSize, map.height - 1));
        return node;
    }

    // Completes node `self` (index `index`, its box already set): a leaf gets its leaf number and
    // exact range; an inner node gets its children as one group at the end of the array, then
    // their subtrees in order, then the range of its children's ranges. The array has room for
    // every node, so `self` stays where it is.
    void complete(QuadtreeNode& self, uint32_t index, int lx, int lz, int size) {
        if (size == 1) {
            tree.leafGrid[size_t(lz) * tree.leavesX + lx] = uint32_t(tree.leaves.size());
            tree.leaves.push_back({uint16_t(lx), uint16_t(lz)});
            tree.leafNodes.push_back(index);
            scanLeaf(self);
            tree.leafCodes.push_back({self.minCode, self.maxCode});
            return;
        }
        const int half = size / 2;
        const auto first = uint32_t(tree.nodes.size());
        unsigned present = 0;
        for (int q = 0; q < 4; ++q) {
            const int cx = lx + (q & 1) * half;
            const int cz = lz + (q >> 1) * half;
            if (cx < tree.leavesX && cz < tree.leavesZ) {
                present |= 1u << q;
                tree.nodes.push_back(makeNode(cx, cz, half));
                tree.parents.push_back(index);
            }
        }
        assert(present & 1u);
        self.links = first << 4 | present;
        uint16_t lo = 0xFFFF;
        uint16_t hi = 0;
        for (int q = 0; q < 4; ++q) {
            if (self.hasChild(q)) {
                const uint32_t c = self.child(q);
                QuadtreeNode& child = tree.nodes[c];
                complete(child, c, lx + (q & 1) * half, lz + (q >> 1) * half, half);
                lo = std::min(lo, child.minCode);
                hi = std::max(hi, child.maxCode);
            }
        }
        self.minCode = lo;
        self.maxCode = hi;
    }
};

// Nodes of a complete quadtree over a side x side square of leaves, clipped to leavesX x leavesZ.
size_t countNodes(int lx, int lz, int size, int leavesX, int leavesZ) {
    if (lx >= leavesX || lz >= leavesZ) {
        return 0;
    }
    if (size == 1) {
        return 1;
    }
    const int half = size / 2;
    return 1 + countNodes(lx, lz, half, leavesX, leavesZ) +
           countNodes(lx + half, lz, half, leavesX, leavesZ) +
           countNodes(lx, lz + half, half, leavesX, leavesZ) +
           countNodes(lx + half, lz + half, half, leavesX, leavesZ);
}

// Asks for 2 MB pages under a large array about to be filled: the walk jumps between distant
// nodes, and with 4 KB pages nearly every jump would miss the TLB.
void adviseHugePages(void* data, size_t bytes) {
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
    if (end > begin) {
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    }
}

}  // namespace

bool isValidLeafSize(int leafSize) {
    return leafSize >= kMinLeafSize && leafSize <= kMaxLeafSize && (leafSize & (leafSize - 1)) == 0;
}

Result<Quadtree> buildQuadtree(const Heightmap& map, int leafSize) {
    if (!isValidLeafSize(leafSize)) {
        return Result<Quadtree>::failure(
            "leaf size " + std::to_string(leafSize) + " is not a power of two from " +
            std::to_string(kMinLeafSize) + " to " + std::to_string(kMaxLeafSize));
    }
    assert(map.width >= 2 && map.height >= 2);
    Quadtree tree;
    tree.coding = map.coding;
    tree.leafSize = leafSize;
    tree.leafShift = __builtin_ctz(unsigned(leafSize));
    tree.leavesX = (map.width - 2) / leafSize + 1;
    tree.leavesZ = (map.height - 2) / leafSize + 1;
    int rootSize = 1;
    while (rootSize < std::max(tree.leavesX, tree.leavesZ)) {
        rootSize *= 2;
        ++tree.depth;
    }
    assert(tree.depth <= kMaxTreeDepth);  // kMaxSide samples, kMinLeafSize leaves
    const size_t leafCount = size_t(tree.leavesX) * size_t(tree.leavesZ);
    const size_t nodeCount = countNodes(0, 0, rootSize, tree.leavesX, tree.leavesZ);
    if (nodeCount > kMaxNodes) {  // not reached: kMaxSamples and kMinLeafSize allow 90 million
        return Result<Quadtree>::failure("the map needs " + std::to_string(nodeCount) +
                                         " quadtree nodes, more than " + std::to_string(kMaxNodes));
    }
    tree.nodes.reserve(nodeCount);
    adviseHugePages(tree.nodes.data(), tree.nodes.capacity() * sizeof(QuadtreeNode));
    tree.parents.reserve(nodeCount);
    tree.leaves.reserve(leafCount);
    tree.leafNodes.reserve(leafCount);
    tree.leafCodes.reserve(leafCount);
    tree.leafGrid.assign(leafCount, 0);
    Builder builder{map, tree};
    // The root goes last: its index is known, and the groups start at the array's start.
    QuadtreeNode root = builder.makeNode(0, 0, rootSize);
    builder.complete(root, uint32_t(nodeCount - 1), 0, 0, rootSize);
    tree.nodes.push_back(root);
    tree.parents.push_back(kNoNode);
    assert(tree.nodes.size() == nodeCount && tree.nodes.capacity() == nodeCount);
    assert(tree.leaves.size() == leafCount && tree.leafCodes.size() == leafCount);
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
    assert(tree.levelStart.back() + leafCount == nodeCount);
    computeCoarseErrors(map, tree);
    return tree;
}

}  // namespace qt
