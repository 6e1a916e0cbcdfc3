// The object quadtree rebuilt every frame (Savant): moves recorded, the tree rebuilt in cleanup().
#include "core/objects/baselines/rebuilt_tree.h"

namespace qt {

Result<uint32_t> RebuiltObjectTree::insert(const Box& box, Motion motion) {
    if (!validObjectBox(box)) {
        return Result<uint32_t>::failure("object box is not finite with min <= max on each axis");
    }
    stale_ = true;
    return tree_.insertUnindexed(box, motion);
}

Status RebuiltObjectTree::move(uint32_t id, const Box& box) {
    if (!validObjectBox(box)) {
        return Status::failure("object box is not finite with min <= max on each axis");
    }
    tree_.setBoxUnindexed(id, box);
    stale_ = true;
    return {};
}

void RebuiltObjectTree::cleanup() {
    if (stale_) {
        tree_.reindex();
        stale_ = false;
    } else {
        tree_.cleanup();
    }
}

}  // namespace qt
