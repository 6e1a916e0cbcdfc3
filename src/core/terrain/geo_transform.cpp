// World points to the map's CRS (the georeference's corners) and to WGS 84 (GDAL's OGR over PROJ);
// geodesic distances with PROJ's geod_inverse.
//
// C. F. F. Karney, "Algorithms for geodesics", Journal of Geodesy 87, 43-55 (2013).
#include "core/terrain/geo_transform.h"

#include <cmath>
#include <utility>

#include <cpl_error.h>
#include <geodesic.h>
#include <ogr_spatialref.h>

namespace qt {
namespace {

// WGS 84's semi-major axis (metres) and flattening.
constexpr double kWgs84A = 6378137.0;
constexpr double kWgs84F = 1.0 / 298.257223563;

// The map's CRS as GDAL reads it, x east (or longitude) first whatever the authority's axis
// order; false when the georeference names none.
bool mapCrs(const Georeference& geo, OGRSpatialReference& srs) {
    if (!geo.crsWkt.empty()) {
        if (srs.importFromWkt(geo.crsWkt.c_str()) != OGRERR_NONE) {
            return false;
        }
    } else if (!geo.geographic || srs.importFromEPSG(4326) != OGRERR_NONE) {
        return false;  // geographic without WKT: an SRTM tile, WGS 84
    }
    srs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    return true;
}

}  // namespace

void GeoTransform::Deleter::operator()(OGRCoordinateTransformation* t) const {
    OGRCoordinateTransformation::DestroyCT(t);
}

GeoTransform::GeoTransform() = default;
GeoTransform::GeoTransform(GeoTransform&&) noexcept = default;
GeoTransform& GeoTransform::operator=(GeoTransform&&) noexcept = default;
GeoTransform::~GeoTransform() = default;

GeoTransform::GeoTransform(const Heightmap& map)
    : geo_(map.geo), width_(map.width), height_(map.height) {
    if (!geo_.present || width_ < 1 || height_ < 1) {
        geo_.present = false;
        return;
    }
    OGRSpatialReference source;
    const bool hasCrs = mapCrs(geo_, source);
    metres_ = hasCrs && map.metres && geo_.metresX > 0.0 && geo_.metresZ > 0.0;
    if (!hasCrs) {
        return;
    }
    OGRSpatialReference wgs84;
    if (wgs84.importFromEPSG(4326) != OGRERR_NONE) {
        return;
    }
    wgs84.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    // A CRS PROJ cannot take to WGS 84 leaves lon/lat out; its complaint is not the user's error.
    CPLPushErrorHandler(CPLQuietErrorHandler);
    toWgs84_.reset(OGRCreateCoordinateTransformation(&source, &wgs84));
    CPLPopErrorHandler();
}

void GeoTransform::crsAt(double col, double row, double& x, double& y) const {
    const double u = (col + 0.5) / double(width_);   // across the columns' cells, 0..1
    const double v = (row + 0.5) / double(height_);  // and the rows'
    const double spanX = geo_.east - geo_.west;
    const double spanY = geo_.north - geo_.south;
    x = geo_.columnsWest ? geo_.east - u * spanX : geo_.west + u * spanX;
    y = geo_.rowsNorth ? geo_.south + v * spanY : geo_.north - v * spanY;
}

std::optional<GeoPoint> GeoTransform::at(double x, double z, const WorldMapping& mapping) const {
    if (!geo_.present || !(mapping.spacingX != 0.0f) || !(mapping.spacingZ != 0.0f)) {
        return std::nullopt;
    }
    GeoPoint p;
    crsAt(x / double(mapping.spacingX), z / double(mapping.spacingZ), p.crsX, p.crsY);
    if (toWgs84_) {
        double lon = p.crsX;
        double lat = p.crsY;
        CPLPushErrorHandler(CPLQuietErrorHandler);
        p.hasLonLat =
            toWgs84_->Transform(1, &lon, &lat) && std::isfinite(lon) && std::isfinite(lat);
        CPLPopErrorHandler();
        if (p.hasLonLat) {
            p.lon = lon;
            p.lat = lat;
        }
    }
    return p;
}

double geodesicMetres(double lon1, double lat1, double lon2, double lat2) {
    geod_geodesic g;
    geod_init(&g, kWgs84A, kWgs84F);
    double s12 = 0.0;
    geod_inverse(&g, lat1, lon1, lat2, lon2, &s12, nullptr, nullptr);
    return s12;
}

GroundDistance groundDistance(const GeoTransform& geo, const WorldMapping& mapping,
                              const glm::vec3& a, const glm::vec3& b) {
    GroundDistance d;
    const double dx = double(b.x) - double(a.x);
    const double dy = double(b.y) - double(a.y);
    const double dz = double(b.z) - double(a.z);
    if (!geo.metres() || mapping.spacingX == 0.0f || mapping.spacingZ == 0.0f ||
        mapping.heightScale == 0.0f) {
        d.level = d.flat = std::hypot(dx, dz);
        d.height = dy;
        return d;
    }
    const Georeference& g = geo.georeference();
    d.metres = true;
    d.flat = std::hypot(dx / double(mapping.spacingX) * g.metresX,
                        dz / double(mapping.spacingZ) * g.metresZ);
    d.level = d.flat;
    d.height = dy / double(mapping.heightScale);  // samples are metres
    if (g.geographic) {
        const std::optional<GeoPoint> pa = geo.at(a.x, a.z, mapping);
        const std::optional<GeoPoint> pb = geo.at(b.x, b.z, mapping);
        if (pa && pb && pa->hasLonLat && pb->hasLonLat) {
            d.geodesic = true;
            d.level = geodesicMetres(pa->lon, pa->lat, pb->lon, pb->lat);
        }
    }
    return d;
}

}  // namespace qt
