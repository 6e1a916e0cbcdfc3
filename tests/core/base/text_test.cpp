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

}  // namespace
}  // namespace qt
