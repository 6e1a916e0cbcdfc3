// Builds the flat pre-order node array, leaf order and exact per-node sample ranges.
#include "core/quadtree.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>

#include "core/config.h"

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

    // Adds the node covering leaves [lx, lx + size) x [lz, lz + size), clipped to the map, and
    // its subtree; returns its index.
    uint32_t build(int lx, int lz, int size, uint32_t parent) {
        const auto index = uint32_t(tree.nodes.size());
        QuadtreeNode node{};
        node.x0 = uint16_t(lx * tree.leafSize);
        node.z0 = uint16_t(lz * tree.leafSize);
        node.x1 = uint16_t(std::min((lx + size) * tree.leafSize, map.width - 1));
        node.z1 = uint16_t(std::min((lz + size) * tree.leafSize, map.height - 1));
        node.parent = parent;
        std::fill(std::begin(node.child), std::end(node.child), kNoNode);
        tree.nodes.push_back(node);

        if (size == 1) {
            tree.leafGrid[size_t(lz) * tree.leavesX + lx] = uint32_t(tree.leaves.size());
            tree.leaves.push_back({uint16_t(lx), uint16_t(lz)});
            tree.leafNodes.push_back(index);
            scanLeaf(tree.nodes[index]);
            return index;
        }
        const int half = size / 2;
        uint16_t lo = 0;
        uint16_t hi = 0;
        for (int q = 0; q < 4; ++q) {
            const int cx = lx + (q & 1) * half;
            const int cz = lz + (q >> 1) * half;
            if (cx >= tree.leavesX || cz >= tree.leavesZ) {
                continue;
            }
            const uint32_t c = build(cx, cz, half, index);
            const QuadtreeNode& child = tree.nodes[c];
            lo = q == 0 ? child.minCode : std::min(lo, child.minCode);
            hi = q == 0 ? child.maxCode : std::max(hi, child.maxCode);
            tree.nodes[index].child[q] = c;
        }
        QuadtreeNode& self = tree.nodes[index];
        assert(self.child[0] != kNoNode);
        self.minCode = lo;
        self.maxCode = hi;
        return index;
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
    const size_t leafCount = size_t(tree.leavesX) * size_t(tree.leavesZ);
    tree.nodes.reserve(countNodes(0, 0, rootSize, tree.leavesX, tree.leavesZ));
    adviseHugePages(tree.nodes.data(), tree.nodes.capacity() * sizeof(QuadtreeNode));
    tree.leaves.reserve(leafCount);
    tree.leafNodes.reserve(leafCount);
    tree.leafGrid.assign(leafCount, 0);
    Builder{map, tree}.build(0, 0, rootSize, kNoNode);
    assert(tree.leaves.size() == leafCount);
    return tree;
}

}  // namespace qt
