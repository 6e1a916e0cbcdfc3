// Heightmap loaders: stb_image formats, SRTM .hgt and headerless 16-bit raw.
#include "core/heightmap.h"

#include <sys/stat.h>
#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <thread>
#include <type_traits>

#include <stb/stb_image.h>

#include "core/config.h"
#include "core/heightmap_gdal.h"
#include "core/image_header.h"
#include "core/leaf_ranges.h"
#include "core/memory_budget.h"
#include "core/png_gray16.h"
#include "core/sample_range.h"
#include "core/text.h"

namespace qt {
namespace {

constexpr double kMaxPixelsPerByte = 2048.0;
// Bytes read from the start of an image to check its header before the rest is read.
constexpr uint64_t kHeaderBytes = 65536;

struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

bool isStbExtension(const std::string& ext) {
    static const char* const kExts[] = {".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm",
                                        ".ppm", ".pnm", ".gif",  ".psd", ".hdr"};
    return std::any_of(std::begin(kExts), std::end(kExts), [&](const char* e) { return ext == e; });
}

// The file's length, or the problem with it (without the path).
Result<uint64_t> fileLength(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return Result<uint64_t>::failure(errno == ENOENT ? "no such file" : std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        return Result<uint64_t>::failure("is a directory, not a heightmap file");
    }
    if (!S_ISREG(st.st_mode)) {
        return Result<uint64_t>::failure("not a regular file");
    }
    return uint64_t(st.st_size);
}

// Reads up to `limit` bytes from the start of the file (the whole file when it is shorter).
Status readFile(const std::string& path, uint64_t limit, std::vector<unsigned char>& bytes) {
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        return Status::failure(std::string("cannot open: ") + std::strerror(errno));
    }
    bytes.resize(size_t(limit));
    const size_t got = std::fread(bytes.data(), 1, bytes.size(), file.get());
    if (got != bytes.size()) {
        return Status::failure("read failed (file changed or unreadable)");
    }
    return {};
}

void setRange(Heightmap& map, uint16_t lo, uint16_t hi) {
    map.minCode = lo;
    map.maxCode = hi;
    map.minSample = map.coding.sample(lo);
    map.maxSample = map.coding.sample(hi);
}

void updateRange(Heightmap& map) {
    const auto [lo, hi] = std::minmax_element(map.codes.begin(), map.codes.end());
    setRange(map, *lo, *hi);
}

// Runs work(begin, end) over [0, count) in contiguous chunks, one per load thread when the count is
// large enough for a thread to pay, else in one call on this thread.
template <class Work>
void forChunks(size_t count, const Work& work) {
    constexpr size_t kPerThread = size_t(1) << 20;
    const size_t threads = std::min({size_t(std::max(std::thread::hardware_concurrency(), 1u)),
                                     size_t(kMaxLoadThreads), count / kPerThread + 1});
    std::vector<std::thread> helpers;
    for (size_t t = 1; t < threads; ++t) {
        helpers.emplace_back(
            [&work, count, threads, t] { work(count * t / threads, count * (t + 1) / threads); });
    }
    work(0, count / threads);
    for (std::thread& helper : helpers) {
        helper.join();
    }
}

// One row's codes: a loop of its own, so that it runs in SIMD lanes.
template <typename Code>
void encodeRow(const float* __restrict line, uint16_t* __restrict codes, size_t count, Code code) {
    for (size_t i = 0; i < count; ++i) {
        codes[i] = code(line[i]);
    }
}

// Codes of the sample rows of leaf rows [firstRow, lastRow) of leaves leafSize squares wide, and
// those leaves' code ranges into `out` by row * leavesX + col. Per leaf row, the column-wise
// minimum and maximum of its leafSize + 1 sample rows are taken as each row's codes are made
// (SIMD passes over the row still in the cache), then each leaf's over its leafSize + 1
// columns. The row two leaf rows share is made once: the later one reads its codes back. The
// last row of a block that another thread's block starts with is made here only into the ranges
// (that thread stores it), so every code is written by one thread.
template <typename Code>
void encodeLeafRows(const float* samples, uint16_t* codes, int width, int height, int leafSize,
                    int firstRow, int lastRow, bool lastBlock, CodeRange* out, const Code& code) {
    const size_t w = size_t(width);
    const int leavesX = (width - 2) / leafSize + 1;
    std::vector<uint16_t> lo(w), hi(w), spare(w);
    uint16_t* __restrict l = lo.data();
    uint16_t* __restrict h = hi.data();
    for (int lz = firstRow; lz < lastRow; ++lz) {
        const int z0 = lz * leafSize;
        const int z1 = std::min(z0 + leafSize, height - 1);
        if (lz == firstRow) {
            uint16_t* c = codes + size_t(z0) * w;
            encodeRow(samples + size_t(z0) * w, c, w, code);
            std::copy(c, c + w, l);
            std::copy(c, c + w, h);
        } else {
            const uint16_t* first = codes + size_t(z0) * w;
            std::copy(first, first + w, l);
            std::copy(first, first + w, h);
        }
        for (int z = z0 + 1; z <= z1; ++z) {
            const bool shared = z == z1 && lz == lastRow - 1 && !lastBlock;
            uint16_t* c = shared ? spare.data() : codes + size_t(z) * w;
            encodeRow(samples + size_t(z) * w, c, w, code);
            foldRowRange(c, l, h, w);
        }
        leafRangesOfColumns(l, h, width, leafSize, out + size_t(lz) * size_t(leavesX));
    }
}

// Writes every sample's code into the map, its codes already sized; with leafRanges, by leaf rows
// shared out between load threads (encodeLeafRows), taking the leaves' ranges too.
template <typename Code>
void encodeWith(Heightmap& map, const float* samples, size_t count, int leafSize,
                std::vector<CodeRange>* leafRanges, const Code& code) {
    uint16_t* codes = map.codes.data();
    if (leafRanges == nullptr) {
        forChunks(count, [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; ++i) {
                codes[i] = code(samples[i]);
            }
        });
        return;
    }
    assert(leafSize >= 2 && count == size_t(map.width) * size_t(map.height));
    const int leavesX = (map.width - 2) / leafSize + 1;
    const int leavesZ = (map.height - 2) / leafSize + 1;
    leafRanges->resize(size_t(leavesX) * size_t(leavesZ));
    CodeRange* out = leafRanges->data();
    constexpr size_t kPerThread = size_t(1) << 20;
    const int threads =
        int(std::min({size_t(std::max(std::thread::hardware_concurrency(), 1u)),
                      size_t(kMaxLoadThreads), size_t(leavesZ), count / kPerThread + 1}));
    auto block = [&](int t) {
        encodeLeafRows(samples, codes, map.width, map.height, leafSize, leavesZ * t / threads,
                       leavesZ * (t + 1) / threads, t == threads - 1, out, code);
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) {
        helpers.emplace_back(block, t);
    }
    block(0);
    for (std::thread& helper : helpers) {
        helper.join();
    }
}

