// The imagery page streamer: a frame's pages from its instances' boxes and distances, one worker
// reading them through the imagery's reader, uploads into pool layers recycled least recently
// asked for first.
#include "core/streaming/imagery_streamer.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstring>

namespace qt {

ImageryView imageryView(const ImageryPlan& plan, const WorldMapping& mapping, const Camera& camera,
                        int viewportHeight, float mapMinY, float mapMaxY) {
    ImageryView v;
    v.eyeX = camera.position.x;
    v.eyeY = camera.position.y;
    v.eyeZ = camera.position.z;
    v.mapMinY = mapMinY;
    v.mapMaxY = mapMaxY;
    v.spacingX = mapping.spacingX;
    v.spacingZ = mapping.spacingZ;
    // The least angle a pixel subtends: along the radius at the viewport's corner, f / (f^2 +
    // r^2) for focal length f and corner radius r, in pixels.
    const double h = std::max(viewportHeight, 1);
    const double f = 0.5 * h / std::tan(0.5 * double(camera.fovY));
    const double r2 = 0.25 * h * h * (1.0 + double(camera.aspect) * double(camera.aspect));
    const double alpha = f / (f * f + r2);
    const double perWorld = std::min(plan.densityX() / std::max(double(mapping.spacingX), 1e-30),
                                     plan.densityY() / std::max(double(mapping.spacingZ), 1e-30));
    v.floorScale = alpha * perWorld;
    return v;
}

void ImageryStreamer::start(std::unique_ptr<ImageryReader> reader, int poolLayers,
                            ImageryCompression compression, int stagingPages) {
    stop();
    assert(reader && poolLayers >= 1 && stagingPages >= 1);
    reader_ = std::move(reader);
    plan_ = reader_->plan();
    compression_ = compression;
    const size_t count = size_t(plan_.pages);
    state_.assign(count, ImageryPageState::Absent);
    queue_.clear();
    queue_.reserve(count);
    head_ = 0;
    pageBytes_ = size_t(imageryPageBytes(plan_.side(), compression));
    staging_.assign(size_t(stagingPages) * pageBytes_, 0);
    texels_.assign(compression == ImageryCompression::None
                       ? 0
                       : size_t(plan_.side()) * size_t(plan_.side()) * 4,
                   0);
    freeStaging_.clear();
    for (int s = stagingPages - 1; s >= 0; --s) {
        freeStaging_.push_back(s);
    }
    ready_.clear();
    ready_.reserve(size_t(stagingPages));
    loading_ = 0;
    failed_ = 0;
    error_.clear();
    stop_ = false;
    asks_.clear();
    asks_.reserve(count);
    stamp_.assign(count, 0);
    pageLayer_.assign(count, -1);
    layerPage_.assign(size_t(poolLayers), -1);
    layerAsked_.assign(size_t(poolLayers), 0);
    frame_ = 0;
    wanted_ = 0;
    starved_ = false;
    uploadedTotal_ = 0;
    // The tail's page, uploaded by the caller, in layer 0 for good.
    topPage_ = plan_.tailPage();
    state_[topPage_] = ImageryPageState::Resident;
    pageLayer_[topPage_] = 0;
    layerPage_[0] = topPage_;
    resident_ = 1;
    worker_ = std::thread([this] { work(); });
}

void ImageryStreamer::stop() {
    if (!worker_.joinable()) {
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    worker_.join();
    for (ImageryPageState& s : state_) {
        if (s != ImageryPageState::Resident && s != ImageryPageState::Failed) {
            s = ImageryPageState::Absent;
        }
    }
    queue_.clear();
    head_ = 0;
    ready_.clear();
    loading_ = 0;
    reader_.reset();
}

ImageryPageState ImageryStreamer::state(uint32_t page) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_[page];
}

void ImageryStreamer::beginRequest() {
    ++frame_;
    if (frame_ == 0) {  // wrapped: no stamp may look current
        std::fill(stamp_.begin(), stamp_.end(), 0u);
        std::fill(layerAsked_.begin(), layerAsked_.end(), 0u);
        frame_ = 1;
    }
    asks_.clear();
}

void ImageryStreamer::askBox(const ImageryView& view, int x0, int z0, int x1, int z1) {
    // The box's distance from the eye: its rectangle's, and the map's height range.
    const double wx0 = x0 * view.spacingX, wx1 = x1 * view.spacingX;
    const double wz0 = z0 * view.spacingZ, wz1 = z1 * view.spacingZ;
    const double dx = std::max({wx0 - view.eyeX, 0.0, view.eyeX - wx1});
    const double dz = std::max({wz0 - view.eyeZ, 0.0, view.eyeZ - wz1});
    const double dy = std::max({view.mapMinY - view.eyeY, 0.0, view.eyeY - view.mapMaxY});
    const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
    const int top = plan_.top();
    // The finest level its fragments read, less a hundredth of a level for the shader's float
    // rounding.
    const double finest = std::floor(std::log2(std::max(d * view.floorScale, 1e-30)) - 0.01);
    const int first = int(std::clamp(finest, 0.0, double(top)));
    const float df = float(d);
    uint32_t bits = 0;
    std::memcpy(&bits, &df, sizeof bits);
    const double densityX = plan_.densityX(), densityY = plan_.densityY();
    const double extentX = double(plan_.mapWidth - 1) * densityX;
    const double extentY = double(plan_.mapHeight - 1) * densityY;
    for (int k = first; k <= top; ++k) {
        // The texels the shader reads over the box: its clamped coordinates' pages.
        const double s = std::ldexp(1.0, -k);
        const double hiX = std::max(extentX * s - 0.5, 0.5), hiY = std::max(extentY * s - 0.5, 0.5);
        const int px0 = int(std::clamp(x0 * densityX * s, 0.5, hiX) / plan_.pageTexels);
        const int px1 = int(std::clamp(x1 * densityX * s, 0.5, hiX) / plan_.pageTexels);
        const int py0 = int(std::clamp(z0 * densityY * s, 0.5, hiY) / plan_.pageTexels);
        const int py1 = int(std::clamp(z1 * densityY * s, 0.5, hiY) / plan_.pageTexels);
        bool fresh = false;
        for (int py = py0; py <= py1; ++py) {
            for (int px = px0; px <= px1; ++px) {
                const uint32_t id = plan_.pageId(k, px, py);
                if (stamp_[id] != frame_) {
                    stamp_[id] = frame_;
                    asks_.push_back({(uint64_t(top - k) << 32) | bits, id});
                    fresh = true;
                }
            }
        }
        // Each page asked for was asked with every coarser page over it: those are in too.
        if (!fresh) {
            break;
        }
    }
}

void ImageryStreamer::request(const Quadtree& tree, const ImageryView& view,
                              const std::vector<DrawNode>& nodes) {
    beginRequest();
    for (const DrawNode& n : nodes) {
        const SampleBox box = levelNodeBox(tree, n.level, n.col, n.row);
        askBox(view, box.x0, box.z0, box.x1, box.z1);
    }
    endRequest();
}

void ImageryStreamer::request(const Quadtree& tree, const ImageryView& view,
                              const std::vector<LeafCoord>& leaves) {
    beginRequest();
    for (const LeafCoord& l : leaves) {
        const SampleBox box = levelNodeBox(tree, 0, l.col, l.row);
        askBox(view, box.x0, box.z0, box.x1, box.z1);
    }
    endRequest();
}

void ImageryStreamer::requestEvery() {
    beginRequest();
    for (int k = plan_.tail; k >= 0; --k) {  // the tail's levels: one page
        const ImageryLevel& l = plan_.level[size_t(k)];
        for (int p = 0; p < l.pagesX * l.pagesY; ++p) {
            const uint32_t id = uint32_t(l.firstPage + p);
            stamp_[id] = frame_;
            asks_.push_back({uint64_t(plan_.tail - k) << 32, id});
        }
    }
    endRequest();
}

void ImageryStreamer::endRequest() {
    std::sort(asks_.begin(), asks_.end(), [](const Ask& a, const Ask& b) { return a.key < b.key; });
    wanted_ = int(asks_.size());
    {
        std::lock_guard<std::mutex> lock(mutex_);
        // Pages asked for before and not now go back to Absent, unless the worker has them.
        for (size_t i = head_; i < queue_.size(); ++i) {
            const uint32_t p = queue_[i];
            if (state_[p] == ImageryPageState::Requested && stamp_[p] != frame_) {
                state_[p] = ImageryPageState::Absent;
            }
        }
        queue_.clear();
        head_ = 0;
        for (const Ask& a : asks_) {
            ImageryPageState& s = state_[a.page];
            if (s == ImageryPageState::Resident) {
                layerAsked_[size_t(pageLayer_[a.page])] = frame_;
            } else if (s == ImageryPageState::Absent || s == ImageryPageState::Requested) {
                s = ImageryPageState::Requested;
                queue_.push_back(a.page);
            }
        }
    }
    wake_.notify_one();
}

void ImageryStreamer::work() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
        wake_.wait(lock, [this] {
            if (stop_) {
                return true;
            }
            while (head_ < queue_.size() && state_[queue_[head_]] != ImageryPageState::Requested) {
                ++head_;
            }
            return head_ < queue_.size() && !freeStaging_.empty();
        });
        if (stop_) {
            return;
        }
        const uint32_t page = queue_[head_++];
        const int slot = freeStaging_.back();
        freeStaging_.pop_back();
        state_[page] = ImageryPageState::Loading;
        ++loading_;
        lock.unlock();
        int k = 0, px = 0, py = 0;
        plan_.pageOf(page, k, px, py);
        uint8_t* stored = &staging_[size_t(slot) * pageBytes_];
        const bool encoded = compression_ != ImageryCompression::None;
        const Status read = reader_->readPage(k, px, py, encoded ? texels_.data() : stored);
        if (read && encoded) {
            compressImageryPage(texels_.data(), plan_.side(), stored);
        }
        lock.lock();
        --loading_;
        if (read) {
            state_[page] = ImageryPageState::Ready;
            ready_.emplace_back(page, slot);
        } else {
            state_[page] = ImageryPageState::Failed;
            freeStaging_.push_back(slot);
            ++failed_;
            if (error_.empty()) {
                error_ = read.error();
            }
        }
        filled_.notify_all();
    }
}

