// The Sun the command line asks for over a map: --sun's instant over a georeferenced map's
// centre, or --sun-azimuth and --sun-elevation; none of them: the fixed light.
#pragma once

#include <optional>

#include "app/options.h"
#include "core/light/sun_position.h"
#include "core/terrain/geo_transform.h"
#include "core/terrain/heightmap.h"

namespace qt {

// The fixed light's direction (shaders/terrain.frag's default, normalize(-0.45, 0.75, -0.35)
// towards the Sun): azimuth atan2(-0.45, 0.35), elevation atan2(0.75, |(-0.45, -0.35)|).
constexpr double kFixedSunAzimuth = 307.8749836510982;
constexpr double kFixedSunElevation = 52.76091882795273;

// The Sun for `map` (its georeference read through `geo`), nullopt for the fixed light; an
// error line when --sun is given for a map with no longitude and latitude.
Result<std::optional<SunDirection>> sunForMap(const ViewerOptions& options, const Heightmap& map,
                                              const GeoTransform& geo);

}  // namespace qt
