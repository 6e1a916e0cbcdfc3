// Binary PGM and PPM, 8- or 16-bit, decoded here rather than by stb_image.
#include <cctype>
#include <string>

#include "core/io/decoders.h"

namespace qt {

Result<Heightmap> decodePnm(const std::string& path, const std::vector<unsigned char>& bytes) {
    size_t at = 2;
    auto skipSpaceAndComments = [&] {
        while (at < bytes.size() && (std::isspace(bytes[at]) || bytes[at] == '#')) {
            if (bytes[at] == '#') {
                while (at < bytes.size() && bytes[at] != '\n') {
                    ++at;
                }
            } else {
                ++at;
            }
        }
    };
    auto readNumber = [&](int64_t& value) {
        skipSpaceAndComments();
        value = 0;
        const size_t start = at;
        while (at < bytes.size() && std::isdigit(bytes[at]) && at - start < 9) {
            value = value * 10 + (bytes[at++] - '0');
        }
        return at > start && (at >= bytes.size() || !std::isdigit(bytes[at]));
    };
    const int channels = bytes[1] == '6' ? 3 : 1;
    int64_t width = 0;
    int64_t height = 0;
    int64_t maxValue = 0;
    if (!readNumber(width) || !readNumber(height) || !readNumber(maxValue) || maxValue < 1 ||
        maxValue > 65535 || at >= bytes.size() || !std::isspace(bytes[at])) {
        return loadFailure(path, "corrupt PGM/PPM header");
    }
    ++at;  // the single whitespace before the data
    if (Status problem = checkDimensions(width, height); !problem) {
        return loadFailure(path, problem.error());
    }
    const int sampleBytes = maxValue > 255 ? 2 : 1;
    const auto count = size_t(width * height);
    if (bytes.size() - at < count * size_t(channels * sampleBytes)) {
        return loadFailure(path, "corrupt image data (truncated PGM/PPM)");
    }
    Heightmap map =
        blankHeightmap(int(width), int(height),
                       sampleBytes == 2 ? HeightmapFormat::Image16 : HeightmapFormat::Image8);
    const unsigned char* data = bytes.data() + at;
    auto value = [&](size_t i) {
        return sampleBytes == 2 ? uint32_t(data[2 * i] << 8 | data[2 * i + 1]) : uint32_t(data[i]);
    };
    for (size_t i = 0; i < count; ++i) {
        // Colour: the same luminance stb_image uses for the other formats.
        map.codes[i] = uint16_t(
            channels == 1
                ? value(i)
                : (value(3 * i) * 77 + value(3 * i + 1) * 150 + value(3 * i + 2) * 29) >> 8);
    }
    findCodeRange(map);
    return map;
}

}  // namespace qt
