// Frustum plane extraction (Gribb-Hartmann) and the n/p-vertex box test (Assarsson-Moeller).
#include "core/frustum.h"

#include <glm/geometric.hpp>
#include <glm/matrix.hpp>

namespace qt {

Frustum Frustum::fromViewProjection(const glm::mat4& m, float margin) {
    // Row i of the matrix; glm is column-major, m[col][row].
    auto row = [&](int i) { return glm::vec4(m[0][i], m[1][i], m[2][i], m[3][i]); };
    const glm::vec4 r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
    Frustum f{};
    f.planes[kPlaneLeft] = r3 + r0;
    f.planes[kPlaneRight] = r3 - r0;
    f.planes[kPlaneBottom] = r3 + r1;
    f.planes[kPlaneTop] = r3 - r1;
    f.planes[kPlaneNear] = r3 + r2;
    f.planes[kPlaneFar] = r3 - r2;
    for (glm::vec4& p : f.planes) {
        const float length = glm::length(glm::vec3(p));
        p /= length;
        p.w += margin;
    }
    return f;
}

float Frustum::distance(int plane, const glm::vec3& p) const {
    const glm::vec4& q = planes[size_t(plane)];
    const float xy = q.x * p.x + q.y * p.y;
    const float xyz = xy + q.z * p.z;
    return xyz + q.w;
}

uint8_t Frustum::classify(const Box& box, uint8_t mask, bool& outside) const {
    uint8_t straddled = 0;
    for (int i = 0; i < 6; ++i) {
        const uint8_t bit = uint8_t(1u << i);
        if (!(mask & bit)) {
            continue;
        }
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

std::array<glm::vec3, 8> Frustum::corners(const glm::mat4& viewProjection) {
    const glm::mat4 inverse = glm::inverse(viewProjection);
    std::array<glm::vec3, 8> out{};
    const float xs[4] = {-1, 1, 1, -1};
    const float ys[4] = {-1, -1, 1, 1};
    for (int i = 0; i < 8; ++i) {
        const glm::vec4 p = inverse * glm::vec4(xs[i % 4], ys[i % 4], i < 4 ? -1.0f : 1.0f, 1.0f);
        out[size_t(i)] = glm::vec3(p) / p.w;
    }
    return out;
}

}  // namespace qt
