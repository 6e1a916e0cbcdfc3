// Which height pages of a streamed terrain's pooled levels are on the GPU, and which of them let
// the level-of-detail selection split a node there (the rule argued in core/lod/lod.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/config.h"

namespace qt {

// One pooled level's pages, row-major, as PageRequest numbers them from `first`.
struct ResidentLevel {
    const uint8_t* resident = nullptr;   // nonzero: the page is on the GPU
    const uint8_t* effective = nullptr;  // nonzero: the page lets nodes split (LodResidency)
    int pagesX = 0;
    int pagesY = 0;
    uint32_t first = 0;
};

// The pages of levels 0 .. levels - 1 that a streamed terrain has on the GPU; the levels above
// are always resident. Level j's pages are 2^(pageShift + j) map squares a side, node-aligned and
// at least two of the level's leaves wide, so a node of level j lies in one page of level j, and a
// node of level j + 1 in one page of level j too.
//
// A page p of level j is effective when it is resident and, for j + 1 pooled, the 3 x 3 pages of
// level j + 1 around its parent (the level-(j + 1) page holding it) are effective; a node of level
// L (1 <= L <= levels) splits only when its level-(L - 1) page is effective. So the pages a split
// needs are its level-(L - 1) page and, level by level up to the last pooled one, the 3 x 3 pages
// around the parents of the pages below (forEachNeeded): a cone of at most 4 x 4 pages a level.
// With levels 0 and 1 pooled this is the level-1 node's level-0 page and the 3 x 3 level-1 pages
// around its own, and the level-2 node's level-1 page.
struct LodResidency {
    int pageShift = 0;  // log2 of a level-0 page's map squares
    int levels = 0;     // pooled levels (0: none, every node splits as far as pages go)
    std::array<ResidentLevel, kMaxTreeDepth + 1> level{};

    // The index in level j of the page holding map sample (x0, z0).
    uint32_t indexAt(int j, int x0, int z0) const {
        const int shift = pageShift + j;
        return uint32_t(z0 >> shift) * uint32_t(level[size_t(j)].pagesX) + uint32_t(x0 >> shift);
    }
    // The same page as PageRequest numbers it.
    uint32_t pageAt(int j, int x0, int z0) const {
        return level[size_t(j)].first + indexAt(j, x0, z0);
    }
    // Whether the page of level j holding map sample (x0, z0) is on the GPU (always above the
    // pooled levels).
    bool holds(int j, int x0, int z0) const {
        return j >= levels || level[size_t(j)].resident[indexAt(j, x0, z0)] != 0;
    }
    // Whether the node at level L whose first sample is (x0, z0) may split, as far as its pages go.
    bool splits(int L, int x0, int z0) const {
        return L < 1 || L > levels || level[size_t(L - 1)].effective[indexAt(L - 1, x0, z0)] != 0;
    }
    // PageRequest's numbers of every pooled page: the last pooled level's last page + 1.
    uint32_t pageCount() const {
        if (levels == 0) {
            return 0;
        }
        const ResidentLevel& last = level[size_t(levels - 1)];
        return last.first + uint32_t(last.pagesX) * uint32_t(last.pagesY);
    }
    // Calls f(j, qx0, qy0, qx1, qy1) for each pooled level j from L - 1 up with the rectangle of
    // its pages that the split of the node at level L (1 <= L <= levels) whose first sample is
    // (x0, z0) needs effective (the comment above): every page whose absence holds it back is a
    // page of these rectangles that is not resident.
    template <typename F>
    void forEachNeeded(int L, int x0, int z0, F f) const {
        int j = L - 1;
        int qx0 = x0 >> (pageShift + j);
        int qy0 = z0 >> (pageShift + j);
        int qx1 = qx0;
        int qy1 = qy0;
        for (;;) {
            f(j, qx0, qy0, qx1, qy1);
            if (++j >= levels) {
                return;
            }
            const ResidentLevel& up = level[size_t(j)];
            qx0 = qx0 / 2 > 0 ? qx0 / 2 - 1 : 0;
            qy0 = qy0 / 2 > 0 ? qy0 / 2 - 1 : 0;
            qx1 = qx1 / 2 + 1 < up.pagesX ? qx1 / 2 + 1 : up.pagesX - 1;
            qy1 = qy1 / 2 + 1 < up.pagesY ? qy1 / 2 + 1 : up.pagesY - 1;
        }
    }
};

// The residency bits of a streamed terrain's pooled pages, with each page's effective bit kept up
// to date as pages come and go: a change re-derives the pages below it whose parents' rings hold
// it, level by level down while any bit changes. Main thread only.
class PageResidency {
public:
    // One pooled level's pages across and down, level 0 first.
    struct Size {
        int pagesX = 0;
        int pagesY = 0;
    };
    // Sizes the bits for `levels` (each level's pages at most those below, halved and rounded up),
    // pages of level 0 2^pageShift map squares a side, none resident.
    void reset(int pageShift, const std::vector<Size>& levels);
    // Makes page `page` (as PageRequest numbers it) resident or not.
    void set(uint32_t page, bool resident);
    bool resident(uint32_t page) const { return resident_[page] != 0; }
    bool effective(uint32_t page) const { return effective_[page] != 0; }
    // The pooled level of page `page`.
    int levelOf(uint32_t page) const;
    // What the selection reads (LodParams::residency); it points into this object.
    const LodResidency& view() const { return view_; }

private:
    // Re-derives the effective bits of level j's pages [qx0, qx1] x [qy0, qy1]; true when any
    // changed.
    bool refresh(int j, int qx0, int qy0, int qx1, int qy1);

    std::vector<uint8_t> resident_;   // per page, numbered as PageRequest numbers them
    std::vector<uint8_t> effective_;  // the same
    LodResidency view_;
};

}  // namespace qt
