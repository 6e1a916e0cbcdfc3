// The uniform grid baseline: per-cell element lists from one free-listed pool.
#include "core/objects/baselines/uniform_grid.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace qt {

UniformGrid::UniformGrid(float originX, float originZ, float size, uint32_t cells)
    : originX_(originX), originZ_(originZ), inverseSide_(float(cells) / size), cells_(cells) {
    assert(cells >= 1 && size > 0);
    head_.assign(size_t(cells) * cells, kNone);
}

// The cell of a coordinate: the one whose half-open span holds it, border cells reaching out.
uint32_t UniformGrid::cellOf(float v, float origin) const {
    const float c = std::floor((v - origin) * inverseSide_);
    if (!(c > 0.0f)) {
        return 0;
    }
    return c >= float(cells_ - 1) ? cells_ - 1 : uint32_t(c);
}

UniformGrid::CellRange UniformGrid::rangeOf(const Box& b) const {
    return {cellOf(b.min.x, originX_), cellOf(b.min.z, originZ_), cellOf(b.max.x, originX_),
            cellOf(b.max.z, originZ_)};
}

void UniformGrid::add(uint32_t cell, uint32_t object) {
    uint32_t e = freeElements_;
    if (e != kNone) {
        freeElements_ = elements_[e].next;
        elements_[e] = {object, head_[cell]};
    } else {
        e = uint32_t(elements_.size());
        elements_.push_back({object, head_[cell]});
    }
    head_[cell] = e;
}

void UniformGrid::removeFrom(uint32_t cell, uint32_t object) {
    for (uint32_t* link = &head_[cell]; *link != kNone; link = &elements_[*link].next) {
        const uint32_t e = *link;
        if (elements_[e].object == object) {
            *link = elements_[e].next;
            elements_[e].next = freeElements_;
            freeElements_ = e;
            return;
        }
    }
    assert(false && "object not in its cell");
}

void UniformGrid::build(const Box* boxes, const Motion* motions, uint32_t count) {
    std::fill(head_.begin(), head_.end(), kNone);
    elements_.clear();
    freeElements_ = kNone;
    box_.assign(boxes, boxes + count);
    swept_.assign(boxes, boxes + count);
    moving_.resize(count);
    movingList_.clear();
    for (uint32_t i = 0; i < count; ++i) {
        moving_[i] = uint8_t(motions[i]);
        if (motions[i] == Motion::Moving) {
            movingList_.push_back(i);
        }
        const CellRange r = rangeOf(boxes[i]);
        for (uint32_t z = r.z0; z <= r.z1; ++z) {
            for (uint32_t x = r.x0; x <= r.x1; ++x) {
                add(z * cells_ + x, i);
            }
        }
    }
}

void UniformGrid::move(uint32_t id, const Box& box) {
    const Box stored = moving_[id] ? unionBox(box_[id], box) : box;
    const CellRange a = rangeOf(swept_[id]), b = rangeOf(stored);
    box_[id] = box;
    swept_[id] = stored;
    if (a.x0 == b.x0 && a.z0 == b.z0 && a.x1 == b.x1 && a.z1 == b.z1) {
        return;
    }
    auto in = [](const CellRange& r, uint32_t x, uint32_t z) {
        return x >= r.x0 && x <= r.x1 && z >= r.z0 && z <= r.z1;
    };
    for (uint32_t z = a.z0; z <= a.z1; ++z) {
        for (uint32_t x = a.x0; x <= a.x1; ++x) {
            if (!in(b, x, z)) {
                removeFrom(z * cells_ + x, id);
            }
        }
    }
    for (uint32_t z = b.z0; z <= b.z1; ++z) {
        for (uint32_t x = b.x0; x <= b.x1; ++x) {
            if (!in(a, x, z)) {
                add(z * cells_ + x, id);
            }
        }
    }
}

// A pair is reported only in the cell owning the lowest corner of the two boxes' overlap.
void UniformGrid::collisionPairs(std::vector<ObjectPair>& out) const {
    out.clear();
    for (const uint32_t m : movingList_) {
        const Box& sm = swept_[m];
        const CellRange r = rangeOf(sm);
        for (uint32_t z = r.z0; z <= r.z1; ++z) {
            for (uint32_t x = r.x0; x <= r.x1; ++x) {
                for (uint32_t e = head_[z * cells_ + x]; e != kNone; e = elements_[e].next) {
                    const uint32_t o = elements_[e].object;
                    if (o == m || (moving_[o] && o < m)) {
                        continue;
                    }
                    const Box& so = swept_[o];
                    if (boxesOverlap(sm, so) &&
                        cellOf(std::max(sm.min.x, so.min.x), originX_) == x &&
                        cellOf(std::max(sm.min.z, so.min.z), originZ_) == z) {
                        out.push_back(m < o ? ObjectPair{m, o} : ObjectPair{o, m});
                    }
                }
            }
        }
    }
    std::sort(out.begin(), out.end());
}

void UniformGrid::queryRect(const Rect& rect, std::vector<uint32_t>& out) const {
    out.clear();
    if (!validRect(rect)) {
        return;
    }
    const CellRange r = rangeOf({{rect.minX, 0.0f, rect.minZ}, {rect.maxX, 0.0f, rect.maxZ}});
    for (uint32_t z = r.z0; z <= r.z1; ++z) {
        for (uint32_t x = r.x0; x <= r.x1; ++x) {
            for (uint32_t e = head_[z * cells_ + x]; e != kNone; e = elements_[e].next) {
                const uint32_t o = elements_[e].object;
                const Box& b = box_[o];
                if (boxMeetsRect(b, rect) && cellOf(std::max(b.min.x, rect.minX), originX_) == x &&
                    cellOf(std::max(b.min.z, rect.minZ), originZ_) == z) {
                    out.push_back(o);
                }
            }
        }
    }
    std::sort(out.begin(), out.end());
}

size_t UniformGrid::indexBytes() const {
    return head_.capacity() * sizeof(uint32_t) + elements_.capacity() * sizeof(Element);
}

}  // namespace qt
