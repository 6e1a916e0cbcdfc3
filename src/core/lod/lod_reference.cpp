// The reference selection: greedy splitting by each node's measured on-screen deviation, then the
// one-level neighbour rule enforced by further splits (lod_reference.h).
#include "core/lod/lod_reference.h"

#include <algorithm>
#include <cmath>

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec4.hpp>

#include "core/cull/cull.h"
#include "core/lod/lod.h"

namespace qt {
namespace {

struct Projector {
    glm::mat4 viewProjection;
    HeightTransform heights;
    float spacingX, spacingZ;
    float halfWidth, halfHeight;

    // The pixel of (col, code, row), x and z in samples; false when behind the eye or outside
    // the viewport.
    bool project(float x, float code, float z, glm::vec2& pixel) const {
        const glm::vec4 clip =
            viewProjection * glm::vec4(x * spacingX, heights.worldHeight(code), z * spacingZ, 1.0f);
        if (!(clip.w > 0.0f)) {
            return false;
        }
        pixel = {clip.x / clip.w * halfWidth, clip.y / clip.w * halfHeight};
        return std::abs(pixel.x) <= halfWidth && std::abs(pixel.y) <= halfHeight;
    }
};

Projector projector(const LodScreen& s) {
    const float halfHeight = 0.5f * float(s.viewportHeight);
    return {s.camera.viewProjection(),    heightTransform(s.map.coding, s.mapping),
            s.mapping.spacingX,           s.mapping.spacingZ,
            halfHeight * s.camera.aspect, halfHeight};
}

// The unfolded strip's triangles, in local vertex coordinates.
const std::vector<LocalTriangle>& stripTriangles(int leafSize) {
    thread_local int madeFor = -1;
    thread_local std::vector<LocalTriangle> triangles;
    if (madeFor != leafSize) {
        triangles = foldedStripTriangles(leafSize);
        triangles.resize(size_t(2 * leafSize * leafSize));
        madeFor = leafSize;
    }
    return triangles;
}

float deviation(const LodScreen& s, const Projector& p, int level, int col, int row,
                float stopAbove) {
    if (level <= 0) {
        return 0.0f;
    }
    const Heightmap& map = s.map;
    const int leafSize = s.tree.leafSize;
    const DrawNode node{uint16_t(col >> level << level),
                        uint16_t(row >> level << level),
                        uint8_t(level),
                        0,
                        0,
                        0,
                        {0, 0, 0, 0}};
    float largest = 0.0f;
    for (const LocalTriangle& t : stripTriangles(leafSize)) {
        glm::vec3 v[3];
        for (int k = 0; k < 3; ++k) {
            int c = 0, r = 0;
            lodVertexSample(node, t.i[k], t.j[k], leafSize, map.width, map.height, c, r);
            v[k] = {float(c), float(map.codeAt(c, r)), float(r)};
        }
        const glm::vec3 a = v[0], b = v[1] - v[0], c = v[2] - v[0];
        const float det = b.x * c.z - b.z * c.x;
        if (std::abs(det) < 1e-6f) {
            continue;  // clamped away at the map's edge: no area
        }
        const int x0 = int(std::min({v[0].x, v[1].x, v[2].x}));
        const int x1 = int(std::max({v[0].x, v[1].x, v[2].x}));
        const int z0 = int(std::min({v[0].z, v[1].z, v[2].z}));
        const int z1 = int(std::max({v[0].z, v[1].z, v[2].z}));
        for (int z = z0; z <= z1; ++z) {
            for (int x = x0; x <= x1; ++x) {
                const float u = ((float(x) - a.x) * c.z - (float(z) - a.z) * c.x) / det;
                const float w = (b.x * (float(z) - a.z) - b.z * (float(x) - a.x)) / det;
                if (u < -1e-4f || w < -1e-4f || u + w > 1.0f + 1e-4f) {
                    continue;
                }
                glm::vec2 coarse, exact;
                if (p.project(float(x), a.y + u * b.y + w * c.y, float(z), coarse) &&
                    p.project(float(x), float(map.codeAt(x, z)), float(z), exact)) {
                    largest = std::max(largest, glm::length(coarse - exact));
                    if (largest > stopAbove) {
                        return largest;
                    }
                }
            }
        }
    }
    return largest;
}

struct ReferenceWalk {
    const LodScreen& s;
    Projector p;
    float pixels;
    const Frustum* frustum;
    LodReference& out;

