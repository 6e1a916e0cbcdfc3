// Where a heightmap lies on the Earth: its coordinate system, corners and metres per sample.
#pragma once

#include <string>

namespace qt {

// The map's georeference when its file has one (GDAL rasters, SRTM .hgt named by its corner).
// Corners bound the samples' centres' cells in the CRS's units (degrees when geographic): x grows
// east with the column and y north against the row, unless the raster runs the other way
// (columnsWest, rowsNorth: a geotransform's negative pixel width or positive pixel height).
struct Georeference {
    bool present = false;  // false: a plain image, no place on Earth
    std::string crsName;   // "WGS 84", "WGS 84 / UTM zone 32N"; empty when the file names none
    // The CRS as WKT (GDAL rasters); empty with geographic set: WGS 84 (EPSG:4326, SRTM tiles);
    // empty otherwise: none (an .asc without its .prj).
    std::string crsWkt;
    bool geographic = false;  // corners in degrees of longitude and latitude
    double west = 0.0;
    double east = 0.0;
    double north = 0.0;
    double south = 0.0;
    bool columnsWest = false;  // column 0 at the east corner
    bool rowsNorth = false;    // row 0 at the south corner
    double metresX = 0.0;      // metres between neighbouring samples east-west (columns)
    double metresZ = 0.0;      // and north-south (rows)
};

// Metres per degree along a meridian (north-south) and along a parallel (east-west) at a
// latitude, on an ellipsoid of semi-major axis a (metres) and inverse flattening invF (0: a
// sphere): the meridional radius of curvature M = a (1 - e^2) / (1 - e^2 sin^2 phi)^1.5 and the
// parallel's radius N cos phi, N = a / (1 - e^2 sin^2 phi)^0.5, times pi / 180.
struct MetresPerDegree {
    double northSouth;
    double eastWest;
};
MetresPerDegree metresPerDegree(double latitudeDegrees, double semiMajor = 6378137.0,
                                double inverseFlattening = 298.257223563);

// The georeference of an SRTM tile from its file name ("N47E009.hgt", any case, in any folder:
// the south-west corner of a one-degree square, WGS 84) and its side in samples; not present when
// the name is not such a corner.
Georeference hgtGeoreference(const std::string& path, int side);

}  // namespace qt
