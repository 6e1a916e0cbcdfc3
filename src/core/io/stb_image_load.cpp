// Images through stb_image: the header checks first, 8- and 16-bit grayscale kept exactly, colour
// as luminance, HDR quantised, Terrain-RGB and Terrarium heights unpacked.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <stb/stb_image.h>

#include "core/config.h"
#include "core/io/decoders.h"
#include "core/io/png_gray16.h"
#include "core/terrain/quantise.h"

namespace qt {

namespace {

constexpr double kMaxPixelsPerByte = 2048.0;

// Copies decoded 8- or 16-bit samples into the map as codes, tracking the range on the way
// (one pass that vectorises).
template <class T>
void assignSamples(Heightmap& map, const T* source, size_t count) {
    static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>, "8 or 16 bits");
    map.codes.resize(count);
    T lo = source[0];
    T hi = source[0];
    for (size_t i = 0; i < count; ++i) {
        const T v = source[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        map.codes[i] = v;
    }
    setCodeRange(map, lo, hi);
}

// Takes ownership of what an stb_image load returned (one channel of T) and makes the map of it.
template <class T>
Result<Heightmap> adoptStb(const std::string& path, const ImageInfo& info, T* decoded,
                           int decodedWidth, int decodedHeight, HeightmapFormat format) {
    const std::unique_ptr<T, void (*)(void*)> pixels(decoded, stbi_image_free);
    const std::string what = std::string(info.format) + ": ";
    if (!pixels) {
        const char* reason = stbi_failure_reason();
        return loadFailure(path, what + "corrupt image data" +
                                     (reason && *reason ? std::string(" (") + reason + ")" : ""));
    }
    if (decodedWidth != info.width || decodedHeight != info.height) {
        return loadFailure(path,
                           what + "corrupt image data (header and data disagree on the size)");
    }
    Heightmap map;
    map.width = decodedWidth;
    map.height = decodedHeight;
    map.format = format;
    const size_t count = size_t(map.width) * size_t(map.height);
    if constexpr (std::is_floating_point_v<T>) {  // HDR
        if (!std::all_of(pixels.get(), pixels.get() + count,
                         [](T v) { return std::isfinite(v); })) {
            return loadFailure(path, what + "image holds a NaN or infinite sample");
        }
        const auto [lo, hi] = std::minmax_element(pixels.get(), pixels.get() + count);
        const double extreme = std::max(std::fabs(double(*lo)), std::fabs(double(*hi)));
        if (extreme > kMaxWorldCoordinate) {
            char text[96];
            std::snprintf(text, sizeof text, "sample %g is beyond the limit of %g for a height",
                          extreme, kMaxWorldCoordinate);
            return loadFailure(path, what + text);
        }
        encodeFloatSamples(map, pixels.get(), count);
    } else {
        assignSamples(map, pixels.get(), count);
    }
    return map;
}

// Heights packed in the red, green and blue bytes of an 8-bit colour image (Terrain-RGB,
// Terrarium), in metres.
Result<Heightmap> decodePackedHeights(const std::string& path, const unsigned char* data,
                                      int length, HeightEncoding encoding) {
    int w = 0;
    int h = 0;
    int n = 0;
    const char* what = encoding == HeightEncoding::TerrainRgb ? "Terrain-RGB" : "Terrarium";
    if (!stbi_info_from_memory(data, length, &w, &h, &n) || n < 3 ||
        stbi_is_16_bit_from_memory(data, length)) {
        return loadFailure(path, std::string(what) + " heights need an 8-bit RGB or RGBA image");
    }
    stbi_uc* decoded = stbi_load_from_memory(data, length, &w, &h, &n, 3);
    const std::unique_ptr<stbi_uc, void (*)(void*)> pixels(decoded, stbi_image_free);
    if (!pixels) {
        return loadFailure(path, "corrupt image data");
    }
    const size_t count = size_t(w) * size_t(h);
    std::vector<float> samples(count);
    const unsigned char* p = pixels.get();
    for (size_t i = 0; i < count; ++i, p += 3) {
        const int r = p[0];
        const int g = p[1];
        const int b = p[2];
        samples[i] = encoding == HeightEncoding::TerrainRgb
                         ? float(-10000.0 + double(r * 65536 + g * 256 + b) * 0.1)
                         : float(r * 256 + g) + float(b) / 256.0f - 32768.0f;
    }
    Heightmap map;
    map.width = w;
    map.height = h;
    map.format = HeightmapFormat::Elevation;
    map.metres = true;
    encodeFloatSamples(map, samples.data(), count);
    return map;
}

}  // namespace

bool isStbExtension(const std::string& ext) {
    static const char* const kExts[] = {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm",
                                        ".ppm", ".pnm", ".gif",  ".psd", ".hdr"};
    return std::any_of(std::begin(kExts), std::end(kExts), [&](const char* e) { return ext == e; });
}

Status checkDensity(const ImageInfo& info, uint64_t fileSize) {
    if (double(info.width) * double(info.height) > double(fileSize) * kMaxPixelsPerByte) {
        if (std::strcmp(info.format, "GIF") == 0) {  // its first frame may be smaller
            return Status::failure("GIF: its " + std::to_string(info.width) + "x" +
                                   std::to_string(info.height) + " screen is over " +
                                   std::to_string(int(kMaxPixelsPerByte)) +
                                   " pixels a byte of its " + std::to_string(fileSize) +
                                   "-byte file (stb_image would fill it whole)");
        }
        return Status::failure(std::string(info.format) + ": corrupt image data (file of " +
                               std::to_string(fileSize) + " bytes is too small for " +
                               std::to_string(info.width) + "x" + std::to_string(info.height) +
                               " pixels)");
    }
    return {};
}

Result<Heightmap> decodeStbImage(const std::string& path, const std::vector<unsigned char>& bytes,
                                 const LoadOptions& options) {
    const HeightEncoding encoding = options.encoding;
    const Result<ImageInfo> checked = checkImage(bytes.data(), bytes.size(), bytes.size());
    if (!checked) {
        return loadFailure(path, checked.error());
    }
    if (bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == '5' || bytes[1] == '6')) {
        return decodePnm(path, bytes);
    }
    if (bytes.size() > size_t(INT32_MAX)) {
        return loadFailure(path, "file is too large for the image decoder");
    }
    const int length = int(bytes.size());
    ImageInfo info = checked.value();
    if (info.width == 0) {  // a header checkImage does not size
        int width = 0;
        int height = 0;
        int channels = 0;
        if (!stbi_info_from_memory(bytes.data(), length, &width, &height, &channels)) {
            return loadFailure(path, std::string(info.format) + ": not a readable image (" +
                                         stbi_failure_reason() + ")");
        }
        if (Status problem = checkDimensions(width, height); !problem) {
            return loadFailure(path, problem.error());
        }
        info.width = width;
        info.height = height;
    }
    if (Status budget =
            checkMemoryBudget(info.width, info.height, kLoadBytesPerSample, options.memory);
        !budget) {
        return loadFailure(path, budget.error());
    }
    if (Status dense = checkDensity(info, bytes.size()); !dense) {
        return loadFailure(path, dense.error());
    }
    const unsigned char* data = bytes.data();
    if (encoding != HeightEncoding::Gray) {
        return decodePackedHeights(path, data, length, encoding);
    }
    int w = 0;
    int h = 0;
    int n = 0;
    // Each load runs before its size is read: argument order is unspecified within a call.
    if (stbi_is_hdr_from_memory(data, length)) {
        float* pixels = stbi_loadf_from_memory(data, length, &w, &h, &n, 1);
        return adoptStb(path, info, pixels, w, h, HeightmapFormat::ImageFloat);
    }
    if (std::strcmp(info.format, "PNG") == 0 && isGray16Png(data, bytes.size())) {
        // Straight into the codes, a row at a time: 2 bytes a sample beside the file.
        Heightmap map = blankHeightmap(int(info.width), int(info.height), HeightmapFormat::Image16);
        if (Status decoded =
                decodeGray16Png(data, bytes.size(), map.width, map.height, map.codes.data());
            !decoded) {
            return loadFailure(path, decoded.error());
        }
        findCodeRange(map);
        return map;
    }
    if (stbi_is_16_bit_from_memory(data, length)) {
        stbi_us* pixels = stbi_load_16_from_memory(data, length, &w, &h, &n, 1);
        return adoptStb(path, info, pixels, w, h, HeightmapFormat::Image16);
    }
    stbi_uc* pixels = stbi_load_from_memory(data, length, &w, &h, &n, 1);
    return adoptStb(path, info, pixels, w, h, HeightmapFormat::Image8);
}

}  // namespace qt
