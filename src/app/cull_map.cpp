// Cull-map rasterisation: a leaf grid scaled to about 512-4096 pixels, lines clipped to the image.
#include "app/cull_map.h"

#include "core/base/text.h"
#include "core/view/frustum.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

namespace qt {
namespace {

// Pixels per leaf so that small trees still give a readable picture.
constexpr int kTargetPixels = 512;
// Largest map area drawn; bigger trees share a pixel between several leaves.
constexpr int kMaxPixels = 4096;

void plot(RgbImage& image, int x, int y, const uint8_t colour[3]) {
    if (x < 0 || y < 0 || x >= image.width || y >= image.height) {
        return;
    }
    uint8_t* p = &image.rgb[(size_t(y) * size_t(image.width) + size_t(x)) * 3];
    p[0] = colour[0];
    p[1] = colour[1];
    p[2] = colour[2];
}

// Liang-Barsky clip of the segment to [0, w] x [0, h]; false when nothing is left.
bool clipSegment(double& x0, double& y0, double& x1, double& y1, double w, double h) {
    double t0 = 0.0;
    double t1 = 1.0;
    const double dx = x1 - x0;
    const double dy = y1 - y0;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {x0, w - x0, y0, h - y0};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) {
                return false;
            }
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0.0) {
            t0 = std::max(t0, t);
        } else {
            t1 = std::min(t1, t);
        }
        if (t0 > t1) {
            return false;
        }
    }
    const double ax = x0 + t0 * dx;
    const double ay = y0 + t0 * dy;
    x1 = x0 + t1 * dx;
    y1 = y0 + t1 * dy;
    x0 = ax;
    y0 = ay;
    return true;
}

void drawLine(RgbImage& image, double x0, double y0, double x1, double y1,
              const uint8_t colour[3]) {
    if (!std::isfinite(x0) || !std::isfinite(y0) || !std::isfinite(x1) || !std::isfinite(y1) ||
        !clipSegment(x0, y0, x1, y1, image.width - 1, image.height - 1)) {
        return;
    }
    const int steps = int(std::ceil(std::max(std::fabs(x1 - x0), std::fabs(y1 - y0)))) + 1;
    for (int i = 0; i <= steps; ++i) {
        const double t = double(i) / steps;
        plot(image, int(std::lround(x0 + t * (x1 - x0))), int(std::lround(y0 + t * (y1 - y0))),
             colour);
    }
}

// Drawn leaves in [first, end): the sorted runs that overlap it, from the last one starting at or
// before `first`.
uint32_t drawnLeavesIn(const std::vector<LeafRange>& drawn, uint32_t first, uint32_t end) {
    auto run = std::upper_bound(drawn.begin(), drawn.end(), first,
                                [](uint32_t leaf, const LeafRange& r) { return leaf < r.first; });
    if (run != drawn.begin()) {
        --run;
    }
    uint32_t count = 0;
    for (; run != drawn.end() && run->first < end; ++run) {
        const uint32_t a = std::max(run->first, first);
        const uint32_t b = std::min(run->first + run->count, end);
        count += b > a ? b - a : 0;
    }
    return count;
}

void splitCell(const Quadtree& tree, uint32_t index, const std::vector<LeafRange>& drawn,
               int minSide, std::vector<MapCell>& cells) {
    const QuadtreeNode& node = tree.nodes[index];
    const uint32_t first = tree.firstLeaf(node);
    const uint32_t count = tree.leafCount(node);
    const uint32_t shown = drawnLeavesIn(drawn, first, first + count);
    const int side = std::max(node.x1() - node.x0, node.z1() - node.z0);
    if (shown == 0 || shown == count || node.isLeaf() || side <= minSide) {
        cells.push_back({index, shown > 0});
        return;
    }
    for (int q = 0; q < 4; ++q) {
        if (node.hasChild(q)) {
            splitCell(tree, node.child(q), drawn, minSide, cells);
        }
    }
}

}  // namespace

