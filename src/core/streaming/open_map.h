// Opening a map for the frames, whole or streamed: the one place that decides which. A map opens
// streamed when it is a .r16/.raw or a GDAL raster whose fully loaded estimate is over the memory
// budget, or when the caller asks; anything else is decoded whole.
#pragma once

#include <memory>
#include <string>

#include "core/base/result.h"
#include "core/io/load.h"
#include "core/streaming/streamed_map.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"

namespace qt {

// A map ready for its first frame: decoded whole, or opened streamed (openStreamedRaw16: codes
// mapped read-only from the file; openStreamedGdal: from the raster's code cache; the tree from
// its sidecar or a banded pass over it).
struct OpenedMap {
    Heightmap map;
    Quadtree tree;     // a GDAL raster's (built during its read) or a streamed map's; else empty
    int leafSize = 0;  // the tree's: a streamed map's may be larger than the one asked for
    bool streamed = false;      // codes mapped: level 0 must stream to the GPU as well
    std::string sidecar;        // streamed: "read" (the tree from its .qtree) or "written"; else ""
    std::string codeCache;      // a streamed GDAL raster: "written", "read" or "not kept"; else ""
    std::string codeCachePath;  // the code cache written or read; else ""
    std::string sidecarPath;    // the sidecar read or written (a deferred one: to be); else ""
    int tileRowsReused = 0;     // a layout's cache: rows of tiles an earlier open fetched
    DeferredErrors deferred;    // a streamed .r16's first open: its exact errors and sidecar, later
    // A layout streamed by tiles (LoadOptions::layoutByTiles): codeCache "by tiles", the map's
    // codes its tiles' once present (StreamedMap::tiles).
    std::shared_ptr<LayoutStream> tiles;
};

// True when `path` should open streamed: a .r16/.raw file or a GDAL raster whose fully loaded
// estimate (kLoadBytesPerSample, kGdalLoadBytesPerSample) is over options.memory, or any of them
// when `stream` asks. False for other formats and for a file whose size cannot be read (its
// loader then says why).
bool opensStreamed(const std::string& path, const LoadOptions& options, bool stream);

// Opens a .r16/.raw (openStreamedRaw16) or a GDAL raster (openStreamedGdal) streamed, by its
// extension.
Result<StreamedMap> openStreamed(const std::string& path, const LoadOptions& options,
                                 int requestedLeafSize, const StreamOptions& stream = {});

// Opens `path` as opensStreamed decides: streamed maps with their size checked by `acceptSize`
// first (from the file's length or GDAL's raster size), a .r16's exact errors deferred to the
// background (OpenedMap::deferred); others through loadHeightmap, a GDAL raster's tree of
// leafSize built during its read. A baked layout's folder (layout.h) opens as the map it was
// baked from, with the bake's tree: its level 0 read once, every tile held to its checksum, into
// memory (readLayoutMap) or, streamed, into a code cache of its own (openStreamedGdal with
// StreamOptions::layout) that later opens map; a tile or tree that does not match is the one line.
Result<OpenedMap> openMap(const std::string& path, const LoadOptions& options,
                          const SizeCheck& acceptSize, int leafSize, bool stream);

// openMap, then the tree every frame of the viewer ends up with, before returning: the exact
// level-of-detail errors computed (a .r16's deferred ones as its background job makes them, its
// sidecar written), the tree built for formats whose load makes none. For programs that do not
// draw frames while the errors are computed (tools, the Python module). A streamed GDAL raster's
// tree keeps its mixed bound, as in the viewer.
Result<OpenedMap> openMapWithTree(const std::string& path, const LoadOptions& options, int leafSize,
                                  bool stream);

}  // namespace qt
