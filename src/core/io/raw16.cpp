// SRTM .hgt and .r16/.raw: the size from the length, the samples read straight into the codes.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/base/text.h"
#include "core/config.h"
#include "core/io/decoders.h"
#include "core/io/voids.h"
#include "core/terrain/quantise.h"

namespace qt {

namespace {

// Side of a square of `bytes` 16-bit samples within the limit, or 0 when the length is not such a
// square.
int squareSide(uint64_t bytes, SizeLimit limit) {
    if (bytes % 2 != 0 || bytes / 2 > uint64_t(limit.samples)) {
        return 0;
    }
    const auto count = double(bytes / 2);
    const auto side = int64_t(std::llround(std::sqrt(count)));
    return uint64_t(side * side * 2) == bytes && side <= limit.side ? int(side) : 0;
}

}  // namespace

Result<RawGrid> rawGrid(bool hgt, uint64_t length, const LoadOptions& options, SizeLimit limit) {
    using R = Result<RawGrid>;
    int width = options.rawWidth;
    int height = options.rawHeight;
    if (hgt || (width == 0 && height == 0)) {
        const int side = squareSide(length, limit);
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
    if (Status problem = checkDimensions(width, height, limit); !problem) {
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

Result<Heightmap> decodeHgt(const std::string& path, const std::vector<unsigned char>& bytes,
                            const LoadOptions& options) {
    const Result<RawGrid> grid = rawGrid(true, bytes.size(), {});
    if (!grid) {
        return loadFailure(path, grid.error());
    }
    const int side = grid.value().width;
    std::vector<float> samples(size_t(side) * size_t(side));
    for (size_t i = 0; i < samples.size(); ++i) {
        samples[i] = float(int16_t(uint16_t(bytes[2 * i] << 8 | bytes[2 * i + 1])));
    }
    NodataMask nodata = markNodata(samples.data(), side, side, float(kHgtVoid));
    if (!fillVoids(samples.data(), side, side, float(kHgtVoid))) {
        return loadFailure(path, "every sample is void (-32768)");
    }
    Heightmap map;
    map.width = side;
    map.height = side;
    map.format = HeightmapFormat::Hgt;
    map.metres = true;
    map.nodata = std::move(nodata);
    map.nodata.total = int64_t(samples.size());
    map.geo = hgtGeoreference(options.hgtTile.empty() ? path : options.hgtTile + ".hgt", side);
    if (!map.geo.present && (side == 1201 || side == 3601)) {
        // SRTM's 3 and 1 arc-second tiles: most likely a tile renamed, its place lost with the
        // name.
        std::fprintf(stderr,
                     "%s: an SRTM tile's %dx%d samples under a name that is not a tile's (like "
                     "N47E009.hgt): no georeference, one unit between samples; --georef N47E009 "
                     "gives it\n",
                     escapedPath(path).c_str(), side, side);
    }
    encodeFloatSamples(map, samples.data(),
                       samples.size());  // exact: filled voids are integers too
    return map;
}

Result<Heightmap> readRaw16File(const std::string& path, const std::string& name,
                                const RawGrid& grid) {
    Heightmap map = blankHeightmap(grid.width, grid.height, HeightmapFormat::Raw16);
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        return loadFailure(name, std::string("cannot open: ") + std::strerror(errno));
    }
    if (std::fread(map.codes.data(), 2, map.codes.size(), file.get()) != map.codes.size()) {
        return loadFailure(name, "read failed (file changed or unreadable)");
    }
    const uint16_t one = 1;
    if (*reinterpret_cast<const unsigned char*>(&one) == 0) {
        for (uint16_t& code : map.codes) {
            code = uint16_t(code >> 8 | code << 8);
        }
    }
    findCodeRange(map);
    return map;
}

Result<Heightmap> decodeRaw16(const std::string& path, const std::vector<unsigned char>& bytes,
                              const LoadOptions& options) {
    const Result<RawGrid> grid = rawGrid(false, bytes.size(), options);
    if (!grid) {
        return loadFailure(path, grid.error());
    }
    Heightmap map = blankHeightmap(grid.value().width, grid.value().height, HeightmapFormat::Raw16);
    for (size_t i = 0; i < map.codes.size(); ++i) {
        map.codes[i] = uint16_t(bytes[2 * i] | bytes[2 * i + 1] << 8);
    }
    findCodeRange(map);
    return map;
}

}  // namespace qt
