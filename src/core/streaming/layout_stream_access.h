// What a terrain and the viewer take of a layout streamed by tiles (LayoutStream,
// core/streaming/layout_tiles.h) through the library's boundary, which GDAL's headers do not
// cross: the samples' presence, the page streamer's source, the coarse levels' pages, the counts
// for the HUD and the cache finished once every tile is present.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "core/base/result.h"
#include "core/streaming/page_streamer.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/sample_presence.h"

namespace qt {

class LayoutStream;

// LayoutTiles::present and ::ensure of the stream's tiles; the functions hold the stream.
SamplePresence layoutPresence(const std::shared_ptr<LayoutStream>& stream);
// Whether the stream's layout is read over the network (a layout by URL): its page streamer then
// fills pages side by side (kStreamNetworkWorkers).
bool layoutByNetwork(const LayoutStream& stream);
// LayoutTiles::ensure: what the page streamer asks before it reads a page's samples.
SampleSource layoutSamples(const std::shared_ptr<LayoutStream>& stream);
// LayoutLevelPages::fill over the stream's layout (a reader of its own): the pages of levels 1
// and up with level 0 unread. For different levels on different threads at once, for each level
// on one thread at a time.
std::function<Status(const HeightPages& pages, int level, int px, int py, uint16_t* out)>
layoutLevelPages(const std::shared_ptr<LayoutStream>& stream);

struct LayoutTileCounts {
    uint64_t present = 0;  // of total
    uint64_t total = 0;
    uint64_t read = 0;      // through GDAL
    uint64_t kept = 0;      // from a resumed cache, by their checksums
    uint64_t failed = 0;    // reads that failed
    bool finished = false;  // the code cache finished (LayoutStream::finished)
};
LayoutTileCounts layoutTileCounts(const LayoutStream& stream);
// LayoutStream::finishWhenComplete: true when the cache was finished now.
Result<bool> finishLayoutCache(LayoutStream& stream);

}  // namespace qt
