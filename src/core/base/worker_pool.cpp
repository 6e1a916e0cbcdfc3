#include "core/base/worker_pool.h"

#include <algorithm>
#include <cerrno>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace qt {

// How far background threads sit below their creator: CFS gives a thread 10 nice levels down
// about a tenth of a core's time against one that wants it, and all of it when the core is
// otherwise idle.
constexpr int kBackgroundNice = 10;

void runThisThreadInBackground() {
#if defined(__linux__)
    // On Linux a nice value belongs to a thread: PRIO_PROCESS with the thread's id sets its own,
    // here kBackgroundNice above what it inherited (at most 19). Raising one's own nice needs no
    // privilege; a failure leaves the priority as it was.
    const id_t self = id_t(syscall(SYS_gettid));
    errno = 0;
    const int inherited = getpriority(PRIO_PROCESS, self);
    if (errno == 0) {
        (void)setpriority(PRIO_PROCESS, self, std::min(inherited + kBackgroundNice, 19));
    }
#endif
}

WorkerPool::WorkerPool(int threads, Priority priority) {
    for (int t = 1; t < threads; ++t) {
        workers_.emplace_back([this, t, priority] {
            if (priority == Priority::Background) {
                runThisThreadInBackground();
            }
            work(t);
        });
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
