// The page streamer of the pooled levels: requests nearest first, workers filling staging pages,
// uploads under a per-frame budget into pool layers recycled least recently drawn first.
#include "core/streaming/page_streamer.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace qt {

void releaseMapRows(const Heightmap& map, int firstRow, int lastRow) {
    // Codes in memory stay; codes mapped from a file drop the rows' resident pages, so that the
    // process keeps only what it is reading (the file's pages stay in the page cache).
    if (map.codes.isMapped() && firstRow <= lastRow) {
        const size_t width = size_t(map.width);
        map.codes.dropResident(size_t(firstRow) * width, size_t(lastRow - firstRow + 1) * width);
    }
}

void PageStreamer::start(const Heightmap& map, const HeightPages& pages, int poolLayers,
                         int uploadsPerFrame, int stagingPages, SampleSource source,
                         CoarsePageFill coarse, int workers) {
    stop();
    assert(poolLayers >= 1 && uploadsPerFrame >= 1 && stagingPages >= 1);
    assert(workers >= 1 && (workers == 1 || workers < stagingPages));
    const PageLevel& level0 = pages.level[0];
    // A layout not made for streaming (no pooled levels) streams its level 0.
    const size_t count = pages.pooledLevels >= 1 ? size_t(pages.pooledPages())
                                                 : size_t(level0.pagesX) * size_t(level0.pagesY);
    map_ = &map;
    pages_ = &pages;
    source_ = std::move(source);
    coarse_ = std::move(coarse);
    uploadsPerFrame_ = uploadsPerFrame;
    state_.assign(count, PageState::Absent);
    queue_.clear();
    queue_.reserve(count);
    head_ = 0;
    const size_t texels = size_t(pages.texels) * size_t(pages.texels);
    staging_.assign(size_t(stagingPages) * texels, 0);
    freeStaging_.clear();
    freeStaging_.reserve(size_t(stagingPages));
    for (int s = stagingPages - 1; s >= 0; --s) {
        freeStaging_.push_back(s);
    }
    ready_.clear();
    ready_.reserve(size_t(stagingPages));
    loading_ = 0;
    coarseLoading_ = 0;
    failed_ = 0;
    lastFailure_.clear();
    stop_ = false;
    pageLayer_.assign(count, -1);
    layerPage_.assign(size_t(poolLayers), -1);
    layerDrawn_.assign(size_t(poolLayers), 0);
    layerUploaded_.assign(size_t(poolLayers), 0);
    wanted_.assign(count, 0);
    requestFrame_ = 0;
    drawFrame_ = 0;
    uploaded_ = 0;
    uploadedTotal_ = 0;
    std::vector<PageResidency::Size> pooled;
    for (int k = 0; k < std::max(pages.pooledLevels, 1); ++k) {
        pooled.push_back({pages.level[size_t(k)].pagesX, pages.level[size_t(k)].pagesY});
    }
    residency_.reset(pages.pageShift, pooled);
    for (int w = 0; w < workers; ++w) {
        workers_.emplace_back([this] { work(); });
    }
}

void PageStreamer::stop() {
    if (workers_.empty()) {
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) {
        worker.join();
    }
    workers_.clear();
    // Nothing half-done survives: pages not in the pool are Absent again.
    for (size_t p = 0; p < state_.size(); ++p) {
        if (state_[p] != PageState::Resident) {
            state_[p] = PageState::Absent;
        }
    }
    queue_.clear();
    head_ = 0;
    ready_.clear();
    loading_ = 0;
    coarseLoading_ = 0;
}

PageState PageStreamer::state(uint32_t page) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_[page];
}

void PageStreamer::request(std::vector<PageRequest>& requests) {
    // Nearest first; ties (and one page asked for by several nodes) by page, so the order is
    // deterministic.
    std::sort(requests.begin(), requests.end(), [](const PageRequest& a, const PageRequest& b) {
        return a.squared != b.squared ? a.squared < b.squared : a.page < b.page;
    });
    ++requestFrame_;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.clear();
        head_ = 0;
        for (const PageRequest& r : requests) {
            if (wanted_[r.page] == requestFrame_) {
                continue;  // asked already, nearer
            }
            wanted_[r.page] = requestFrame_;
            PageState& s = state_[r.page];
            if (s == PageState::Absent || s == PageState::Requested) {
                s = PageState::Requested;
                queue_.push_back(r.page);
            }
        }
        // Last frame's requests that this one dropped: no longer wanted.
        for (size_t p = 0; p < state_.size(); ++p) {
            if (state_[p] == PageState::Requested && wanted_[p] != requestFrame_) {
                state_[p] = PageState::Absent;
            }
        }
    }
    wake_.notify_all();
}

