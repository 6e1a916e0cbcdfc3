// BackFaceTest: the holes around the eye stamped into bins of azimuth and rings of distance, and
// boxes of terrain tested against them (the argument is in back_faces.h).
#include "core/cull/back_faces.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/config.h"
#include "core/cull/cull.h"
#include "core/cull/horizon.h"
#include "core/cull/occlusion.h"

namespace qt {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();
constexpr int kStackSize = 4 * 17;  // a depth-first descent holds at most 3 per level, plus 4
// Elevations beyond this (radians) widen a span past use: every bin is taken.
constexpr float kSteepest = 1.4f;
// Heights are taken this share of the eye's and the map's magnitudes outward, against rounding.
constexpr double kHeightSlack = 1e-4;

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

// The ring of a distance: 0 below ringBase 2^(1 / kRingsPerOctave), the last beyond 2^15 ringBase.
int ringOf(const BackFaceTest& t, float distance) {
    const float r = float(BackFaceTest::kRingsPerOctave) * std::log2(distance / t.ringBase);
    if (!(r > 0.0f)) {
        return 0;
    }
    return r < float(BackFaceTest::kRings - 1) ? int(r) : BackFaceTest::kRings - 1;
}

}  // namespace

void BackFaceTest::reserveFor(const Quadtree& tree) {
    dives.assign(tree.hasHoles() ? size_t(kBins) * kRings : 0, 0);
}

bool BackFaceTest::prepare(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                           int viewportHeight, const HoleBox* coarse, uint32_t coarseCount) {
    active = false;
    if (!tree.hasHoles() || viewportHeight <= 0 || !eyeClearOfNearTerrain(tree, mapping, camera)) {
        return false;
    }
    if (dives.size() != size_t(kBins) * kRings) {
        dives.assign(size_t(kBins) * kRings, 0);  // not reserved: once
    } else {
        std::fill(dives.begin(), dives.end(), uint64_t(0));
    }
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
    ringBase = std::hypot(root.max.x, root.max.z) * std::ldexp(1.0f, -14);
    delta = kOcclusionMarginPixels * 2.0f * std::tan(0.5f * camera.fovY) / float(viewportHeight);

    // The slopes of 3 through a box, from its heights and its distances, as levels.
    const auto stamp = [&](uint16_t bx0, uint16_t bz0, uint16_t bx1, uint16_t bz1, uint16_t minCode,
                           uint16_t maxCode, const Distances& d) {
        const float x0 = float(bx0) * spacingX, x1 = float(bx1) * spacingX;
        const float z0 = float(bz0) * spacingZ, z1 = float(bz1) * spacingZ;
        const float h0 = height.worldHeight(float(minCode));
        const float h1 = height.worldHeight(float(maxCode));
        const float rise = std::max(h0, h1) + slack - ey;
        const float drop = std::min(h0, h1) - slack - ey;
        const float high =
            rise > 0.0f ? (d.nearest > 0.0f ? rise / d.nearest : kInfinity) : rise / d.farthest;
        const float low =
            drop < 0.0f ? (d.nearest > 0.0f ? drop / d.nearest : -kInfinity) : drop / d.farthest;
        const uint64_t slopes = levels.mask(low, high);
        const int ring = std::max(ringOf(*this, d.nearest) - 1, 0);
        int first = 0, count = 0;
        spanBins(ex, ez, x0, z0, x1, z1, horizon::kAngleError, first, count);
        for (int i = 0; i < count; ++i) {
            dives[size_t((first + i) & (kBins - 1)) * kRings + size_t(ring)] |= slopes;
        }
    };
    uint32_t stack[kStackSize];
    int top = 0;
    stack[top++] = tree.rootIndex();
    while (top > 0) {
        const QuadtreeNode& node = tree.nodes[stack[--top]];
        if (!tree.holesIn(tree.firstLeaf(node), tree.leafCount(node))) {
            continue;
        }
        const float x0 = float(node.x0) * spacingX, x1 = float(node.x1) * spacingX;
        const float z0 = float(node.z0) * spacingZ, z1 = float(node.z1) * spacingZ;
        const Distances d = distances(ex, ez, x0, z0, x1, z1);
        if (!node.isLeaf() && std::max(x1 - x0, z1 - z0) > kStampRatio * d.nearest) {
            for (int q = 0; q < 4; ++q) {
                if (node.hasChild(q)) {
                    assert(top < kStackSize);
                    stack[top++] = node.child(q);
                }
            }
            continue;
        }
        stamp(node.x0, node.z0, node.x1, node.z1, node.minCode, node.maxCode, d);
    }
    for (uint32_t i = 0; i < coarseCount; ++i) {  // 7: the coarse drawn nodes with holes
        const HoleBox& b = coarse[i];
        stamp(b.x0, b.z0, b.x1, b.z1, b.minCode, b.maxCode,
              distances(ex, ez, float(b.x0) * spacingX, float(b.z0) * spacingZ,
                        float(b.x1) * spacingX, float(b.z1) * spacingZ));
    }
    // Each ring takes the nearer rings' levels too.
    for (size_t b = 0; b < size_t(kBins); ++b) {
        uint64_t* ring = &dives[b * kRings];
        for (int j = 1; j < kRings; ++j) {
            ring[j] |= ring[j - 1];
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
    const int ring = std::min(ringOf(*this, d.farthest) + 1, kRings - 1);
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
    const uint64_t slopes = levels.mask(least, highest);
    int first = 0, count = 0;
    spanBins(ex, ez, wx0, wz0, wx1, wz1, margin, first, count);
    for (int i = 0; i < count; ++i) {
        if (dives[size_t((first + i) & (kBins - 1)) * kRings + size_t(ring)] & slopes) {
            return false;
        }
    }
    return true;
}

}  // namespace qt
