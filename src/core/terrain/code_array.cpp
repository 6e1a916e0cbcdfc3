// Comparing codes, and handing a mapping's pages back to the page cache.
#include "core/terrain/code_array.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace qt {

bool operator==(const CodeArray& a, const CodeArray& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

void CodeArray::dropResident(size_t first, size_t count) const {
    if (!isMapped() || count == 0) {
        return;
    }
    assert(first <= size_ && count <= size_ - first);
    static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    const auto start = reinterpret_cast<uintptr_t>(view_ + first);
    const auto stop = reinterpret_cast<uintptr_t>(view_ + first + count);
    const uintptr_t from = (start + page - 1) / page * page;  // whole pages only: a neighbour's
    uintptr_t to = stop / page * page;                        // codes stay where they are
    if (first + count == size_) {
        to = (stop + page - 1) / page * page;  // the mapping's last page, past the file's end
    }
    if (from < to) {
        // Read-only and shared with the file: the pages are dropped from this process only.
        ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    }
}

}  // namespace qt
