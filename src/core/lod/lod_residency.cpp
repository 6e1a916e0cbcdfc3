// The residency bits of a streamed terrain's pooled pages and their effective bits, kept up to
// date page by page.
#include "core/lod/lod_residency.h"

#include <algorithm>
#include <cassert>

namespace qt {

void PageResidency::reset(int pageShift, const std::vector<Size>& levels) {
    assert(levels.size() <= view_.level.size());
    view_ = {};
    view_.pageShift = pageShift;
    view_.levels = int(levels.size());
    uint32_t count = 0;
    for (size_t j = 0; j < levels.size(); ++j) {
        assert(j == 0 || (levels[j].pagesX >= (levels[j - 1].pagesX + 1) / 2 &&
                          levels[j].pagesY >= (levels[j - 1].pagesY + 1) / 2));
        view_.level[j].pagesX = levels[j].pagesX;
        view_.level[j].pagesY = levels[j].pagesY;
        view_.level[j].first = count;
        count += uint32_t(levels[j].pagesX) * uint32_t(levels[j].pagesY);
    }
    resident_.assign(count, 0);
    effective_.assign(count, 0);
    for (size_t j = 0; j < levels.size(); ++j) {
        view_.level[j].resident = resident_.data() + view_.level[j].first;
        view_.level[j].effective = effective_.data() + view_.level[j].first;
    }
}

int PageResidency::levelOf(uint32_t page) const {
    int j = 0;
    while (j + 1 < view_.levels && page >= view_.level[size_t(j + 1)].first) {
        ++j;
    }
    return j;
}

bool PageResidency::refresh(int j, int qx0, int qy0, int qx1, int qy1) {
    const ResidentLevel& at = view_.level[size_t(j)];
    const bool top = j + 1 >= view_.levels;
    bool changed = false;
    for (int y = qy0; y <= qy1; ++y) {
        for (int x = qx0; x <= qx1; ++x) {
            const size_t page = at.first + size_t(y) * size_t(at.pagesX) + size_t(x);
            bool on = resident_[page] != 0;
            if (on && !top) {
                // The 3 x 3 pages of level j + 1 around the parent.
                const ResidentLevel& up = view_.level[size_t(j + 1)];
                const int px = x / 2;
                const int py = y / 2;
                for (int v = std::max(py - 1, 0); on && v <= std::min(py + 1, up.pagesY - 1); ++v) {
                    for (int u = std::max(px - 1, 0); u <= std::min(px + 1, up.pagesX - 1); ++u) {
                        if (up.effective[size_t(v) * size_t(up.pagesX) + size_t(u)] == 0) {
                            on = false;
                            break;
                        }
                    }
                }
            }
            if (effective_[page] != uint8_t(on)) {
                effective_[page] = uint8_t(on);
                changed = true;
            }
        }
    }
    return changed;
}

void PageResidency::set(uint32_t page, bool resident) {
    if (resident_[page] == uint8_t(resident)) {
        return;
    }
    resident_[page] = uint8_t(resident);
    int j = levelOf(page);
    const ResidentLevel& at = view_.level[size_t(j)];
    int qx0 = int((page - at.first) % uint32_t(at.pagesX));
    int qy0 = int((page - at.first) / uint32_t(at.pagesX));
    int qx1 = qx0;
    int qy1 = qy0;
    // Down the levels: the pages whose parents lie within one page of a changed rectangle.
    while (refresh(j, qx0, qy0, qx1, qy1) && j > 0) {
        --j;
        const ResidentLevel& below = view_.level[size_t(j)];
        qx0 = std::max(2 * (qx0 - 1), 0);
        qy0 = std::max(2 * (qy0 - 1), 0);
        qx1 = std::min(2 * (qx1 + 1) + 1, below.pagesX - 1);
        qy1 = std::min(2 * (qy1 + 1) + 1, below.pagesY - 1);
    }
}

}  // namespace qt
