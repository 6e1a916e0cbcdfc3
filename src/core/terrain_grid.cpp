// The indexed vertex grid: world mapping, central-difference normals, leaf triangle strips.
#include "core/terrain_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <glm/geometric.hpp>

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

Status checkWorldFinite(const Heightmap& map, const WorldMapping& mapping) {
    auto number = [](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", v);
        return std::string(text);
    };
    const std::string limit = number(kMaxWorldCoordinate);
    const double spacings[2] = {mapping.spacingX, mapping.spacingZ};
    const int samples[2] = {map.width, map.height};
    for (int axis = 0; axis < 2; ++axis) {
        const double spacing = spacings[axis];
        if (!(float(spacing) >= float(kMinSpacing))) {
            return Status::failure("--spacing " + number(spacing) +
                                   " is below the least spacing of " + number(kMinSpacing));
        }
        const double extent = double(samples[axis] - 1) * spacing;
        if (!(extent <= kMaxWorldCoordinate)) {
            return Status::failure("--spacing " + number(spacing) + " makes the map " +
                                   number(extent) + " world units wide, over the limit of " +
                                   limit);
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
        return Status::failure("--height-scale " + number(scale) + " makes heights reach " +
                               number(scaled) + " world units, over the limit of " + limit);
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

glm::vec3 vertexPosition(const Heightmap& map, const WorldMapping& mapping, int col, int row) {
    const HeightTransform height = heightTransform(map.coding, mapping);
    return {float(col) * mapping.spacingX, height.worldHeight(float(map.codeAt(col, row))),
            float(row) * mapping.spacingZ};
}

glm::vec3 vertexNormal(const Heightmap& map, const WorldMapping& mapping, int col, int row) {
    const int c0 = std::max(col - 1, 0);
    const int c1 = std::min(col + 1, map.width - 1);
    const int r0 = std::max(row - 1, 0);
    const int r1 = std::min(row + 1, map.height - 1);
    const float scale = heightTransform(map.coding, mapping).scale;
    const float dx = (float(map.codeAt(c1, row)) - float(map.codeAt(c0, row))) * scale;
    const float dz = (float(map.codeAt(col, r1)) - float(map.codeAt(col, r0))) * scale;
    // Tangents (sx, dx, 0) and (0, dz, sz); their cross product, scaled by 1 / (sx sz).
    const float sx = float(c1 - c0) * mapping.spacingX;
    const float sz = float(r1 - r0) * mapping.spacingZ;
    return glm::normalize(glm::vec3(-dx * sz, sx * sz, -dz * sx));
}

void appendLeafStrip(int col0, int row0, int col1, int row1, int width,
                     std::vector<uint32_t>& out) {
    for (int row = row0; row < row1; ++row) {
        // Vertex `side` (0 first) of the row's k-th column pair: every other row east to west,
        // bottom vertex first, which keeps the diagonal.
        const bool back = (row - row0) % 2 == 1;
        const auto vertex = [&](int k, int side) {
            return back ? vertexIndex(col1 - k, row + 1 - side, width)
                        : vertexIndex(col0 + k, row + side, width);
        };
        if (row > row0) {
            const uint32_t last = out.back();
            out.push_back(last);
            out.push_back(vertex(0, 0));
        }
        for (int k = 0; k <= col1 - col0; ++k) {
            out.push_back(vertex(k, 0));
            out.push_back(vertex(k, 1));
        }
    }
}

}  // namespace qt
