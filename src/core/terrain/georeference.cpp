// Metres per degree on the WGS 84 ellipsoid and the georeference of SRTM tiles from their names.
#include "core/terrain/georeference.h"

#include <cctype>
#include <cmath>

namespace qt {

MetresPerDegree metresPerDegree(double latitudeDegrees, double semiMajor,
                                double inverseFlattening) {
    constexpr double kPi = 3.14159265358979323846;
    const double f = inverseFlattening > 0.0 ? 1.0 / inverseFlattening : 0.0;
    const double e2 = f * (2.0 - f);
    const double phi = latitudeDegrees * kPi / 180.0;
    const double s = std::sin(phi);
    const double w = 1.0 - e2 * s * s;
    const double meridional = semiMajor * (1.0 - e2) / (w * std::sqrt(w));
    const double normal = semiMajor / std::sqrt(w);
    return {meridional * kPi / 180.0, normal * std::cos(phi) * kPi / 180.0};
}

Georeference hgtGeoreference(const std::string& path, int side) {
    Georeference geo;
    const size_t slash = path.find_last_of('/');
    const std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
    // [NS]dd[EW]ddd, then the extension.
    if (name.size() < 7 || side < 2) {
        return geo;
    }
    const char ns = char(std::toupper(static_cast<unsigned char>(name[0])));
    const char ew = char(std::toupper(static_cast<unsigned char>(name[3])));
    auto digits = [&](size_t from, size_t count) {
        int value = 0;
        for (size_t i = from; i < from + count; ++i) {
            if (!std::isdigit(static_cast<unsigned char>(name[i]))) {
                return -1;
            }
            value = value * 10 + (name[i] - '0');
        }
        return value;
    };
    const int lat = digits(1, 2);
    const int lon = digits(4, 3);
    if ((ns != 'N' && ns != 'S') || (ew != 'E' && ew != 'W') || lat < 0 || lat > 89 || lon < 0 ||
        lon > 180 || (name.size() > 7 && name[7] != '.')) {
        return geo;
    }
    // Samples sit on the square's edges: side samples span one degree, each cell half a step
    // beyond the outer ones, as GDAL's SRTMHGT driver reports the corners.
    const double step = 1.0 / double(side - 1);
    const double south = ns == 'N' ? lat : -lat;
    const double west = ew == 'E' ? lon : -lon;
    geo.present = true;
    geo.crsName = "WGS 84";
    geo.geographic = true;
    geo.west = west - 0.5 * step;
    geo.east = west + 1.0 + 0.5 * step;
    geo.south = south - 0.5 * step;
    geo.north = south + 1.0 + 0.5 * step;
    const MetresPerDegree m = metresPerDegree(south + 0.5);
    geo.metresX = m.eastWest * step;
    geo.metresZ = m.northSouth * step;
    return geo;
}

}  // namespace qt
