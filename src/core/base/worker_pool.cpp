#include "core/base/worker_pool.h"

namespace qt {

WorkerPool::WorkerPool(int threads) {
    for (int t = 1; t < threads; ++t) {
        workers_.emplace_back([this, t] { work(t); });
    }
}

WorkerPool::~WorkerPool() {
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    start_.notify_all();
    for (std::thread& worker : workers_) {
        worker.join();
    }
}

void WorkerPool::runRaw(Call call, void* context) {
    if (workers_.empty()) {
        call(context, 0);
        return;
    }
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        call_ = call;
        context_ = context;
        running_ = int(workers_.size());
        ++generation_;
    }
    start_.notify_all();
    call(context, 0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return running_ == 0; });
}

void WorkerPool::work(int thread) {
    uint64_t seen = 0;
    for (;;) {
        Call call = nullptr;
        void* context = nullptr;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            start_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) {
                return;
            }
            seen = generation_;
            call = call_;
            context = context_;
        }
        call(context, thread);
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            --running_;
        }
        done_.notify_one();
    }
}

}  // namespace qt