// Stores finite float samples as codes (encodeSamples), finding their range first.
void encodeFloats(Heightmap& map, const float* samples, size_t count) {
    const SampleRange range = sampleRange(samples, count);
    encodeSamples(map, samples, count, range.lo, range.hi, range.integral);
}

// A map of width x height samples, all zero, ready to be filled.
Heightmap blankMap(int width, int height, HeightmapFormat format) {
    Heightmap map;
    map.width = width;
    map.height = height;
    map.format = format;
    map.codes.resize(size_t(width) * size_t(height), 0);
    return map;
}

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
    setRange(map, lo, hi);
}

Result<Heightmap> fail(const std::string& path, const std::string& problem) {
    return Result<Heightmap>::failure(path + ": " + problem);
}

Result<Heightmap> loadPnm(const std::string& path, const std::vector<unsigned char>& bytes);

// No format here packs more than kMaxPixelsPerByte pixels in a byte (deflate 1032:1, GIF's LZW
// about 1400:1, RLE 128:1): a smaller file is truncated, and some stb decoders would allocate and
// zero-fill the whole claimed image before noticing.
Status checkDensity(const ImageInfo& info, uint64_t fileSize) {
    if (double(info.width) * double(info.height) > double(fileSize) * kMaxPixelsPerByte) {
        return Status::failure(std::string(info.format) + ": corrupt image data (file of " +
                               std::to_string(fileSize) + " bytes is too small for " +
                               std::to_string(info.width) + "x" + std::to_string(info.height) +
                               " pixels)");
    }
    return {};
}

