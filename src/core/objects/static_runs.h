// The static objects (trees and rocks) in an order that follows the object tree, so that a
// frame's drawn groups give their static objects as runs of consecutive places in it, not object
// by object: the order a renderer keeps their records in on the GPU, where a frame's runs say
// which to draw. GL-free, so that the object frame bench counts the runs among the objects' CPU
// stages.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/objects/instances.h"
#include "core/objects/loose_tree.h"
#include "core/objects/scene.h"
#include "core/view/camera.h"

namespace qt {

// The static objects at places [first, first + count) of a StaticOrder; in an impostor's list,
// `first` carries kBandRun for a run of objects in the band (drawn both ways), whose impostors
// take their share of the dither (the ids' kBandId).
struct StaticRun {
    uint32_t first;
    uint32_t count;
};
constexpr uint32_t kBandRun = kBandId;
constexpr uint32_t kPlaceMask = kBandId - 1;

// Every static object's place: the trees first (places [0, firstRock)), then the rocks
// ([firstRock, firstBall)), each kind sorted by the full key of its node
// (LooseObjectTree::fullKey), then by id. A node's own static objects of a kind are then one run
// of places, and so are a leaf's (those of its subtree in the tree split everywhere), in any shape
// the moving objects give the tree; and the frame's groups, which come in pre-order, come in the
// order of the keys. Made once for a scene: static objects neither move nor come and go.
class StaticOrder {
public:
    StaticOrder() = default;
    explicit StaticOrder(const ObjectScene& scene);

    uint32_t count() const { return uint32_t(id_.size()); }
    uint32_t firstRock() const { return firstRock_; }
    uint32_t place(uint32_t id) const { return place_[id]; }
    void prefetchPlace(uint32_t id) const { __builtin_prefetch(&place_[id]); }
    uint32_t id(uint32_t place) const { return id_[place]; }
    const uint32_t* ids() const { return id_.data(); }  // by place
    // ObjectScene::staticSize by place, so that a run's sizes are read in order.
    const float* sizes() const { return size_.data(); }

    // The scene it was made for (ObjectScene::serial).
    uint64_t serial() const { return serial_; }
    uint32_t maxDepth() const { return maxDepth_; }

    // The places of kind `rocks` (trees when false) whose keys lie in [keyBegin, keyEnd): a
    // search forward from `cursor` (the end of the last run found of that kind, so that a frame's
    // groups, in key order, are found by short gallops), from the kind's start when the keys lie
    // behind it.
    StaticRun keysIn(bool rocks, uint64_t keyBegin, uint64_t keyEnd, uint32_t& cursor) const;

private:
    std::vector<uint64_t> key_;    // by place
    std::vector<uint32_t> id_;     // by place
    std::vector<float> size_;      // by place
    std::vector<uint32_t> place_;  // by id
    uint32_t firstRock_ = 0;
    uint32_t maxDepth_ = 0;
    uint64_t serial_ = 0;
};

// The lists a frame's static objects are drawn in: per shape (trees; rocks as spheres), its fine
// mesh for those out of the band, for those in it (MeshChoice: both ways), and its impostor.
enum class StaticList : uint8_t {
    TreeFine,
    TreeFineBand,
    TreeImpostor,
    RockFine,
    RockFineBand,
    RockImpostor
};
constexpr int kStaticLists = 6;

// A frame's static objects as runs of places per list, each list's runs in place order, apart
// and not touching unless one is marked kBandRun and the other not (a run that would continue the
// last one extends it): an object in the band is in its fine mesh's band list and in its
// impostor's list, there in a run marked kBandRun.
struct StaticRuns {
    std::array<std::vector<StaticRun>, kStaticLists> runs;
    std::array<uint32_t, kStaticLists> objects{};  // per list, the objects its runs hold
    uint32_t recordsRead = 0;       // objects whose way their group's box left to their record
    uint32_t nodesSearched = 0;     // groups' nodes whose runs were not known (`known`)
    std::vector<uint32_t> scratch;  // a partly reported group's places
    // What earlier frames found of each node (by its number in the tree's pool) while its stamp
    // (LooseObjectTree::stamp) stays: its static objects' runs of places, one a kind, so that a
    // frame searches the order only for the nodes new to the view or changed since; of the order
    // whose serial is orderSerial.
    // A run with the least and the greatest size in it: a group's box that puts both on one side
    // of the band takes the run that way whole, its sizes unread (the way is monotone in the
    // size, in floats too).
    struct SizedRun {
        StaticRun run{0, 0};
        float smallest = 0.0f;
        float largest = 0.0f;
    };
    struct NodeStatics {
        uint64_t stamp = 0;  // 0: nothing known
        SizedRun trees;
        SizedRun rocks;
    };
    std::vector<NodeStatics> known;
    uint64_t orderSerial = 0;

    // Room for `count` static objects, so that no frame allocates.
    void reserve(uint32_t count);
};

// The static objects of `drawn` (ids of `scene`, split into `groups` as the frame's drawn list
// is: ObjectGroups with their nodes), as runs of `order`'s places, each in the list of its way
// (the same as buildObjectInstances': its size and its group's box, its record where the box
// leaves it open). A group holding all of its node's objects gives its static objects as the runs
// of its node's keys, read from the order alone; a group holding those the frustum met gives
// each of theirs. Without groups (or with none), every static object, each by its record.
void buildStaticRuns(const StaticOrder& order, const ObjectScene& scene,
                     const std::vector<uint32_t>& drawn, const ObjectGroups* groups,
                     const Camera& camera, int viewportHeight, StaticRuns& out,
                     const ObjectDetail& detail = {});

// The bytes a frame sends the GPU for `runs`: two 32-bit numbers a run.
uint64_t staticRunBytes(const StaticRuns& runs);

// Counts `runs`' objects into `in` (built with StaticsSent::AsRuns) as the ids they expand into:
// idCounts, bandIds and inBoth by mesh, as if sent by id, so that the draws and
// instanceTriangles read them alike.
void countStaticRuns(const StaticRuns& runs, ObjectInstances& in);
// The bytes a frame sends the GPU for the balls' whole instances in `in` and for `runs`.
uint64_t runsUploadBytes(const ObjectInstances& in, const StaticRuns& runs);

// Writes `runs`' places into `in`'s id lists (built with StaticsSent::AsRuns, counted by
// countStaticRuns) as buildObjectInstances writes ids: each place marked kBandId in the band and
// kSelectedId when it is among `selectedPlaces` (sorted). What a GPU expands the runs into
// (ObjectRenderer), done on the CPU where it cannot.
void expandStaticRuns(const StaticRuns& runs, const std::vector<uint32_t>& selectedPlaces,
                      ObjectInstances& in);
// The same objects as whole instances in the same order (expandStaticRuns' entries, each read
// from `scene` through `order`), marked kSelectedLook and kBandLook: what a GPU that cannot hold
// the records draws, in the order the ids would draw them.
void staticRunInstances(const StaticRuns& runs, const StaticOrder& order, const ObjectScene& scene,
                        const std::vector<uint32_t>& selectedPlaces,
                        std::vector<ObjectInstance>& out);

}  // namespace qt
