// The files GDAL opens for a raster, checked before it opens any of them: nothing it reads may
// block (a FIFO), never end (a device) or come from standard input (/vsistdin/); a map named by
// URL is read over the network, and what it names must be too.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/result.h"

namespace qt {

// VRTs that name VRTs are followed this deep (a VRT naming itself ends there).
constexpr int kMaxVrtDepth = 8;
// A VRT's XML is read whole to find its sources: a larger one is refused.
constexpr uint64_t kMaxVrtBytes = uint64_t(64) << 20;

// Whether GDAL reads `path` over the network: an http:// or https:// URL, or a path in one of
// GDAL's network file systems (/vsicurl/, /vsis3/, /vsigs/, /vsiaz/, /vsiadls/).
bool isNetworkPath(const std::string& path);

// The GDAL path of a map named by URL (/vsicurl/URL: GDAL's HTTP reader, with byte ranges and
// its block cache); any other path unchanged.
std::string networkGdalPath(const std::string& path);

// Checks, before GDAL opens anything, the file at gdalPath (a path, or a /vsigzip/, /vsizip/,
// /vsitar/ or /vsimem/ one) and every file GDAL would open with it:
// - each is a regular file (a folder, FIFO, socket or device is refused), the archive under a
//   /vsizip/ or /vsigzip/ path included; other virtual file systems are refused;
// - no file beside it that GDAL may take for a sidecar (NAME.* or NAME_*, NAME its name without
//   its extension: .aux.xml, .ovr, .msk, .tfw, .hdr, .prj...) is a FIFO or a device; quadterrain's
//   own .qtree and .qtcodes files are left to the code that reads them;
// - a VRT (known by its content, whatever its extension) has its XML read and every
//   SourceFilename and SourceDataset checked the same way, resolved as GDAL resolves it (relative
//   to the VRT or not), VRTs within VRTs (inline ones too) to kMaxVrtDepth; a source must exist,
//   and a VRT that names itself, directly or through others, is refused;
// - a network path (isNetworkPath) is not checked as a file: it must exist at its server (GDAL
//   stats it), and a VRT read over the network may name only network sources (relative ones
//   resolve against its URL): data from a server never makes the program read a local file.
// The line says what is wrong, naming the file when it is not the map (without the map's name).
Status checkGdalInputs(const std::string& gdalPath);

}  // namespace qt