// Takes ownership of what an stb_image load returned (one channel of T) and makes the map of it.
template <class T>
Result<Heightmap> adoptStb(const std::string& path, const ImageInfo& info, T* decoded,
                           int decodedWidth, int decodedHeight, HeightmapFormat format) {
    const std::unique_ptr<T, void (*)(void*)> pixels(decoded, stbi_image_free);
    const std::string what = std::string(info.format) + ": ";
    if (!pixels) {
        const char* reason = stbi_failure_reason();
        return fail(path, what + "corrupt image data" +
                              (reason && *reason ? std::string(" (") + reason + ")" : ""));
    }
    if (decodedWidth != info.width || decodedHeight != info.height) {
        return fail(path, what + "corrupt image data (header and data disagree on the size)");
    }
    Heightmap map;
    map.width = decodedWidth;
    map.height = decodedHeight;
    map.format = format;
    const size_t count = size_t(map.width) * size_t(map.height);
    if constexpr (std::is_floating_point_v<T>) {  // HDR
        if (!std::all_of(pixels.get(), pixels.get() + count,
                         [](T v) { return std::isfinite(v); })) {
            return fail(path, what + "image holds a NaN or infinite sample");
        }
        const auto [lo, hi] = std::minmax_element(pixels.get(), pixels.get() + count);
        const double extreme = std::max(std::fabs(double(*lo)), std::fabs(double(*hi)));
        if (extreme > kMaxWorldCoordinate) {
            char text[96];
            std::snprintf(text, sizeof text, "sample %g is beyond the limit of %g for a height",
                          extreme, kMaxWorldCoordinate);
            return fail(path, what + text);
        }
        encodeFloats(map, pixels.get(), count);
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
        return fail(path, std::string(what) + " heights need an 8-bit RGB or RGBA image");
    }
    stbi_uc* decoded = stbi_load_from_memory(data, length, &w, &h, &n, 3);
    const std::unique_ptr<stbi_uc, void (*)(void*)> pixels(decoded, stbi_image_free);
    if (!pixels) {
        return fail(path, "corrupt image data");
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
    encodeFloats(map, samples.data(), count);
    return map;
}

// The header checks, then stb_image (PGM/PPM are decoded here).
Result<Heightmap> loadStbImage(const std::string& path, const std::vector<unsigned char>& bytes,
                               const LoadOptions& options) {
    const HeightEncoding encoding = options.encoding;
    const Result<ImageInfo> checked = checkImage(bytes.data(), bytes.size(), bytes.size());
    if (!checked) {
        return fail(path, checked.error());
    }
    if (bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == '5' || bytes[1] == '6')) {
        return loadPnm(path, bytes);
    }
    if (bytes.size() > size_t(INT32_MAX)) {
        return fail(path, "file is too large for the image decoder");
    }
    const int length = int(bytes.size());
    ImageInfo info = checked.value();
    if (info.width == 0) {  // a header checkImage does not size
        int width = 0;
        int height = 0;
        int channels = 0;
        if (!stbi_info_from_memory(bytes.data(), length, &width, &height, &channels)) {
            return fail(path, std::string(info.format) + ": not a readable image (" +
                                  stbi_failure_reason() + ")");
        }
        if (Status problem = checkDimensions(width, height); !problem) {
            return fail(path, problem.error());
        }
        info.width = width;
        info.height = height;
    }
    if (Status budget =
            checkMemoryBudget(info.width, info.height, kLoadBytesPerSample, options.memory);
        !budget) {
        return fail(path, budget.error());
    }
    if (Status dense = checkDensity(info, bytes.size()); !dense) {
        return fail(path, dense.error());
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
        Heightmap map = blankMap(int(info.width), int(info.height), HeightmapFormat::Image16);
        if (Status decoded =
                decodeGray16Png(data, bytes.size(), map.width, map.height, map.codes.data());
            !decoded) {
            return fail(path, decoded.error());
        }
        updateRange(map);
        return map;
    }
    if (stbi_is_16_bit_from_memory(data, length)) {
        stbi_us* pixels = stbi_load_16_from_memory(data, length, &w, &h, &n, 1);
        return adoptStb(path, info, pixels, w, h, HeightmapFormat::Image16);
    }
    stbi_uc* pixels = stbi_load_from_memory(data, length, &w, &h, &n, 1);
    return adoptStb(path, info, pixels, w, h, HeightmapFormat::Image8);
}

