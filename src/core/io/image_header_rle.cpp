// TGA, PSD and HDR: their headers, and their run-length data walked to the last pixel.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/io/image_checks.h"

namespace qt::imagecheck {

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

}  // namespace qt::imagecheck
