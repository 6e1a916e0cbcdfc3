// Picking objects: the first object along a ray by the shapes drawn (a ball's sphere, a rock's
// flattened sphere, a tree's trunk and cone, core/objects/mesh.h), found through the object tree's
// ray query with each candidate's shape tested after its box, and the brute-force test of every
// object's shape that it must equal. The viewer's cursor and `--pick` name the object under a
// pixel when it lies nearer than the terrain there.
#pragma once

#include <cstdint>
#include <optional>

#include <glm/vec3.hpp>

#include "core/cull/pick.h"
#include "core/objects/scene.h"

namespace qt {

// Where `ray` (origin, direction of any length but zero) first enters object `id`'s shape at
// its current place, in units of the direction's length, from 0 (an origin inside) up to
// `maxDistance`; none when it misses. The mesh drawn has its corners on these round shapes, so
// the drawn object lies inside the shape picked.
std::optional<float> objectShapeEntry(const ObjectScene& scene, uint32_t id, const PickRay& ray,
                                      float maxDistance);

// The object whose shape the ray enters first, within maxDistance (the lowest id among equal
// distances): the tree's ray query, each box entered tested against its shape.
std::optional<RayHit> pickObject(const ObjectScene& scene, const PickRay& ray, float maxDistance);

// What a pixel shows of the objects: the first object along its ray when the ray enters it no
// farther than `terrain`'s hit (anywhere when the terrain is missed): its id and kind, and the
// point entered.
struct ObjectPickHit {
    uint32_t id = 0;
    ObjectKind kind = ObjectKind::Tree;
    float t = 0.0f;  // in units of the ray direction's length, as PickHit::t
    glm::vec3 world{0.0f};
};
std::optional<ObjectPickHit> pickObjectBefore(const ObjectScene& scene, const PickRay& ray,
                                              const PickHit& terrain);

// Every object's shape tested: the reference pickObject equals.
std::optional<RayHit> pickObjectBruteForce(const ObjectScene& scene, const PickRay& ray,
                                           float maxDistance);

}  // namespace qt
