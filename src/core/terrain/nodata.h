// Which samples are nodata (a band's nodata value, NaN, SRTM voids, GDAL's mask): kept as one bit
// a sample so that the renderer leaves their cells out, the occlusion stage never lets them hide
// anything, and the HUD says how many there were.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qt {

// The samples the file gave no value for. Their codes hold the fill (fillVoids: the mean of known
// neighbours, breadth first), so that level of detail and the tree's bounds see one continuous
// surface; with `bits` they are holes: every grid square with a nodata corner is left out of the
// picture. `bits` is empty when no sample is nodata, or when the fill is shown as terrain
// (filled: --fill-nodata).
struct NodataMask {
    int width = 0;               // samples a row, when bits is not empty
    int height = 0;              // rows
    int64_t samples = 0;         // nodata samples in the file
    int64_t total = 0;           // samples in the file
    bool filled = false;         // nodata samples are drawn as their fill, not as holes
    std::vector<uint64_t> bits;  // bit (row * width + col) set: nodata; empty: no holes

    bool holes() const { return !bits.empty(); }
    bool at(int col, int row) const {
        const size_t i = size_t(row) * size_t(width) + size_t(col);
        return (bits[i >> 6] >> (i & 63) & 1u) != 0;
    }
    // The grid square whose north-west corner is sample (col, row) has a nodata corner.
    bool holeSquare(int col, int row) const {
        return at(col, row) || at(col + 1, row) || at(col, row + 1) || at(col + 1, row + 1);
    }
    // The share of the file's samples that are nodata, 0..1.
    double share() const { return total > 0 ? double(samples) / double(total) : 0.0; }
    // Shows the fill as terrain: the bits go, the count stays.
    void fill() {
        filled = samples > 0;
        bits.clear();
        bits.shrink_to_fit();
    }
};

// The mask of samples equal to voidValue among width x height (voidValue may be an infinity; NaN
// samples count as nodata too). Call it before the fill replaces them.
NodataMask markNodata(const float* samples, int width, int height, float voidValue);

// The squares of the mask, 32 a word along each row: bit (c & 31) of word row * ((width - 1 + 31)
// / 32) + c / 32 set when square (c, row) has a nodata corner; (height - 1) rows. The renderer's
// hole texture.
std::vector<uint32_t> holeSquareWords(const NodataMask& mask);

// Whether the sample box [x0, x1] x [z0, z1] (inclusive) holds a nodata sample, i.e. whether a
// square of it has a nodata corner.
bool boxHasNodata(const NodataMask& mask, int x0, int z0, int x1, int z1);

}  // namespace qt
