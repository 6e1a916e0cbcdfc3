// Keyboard events queued from GLFW's callbacks and handed to the HUD and the camera a frame's
// batch at a time: Dear ImGui 1.86 reads a key's state once a frame, so a press and release seen
// in one frame (a quick tap at a low frame rate) would be lost; they are split over two frames.
// No GLFW, so unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qt {

struct InputEvent {
    // Focus: a mouse button went down (Dear ImGui took it at once, and may give a text field the
    // keyboard in the frame it handles it), or a key asked the HUD to focus its path box.
    enum class Kind : uint8_t { Key, Char, Focus };
    Kind kind = Kind::Key;
    int key = 0;  // GLFW key code (Key)
    int scancode = 0;
    int action = 0;  // GLFW_RELEASE 0, GLFW_PRESS 1, GLFW_REPEAT 2
    int mods = 0;
    unsigned codepoint = 0;  // Char
    double time = 0.0;       // seconds on the clock the camera steps by, when the callback ran
};

// Most events held; more in one frame are dropped (a held key repeats at about 30 a second).
constexpr size_t kMaxQueuedInput = 1024;

class InputQueue {
public:
    InputQueue() { events_.reserve(kMaxQueuedInput); }
    // False when the queue is full and the event was dropped.
    bool push(const InputEvent& e);
    // How many of the oldest events make this frame's batch: all of them, up to the first release
    // of a key pressed earlier in the batch that typed no character (Enter, Backspace, Ctrl+A:
    // that release starts the next frame's batch), or up to and including the first Focus event
    // (what follows it waits until the HUD has settled who has the keyboard). Typed text goes in
    // one frame.
    size_t frameBatch() const;
    const InputEvent& operator[](size_t i) const { return events_[i]; }
    // Drops the oldest `count` events (the batch handed over); no allocation.
    void pop(size_t count);
    size_t size() const { return events_.size(); }

private:
    std::vector<InputEvent> events_;  // oldest first; capacity kMaxQueuedInput, reserved once
};

}  // namespace qt
