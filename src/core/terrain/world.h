// Where a map's samples lie in the world: the mapping from column, row and sample to x, z and y,
// the heights' folded transform, the map's extent, and the checks that keep it finite.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include <glm/vec3.hpp>

#include "core/base/result.h"
#include "core/terrain/heightmap.h"

namespace qt {

// x = column * spacingX, z = row * spacingZ, y = sample * heightScale + heightOffset. The
// spacings differ where the samples are not square on the ground (geographic rasters away from
// the equator, projected ones with rectangular pixels).
struct WorldMapping {
    constexpr WorldMapping() = default;
    // Square cells: one spacing on both axes.
    constexpr WorldMapping(float spacing, float scale, float offset)
        : spacingX(spacing), spacingZ(spacing), heightScale(scale), heightOffset(offset) {}
    constexpr WorldMapping(float xSpacing, float zSpacing, float scale, float offset)
        : spacingX(xSpacing), spacingZ(zSpacing), heightScale(scale), heightOffset(offset) {}

    float spacingX = 1.0f;  // world units between neighbouring columns (east-west)
    float spacingZ = 1.0f;  // and between neighbouring rows (north-south)
    float heightScale = 1.0f;
    float heightOffset = 0.0f;

    float worldHeight(float sample) const { return sample * heightScale + heightOffset; }
    // The map's own height (its samples' units) at a world y; NaN under a zero height scale.
    double mapHeight(double worldY) const {
        return heightScale != 0.0f ? (worldY - double(heightOffset)) / double(heightScale)
                                   : std::nan("");
    }
    float largerSpacing() const { return spacingX > spacingZ ? spacingX : spacingZ; }
};

// World height of a stored code, y = code * scale + bias: the map's coding folded into the
// mapping. The shader, vertexPosition and the culling planes all use these two floats, so the
// drawn vertices and the boxes they are tested in are computed alike.
struct HeightTransform {
    float scale = 1.0f;
    float bias = 0.0f;

    float worldHeight(float code) const { return code * scale + bias; }
};

inline HeightTransform heightTransform(const HeightCoding& coding, const WorldMapping& mapping) {
    return {mapping.heightScale * coding.step,
            mapping.heightScale * coding.offset + mapping.heightOffset};
}

// The map's extent in world units: x over columns [0, width - 1], z over rows [0, height - 1],
// y over the map's sample range (minY <= maxY whatever the height scale's sign).
struct WorldExtent {
    float sizeX = 0.0f;
    float sizeZ = 0.0f;
    float minY = 0.0f;
    float maxY = 0.0f;

    float longerSide() const { return sizeX > sizeZ ? sizeX : sizeZ; }
};

WorldExtent worldExtent(const Heightmap& map, const WorldMapping& mapping);

// The largest magnitude of any coordinate in play, the eye's or the map box's: the scale of the
// float rounding that culling, occlusion and picking margins must cover.
inline float largestCoordinate(const glm::vec3& eye, const WorldExtent& e) {
    const float eyeLargest =
        std::max(std::max(std::fabs(eye.x), std::fabs(eye.y)), std::fabs(eye.z));
    const float mapLargest =
        std::max(std::max(e.sizeX, e.sizeZ), std::max(std::fabs(e.minY), std::fabs(e.maxY)));
    return std::max(eyeLargest, mapLargest);
}

// The mapping a user gets without options: real metres on every axis for a georeferenced map of
// heights in metres (GDAL rasters, .hgt); otherwise the map's own sample range spanning
// kDefaultReliefFraction of its longer side (unit spacing unless the file gives one).
WorldMapping defaultMapping(const Heightmap& map);

// Whether the mapping's horizontal world units are metres: the map's georeference (or a .hgt
// tile's name or size) gave its spacing in metres, and no other spacing (--spacing) replaced it.
bool horizontalMetres(const Heightmap& map, const WorldMapping& mapping);

// Where a mapping's values came from, for checkWorldFinite's line: the options that set them, or
// the map (its georeference's spacing, its own heights).
struct MappingOrigin {
    std::string mapName = "the map";  // the map's path as lines print it (escapedPath)
    bool spacingGiven = true;         // --spacing; else the map's (its georeference's metres)
    bool heightScaleGiven = true;     // --height-scale
    float exaggeration = 1.0f;        // --exaggeration, the height scale's factor
};

// Whether the map under this mapping is a world of finite floats: its extent ((size - 1) *
// spacing on each axis) and heights (sample * heightScale + heightOffset over the map's sample
// range, and the shader's folded scale and bias) within kMaxWorldCoordinate, and the spacing at
// least kMinSpacing. Then every distance, camera and far plane the viewer derives stays finite (see
// kMaxWorldCoordinate for the precision far from the origin). The error is one line naming what
// to change: the option that set the value (--spacing, --height-scale, --exaggeration,
// --height-offset), or the map when its georeference gave the spacing (its metres shown whole,
// where the float spacing would be 0 or infinite).
Status checkWorldFinite(const Heightmap& map, const WorldMapping& mapping,
                        const MappingOrigin& origin = {});

}  // namespace qt
