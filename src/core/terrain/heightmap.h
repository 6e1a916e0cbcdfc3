// The heightmap: a grid of samples kept as 16-bit codes with the coding that maps them back to
// the file's values, its range, its format and its place on the Earth. Loaders: core/io/load.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/config.h"
#include "core/terrain/code_array.h"
#include "core/terrain/georeference.h"
#include "core/terrain/nodata.h"

namespace qt {

// Where the samples came from: it picks the default world mapping (defaultMapping).
// Elevation: a raster read through GDAL (GeoTIFF, ESRI ASCII grid, VRT, ...) or a PNG tile of
// Terrain-RGB / Terrarium heights.
enum class HeightmapFormat { Image8, Image16, ImageFloat, Hgt, Raw16, Elevation };

// How stored 16-bit codes map to the file's sample values: sample = offset + step * code.
// Integer formats are stored exactly (step 1); float data is quantised over its range.
struct HeightCoding {
    float offset = 0.0f;
    float step = 1.0f;

    float sample(uint16_t code) const { return offset + step * float(code); }
};

// The least and greatest code of some samples.
struct CodeRange {
    uint16_t minCode;
    uint16_t maxCode;
};

// Row-major samples, row 0 first; sample (col, row) is codes[row * width + col]. Values are the
// file's own numbers (0..255, 0..65535, signed metres for .hgt), kept as 16-bit codes: 2 bytes a
// sample here and on the GPU. Every integer format round-trips exactly; HDR (float) images are
// quantised to 65536 steps between their lowest and highest sample.
struct Heightmap {
    int width = 0;
    int height = 0;
    CodeArray codes;  // written whole by every loader, or a read-only mapping of the file
    HeightCoding coding;
    uint16_t minCode = 0;  // over every sample
    uint16_t maxCode = 0;
    float minSample = 0.0f;  // coding.sample(minCode)
    float maxSample = 0.0f;
    HeightmapFormat format = HeightmapFormat::Image16;
    bool metres = false;  // samples are heights in metres (GDAL rasters, .hgt, Terrain-RGB)
    Georeference geo;     // where the map lies, when its file says
    NodataMask nodata;    // the samples the file gave no value for (their codes hold a fill)

    uint16_t codeAt(int col, int row) const {
        return codes[size_t(row) * size_t(width) + size_t(col)];
    }
    float at(int col, int row) const { return coding.sample(codeAt(col, row)); }
    int64_t sampleCount() const { return int64_t(width) * height; }
};

// Builds a heightmap from samples already in memory (generators, tests); checks the size limits.
// Integer samples spanning at most 65535 steps are kept exactly, anything else is quantised.
Result<Heightmap> makeHeightmap(int width, int height, const std::vector<float>& samples,
                                HeightmapFormat format = HeightmapFormat::Image16);

// Every sample as a float, for tests and tools (the viewer never needs them).
std::vector<float> heightmapSamples(const Heightmap& map);

// Checks a width x height against the limits before anything is allocated: limit.side samples a
// side and limit.samples in all.
Status checkDimensions(int64_t width, int64_t height, SizeLimit limit = kMapSizeLimit);

// Sets the map's code range (minCode, maxCode) and the samples they stand for.
void setCodeRange(Heightmap& map, uint16_t lo, uint16_t hi);

// Sets the map's code range from a pass over its codes.
void findCodeRange(Heightmap& map);

// A map of width x height codes, all zero, ready to be filled (the size already checked).
Heightmap blankHeightmap(int width, int height, HeightmapFormat format);

}  // namespace qt