// Binary PGM (P5) and PPM (P6), 8- or 16-bit. Decoded here because stb_image's 16-bit PNM path
// (Debian's 2022 stb) reports 16 bits but returns an 8-bit buffer.
Result<Heightmap> loadPnm(const std::string& path, const std::vector<unsigned char>& bytes) {
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
        return fail(path, "corrupt PGM/PPM header");
    }
    ++at;  // the single whitespace before the data
    if (Status problem = checkDimensions(width, height); !problem) {
        return fail(path, problem.error());
    }
    const int sampleBytes = maxValue > 255 ? 2 : 1;
    const auto count = size_t(width * height);
    if (bytes.size() - at < count * size_t(channels * sampleBytes)) {
        return fail(path, "corrupt image data (truncated PGM/PPM)");
    }
    Heightmap map = blankMap(int(width), int(height),
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
    updateRange(map);
    return map;
}

// Side of a square of `bytes` 16-bit samples, or 0 when the length is not such a square.
int squareSide(uint64_t bytes) {
    if (bytes % 2 != 0 || bytes / 2 > uint64_t(kMaxSide) * kMaxSide) {
        return 0;
    }
    const auto count = double(bytes / 2);
    const auto side = int64_t(std::llround(std::sqrt(count)));
    return uint64_t(side * side * 2) == bytes && side <= kMaxSide ? int(side) : 0;
}

}  // namespace

Result<RawGrid> rawGrid(bool hgt, uint64_t length, const LoadOptions& options) {
    using R = Result<RawGrid>;
    int width = options.rawWidth;
    int height = options.rawHeight;
    if (hgt || (width == 0 && height == 0)) {
        const int side = squareSide(length);
        if (hgt && side < 2) {
            return R::failure("file is " + std::to_string(length) +
                              " bytes; an .hgt holds a square of big-endian 16-bit samples "
                              "(2884802 bytes for 1201x1201, 25934402 for 3601x3601)");
        }
        if (side == 0) {
            return R::failure("file is " + std::to_string(length) +
                              " bytes, not a square of 16-bit samples; give its size with "
                              "--size WxH");
        }
        width = height = side;
    }
    if (Status problem = checkDimensions(width, height); !problem) {
        return R::failure(problem.error());
    }
    const uint64_t expected = uint64_t(width) * uint64_t(height) * 2;
    if (expected != length) {
        return R::failure("file is " + std::to_string(length) + " bytes but " +
                          std::to_string(width) + "x" + std::to_string(height) +
                          " 16-bit samples need " + std::to_string(expected));
    }
    return RawGrid{width, height};
}

namespace {

Result<Heightmap> loadHgt(const std::string& path, const std::vector<unsigned char>& bytes) {
    const Result<RawGrid> grid = rawGrid(true, bytes.size(), {});
    if (!grid) {
        return fail(path, grid.error());
    }
    const int side = grid.value().width;
    std::vector<float> samples(size_t(side) * size_t(side));
    for (size_t i = 0; i < samples.size(); ++i) {
        samples[i] = float(int16_t(uint16_t(bytes[2 * i] << 8 | bytes[2 * i + 1])));
    }
    if (!fillVoids(samples.data(), side, side, float(kHgtVoid))) {
        return fail(path, "every sample is void (-32768)");
    }
    Heightmap map;
    map.width = side;
    map.height = side;
    map.format = HeightmapFormat::Hgt;
    map.metres = true;
    map.geo = hgtGeoreference(path, side);
    encodeFloats(map, samples.data(), samples.size());  // exact: filled voids are integers too
    return map;
}

// A .r16/.raw file read straight into the codes (its little-endian samples swapped on a big-endian
// host): 2 bytes a sample, no copy of the file beside them.
Result<Heightmap> readRaw16File(const std::string& path, const std::string& name,
                                const RawGrid& grid) {
    Heightmap map = blankMap(grid.width, grid.height, HeightmapFormat::Raw16);
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        return fail(name, std::string("cannot open: ") + std::strerror(errno));
    }
    if (std::fread(map.codes.data(), 2, map.codes.size(), file.get()) != map.codes.size()) {
        return fail(name, "read failed (file changed or unreadable)");
    }
    const uint16_t one = 1;
    if (*reinterpret_cast<const unsigned char*>(&one) == 0) {
        for (uint16_t& code : map.codes) {
            code = uint16_t(code >> 8 | code << 8);
        }
    }
    updateRange(map);
    return map;
}

