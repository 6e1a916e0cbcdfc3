// Image header checks: truncated pixel data, oversized deflate streams and unsupported layouts are
// refused before stb_image runs; top-down BMPs load in the right row order; sizes are checked from
// the file's length before it is read.
#include "core/io/image_header.h"

#include <unistd.h>
#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>
#include <stb/stb_image_write.h>

#include "core/config.h"
#include "core/io/load.h"
#include "core/terrain/heightmap.h"
#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

void put32(std::vector<uint8_t>& v, size_t at, uint32_t x) {
    for (int i = 0; i < 4; ++i) {
        v[at + size_t(i)] = uint8_t(x >> (8 * i));
    }
}

// An 8-bit grey-palette BMP whose row r holds the value rowValue(r) in every pixel, rows stored
// bottom first (or top first when topDown: a negative height).
std::vector<uint8_t> bmp8(int width, int height, bool topDown, const std::vector<uint8_t>& rows) {
    const size_t stride = size_t(width + 3) / 4 * 4;
    const size_t offset = 14 + 40 + 1024;
    std::vector<uint8_t> out(offset + stride * size_t(height));
    out[0] = 'B';
    out[1] = 'M';
    put32(out, 2, uint32_t(out.size()));
    put32(out, 10, uint32_t(offset));
    put32(out, 14, 40);
    put32(out, 18, uint32_t(width));
    put32(out, 22, uint32_t(topDown ? -height : height));
    out[26] = 1;
    out[28] = 8;
    for (int i = 0; i < 256; ++i) {
        out[54 + size_t(i) * 4] = out[55 + size_t(i) * 4] = out[56 + size_t(i) * 4] = uint8_t(i);
    }
    for (int stored = 0; stored < height; ++stored) {
        const int row = topDown ? stored : height - 1 - stored;  // image row, top first
        std::memset(&out[offset + size_t(stored) * stride], rows[size_t(row)], size_t(width));
    }
    return out;
}

Result<Heightmap> decode(const char* ext, const std::vector<uint8_t>& bytes) {
    return decodeHeightmap("f", ext, bytes);
}

TEST(ImageHeader, TopDownBmpLoadsWithItsRowsInOrder) {
    const std::vector<uint8_t> rows = {10, 20, 30, 40, 50, 60, 70, 80};
    for (const bool topDown : {false, true}) {
        const Result<Heightmap> map = decode(".bmp", bmp8(8, 8, topDown, rows));
        ASSERT_TRUE(map.ok()) << map.error();
        EXPECT_EQ(map.value().width, 8);
        EXPECT_EQ(map.value().height, 8);
        for (int row = 0; row < 8; ++row) {
            EXPECT_EQ(map.value().codeAt(3, row), rows[size_t(row)]) << "top-down " << topDown;
        }
    }
}

TEST(ImageHeader, TruncatedBmpIsRefusedNamingTheBytes) {
    std::vector<uint8_t> bytes = bmp8(8, 8, true, std::vector<uint8_t>(8, 1));
    bytes.resize(bytes.size() - 1);
    EXPECT_EQ(decode(".bmp", bytes).error(),
              "f: BMP: truncated: 8x8 pixels at 8 bits from offset 1078 need 1142 bytes, the file "
              "has 1141");
    std::vector<uint8_t> rle = bmp8(8, 8, false, std::vector<uint8_t>(8, 1));
    rle[30] = 1;
    EXPECT_EQ(decode(".bmp", rle).error(),
              "f: BMP: RLE compression is not supported (save it uncompressed)");
}

TEST(ImageHeader, HeaderAloneChecksUncompressedFormatsAgainstTheFileLength) {
    // Only the first bytes are here: the check uses the header and the file's length.
    const std::vector<uint8_t> bytes = bmp8(8, 8, false, std::vector<uint8_t>(8, 1));
    EXPECT_TRUE(checkImage(bytes.data(), 64, bytes.size()).ok());
    const Result<ImageInfo> cut = checkImage(bytes.data(), 64, bytes.size() - 8);
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().rfind("BMP: truncated", 0), 0u) << cut.error();
}

