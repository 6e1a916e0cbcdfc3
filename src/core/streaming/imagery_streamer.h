// Imagery pages streamed on demand (core/io/imagery.h): each frame asks for every page its drawn
// instances may read, a worker thread reads them through GDAL, and the main thread hands them, a
// few per frame, to the GPU's pool of layers. Where a page has not arrived, the shader reads the
// nearest coarser level that has (the pyramid's top page is always resident): coarser, never a
// hole.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/io/imagery.h"
#include "core/lod/lod.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"

namespace qt {

// Pages handed to the GPU per frame (a page is 1 MiB): the rest wait for the next frames.
constexpr int kImageryUploadsPerFrame = 4;

// What decides the levels a frame's fragments read. The terrain shader reads level
// floor(lod) and the next, lod = log2 of the texels a pixel spans, never below
// log2(distance * floorScale): a pixel at distance D from the eye spans at least D * alpha of the
// surface (alpha, the least angle a pixel of the viewport subtends, at its corners), and a world
// length L at least L * min(densityX / spacingX, densityY / spacingZ) level-0 texels. So a drawn
// instance whose box is at distance d reads no level finer than floor(log2(d * floorScale)).
struct ImageryView {
    double eyeX = 0.0;  // the viewing camera's position, world units
    double eyeY = 0.0;
    double eyeZ = 0.0;
    double floorScale = 0.0;
    double mapMinY = 0.0;  // the map's world height range: the boxes' heights
    double mapMaxY = 0.0;
    double spacingX = 1.0;  // world units between columns and between rows
    double spacingZ = 1.0;
};

ImageryView imageryView(const ImageryPlan& plan, const WorldMapping& mapping, const Camera& camera,
                        int viewportHeight, float mapMinY, float mapMaxY);

enum class ImageryPageState : uint8_t { Absent, Requested, Loading, Ready, Resident, Failed };

struct ImageryStreamStats {
    int pool = 0;       // GPU layers
    int resident = 0;   // pages in them
    int wanted = 0;     // pages the last frame asked for
    int requested = 0;  // asked for and not yet read (Requested or Loading)
    int ready = 0;      // read, waiting for an upload
    int failed = 0;     // pages GDAL could not read (never asked again)
    uint64_t uploadedTotal = 0;
    bool starved = false;  // the last upload found every layer in use by the frame
};

// One imagery's pyramid streamed into `poolLayers` GPU layers. Thread use as PageStreamer's:
// every public method is for the main thread; the worker owns the reader and writes only staging
// pages the main thread has not been handed. No allocation per frame: every list is sized at
// start().
class ImageryStreamer {
public:
    ImageryStreamer() = default;
    ~ImageryStreamer() { stop(); }
    ImageryStreamer(const ImageryStreamer&) = delete;
    ImageryStreamer& operator=(const ImageryStreamer&) = delete;

    // Starts the worker over `reader`'s pyramid, its pages stored as `compression` says (the
    // worker encodes them); the tail's page (its texels read at open) is resident in layer 0 for
    // good, which the caller has uploaded.
    void start(std::unique_ptr<ImageryReader> reader, int poolLayers,
               ImageryCompression compression = ImageryCompression::None, int stagingPages = 4);
    void stop();
    bool running() const { return worker_.joinable(); }
    const ImageryPlan& plan() const { return plan_; }
    ImageryPageState state(uint32_t page) const;
    int layerOf(uint32_t page) const { return pageLayer_[page]; }

    // This frame's requests: for each instance (a level-of-detail node, or a leaf at full detail),
    // the pages of every level from the finest it may read (ImageryView) to the top over its box;
    // coarser levels first, nearer first within a level. They replace the last frame's.
    void request(const Quadtree& tree, const ImageryView& view, const std::vector<DrawNode>& nodes);
    void request(const Quadtree& tree, const ImageryView& view,
                 const std::vector<LeafCoord>& leaves);
    // Asks for every page of the pyramid, coarsest first: with a pool of every page, settle()
    // then makes the whole pyramid resident (the reference the tests compare streamed frames
    // with).
    void requestEvery();

    // A page's upload: (layer, page, its stored bytes: side^2 premultiplied RGBA texels or their
    // BC3 blocks, the page evicted from the layer or -1). The renderer writes them and points the
    // page table's entries.
    using Upload =
        std::function<void(int layer, uint32_t page, const uint8_t* stored, int64_t evicted)>;
    // Up to `budget` read pages go to `upload` (a free layer, else the one least recently asked
    // for, never one the last request asked for, nor the top's). Returns how many.
    int upload(const Upload& uploadPage, int budget = kImageryUploadsPerFrame);
    // Blocks until every page the last request asked for is resident (or failed), uploading as
    // they arrive: for scripted frames and tests. False when the pool cannot hold them all.
    bool settle(const Upload& uploadPage);

    ImageryStreamStats stats() const;
    // The first page read that failed, one line ("" when none has).
    std::string error() const;

private:
    void work();
    void beginRequest();
    // Asks for the pages over sample box [x0, x1] x [z0, z1].
    void askBox(const ImageryView& view, int x0, int z0, int x1, int z1);
    void endRequest();
    int freeLayer();

    ImageryPlan plan_;
    std::unique_ptr<ImageryReader> reader_;
    ImageryCompression compression_ = ImageryCompression::None;
    size_t pageBytes_ = 0;         // a staging page's: imageryPageBytes
    std::vector<uint8_t> texels_;  // the worker's: a page's RGBA texels before they are encoded
    uint32_t topPage_ = 0;

    mutable std::mutex mutex_;
    std::condition_variable wake_;    // the worker: requests or a free staging page, or stop
    std::condition_variable filled_;  // settle(): a page read or failed
    bool stop_ = false;
    std::vector<ImageryPageState> state_;
    std::vector<uint32_t> queue_;  // the requests in order; the worker takes from head_
    size_t head_ = 0;
    std::vector<uint8_t> staging_;
    std::vector<int> freeStaging_;
    std::vector<std::pair<uint32_t, int>> ready_;
    int loading_ = 0;
    int failed_ = 0;
    std::string error_;

    // Main thread only.
    struct Ask {
        uint64_t key;  // coarser levels first, then nearer
        uint32_t page;
    };
    std::vector<Ask> asks_;             // this frame's
    std::vector<uint32_t> stamp_;       // per page: the last request that asked for it
    std::vector<int> pageLayer_;        // per page: its layer, or -1
    std::vector<int64_t> layerPage_;    // per layer: its page, or -1
    std::vector<uint32_t> layerAsked_;  // per layer: the last request that asked for its page
    uint32_t frame_ = 0;
    int wanted_ = 0;
    int resident_ = 0;
    bool starved_ = false;
    uint64_t uploadedTotal_ = 0;

    std::thread worker_;
};

}  // namespace qt
