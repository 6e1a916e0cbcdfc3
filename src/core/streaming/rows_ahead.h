// Rows of a map made on a thread of its own, ahead of the pass that reads them: the streamed
// pass's GDAL reads (or quantisation) overlap its tree work on the rows before.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "core/base/result.h"

namespace qt {

class RowsAhead {
public:
    // Makes rows [first, first + count) (called on the thread, in order, never twice at once).
    using Make = std::function<Status(int first, int count)>;

    // Starts the thread: it makes the `height` rows in chunks of `step`, at most `lead` rows
    // beyond the last row asked for, and stops at the first failure.
    RowsAhead(int height, int step, int lead, Make make);
    // Stops the thread once its chunk is made, and joins it.
    ~RowsAhead();
    RowsAhead(const RowsAhead&) = delete;
    RowsAhead& operator=(const RowsAhead&) = delete;

    // Waits until rows [0, lastRow) are made; the failure of a chunk that was needed for them
    // (or made before them) is returned instead.
    Status operator()(int lastRow);

private:
    void run();

    const int height_;
    const int step_;
    const int lead_;
    Make make_;
    std::mutex mutex_;
    std::condition_variable changed_;
    int made_ = 0;   // rows [0, made_) are made
    int asked_ = 0;  // the furthest row asked for
    bool stop_ = false;
    Status failed_;  // the first failure; the thread has stopped then
    std::thread thread_;
};

}  // namespace qt
