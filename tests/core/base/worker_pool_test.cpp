// WorkerPool: every thread runs the job once; Background workers (and a thread that asks) run
// below the caller's priority, so that work the frames do not wait for takes what they leave.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "core/base/worker_pool.h"

namespace qt {
namespace {

#if defined(__linux__)
// The calling thread's own nice value (Linux keeps one per thread).
int threadNice() {
    return getpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)));
}
#endif

TEST(WorkerPool, RunsTheJobOnceOnEveryThread) {
    WorkerPool pool(3);
    std::vector<std::atomic<int>> calls(3);
    auto job = [&](int thread) { ++calls[size_t(thread)]; };
    pool.run(job);
    pool.run(job);
    for (const std::atomic<int>& c : calls) {
        EXPECT_EQ(c.load(), 2);
    }
}

#if defined(__linux__)
TEST(WorkerPool, BackgroundWorkersRunBelowTheCallersPriority) {
    const int callerNice = threadNice();
    if (callerNice >= 19) {
        GTEST_SKIP() << "the tests already run at the lowest priority";
    }
    WorkerPool background(3, WorkerPool::Priority::Background);
    WorkerPool asCaller(2);
    std::vector<int> nice(3, -100), sameNice(2, -100);
    auto job = [&](int thread) { nice[size_t(thread)] = threadNice(); };
    background.run(job);
    auto same = [&](int thread) { sameNice[size_t(thread)] = threadNice(); };
    asCaller.run(same);
    EXPECT_EQ(nice[0], callerNice);  // the caller's own thread is left as it is
    EXPECT_GT(nice[1], callerNice);
    EXPECT_GT(nice[2], callerNice);
    EXPECT_EQ(sameNice[1], callerNice);
    int asked = -100;
    std::thread([&] {
        runThisThreadInBackground();
        asked = threadNice();
    }).join();
    EXPECT_GT(asked, callerNice);
    EXPECT_EQ(threadNice(), callerNice);  // the asking thread's alone
}
#endif

}  // namespace
}  // namespace qt
