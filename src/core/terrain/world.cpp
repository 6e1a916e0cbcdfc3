// The world mapping: the default for each kind of map, the map's extent, the finiteness checks.
#include "core/terrain/world.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/config.h"

namespace qt {

WorldExtent worldExtent(const Heightmap& map, const WorldMapping& mapping) {
    WorldExtent e;
    e.sizeX = float(map.width - 1) * mapping.spacingX;
    e.sizeZ = float(map.height - 1) * mapping.spacingZ;
    e.minY = mapping.worldHeight(map.minSample);
    e.maxY = mapping.worldHeight(map.maxSample);
    if (e.minY > e.maxY) {
        std::swap(e.minY, e.maxY);  // a negative height scale turns the range over
    }
    return e;
}

bool horizontalMetres(const Heightmap& map, const WorldMapping& mapping) {
    const bool given = (map.geo.present && map.geo.metresX > 0.0 && map.geo.metresZ > 0.0) ||
                       map.format == HeightmapFormat::Hgt;
    const WorldMapping metres = defaultMapping(map);
    return given && mapping.spacingX == metres.spacingX && mapping.spacingZ == metres.spacingZ;
}

WorldMapping defaultMapping(const Heightmap& map) {
    WorldMapping mapping;
    if (map.geo.present && map.geo.metresX > 0.0 && map.geo.metresZ > 0.0) {
        mapping.spacingX = float(map.geo.metresX);
        mapping.spacingZ = float(map.geo.metresZ);
    }
    if (map.metres && map.geo.present) {
        mapping.heightScale = 1.0f;  // real metres on every axis
        return mapping;
    }
    if (map.format == HeightmapFormat::Hgt) {
        // A tile whose name gives no latitude: 1201 samples span one degree at 3 arc-seconds,
        // 3601 at 1 arc-second, north-south; east-west is taken as the same.
        mapping.spacingX = mapping.spacingZ =
            map.width > 1 ? float(3600.0 / (map.width - 1) * kMetresPerArcSecond) : 1.0f;
        mapping.heightScale = 1.0f;
        return mapping;
    }
    if (map.format == HeightmapFormat::ImageFloat) {
        mapping.heightScale = 1.0f;
        return mapping;
    }
    // Unitless samples, or metres without a horizontal size: the map's own sample range spans
    // kDefaultReliefFraction of its longer side.
    const double range = double(map.maxSample) - double(map.minSample);
    const double side = std::max(double(map.width - 1) * mapping.spacingX,
                                 double(map.height - 1) * mapping.spacingZ);
    mapping.heightScale = range > 0.0 ? float(kDefaultReliefFraction * side / range) : 1.0f;
    return mapping;
}

Status checkWorldFinite(const Heightmap& map, const WorldMapping& mapping,
                        const MappingOrigin& origin) {
    auto number = [](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", v);
        return std::string(text);
    };
    const std::string limit = number(kMaxWorldCoordinate);
    // A georeference's spacing is checked as the file gives it: as a float it may be 0 or inf.
    const bool georeferenced = !origin.spacingGiven && map.geo.present;
    const double spacings[2] = {georeferenced ? map.geo.metresX : mapping.spacingX,
                                georeferenced ? map.geo.metresZ : mapping.spacingZ};
    const int samples[2] = {map.width, map.height};
    for (int axis = 0; axis < 2; ++axis) {
        const double spacing = spacings[axis];
        const std::string named = georeferenced
                                      ? origin.mapName + ": its georeference spaces samples " +
                                            number(spacing) + " metres apart"
                                      : "--spacing " + number(spacing);
        if (!(float(spacing) >= float(kMinSpacing))) {
            return Status::failure(named + (georeferenced ? ", below" : " is below") +
                                   " the least spacing of " + number(kMinSpacing) +
                                   (georeferenced ? "; give one with --spacing" : ""));
        }
        const double extent = double(samples[axis] - 1) * spacing;
        if (!(extent <= kMaxWorldCoordinate)) {
            return Status::failure(named + (georeferenced ? ", making" : " makes") + " the map " +
                                   number(extent) + " world units wide, over the limit of " +
                                   limit +
                                   (georeferenced ? "; give a spacing with --spacing" : ""));
        }
    }
    // Doubles hold every product here exactly enough: samples and options are finite floats.
    const double scale = mapping.heightScale;
    const double offset = mapping.heightOffset;
    const double lo = map.minSample;
    const double hi = map.maxSample;
    const double scaled = std::max({std::fabs(scale * lo), std::fabs(scale * hi),
                                    std::fabs(scale * map.coding.offset),
                                    std::fabs(scale * map.coding.step * map.maxCode)});
    if (!(scaled <= kMaxWorldCoordinate)) {
        const bool exaggerated = origin.exaggeration != 1.0f;
        const std::string named =
            !exaggerated
                ? (origin.heightScaleGiven ? "--height-scale " + number(scale)
                                           : origin.mapName + ": its height scale " + number(scale))
            : origin.heightScaleGiven
                ? "--height-scale " + number(scale / double(origin.exaggeration)) +
                      " with --exaggeration " + number(origin.exaggeration)
                : "--exaggeration " + number(origin.exaggeration);
        return Status::failure(named + " makes heights reach " + number(scaled) +
                               " world units, over the limit of " + limit);
    }
    const double height =
        std::max({std::fabs(scale * lo + offset), std::fabs(scale * hi + offset),
                  std::fabs(scale * map.coding.offset + offset), std::fabs(offset)});
    if (!(height <= kMaxWorldCoordinate)) {
        return Status::failure("--height-offset " + number(offset) + " makes heights reach " +
                               number(height) + " world units, over the limit of " + limit);
    }
    return {};
}

}  // namespace qt
