// The HUD's keyboard queue: a quick tap of a key that types nothing is split over two frames so
// Dear ImGui sees the key down; typed text goes in one frame; a full queue drops new events and
// never allocates.
#include "app/input_queue.h"

#include <gtest/gtest.h>

namespace qt {
namespace {

constexpr int kEnter = 257;  // GLFW_KEY_ENTER
constexpr int kA = 65;

InputEvent key(int k, int action) {
    InputEvent e;
    e.key = k;
    e.action = action;
    return e;
}

InputEvent character(unsigned c) {
    InputEvent e;
    e.kind = InputEvent::Kind::Char;
    e.codepoint = c;
    return e;
}

TEST(InputQueue, KeysTypedAfterAClickWaitForTheNextBatch) {
    // A key before the click, the click, then "ab" typed: the click ends the batch, so the HUD
    // has seen the click (and a text field it activated) before the letters are handed over.
    InputQueue q;
    q.push(key(kA, 1));
    q.push(character('a'));
    InputEvent click;
    click.kind = InputEvent::Kind::Focus;
    q.push(click);
    q.push(key(kA, 0));
    q.push(key(kA, 1));
    q.push(character('a'));
    q.push(key(kA + 1, 1));
    q.push(character('b'));
    EXPECT_EQ(q.frameBatch(), 3u);  // A down, 'a', the click
    q.pop(3);
    EXPECT_EQ(q.frameBatch(), 5u);  // the rest: typed text, one frame
    q.pop(5);
    EXPECT_EQ(q.frameBatch(), 0u);
}

TEST(InputQueue, ATapWithinOneFrameIsSplitOverTwo) {
    InputQueue q;
    q.push(key(kEnter, 1));
    q.push(key(kEnter, 0));
    q.push(key(kEnter, 1));
    q.push(key(kEnter, 0));
    EXPECT_EQ(q.frameBatch(), 1u);  // Enter down
    q.pop(1);
    EXPECT_EQ(q.frameBatch(), 2u);  // Enter up, down again
    q.pop(2);
    EXPECT_EQ(q.frameBatch(), 1u);  // Enter up
    q.pop(1);
    EXPECT_EQ(q.frameBatch(), 0u);
}

TEST(InputQueue, TypedTextGoesInOneFrameAndTheEnterAfterItInTwo) {
    InputQueue q;
    for (const unsigned c : {'a', 'b'}) {
        q.push(key(int(c) - 'a' + kA, 1));
        q.push(character(c));
        q.push(key(int(c) - 'a' + kA, 0));
    }
    q.push(key(kEnter, 1));
    q.push(key(kEnter, 0));
    EXPECT_EQ(q.frameBatch(), 7u);  // both letters and Enter down
    EXPECT_EQ(q[6].key, kEnter);
    q.pop(7);
    EXPECT_EQ(q.frameBatch(), 1u);  // Enter up
}

TEST(InputQueue, AShortcutWithoutACharacterGetsItsOwnFrame) {
    constexpr int kControl = 341;  // GLFW_KEY_LEFT_CONTROL
    InputQueue q;
    q.push(key(kControl, 1));
    q.push(key(kA, 1));  // Ctrl+A types nothing
    q.push(key(kA, 0));
    q.push(key(kControl, 0));
    EXPECT_EQ(q.frameBatch(), 2u);
    q.pop(2);
    EXPECT_EQ(q.frameBatch(), 2u);
}

TEST(InputQueue, KeysHeldAcrossFramesGoInOneBatch) {
    InputQueue q;
    q.push(key(kA, 0));  // released: pressed in an earlier frame
    q.push(key(kEnter, 1));
    q.push(key(kEnter, 2));  // repeats
    q.push(key(kEnter, 2));
    q.push(character('x'));
    EXPECT_EQ(q.frameBatch(), 5u);
}

TEST(InputQueue, AFullQueueDropsNewEventsWithoutAllocating) {
    InputQueue q;
    const size_t capacity = kMaxQueuedInput;
    for (size_t i = 0; i < capacity; ++i) {
        ASSERT_TRUE(q.push(character('a')));
    }
    EXPECT_FALSE(q.push(key(kA, 1)));
    EXPECT_EQ(q.size(), capacity);
    EXPECT_EQ(q.frameBatch(), capacity);
    q.pop(capacity + 5);
    EXPECT_EQ(q.size(), 0u);
}

}  // namespace
}  // namespace qt
