// The access to a layout streamed by tiles that a terrain takes without GDAL's headers: each
// function holds the stream it was made from.
#include "core/streaming/layout_stream_access.h"

#include "core/io/gdal_inputs.h"
#include "core/streaming/layout_tiles.h"

namespace qt {

SamplePresence layoutPresence(const std::shared_ptr<LayoutStream>& stream) {
    SamplePresence presence;
    presence.present = [stream](int x0, int y0, int x1, int y1) {
        return stream->tiles().present(x0, y0, x1, y1);
    };
    presence.ensure = layoutSamples(stream);
    return presence;
}

bool layoutByNetwork(const LayoutStream& stream) {
    return isNetworkPath(stream.layout().folder);
}

SampleSource layoutSamples(const std::shared_ptr<LayoutStream>& stream) {
    return
        [stream](int x0, int y0, int x1, int y1) { return stream->tiles().ensure(x0, y0, x1, y1); };
}

std::function<Status(const HeightPages& pages, int level, int px, int py, uint16_t* out)>
layoutLevelPages(const std::shared_ptr<LayoutStream>& stream) {
    const auto levels = std::make_shared<LayoutLevelPages>(stream->layout());
    return [levels](const HeightPages& pages, int level, int px, int py, uint16_t* out) {
        return levels->fill(pages, level, px, py, out);
    };
}

LayoutTileCounts layoutTileCounts(const LayoutStream& stream) {
    const LayoutTiles& tiles = stream.tiles();
    const LayoutTiles::Counts counts = tiles.counts();
    LayoutTileCounts out;
    out.present = tiles.presentCount();
    out.total = tiles.tileCount();
    out.read = counts.read;
    out.kept = counts.kept;
    out.failed = counts.failed;
    out.finished = stream.finished();
    return out;
}

Result<bool> finishLayoutCache(LayoutStream& stream) {
    return stream.finishWhenComplete();
}

}  // namespace qt
