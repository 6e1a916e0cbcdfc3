// Text for one-line messages: control bytes escaped, everything else kept.
#include "core/base/text.h"

#include <gtest/gtest.h>

namespace qt {
namespace {

TEST(Text, ControlBytesAreEscapedAndTheRestKept) {
    EXPECT_EQ(escapedPath("plain/path.png"), "plain/path.png");
    EXPECT_EQ(escapedPath("new\nline\r.png"), "new\\x0aline\\x0d.png");
    EXPECT_EQ(escapedPath(std::string("nul\0tab\t\x7f", 9)), "nul\\x00tab\\x09\\x7f");
    EXPECT_EQ(escapedPath("S\xc3\xa4ntis H\xc3\xb6he.png"), "S\xc3\xa4ntis H\xc3\xb6he.png");
    EXPECT_EQ(escapedText(""), "");
}

// A compile log after a shader's name becomes one line: a space after the name's colon, "; "
// between the log's lines, blank lines and the lines' end spaces gone.
TEST(Text, LinesJoinIntoOne) {
    EXPECT_EQ(joinedLines("shaders/terrain.frag: compile failed:\n0:405(1): error: syntax error\n"
                          "  \n0:406(2): error: another \r\n"),
              "shaders/terrain.frag: compile failed: 0:405(1): error: syntax error; 0:406(2): "
              "error: another");
    EXPECT_EQ(joinedLines("one line"), "one line");
    EXPECT_EQ(joinedLines("\n\n"), "");
    EXPECT_EQ(joinedLines(""), "");
}

}  // namespace
}  // namespace qt
