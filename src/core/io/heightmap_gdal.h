// Heightmaps read through GDAL: GeoTIFF/COG, ESRI ASCII grid, VRT mosaics, zipped SRTM tiles.
#pragma once

#include <string>
#include <vector>

#include "core/io/load.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"

namespace qt {

// Whether files with this extension (lower case, with the dot: ".tif", ".gz") are read through
// GDAL, and the list of those extensions for error messages (".tif .tiff ...").
bool isGdalExtension(const std::string& ext);
const char* gdalExtensionList();

// What GDAL opens for a map at `path`: the path itself, for a .gz file the /vsigzip/ path that
// reads it through gzip, for a URL the /vsicurl/ path that reads it by byte ranges.
std::string gdalOpenPath(const std::string& path);

// Reads the one band of heights of a raster GDAL opens. `gdalPath` is what GDAL opens (the path,
// or a /vsigzip/ or /vsimem/ one); `name` starts every error line. The band count, size and
// geotransform are checked before a pixel is read; nodata and NaN samples are filled from their
// neighbours as .hgt voids are (fillVoids); heights are quantised over their actual range
// (encodeSamples). A map over the memory budget (checkMemoryBudget) or refused by `acceptSize`
// is refused from its size. GDAL's own messages become the error's one line; nothing reaches
// stderr.
Result<Heightmap> loadGdalHeightmap(const std::string& gdalPath, const std::string& name,
                                    const MemoryBudget& memory = {},
                                    const SizeCheck& acceptSize = {});

// A map and its first frame's tree.
struct HeightmapWithTree {
    Heightmap map;
    Quadtree tree;  // leaves of the leaf size asked for, the range bound as its coarse errors
};

// loadGdalHeightmap, and buildQuadtree(map, leafSize) with it: the tree's
// structure is built on a thread while GDAL reads the samples, and its bounds are filled from the
// leaves' ranges the quantisation takes (encodeSamples), with no pass of its own over the codes.
// Fails as loadGdalHeightmap does, and for a leaf size buildQuadtree refuses.
Result<HeightmapWithTree> loadGdalHeightmapWithTree(const std::string& gdalPath,
                                                    const std::string& name, int leafSize,
                                                    const MemoryBudget& memory = {},
                                                    const SizeCheck& acceptSize = {});

// The same from bytes in memory (through GDAL's /vsimem/), the file name's extension telling the
// format: decodeHeightmap() and the fuzzer use it.
Result<Heightmap> decodeGdalHeightmap(const std::string& name, const std::string& fileName,
                                      const std::vector<unsigned char>& bytes);

}  // namespace qt
