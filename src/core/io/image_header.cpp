// Header checks of every stb_image format we load (the formats by magic bytes; BMP, JPEG and
// PGM/PPM here, the others in image_header_png.cpp, image_header_rle.cpp and image_header_gif.cpp),
// finding the truncations stb_image would fill with zeros.
#include "core/io/image_header.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/io/image_checks.h"

namespace qt {
namespace imagecheck {

// BMP

Info checkBmp(const Bytes& b) {
    if (!b.has(0, 26)) {
        return truncatedHeader("BMP");
    }
    const uint64_t offset = b.le32(10);
    const uint32_t headerSize = b.le32(14);
    if (headerSize != 12 && headerSize != 40 && headerSize != 56 && headerSize != 108 &&
        headerSize != 124) {
        return fail("BMP", "header of " + num(headerSize) + " bytes is not a known version");
    }
    if (!b.has(0, 14 + headerSize)) {
        return truncatedHeader("BMP");
    }
    int64_t width = 0;
    int64_t height = 0;
    uint32_t bits = 0;
    uint32_t compression = 0;
    uint32_t planes = 0;
    if (headerSize == 12) {
        width = b.le16(18);
        height = b.le16(20);
        planes = b.le16(22);
        bits = b.le16(24);
    } else {
        width = int32_t(b.le32(18));
        height = int32_t(b.le32(22));
        planes = b.le16(26);
        bits = b.le16(28);
        compression = b.le32(30);
    }
    if (planes != 1) {
        return fail("BMP", num(planes) + " colour planes (must be 1)");
    }
    if (compression == 1 || compression == 2) {
        return fail("BMP", "RLE compression is not supported (save it uncompressed)");
    }
    if (compression != 0 && compression != 3) {
        return fail("BMP", "compression " + num(compression) +
                               " is not supported (uncompressed or bit fields only)");
    }
    if (bits != 1 && bits != 4 && bits != 8 && bits != 16 && bits != 24 && bits != 32) {
        return fail("BMP", num(bits) + " bits per pixel is not supported (1, 4, 8, 16, 24, 32)");
    }
    if (compression == 3 && bits != 16 && bits != 32) {
        return fail("BMP", "bit fields need 16 or 32 bits per pixel, not " + num(bits));
    }
    if (width < 0) {
        return fail("BMP", "negative width " + std::to_string(width));
    }
    height = height < 0 ? -height : height;  // negative: rows stored top first
    if (Info info = sized("BMP", width, height); !info) {
        return info;
    }
    const uint64_t masks = headerSize == 40 && compression == 3 ? 12 : 0;
    if (offset < 14 + headerSize + masks) {
        return fail("BMP", "pixel data offset " + num(offset) + " lies inside the header");
    }
    const uint64_t rowBytes = (uint64_t(width) * bits + 31) / 32 * 4;
    return needBytes("BMP", b, offset + rowBytes * uint64_t(height), width, height,
                     "at " + num(bits) + " bits from offset " + num(offset));
}

// JPEG

// Every 8x8 block of the first component takes at least one bit (its DC code) in the first scan:
// a shorter file is cut short, whatever its markers say.
Info checkJpegLength(const Bytes& b, const ImageInfo& info) {
    const uint64_t blocks = uint64_t((info.width + 7) / 8) * uint64_t((info.height + 7) / 8);
    if (b.fileSize * 8 < blocks) {
        return fail("JPEG", "truncated: " + size(info.width, info.height) +
                                " pixels need at least " + num((blocks + 7) / 8) +
                                " bytes, the file has " + num(b.fileSize));
    }
    return info;
}

// Walks the markers to the end-of-image one: a file cut short has none.
Info checkJpeg(const Bytes& b) {
    ImageInfo info{"JPEG", 0, 0};
    size_t at = 2;
    for (;;) {
        if (!b.has(at, 2)) {
            return b.whole() ? fail("JPEG", "truncated: the file ends before its end marker")
                             : Info(info);
        }
        if (b.u8(at) != 0xFF) {
            return fail("JPEG", "corrupt data (no marker at offset " + num(at) + ")");
        }
        const uint32_t marker = b.u8(at + 1);
        at += 2;
        if (marker == 0xFF) {  // fill byte
            --at;
            continue;
        }
        if (marker == 0xD9) {
            break;
        }
        if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {
            continue;
        }
        if (!b.has(at, 2)) {
            continue;  // reported above
        }
        const size_t length = b.be16(at);
        if (length < 2) {
            return fail("JPEG", "corrupt segment length at offset " + num(at));
        }
        const bool frame =
            marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (frame && b.has(at, 7)) {
            if (marker > 0xC2) {
                return fail("JPEG", "frame type SOF" + num(marker - 0xC0) +
                                        " is not supported (baseline or progressive only)");
            }
            info.height = b.be16(at + 3);
            info.width = b.be16(at + 5);
            if (Info sizedInfo = sized("JPEG", info.width, info.height); !sizedInfo) {
                return sizedInfo;
            }
            if (Info longEnough = checkJpegLength(b, info); !longEnough) {
                return longEnough;
            }
        }
        at += length;
        if (marker == 0xDA) {  // entropy-coded data up to the next marker that is not a restart
            while (at + 1 < b.size &&
                   !(b.u8(at) == 0xFF && b.u8(at + 1) != 0 && b.u8(at + 1) != 0xFF &&
                     !(b.u8(at + 1) >= 0xD0 && b.u8(at + 1) <= 0xD7))) {
                ++at;
            }
        }
    }
    if (info.width == 0) {
        return fail("JPEG", "no frame header");
    }
    return checkJpegLength(b, info);
}

// PGM/PPM

Info checkPnm(const Bytes& b) {
    size_t at = 2;
    auto number = [&](int64_t& value) {
        while (at < b.size && (std::isspace(b.data[at]) || b.data[at] == '#')) {
            if (b.data[at] == '#') {
                while (at < b.size && b.data[at] != '\n') {
                    ++at;
                }
            } else {
                ++at;
            }
        }
        value = 0;
        const size_t start = at;
        while (at < b.size && std::isdigit(b.data[at]) && at - start < 9) {
            value = value * 10 + (b.data[at++] - '0');
        }
        return at > start && at < b.size && !std::isdigit(b.data[at]);
    };
    int64_t width = 0;
    int64_t height = 0;
    int64_t maxValue = 0;
    if (!number(width) || !number(height) || !number(maxValue) || maxValue < 1 ||
        maxValue > 65535 || !std::isspace(b.data[at])) {
        return b.whole() || b.size > 4096 ? fail("PGM/PPM", "corrupt header")
                                          : ImageInfo{"PGM/PPM", 0, 0};
    }
    const uint64_t channels = b.data[1] == '6' ? 3 : 1;
    const uint64_t sampleBytes = maxValue > 255 ? 2 : 1;
    if (Info info = sized("PGM/PPM", width, height); !info) {
        return info;
    }
    return needBytes("PGM/PPM", b,
                     at + 1 + uint64_t(width) * uint64_t(height) * channels * sampleBytes, width,
                     height, "of " + num(channels * sampleBytes) + " bytes");
}

}  // namespace imagecheck

namespace {

using imagecheck::Bytes;

bool startsWith(const Bytes& b, const char* magic) {
    const size_t n = std::strlen(magic);
    return b.has(0, n) && std::memcmp(b.data, magic, n) == 0;
}

}  // namespace

Result<ImageInfo> checkImage(const unsigned char* data, size_t size, uint64_t fileSize) {
    using namespace imagecheck;
    const Bytes b{data, size, fileSize};
    if (startsWith(b, "\x89PNG\r\n\x1a\n")) {
        return checkPng(b);
    }
    if (startsWith(b, "BM")) {
        return checkBmp(b);
    }
    if (startsWith(b, "GIF87a") || startsWith(b, "GIF89a")) {
        return checkGif(b);
    }
    if (startsWith(b, "8BPS")) {
        return checkPsd(b);
    }
    if (startsWith(b, "#?RADIANCE\n") || startsWith(b, "#?RGBE\n")) {
        return checkHdr(b);
    }
    if (startsWith(b, "\xFF\xD8")) {
        return checkJpeg(b);
    }
    if (startsWith(b, "P5") || startsWith(b, "P6")) {
        return checkPnm(b);
    }
    return checkTga(b);
}

}  // namespace qt
