// What quadterrain-bake reads of its input: a plan taken once (size, height coding, georeference,
// nodata), then any window of the samples as the plan's codes, on any thread, so that the bake
// reads the input by regions and never holds it whole or copies it to a cache first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/base/result.h"
#include "core/io/load.h"
#include "core/terrain/georeference.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quantise.h"

namespace qt {

struct BakeInput {
    // How a window's codes are made: a .r16's rows read (pread: nothing of it stays mapped in
    // the process); an unsigned 16-bit band read
    // as its codes; any other band read as floats, its voids found and the plan's quantiser
    // applied.
    enum class Kind { Raw16, GdalCodes, GdalFloats };
    Kind kind = Kind::Raw16;
    std::string path;      // the input
    std::string gdalPath;  // what GDAL opens (the GDAL kinds)
    int width = 0;
    int height = 0;
    HeightCoding coding;
    bool metres = false;
    Georeference geo;
    bool hasTransform = false;
    double transform[6] = {0, 1, 0, 0, 0, 1};
    std::string wkt;
    SampleQuantiser quantiser;  // GdalFloats
    float hi = 0.0f;            // the highest valid sample (GdalFloats)
    bool integral = false;      // every valid sample an integer (GdalFloats)
    int64_t nodataSamples = 0;  // voids (nodata, NaN, a mask's zeros): holes
};

// What a float band's pass finds, given instead of taken again (a bake by jobs' plan.json).
struct PlannedRange {
    float lo = 0.0f;
    float hi = 0.0f;
    bool integral = false;
    int64_t voids = 0;
};

// Plans the bake of `path` (a .r16/.raw, or a GDAL raster by its extension, local or by URL
// through GDAL's network reader): its size and, for a
// GDAL raster, its band described (describeGdalBand) and its files held to the sizes its header
// declares; a band read as floats takes one pass over its rows for the range of its valid samples
// (the quantiser: the codes a full load makes of them), its rows shared out among `threads`
// threads, its voids counted, a sample beyond float or kMaxWorldCoordinate refused; with `given`,
// no pass: its range and voids are the band's (WindowReader then refuses a window that holds a
// sample outside the range). One line (without the path) on failure.
Result<BakeInput> planBakeInput(const std::string& path, const LoadOptions& options,
                                int threads = 1, const PlannedRange* given = nullptr);

// Reads windows of a planned input, one reader a thread (each holds its own GDAL dataset).
class WindowReader {
public:
    static Result<WindowReader> open(const BakeInput& input);

    // Samples [x0, x0 + w) x [z0, z0 + h) as codes, row after row (w a row), into `codes`, and
    // into `valid` (when not null) 255 for a sample given and 0 for a void. Voids are filled for
    // the codes as a full load fills them (fillVoids, over the window alone), held within the
    // plan's range; a window of voids alone takes the lowest code. Returns the window's voids; a
    // given sample outside the plan's range (an input changed since its plan) is a failure.
    Result<int64_t> read(int x0, int z0, int w, int h, uint16_t* codes, uint8_t* valid);

private:
    explicit WindowReader(const BakeInput& input) : input_(&input) {}
    struct Gdal;
    const BakeInput* input_;
    std::shared_ptr<Gdal> gdal_;
    std::shared_ptr<int> raw_;  // a .r16's descriptor, closed with the last copy
};

}  // namespace qt
