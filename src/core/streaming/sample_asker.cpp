// One thread reading the newest window asked for; asks for present samples cost a check.
#include "core/streaming/sample_asker.h"

#include <utility>

namespace qt {

SampleAsker::SampleAsker(SamplePresence presence)
    : presence_(std::move(presence)), thread_([this] { loop(); }) {}

SampleAsker::~SampleAsker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void SampleAsker::ask(int x0, int y0, int x1, int y1) {
    if (presence_.present(x0, y0, x1, y1)) {
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_ = Window{x0, y0, x1, y1};
    }
    wake_.notify_all();
}

std::string SampleAsker::lastFailure() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
}

void SampleAsker::waitIdle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return !busy_ && !pending_; });
}

void SampleAsker::loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
        if (stop_) {
            return;
        }
        const Window w = *pending_;
        pending_.reset();
        busy_ = true;
        lock.unlock();
        const Status read = presence_.ensure(w.x0, w.y0, w.x1, w.y1);
        lock.lock();
        failure_ = read ? "" : read.error();
        busy_ = false;
        idle_.notify_all();
    }
}

}  // namespace qt