Result<Heightmap> loadRaw16(const std::string& path, const std::vector<unsigned char>& bytes,
                            const LoadOptions& options) {
    const Result<RawGrid> grid = rawGrid(false, bytes.size(), options);
    if (!grid) {
        return fail(path, grid.error());
    }
    Heightmap map = blankMap(grid.value().width, grid.value().height, HeightmapFormat::Raw16);
    for (size_t i = 0; i < map.codes.size(); ++i) {
        map.codes[i] = uint16_t(bytes[2 * i] | bytes[2 * i + 1] << 8);
    }
    updateRange(map);
    return map;
}

}  // namespace

std::string lowerExtension(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
        return "";
    }
    std::string ext = path.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

Status checkDimensions(int64_t width, int64_t height) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (width < 2 || height < 2) {
        return Status::failure("size " + size +
                               " is too small; a heightmap needs at least 2x2 samples");
    }
    if (width > kMaxSide || height > kMaxSide || width * height > kMaxSamples) {
        return Status::failure("size " + size + " is over the limit (" + std::to_string(kMaxSide) +
                               " samples a side, " + std::to_string(kMaxSamples) +
                               " samples in all)");
    }
    return {};
}

namespace {

// The two codes of sampleQuantiser, as functors: one definition for every loop that makes codes.
struct ExactCode {
    float lo;
    uint16_t operator()(float v) const { return uint16_t(v - lo); }
};
// Float arithmetic rounding half up (samples are at least lo): each code is within half a step
// and a few millionths of one, and the loop vectorises.
struct QuantisedCode {
    float lo;
    float toCodes;
    uint16_t operator()(float v) const {
        const float c = std::min((v - lo) * toCodes + 0.5f, 65535.0f);
        return uint16_t(int32_t(std::max(c, 0.0f)));
    }
};

}  // namespace

SampleQuantiser sampleQuantiser(float lo, float hi, bool integral) {
    const double low = lo;
    const double range = double(hi) - low;
    SampleQuantiser q;
    q.lo = lo;
    q.coding.offset = lo;
    // A range so small (under 2e-34) that 65535 / range overflows a float is kept as one code:
    // every sample is then within that range of lo.
    q.exact =
        range == 0.0 || (integral && range <= 65535.0) || !std::isfinite(float(65535.0 / range));
    if (!q.exact) {
        q.coding.step = float(range / 65535.0);
        q.toCodes = float(65535.0 / range);
    }
    return q;
}

void quantiseRow(const SampleQuantiser& quantiser, const float* samples, uint16_t* codes,
                 size_t count) {
    if (quantiser.exact) {
        encodeRow(samples, codes, count, ExactCode{quantiser.lo});
    } else {
        encodeRow(samples, codes, count, QuantisedCode{quantiser.lo, quantiser.toCodes});
    }
}

void encodeSamples(Heightmap& map, const float* samples, size_t count, float lo, float hi,
                   bool integral, int leafSize, std::vector<CodeRange>* leafRanges) {
    const SampleQuantiser q = sampleQuantiser(lo, hi, integral);
    map.codes.resize(count);
    map.coding = q.coding;
    if (q.exact) {
        encodeWith(map, samples, count, leafSize, leafRanges, ExactCode{lo});
        setRange(map, 0, uint16_t(hi - lo));
    } else {
        const QuantisedCode code{lo, q.toCodes};
        encodeWith(map, samples, count, leafSize, leafRanges, code);
        setRange(map, code(lo), code(hi));  // the code is monotone in the sample
    }
}

Result<Heightmap> makeHeightmap(int width, int height, const std::vector<float>& samples,
                                HeightmapFormat format) {
    if (Status problem = checkDimensions(width, height); !problem) {
        return Result<Heightmap>::failure(problem.error());
    }
    if (samples.size() != size_t(width) * size_t(height)) {
        return Result<Heightmap>::failure("sample count does not match the size");
    }
    if (!std::all_of(samples.begin(), samples.end(), [](float v) { return std::isfinite(v); })) {
        return Result<Heightmap>::failure("a sample is NaN or infinite");
    }
    if (!std::all_of(samples.begin(), samples.end(),
                     [](float v) { return std::fabs(v) <= kMaxWorldCoordinate; })) {
        return Result<Heightmap>::failure("a sample is beyond the limit for a height");
    }
    Heightmap map;
    map.width = width;
    map.height = height;
    map.format = format;
    encodeFloats(map, samples.data(), samples.size());
    return map;
}

std::vector<float> heightmapSamples(const Heightmap& map) {
    std::vector<float> samples(map.codes.size());
    std::transform(map.codes.begin(), map.codes.end(), samples.begin(),
                   [&](uint16_t code) { return map.coding.sample(code); });
    return samples;
}

