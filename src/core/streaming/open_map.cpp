// Whole or streamed: the size of a map that may stream, read before anything else of it, and
// the open either way.
#include "core/streaming/open_map.h"

#include <filesystem>

#include "core/base/text.h"
#include "core/config.h"
#include "core/io/gdal_inputs.h"
#include "core/io/heightmap_gdal.h"
#include "core/io/memory_budget.h"
#include "core/io/raw16.h"
#include "core/lod/lod_error.h"
#include "core/streaming/coarse_error_job.h"
#include "core/streaming/layout.h"
#include "core/streaming/streamed_gdal.h"
#include "core/terrain/heightmap.h"

namespace qt {
namespace {

// The size of a map that may open streamed: a .r16/.raw file's from its length (and --size), as
// its loader finds it, or a GDAL raster's from GDAL; an error for other formats, or one that gives
// no size (its loader then says why).
struct StreamableSize {
    int width = 0;
    int height = 0;
    bool gdal = false;  // read through GDAL
};

Result<StreamableSize> streamableSize(const std::string& path, const LoadOptions& options) {
    using R = Result<StreamableSize>;
    const std::string ext = lowerExtension(path);
    if (isGdalExtension(ext)) {
        const Result<RasterSize> raster = gdalRasterSize(gdalOpenPath(path));
        if (!raster) {
            return R::failure(raster.error());
        }
        return StreamableSize{raster.value().width, raster.value().height, true};
    }
    if (ext != ".r16" && ext != ".raw") {
        return R::failure("not a .r16, .raw or GDAL raster");
    }
    std::error_code error;
    const uint64_t length = std::filesystem::file_size(path, error);
    if (error) {
        return R::failure(error.message());
    }
    const Result<RawGrid> grid = rawGrid(false, length, options);
    if (!grid) {
        return R::failure(grid.error());
    }
    return StreamableSize{grid.value().width, grid.value().height, false};
}

bool streamsAt(const StreamableSize& s, const LoadOptions& options, bool stream) {
    const uint64_t perSample = s.gdal ? kGdalLoadBytesPerSample : kLoadBytesPerSample;
    return stream || !checkMemoryBudget(s.width, s.height, perSample, options.memory);
}

// What the frames take of a map opened streamed (--fill-nodata: the fill as terrain).
OpenedMap streamedOpened(StreamedMap s, const LoadOptions& options) {
    if (options.fillNodata && s.map.nodata.holes()) {
        s.map.nodata.fill();
        markLeafHoles(s.tree, s.map);
    }
    OpenedMap opened;
    opened.map = std::move(s.map);
    opened.tree = std::move(s.tree);
    opened.leafSize = s.leafSize;
    opened.streamed = true;
    opened.sidecar = s.sidecarUsed ? "read" : s.sidecarWritten ? "written" : "";
    opened.deferred = s.deferred;
    opened.codeCachePath = s.cachePath;
    opened.tileRowsReused = s.tileRowsReused;
    opened.sidecarPath = s.sidecarPath;
    opened.codeCache = s.codes == CodeSource::CacheWritten   ? "written"
                       : s.codes == CodeSource::CacheRead    ? "read"
                       : s.codes == CodeSource::CacheNotKept ? "not kept"
                       : s.codes == CodeSource::CacheByTiles ? "by tiles"
                                                             : "";
    opened.tiles = std::move(s.tiles);
    return opened;
}

// A layout over the budget: its level 0 streamed through a code cache of its own, made once from
// its tiles (each held to its checksum, locally or by byte ranges from a server) with the layout's
// tree, then mapped as any code cache is on the next opens, with nothing of the layout read.
Result<OpenedMap> openLayoutStreamed(const LayoutManifest& layout, const LoadOptions& options,
                                     const SizeCheck& acceptSize, int leafSize) {
    using R = Result<OpenedMap>;
    // The bake takes larger maps than the viewer (kBakeSizeLimit): the tree's boxes hold the
    // viewer's side. A level 0 over kMaxSamples opens by tiles alone (openStreamedGdal).
    if (Status fits =
            checkDimensions(layout.width, layout.height,
                            options.layoutByTiles ? kLayoutByTilesSizeLimit : kMapSizeLimit);
        !fits) {
        return R::failure(layout.folder + ": " + fits.error());
    }
    if (acceptSize) {
        if (Status fits = acceptSize(layout.width, layout.height); !fits) {
            return R::failure(layout.folder + ": " + fits.error());
        }
    }
    StreamOptions stream;
    stream.layout = &layout;
    stream.layoutByTiles = options.layoutByTiles;
    Result<StreamedMap> streamed = openStreamedGdal(
        layout.levelZero, networkGdalPath(layout.levelZero), options, leafSize, stream);
    if (!streamed) {
        return R::failure(layout.folder + ": " + streamed.error());
    }
    return streamedOpened(std::move(streamed).value(), options);
}

// A layout held whole: level 0 read once, each tile held to its checksum (readLayoutMap), and the
// bake's tree, with no pass over the map, when it is of the leaf size asked for. Its bounds and
// errors were made over these codes, the bake's fill under the holes included, so they hold for
// the holes and for the fill drawn as terrain (--fill-nodata) alike.
Result<OpenedMap> openLayoutWhole(const LayoutManifest& layout, const LoadOptions& options,
                                  const SizeCheck& acceptSize, int leafSize) {
    using R = Result<OpenedMap>;
    Result<LayoutMap> read =
        readLayoutMap(layout, acceptSize, options.memory, options.readProgress);
    if (!read) {
        return R::failure(layout.folder + ": " + read.error());
    }
    OpenedMap opened;
    opened.map = std::move(read.value().map);
    opened.leafSize = leafSize;
    if (options.fillNodata && opened.map.nodata.holes()) {
        opened.map.nodata.fill();
    }
    if (read.value().tree.leafSize == leafSize) {
        Result<Quadtree> tree = quadtreeFromSidecar(opened.map, read.value().tree);
        if (!tree) {
            return R::failure(layout.folder + ": " + tree.error());
        }
        opened.tree = std::move(tree).value();
        opened.sidecar = "read";
        opened.sidecarPath = layout.tree;
    }
    return opened;
}

}  // namespace

bool opensStreamed(const std::string& path, const LoadOptions& options, bool stream) {
    const Result<StreamableSize> size = streamableSize(path, options);
    return size && streamsAt(size.value(), options, stream);
}

Result<StreamedMap> openStreamed(const std::string& path, const LoadOptions& options,
                                 int requestedLeafSize, const StreamOptions& stream) {
    return isGdalExtension(lowerExtension(path))
               ? openStreamedGdal(path, gdalOpenPath(path), options, requestedLeafSize, stream)
               : openStreamedRaw16(path, options, requestedLeafSize, stream);
}

Result<OpenedMap> openMap(const std::string& asked, const LoadOptions& options,
                          const SizeCheck& acceptSize, int leafSize, bool stream) {
    using R = Result<OpenedMap>;
    // A baked layout: its level 0 held to its checksums, with its tree.
    const std::string& path = asked;
    if (isLayoutFolder(asked)) {
        const Result<LayoutManifest> layout = readLayoutManifest(asked);
        if (!layout) {
            return R::failure(asked + ": " + layout.error());
        }
        const StreamableSize size{layout.value().width, layout.value().height, true};
        if (!streamsAt(size, options, stream)) {
            return openLayoutWhole(layout.value(), options, acceptSize, leafSize);
        }
        return openLayoutStreamed(layout.value(), options, acceptSize, leafSize);
    } else if (isNetworkPath(asked) && lowerExtension(asked).empty()) {
        return R::failure(asked + ": " + whyNotALayout(asked));
    }
    OpenedMap opened;
    opened.leafSize = leafSize;
    const Result<StreamableSize> streamable = streamableSize(path, options);
    if (!streamable || !streamsAt(streamable.value(), options, stream)) {
        Result<Heightmap> map = loadHeightmap(path, options, acceptSize, leafSize, &opened.tree);
        if (!map) {
            return R::failure(map.error());
        }
        opened.map = std::move(map).value();
        return opened;
    }
    const StreamableSize& size = streamable.value();
    if (isNetworkPath(path)) {
        // Streaming keeps a local code cache of the whole raster: a remote raster is read whole.
        const Status fits =
            checkMemoryBudget(size.width, size.height, kGdalLoadBytesPerSample, options.memory);
        return R::failure(escapedPath(path) + ": " +
                          (fits ? std::string("--stream reads local files only") : fits.error()) +
                          "; a map named by URL is read whole into memory: bake it into a local "
                          "layout (quadterrain-bake URL FOLDER reads it by byte ranges) and open "
                          "the folder, or copy it with gdal_translate, to stream it");
    }
    if (acceptSize) {
        if (Status fits = acceptSize(size.width, size.height); !fits) {
            return R::failure(escapedPath(path) + ": " + fits.error());
        }
    }
    // A .r16's first open shows its first frame after one quick pass over the map (the leaf
    // ranges): its exact errors and sidecar follow in the background (startStreamed).
    StreamOptions deferred;
    deferred.deferExactErrors = true;
    Result<StreamedMap> streamed = size.gdal ? openStreamed(path, options, leafSize)
                                             : openStreamed(path, options, leafSize, deferred);
    if (!streamed) {
        return R::failure(streamed.error());
    }
    return streamedOpened(std::move(streamed).value(), options);
}

Result<OpenedMap> openMapWithTree(const std::string& path, const LoadOptions& options, int leafSize,
                                  bool stream) {
    Result<OpenedMap> opened = openMap(path, options, {}, leafSize, stream);
    if (!opened) {
        return opened;
    }
    OpenedMap& o = opened.value();
    if (o.deferred.pending) {
        CoarseErrorJob job;
        job.startStreamed(o.map, o.tree, o.deferred);
        job.finish(o.tree);
        o.sidecar = job.sidecarWritten() ? "written" : o.sidecar;
        o.deferred = {};
    } else if (o.tree.nodes.empty()) {
        Result<Quadtree> tree = buildQuadtreeExact(o.map, leafSize);
        if (!tree) {
            return Result<OpenedMap>::failure(escapedPath(path) + ": " + tree.error());
        }
        o.tree = std::move(tree).value();
    } else if (o.tree.lodErrors == LodErrors::Range && !o.map.codes.isMapped()) {
        computeCoarseErrors(o.map, o.tree);
    }
    return opened;
}

}  // namespace qt
