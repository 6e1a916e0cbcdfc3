// The thread that makes rows ahead of the pass, and the handshake with it.
#include "core/streaming/rows_ahead.h"

#include <algorithm>
#include <cassert>

namespace qt {

RowsAhead::RowsAhead(int height, int step, int lead, Make make)
    : height_(height), step_(step), lead_(lead), make_(std::move(make)) {
    assert(step >= 1 && lead >= step);
    thread_ = std::thread(&RowsAhead::run, this);
}

RowsAhead::~RowsAhead() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void RowsAhead::run() {
    for (;;) {
        int first = 0;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [&] { return stop_ || made_ < std::min(asked_ + lead_, height_); });
            if (stop_) {
                return;
            }
            first = made_;
        }
        const int count = std::min(step_, height_ - first);
        Status made = make_(first, count);
        bool done = false;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (made) {
                made_ = first + count;
                done = made_ == height_;
            } else {
                failed_ = std::move(made);
                done = true;
            }
        }
        changed_.notify_all();
        if (done) {
            return;
        }
    }
}

Status RowsAhead::operator()(int lastRow) {
    std::unique_lock<std::mutex> lock(mutex_);
    asked_ = std::max(asked_, lastRow);
    changed_.notify_all();
    changed_.wait(lock, [&] { return made_ >= lastRow || !failed_; });
    return made_ >= lastRow ? Status{} : failed_;
}

}  // namespace qt
