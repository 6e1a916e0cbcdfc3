// The objects' shared helpers: the Morton order of the moving objects.
#include "core/objects/index.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace qt {

namespace {

// Bits 0..15 of v spread to the even bits of the result.
uint64_t spread16(uint32_t v) {
    uint64_t x = v & 0xFFFFu;
    x = (x | x << 8) & 0x00FF00FFu;
    x = (x | x << 4) & 0x0F0F0F0Fu;
    x = (x | x << 2) & 0x33333333u;
    x = (x | x << 1) & 0x55555555u;
    return x;
}

}  // namespace

void sortByMorton(const std::vector<Box>& swept, float originX, float originZ, float size,
                  std::vector<uint32_t>& moving, std::vector<uint64_t>& keys,
                  std::vector<uint32_t>& slot) {
    const float scale = 65535.0f / size;
    keys.clear();
    for (const uint32_t id : moving) {
        const Box& b = swept[id];
        const float x = (0.5f * (b.min.x + b.max.x) - originX) * scale;
        const float z = (0.5f * (b.min.z + b.max.z) - originZ) * scale;
        const auto cx = uint32_t(std::clamp(x, 0.0f, 65535.0f));
        const auto cz = uint32_t(std::clamp(z, 0.0f, 65535.0f));
        keys.push_back((spread16(cx) | spread16(cz) << 1) << 32 | id);
    }
    // The list was sorted by the previous call and objects move a little between calls, so the
    // keys are nearly in order: an insertion sort while it moves few (at most kMoves a key on
    // average), std::sort from where it stopped otherwise. Keys are distinct (the id is in
    // them), so either gives the one order.
    constexpr size_t kMoves = 8;
    size_t budget = kMoves * keys.size();
    size_t sorted = keys.empty() ? 0 : 1;
    for (; sorted < keys.size(); ++sorted) {
        const uint64_t key = keys[sorted];
        size_t k = sorted;
        while (k > 0 && keys[k - 1] > key && budget > 0) {
            keys[k] = keys[k - 1];
            --k;
            --budget;
        }
        keys[k] = key;
        if (budget == 0) {
            break;
        }
    }
    if (sorted < keys.size()) {
        std::sort(keys.begin(), keys.end());
    }
    for (uint32_t k = 0; k < keys.size(); ++k) {
        const auto id = uint32_t(keys[k]);
        moving[k] = id;
        slot[id] = k;
    }
}

}  // namespace qt
