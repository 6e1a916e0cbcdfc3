// GIF: the logical screen and the first frame within it, and the frame's LZW codes counted to its
// last pixel.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/io/image_checks.h"

namespace qt::imagecheck {

// Counts the pixels the LZW codes of one frame (frameWidth x frameHeight) decode to, as
// stb_image decodes them.
Info countGifPixels(const Bytes& b, size_t at, int64_t frameWidth, int64_t frameHeight,
                    const ImageInfo& info) {
    const uint64_t pixels = uint64_t(frameWidth) * uint64_t(frameHeight);
    const uint32_t minCode = b.u8(at++);
    if (minCode > 12 || minCode < 1) {
        return fail("GIF", "corrupt image data (LZW code size " + num(minCode) + ")");
    }
    std::vector<uint32_t> lengths(8193, 1);
    const int32_t clear = 1 << minCode;
    int32_t codeSize = int32_t(minCode) + 1;
    int32_t mask = (1 << codeSize) - 1;
    int32_t avail = clear + 2;
    int32_t oldCode = -1;
    bool first = true;
    uint32_t bits = 0;
    int32_t validBits = 0;
    size_t blockLeft = 0;
    uint64_t done = 0;
    auto truncated = [&] {
        return fail("GIF", "truncated: the image data holds " + num(done) + " of the " +
                               size(frameWidth, frameHeight) + " pixels" +
                               (frameWidth != info.width || frameHeight != info.height
                                    ? " of its first frame"
                                    : ""));
    };
    while (done < pixels) {
        if (validBits < codeSize) {
            if (blockLeft == 0) {
                if (at >= b.size) {
                    return truncated();
                }
                blockLeft = b.u8(at++);
                if (blockLeft == 0) {
                    return truncated();
                }
            }
            if (at >= b.size) {
                return truncated();
            }
            --blockLeft;
            bits |= b.u8(at++) << validBits;
            validBits += 8;
            continue;
        }
        const int32_t code = int32_t(bits & uint32_t(mask));
        bits >>= codeSize;
        validBits -= codeSize;
        if (code == clear) {
            codeSize = int32_t(minCode) + 1;
            mask = (1 << codeSize) - 1;
            avail = clear + 2;
            oldCode = -1;
            first = false;
        } else if (code == clear + 1) {
            return truncated();  // the end code before the last pixel
        } else if (code <= avail) {
            if (first) {
                return fail("GIF", "corrupt image data (no clear code)");
            }
            if (oldCode >= 0) {
                lengths[size_t(avail)] = lengths[size_t(oldCode)] + 1;
                if (++avail > 8192) {
                    return fail("GIF", "corrupt image data (too many codes)");
                }
            } else if (code == avail) {
                return fail("GIF", "corrupt image data (illegal code)");
            }
            done += lengths[size_t(code)];
            if ((avail & mask) == 0 && avail <= 0x0FFF) {
                ++codeSize;
                mask = (1 << codeSize) - 1;
            }
            oldCode = code;
        } else {
            return fail("GIF", "corrupt image data (illegal code)");
        }
    }
    return info;
}

Info checkGif(const Bytes& b) {
    if (!b.has(0, 13)) {
        return truncatedHeader("GIF");
    }
    const int64_t width = b.le16(6);
    const int64_t height = b.le16(8);
    Info info = sized("GIF", width, height);
    if (!info) {
        return info;
    }
    const uint32_t flags = b.u8(10);
    size_t at = 13 + ((flags & 0x80) != 0 ? size_t(3) << ((flags & 7) + 1) : 0);
    auto skipBlocks = [&] {
        while (at < b.size && b.u8(at) != 0) {
            at += 1 + b.u8(at);
        }
        ++at;
    };
    for (;;) {
        if (at >= b.size) {
            return b.whole() ? fail("GIF", "truncated: the file ends before its first image")
                             : info;
        }
        const uint32_t block = b.u8(at);
        if (block == 0x21) {  // an extension: label, then data blocks
            at += 2;
            skipBlocks();
        } else if (block == 0x2C) {
            break;
        } else if (block == 0x3B) {
            return fail("GIF", "no image in the file");
        } else {
            return fail("GIF", "corrupt block (byte " + num(block) + " at offset " + num(at) + ")");
        }
    }
    if (!b.has(at, 10)) {
        return b.whole() ? truncatedHeader("GIF") : info;
    }
    const int64_t x = b.le16(at + 1);
    const int64_t y = b.le16(at + 3);
    const int64_t w = b.le16(at + 5);
    const int64_t h = b.le16(at + 7);
    // stb_image composes the first frame onto the screen (the rest stays the background), so a
    // frame anywhere within the screen loads, as the screen's size.
    if (x + w > width || y + h > height) {
        return fail("GIF", "the first frame (" + size(w, h) + " at " + std::to_string(x) + "," +
                               std::to_string(y) + ") reaches beyond the " + size(width, height) +
                               " screen");
    }
    const uint32_t frameFlags = b.u8(at + 9);
    at += 10 + ((frameFlags & 0x80) != 0 ? size_t(3) << ((frameFlags & 7) + 1) : 0);
    if (!b.whole()) {
        return info;
    }
    if (at >= b.size) {
        return fail("GIF", "truncated: the file ends before the image data");
    }
    return countGifPixels(b, at, w, h, info.value());
}

}  // namespace qt::imagecheck
