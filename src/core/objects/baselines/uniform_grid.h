// A uniform grid of objects over x/z: the baseline the object quadtree is benchmarked against.
// Each object is in every cell its swept box overlaps; cells on the border reach to infinity
// outwards (as the tree's border leaves do), so objects off the square are kept and found.
#pragma once

#include <cstdint>
#include <vector>

#include "core/objects/index.h"

namespace qt {

class UniformGrid {
public:
    // cells x cells square cells of side size / cells from (originX, originZ).
    UniformGrid(float originX, float originZ, float size, uint32_t cells);

    // Replaces everything with objects 0..count-1 (boxes must be valid).
    void build(const Box* boxes, const Motion* motions, uint32_t count);
    // As ObjectIndex::move: a moving object's swept box is its previous box and the new one.
    void move(uint32_t id, const Box& box);
    // As ObjectIndex::collisionPairs and queryRect: exact, sorted.
    void collisionPairs(std::vector<ObjectPair>& out) const;
    void queryRect(const Rect& rect, std::vector<uint32_t>& out) const;

    size_t indexBytes() const;

private:
    struct CellRange {
        uint32_t x0, z0, x1, z1;  // inclusive
    };
    struct Element {
        uint32_t object;
        uint32_t next;
    };
    static constexpr uint32_t kNone = 0xFFFFFFFFu;

    uint32_t cellOf(float v, float origin) const;  // clamped to [0, cells - 1]
    CellRange rangeOf(const Box& b) const;
    void add(uint32_t cell, uint32_t object);
    void removeFrom(uint32_t cell, uint32_t object);

    float originX_, originZ_, inverseSide_;
    uint32_t cells_;
    std::vector<uint32_t> head_;  // per cell: first element (kNone: empty)
    std::vector<Element> elements_;
    uint32_t freeElements_ = kNone;
    std::vector<Box> box_;
    std::vector<Box> swept_;
    std::vector<uint8_t> moving_;
    std::vector<uint32_t> movingList_;
};

}  // namespace qt
