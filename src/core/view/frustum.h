// View frustum planes and the 3D box test against them.
// Planes: Gribb and Hartmann, "Fast Extraction of Viewing Frustum Planes from the World-View-
// Projection Matrix" (2001). Box test: the n/p-vertex method of Assarsson and Moeller, "Optimized
// View Frustum Culling Algorithms for Bounding Boxes" (2000).
#pragma once

#include <array>
#include <cstdint>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

namespace qt {

struct Box {
    glm::vec3 min;
    glm::vec3 max;
};

enum : uint8_t { kPlaneLeft, kPlaneRight, kPlaneBottom, kPlaneTop, kPlaneNear, kPlaneFar };
constexpr uint8_t kAllPlanes = 0x3F;

// Six planes (a, b, c, d) with unit normals pointing into the frustum: a point p is inside a plane
// when a*p.x + b*p.y + c*p.z + d >= 0.
struct Frustum {
    std::array<glm::vec4, 6> planes;

    // OpenGL clip space (-w <= x, y, z <= w). Margin moves every plane outwards by that distance,
    // so the test draws a sliver more and never less than the rasteriser.
    static Frustum fromViewProjection(const glm::mat4& viewProjection, float margin = 0.0f);
    // The same from a matrix in double, the planes normalised in double before they are rounded
    // to float: the near plane's rows cancel to 2 near / far of their size, which in float leaves
    // its distance wrong by far / near ulps of the eye's coordinates (hundreds of units for an
    // eye 3e5 from the origin with far / near 20000).
    static Frustum fromViewProjection(const glm::dmat4& viewProjection, float margin = 0.0f);

    // The same planes over grid coordinates (column, height code, row) instead of world ones,
    // for x = column * spacingX, y = code * heightScale + heightBias, z = row * spacingZ: a box
    // of grid columns, rows and codes then needs no conversion per node.
    Frustum inGridSpace(float spacingX, float spacingZ, float heightScale, float heightBias) const;

    // Signed distance, evaluated as ((a x + b y) + c z) + d: rounding is monotone in each
    // coordinate, so a box inside another never tests farther out than its parent did.
    float distance(int plane, const glm::vec3& p) const;

    // Tests the planes in `mask`; returns the planes the box straddles (still to test for anything
    // inside it), or sets outside and returns 0 when the box is wholly outside one plane.
    uint8_t classify(const Box& box, uint8_t mask, bool& outside) const;

    // The eight corners, for drawing: near plane first (bottom-left, bottom-right, top-right,
    // top-left), then the far plane in the same order.
    static std::array<glm::vec3, 8> corners(const glm::mat4& viewProjection);
    // The twelve edges between those corners: near rectangle, far rectangle, the four sides.
    static constexpr int kEdges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                          {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
};

inline Frustum Frustum::inGridSpace(float spacingX, float spacingZ, float heightScale,
                                    float heightBias) const {
    Frustum f = *this;
    for (glm::vec4& p : f.planes) {
        // a (x s) + b (h k + o) + c (z t) + d = (a s) x + (b k) h + (c t) z + (d + b o)
        p = {p.x * spacingX, p.y * heightScale, p.z * spacingZ, p.w + p.y * heightBias};
    }
    return f;
}

inline float Frustum::distance(int plane, const glm::vec3& p) const {
    const glm::vec4& q = planes[size_t(plane)];
    const float xy = q.x * p.x + q.y * p.y;
    const float xyz = xy + q.z * p.z;
    return xyz + q.w;
}

inline uint8_t Frustum::classify(const Box& box, uint8_t mask, bool& outside) const {
    uint8_t straddled = 0;
    for (unsigned rest = mask & kAllPlanes; rest != 0; rest &= rest - 1) {
        const int i = __builtin_ctz(rest);  // planes in mask only, lowest first
        const auto bit = uint8_t(1u << i);
        const glm::vec4& q = planes[size_t(i)];
        // p-vertex: the corner farthest along the normal; n-vertex: the nearest.
        const glm::vec3 pv(q.x >= 0 ? box.max.x : box.min.x, q.y >= 0 ? box.max.y : box.min.y,
                           q.z >= 0 ? box.max.z : box.min.z);
        if (distance(i, pv) < 0.0f) {
            outside = true;
            return 0;
        }
        const glm::vec3 nv(q.x >= 0 ? box.min.x : box.max.x, q.y >= 0 ? box.min.y : box.max.y,
                           q.z >= 0 ? box.min.z : box.max.z);
        if (distance(i, nv) < 0.0f) {
            straddled |= bit;
        }
    }
    outside = false;
    return straddled;
}

}  // namespace qt
