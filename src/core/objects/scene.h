// Objects on the terrain: trees and rocks standing on the ground and balls rolling downhill under
// gravity, colliding with each other and with what stands (the Abound scene of Heroic Virtue 2004
// on real terrain), indexed by the loose object quadtree (core/objects/loose_tree.h, chosen over
// the every-leaf tree by the step and query figures at the top of
// core/objects/baselines/every_leaf_tree.h) and stepped at a fixed time step, so that a run is
// reproducible.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "core/base/result.h"
#include "core/objects/loose_tree.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/surface.h"
#include "core/terrain/world.h"

namespace qt {

enum class ObjectKind : uint8_t { Tree, Rock, Ball };

const char* objectKindName(ObjectKind kind);

// What a step did, for the HUD and --stats-json.
struct StepStats {
    uint32_t pairsTested = 0;  // candidate pairs from the tree (swept boxes overlapping)
    uint32_t contacts = 0;     // those whose shapes touched during the step
    double updateMs = 0.0;     // moving the balls and the tree's update
    double collideMs = 0.0;    // candidate pairs and their resolution
};

// One object's shape in 24 bytes, read together: by the step once per ball, by the renderer once
// per drawn ball (and per drawn static object whose mesh its group leaves open), and once per
// scene for the GPU's copy of the static ones.
struct ObjectShape {
    glm::vec3 base{0.0f};
    float radius = 0.0f;
    float height = 0.0f;
    ObjectKind kind = ObjectKind::Tree;
};

// The size unit objects are made in (tree radii 0.8 to 2 of it, heights 4 to 9; rocks' radii 0.6
// to 1.8; balls' 0.8 to 1.6): kObjectUnitMetres metres on a map whose world is in metres
// (horizontalMetres), else a sample spacing (the smaller, at most 1/256 of the map's longer
// side); times `scale` (--object-scale) either way.
struct ObjectSizing {
    float unit = 1.0f;    // world units
    bool metres = false;  // the unit is kObjectUnitMetres metres times scale
    float scale = 1.0f;
};

constexpr float kObjectUnitMetres = 3.0f;

ObjectSizing objectSizing(const Heightmap& map, const WorldMapping& mapping, float scale);

// The scene: per object (indexed by id, 0..count-1, the moving ones last) its kind and shape, and
// the tree of its boxes. A tree is a cone on a trunk in a vertical cylinder of `radius` from
// `base.y` up `height`; a rock a flattened sphere of `radius` and half-height `height` centred at
// `base`; a ball a sphere of `radius` centred at `base` (`height` = radius).
class ObjectScene {
public:
    // Scatters `count` objects over the map, the last `moving` of them balls, deterministically
    // for `seed`, sized by objectSizing(map, mapping, scale); trees and rocks stand on the
    // ground, numbered along a Morton curve of their places, balls rest on it, none overlapping
    // another. Where the balls find no free place
    // among objects of full size, every object is made smaller, down to a quarter
    // (sizeScale()). Fails with one line when moving > count, count > kMaxObjects, scale is
    // not in (0, kMaxObjectScale], or a ball
    // finds no place at a quarter of the size.
    static Result<ObjectScene> scatter(const Heightmap& map, const WorldMapping& mapping,
                                       uint32_t count, uint32_t moving, uint64_t seed,
                                       float scale = 1.0f);

    // One fixed step of kObjectStepSeconds: gravity along the slope, rolling drag, the map's edge
    // bounces; then the candidate pairs of the swept boxes (Heroic Virtue 2004's rule: the box
    // swept from the previous to the new position, so a fast ball never tunnels through another)
    // and, for those that touch during the step, each ball stopped at its first contact and an
    // elastic bounce. No two shapes overlap after a step if none did before (tested). `map` must
    // keep its codes.
    StepStats step(const Heightmap& map, const WorldMapping& mapping);

    uint32_t count() const { return uint32_t(shape_.size()); }
    // Ids by kind: trees in [0, firstRock()), rocks in [firstRock(), firstBall()), balls from
    // firstBall() on.
    uint32_t firstRock() const { return firstRock_; }
    uint32_t firstBall() const { return firstBall_; }
    // A static object's size, max(radius, height), which decides its mesh with its distance:
    // kept apart from its shape, so that a frame's mesh choices read 4 bytes an object, not 24.
    float staticSize(uint32_t id) const { return size_[id]; }
    const float* staticSizes() const { return size_.data(); }
    uint32_t movingCount() const { return uint32_t(balls_.size()); }
    uint64_t steps() const { return steps_; }
    // The share of their own size the objects were scattered at: 1 unless the map was crowded.
    float sizeScale() const { return sizeScale_; }
    // The unit they were made in (before sizeScale).
    const ObjectSizing& sizing() const { return sizing_; }
    // Distinct for every scatter in the process: a copy of the static objects' records made for
    // one scene (the renderer's) is that of another exactly when their serials differ.
    uint64_t serial() const { return serial_; }
    const ObjectShape& shape(uint32_t id) const { return shape_[id]; }
    ObjectKind kind(uint32_t id) const { return shape_[id].kind; }
    const glm::vec3& base(uint32_t id) const { return shape_[id].base; }
    float radius(uint32_t id) const { return shape_[id].radius; }
    float height(uint32_t id) const { return shape_[id].height; }
    // The ball's horizontal velocity (x, z), world units a second; zero for a static object.
    glm::vec2 velocity(uint32_t id) const;
    const LooseObjectTree& index() const { return index_; }
    // The box drawn inside: every vertex of the object's mesh lies in it.
    Box box(uint32_t id) const { return index_.box(id); }

    // Whether two objects' shapes overlap by more than `tolerance` world units (two statics
    // never count): the invariant each step keeps.
    bool overlapping(uint32_t a, uint32_t b, float tolerance) const;

private:
    // The scatter in `sizing`'s unit times `scale`; `crowded` when it failed because a ball
    // found no free place.
    static Result<ObjectScene> scatterAt(const Heightmap& map, const WorldMapping& mapping,
                                         uint32_t count, uint32_t moving, uint64_t seed,
                                         const ObjectSizing& sizing, float scale, bool& crowded);
    Box shapeBox(uint32_t id, const glm::vec3& at) const;
    float contactTime(uint32_t a, uint32_t b) const;
    bool overlapsAt(uint32_t a, uint32_t b, float fa, float fb, float tolerance) const;
    glm::vec3 positionAt(uint32_t id, float fraction) const;
    void stopAtContacts();
    void bounce(uint32_t a, uint32_t b);

    LooseObjectTree index_;
    std::vector<ObjectShape> shape_;
    uint32_t firstRock_ = 0;   // ids from here on are rocks, up to firstBall_
    uint32_t firstBall_ = 0;   // ids from here on are balls
    std::vector<float> size_;  // per static object
    // Per ball (id - firstBall_).
    std::vector<uint32_t> balls_;
    std::vector<uint32_t> order_;  // the balls in the tree's Morton order, for the step's loops
    std::vector<glm::vec2> velocity_;
    std::vector<glm::vec3> normal_;  // the ground's unit normal under the ball (0 while unknown)
    std::vector<glm::vec3> start_;   // the position at the step's start
    std::vector<float> fraction_;    // how far along start_ -> base_ the ball may go
    std::vector<float> contact_;     // per candidate pair: first contact time, or > 1
    std::vector<ObjectPair> pairs_;  // the step's candidate pairs
    uint64_t steps_ = 0;
    uint64_t serial_ = 0;
    float sizeScale_ = 1.0f;
    ObjectSizing sizing_;
};

}  // namespace qt
