// The second strategy behind ObjectIndex: the object quadtree cleared and rebuilt every frame
// from pooled nodes (Savant, "Quadtree"), moves only recorded until cleanup().
#pragma once

#include <cassert>

#include "core/objects/baselines/every_leaf_tree.h"

namespace qt {

// Inserts, removes and moves change the objects and mark the tree stale; cleanup() (once per
// frame, before the queries) rebuilds it top down into the same pools, so nothing is allocated
// after the first frames. Querying a stale tree is a programmer error.
class RebuiltObjectTree final : public ObjectIndex {
public:
    explicit RebuiltObjectTree(const ObjectTreeConfig& config = {}) : tree_(config) {}

    Result<uint32_t> insert(const Box& box, Motion motion) override;
    void remove(uint32_t id) override {
        tree_.removeUnindexed(id);
        stale_ = true;
    }
    Status move(uint32_t id, const Box& box) override;
    Status build(const Box* boxes, const Motion* motions, uint32_t count) override {
        stale_ = false;
        return tree_.build(boxes, motions, count);
    }
    void cleanup() override;

    void queryRect(const Rect& rect, std::vector<uint32_t>& out) const override {
        assert(!stale_);
        tree_.queryRect(rect, out);
    }
    void queryFrustum(const Frustum& frustum, std::vector<uint32_t>& out) const override {
        assert(!stale_);
        tree_.queryFrustum(frustum, out);
    }
    std::optional<RayHit> queryRay(const Ray& ray) const override {
        assert(!stale_);
        return tree_.queryRay(ray);
    }
    void collisionPairs(std::vector<ObjectPair>& out) const override {
        assert(!stale_);
        tree_.collisionPairs(out);
    }

    uint32_t objectCount() const override { return tree_.objectCount(); }
    bool alive(uint32_t id) const override { return tree_.alive(id); }
    const Box& box(uint32_t id) const override { return tree_.box(id); }
    const Box& sweptBox(uint32_t id) const override { return tree_.sweptBox(id); }
    Motion motion(uint32_t id) const override { return tree_.motion(id); }
    size_t indexBytes() const override { return tree_.indexBytes(); }

    const ObjectTree& tree() const { return tree_; }

private:
    ObjectTree tree_;
    bool stale_ = false;  // boxes moved since the last rebuild
};

}  // namespace qt
