// --sun, --sun-azimuth and --sun-elevation resolved against the loaded map.
#include "app/sun_option.h"

#include "core/terrain/world.h"

namespace qt {

Result<std::optional<SunDirection>> sunForMap(const ViewerOptions& options, const Heightmap& map,
                                              const GeoTransform& geo) {
    using R = Result<std::optional<SunDirection>>;
    if (options.sunInstant) {
        // The centre sample, through a one-unit mapping (world x, z = column, row).
        const std::optional<GeoPoint> centre =
            geo.at(0.5 * (map.width - 1), 0.5 * (map.height - 1), WorldMapping{});
        if (!centre || !centre->hasLonLat) {
            return R::failure(
                "--sun needs a map with a georeference in longitude and latitude; "
                "give --sun-azimuth and --sun-elevation instead");
        }
        return R(std::optional<SunDirection>(
            sunPosition(options.sunInstant->julianDay(), centre->lon, centre->lat)));
    }
    if (!options.sunAzimuth && !options.sunElevation) {
        return R(std::optional<SunDirection>());
    }
    SunDirection sun;
    sun.azimuth = options.sunAzimuth.value_or(kFixedSunAzimuth);
    sun.elevation = options.sunElevation.value_or(kFixedSunElevation);
    return R(std::optional<SunDirection>(sun));
}

}  // namespace qt
