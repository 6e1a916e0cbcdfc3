// Header checks of every stb_image format we load, and the walks over their compressed data that
// find a truncation stb_image would fill with zeros.
#include "core/image_header.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <zlib.h>

#include "core/heightmap.h"
#include "core/text.h"

namespace qt {
namespace {

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

std::string num(uint64_t v) {
    return std::to_string(v);
}
std::string size(int64_t w, int64_t h) {
    return std::to_string(w) + "x" + std::to_string(h);
}

Info fail(const char* format, const std::string& problem) {
    return Info::failure(std::string(format) + ": " + problem);
}

// The size limits, then the result.
Info sized(const char* format, int64_t width, int64_t height) {
    if (Status problem = checkDimensions(width, height); !problem) {
        return Info::failure(problem.error());
    }
    return ImageInfo{format, width, height};
}

// "the file ends after N of the M bytes ..." for uncompressed pixel data.
Info needBytes(const char* format, const Bytes& b, uint64_t needed, int64_t width, int64_t height,
               const std::string& what) {
    if (b.fileSize < needed) {
        return fail(format, "truncated: " + size(width, height) + " pixels " + what + " need " +
                                num(needed) + " bytes, the file has " + num(b.fileSize));
    }
    return sized(format, width, height);
}

Info truncatedHeader(const char* format) {
    return fail(format, "truncated header");
}

// ---- PNG ----

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

// ---- BMP ----

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

// ---- TGA ----

bool looksLikeTga(const Bytes& b) {
    if (!b.has(0, 18)) {
        return false;
    }
    const uint32_t mapType = b.u8(1);
    const uint32_t type = b.u8(2);
    const uint32_t bits = b.u8(16);
    if (mapType == 1) {
        const uint32_t entry = b.u8(7);
        return (type == 1 || type == 9) &&
               (entry == 8 || entry == 15 || entry == 16 || entry == 24 || entry == 32) &&
               (bits == 8 || bits == 16);
    }
    return mapType == 0 && (type == 2 || type == 3 || type == 10 || type == 11) &&
           (bits == 8 || bits == 15 || bits == 16 || bits == 24 || bits == 32);
}

Info checkTga(const Bytes& b) {
    if (!looksLikeTga(b)) {
        return Info::failure(
            "not a readable image (no PNG, JPEG, BMP, TGA, GIF, PSD, HDR or PGM/PPM header)");
    }
    const int64_t width = b.le16(12);
    const int64_t height = b.le16(14);
    const uint64_t pixelBytes = (b.u8(16) + 7) / 8;
    const uint64_t start =
        18 + b.u8(0) + (b.u8(1) == 1 ? uint64_t(b.le16(5)) * ((b.u8(7) + 7) / 8) : 0);
    if (Info info = sized("TGA", width, height); !info) {
        return info;
    }
    const uint64_t pixels = uint64_t(width) * uint64_t(height);
    if (b.u8(2) < 9) {
        return needBytes("TGA", b, start + pixels * pixelBytes, width, height,
                         "at " + num(b.u8(16)) + " bits");
    }
    // Run-length packets: a count byte, then one pixel (a run) or count pixels (literal).
    if (b.fileSize < start + (pixels + 127) / 128 * (1 + pixelBytes)) {
        return fail("TGA", "truncated: the file is too short for " + size(width, height) +
                               " pixels of RLE data");
    }
    if (!b.whole()) {
        return sized("TGA", width, height);
    }
    uint64_t at = start;
    uint64_t done = 0;
    while (done < pixels) {
        if (at >= b.size) {
            return fail("TGA", "truncated: the RLE data ends after " + num(done) + " of the " +
                                   size(width, height) + " pixels");
        }
        const uint32_t packet = b.u8(size_t(at));
        const uint64_t count = (packet & 127) + 1;
        at += 1 + (packet & 128 ? 1 : count) * pixelBytes;
        if (at > b.size) {
            return fail("TGA", "truncated: the RLE data ends after " + num(done) + " of the " +
                                   size(width, height) + " pixels");
        }
        done += count;
    }
    return sized("TGA", width, height);
}

// ---- PSD ----

Info checkPsd(const Bytes& b) {
    if (!b.has(0, 26)) {
        return truncatedHeader("PSD");
    }
    if (b.be16(4) != 1) {
        return fail("PSD", "version " + num(b.be16(4)) + " is not supported (1 only)");
    }
    const uint32_t channels = b.be16(12);
    const int64_t height = b.be32(14);
    const int64_t width = b.be32(18);
    const uint32_t depth = b.be16(22);
    const uint32_t mode = b.be16(24);
    if (channels > 16) {
        return fail("PSD", num(channels) + " channels (at most 16)");
    }
    if (depth != 8 && depth != 16) {
        return fail("PSD", "bit depth " + num(depth) + " is not supported (8 or 16)");
    }
    if (mode != 3) {
        return fail("PSD", "colour mode " + num(mode) + " is not supported (RGB only)");
    }
    Info info = sized("PSD", width, height);
    if (!info) {
        return info;
    }
    uint64_t at = 26;
    for (int section = 0; section < 3; ++section) {  // colour mode, resources, layers
        if (!b.has(size_t(at), 4)) {
            return b.whole() ? truncatedHeader("PSD") : info;
        }
        at += 4 + uint64_t(b.be32(size_t(at)));
    }
    if (at + 2 > b.fileSize) {
        return truncatedHeader("PSD");
    }
    if (!b.has(size_t(at), 2)) {
        return info;
    }
    const uint32_t compression = b.be16(size_t(at));
    at += 2;
    const uint64_t pixels = uint64_t(width) * uint64_t(height);
    const uint64_t planes = std::min(channels, 4u);  // stb_image reads the first four
    if (compression == 0) {
        return needBytes("PSD", b, at + planes * pixels * (depth / 8), width, height,
                         "in " + num(planes) + " channels of " + num(depth) + " bits");
    }
    if (compression != 1) {
        return fail("PSD", "compression " + num(compression) + " is not supported (raw or RLE)");
    }
    at += uint64_t(height) * channels * 2;  // the rows' byte counts
    if (b.fileSize < at + planes * ((pixels + 127) / 128) * 2) {
        return fail("PSD", "truncated: the file is too short for " + size(width, height) +
                               " pixels of RLE data");
    }
    if (!b.whole()) {
        return info;
    }
    // PackBits, each channel's pixels in one run as stb_image reads them.
    for (uint64_t plane = 0; plane < planes; ++plane) {
        uint64_t done = 0;
        while (done < pixels) {
            if (at >= b.size) {
                return fail("PSD", "truncated: the RLE data of channel " + num(plane) +
                                       " ends after " + num(done) + " of the " +
                                       size(width, height) + " pixels");
            }
            const uint32_t n = b.u8(size_t(at++));
            if (n == 128) {
                continue;
            }
            const uint64_t count = n < 128 ? n + 1 : 257 - n;
            if (count > pixels - done) {
                return fail("PSD", "corrupt RLE data (a run crosses the end of channel " +
                                       num(plane) + ")");
            }
            at += n < 128 ? count : 1;
            if (at > b.size) {
                return fail("PSD", "truncated: the RLE data of channel " + num(plane) +
                                       " ends after " + num(done) + " of the " +
                                       size(width, height) + " pixels");
            }
            done += count;
        }
    }
    return info;
}

// ---- HDR ----

Info checkHdr(const Bytes& b) {
    size_t at = 0;
    auto line = [&](std::string& out) {
        out.clear();
        while (at < b.size && b.data[at] != '\n' && out.size() < 1024) {
            out += char(b.data[at++]);
        }
        if (at >= b.size) {
            return false;
        }
        ++at;
        return true;
    };
    std::string text;
    bool formatOk = false;
    std::string format;
    line(text);  // the #?RADIANCE signature
    for (;;) {
        if (!line(text)) {
            return b.whole() ? truncatedHeader("HDR") : ImageInfo{"HDR", 0, 0};
        }
        if (text.empty()) {
            break;
        }
        if (text.rfind("FORMAT=", 0) == 0) {
            format = text.substr(7);
            formatOk = format == "32-bit_rle_rgbe";
        }
    }
    if (!formatOk) {
        std::string shown = format.empty() ? "none given" : "'" + format.substr(0, 40) + "'";
        for (char& c : shown) {
            c = std::isprint(static_cast<unsigned char>(c)) ? c : '?';
        }
        return fail("HDR", "format " + shown + " is not supported (32-bit_rle_rgbe only)");
    }
    if (!line(text)) {
        return b.whole() ? truncatedHeader("HDR") : ImageInfo{"HDR", 0, 0};
    }
    long long height = 0;
    long long width = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "-Y %lld +X %lld%c", &height, &width, &tail) != 2) {
        std::string shown = text.substr(0, 40);
        for (char& c : shown) {
            c = std::isprint(static_cast<unsigned char>(c)) ? c : '?';
        }
        return fail("HDR", "layout '" + shown +
                               "' is not supported (only -Y HEIGHT +X WIDTH: rows top first)");
    }
    Info info = sized("HDR", width, height);
    if (!info) {
        return info;
    }
    const uint64_t pixels = uint64_t(width) * uint64_t(height);
    if (width < 8 || width >= 32768) {  // always flat RGBE
        return needBytes("HDR", b, at + pixels * 4, width, height, "of 4 bytes");
    }
    if (b.fileSize < at + uint64_t(height) * 4) {
        return fail("HDR",
                    "truncated: the file is too short for " + size(width, height) + " pixels");
    }
    if (!b.whole()) {
        return info;
    }
    // stb_image's reading: a row that does not start 2 2 is flat data for the whole image.
    for (int64_t row = 0; row < height; ++row) {
        if (!b.has(at, 4)) {
            return fail("HDR", "truncated: the data ends at row " + std::to_string(row) + " of " +
                                   std::to_string(height));
        }
        if (b.u8(at) != 2 || b.u8(at + 1) != 2 || (b.u8(at + 2) & 0x80) != 0) {
            return needBytes("HDR", b, at + pixels * 4, width, height, "of 4 bytes");
        }
        if (int64_t(b.u8(at + 2) << 8 | b.u8(at + 3)) != width) {
            return fail("HDR",
                        "corrupt data (row " + std::to_string(row) + " has the wrong length)");
        }
        at += 4;
        for (int component = 0; component < 4; ++component) {
            int64_t done = 0;
            while (done < width) {
                if (at >= b.size) {
                    return fail("HDR", "truncated: the data ends at row " + std::to_string(row) +
                                           " of " + std::to_string(height));
                }
                uint32_t count = b.u8(at++);
                const bool run = count > 128;
                count -= run ? 128 : 0;
                if (count == 0 || int64_t(count) > width - done) {
                    return fail("HDR", "corrupt run-length data at row " + std::to_string(row));
                }
                at += run ? 1 : count;
                done += count;
            }
        }
        if (at > b.size) {
            return fail("HDR", "truncated: the data ends at row " + std::to_string(row) + " of " +
                                   std::to_string(height));
        }
    }
    return info;
}

// ---- GIF ----

// Counts the pixels the LZW codes of one frame decode to, as stb_image decodes them.
Info countGifPixels(const Bytes& b, size_t at, uint64_t pixels, const ImageInfo& info) {
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
                               size(info.width, info.height) + " pixels");
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
    if (x != 0 || y != 0 || w != width || h != height) {
        return fail("GIF", "the first frame (" + size(w, h) + " at " + std::to_string(x) + "," +
                               std::to_string(y) + ") does not cover the " + size(width, height) +
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
    return countGifPixels(b, at, uint64_t(width) * uint64_t(height), info.value());
}

// ---- JPEG ----

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

// ---- PGM/PPM ----

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

bool startsWith(const Bytes& b, const char* magic) {
    const size_t n = std::strlen(magic);
    return b.has(0, n) && std::memcmp(b.data, magic, n) == 0;
}

}  // namespace

Result<ImageInfo> checkImage(const unsigned char* data, size_t size, uint64_t fileSize) {
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
