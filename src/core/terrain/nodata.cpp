// The nodata mask: marked from the samples before their fill, packed for the GPU.
#include "core/terrain/nodata.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace qt {

NodataMask markNodata(const float* samples, int width, int height, float voidValue) {
    NodataMask mask;
    mask.width = width;
    mask.height = height;
    mask.total = int64_t(width) * height;
    const size_t count = size_t(mask.total);
    mask.bits.assign((count + 63) / 64, 0);
    for (size_t i = 0; i < count; ++i) {
        const float v = samples[i];
        if (v == voidValue || std::isnan(v)) {
            mask.bits[i >> 6] |= uint64_t(1) << (i & 63);
            ++mask.samples;
        }
    }
    if (mask.samples == 0) {
        mask.bits.clear();
        mask.bits.shrink_to_fit();
    }
    return mask;
}

std::vector<uint32_t> holeSquareWords(const NodataMask& mask) {
    assert(mask.holes() && mask.width >= 2 && mask.height >= 2);
    const int squares = mask.width - 1;
    const size_t perRow = size_t(squares + 31) / 32;
    std::vector<uint32_t> words(perRow * size_t(mask.height - 1), 0);
    for (int row = 0; row + 1 < mask.height; ++row) {
        uint32_t* out = words.data() + size_t(row) * perRow;
        for (int c = 0; c < squares; ++c) {
            if (mask.holeSquare(c, row)) {
                out[c >> 5] |= 1u << (c & 31);
            }
        }
    }
    return words;
}

bool boxHasNodata(const NodataMask& mask, int x0, int z0, int x1, int z1) {
    for (int row = z0; row <= z1; ++row) {
        const size_t first = size_t(row) * size_t(mask.width) + size_t(x0);
        const size_t last = size_t(row) * size_t(mask.width) + size_t(x1);
        for (size_t i = first; i <= last;) {
            const uint64_t word = mask.bits[i >> 6] >> (i & 63);
            const size_t inWord = std::min<size_t>(64 - (i & 63), last - i + 1);
            const uint64_t keep = inWord == 64 ? ~uint64_t(0) : (uint64_t(1) << inWord) - 1;
            if ((word & keep) != 0) {
                return true;
            }
            i += inWord;
        }
    }
    return false;
}

}  // namespace qt