std::vector<uint8_t> tgaRle(int width, int height, const std::vector<uint8_t>& packets) {
    std::vector<uint8_t> out(18 + packets.size());
    out[2] = 11;  // RLE grey
    out[12] = uint8_t(width);
    out[14] = uint8_t(height);
    out[16] = 8;
    std::copy(packets.begin(), packets.end(), out.begin() + 18);
    return out;
}

TEST(ImageHeader, RleTgaIsWalkedToItsLastPixel) {
    std::vector<uint8_t> packets;
    for (int i = 0; i < 4; ++i) {
        packets.push_back(0x80 | 3);  // a run of 4
        packets.push_back(uint8_t(i * 10));
    }
    const Result<Heightmap> map = decode(".tga", tgaRle(4, 4, packets));
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(map.value().minCode, 0);
    EXPECT_EQ(map.value().maxCode, 30);
    packets.pop_back();
    EXPECT_EQ(decode(".tga", tgaRle(4, 4, packets)).error(),
              "f: TGA: truncated: the RLE data ends after 12 of the 4x4 pixels");
}

TEST(ImageHeader, PngMustInflateToExactlyItsHeaderSize) {
    const std::vector<uint8_t> good = test::png16(4, 4, std::vector<uint16_t>(16, 7));
    EXPECT_TRUE(decode(".png", good).ok());
    std::vector<uint8_t> badCrc = good;
    badCrc[30] ^= 1;
    EXPECT_EQ(decode(".png", badCrc).error(), "f: PNG: corrupt header (IHDR fails its CRC check)");
    // A 4x4 16-bit header over 4x100 rows of data.
    const std::vector<uint8_t> big = test::png16(4, 100, std::vector<uint16_t>(400, 7));
    std::vector<uint8_t> bomb = test::pngWithHeader(4, 4, 16, 0, {});
    const std::vector<uint8_t> idat(big.begin() + 33, big.end());
    bomb.resize(33);
    bomb.insert(bomb.end(), idat.begin(), idat.end());
    EXPECT_EQ(decode(".png", bomb).error(),
              "f: PNG: image data inflates to more than the 36 bytes its 4x4 header needs");
    std::vector<uint8_t> depth = test::pngWithHeader(4, 4, 3, 0, {0});
    EXPECT_EQ(decode(".png", depth).error(), "f: PNG: bit depth 3 is not valid for grey images");
}

TEST(ImageHeader, GifFrameAndLzwDataAreChecked) {
    // One 2x2 frame at (at, at), min code size 2: 3-bit codes, a clear (4) before each pair of
    // pixels (the table would widen the codes otherwise), an end code (5).
    auto gif = [](int screen, const std::vector<int>& codes, int at = 0) {
        std::vector<uint8_t> out = {
            'G', 'I', 'F', '8', '9', 'a', uint8_t(screen), 0, uint8_t(screen), 0, 0x81, 0, 0};
        for (int i = 0; i < 4; ++i) {
            out.insert(out.end(), 3, uint8_t(i * 80));
        }
        out.insert(out.end(), {0x2C, uint8_t(at), 0, uint8_t(at), 0, 2, 0, 2, 0, 0, 2});
        std::vector<uint8_t> data;
        uint32_t bits = 0;
        int count = 0;
        for (const int code : codes) {
            bits |= uint32_t(code) << count;
            count += 3;
            while (count >= 8) {
                data.push_back(uint8_t(bits));
                bits >>= 8;
                count -= 8;
            }
        }
        if (count > 0) {
            data.push_back(uint8_t(bits));
        }
        out.push_back(uint8_t(data.size()));
        out.insert(out.end(), data.begin(), data.end());
        out.insert(out.end(), {0, 0x3B});
        return out;
    };
    const Result<Heightmap> map = decode(".gif", gif(2, {4, 0, 1, 4, 2, 3, 5}));
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(map.value().codeAt(1, 1), 240);
    EXPECT_EQ(decode(".gif", gif(2, {4, 0, 1, 5})).error(),
              "f: GIF: truncated: the image data holds 2 of the 2x2 pixels");
    // A first frame smaller than the screen is drawn on its background (0), as the screen's size.
    for (const int at : {0, 2}) {
        const Result<Heightmap> framed = decode(".gif", gif(4, {4, 0, 1, 4, 2, 3, 5}, at));
        ASSERT_TRUE(framed.ok()) << framed.error();
        EXPECT_EQ(framed.value().width, 4);
        EXPECT_EQ(framed.value().codeAt(at + 1, at + 1), 240);
        EXPECT_EQ(framed.value().codeAt(at == 0 ? 3 : 0, at == 0 ? 3 : 0), 0);
    }
    EXPECT_EQ(decode(".gif", gif(4, {4, 0, 1, 4, 2, 3, 5}, 3)).error(),
              "f: GIF: the first frame (2x2 at 3,3) reaches beyond the 4x4 screen");
    EXPECT_EQ(decode(".gif", gif(4, {4, 0, 1, 5}, 1)).error(),
              "f: GIF: truncated: the image data holds 2 of the 2x2 pixels of its first frame");
}

