// Imagery opened over a terrain's map on a thread of its own and swapped onto its GPU objects at a
// frame boundary, its pages then streamed.
#include "render/terrain_imagery.h"

#include <chrono>
#include <utility>

#include "core/base/text.h"
#include "render/imagery_gpu.h"

namespace qt {

namespace {

void launch(Terrain& terrain, const std::string& path, uint64_t maxBytes,
            ImageryCompression compression) {
    auto load = std::make_unique<ImageryLoad>();
    load->path = path;
    load->start = std::chrono::steady_clock::now();
    load->maxBytes = maxBytes;
    load->compression = compression;
    // Copies of what the loader reads: the terrain may move or go while it runs.
    load->result =
        std::async(std::launch::async,
                   [path, width = terrain.map.width, height = terrain.map.height,
                    geo = terrain.map.geo] { return openImagery(path, width, height, geo); });
    terrain.imageryLoad = std::move(load);
}

}  // namespace

void startTerrainImagery(Terrain& terrain, const std::string& path, uint64_t maxBytes,
                         ImageryCompression compression) {
    if (terrain.imageryLoad) {
        terrain.imageryLoad->queued = path;
        return;
    }
    launch(terrain, path, maxBytes, compression);
}

std::optional<ImageryOutcome> finishTerrainImagery(Terrain& terrain, bool wait) {
    if (!terrain.imageryLoad) {
        return std::nullopt;
    }
    ImageryLoad& load = *terrain.imageryLoad;
    if (!wait && load.result.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        return std::nullopt;
    }
    Result<OpenedImagery> loaded = load.result.get();
    ImageryOutcome outcome;
    outcome.path = load.path;
    const std::string name = escapedPath(load.path);
    const std::string queued = load.queued;
    const uint64_t maxBytes = load.maxBytes;
    const ImageryCompression compression = load.compression;
    const auto start = load.start;
    terrain.imageryLoad.reset();
    if (!queued.empty()) {  // a newer ask: this one is not shown
        launch(terrain, queued, maxBytes, compression);
        return wait ? finishTerrainImagery(terrain, true) : std::nullopt;
    }
    if (!loaded) {
        outcome.status = Status::failure(name + ": " + loaded.error());
        return outcome;
    }
    OpenedImagery& opened = loaded.value();
    for (const std::string& warning : opened.warnings) {
        outcome.warnings.push_back(name + ": " + warning);
    }
    if (!opened.reader) {  // covers none of the map
        clearTerrainImagery(terrain);
        return outcome;
    }
    const int layers = imageryPoolLayers(opened.plan, maxBytes, compression);
    if (Status set = setTerrainImagery(terrain, std::move(opened), layers, compression); !set) {
        outcome.status = Status::failure(name + ": " + set.error());
        return outcome;
    }
    terrain.times.imageryMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return outcome;
}

Status setTerrainImagery(Terrain& terrain, OpenedImagery opened, int layers,
                         ImageryCompression compression) {
    if (!opened.reader || opened.topPage.empty()) {
        return Status::failure("imagery has no pages");
    }
    Result<ImageryGpu> gpu = ImageryGpu::create(opened.plan, layers, compression);
    if (!gpu) {
        return Status::failure(gpu.error());
    }
    const ImageryPlan& plan = opened.plan;
    std::vector<uint8_t> blocks;
    if (compression == ImageryCompression::Bc3) {
        blocks.resize(size_t(imageryPageBytes(plan.side(), compression)));
        compressImageryPage(opened.topPage.data(), plan.side(), blocks.data());
    }
    gpu.value().uploadPage(0, plan.tailPage(),
                           blocks.empty() ? opened.topPage.data() : blocks.data(), -1);
    clearTerrainImagery(terrain);
    terrain.gpu.imagery = gpu.value();
    terrain.imagery = std::move(opened.info);
    terrain.imageryStreamer = std::make_unique<ImageryStreamer>();
    terrain.imageryStreamer->start(std::move(opened.reader), layers, compression);
    return {};
}

void clearTerrainImagery(Terrain& terrain) {
    terrain.imageryStreamer.reset();
    terrain.gpu.imagery.destroy();
    terrain.imagery = ImageryInfo{};
    terrain.times.imageryMs = 0.0;
}

}  // namespace qt
