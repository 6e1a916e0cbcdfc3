// What both object quadtrees keep per object, indexed by id: the box, the swept box the tree
// indexes, motion and liveness; the live moving objects in a list ordered along a Morton curve;
// and the ids free for reuse (most recently removed first, so ids stay deterministic).
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

#include "core/object_index.h"

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

    // The moving list in Morton order over the tree's root square.
    void sortMoving(float originX, float originZ, float size) {
        sortByMorton(swept, originX, originZ, size, movingList, mortonKeys, movingSlot);
    }
};

}  // namespace qt
