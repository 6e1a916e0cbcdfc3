// Image headers read before stb_image decodes: the format, the size, and whether the file holds
// all the pixel data its header promises (stb_image fills what is missing with zeros).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/result.h"

namespace qt {

struct ImageInfo {
    const char* format = "";  // "PNG", "BMP", ... as it starts the error lines
    int64_t width = 0;
    int64_t height = 0;  // positive: a top-down BMP's negative height is its row order
};

// Checks the image whose first `size` bytes are at `bytes`, in a file of `fileSize` bytes
// (size == fileSize when the whole file is here): a format we decode, a size within the limits,
// the layouts stb_image supports, and enough pixel data. Uncompressed data is checked from the
// header and the file's length alone; with the whole file, the PNG deflate stream is inflated
// (without keeping the output) to exactly its header's size, and the TGA, PSD and HDR run lengths
// and the GIF LZW codes are walked to the last pixel. Errors are one line without the path,
// starting with the format ("BMP: ...") except for the size limits.
Result<ImageInfo> checkImage(const unsigned char* bytes, size_t size, uint64_t fileSize);

}  // namespace qt
