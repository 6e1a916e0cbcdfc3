// The memory budget: a map whose estimated loaded size is over it is refused from its header or
// file length alone, at once, before its pixels are read.
#include "core/io/memory_budget.h"

#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/io/load.h"
#include "core/terrain/heightmap.h"
#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

constexpr uint64_t kMiB = uint64_t(1) << 20;

// A file of `length` bytes that starts with `head` and is a hole after it (no disk, no reads).
void writeSparse(const std::string& path, const std::vector<uint8_t>& head, uint64_t length) {
    test::writeBytes(path, head);
    ASSERT_EQ(truncate(path.c_str(), off_t(length)), 0) << path;
}

// Loads `path` under `budget`, returning the error and the seconds it took.
std::string refusal(const std::string& path, uint64_t budget, double& seconds) {
    LoadOptions options;
    options.memory.limitBytes = budget;
    const auto start = std::chrono::steady_clock::now();
    const Result<Heightmap> map = loadHeightmap(path, options);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return map.ok() ? std::string() : map.error();
}

TEST(MemoryBudget, EstimateScalesWithTheSampleCount) {
    EXPECT_EQ(loadPeakBytes(8193, 8193, kLoadBytesPerSample),
              uint64_t(8193) * 8193 * kLoadBytesPerSample);
    EXPECT_EQ(loadPeakBytes(16385, 4097, 16), uint64_t(16385) * 4097 * 16);
    EXPECT_TRUE(checkMemoryBudget(1025, 1025, 12, {1025 * 1025 * 12, 0}));  // exactly at the budget
    EXPECT_TRUE(checkMemoryBudget(16385, 16385, 12, {}));                   // no budget
    const Status over = checkMemoryBudget(8193, 8193, 12, {512 * kMiB, 0});
    ASSERT_FALSE(over);
    EXPECT_EQ(over.error(),
              "size 8193x8193 needs about 769 MiB loaded (12 bytes a sample), over the memory "
              "budget of 512 MiB (raise it with --memory-budget MB)");
    // What the current map holds comes out of the budget while the next one loads.
    EXPECT_TRUE(checkMemoryBudget(1025, 1025, 12, {1025 * 1025 * 24, 1025 * 1025 * 12}));
    const Status held = checkMemoryBudget(1025, 1025, 12, {1025 * 1025 * 24, 1025 * 1025 * 13});
    ASSERT_FALSE(held);
    EXPECT_EQ(held.error(),
              "size 1025x1025 needs about 13 MiB loaded (12 bytes a sample), over the memory "
              "budget of 24 MiB with 14 MiB held by the current map (raise it with "
              "--memory-budget MB)");
    EXPECT_FALSE(checkMemoryBudget(2, 2, 12, {kMiB, 2 * kMiB}));  // more held than the budget
}

TEST(MemoryBudget, HeaderOnlyMapsOverTheBudgetAreRefusedAtOnce) {
    TempDir dir;
    // A headerless .r16 of 16385 x 16385 samples (512 MiB, all hole) and a PNG whose header
    // claims 16385 x 16385 followed by a hole of 200 MB: both cost nothing to refuse.
    const std::string raw = dir.path("big.r16");
    writeSparse(raw, {}, uint64_t(16385) * 16385 * 2);
    std::vector<uint8_t> png = test::pngWithHeader(16385, 16385, 16, 0, {0, 0, 0});
    png.resize(png.size() - 12);  // IEND off: the hole is inside the image data
    const std::string image = dir.path("big.png");
    writeSparse(image, png, 200000000);
    for (const std::string& path : {raw, image}) {
        double seconds = 0.0;
        const std::string error = refusal(path, 1024 * kMiB, seconds);
        EXPECT_NE(error.find("size 16385x16385 needs about 3073 MiB loaded (12 bytes a sample), "
                             "over the memory budget of 1024 MiB (raise it with --memory-budget "
                             "MB)"),
                  std::string::npos)
            << path << ": " << error;
        EXPECT_EQ(error.rfind(path, 0), 0u) << error;  // the line starts with the path
        // Reading 512 MiB (or decoding 200 MB) would take seconds; the refusal reads a header.
        EXPECT_LT(seconds, 0.1) << path;
    }
}

TEST(MemoryBudget, MapsWithinTheBudgetLoad) {
    TempDir dir;
    const std::string path = dir.path("small.png");
    test::writeBytes(path, test::png16(64, 48, std::vector<uint16_t>(64 * 48, 9)));
    LoadOptions options;
    options.memory.limitBytes = loadPeakBytes(64, 48, kLoadBytesPerSample);
    ASSERT_TRUE(loadHeightmap(path, options).ok());
    options.memory.limitBytes -= 1;
    const Result<Heightmap> over = loadHeightmap(path, options);
    ASSERT_FALSE(over.ok());
    EXPECT_NE(over.error().find("size 64x48 needs about"), std::string::npos) << over.error();
}

}  // namespace
}  // namespace qt
