// BackFaceTest: the boxes a ray may dive through stamped into bins of azimuth and levels of slope,
// each keeping the nearest, and boxes of terrain tested against them (the argument is in
// back_faces.h).
#include "core/cull/back_faces.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/config.h"
#include "core/cull/cull.h"
#include "core/cull/horizon.h"
#include "core/cull/occlusion.h"

namespace qt {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();
// Elevations beyond this (radians) widen a span past use: every bin is taken.
constexpr float kSteepest = 1.4f;
// Heights are taken this share of the eye's and the map's magnitudes outward, against rounding;
// a box's farthest distance this share farther, and this share of those magnitudes.
constexpr double kHeightSlack = 1e-4;
constexpr float kDistanceSlack = 1e-4f;

// Horizontal distances from the eye to the nearest and the farthest point of a rectangle.
struct Distances {
    float nearest;
    float farthest;
};

Distances distances(float ex, float ez, float x0, float z0, float x1, float z1) {
    const float nx = std::max({x0 - ex, 0.0f, ex - x1});
    const float nz = std::max({z0 - ez, 0.0f, ez - z1});
    const float fx = std::max(std::fabs(ex - x0), std::fabs(ex - x1));
    const float fz = std::max(std::fabs(ez - z0), std::fabs(ez - z1));
    return {std::sqrt(nx * nx + nz * nz), std::sqrt(fx * fx + fz * fz)};
}

// The bins of the directions from (ex, ez) to the rectangle, widened by `margin` in pseudo-angle:
// count bins from `first`, taken modulo kBins; every bin when the eye is on the rectangle.
void spanBins(float ex, float ez, float x0, float z0, float x1, float z1, float margin, int& first,
              int& count) {
    constexpr int kBins = BackFaceTest::kBins;
    first = 0;
    count = kBins;
    if (ex >= x0 && ex <= x1 && ez >= z0 && ez <= z1) {
        return;
    }
    float start = 0.0f, width = 0.0f;
    footprintSpan(ex, ez, x0, z0, x1, z1, start, width);
    const float lo = start - margin, hi = start + width + margin;
    if (!(hi - lo < 4.0f)) {
        return;
    }
    constexpr float kPerUnit = float(kBins) / 4.0f;
    const int b0 = int(std::floor((lo + 2.0f) * kPerUnit));
    const int b1 = int(std::floor((hi + 2.0f) * kPerUnit));
    first = b0;
    count = std::min(b1 - b0 + 1, kBins);
}

}  // namespace

void BackFaceTest::reserveFor(const Quadtree& tree) {
    dives.assign(tree.hasHoles() ? kCells : 0, kInfinity);
    groups.assign(tree.hasHoles() ? size_t(kBins) * kGroups : 0, kInfinity);
}

bool BackFaceTest::prepare(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                           int viewportHeight, const HoleBox* boxes, uint32_t count) {
    active = false;
    if (!tree.hasHoles() || viewportHeight <= 0 || !eyeClearOfNearTerrain(tree, mapping, camera)) {
        return false;
    }
    if (dives.size() != kCells) {
        reserveFor(tree);  // not reserved: once
    } else {
        std::fill(dives.begin(), dives.end(), kInfinity);
        std::fill(groups.begin(), groups.end(), kInfinity);
    }
    nearestCells = kInfinity;
    nearestEverywhere = kInfinity;
    levels.fill(camera);
    ex = camera.position.x;
    ey = camera.position.y;
    ez = camera.position.z;
    spacingX = mapping.spacingX;
    spacingZ = mapping.spacingZ;
    height = heightTransform(tree.coding, mapping);
    const Box root = nodeBox(tree, tree.root(), mapping);
    slack = float(kHeightSlack * (std::fabs(double(ey)) + std::fabs(double(root.min.y)) +
                                  std::fabs(double(root.max.y)) + double(root.max.y - root.min.y)));
    minY = root.min.y - slack;
    maxY = root.max.y + slack;
    distanceSlack = float(kDistanceSlack * (std::fabs(double(ex)) + std::fabs(double(ez)) +
                                            double(root.max.x) + double(root.max.z)));
    delta = kOcclusionMarginPixels * 2.0f * std::tan(0.5f * camera.fovY) / float(viewportHeight);

    // 4: the slopes of 3 through each box a ray may dive through (7), as levels: its nearest
    // distance into each (bin, level) of its azimuths and slopes where none stamped is nearer.
    for (const HoleBox* b = boxes; b != boxes + count; ++b) {
        const float x0 = float(b->x0) * spacingX, x1 = float(b->x1) * spacingX;
        const float z0 = float(b->z0) * spacingZ, z1 = float(b->z1) * spacingZ;
        const Distances d = distances(ex, ez, x0, z0, x1, z1);
        const float h0 = height.worldHeight(float(b->minCode));
        const float h1 = height.worldHeight(float(b->maxCode));
        const float rise = std::max(h0, h1) + slack - ey;
        const float drop = std::min(h0, h1) - slack - ey;
        const float high =
            rise > 0.0f ? (d.nearest > 0.0f ? rise / d.nearest : kInfinity) : rise / d.farthest;
        const float low =
            drop < 0.0f ? (d.nearest > 0.0f ? drop / d.nearest : -kInfinity) : drop / d.farthest;
        int lowest = 0, highest = 0;
        levels.span(low, high, lowest, highest);
        int first = 0, span = 0;
        spanBins(ex, ez, x0, z0, x1, z1, horizon::kAngleError, first, span);
        if (span >= kBins) {
            // Around the eye: taken as stamped in every cell (the test refuses what lies beyond).
            nearestEverywhere = std::min(nearestEverywhere, d.nearest);
            continue;
        }
        nearestCells = std::min(nearestCells, d.nearest);
        for (int i = 0; i < span; ++i) {
            const size_t bin = size_t((first + i) & (kBins - 1));
            float* cells = &dives[bin * size_t(kLevels)];
            for (int level = lowest; level <= highest; ++level) {
                cells[level] = std::min(cells[level], d.nearest);
            }
            float* group = &groups[bin * size_t(kGroups)];
            for (int g = lowest / kGroupLevels; g <= highest / kGroupLevels; ++g) {
                group[g] = std::min(group[g], d.nearest);
            }
        }
    }
    active = true;
    return true;
}

