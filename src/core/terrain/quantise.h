// How samples become 16-bit codes: exactly when they are integers spanning at most 65535 steps,
// else quantised to 65536 steps over their range; the leaves' code ranges taken on the way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/terrain/heightmap.h"

namespace qt {

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
// leaf's code range, for leaves of leafSize squares (leafCodeRanges in core/terrain/leaf_ranges.h),
// is taken by row * leavesX + col from the codes as they are made, leaves sharing their border
// samples.
void encodeSamples(Heightmap& map, const float* samples, size_t count, float lo, float hi,
                   bool integral, int leafSize = 0, std::vector<CodeRange>* leafRanges = nullptr);

// Stores finite samples as codes (encodeSamples), finding their range and whether they are all
// integers first (sampleRange).
void encodeFloatSamples(Heightmap& map, const float* samples, size_t count);

}  // namespace qt
