// The input queue's batches: a release ends the batch when its key went down in the same batch
// without typing a character.
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
    // Keys pressed so far in the batch that gave no character: a few at a time, so a short list.
    // A key that typed a character needs no frame of its own: ImGui takes the character.
    int pressed[16];
    int count = 0;
    bool lastPressTyped = true;  // the last press in the batch was followed by a character
    for (size_t i = 0; i < events_.size(); ++i) {
        const InputEvent& e = events_[i];
        if (e.kind == InputEvent::Kind::Focus) {
            return i + 1;
        }
        if (e.kind == InputEvent::Kind::Char) {
            if (!lastPressTyped && count > 0) {
                --count;  // GLFW sends a key's character right after its press
                lastPressTyped = true;
            }
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
            lastPressTyped = false;
        }
    }
    return events_.size();
}

void InputQueue::pop(size_t count) {
    events_.erase(events_.begin(),
                  events_.begin() + std::ptrdiff_t(std::min(count, events_.size())));
}

}  // namespace qt
