#include <gtest/gtest.h>
#include "core/cull.h"
TEST(Smoke, Builds) { SUCCEED(); }
