// Numbers for people in the cursor bar: fixed decimals with thousands separators, lengths in
// metres or kilometres (or map units), longitude and latitude with their hemispheres, CRS
// coordinates, and the measurement's line.
#pragma once

#include <string>

#include "core/terrain/geo_transform.h"

namespace qt {

// The value with `decimals` fixed decimals and commas between thousands ("-12,345.6"); "nan"
// and "inf" as such. Never an exponent.
std::string groupedNumber(double value, int decimals);

// A length or height: "12.3 m" up to 10 km, "12.35 km" past it, when metres; else "12.3 map
// units" (more decimals below 100, so that small spacings still read).
std::string lengthText(double value, bool metres);

// "47.51234° N, 9.61234° E": latitude first, as people say it.
std::string lonLatText(double lon, double lat);

// The point in the map's CRS: "512,345.67 E, 5,262,345.67 N" for a projected CRS (its units),
// "9.612340, 47.512340" (x, y: longitude and latitude in its angular unit) for a geographic one.
std::string crsText(const GeoPoint& p, bool geographic);

// "measure 1,234.5 m (level 1,200.0 m geodesic, flat map: +0.8%; height +290.0 m)": the slant
// distance, the level one (geodesic, or on the map plane), the flat map's error past 0.1%.
std::string measureText(const GroundDistance& d);

}  // namespace qt
