// Unit meshes for objects: a subdivided icosahedron and a trunk under a cone.
#include "core/objects/mesh.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <glm/geometric.hpp>
#include <glm/vec2.hpp>

namespace qt {
namespace {

constexpr float kPi = 3.14159265358979f;

uint16_t addVertex(Mesh& m, const glm::vec3& p, const glm::vec3& n, float material) {
    m.vertices.push_back({p, glm::normalize(n), material});
    return uint16_t(m.vertices.size() - 1);
}

}  // namespace

Mesh sphereMesh(int level) {
    Mesh m;
    const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
    const glm::vec3 corners[12] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                   {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                   {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    for (const glm::vec3& c : corners) {
        const glm::vec3 p = glm::normalize(c);
        addVertex(m, p, p, 0.0f);
    }
    m.indices = {0, 11, 5,  0, 5,  1, 0, 1, 7, 0, 7,  10, 0, 10, 11, 1, 5, 9, 5, 11,
                 4, 11, 10, 2, 10, 7, 6, 7, 1, 8, 3,  9,  4, 3,  4,  2, 3, 2, 6, 3,
                 6, 8,  3,  8, 9,  4, 9, 5, 2, 4, 11, 6,  2, 10, 8,  6, 7, 9, 8, 1};
    for (int l = 0; l < level; ++l) {
        std::map<std::pair<uint16_t, uint16_t>, uint16_t> middles;
        auto middle = [&](uint16_t a, uint16_t b) {
            const auto key = std::minmax(a, b);
            auto found = middles.find(key);
            if (found != middles.end()) {
                return found->second;
            }
            const glm::vec3 p = glm::normalize(m.vertices[a].position + m.vertices[b].position);
            const uint16_t v = addVertex(m, p, p, 0.0f);
            middles[key] = v;
            return v;
        };
        std::vector<uint16_t> finer;
        for (size_t i = 0; i < m.indices.size(); i += 3) {
            const uint16_t a = m.indices[i], b = m.indices[i + 1], c = m.indices[i + 2];
            const uint16_t ab = middle(a, b), bc = middle(b, c), ca = middle(c, a);
            finer.insert(finer.end(), {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca});
        }
        m.indices = std::move(finer);
    }
    // Vertices normalised in float may be a rounding step outside the unit sphere's box.
    for (MeshVertex& v : m.vertices) {
        v.position = glm::clamp(v.position, glm::vec3(-1.0f), glm::vec3(1.0f));
    }
    return m;
}

Mesh treeMesh(int segments) {
    Mesh m;
    const float slope = 1.0f / (1.0f - kConeBase);  // the cone's radius lost per unit of height
    for (int s = 0; s < segments; ++s) {
        const float a0 = 2.0f * kPi * float(s) / float(segments);
        const float a1 = 2.0f * kPi * float(s + 1) / float(segments);
        const glm::vec3 d0(std::cos(a0), 0.0f, std::sin(a0)), d1(std::cos(a1), 0.0f, std::sin(a1));
        // Trunk side: a quad facing out.
        const uint16_t t0 = addVertex(m, d0 * kTrunkRadius, d0, 1.0f);
        const uint16_t t1 = addVertex(m, d1 * kTrunkRadius, d1, 1.0f);
        const uint16_t t2 = addVertex(m, d1 * kTrunkRadius + glm::vec3(0, kTrunkTop, 0), d1, 1.0f);
        const uint16_t t3 = addVertex(m, d0 * kTrunkRadius + glm::vec3(0, kTrunkTop, 0), d0, 1.0f);
        m.indices.insert(m.indices.end(), {t0, t2, t1, t0, t3, t2});
        // Cone side: from the rim at kConeBase to the apex. The side's normal is the gradient of
        // sqrt(x^2 + z^2) - (1 - y) slope: the outward direction tilted up by the slope.
        const uint16_t c0 =
            addVertex(m, d0 + glm::vec3(0, kConeBase, 0), d0 + glm::vec3(0, slope, 0), 0.0f);
        const uint16_t c1 =
            addVertex(m, d1 + glm::vec3(0, kConeBase, 0), d1 + glm::vec3(0, slope, 0), 0.0f);
        const glm::vec3 mid = glm::normalize(d0 + d1);
        const uint16_t apex = addVertex(m, {0.0f, 1.0f, 0.0f}, mid + glm::vec3(0, slope, 0), 0.0f);
        m.indices.insert(m.indices.end(), {c0, apex, c1});
        // The cone's underside: a disc facing down.
        const uint16_t u0 = addVertex(m, d0 + glm::vec3(0, kConeBase, 0), {0, -1, 0}, 0.0f);
        const uint16_t u1 = addVertex(m, d1 + glm::vec3(0, kConeBase, 0), {0, -1, 0}, 0.0f);
        const uint16_t uc = addVertex(m, {0.0f, kConeBase, 0.0f}, {0, -1, 0}, 0.0f);
        m.indices.insert(m.indices.end(), {u0, u1, uc});
    }
    return m;
}

Mesh impostorQuad() {
    Mesh m;
    for (const glm::vec2 c :
         {glm::vec2(-1, -1), glm::vec2(1, -1), glm::vec2(1, 1), glm::vec2(-1, 1)}) {
        m.vertices.push_back({glm::vec3(c, 0.0f), glm::vec3(0.0f, 0.0f, 1.0f), 0.0f});
    }
    m.indices = {0, 1, 2, 0, 2, 3};
    return m;
}

Mesh objectMesh(ObjectMesh which) {
    switch (which) {
        case ObjectMesh::TreeFine:
            return treeMesh(10);
        case ObjectMesh::SphereFine:
            return sphereMesh(2);
        case ObjectMesh::TreeImpostor:
        case ObjectMesh::SphereImpostor:
            return impostorQuad();
    }
    return {};
}

bool isImpostor(ObjectMesh which) {
    return which == ObjectMesh::TreeImpostor || which == ObjectMesh::SphereImpostor;
}

}  // namespace qt
