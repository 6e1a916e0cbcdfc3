// The input queue's batches: a release ends the batch when its key went down in the same batch.
#include "app/input_queue.h"

#include <algorithm>

namespace qt {
namespace {

constexpr int kRelease = 0;
constexpr int kPress = 1;

}  // namespace

bool InputQueue::push(const InputEvent& e) {
    if (events_.size() >= kMaxQueuedInput) {
        return false;
    }
    events_.push_back(e);
    return true;
}

size_t InputQueue::frameBatch() const {
    // Keys pressed so far in the batch: a few at a time, so a short linear list.
    int pressed[16];
    int count = 0;
    for (size_t i = 0; i < events_.size(); ++i) {
        const InputEvent& e = events_[i];
        if (e.kind != InputEvent::Kind::Key) {
            continue;
        }
        if (e.action == kRelease && std::find(pressed, pressed + count, e.key) != pressed + count) {
            return i;
        }
        if (e.action == kPress) {
            if (count == 16) {
                return i;  // many keys at once: the rest next frame
            }
            pressed[count++] = e.key;
        }
    }
    return events_.size();
}

void InputQueue::pop(size_t count) {
    events_.erase(events_.begin(),
                  events_.begin() + std::ptrdiff_t(std::min(count, events_.size())));
}

}  // namespace qt
