// The row-by-row 16-bit grayscale PNG decoder agrees with stb_image on every filter type.
#include "core/io/png_gray16.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <stb/stb_image.h>

#include "qt_source_paths.h"
#include "test_files.h"

namespace qt {
namespace {

// data/default_1025.png is made by terrain_gen, which picks among all five filters per row.
TEST(PngGray16, AgreesWithStbImageOnAFilteredMap) {
    const std::vector<uint8_t> file =
        test::readBytes(std::string(QT_SOURCE_DIR) + "/data/default_1025.png");
    ASSERT_TRUE(isGray16Png(file.data(), file.size()));
    int width = 0;
    int height = 0;
    int channels = 0;
    stbi_us* expected =
        stbi_load_16_from_memory(file.data(), int(file.size()), &width, &height, &channels, 1);
    ASSERT_NE(expected, nullptr);
    std::vector<uint16_t> codes(size_t(width) * size_t(height));
    const Status decoded = decodeGray16Png(file.data(), file.size(), width, height, codes.data());
    ASSERT_TRUE(decoded) << decoded.error();
    EXPECT_TRUE(std::equal(codes.begin(), codes.end(), expected));
    stbi_image_free(expected);
}

TEST(PngGray16, OtherLayoutsAndBrokenStreamsAreNotDecodedHere) {
    const std::vector<uint8_t> eight = test::pngWithHeader(4, 4, 8, 0, std::vector<uint8_t>(20));
    EXPECT_FALSE(isGray16Png(eight.data(), eight.size()));
    const std::vector<uint8_t> rgb = test::pngWithHeader(4, 4, 16, 2, std::vector<uint8_t>(100));
    EXPECT_FALSE(isGray16Png(rgb.data(), rgb.size()));
    // Two rows of the four the header promises.
    std::vector<uint8_t> raw(2 * (1 + 8), 0);
    const std::vector<uint8_t> cut = test::pngWithHeader(4, 4, 16, 0, raw);
    ASSERT_TRUE(isGray16Png(cut.data(), cut.size()));
    std::vector<uint16_t> codes(16);
    const Status shortStream = decodeGray16Png(cut.data(), cut.size(), 4, 4, codes.data());
    ASSERT_FALSE(shortStream);
    EXPECT_EQ(shortStream.error(), "PNG: corrupt image data (the stream ends at row 2 of 4)");
    raw.assign(4 * 9, 0);
    raw[9] = 7;  // the second row's filter type
    const std::vector<uint8_t> badFilter = test::pngWithHeader(4, 4, 16, 0, raw);
    const Status filter = decodeGray16Png(badFilter.data(), badFilter.size(), 4, 4, codes.data());
    ASSERT_FALSE(filter);
    EXPECT_EQ(filter.error(), "PNG: corrupt image data (filter type 7)");
}

}  // namespace
}  // namespace qt
