// A fixed set of threads that run one job at a time, for work split per frame: no thread is made
// and nothing is allocated per job.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace qt {

// Lowers the calling thread's scheduling priority (Linux: 10 nice levels, this thread alone), so
// that work the frames do not wait for (shadows of a moving Sun) takes what they leave of the
// cores; nothing elsewhere.
void runThisThreadInBackground();

class WorkerPool {
public:
    // How the workers are scheduled: as the caller's thread, or Background (below it).
    enum class Priority { AsCaller, Background };
    // `threads` - 1 workers: the caller's thread is the first of `threads`.
    explicit WorkerPool(int threads, Priority priority = Priority::AsCaller);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    int threads() const { return int(workers_.size()) + 1; }

    // Calls job(t) once for each t in [0, threads()), job(0) on the calling thread, and returns
    // when every call has.
    template <typename Job>
    void run(Job& job) {
        runRaw([](void* context, int thread) { (*static_cast<Job*>(context))(thread); }, &job);
    }

private:
    using Call = void (*)(void*, int);
    void runRaw(Call call, void* context);
    void work(int thread);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable start_;
    std::condition_variable done_;
    Call call_ = nullptr;
    void* context_ = nullptr;
    uint64_t generation_ = 0;
    int running_ = 0;
    bool stop_ = false;
};

}  // namespace qt
