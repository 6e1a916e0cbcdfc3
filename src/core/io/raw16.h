// Headerless grids of 16-bit samples: SRTM .hgt (big-endian, signed, square) and .r16/.raw
// (little-endian), sized from their length and options before they are read.
#pragma once

#include <cstdint>

#include "core/base/result.h"
#include "core/io/load.h"

namespace qt {

// The size of a headerless file of 16-bit samples.
struct RawGrid {
    int width;
    int height;
};

// The size of a headerless .hgt (`hgt`) or .r16/.raw file from its length and options.rawWidth x
// rawHeight (0 x 0: a square), checked against the limits (kBakeSizeLimit for what the bake
// reads) and the length before it is read. The error is one line without the path.
Result<RawGrid> rawGrid(bool hgt, uint64_t length, const LoadOptions& options,
                        SizeLimit limit = kMapSizeLimit);

}  // namespace qt