TEST(ImageHeader, HdrLayoutsAndFormatsAreNamed) {
    auto hdr = [](const std::string& format, const std::string& layout, size_t pixels) {
        std::string text = "#?RADIANCE\nFORMAT=" + format + "\n\n" + layout + "\n";
        std::vector<uint8_t> out(text.begin(), text.end());
        for (size_t i = 0; i < pixels; ++i) {
            out.insert(out.end(), {128, 128, 128, 129});
        }
        return out;
    };
    EXPECT_TRUE(decode(".hdr", hdr("32-bit_rle_rgbe", "-Y 2 +X 2", 4)).ok());
    EXPECT_EQ(decode(".hdr", hdr("32-bit_rle_rgbe", "+Y 2 +X 2", 4)).error(),
              "f: HDR: layout '+Y 2 +X 2' is not supported (only -Y HEIGHT +X WIDTH: rows top "
              "first)");
    EXPECT_EQ(decode(".hdr", hdr("32-bit_rle_xyze", "-Y 2 +X 2", 4)).error(),
              "f: HDR: format '32-bit_rle_xyze' is not supported (32-bit_rle_rgbe only)");
    EXPECT_EQ(decode(".hdr", hdr("32-bit_rle_rgbe", "-Y 2 +X 2", 3)).error(),
              "f: HDR: truncated: 2x2 pixels of 4 bytes need 61 bytes, the file has 57");
}

