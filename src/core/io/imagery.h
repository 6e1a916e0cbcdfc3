// Imagery draped over a heightmap: any raster GDAL reads (an orthophoto, a satellite mosaic, a
// scanned map, a `gdaldem color-relief` render, a game's diffuse texture) brought to 8-bit RGBA
// texels over the map's extent. Georeferenced imagery is reprojected and resampled onto the map
// by GDAL's warper; a plain image covers the map's extent exactly. No resampler of our own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/terrain/georeference.h"

namespace qt {

// What the texels may take: the GPU's largest texture side, and the bytes of RGBA8 texels (the
// mip chain not counted).
struct ImageryLimits {
    int maxSide = 16384;
    uint64_t maxBytes = uint64_t(1) << 30;
    // At most this many texels per map sample along each axis; 0: the imagery's own density.
    double maxTexelsPerSample = 0.0;
    // At most this many source pixels read for one load, at the overview level the load reads
    // (a file without overviews: its full size over the map): more is refused, asking for
    // overviews (gdaladdo), so that a header declaring 10^6 x 10^6 pixels costs a header read.
    uint64_t maxReadPixels = uint64_t(1) << 30;
};

// What was shown, for the HUD and --stats-json.
struct ImageryInfo {
    std::string source;   // the path given
    int sourceWidth = 0;  // the file's pixels
    int sourceHeight = 0;
    int bands = 0;     // the file's bands (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA; a palette: 1)
    std::string type;  // the file's sample type: "Byte", "UInt16"
    bool georeferenced = false;  // placed by its georeference (warped onto the map)
    std::string crsName;         // the imagery's CRS when georeferenced
    // Texels per map sample along x (columns) and y (rows): the texture's density over the map.
    double texelsPerSampleX = 0.0;
    double texelsPerSampleY = 0.0;
    // Texels per map sample the file itself has over the map (before limits); equal to the above
    // when nothing was lost.
    double nativeTexelsPerSampleX = 0.0;
    double nativeTexelsPerSampleY = 0.0;
    double coverage = 0.0;  // share of the texels the imagery covers (alpha > 0)
};

// Texels over the map's extent, row 0 at map row 0: texel (i, j) has its centre at map column
// (i + 0.5) * (mapWidth - 1) / width and row (j + 0.5) * (mapHeight - 1) / height, so that the
// texture's edges are the centres of the map's outer samples (the drawn surface's edges) and a
// shader reads it at (column, row) / (mapWidth - 1, mapHeight - 1). Alpha 0 where the imagery
// has no value (outside its extent, its nodata, its own alpha): the terrain's own colours show.
struct Imagery {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgba;  // width * height * 4 bytes, sRGB colour, linear alpha
    ImageryInfo info;
    // Lines to tell the user without failing: a georeferenced image over a map without one
    // (stretched over the map's extent), 16-bit samples stretched to 8, the density lowered to
    // fit the limits.
    std::vector<std::string> warnings;
};

// Loads `path` (a file, or a URL read by byte ranges through GDAL's /vsicurl/) as imagery over
// a mapWidth x mapHeight map placed by `geo`. Fails with one line
// (without the path: the caller names it) for a file GDAL cannot open or read, 5 or more bands,
// sample types other than 8- and 16-bit unsigned integers, a CRS that cannot be transformed to
// the map's, or a source whose pixels to read at the best overview exceed what a load may read;
// every size is checked before anything big is read. Imagery that covers none of the map is no
// failure: coverage 0, a warning and a single transparent texel (the info's densities are still
// what the texture would have had), and the caller shows the terrain without it.
Result<Imagery> loadImagery(const std::string& path, int mapWidth, int mapHeight,
                            const Georeference& geo, const ImageryLimits& limits = {});

}  // namespace qt
