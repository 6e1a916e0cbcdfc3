// Heightmaps: a grid of raw samples as stored in the file, and the loaders for every format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/code_array.h"
#include "core/georeference.h"
#include "core/memory_budget.h"
#include "core/result.h"

namespace qt {

struct Quadtree;

// Where the samples came from: it picks the default world mapping (defaultMapping).
// Elevation: a raster read through GDAL (GeoTIFF, ESRI ASCII grid, VRT, ...) or a PNG tile of
// Terrain-RGB / Terrarium heights.
enum class HeightmapFormat { Image8, Image16, ImageFloat, Hgt, Raw16, Elevation };

// How a PNG packs a height into its red, green and blue bytes (--encoding).
enum class HeightEncoding {
    Gray,        // one channel (luminance of colour images)
    TerrainRgb,  // Mapbox: -10000 + (R * 65536 + G * 256 + B) * 0.1 metres
    Terrarium,   // Mapzen: R * 256 + G + B / 256 - 32768 metres
};

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

    uint16_t codeAt(int col, int row) const {
        return codes[size_t(row) * size_t(width) + size_t(col)];
    }
    float at(int col, int row) const { return coding.sample(codeAt(col, row)); }
    int64_t sampleCount() const { return int64_t(width) * height; }
};

struct LoadOptions {
    // Size of a headerless .r16/.raw file; 0 x 0 infers a square from the file length.
    int rawWidth = 0;
    int rawHeight = 0;
    // How a PNG's channels hold heights; anything but Gray applies to 8-bit RGB(A) PNGs only.
    HeightEncoding encoding = HeightEncoding::Gray;
    // Bytes the loaded map may take at its peak (checkMemoryBudget, before the pixels are read).
    MemoryBudget memory{};
};

// Called with a map's size once the file's header (or length, or GDAL's raster) gives it, before
// the samples are read; a failure refuses the map with its line. The viewer checks there that the
// GPU can hold the map.
using SizeCheck = std::function<Status(int width, int height)>;

// Loads PNG (8/16-bit), JPEG, BMP, TGA, PGM/PPM, GIF, PSD, HDR, SRTM .hgt and raw 16-bit LE.
// Colour images become one channel by stb_image's luminance (77 R + 150 G + 29 B) / 256;
// alpha is ignored. Errors are one line that starts with the path (control bytes escaped). The
// file's length and header are checked before its pixels are read (kMaxFileBytes, the size
// limits, truncation), and the compressed data is walked before stb_image decodes it.
// `acceptSize`, when set, may refuse the map from its size before its samples are read.
// With `tree` set, a GDAL raster also gets the first frame's tree, buildQuadtree(map,
// treeLeafSize, LodErrors::Range), built during its read (loadGdalHeightmapWithTree) into *tree;
// other formats leave *tree untouched, for the caller to build.
Result<Heightmap> loadHeightmap(const std::string& path, const LoadOptions& options = {},
                                const SizeCheck& acceptSize = {}, int treeLeafSize = 0,
                                Quadtree* tree = nullptr);

// Decodes bytes already in memory as the format `extension` names (".png", ".hgt", ...); `name`
// starts every error line. loadHeightmap() checks the length and header of the file,
// reads it and calls this, which runs every image check again on the whole file.
Result<Heightmap> decodeHeightmap(const std::string& name, const std::string& extension,
                                  const std::vector<unsigned char>& bytes,
                                  const LoadOptions& options = {});

// Builds a heightmap from samples already in memory (generators, tests); checks the size limits.
// Integer samples spanning at most 65535 steps are kept exactly, anything else is quantised.
Result<Heightmap> makeHeightmap(int width, int height, const std::vector<float>& samples,
                                HeightmapFormat format = HeightmapFormat::Image16);

// How finite samples between lo and hi become codes (encodeSamples' rule): exactly, step 1 from
// lo, when the map is flat or `integral` (every sample an integer below 2^24 in magnitude) and they
// span at most 65535 steps; else quantised to 65536 steps between lo and hi, rounding half up.
struct SampleQuantiser {
    HeightCoding coding;   // offset lo; step 1, or (hi - lo) / 65535
    bool exact = true;     // step 1 from lo
    float lo = 0.0f;       // the lowest sample
    float toCodes = 1.0f;  // codes per unit above lo when not exact
};
SampleQuantiser sampleQuantiser(float lo, float hi, bool integral);

// Codes of `count` samples, each between the quantiser's lo and hi, as encodeSamples makes them:
// a streamed raster's rows equal its full load's.
void quantiseRow(const SampleQuantiser& quantiser, const float* samples, uint16_t* codes,
                 size_t count);

// Stores finite samples whose extremes are lo and hi as codes: exactly (step 1 from lo) when the
// map is flat or `integral` (every sample an integer below 2^24 in magnitude) and they span at
// most 65535 steps, else quantised to 65536 steps between lo and hi. Sets the map's range.
// With `leafRanges`, count is the map's width x height (set before the call) and each quadtree
// leaf's code range, for leaves of leafSize squares (leafCodeRanges in core/quadtree.h), is taken
// by row * leavesX + col from the codes as they are made, leaves sharing their border samples.
void encodeSamples(Heightmap& map, const float* samples, size_t count, float lo, float hi,
                   bool integral, int leafSize = 0, std::vector<CodeRange>* leafRanges = nullptr);

// Every sample as a float, for tests and tools (the viewer never needs them).
std::vector<float> heightmapSamples(const Heightmap& map);

// The path's extension from its last dot, lower-case (".png"); "" when it has none.
std::string lowerExtension(const std::string& path);

// Checks a width x height against the limits before anything is allocated.
Status checkDimensions(int64_t width, int64_t height);

// The size of a headerless file of 16-bit samples.
struct RawGrid {
    int width;
    int height;
};

// The size of a headerless .hgt (`hgt`) or .r16/.raw file from its length and options.rawWidth x
// rawHeight (0 x 0: a square), checked against the limits and the length before it is read. The
// error is one line without the path.
Result<RawGrid> rawGrid(bool hgt, uint64_t length, const LoadOptions& options);

// Replaces every sample equal to voidValue by the mean of its filled 8-neighbours, rounded to an
// integer, in breadth-first order from the known samples. The samples hold no NaN (NaNs mark the
// voids while the fill runs, so that it needs no memory beside them but its queue). Returns false
// when every sample is void.
bool fillVoids(float* samples, int width, int height, float voidValue);

// fillVoids with bounds for samples larger than memory (a mapped file): `tick` is called after
// every tickEvery samples scanned or filled (the caller drops pages it no longer needs), and
// the fill stops, as TooMany, when its queue would hold more than maxQueued voids at once. The
// samples are left part filled then.
enum class VoidFill { Done, AllVoid, TooMany };
struct VoidFillLimits {
    size_t maxQueued = SIZE_MAX;
    size_t tickEvery = 0;  // 0: no tick
    std::function<void()> tick;
};
VoidFill fillVoidsWithin(float* samples, int width, int height, float voidValue,
                         const VoidFillLimits& limits);

}  // namespace qt
