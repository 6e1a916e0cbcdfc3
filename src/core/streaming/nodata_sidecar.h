// The nodata sidecar: a streamed raster's nodata mask (one bit a sample) saved beside its code
// cache, so that reopening the map from the cache draws its holes without reading the raster.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/result.h"
#include "core/streaming/mapped_codes.h"
#include "core/terrain/nodata.h"

namespace qt {

// The sidecar's path beside a code cache: its path with ".qtnodata" appended.
std::string nodataSidecarPath(const std::string& cachePath);

// Reads the mask saved for the code cache of `cache`'s stamp, width x height samples with
// `samples` of them nodata. Fails with one line (without the path) saying why it cannot be used:
// missing, truncated or longer than a mask of that size (checked before anything is read),
// stale (made for another cache), corrupt (checksum, or a count of bits that is not `samples`).
Result<NodataMask> readNodataSidecar(const std::string& path, const FileStamp& cache, int width,
                                     int height, int64_t samples);

// Writes `mask` (holes: its bits) for the code cache of `cache`'s stamp, replacing only a file of
// the program's own. Fails with one line (without the path).
Status writeNodataSidecar(const std::string& path, const FileStamp& cache, const NodataMask& mask);

}  // namespace qt