void minimapCells(const Quadtree& tree, const std::vector<uint32_t>& acceptedNodes,
                  const std::vector<LeafRange>& drawn, int minSide, std::vector<MapCell>& cells) {
    cells.clear();
    for (const uint32_t node : acceptedNodes) {
        splitCell(tree, node, drawn, minSide, cells);
    }
}

RgbImage cullMapImage(const Quadtree& tree, const WorldMapping& mapping,
                      const std::vector<LeafRange>& inFrustum, const std::vector<LeafRange>& drawn,
                      const std::array<glm::vec3, 8>& frustumCorners, const glm::vec3& eye) {
    const int longest = std::max(tree.leavesX, tree.leavesZ);
    // Map pixels per leaf: above 1 for small trees, below 1 for huge ones.
    const double scale = longest >= kTargetPixels ? std::min(1.0, double(kMaxPixels) / longest)
                                                  : double(std::max(1, kTargetPixels / longest));
    const int mapW = std::max(1, int(std::ceil(tree.leavesX * scale)));
    const int mapH = std::max(1, int(std::ceil(tree.leavesZ * scale)));
    const int margin = std::max(mapW, mapH) / 8 + 2;
    RgbImage image;
    image.width = mapW + 2 * margin;
    image.height = mapH + 2 * margin;
    image.rgb.resize(size_t(image.width) * size_t(image.height) * 3);
    for (size_t i = 0; i < image.rgb.size(); i += 3) {
        std::copy(kMapOutside, kMapOutside + 3, &image.rgb[i]);
    }

    // Per leaf: 0 culled, 1 occluded, 2 drawn.
    std::vector<uint8_t> state(size_t(tree.leavesX) * size_t(tree.leavesZ), 0);
    for (const auto& [ranges, value] : {std::pair{&inFrustum, 1}, std::pair{&drawn, 2}}) {
        for (const LeafRange& r : *ranges) {
            for (uint32_t i = r.first; i < r.first + r.count; ++i) {
                const LeafCoord leaf = tree.leaves[i];
                state[size_t(leaf.row) * size_t(tree.leavesX) + leaf.col] = uint8_t(value);
            }
        }
    }
    const uint8_t* colours[3] = {kMapCulled, kMapOccluded, kMapDrawn};
    for (int y = 0; y < mapH; ++y) {
        const int row = std::min(int(y / scale), tree.leavesZ - 1);
        for (int x = 0; x < mapW; ++x) {
            const int col = std::min(int(x / scale), tree.leavesX - 1);
            plot(image, margin + x, margin + y,
                 colours[state[size_t(row) * size_t(tree.leavesX) + size_t(col)]]);
        }
    }

    // World x/z to image pixels: a leaf spans leafSize * spacing world units on each axis.
    const double leafWorldX = double(tree.leafSize) * mapping.spacingX;
    const double leafWorldZ = double(tree.leafSize) * mapping.spacingZ;
    auto toPixel = [&](const glm::vec3& p, double& px, double& py) {
        px = margin + p.x / leafWorldX * scale;
        py = margin + p.z / leafWorldZ * scale;
    };
    for (const auto& edge : Frustum::kEdges) {
        double x0, y0, x1, y1;
        toPixel(frustumCorners[size_t(edge[0])], x0, y0);
        toPixel(frustumCorners[size_t(edge[1])], x1, y1);
        drawLine(image, x0, y0, x1, y1, kMapFrustum);
    }
    double ex, ey;
    toPixel(eye, ex, ey);
    if (std::isfinite(ex) && std::isfinite(ey) && std::fabs(ex) < 1e6 && std::fabs(ey) < 1e6) {
        for (int dy = -2; dy <= 2; ++dy) {
            for (int dx = -2; dx <= 2; ++dx) {
                plot(image, int(std::lround(ex)) + dx, int(std::lround(ey)) + dy, kMapCamera);
            }
        }
    }
    return image;
}

}  // namespace qt