bool fillVoids(float* samples, int width, int height, float voidValue) {
    return fillVoidsWithin(samples, width, height, voidValue, {}) == VoidFill::Done;
}

VoidFill fillVoidsWithin(float* samples, int width, int height, float voidValue,
                         const VoidFillLimits& limits) {
    assert(!std::isnan(voidValue));
    const size_t total = size_t(width) * size_t(height);
    // The samples carry the fill's state, so that it needs no array beside them: the voids become
    // one NaN (not queued yet), then another (queued); every other value is known or filled (a
    // filled value may be anything, voidValue included).
    constexpr uint32_t kWaiting = 0x7FC00001u;
    constexpr uint32_t kQueued = 0x7FC00002u;
    auto bitsOf = [samples](size_t i) {
        uint32_t b;
        std::memcpy(&b, samples + i, sizeof b);
        return b;
    };
    auto mark = [samples](size_t i, uint32_t b) { std::memcpy(samples + i, &b, sizeof b); };
    auto known = [samples](size_t i) { return samples[i] == samples[i]; };
    size_t untilTick = limits.tickEvery;
    auto ticked = [&] {
        if (limits.tickEvery != 0 && --untilTick == 0) {
            untilTick = limits.tickEvery;
            limits.tick();
        }
    };
    auto forNeighbours = [&](uint32_t i, auto&& visit) {
        const int col = int(i % uint32_t(width));
        const int row = int(i / uint32_t(width));
        for (int dr = -1; dr <= 1; ++dr) {
            for (int dc = -1; dc <= 1; ++dc) {
                const int c = col + dc;
                const int r = row + dr;
                if ((dr != 0 || dc != 0) && c >= 0 && r >= 0 && c < width && r < height) {
                    visit(uint32_t(r) * uint32_t(width) + uint32_t(c));
                }
            }
        }
    };
    bool anyKnown = false;
    bool anyVoid = false;
    for (size_t i = 0; i < total; ++i) {
        const bool isVoid = samples[i] == voidValue;
        if (isVoid) {
            mark(i, kWaiting);
        }
        anyKnown |= !isVoid;
        anyVoid |= isVoid;
        ticked();
    }
    if (!anyVoid) {
        return VoidFill::Done;
    }
    if (!anyKnown) {
        std::fill(samples, samples + total, voidValue);
        return VoidFill::AllVoid;
    }
    std::deque<uint32_t> frontier;
    // Seed with the void samples that touch a known one, in raster order.
    for (uint32_t i = 0; i < total; ++i) {
        if (bitsOf(i) == kWaiting) {
            bool touches = false;
            forNeighbours(i, [&](uint32_t n) { touches |= known(n); });
            if (touches) {
                if (frontier.size() == limits.maxQueued) {
                    return VoidFill::TooMany;
                }
                frontier.push_back(i);
                mark(i, kQueued);
            }
        }
        ticked();
    }
    while (!frontier.empty()) {
        const uint32_t i = frontier.front();
        frontier.pop_front();
        double sum = 0.0;
        int count = 0;
        bool full = false;
        forNeighbours(i, [&](uint32_t n) {
            if (known(n)) {
                sum += samples[n];
                ++count;
            } else if (bitsOf(n) == kWaiting && !full) {
                full = frontier.size() == limits.maxQueued;
                if (!full) {
                    frontier.push_back(n);
                    mark(n, kQueued);
                }
            }
        });
        if (full) {
            return VoidFill::TooMany;
        }
        samples[i] = float(std::round(sum / count));
        ticked();
    }
    return VoidFill::Done;
}

namespace {

// Whether `ext` names a format we read under these options.
Status checkFormat(const std::string& ext, const LoadOptions& options) {
    const bool isRaw = ext == ".r16" || ext == ".raw";
    if (!isRaw && ext != ".hgt" && !isStbExtension(ext) && !isGdalExtension(ext)) {
        return Status::failure(
            "unknown extension '" + escapedText(ext) +
            "' (expected .png .jpg .jpeg .bmp .tga .pgm .ppm .pnm .gif .psd .hdr "
            ".hgt .r16 .raw, or through GDAL " +
            gdalExtensionList() + ")");
    }
    if (!isRaw && (options.rawWidth != 0 || options.rawHeight != 0)) {
        return Status::failure("--size applies only to headerless .r16/.raw files");
    }
    if (ext != ".png" && options.encoding != HeightEncoding::Gray) {
        return Status::failure("--encoding applies only to PNG images");
    }
    return {};
}

}  // namespace

