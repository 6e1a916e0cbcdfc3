// Opens a GDAL raster larger than memory: its samples quantised once, in one banded pass, into a
// code cache that is then mapped as a .r16 is, its tree built in the same pass.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/result.h"
#include "core/streaming/streamed_map.h"
#include "core/terrain/heightmap.h"

namespace qt {

// GDAL's block cache while a raster is read into its code cache: the reads take whole rows of
// blocks once each, so a larger cache would only hold what was read already. A layout's open
// lowers it to this for the rest of the process (lowerGdalCache), its tiles and pages read on.
constexpr int64_t kStreamGdalCacheBytes = int64_t(64) << 20;
// Bytes of samples one GDAL read of the pass may take (floats): rows of blocks up to this; a
// band stored in taller blocks is read 64 rows at a time.
constexpr uint64_t kStreamReadBytes = uint64_t(128) << 20;
// Disk left free beyond what the cache, its sidecar and the scratch samples take.
constexpr uint64_t kStreamDiskMarginBytes = uint64_t(64) << 20;

// Rows of one GDAL read of a pass over a band width samples wide stored in blocks blockRows high:
// whole rows of blocks when they fit kStreamReadBytes as floats, else gdalReadRows(0).
int passReadRows(int blockRows, int width);

// The size of the raster GDAL opens at gdalPath (one band), or the line saying why it cannot be
// opened (without the path).
struct RasterSize {
    int width = 0;
    int height = 0;
};
Result<RasterSize> gdalRasterSize(const std::string& gdalPath);

// Opens the raster at `path` (`gdalPath` is what GDAL opens: the path, or a /vsigzip/ one)
// streamed. Its codes come from its code cache (core/streaming/code_cache.h) when one of its
// places (cachePlaces of ".qtcodes": the cache folder's, else one of the program's own beside the
// map) holds a cache whose header matches the raster's files (rasterSignature) and size and whose
// sidecar (CACHE.qtree) matches the cache: then nothing is read through GDAL. Else the cache is
// made, in the first writable place that takes it (the cache folder made on demand, free space
// checked first; a cache folder that cannot take it is one line on stderr, and the codes go to an
// unnamed file in the scratch folder that no later open finds): one
// GDAL pass over the band in rows of its blocks quantised exactly as loadGdalHeightmap quantises
// them (scale and offset, voids filled by fillVoids, the same range and codes, heights in metres),
// written row by row, with the tree's bounds taken in the same pass (streamedTree) and saved in the
// sidecar. An unsigned 16-bit band with no nodata, scale or offset is read straight into the codes;
// any other goes through a scratch file of floats first (4 bytes a sample on disk while the cache
// is made), which the range and the void fill need whole; its voids are holes, their mask (one bit
// a sample) kept beside the cache (nodata_sidecar.h) for the next open. A cache that cannot be used
// (stale, truncated, damaged, not vouched for by its sidecar) is one line on stderr and is rebuilt.
// Refused, with one line starting with the path: what GDAL cannot open or read (a truncated file, a
// VRT's missing source), the budget (planStreamedMap), no folder with room for the cache, voids too
// many to fill within the band cap.
Result<StreamedMap> openStreamedGdal(const std::string& path, const std::string& gdalPath,
                                     const LoadOptions& options, int requestedLeafSize,
                                     const StreamOptions& stream = {});

}  // namespace qt
