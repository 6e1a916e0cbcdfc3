// checkAsciiGrid on grids written here: every token GDAL would read wrongly (atof's "12abc" as 12,
// "x" as 0, an integer past 32 bits wrapped, a float past float's range made infinite) and every
// count of samples other than the header's is one line naming the row and column.
#include <gtest/gtest.h>

#include <string>

#include "core/io/ascii_grid.h"
#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

const char* const kHeader = "ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n";

Status check(const std::string& text, bool integers, int width = 3, int height = 2) {
    TempDir dir;
    test::writeBytes(dir.path("m.asc"), std::vector<uint8_t>(text.begin(), text.end()));
    return checkAsciiGrid(dir.path("m.asc"), width, height, integers);
}

TEST(AsciiGrid, GoodGridsPass) {
    EXPECT_TRUE(check(std::string(kHeader) + "1 2 3\n4 5 6\n", true).ok());
    EXPECT_TRUE(check(std::string(kHeader) + "1 2 3 4 5 6", true).ok());  // lines do not matter
    EXPECT_TRUE(check(std::string(kHeader) + "-1 +2 3\r\n4 5 2147483647\r\n", true).ok());
    EXPECT_TRUE(check(std::string(kHeader) + "1.5 2,5 3e2\n-4E-1 nan -inf\n", false).ok());
    EXPECT_TRUE(check(std::string(kHeader) + "NODATA_value -9999\n1 2 3\n4 5 -9999\n", true).ok());
    // A nodata value beyond a float's range marks voids, not heights.
    EXPECT_TRUE(
        check(std::string(kHeader) + "nodata_value 1e300\n1.5 2 3\n4 5 1e300\n", false).ok());
    // D12's grids start their samples with "null".
    EXPECT_TRUE(check(std::string(kHeader) + "null 2 3\n4 5 6\n", false).ok());
}

TEST(AsciiGrid, TokensGdalWouldMisread) {
    const std::string h = kHeader;
    EXPECT_EQ(check(h + "1 2 3\n4 12abc 6\n", false).error(),
              "ESRI ASCII grid: row 2, column 2 holds '12abc', not a number");
    EXPECT_EQ(check(h + "1 x 3\n4 5 6\n", true).error(),
              "ESRI ASCII grid: row 1, column 2 holds 'x', not a number");
    EXPECT_EQ(check(h + "1 2 3\n4 5 1..5\n", false).error(),
              "ESRI ASCII grid: row 2, column 3 holds '1..5', not a number");
    EXPECT_EQ(check(h + "1 2 3e\n4 5 6\n", false).error(),
              "ESRI ASCII grid: row 1, column 3 holds '3e', not a number");
    EXPECT_EQ(check(h + "1 2 3\n4 5 99999999999\n", true).error(),
              "ESRI ASCII grid: row 2, column 3 holds '99999999999', beyond 32-bit integers "
              "(GDAL reads this grid as integers)");
    EXPECT_EQ(check(h + "1 2 3\n-2147483649 5 6\n", true).error(),
              "ESRI ASCII grid: row 2, column 1 holds '-2147483649', beyond 32-bit integers "
              "(GDAL reads this grid as integers)");
    EXPECT_TRUE(check(h + "1 2 3\n-2147483648 5 6\n", true).ok());
    EXPECT_EQ(check(h + "1 2 3\n4 5 nan\n", true).error(),
              "ESRI ASCII grid: row 2, column 3 holds 'nan', not a whole number as GDAL reads "
              "this grid (it would read 0)");
    EXPECT_EQ(check(h + "1 2 3\n4 5 1e39\n", false).error(),
              "ESRI ASCII grid: row 2, column 3 holds '1e39', beyond a float's range");
    EXPECT_EQ(check(h + "1 2 3\n4 5 -" + std::string(40, '9') + "\n", false).error(),
              "ESRI ASCII grid: row 2, column 3 holds '-" + std::string(36, '9') +
                  "...', beyond a float's range");
    EXPECT_EQ(
        check(h + "1 2 3\n4 5 " + std::string(500, '1') + "\n", false).error(),
        "ESRI ASCII grid: row 2, column 3 holds '" + std::string(37, '1') + "...', not a number");
}

TEST(AsciiGrid, SampleCounts) {
    const std::string h = kHeader;
    EXPECT_EQ(check(h + "1 2 3\n4 5\n", true).error(),
              "ESRI ASCII grid: truncated: the text holds 5 of the 3x2 samples");
    EXPECT_EQ(check(h + "1 2 3\n4 5 6 7\n", true).error(),
              "ESRI ASCII grid: the text holds more than the 3x2 samples its header gives");
    EXPECT_EQ(asciiGridLeastBytes(3, 2), 11u);
    EXPECT_EQ(asciiGridLeastBytes(30000, 30000), 1799999999u);
}

TEST(AsciiGrid, Header) {
    EXPECT_EQ(check("ncols 3\nnrows 2\nxllcorner 0abc\nyllcorner 0\ncellsize 1\n1 2 3 4 5 6", true)
                  .error(),
              "ESRI ASCII grid: header line 'xllcorner 0abc' does not end in a number");
    EXPECT_EQ(check("ncols 3.5\nnrows 2\n1 2 3 4 5 6", true).error(),
              "ESRI ASCII grid: header line 'ncols 3.5' does not end in a whole number");
    EXPECT_EQ(check(std::string(kHeader) + "rows 2\n1 2 3 4 5 6", true).error(),
              "ESRI ASCII grid: header line 'rows 2' is not a name GDAL reads (ncols, nrows, "
              "xllcorner, yllcorner, xllcenter, yllcenter, cellsize, dx, dy, NODATA_value) and "
              "its value");
    EXPECT_EQ(check(std::string(kHeader), true).error(),
              "ESRI ASCII grid: truncated: the text holds 0 of the 3x2 samples");
    TempDir dir;
    EXPECT_EQ(checkAsciiGrid(dir.path("gone.asc"), 3, 2, true).error(),
              "ESRI ASCII grid: cannot open the text");
}

}  // namespace
}  // namespace qt
