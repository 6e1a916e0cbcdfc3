// The lines along the Sun's direction and the disc's bands (the model: sun_lines.h).
#include "core/light/sun_lines.h"

#include <algorithm>
#include <cassert>

namespace qt {

namespace {

constexpr double kPi = 3.14159265358979323846;

// The fraction of a unit disc's area below height y, -1 <= y <= 1.
double discAreaBelow(double y) {
    return 0.5 + (y * std::sqrt(1.0 - y * y) + std::asin(y)) / kPi;
}

}  // namespace

std::vector<double> sunBandElevations(double elevation, int bands) {
    assert(bands >= 1);
    std::vector<double> out(size_t(bands), elevation);
    if (bands == 1)
        return out;
    for (int b = 0; b < bands; ++b) {
        const double target = (b + 0.5) / bands;
        double lo = -1.0, hi = 1.0;
        for (int k = 0; k < 60; ++k) {
            const double mid = 0.5 * (lo + hi);
            (discAreaBelow(mid) < target ? lo : hi) = mid;
        }
        out[size_t(b)] = elevation + kSunRadiusDegrees * 0.5 * (lo + hi);
    }
    return out;
}

SunLines sunLines(const Heightmap& map, const WorldMapping& mapping, SunDirection sun, int bands) {
    const double a = sun.azimuth * kPi / 180.0;
    // Towards the Sun in grid units: north is row 0's side (-z), east is +x.
    const double dc = std::sin(a) / double(mapping.spacingX);
    const double dr = -std::cos(a) / double(mapping.spacingZ);
    SunLines l;
    l.majorIsColumn = std::fabs(dc) >= std::fabs(dr);
    const double major = l.majorIsColumn ? dc : dr;
    const double minor = l.majorIsColumn ? dr : dc;
    // A slope within 1e-9 of an axis is the axis: the sine and cosine of a multiple of 90
    // degrees are not exactly 0, and lines a hair off a row would leave the map's edge row.
    const double slope = minor / major;
    const double t = std::fabs(slope) < 1e-9 ? 0.0 : slope;
    l.majorCount = l.majorIsColumn ? map.width : map.height;
    l.minorCount = l.majorIsColumn ? map.height : map.width;
    l.towardsSun = major > 0.0 ? 1 : -1;
    const double spacingMajor = l.majorIsColumn ? mapping.spacingX : mapping.spacingZ;
    const double spacingMinor = l.majorIsColumn ? mapping.spacingZ : mapping.spacingX;
    l.step = std::hypot(spacingMajor, t * spacingMinor);
    l.whole.resize(size_t(l.majorCount));
    l.fraction.resize(size_t(l.majorCount));
    int lo = 0, hi = 0;
    for (int i = 0; i < l.majorCount; ++i) {
        const double y = double(i) * t;
        const double w = std::floor(y);
        l.whole[size_t(i)] = int32_t(w);
        l.fraction[size_t(i)] = y - w;
        lo = std::min(lo, int(w));
        hi = std::max(hi, int(w));
    }
    // Along a line i runs away from the Sun; the row is i along rows, j + floor(i t) along
    // columns.
    const bool iRises = l.towardsSun < 0;
    l.rowsAscending = l.majorIsColumn ? (t == 0.0 || (t > 0.0) == iRises) : iRises;
    l.firstLine = -hi - 1;
    l.lastLine = l.minorCount - 1 - lo;
    l.heights = heightTransform(map.coding, mapping);
    l.bandElevation = sunBandElevations(sun.elevation, bands);
    for (double& e : l.bandElevation)
        e = std::min(e, 90.0);
    for (double e : l.bandElevation)
        l.risePerStep.push_back(l.step * std::tan(e * kPi / 180.0));
    return l;
}

}  // namespace qt
