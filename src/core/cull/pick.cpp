// Ray picking: slab tests of node boxes nearest first, Moeller-Trumbore on the leaves'
// triangles. Both the walk and the brute force intersect a triangle with the same function from the
// same float vertices, so they agree exactly; the walk's box test is widened so it never skips a
// box the ray touches.
#include "core/cull/pick.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include <glm/geometric.hpp>
#include <glm/mat4x4.hpp>

#include "core/config.h"
#include "core/cull/cull.h"
#include "core/terrain/surface.h"

namespace qt {
namespace {

using DVec3 = glm::dvec3;

// Moeller and Trumbore, "Fast, Minimum Storage Ray/Triangle Intersection" (1997), two-sided (or
// only a triangle met from above, `frontOnly`), in doubles: t of the hit, or a negative number for
// none. Edges and corners count as hits.
double intersect(const DVec3& o, const DVec3& d, const DVec3& p0, const DVec3& p1, const DVec3& p2,
                 bool frontOnly) {
    const DVec3 e1 = p1 - p0, e2 = p2 - p0;
    const DVec3 p = glm::cross(d, e2);
    const double det = glm::dot(e1, p);
    if (det == 0.0) {
        return -1.0;  // parallel to the triangle's plane (or a degenerate triangle)
    }
    // det = -d . (e1 x e2): the ray meets the triangle from below, on its back face, when det and
    // the normal's height, (e1 x e2).y, have opposite signs.
    if (frontOnly && det * (e1.z * e2.x - e1.x * e2.z) < 0.0) {
        return -1.0;
    }
    const double inv = 1.0 / det;
    const DVec3 s = o - p0;
    const double u = glm::dot(s, p) * inv;
    if (u < 0.0 || u > 1.0) {
        return -1.0;
    }
    const DVec3 q = glm::cross(s, e1);
    const double v = glm::dot(d, q) * inv;
    if (v < 0.0 || u + v > 1.0) {
        return -1.0;
    }
    return glm::dot(e2, q) * inv;
}

// Takes a triangle's hit if it is the first so far: least t, then lowest triangle number.
void consider(PickHit& best, double t, uint64_t triangle, int col, int row) {
    if (t < 0.0 || (best.hit && (t > best.t || (t == best.t && triangle > best.triangle)))) {
        return;
    }
    best.hit = true;
    best.t = t;
    best.triangle = triangle;
    best.col = col;
    best.row = row;
}

void testSquare(const Heightmap& map, const WorldMapping& mapping, const DVec3& o, const DVec3& d,
                bool frontOnly, int col, int row, PickHit& best) {
    if (map.nodata.holes() && map.nodata.holeSquare(col, row)) {
        return;  // a hole: the ray goes through (the renderer leaves the square out)
    }
    const GridSquare s = gridSquare(map, mapping, col, row);
    const uint64_t first = 2u * (uint64_t(row) * uint64_t(map.width - 1) + uint64_t(col));
    consider(best, intersect(o, d, s.a, s.b, s.c, frontOnly), first, col, row);
    consider(best, intersect(o, d, s.b, s.d, s.c, frontOnly), first + 1, col, row);
}

// The hit's point and nearest sample, from its t and square.
void finish(const Heightmap& map, const WorldMapping& mapping, const DVec3& o, const DVec3& d,
            PickHit& best) {
    if (!best.hit) {
        return;
    }
    const DVec3 p = o + best.t * d;
    best.world = glm::vec3(p);
    const double x = p.x / double(mapping.spacingX), z = p.z / double(mapping.spacingZ);
    best.col = std::clamp(int(std::lround(x)), best.col, best.col + 1);
    best.row = std::clamp(int(std::lround(z)), best.row, best.row + 1);
    best.col = std::min(best.col, map.width - 1);
    best.row = std::min(best.row, map.height - 1);
}

// Slab test of the ray against a box widened by `pad` on every side: the entry t, or infinity
// when the ray misses it or leaves it before t = 0.
double entry(const DVec3& o, const DVec3& inv, const Box& box, double pad) {
    double t0 = 0.0, t1 = std::numeric_limits<double>::infinity();
    for (int axis = 0; axis < 3; ++axis) {
        const double lo = double(box.min[axis]) - pad, hi = double(box.max[axis]) + pad;
        if (std::isinf(inv[axis])) {  // parallel to the slab: inside it or not at all
            if (o[axis] < lo || o[axis] > hi) {
                return std::numeric_limits<double>::infinity();
            }
            continue;
        }
        double a = (lo - o[axis]) * inv[axis], b = (hi - o[axis]) * inv[axis];
        if (a > b) {
            std::swap(a, b);
        }
        t0 = std::max(t0, a);
        t1 = std::min(t1, b);
        if (t0 > t1) {
            return std::numeric_limits<double>::infinity();
        }
    }
    return t0;
}

bool validRay(const PickRay& ray) {
    const glm::vec3& o = ray.origin;
    const glm::vec3& d = ray.direction;
    return std::isfinite(o.x) && std::isfinite(o.y) && std::isfinite(o.z) && std::isfinite(d.x) &&
           std::isfinite(d.y) && std::isfinite(d.z) && (d.x != 0.0f || d.y != 0.0f || d.z != 0.0f);
}

}  // namespace

// From the camera's own basis and field of view, as its projection is built, rather than through
// the inverse of the view-projection matrix, whose float rounding tilts the ray by about 1e-4 rad
// when the far plane is thousands of times the near one.
PickRay pixelRay(const Camera& camera, float pixelX, float pixelY, int width, int height) {
    const double ndcX = 2.0 * double(pixelX) / double(std::max(width, 1)) - 1.0;
    const double ndcY = 1.0 - 2.0 * double(pixelY) / double(std::max(height, 1));
    const double tanHalf = std::tan(0.5 * double(camera.fovY));
    const DVec3 direction = DVec3(camera.forward()) +
                            ndcX * tanHalf * double(camera.aspect) * DVec3(camera.right()) +
                            ndcY * tanHalf * DVec3(camera.up());
    return {camera.position, glm::vec3(direction)};
}

PickHit pickTerrain(const Heightmap& map, const Quadtree& tree, const WorldMapping& mapping,
                    const PickRay& ray, const SamplePresence* presence) {
    assert(map.codes.size() == size_t(map.width) * size_t(map.height));
    PickHit best;
    if (!validRay(ray) || tree.nodes.empty()) {
        return best;
    }
    const DVec3 o(ray.origin), d(ray.direction);
    const DVec3 inv(1.0 / d.x, 1.0 / d.y, 1.0 / d.z);
    // A box's floats are its triangles' vertices' own (nodeBox and vertexPosition compute them
    // alike), so a pad of a few ulps of the largest coordinate keeps every touched box.
    const double largest =
        std::max(double(largestCoordinate(ray.origin, worldExtent(map, mapping))), 1.0);
    const double pad = 64.0 * std::numeric_limits<float>::epsilon() * largest;
    // Depth-first, nearest child first: a stack of (entry t, node), children pushed farthest
    // first. At most three siblings wait per level.
    struct Pending {
        double t;
        uint32_t node;
    };
    Pending stack[4 * (kMaxTreeDepth + 1)];
    int top = 0;
    ++best.nodesTested;
    const double rootT = entry(o, inv, nodeBox(tree, tree.root(), mapping), pad);
    if (std::isinf(rootT)) {
        return best;
    }
    stack[top++] = {rootT, tree.rootIndex()};
    // The nearest entry into a leaf whose samples are not all present, and that leaf.
    double absentT = std::numeric_limits<double>::infinity();
    while (top > 0) {
        const Pending p = stack[--top];
        if (best.hit && p.t > best.t) {
            continue;  // everything in the box lies beyond the best hit
        }
        const QuadtreeNode& node = tree.nodes[p.node];
        if (node.isLeaf()) {
            if (presence != nullptr && !presence->present(node.x0, node.z0, node.x1(), node.z1())) {
                if (p.t < absentT) {
                    absentT = p.t;
                    best.absentX0 = node.x0;
                    best.absentZ0 = node.z0;
                    best.absentX1 = node.x1();
                    best.absentZ1 = node.z1();
                }
                continue;
            }
            ++best.leavesTested;
            for (int row = node.z0; row < node.z1(); ++row) {
                for (int col = node.x0; col < node.x1(); ++col) {
                    testSquare(map, mapping, o, d, ray.frontFacesOnly, col, row, best);
                }
            }
            continue;
        }
        Pending children[4];
        int count = 0;
        for (int q = 0; q < 4; ++q) {
            if (node.hasChild(q)) {
                const uint32_t child = node.child(q);
                ++best.nodesTested;
                const double t = entry(o, inv, nodeBox(tree, tree.nodes[child], mapping), pad);
                if (!std::isinf(t)) {
                    children[count++] = {t, child};
                }
            }
        }
        // Farthest first onto the stack, so the nearest is opened next (insertion sort of four).
        for (int k = 1; k < count; ++k) {
            for (int j = k; j > 0 && children[j - 1].t < children[j].t; --j) {
                std::swap(children[j - 1], children[j]);
            }
        }
        for (int k = 0; k < count; ++k) {
            stack[top++] = children[k];
        }
    }
    // A triangle of the absent leaf lies in its box, so it is met no nearer than the box's entry:
    // a hit nearer than that entry is the first, any other may not be (a tie included).
    if (!std::isinf(absentT) && (!best.hit || absentT <= best.t)) {
        best.arriving = true;
        best.hit = false;
        return best;
    }
    finish(map, mapping, o, d, best);
    return best;
}

Result<PickHit> pickPresent(const Heightmap& map, const Quadtree& tree, const WorldMapping& mapping,
                            const PickRay& ray, const SamplePresence& presence) {
    // Each round makes one more leaf present or fails, so the leaves bound the rounds.
    for (size_t round = 0; round <= tree.leaves.size(); ++round) {
        const PickHit hit = pickTerrain(map, tree, mapping, ray, &presence);
        if (!hit.arriving) {
            return hit;
        }
        if (Status got = presence.ensure(hit.absentX0, hit.absentZ0, hit.absentX1, hit.absentZ1);
            !got) {
            return Result<PickHit>::failure(got.error());
        }
    }
    return Result<PickHit>::failure("the map's samples under the pick did not stay present");
}

PickHit pickBruteForce(const Heightmap& map, const WorldMapping& mapping, const PickRay& ray) {
    PickHit best;
    if (!validRay(ray)) {
        return best;
    }
    const DVec3 o(ray.origin), d(ray.direction);
    for (int row = 0; row + 1 < map.height; ++row) {
        for (int col = 0; col + 1 < map.width; ++col) {
            testSquare(map, mapping, o, d, ray.frontFacesOnly, col, row, best);
        }
    }
    best.leavesTested = uint64_t(map.width - 1) * uint64_t(map.height - 1) * 2u;
    finish(map, mapping, o, d, best);
    return best;
}

}  // namespace qt