Result<Heightmap> decodeHeightmap(const std::string& name, const std::string& extension,
                                  const std::vector<unsigned char>& bytes,
                                  const LoadOptions& options) {
    std::string ext = extension;
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (Status problem = checkFormat(ext, options); !problem) {
        return fail(name, problem.error());
    }
    if (bytes.empty()) {
        return fail(name, "empty file");
    }
    if (ext == ".hgt") {
        return loadHgt(name, bytes);
    }
    if (ext == ".r16" || ext == ".raw") {
        return loadRaw16(name, bytes, options);
    }
    if (isGdalExtension(ext)) {
        return decodeGdalHeightmap(name, "map" + ext, bytes);
    }
    return loadStbImage(name, bytes, options);
}

Result<Heightmap> loadHeightmap(const std::string& path, const LoadOptions& options,
                                const SizeCheck& acceptSize, int treeLeafSize, Quadtree* tree) {
    if (path.empty()) {
        return Result<Heightmap>::failure("empty heightmap path");
    }
    const std::string name = escapedPath(path);
    const std::string ext = lowerExtension(path);
    if (Status problem = checkFormat(ext, options); !problem) {
        return fail(name, problem.error());  // before touching the file
    }
    // Everything that can be checked from the length and the header is, before the pixels are
    // read: a sparse file claiming gigabytes costs nothing.
    const Result<uint64_t> length = fileLength(path);
    if (!length) {
        return fail(name, length.error());
    }
    if (length.value() == 0) {
        return fail(name, "empty file");
    }
    if (isGdalExtension(ext)) {
        // GDAL reads the file itself; the raster's size is checked before its pixels are.
        const std::string gdalPath = ext == ".gz" ? "/vsigzip/" + path : path;
        if (tree == nullptr) {
            return loadGdalHeightmap(gdalPath, name, options.memory, acceptSize);
        }
        Result<HeightmapWithTree> loaded =
            loadGdalHeightmapWithTree(gdalPath, name, treeLeafSize, options.memory, acceptSize);
        if (!loaded) {
            return Result<Heightmap>::failure(loaded.error());
        }
        *tree = std::move(loaded.value().tree);
        return std::move(loaded.value().map);
    }
    const bool raw = ext == ".r16" || ext == ".raw";
    if (!raw && length.value() > kMaxFileBytes) {  // raw files are read straight into the codes
        return fail(name, "file of " + std::to_string(length.value()) +
                              " bytes is over the limit of " + std::to_string(kMaxFileBytes) +
                              " bytes for a heightmap");
    }
    std::vector<unsigned char> bytes;
    RawGrid size{0, 0};
    if (raw || ext == ".hgt") {
        const Result<RawGrid> grid = rawGrid(!raw, length.value(), options);
        if (!grid) {
            return fail(name, grid.error());
        }
        size = grid.value();
    } else {
        const uint64_t head = std::min<uint64_t>(length.value(), kHeaderBytes);
        if (Status read = readFile(path, head, bytes); !read) {
            return fail(name, read.error());
        }
        const Result<ImageInfo> info = checkImage(bytes.data(), bytes.size(), length.value());
        if (!info) {
            return fail(name, info.error());
        }
        if (Status dense = checkDensity(info.value(), length.value()); !dense) {
            return fail(name, dense.error());
        }
        // The few headers checkImage does not size (0 x 0 here) are checked in loadStbImage,
        // once stb_image has read them.
        size = RawGrid{int(info.value().width), int(info.value().height)};
    }
    if (size.width > 0 && size.height > 0) {
        if (Status budget =
                checkMemoryBudget(size.width, size.height, kLoadBytesPerSample, options.memory);
            !budget) {
            return fail(name, budget.error());
        }
        if (acceptSize) {
            if (Status accepted = acceptSize(size.width, size.height); !accepted) {
                return fail(name, accepted.error());
            }
        }
    }
    if (raw) {
        return readRaw16File(path, name, size);
    }
    if (bytes.size() != length.value()) {  // a small image is whole already
        if (Status read = readFile(path, length.value(), bytes); !read) {
            return fail(name, read.error());
        }
    }
    return decodeHeightmap(name, ext, bytes, options);
}

}  // namespace qt
