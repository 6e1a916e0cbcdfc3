// Frustum plane extraction (Gribb-Hartmann) and the n/p-vertex box test (Assarsson-Moeller).
#include "core/view/frustum.h"

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

Frustum Frustum::fromViewProjection(const glm::dmat4& m, float margin) {
    auto row = [&](int i) { return glm::dvec4(m[0][i], m[1][i], m[2][i], m[3][i]); };
    const glm::dvec4 r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
    const glm::dvec4 planes[6] = {r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 + r2, r3 - r2};
    Frustum f{};
    for (int i = 0; i < 6; ++i) {
        const glm::dvec4 p = planes[i] / glm::length(glm::dvec3(planes[i]));
        f.planes[size_t(i)] = glm::vec4(glm::vec3(p), float(p.w + double(margin)));
    }
    return f;
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
