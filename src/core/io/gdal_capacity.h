// What a raster's files hold, checked against the size its header declares before its samples are
// read or anything of that size is allocated: a header claiming 30000x30000 samples in a
// kilobyte is refused for the kilobyte, whatever the memory budget.
#pragma once

#include <cstdint>

#include <gdal_priv.h>

#include "core/base/result.h"

namespace qt {

// The most bytes of samples a byte of a raster's files may decode to, for formats without a
// check of their own: no codec a heightmap is stored with expands further (ZSTD's run-length
// blocks reach 32768 to 1).
constexpr uint64_t kMaxGdalExpansion = 65536;

// Refuses, in one line without the name:
// - a GeoTIFF whose first directory's arrays of block offsets and sizes run past the end of its
//   file, or one of whose blocks (band 1's tiles or strips, from GDAL's TIFF metadata) runs past
//   the end of its file or holds fewer bytes than its codec could expand to the block's samples
//   (none 1:1, PackBits 64:1, LZW 4096:1, DEFLATE 1032:1, ZSTD 32768:1; others unchecked); a
//   block the file leaves out (a sparse TIFF) reads as nodata and needs no bytes;
// - an ESRI ASCII grid shorter than asciiGridLeastBytes, or whose text checkAsciiGrid refuses;
// - any other raster whose files (GDAL's list: a VRT's sources too) hold fewer bytes than its
//   samples over kMaxGdalExpansion.
Status checkGdalCapacity(GDALDataset& dataset, GDALRasterBand& band);

}  // namespace qt