int ImageryStreamer::freeLayer() {
    int best = -1;
    for (int l = 0; l < int(layerPage_.size()); ++l) {
        if (layerPage_[size_t(l)] < 0) {
            return l;
        }
        if (layerPage_[size_t(l)] == int64_t(topPage_) || layerAsked_[size_t(l)] == frame_) {
            continue;
        }
        if (best < 0 || layerAsked_[size_t(l)] < layerAsked_[size_t(best)]) {
            best = l;
        }
    }
    return best;
}

int ImageryStreamer::upload(const Upload& uploadPage, int budget) {
    int done = 0;
    starved_ = false;
    std::unique_lock<std::mutex> lock(mutex_);
    size_t taken = 0;
    while (taken < ready_.size() && done < budget) {
        const auto [page, slot] = ready_[taken];
        if (stamp_[page] != frame_) {  // no longer asked for: dropped
            state_[page] = ImageryPageState::Absent;
            freeStaging_.push_back(slot);
            ++taken;
            continue;
        }
        const int layer = freeLayer();
        if (layer < 0) {
            starved_ = true;
            break;
        }
        const int64_t evicted = layerPage_[size_t(layer)];
        if (evicted >= 0) {
            state_[size_t(evicted)] = ImageryPageState::Absent;
            pageLayer_[size_t(evicted)] = -1;
            --resident_;
        }
        uploadPage(layer, page, &staging_[size_t(slot) * pageBytes_], evicted);
        layerPage_[size_t(layer)] = page;
        layerAsked_[size_t(layer)] = frame_;
        pageLayer_[page] = layer;
        state_[page] = ImageryPageState::Resident;
        ++resident_;
        ++uploadedTotal_;
        freeStaging_.push_back(slot);
        ++taken;
        ++done;
    }
    ready_.erase(ready_.begin(), ready_.begin() + std::ptrdiff_t(taken));
    lock.unlock();
    if (taken > 0) {
        wake_.notify_one();
    }
    return done;
}

bool ImageryStreamer::settle(const Upload& uploadPage) {
    while (true) {
        upload(uploadPage, plan_.pages);
        std::unique_lock<std::mutex> lock(mutex_);
        if (starved_) {
            return false;
        }
        // Done when no page of this request is still to be read or uploaded.
        bool pending = loading_ > 0 || !ready_.empty();
        for (size_t i = head_; i < queue_.size() && !pending; ++i) {
            pending = state_[queue_[i]] == ImageryPageState::Requested;
        }
        if (!pending) {
            return true;
        }
        filled_.wait_for(lock, std::chrono::milliseconds(20));
    }
}

ImageryStreamStats ImageryStreamer::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    ImageryStreamStats s;
    s.pool = int(layerPage_.size());
    s.resident = resident_;
    s.wanted = wanted_;
    for (size_t i = head_; i < queue_.size(); ++i) {
        s.requested += state_[queue_[i]] == ImageryPageState::Requested;
    }
    s.requested += loading_;
    s.ready = int(ready_.size());
    s.failed = failed_;
    s.uploadedTotal = uploadedTotal_;
    s.starved = starved_;
    return s;
}

std::string ImageryStreamer::error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
}

}  // namespace qt