    void mark(int level, int col, int row, int8_t value) {
        const SampleBox box = levelNodeBox(s.tree, level, col, row);
        const int leafSize = s.tree.leafSize;
        for (int r = box.z0 / leafSize; r < (box.z1 + leafSize - 1) / leafSize; ++r) {
            for (int c = box.x0 / leafSize; c < (box.x1 + leafSize - 1) / leafSize; ++c) {
                out.levelAt[size_t(r) * size_t(s.tree.leavesX) + size_t(c)] = value;
            }
        }
    }

    // Step 1 from the node `index` at `level`.
    void visit(uint32_t index, int level) {
        const QuadtreeNode& node = s.tree.nodes[index];
        if (frustum != nullptr) {
            bool outside = false;
            frustum->classify(gridBox(node), kAllPlanes, outside);
            if (outside) {
                return;
            }
        }
        const int col = node.x0 >> s.tree.leafShift;
        const int row = node.z0 >> s.tree.leafShift;
        if (node.isLeaf() || deviation(s, p, level, col, row, pixels) <= pixels) {
            mark(level, col, row, int8_t(level));
            return;
        }
        for (int q = 0; q < 4; ++q) {
            if (node.hasChild(q)) {
                visit(node.child(q), level - 1);
            }
        }
    }

    // The tree node at `level` holding leaf (col, row).
    uint32_t nodeAt(int level, int col, int row) const {
        uint32_t index = s.tree.rootIndex();
        for (int l = s.tree.depth; l > level;) {
            --l;
            index = s.tree.nodes[index].child(((col >> l) & 1) | ((row >> l) & 1) << 1);
        }
        return index;
    }

    // Step 2: one pass over the leaves; true when it split a node.
    bool enforceNeighbours() {
        const Quadtree& tree = s.tree;
        bool split = false;
        for (int row = 0; row < tree.leavesZ; ++row) {
            for (int col = 0; col < tree.leavesX; ++col) {
                const int level = out.levelAt[size_t(row) * size_t(tree.leavesX) + size_t(col)];
                if (level < 2) {
                    continue;
                }
                const int near[4][2] = {
                    {col - 1, row}, {col + 1, row}, {col, row - 1}, {col, row + 1}};
                for (const auto& n : near) {
                    if (n[0] < 0 || n[1] < 0 || n[0] >= tree.leavesX || n[1] >= tree.leavesZ) {
                        continue;
                    }
                    const int other =
                        out.levelAt[size_t(n[1]) * size_t(tree.leavesX) + size_t(n[0])];
                    if (other >= 0 && other < level - 1) {
                        mark(level, col, row, -1);
                        const QuadtreeNode& node = tree.nodes[nodeAt(level, col, row)];
                        for (int q = 0; q < 4; ++q) {
                            if (node.hasChild(q)) {
                                visit(node.child(q), level - 1);
                            }
                        }
                        ++out.neighbourSplits;
                        split = true;
                        break;
                    }
                }
            }
        }
        return split;
    }
};

}  // namespace

float lodNodeDeviation(const LodScreen& screen, int level, int col, int row, float stopAbove) {
    return deviation(screen, projector(screen), level, col, row, stopAbove);
}

void selectLodReference(const LodScreen& screen, float pixels, const Frustum* frustum,
                        LodReference& out) {
    const Quadtree& tree = screen.tree;
    out.levelAt.assign(size_t(tree.leavesX) * size_t(tree.leavesZ), -1);
    out.triangles = 0;
    out.nodesDrawn = 0;
    out.neighbourSplits = 0;
    Frustum grid;
    if (frustum != nullptr) {
        grid = gridFrustum(*frustum, tree, screen.mapping);
    }
    ReferenceWalk walk{screen, projector(screen), pixels, frustum != nullptr ? &grid : nullptr,
                       out};
    walk.visit(tree.rootIndex(), tree.depth);
    while (walk.enforceNeighbours()) {
    }
    for (int row = 0; row < tree.leavesZ; ++row) {
        for (int col = 0; col < tree.leavesX; ++col) {
            const int level = out.levelAt[size_t(row) * size_t(tree.leavesX) + size_t(col)];
            const int size = 1 << std::max(level, 0);
            if (level < 0 || (col & (size - 1)) != 0 || (row & (size - 1)) != 0) {
                continue;
            }
            const SampleBox box = levelNodeBox(tree, level, col, row);
            const uint64_t cols = uint64_t((box.x1 - box.x0 + size - 1) / size);
            const uint64_t rows = uint64_t((box.z1 - box.z0 + size - 1) / size);
            out.triangles += 2u * cols * rows;
            ++out.nodesDrawn;
        }
    }
}

}  // namespace qt
