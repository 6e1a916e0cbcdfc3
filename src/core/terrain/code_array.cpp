// Comparing codes, and handing a mapping's pages back to the page cache.
#include "core/terrain/code_array.h"

#include <algorithm>

#include "core/base/scratch_array.h"

namespace qt {

bool operator==(const CodeArray& a, const CodeArray& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

void CodeArray::dropResident(size_t first, size_t count) const {
    if (!isMapped() || count == 0) {
        return;
    }
    assert(first <= size_ && count <= size_ - first);
    // Read-only and shared with the file: the pages are dropped from this process only.
    dropMappedPages(view_ + first, count * sizeof(uint16_t), first + count == size_);
}

}  // namespace qt
