// PNG: the IHDR and every critical chunk against their CRCs, and the image data inflated
// (nothing kept) to exactly the size its header needs.
#include <algorithm>
#include <cstring>
#include <vector>

#include <zlib.h>

#include "core/base/text.h"
#include "core/io/image_checks.h"

namespace qt::imagecheck {

// Bytes of the filtered scanlines (a filter byte each) of a width x height PNG, all 7 passes of
// Adam7 when interlaced.
uint64_t pngRawBytes(uint64_t width, uint64_t height, uint64_t bitsPerPixel, bool interlaced) {
    auto rows = [&](uint64_t w, uint64_t h) {
        return w == 0 || h == 0 ? 0 : h * (1 + (w * bitsPerPixel + 7) / 8);
    };
    if (!interlaced) {
        return rows(width, height);
    }
    static const int kPasses[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                      {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
    uint64_t total = 0;
    for (const auto& p : kPasses) {
        const uint64_t w = width > uint64_t(p[0]) ? (width - p[0] + p[2] - 1) / p[2] : 0;
        const uint64_t h = height > uint64_t(p[1]) ? (height - p[1] + p[3] - 1) / p[3] : 0;
        total += rows(w, h);
    }
    return total;
}

// Inflates the IDAT chunks into a small scratch buffer, counting the bytes: exactly `expected`.
// With part of the file, decides only when the IEND chunk is inside that part.
Info checkPngData(const Bytes& b, uint64_t expected, const ImageInfo& info) {
    z_stream z{};
    if (inflateInit(&z) != Z_OK) {
        return fail("PNG", "cannot start zlib");
    }
    unsigned char scratch[65536];
    uint64_t produced = 0;
    int status = Z_OK;
    bool sawData = false;
    std::string problem;
    size_t at = 8;
    bool sawEnd = false;
    while (problem.empty() && b.has(at, 8)) {
        const uint64_t length = b.be32(at);
        const std::string type(reinterpret_cast<const char*>(b.data) + at + 4, 4);
        const std::string tag = escapedText(type);
        // Past the bytes at hand: with part of the file, its IDAT data is inflated as far as it
        // goes (a chunk of junk fails at once), the rest checked once the whole file is read.
        const bool partial = length + 4 > b.size - at - 8;  // its data and CRC
        if (partial && !b.whole() && type != "IDAT") {
            inflateEnd(&z);
            return info;
        }
        if (partial && b.whole()) {
            problem = "truncated: chunk '" + tag + "' of " + num(length) +
                      " bytes runs past the end of the file";
            break;
        }
        if (type == "IEND") {
            sawEnd = true;
            break;
        }
        // Critical chunks (an upper-case first letter) must pass their CRC, as libpng requires.
        if (!partial && std::isupper(static_cast<unsigned char>(type[0])) &&
            uint32_t(crc32(0, b.data + at + 4, uInt(length + 4))) != b.be32(at + 8 + length)) {
            problem = "corrupt image data (chunk '" + tag + "' at offset " + num(at) +
                      " fails its CRC check)";
            break;
        }
        if (type == "IDAT" && status == Z_OK) {  // data after the stream's end is ignored
            sawData = true;
            z.next_in = const_cast<unsigned char*>(b.data + at + 8);
            z.avail_in = uInt(std::min<uint64_t>(length, b.size - at - 8));
            while (z.avail_in > 0 && status == Z_OK) {
                z.next_out = scratch;
                z.avail_out = sizeof scratch;
                status = inflate(&z, Z_NO_FLUSH);
                produced += sizeof scratch - z.avail_out;
                if (status == Z_BUF_ERROR) {  // no progress possible: needs more input
                    status = Z_OK;
                    break;
                }
                if (produced > expected) {
                    problem = "image data inflates to more than the " + num(expected) +
                              " bytes its " + size(info.width, info.height) + " header needs";
                    break;
                }
            }
            if (problem.empty() && status != Z_OK && status != Z_STREAM_END) {
                problem = std::string("corrupt image data (deflate: ") +
                          (z.msg ? z.msg : "error " + std::to_string(status)) + ")";
            }
        }
        if (partial) {
            inflateEnd(&z);
            return problem.empty() ? Info(info) : fail("PNG", problem);
        }
        at += 12 + size_t(length);
    }
    // Output still held back by zlib once its input ended.
    while (problem.empty() && status == Z_OK && sawData) {
        z.next_out = scratch;
        z.avail_out = sizeof scratch;
        status = inflate(&z, Z_SYNC_FLUSH);
        const uint64_t got = sizeof scratch - z.avail_out;
        produced += got;
        if (got == 0) {
            break;
        }
    }
    inflateEnd(&z);
    if (problem.empty() && !b.whole() && !b.has(at, 8)) {
        return info;
    }
    if (!problem.empty()) {
        return fail("PNG", problem);
    }
    if (!sawData) {
        return fail("PNG", "no image data (IDAT chunk)");
    }
    if (!sawEnd) {
        return fail("PNG", "truncated: the file ends before its IEND chunk");
    }
    if (produced > expected) {
        return fail("PNG", "image data inflates to more than the " + num(expected) + " bytes its " +
                               size(info.width, info.height) + " header needs");
    }
    if (produced < expected || status != Z_STREAM_END) {
        return fail("PNG", "truncated: image data inflates to " + num(produced) + " of the " +
                               num(expected) + " bytes its " + size(info.width, info.height) +
                               " header needs");
    }
    return info;
}

Info checkPng(const Bytes& b) {
    if (!b.has(0, 33)) {
        return truncatedHeader("PNG");
    }
    if (b.be32(8) != 13 || std::memcmp(b.data + 12, "IHDR", 4) != 0) {
        return fail("PNG", "the first chunk is not a 13-byte IHDR");
    }
    if (uint32_t(crc32(0, b.data + 12, 17)) != b.be32(29)) {
        return fail("PNG", "corrupt header (IHDR fails its CRC check)");
    }
    const int64_t width = b.be32(16);
    const int64_t height = b.be32(20);
    const uint32_t depth = b.u8(24);
    const uint32_t colour = b.u8(25);
    static const struct {
        uint32_t colour;
        const char* name;
        int channels;
        const char* depths;  // the bit depths allowed, as characters 1 2 4 8 and 6 for 16
    } kColours[] = {{0, "grey", 1, "12486"},
                    {2, "RGB", 3, "86"},
                    {3, "palette", 1, "1248"},
                    {4, "grey+alpha", 2, "86"},
                    {6, "RGBA", 4, "86"}};
    const auto* type = std::find_if(std::begin(kColours), std::end(kColours),
                                    [&](const auto& c) { return c.colour == colour; });
    if (type == std::end(kColours)) {
        return fail("PNG", "colour type " + num(colour) + " is not valid (0, 2, 3, 4 or 6)");
    }
    const char depthChar = depth == 16 ? '6' : char('0' + std::min(depth, 9u));
    if (depth == 0 || std::strchr(type->depths, depthChar) == nullptr) {
        return fail("PNG",
                    "bit depth " + num(depth) + " is not valid for " + type->name + " images");
    }
    if (b.u8(26) != 0 || b.u8(27) != 0) {
        return fail("PNG", "unknown compression or filter method in the header");
    }
    if (b.u8(28) > 1) {
        return fail("PNG", "unknown interlace method " + num(b.u8(28)));
    }
    Info info = sized("PNG", width, height);
    if (!info) {
        return info;
    }
    const uint64_t expected = pngRawBytes(uint64_t(width), uint64_t(height),
                                          uint64_t(type->channels) * depth, b.u8(28) == 1);
    return checkPngData(b, expected, info.value());
}

}  // namespace qt::imagecheck
