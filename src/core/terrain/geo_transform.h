// A georeferenced map's world points in its own CRS and in WGS 84 longitude and latitude (GDAL and
// PROJ), and the ground distance between two of them: geodesic on the WGS 84 ellipsoid for
// geographic maps, on the map plane for projected ones.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <glm/vec3.hpp>

#include "core/terrain/heightmap.h"
#include "core/terrain/world.h"

class OGRCoordinateTransformation;

namespace qt {

// A point of the map in its CRS and, when GDAL can take that CRS to WGS 84, in longitude and
// latitude.
struct GeoPoint {
    double crsX = 0.0;  // in the CRS's units: easting, or longitude for a geographic CRS
    double crsY = 0.0;  // northing, or latitude
    bool hasLonLat = false;
    double lon = 0.0;  // WGS 84 degrees, east positive
    double lat = 0.0;  // WGS 84 degrees, north positive
};

// The transformation from a map's samples to its CRS and to WGS 84, made once per map (PROJ
// looks the operation up in its database: milliseconds, not for every frame).
class GeoTransform {
public:
    GeoTransform();  // no georeference: every point is nullopt
    // From the map's georeference and size. A CRS GDAL cannot take to WGS 84 (or none, an .asc
    // without its .prj) leaves the CRS coordinates only.
    explicit GeoTransform(const Heightmap& map);
    GeoTransform(GeoTransform&&) noexcept;
    GeoTransform& operator=(GeoTransform&&) noexcept;
    ~GeoTransform();

    bool present() const { return geo_.present; }
    bool hasLonLat() const { return toWgs84_ != nullptr; }
    // Ground distances and heights are metres: a georeference with a CRS (or an SRTM tile) and
    // heights in metres.
    bool metres() const { return metres_; }
    const Georeference& georeference() const { return geo_; }

    // A sample position (fractional column and row; sample centres at whole numbers, whose
    // cells the corners bound) in the CRS: column c's centre lies (c + 0.5) cells from the
    // corner column 0 starts at, as GDAL's geotransform places pixel centres.
    void crsAt(double col, double row, double& x, double& y) const;
    // The sample position under a world point, and it in the CRS and WGS 84; nullopt without a
    // georeference.
    std::optional<GeoPoint> at(double x, double z, const WorldMapping& mapping) const;

private:
    struct Deleter {
        void operator()(OGRCoordinateTransformation* t) const;
    };
    Georeference geo_;
    int width_ = 0;
    int height_ = 0;
    bool metres_ = false;
    std::unique_ptr<OGRCoordinateTransformation, Deleter> toWgs84_;
};

// The distance in metres between two WGS 84 points along the ellipsoid's geodesic (PROJ's
// geod_inverse: C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 2013), accurate to
// nanometres at any distance, antipodes included.
double geodesicMetres(double lon1, double lat1, double lon2, double lat2);

// A measurement between two world points: metres when the map's georeference says so (level:
// the geodesic's length for a geographic map, the map plane's for a projected one; flat: the
// flat world's level distance converted by the metres per sample, as drawn), else world units.
struct GroundDistance {
    bool metres = false;
    bool geodesic = false;  // level is the WGS 84 geodesic's length
    double level = 0.0;     // horizontal distance
    double flat = 0.0;      // the drawn map's horizontal distance
    double height = 0.0;    // b's height less a's
    // The flat map's relative error against the geodesic (0 when not geodesic or no distance).
    double flatError() const { return geodesic && level > 0.0 ? flat / level - 1.0 : 0.0; }
};

GroundDistance groundDistance(const GeoTransform& geo, const WorldMapping& mapping,
                              const glm::vec3& a, const glm::vec3& b);

}  // namespace qt
