// The image header checks' shared parts: bounds-checked reads of the header bytes, the error
// lines, and each format's check (core/io/image_header.h dispatches by magic bytes). Internal to
// image_header*.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/base/result.h"
#include "core/io/image_header.h"
#include "core/terrain/heightmap.h"

namespace qt::imagecheck {

using Info = Result<ImageInfo>;

// Bounds-checked little- and big-endian reads of the header bytes.
struct Bytes {
    const unsigned char* data;
    size_t size;
    uint64_t fileSize;

    bool whole() const { return size == fileSize; }
    bool has(size_t at, size_t n) const { return at <= size && n <= size - at; }
    uint32_t u8(size_t at) const { return data[at]; }
    uint32_t le16(size_t at) const { return uint32_t(data[at] | data[at + 1] << 8); }
    uint32_t le32(size_t at) const { return le16(at) | le16(at + 2) << 16; }
    uint32_t be16(size_t at) const { return uint32_t(data[at] << 8 | data[at + 1]); }
    uint32_t be32(size_t at) const { return be16(at) << 16 | be16(at + 2); }
};

inline std::string num(uint64_t v) {
    return std::to_string(v);
}
inline std::string size(int64_t w, int64_t h) {
    return std::to_string(w) + "x" + std::to_string(h);
}

inline Info fail(const char* format, const std::string& problem) {
    return Info::failure(std::string(format) + ": " + problem);
}

// The size limits, then the result.
inline Info sized(const char* format, int64_t width, int64_t height) {
    if (Status problem = checkDimensions(width, height); !problem) {
        return Info::failure(problem.error());
    }
    return ImageInfo{format, width, height};
}

// "the file ends after N of the M bytes ..." for uncompressed pixel data.
inline Info needBytes(const char* format, const Bytes& b, uint64_t needed, int64_t width,
                      int64_t height, const std::string& what) {
    if (b.fileSize < needed) {
        return fail(format, "truncated: " + size(width, height) + " pixels " + what + " need " +
                                num(needed) + " bytes, the file has " + num(b.fileSize));
    }
    return sized(format, width, height);
}

inline Info truncatedHeader(const char* format) {
    return fail(format, "truncated header");
}

// Each format's check of its header and, with the whole file, of its pixel data.
Info checkPng(const Bytes& b);  // image_header_png.cpp
Info checkBmp(const Bytes& b);
Info checkJpeg(const Bytes& b);
Info checkPnm(const Bytes& b);
Info checkTga(const Bytes& b);  // image_header_rle.cpp: TGA, PSD and HDR, run-length formats
Info checkPsd(const Bytes& b);
Info checkHdr(const Bytes& b);
Info checkGif(const Bytes& b);  // image_header_gif.cpp

}  // namespace qt::imagecheck