void PageStreamer::markDrawn(const std::vector<DrawNode>& drawn, int leafShift,
                             const std::vector<uint32_t>& shading) {
    ++drawFrame_;
    const LodResidency& r = residency_.view();
    const auto mark = [this](uint32_t page) {
        const int layer = pageLayer_[page];
        assert(layer >= 0 && "a node is drawn only from a resident page");
        layerDrawn_[size_t(layer)] = drawFrame_;
    };
    // Nodes come in tree order, so a page's nodes mostly follow each other: the pages a node's
    // parent needed are marked again only when the node's page changes.
    int64_t last = -1;
    for (const DrawNode& node : drawn) {
        if (node.level >= r.levels) {
            continue;
        }
        const int x0 = int(node.col) << leafShift;  // its first map sample
        const int z0 = int(node.row) << leafShift;
        const uint32_t page = r.pageAt(node.level, x0, z0);
        if (int64_t(page) == last) {
            continue;
        }
        last = int64_t(page);
        // Its page and, its parent having split, the pages above that made it effective.
        r.forEachNeeded(node.level + 1, x0, z0, [&](int j, int qx0, int qy0, int qx1, int qy1) {
            const ResidentLevel& at = r.level[size_t(j)];
            for (int y = qy0; y <= qy1; ++y) {
                for (int x = qx0; x <= qx1; ++x) {
                    mark(at.first + uint32_t(y) * uint32_t(at.pagesX) + uint32_t(x));
                }
            }
        });
    }
    for (const uint32_t page : shading) {
        if (pageLayer_[page] >= 0) {
            mark(page);
        }
    }
}

int PageStreamer::freeLayer() {
    // A layer holding no page, else the least recently drawn one (never drawn first) not drawn
    // by the last frame nor uploaded since: a page uploaded waits for a frame to draw it before
    // it can go, so a burst of uploads never recycles its own pages.
    int best = -1;
    for (size_t l = 0; l < layerPage_.size(); ++l) {
        if (layerPage_[l] < 0) {
            return int(l);
        }
        if (layerDrawn_[l] < drawFrame_ && layerUploaded_[l] != drawFrame_ + 1 &&
            (best < 0 || layerDrawn_[l] < layerDrawn_[size_t(best)])) {
            best = int(l);
        }
    }
    return best;
}

int PageStreamer::upload(const Upload& uploadPage) {
    uploaded_ = 0;
    starved_ = false;
    const size_t texels = size_t(pages_->texels) * size_t(pages_->texels);
    while (uploaded_ < uploadsPerFrame_) {
        uint32_t page = 0;
        int staging = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (ready_.empty()) {
                break;
            }
            page = ready_.front().first;
            staging = ready_.front().second;
        }
        const int layer = freeLayer();
        if (layer < 0) {
            starved_ = true;  // every layer was drawn by the last frame: the page waits
            break;
        }
        const int64_t evicted = layerPage_[size_t(layer)];
        if (evicted >= 0) {
            residency_.set(uint32_t(evicted), false);
            pageLayer_[size_t(evicted)] = -1;
        }
        // The worker does not touch a staging page in ready_, so it is read without the lock.
        uploadPage(layer, page, staging_.data() + size_t(staging) * texels, evicted);
        layerPage_[size_t(layer)] = page;
        layerDrawn_[size_t(layer)] = 0;
        layerUploaded_[size_t(layer)] = drawFrame_ + 1;
        pageLayer_[page] = layer;
        residency_.set(page, true);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (evicted >= 0) {
                state_[size_t(evicted)] = PageState::Absent;
            }
            state_[page] = PageState::Resident;
            ready_.erase(ready_.begin());  // a few entries at most
            freeStaging_.push_back(staging);
        }
        wake_.notify_all();
        ++uploaded_;
    }
    uploadedTotal_ += uint64_t(uploaded_);
    return uploaded_;
}

void PageStreamer::settle(const Upload& uploadPage) {
    const int budget = uploadsPerFrame_;
    uploadsPerFrame_ = 1 << 30;
    int total = 0;
    for (;;) {
        // Whether filled pages waited before the upload: pages the worker finishes while it
        // runs are taken by the next round, not mistaken for pages that found no layer.
        bool waited = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            waited = !ready_.empty();
        }
        const int uploaded = upload(uploadPage);
        total += uploaded;
        std::unique_lock<std::mutex> lock(mutex_);
        if (!ready_.empty()) {
            if (uploaded == 0 && waited) {
                break;  // filled pages that found no layer
            }
            continue;
        }
        const auto idle = [this] { return head_ >= queue_.size() && loading_ == 0; };
        if (idle()) {
            break;
        }
        filled_.wait(lock, [&] { return !ready_.empty() || stop_ || idle(); });
        if (stop_) {
            break;
        }
    }
    uploadsPerFrame_ = budget;
    uploaded_ = total;
}