TEST(ImageHeader, SizesAreCheckedFromTheFileLengthBeforeReading) {
    TempDir dir;
    // An image is read whole, so its length is capped; a raw file is read into the codes, so a
    // 32769 x 32769 one (over 2 GiB) passes the length check and meets the memory budget.
    const std::string image = dir.path("big.png");
    test::writeBytes(image, {});
    ASSERT_EQ(::truncate(image.c_str(), off_t(2) << 30), 0);  // sparse: no disk, no memory
    EXPECT_EQ(loadHeightmap(image).error(),
              image +
                  ": file of 2147483648 bytes is over the limit of 2147483647 bytes for a "
                  "heightmap");
    const std::string path = dir.path("big.r16");
    test::writeBytes(path, {});
    ASSERT_EQ(::truncate(path.c_str(), off_t(2) * 32769 * 32769), 0);
    LoadOptions budget;
    budget.memory.limitBytes = uint64_t(1024) << 20;
    EXPECT_EQ(loadHeightmap(path, budget).error(),
              path +
                  ": size 32769x32769 needs about 12289 MiB loaded (12 bytes a sample), over the "
                  "memory budget of 1024 MiB (raise it with --memory-budget MB)");
    ASSERT_EQ(::truncate(path.c_str(), off_t(2) * 32770 * 32770), 0);
    LoadOptions given;
    given.rawWidth = given.rawHeight = 32770;
    EXPECT_EQ(loadHeightmap(path, given).error(),
              path +
                  ": size 32770x32770 is over the limit (65537 samples a side, 1073807361 "
                  "samples in all)");
    // The longest side: a strip kMaxSide wide is as many samples as 32769 x 32769 at most.
    ASSERT_EQ(::truncate(path.c_str(), off_t(2) * kMaxSide * 16384), 0);
    given.rawWidth = kMaxSide;
    given.rawHeight = 16384;
    given.memory.limitBytes = uint64_t(1024) << 20;
    EXPECT_EQ(loadHeightmap(path, given).error(),
              path +
                  ": size 65537x16384 needs about 12289 MiB loaded (12 bytes a sample), over the "
                  "memory budget of 1024 MiB (raise it with --memory-budget MB)");
    ASSERT_EQ(::truncate(path.c_str(), off_t(2) * kMaxSide * 16385), 0);
    given.rawHeight = 16385;
    EXPECT_EQ(loadHeightmap(path, given).error(),
              path +
                  ": size 65537x16385 is over the limit (65537 samples a side, 1073807361 "
                  "samples in all)");
}

TEST(ImageHeader, FilesStbWritesLoadAndEveryCutIsRefused) {
    // 37 x 23 so that HDR rows are run-length encoded and TGA packets cross rows.
    const int w = 37;
    const int h = 23;
    std::vector<uint8_t> grey(size_t(w) * h);
    std::vector<float> heights(grey.size());
    for (size_t i = 0; i < grey.size(); ++i) {
        grey[i] = uint8_t(i % 7 < 3 ? 40 : i % 251);  // runs and literals
        heights[i] = float(grey[i]) * 0.5f;
    }
    TempDir dir;
    const std::string png = dir.path("m.png");
    const std::string bmp = dir.path("m.bmp");
    const std::string tga = dir.path("m.tga");
    const std::string hdr = dir.path("m.hdr");
    const std::string jpg = dir.path("m.jpg");
    ASSERT_TRUE(stbi_write_png(png.c_str(), w, h, 1, grey.data(), w));
    ASSERT_TRUE(stbi_write_bmp(bmp.c_str(), w, h, 1, grey.data()));
    ASSERT_TRUE(stbi_write_tga(tga.c_str(), w, h, 1, grey.data()));  // RLE by default
    ASSERT_TRUE(stbi_write_hdr(hdr.c_str(), w, h, 1, heights.data()));
    ASSERT_TRUE(stbi_write_jpg(jpg.c_str(), w, h, 1, grey.data(), 95));
    for (const auto& [path, format] :
         {std::pair{png, "PNG"}, std::pair{bmp, "BMP"}, std::pair{tga, "TGA"},
          std::pair{hdr, "HDR"}, std::pair{jpg, "JPEG"}}) {
        const std::vector<uint8_t> bytes = test::readBytes(path);
        const Result<Heightmap> whole = decodeHeightmap(path, path.substr(path.size() - 4), bytes);
        ASSERT_TRUE(whole.ok()) << whole.error();
        EXPECT_EQ(whole.value().width, w);
        EXPECT_EQ(whole.value().height, h);
        for (const size_t cut : {size_t(1), size_t(2), bytes.size() / 3}) {
            const std::vector<uint8_t> part(bytes.begin(), bytes.end() - long(cut));
            const Result<Heightmap> map = decodeHeightmap("f", path.substr(path.size() - 4), part);
            ASSERT_FALSE(map.ok()) << format << " cut by " << cut;
            EXPECT_EQ(map.error().rfind(std::string("f: ") + format + ": ", 0), 0u) << map.error();
        }
    }
}

}  // namespace
}  // namespace qt
