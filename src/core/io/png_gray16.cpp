// 16-bit grayscale PNG decoding row by row through zlib (PNG specification, section 9: filters).
#include "core/io/png_gray16.h"

#include <zlib.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace qt {
namespace {

constexpr size_t kSignatureBytes = 8;

uint32_t bigEndian32(const unsigned char* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

int paeth(int a, int b, int c) {
    const int p = a + b - c;
    const int pa = std::abs(p - a);
    const int pb = std::abs(p - b);
    const int pc = std::abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Undoes `filter` on `row` (2-byte pixels) against the unfiltered row above, `prior`.
bool unfilter(int filter, unsigned char* row, const unsigned char* prior, size_t count) {
    constexpr size_t kPixelBytes = 2;
    switch (filter) {
        case 0:
            return true;
        case 1:
            for (size_t i = kPixelBytes; i < count; ++i) {
                row[i] = uint8_t(row[i] + row[i - kPixelBytes]);
            }
            return true;
        case 2:
            for (size_t i = 0; i < count; ++i) {
                row[i] = uint8_t(row[i] + prior[i]);
            }
            return true;
        case 3:
            for (size_t i = 0; i < count; ++i) {
                const int left = i >= kPixelBytes ? row[i - kPixelBytes] : 0;
                row[i] = uint8_t(row[i] + ((left + prior[i]) >> 1));
            }
            return true;
        case 4:
            for (size_t i = 0; i < count; ++i) {
                const int left = i >= kPixelBytes ? row[i - kPixelBytes] : 0;
                const int corner = i >= kPixelBytes ? prior[i - kPixelBytes] : 0;
                row[i] = uint8_t(row[i] + paeth(left, prior[i], corner));
            }
            return true;
        default:
            return false;
    }
}

struct Inflater {
    z_stream stream{};
    bool open = false;
    Inflater() { open = inflateInit(&stream) == Z_OK; }
    ~Inflater() {
        if (open) {
            inflateEnd(&stream);
        }
    }
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;
};

}  // namespace

bool isGray16Png(const unsigned char* bytes, size_t size) {
    // Signature, IHDR's length and type, width, height, then depth, colour type, compression,
    // filter method and interlace.
    return size >= 29 && bigEndian32(bytes + 12) == 0x49484452u && bytes[24] == 16 &&
           bytes[25] == 0 && bytes[28] == 0;
}

Status decodeGray16Png(const unsigned char* bytes, size_t size, int width, int height,
                       uint16_t* out) {
    const size_t rowBytes = size_t(width) * 2;
    // Each row is its filter byte and then its samples; the row above starts as zeros.
    std::vector<unsigned char> row(rowBytes + 1);
    std::vector<unsigned char> prior(rowBytes + 1, 0);
    Inflater inflater;
    if (!inflater.open) {
        return Status::failure("PNG: zlib cannot start");
    }
    z_stream& z = inflater.stream;
    size_t filled = 0;
    int y = 0;
    bool ended = false;
    for (size_t at = kSignatureBytes; at + 12 <= size && !ended && y < height;) {
        const uint32_t length = bigEndian32(bytes + at);
        if (length > size - at - 12) {
            return Status::failure("PNG: truncated chunk");
        }
        if (bigEndian32(bytes + at + 4) == 0x49444154u) {  // IDAT
            z.next_in = const_cast<Bytef*>(bytes + at + 8);
            z.avail_in = length;
            while (z.avail_in > 0 && y < height && !ended) {
                z.next_out = row.data() + filled;
                z.avail_out = uInt(row.size() - filled);
                const int status = inflate(&z, Z_NO_FLUSH);
                if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
                    return Status::failure("PNG: corrupt image data (" +
                                           std::string(z.msg ? z.msg : "inflate failed") + ")");
                }
                filled = row.size() - z.avail_out;
                if (filled == row.size()) {
                    if (!unfilter(row[0], row.data() + 1, prior.data() + 1, rowBytes)) {
                        return Status::failure("PNG: corrupt image data (filter type " +
                                               std::to_string(row[0]) + ")");
                    }
                    uint16_t* samples = out + size_t(y) * size_t(width);
                    for (int x = 0; x < width; ++x) {
                        samples[x] = uint16_t(row[1 + 2 * x] << 8 | row[2 + 2 * x]);
                    }
                    std::swap(row, prior);
                    filled = 0;
                    ++y;
                }
                ended = status == Z_STREAM_END;
                if (status == Z_BUF_ERROR) {
                    break;  // no progress: the next IDAT continues the stream
                }
            }
        }
        at += 12 + size_t(length);
    }
    if (y != height) {
        return Status::failure("PNG: corrupt image data (the stream ends at row " +
                               std::to_string(y) + " of " + std::to_string(height) + ")");
    }
    return {};
}

}  // namespace qt
