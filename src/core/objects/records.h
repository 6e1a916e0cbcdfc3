// What both object quadtrees keep per object, indexed by id: the box, the swept box the tree
// indexes, motion and liveness; the live moving objects in a list ordered along a Morton curve;
// and the ids free for reuse (most recently removed first, so ids stay deterministic); and the
// ObjectIndex base that answers the per-object accessors from them.
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

#include "core/objects/index.h"

namespace qt {

struct ObjectRecords {
    static constexpr uint32_t kNone = 0xFFFFFFFFu;

    std::vector<Box> box;
    std::vector<Box> swept;  // what the tree indexes: the swept box (moving), the box (static)
    std::vector<uint8_t> moving;
    std::vector<uint8_t> alive;
    // Live moving objects, in Morton order of their swept boxes' centres after sortMoving();
    // movingSlot is the way back.
    std::vector<uint32_t> movingList;
    std::vector<uint64_t> mortonKeys;  // sortMoving(): Morton code << 32 | id
    std::vector<uint32_t> movingSlot;
    std::vector<uint32_t> freeIds;
    uint32_t liveCount = 0;

    // A new live object with `b` as its box and swept box: a freed id, or the next one.
    uint32_t add(const Box& b, Motion motion) {
        uint32_t id;
        if (!freeIds.empty()) {
            id = freeIds.back();
            freeIds.pop_back();
        } else {
            id = uint32_t(box.size());
            box.emplace_back();
            swept.emplace_back();
            moving.push_back(0);
            alive.push_back(0);
            movingSlot.push_back(kNone);
        }
        box[id] = b;
        swept[id] = b;
        alive[id] = 1;
        moving[id] = uint8_t(motion);
        if (motion == Motion::Moving) {
            movingSlot[id] = uint32_t(movingList.size());
            movingList.push_back(id);
        }
        ++liveCount;
        return id;
    }

    // The object is no longer live; its id goes to the free list.
    void drop(uint32_t id) {
        assert(alive[id]);
        alive[id] = 0;
        if (moving[id]) {
            const uint32_t slot = movingSlot[id];
            movingList[slot] = movingList.back();
            movingSlot[movingList[slot]] = slot;
            movingList.pop_back();
            movingSlot[id] = kNone;
            moving[id] = 0;
        }
        freeIds.push_back(id);
        --liveCount;
    }

    // f(id) for each live object; then whether the live objects and the free ids add up with the
    // ids handed out and the live count. For the trees' invariant checks.
    template <class F>
    bool forEachLiveAddsUp(F&& f) const {
        uint32_t live = 0;
        for (uint32_t id = 0; id < alive.size(); ++id) {
            if (alive[id]) {
                ++live;
                f(id);
            }
        }
        return live == liveCount && live + freeIds.size() == alive.size();
    }

    // The moving list in Morton order over the tree's root square.
    void sortMoving(float originX, float originZ, float size) {
        sortByMorton(swept, originX, originZ, size, movingList, mortonKeys, movingSlot);
    }
};

// An ObjectIndex keeping its objects in ObjectRecords: the accessors, the same for every tree.
class RecordedObjectIndex : public ObjectIndex {
public:
    uint32_t objectCount() const final { return objects_.liveCount; }
    bool alive(uint32_t id) const final {
        return id < objects_.alive.size() && objects_.alive[id] != 0;
    }
    const Box& box(uint32_t id) const final { return objects_.box[id]; }
    const Box& sweptBox(uint32_t id) const final { return objects_.swept[id]; }
    Motion motion(uint32_t id) const final { return Motion(objects_.moving[id]); }

protected:
    ObjectRecords objects_;  // per object, indexed by id
};

}  // namespace qt