StreamStats PageStreamer::stats() const {
    StreamStats s;
    s.pool = int(layerPage_.size());
    s.uploaded = uploaded_;
    s.uploadedTotal = uploadedTotal_;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const PageState p : state_) {
        s.resident += p == PageState::Resident ? 1 : 0;
        s.requested += p == PageState::Requested || p == PageState::Loading ? 1 : 0;
        s.ready += p == PageState::Ready ? 1 : 0;
    }
    s.failedTotal = failed_;
    return s;
}

std::string PageStreamer::lastFailure() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return lastFailure_;
}

size_t PageStreamer::nextTakeable() const {
    for (size_t i = head_; i < queue_.size(); ++i) {
        const uint32_t page = queue_[i];
        if (state_[page] == PageState::Requested &&
            !(coarse_ && (coarseLoading_ >> pages_->levelOfPage(page) & 1) != 0)) {
            return i;
        }
    }
    return queue_.size();
}

void PageStreamer::work() {
    const size_t texels = size_t(pages_->texels) * size_t(pages_->texels);
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        // The nearest page still asked for that this worker may take, once a staging page is
        // free.
        while (head_ < queue_.size() && state_[queue_[head_]] != PageState::Requested) {
            ++head_;
        }
        if (stop_) {
            return;
        }
        const size_t next = nextTakeable();
        if (next == queue_.size() || freeStaging_.empty()) {
            filled_.notify_all();  // settle() waits for the workers to go idle too
            wake_.wait(lock);
            continue;
        }
        const uint32_t page = queue_[next];
        const int staging = freeStaging_.back();
        freeStaging_.pop_back();
        state_[page] = PageState::Loading;
        ++loading_;
        const int level = pages_->levelOfPage(page);
        const bool fromCoarse = level >= 1 && coarse_;
        if (fromCoarse) {
            coarseLoading_ |= 1u << level;
        }
        lock.unlock();
        const PageLevel& l = pages_->level[size_t(level)];
        const int px = int((page - uint32_t(l.firstPage)) % uint32_t(l.pagesX));
        const int py = int((page - uint32_t(l.firstPage)) / uint32_t(l.pagesX));
        uint16_t* out = staging_.data() + size_t(staging) * texels;
        // The page's samples with their borders (at the level's stride), clamped to the map.
        const int firstRow =
            std::min(std::max(py * pages_->pageSize - 1, 0) << level, map_->height - 1);
        const int lastRow =
            std::min((py * pages_->pageSize + pages_->texels - 2) << level, map_->height - 1);
        const int firstColumn =
            std::min(std::max(px * pages_->pageSize - 1, 0) << level, map_->width - 1);
        const int lastColumn =
            std::min((px * pages_->pageSize + pages_->texels - 2) << level, map_->width - 1);
        Status had;
        if (fromCoarse) {
            had = coarse_(*pages_, level, px, py, out);
        } else {
            had = source_ ? source_(firstColumn, firstRow, lastColumn, lastRow) : Status();
            if (had) {
                fillHeightPage(*map_, *pages_, level, px, py, out);
                releaseMapRows(*map_, firstRow, lastRow);
            }
        }
        lock.lock();
        if (had) {
            state_[page] = PageState::Ready;
            ready_.emplace_back(page, staging);
        } else {
            state_[page] = PageState::Absent;
            freeStaging_.push_back(staging);
            ++failed_;
            lastFailure_ = had.error();
        }
        --loading_;
        if (fromCoarse) {
            coarseLoading_ &= ~(1u << level);
        }
        filled_.notify_all();
        if (fromCoarse) {
            wake_.notify_all();  // a page of its level others left for this one may be taken now
        }
    }
}

int streamPoolLayers(const HeightPages& pages, float fovY, int viewportHeight, float finestPixels,
                     int leafSize) {
    const PageLevel& level0 = pages.level[0];
    const int all = level0.pagesX * level0.pagesY;
    const float pixelsPerRadian = float(viewportHeight) / (2.0f * std::tan(0.5f * fovY));
    const float stepsAway = std::max(finestPixels > 0.0f ? pixelsPerRadian / finestPixels : 0.0f,
                                     minStepsAway(leafSize));
    const float radius = kStreamPrefetch * stepsAway * 2.0f;
    const float side = 2.0f * radius / float(pages.pageSize) + 2.0f;
    const float wanted = std::min(side * side, float(all));
    float above = 0.0f;
    // Level j + 1's grid-step reach is 2^(j + 1) steps, over pages of 2^j pageSize squares: the
    // same side, and one ring more.
    const int pooled = pages.pooledLevels > 0 ? pages.pooledLevels : streamedLevels(pages);
    for (int j = 1; j < pooled; ++j) {
        const PageLevel& level = pages.level[size_t(j)];
        above += std::min((side + 2.0f) * (side + 2.0f), float(level.pagesX * level.pagesY));
    }
    return std::max(1, int(std::ceil(wanted + above)));
}

}  // namespace qt
