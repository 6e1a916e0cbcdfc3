// A 16-bit grayscale PNG decoded straight into 16-bit codes, row by row: no whole-image
// inflate buffer and no second copy of the pixels (stb_image holds both).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace qt {

// Whether the PNG at `bytes` (at least its IHDR) is 16-bit grayscale, non-interlaced: the layout
// decodeGray16Png reads.
bool isGray16Png(const unsigned char* bytes, size_t size);

// Inflates and unfilters the IDAT stream of a whole PNG file one row at a time into
// `out[row * width + col]` (the file's big-endian samples as numbers). The file's chunk layout and
// stream were checked before (checkImage); errors here are one line without the path.
Status decodeGray16Png(const unsigned char* bytes, size_t size, int width, int height,
                       uint16_t* out);

}  // namespace qt
