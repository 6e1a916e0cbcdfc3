// libFuzzer harness for the tree sidecar's parser: the input is a sidecar file. The map it is
// checked against takes its stamp and size from the input's header (clamped to small maps), so
// that inputs get past the header's checks to the counts, lengths and checksum.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/streaming/tree_sidecar.h"
#include "core/terrain/leaf_ranges.h"

namespace {

template <class T>
T field(const uint8_t* data, size_t size, size_t at) {
    T value{};
    if (at + sizeof value <= size) {
        std::memcpy(&value, data + at, sizeof value);
    }
    return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    qt::FileStamp stamp;
    stamp.bytes = field<uint64_t>(data, size, 16);
    stamp.mtimeNs = field<int64_t>(data, size, 24);
    const int width = int(std::clamp<uint32_t>(field<uint32_t>(data, size, 32), 2, 1025));
    const int height = int(std::clamp<uint32_t>(field<uint32_t>(data, size, 36), 2, 1025));
    const uint32_t leaf = field<uint32_t>(data, size, 40);
    const int leafSize = leaf == 2 || leaf == 4 || leaf == 8 || leaf == 16 ? int(leaf) : 4;
    const qt::Result<qt::TreeSidecar> parsed =
        qt::parseTreeSidecar(data, size, stamp, width, height, leafSize);
    if (parsed.ok()) {
        const qt::TreeSidecar& s = parsed.value();
        const size_t leaves =
            size_t(qt::leavesAlong(width, leafSize)) * size_t(qt::leavesAlong(height, leafSize));
        if (s.leafRanges.size() != leaves || s.coarseErrors.size() >= leaves + 1 ||
            s.foldErrors.size() != s.coarseErrors.size() || s.width != width ||
            s.height != height || s.leafSize != leafSize) {
            __builtin_trap();
        }
    } else if (parsed.error().empty() || parsed.error().find('\n') != std::string::npos) {
        __builtin_trap();
    }
    return 0;
}
