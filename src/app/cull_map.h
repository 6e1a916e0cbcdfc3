// The --cull-map picture: the leaf grid from above, drawn, occluded or culled, with the frustum's
// footprint.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "app/palette.h"
#include "core/base/result.h"
#include "core/io/image_write.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"

namespace qt {

struct RgbImage {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgb;  // row-major, top row first (row 0 = world z 0)
};

// Colours of the cull map, as the minimap's (app/palette.h).
constexpr uint8_t kMapDrawn[3] = {kDrawnColour.r, kDrawnColour.g, kDrawnColour.b};
constexpr uint8_t kMapOccluded[3] = {kOccludedColour.r, kOccludedColour.g, kOccludedColour.b};
constexpr uint8_t kMapCulled[3] = {kCulledColour.r, kCulledColour.g, kCulledColour.b};
constexpr uint8_t kMapOutside[3] = {kOutsideColour.r, kOutsideColour.g, kOutsideColour.b};
constexpr uint8_t kMapFrustum[3] = {kFrustumColour.r, kFrustumColour.g, kFrustumColour.b};
constexpr uint8_t kMapCamera[3] = {kCameraColour.r, kCameraColour.g, kCameraColour.b};

// The leaves of `drawn` drawn, the other leaves of `inFrustum` occluded (nearer terrain hides
// them), every other leaf culled (runs of tree-order leaves); a margin of outside-the-map around
// it; the frustum's eight corners projected onto x/z and joined by its twelve edges; the eye as a
// dot.
RgbImage cullMapImage(const Quadtree& tree, const WorldMapping& mapping,
                      const std::vector<LeafRange>& inFrustum, const std::vector<LeafRange>& drawn,
                      const std::array<glm::vec3, 8>& frustumCorners, const glm::vec3& eye);

// A node of the minimap: its leaves all drawn, or (drawn false) all occluded.
struct MapCell {
    uint32_t node;
    bool drawn;
};

// Splits the walk's accepted nodes (leaves in the frustum) by the drawn runs into nodes whose
// leaves are all drawn or all occluded, appended to `cells` (cleared first; no allocation once it
// has grown). A node at most `minSide` samples a side is not split: drawn if any of its leaves is,
// so the cells stay about as many as the minimap's pixels.
void minimapCells(const Quadtree& tree, const std::vector<uint32_t>& acceptedNodes,
                  const std::vector<LeafRange>& drawn, int minSide, std::vector<MapCell>& cells);

}  // namespace qt
