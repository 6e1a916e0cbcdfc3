// Samples asked for on a thread of their own (SamplePresence::ensure), for the readers of a frame
// that find them absent and must not wait: the pick under the cursor, the ground under the eye.
// The page streamer fetches what the drawn pages need; this fetches what a reader points at.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/terrain/sample_presence.h"

namespace qt {

class SampleAsker {
public:
    explicit SampleAsker(SamplePresence presence);
    ~SampleAsker();  // lets the read under way finish, then joins
    SampleAsker(const SampleAsker&) = delete;
    SampleAsker& operator=(const SampleAsker&) = delete;

    // Asks for columns [x0, x1] and rows [y0, y1], unless they are present: read next, in place
    // of an ask not yet begun (a pointer that moves on wants the newest place, not every one).
    void ask(int x0, int y0, int x1, int y1);
    // The line of the last read that failed ("" none since the last that succeeded).
    std::string lastFailure() const;
    // Waits until every ask has been read (tests).
    void waitIdle();

private:
    struct Window {
        int x0, y0, x1, y1;
    };
    void loop();

    const SamplePresence presence_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::optional<Window> pending_;
    bool busy_ = false;
    bool stop_ = false;
    std::string failure_;
    std::thread thread_;  // last: started once everything above is
};

}  // namespace qt