bool BackFaceTest::frontOnly(uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1, uint16_t minCode,
                             uint16_t maxCode) const {
    if (!active) {
        return false;
    }
    const float wx0 = float(x0) * spacingX, wx1 = float(x1) * spacingX;
    const float wz0 = float(z0) * spacingZ, wz1 = float(z1) * spacingZ;
    const Distances d = distances(ex, ez, wx0, wz0, wx1, wz1);
    const float farthest = d.farthest * (1.0f + kDistanceSlack) + distanceSlack;
    // X's least and highest slopes (3), widened by the slope margin of 5 at the steepest
    // elevation of a ray that meets the box's surface, which lies in [minY, maxY]; the azimuth
    // margin of 5.
    float least = -kInfinity, highest = kInfinity;
    float margin = 4.0f;
    if (d.nearest > 0.0f) {
        const float reach = std::max({ey - minY, maxY - ey, 0.0f});
        const float elevation = std::atan(reach / d.nearest) + delta;
        if (elevation < kSteepest) {
            const float secant = 1.0f / std::cos(elevation);
            margin = delta * secant + horizon::kAngleError;
            const float h0 = height.worldHeight(float(minCode));
            const float h1 = height.worldHeight(float(maxCode));
            const float drop = std::min(h0, h1) - slack - ey;
            const float rise = std::max(h0, h1) + slack - ey;
            const float slopeMargin = delta * secant * secant;
            least = drop / (drop < 0.0f ? d.nearest : d.farthest) - slopeMargin;
            highest = rise / (rise > 0.0f ? d.nearest : d.farthest) + slopeMargin;
        }
    }
    if (nearestEverywhere < farthest) {
        return false;
    }
    if (nearestCells >= farthest) {
        return true;  // nothing stamped nearer than X anywhere
    }
    int lowest = 0, top = 0;
    levels.span(least, highest, lowest, top);
    int first = 0, count = 0;
    spanBins(ex, ez, wx0, wz0, wx1, wz1, margin, first, count);
    if (count >= kBins) {
        return false;  // around the eye, and something is stamped nearer than X
    }
    // Each bin's groups of levels first (a group's entry is the least of its cells), its cells
    // only in a group the span of levels does not cover whole.
    for (int i = 0; i < count; ++i) {
        const size_t bin = size_t((first + i) & (kBins - 1));
        const float* cells = &dives[bin * size_t(kLevels)];
        const float* group = &groups[bin * size_t(kGroups)];
        for (int g = lowest / kGroupLevels; g <= top / kGroupLevels; ++g) {
            if (group[g] >= farthest) {
                continue;
            }
            const int from = std::max(lowest, g * kGroupLevels);
            const int to = std::min(top, g * kGroupLevels + kGroupLevels - 1);
            if (to - from + 1 == kGroupLevels) {
                return false;
            }
            for (int level = from; level <= to; ++level) {
                if (cells[level] < farthest) {
                    return false;
                }
            }
        }
    }
    return true;
}

void appendDiveBoxes(const Quadtree& tree, uint32_t firstLeaf, uint32_t leafCount,
                     std::vector<HoleBox>& out) {
    if (!tree.hasHoles()) {
        return;
    }
    const uint32_t end = tree.holeLeavesBefore[firstLeaf + leafCount];
    for (uint32_t hole = tree.holeLeavesBefore[firstLeaf]; hole < end; ++hole) {
        out.push_back(tree.holeLeafBox[hole]);
    }
}

void appendDiveBoxes(const Quadtree& tree, uint32_t node, std::vector<HoleBox>& out) {
    const QuadtreeNode& n = tree.nodes[node];
    if (!tree.holesIn(tree.firstLeaf(n), tree.leafCount(n))) {
        return;
    }
    if (n.isLeaf()) {
        HoleBox box = tree.holeLeafBox[tree.holeLeavesBefore[tree.firstLeaf(n)]];
        box.minCode = n.minCode;
        box.maxCode = n.maxCode;
        out.push_back(box);
        return;
    }
    // A cell of twice the node's grid step is a child's box only for leaves of 4 squares or more.
    if (tree.leafSize < 4) {
        out.push_back({n.x0, n.z0, n.x1, n.z1, n.minCode, n.maxCode});
        return;
    }
    for (int q = 0; q < 4; ++q) {
        if (!n.hasChild(q)) {
            continue;
        }
        const QuadtreeNode& c = tree.nodes[n.child(q)];
        if (tree.holesIn(tree.firstLeaf(c), tree.leafCount(c))) {
            out.push_back({c.x0, c.z0, c.x1, c.z1, c.minCode, c.maxCode});
        }
    }
}

}  // namespace qt
