// The streamed open of a .r16: mapped codes, the banded tree against the fully loaded one, the
// sidecar's reuse and rejection, and the mapping's bounded resident pages.
#include "core/streaming/streamed_map.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "core/lod/lod_error.h"
#include "core/objects/scene.h"
#include "core/streaming/cache_folder.h"
#include "core/streaming/coarse_error_job.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/layout.h"
#include "core/streaming/mapped_codes.h"
#include "core/streaming/own_files.h"
#include "core/streaming/tree_sidecar.h"
#include "core/terrain/synthetic.h"
#include "streamed_checks.h"
#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

// Writes a synthetic terrain's codes as a .r16 (little-endian) and returns them.
std::vector<uint16_t> writeR16(const std::string& path, int width, int height, uint32_t seed) {
    const Heightmap map = syntheticHeightmap(width, height, seed);
    std::vector<uint16_t> codes(map.codes.begin(), map.codes.end());
    std::vector<uint8_t> bytes(codes.size() * 2);
    for (size_t i = 0; i < codes.size(); ++i) {
        bytes[2 * i] = uint8_t(codes[i] & 0xFF);
        bytes[2 * i + 1] = uint8_t(codes[i] >> 8);
    }
    test::writeBytes(path, bytes);
    return codes;
}

LoadOptions sized(int width, int height) {
    LoadOptions options;
    options.rawWidth = width;
    options.rawHeight = height;
    return options;
}

// Band cap holding rows of nodes of level `level` (and not level + 1) of a map `width` wide.
uint64_t capForLevel(int width, int leafSize, int level) {
    return (uint64_t(leafSize << level) + 1) * uint64_t(width) * 2;
}

// The streamed tree against buildQuadtree of the fully loaded file, node by node; its coarse
// errors equal the exact ones on its exact levels and bound them above.
void expectSameTree(const std::string& path, const LoadOptions& options, int leafSize,
                    uint64_t bandBytes, int expectExactLevels) {
    SCOPED_TRACE(path + " band " + std::to_string(bandBytes));
    const Result<Heightmap> loaded = loadHeightmap(path, options);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    const Heightmap& full = loaded.value();
    const Result<Quadtree> built = buildQuadtreeExact(full, leafSize);
    ASSERT_TRUE(built.ok());
    const Quadtree& want = built.value();

    StreamOptions stream;
    stream.bandBytes = bandBytes;
    stream.useSidecar = false;
    const Result<StreamedMap> opened = openStreamedRaw16(path, options, leafSize, stream);
    ASSERT_TRUE(opened.ok()) << opened.error();
    const StreamedMap& s = opened.value();
    EXPECT_TRUE(s.map.codes.isMapped());
    EXPECT_EQ(s.map.format, HeightmapFormat::Raw16);
    EXPECT_EQ(s.leafSize, leafSize);
    EXPECT_EQ(s.map.minCode, full.minCode);
    EXPECT_EQ(s.map.maxCode, full.maxCode);
    EXPECT_EQ(s.map.minSample, full.minSample);
    EXPECT_EQ(s.map.maxSample, full.maxSample);
    EXPECT_TRUE(s.map.codes == full.codes);
    const Quadtree& got = s.tree;
    ASSERT_EQ(got.nodes.size(), want.nodes.size());
    for (size_t i = 0; i < want.nodes.size(); ++i) {
        const QuadtreeNode& a = got.nodes[i];
        const QuadtreeNode& b = want.nodes[i];
        ASSERT_TRUE(a.x0 == b.x0 && a.z0 == b.z0 && a.x1() == b.x1() && a.z1() == b.z1()) << i;
        ASSERT_EQ(a.minCode, b.minCode) << i;
        ASSERT_EQ(a.maxCode, b.maxCode) << i;
        ASSERT_EQ(a.links, b.links) << i;
    }
    EXPECT_EQ(got.levelNodes, want.levelNodes);
    EXPECT_EQ(got.leafGrid, want.leafGrid);
    EXPECT_EQ(got.levelStart, want.levelStart);
    ASSERT_EQ(got.leafCodes.size(), want.leafCodes.size());
    for (size_t i = 0; i < want.leafCodes.size(); ++i) {
        ASSERT_EQ(got.leafCodes[i].minCode, want.leafCodes[i].minCode);
        ASSERT_EQ(got.leafCodes[i].maxCode, want.leafCodes[i].maxCode);
    }
    EXPECT_EQ(got.exactLevels, expectExactLevels);
    EXPECT_EQ(got.lodErrors, expectExactLevels == 0           ? LodErrors::Range
                             : expectExactLevels == got.depth ? LodErrors::Exact
                                                              : LodErrors::Mixed);
    int coarser = 0;
    ASSERT_NO_FATAL_FAILURE(test::expectExactBelowRangeAbove(got, want, &coarser));
    if (expectExactLevels < got.depth) {
        EXPECT_GT(coarser, 0);  // the range bound is looser on rough terrain
    }
}

TEST(StreamedMap, TreeEqualsFullyLoadedInBands) {
    TempDir dir;
    const std::string path = dir.path("m.r16");
    writeR16(path, 257, 257, 3);
    // 257 in leaves of 4: 64 leaf rows, depth 6. Bands of level-2 rows (16 bands), exact 1..2.
    expectSameTree(path, {}, 4, capForLevel(257, 4, 2), 2);
    expectSameTree(path, {}, 4, capForLevel(257, 4, 0), 0);  // bands of one leaf row
    expectSameTree(path, {}, 4, 1, 0);                       // smaller than a leaf row
    expectSameTree(path, {}, 8, capForLevel(257, 8, 3), 3);
    expectSameTree(path, {}, 4, uint64_t(1) << 30, 6);  // the whole map: all exact
}

TEST(StreamedMap, TreeEqualsFullyLoadedNonSquare) {
    TempDir dir;
    const std::string path = dir.path("m.r16");
    // Partial border leaves and nodes both ways; 300 - 1 is no multiple of 4, 173 - 1 neither.
    writeR16(path, 300, 173, 5);
    expectSameTree(path, sized(300, 173), 4, capForLevel(300, 4, 1), 1);
    expectSameTree(path, sized(300, 173), 4, capForLevel(300, 4, 3), 3);
    writeR16(path, 130, 411, 6);
    expectSameTree(path, sized(130, 411), 2, capForLevel(130, 2, 2), 2);
}

TEST(StreamedMap, BadInputIsOneLine) {
    TempDir dir;
    const std::string path = dir.path("m.r16");
    test::writeBytes(path, std::vector<uint8_t>(2 * 7 * 3 + 1, 1));
    Result<StreamedMap> odd = openStreamedRaw16(path, {}, 4);
    ASSERT_FALSE(odd.ok());
    EXPECT_EQ(odd.error().rfind(path + ": file is 43 bytes", 0), 0u) << odd.error();
    test::writeBytes(path, std::vector<uint8_t>(2 * 7 * 3, 1));
    Result<StreamedMap> notSquare = openStreamedRaw16(path, {}, 4);
    ASSERT_FALSE(notSquare.ok());
    EXPECT_NE(notSquare.error().find("--size"), std::string::npos);
    EXPECT_TRUE(openStreamedRaw16(path, sized(7, 3), 2).ok());
    Result<StreamedMap> wrong = openStreamedRaw16(path, sized(5, 3), 2);
    ASSERT_FALSE(wrong.ok());
    Result<StreamedMap> missing = openStreamedRaw16(dir.path("none.r16"), {}, 4);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("No such file"), std::string::npos) << missing.error();
    for (const Result<StreamedMap>* r : {&odd, &notSquare, &wrong, &missing}) {
        EXPECT_EQ(r->error().find('\n'), std::string::npos);
    }
}

// A layout that goes by tiles never holds its level 0: it opens up to kMaxSide a side, 65537²
// (4,295,098,369 samples, over 2^32). Any map read whole into a code cache keeps the viewer's
// limit, and a layout's line says how a larger one opens.
TEST(StreamedMap, ALayoutByTilesOpensUpToTheLongestSideSquared) {
    LayoutManifest layout;
    layout.width = kMaxSide;
    layout.height = kMaxSide;
    layout.leafSize = 16;
    StreamOptions stream;
    stream.layout = &layout;
    stream.layoutByTiles = true;
    EXPECT_TRUE(opensByTiles(stream, 16));
    EXPECT_TRUE(checkStreamedSize(kMaxSide, kMaxSide, stream, 16).ok());
    EXPECT_GT(int64_t{kMaxSide} * kMaxSide, int64_t{1} << 32);
    const Status wider = checkStreamedSize(kMaxSide + 1, kMaxSide, stream, 16);
    ASSERT_FALSE(wider.ok());
    EXPECT_NE(wider.error().find("over the limit (65537 samples a side"), std::string::npos)
        << wider.error();

    // Read whole: objects asked for, another leaf size (which the line names), holes.
    const auto refused = [&](const StreamOptions& s, int leafSize) {
        EXPECT_FALSE(opensByTiles(s, leafSize));
        const Status fits = checkStreamedSize(kMaxSide, kMaxSide, s, leafSize);
        ASSERT_FALSE(fits.ok());
        EXPECT_NE(fits.error().find("1073807361 samples in all); a layout of more opens by "
                                    "tiles alone: without --objects, with no nodata, in its "
                                    "leaves of 16"),
                  std::string::npos)
            << fits.error();
        EXPECT_EQ(fits.error().find("leaves of 8 planned here, from --leaf-size or the memory "
                                    "budget") != std::string::npos,
                  leafSize == 8)
            << fits.error();
        EXPECT_EQ(fits.error().find('\n'), std::string::npos);
        // The viewer's own limit still opens either way.
        EXPECT_TRUE(checkStreamedSize(32769, 32769, s, leafSize).ok());
    };
    StreamOptions whole = stream;
    whole.layoutByTiles = false;
    refused(whole, 16);
    refused(stream, 8);
    LayoutManifest holes = layout;
    holes.nodataSamples = 1;
    StreamOptions withHoles = stream;
    withHoles.layout = &holes;
    refused(withHoles, 16);

    // The bake's leaves are kept while the map's whole peak fits the budget, though its tree in
    // them is over the share a tree made at open gets (which gives coarser leaves, read whole).
    const uint64_t peak16 = streamedPeakBytes(kMaxSide, kMaxSide, 16);
    MemoryBudget budget;
    budget.limitBytes = peak16 + (uint64_t(64) << 20);
    budget.heldBytes = uint64_t(32) << 20;
    ASSERT_GT(quadtreeBytes(kMaxSide, kMaxSide, 16), uint64_t(double(budget.limitBytes) * 0.125));
    const int atOpen = streamedLeafSize(kMaxSide, kMaxSide, 4,
                                        uint64_t(double(budget.limitBytes - budget.heldBytes) *
                                                 kStreamedTreeShare))
                           .value();
    EXPECT_GT(atOpen, 16);
    EXPECT_EQ(planStreamedMap(kMaxSide, kMaxSide, 4, budget).value(), atOpen);
    EXPECT_EQ(planLayoutByTiles(kMaxSide, kMaxSide, 4, 16, budget).value(), 16);
    EXPECT_EQ(planLayoutByTiles(kMaxSide, kMaxSide, 4, 16, MemoryBudget{}).value(), 16);
    // Coarser leaves asked for, or a peak over the budget: planned as any streamed map.
    EXPECT_EQ(planLayoutByTiles(kMaxSide, kMaxSide, 32, 16, budget).value(),
              planStreamedMap(kMaxSide, kMaxSide, 32, budget).value());
    EXPECT_GE(planLayoutByTiles(kMaxSide, kMaxSide, 32, 16, budget).value(), 32);
    MemoryBudget tight = budget;
    tight.heldBytes = uint64_t(128) << 20;
    EXPECT_EQ(planLayoutByTiles(kMaxSide, kMaxSide, 4, 16, tight).value(),
              planStreamedMap(kMaxSide, kMaxSide, 4, tight).value());
    EXPECT_NE(planLayoutByTiles(kMaxSide, kMaxSide, 4, 16, tight).value(), 16);

    // A raster that is not a layout: the viewer's limit, with no word of tiles.
    const Status raster = checkStreamedSize(kMaxSide, kMaxSide, StreamOptions{}, 16);
    ASSERT_FALSE(raster.ok());
    EXPECT_EQ(raster.error().find("tiles"), std::string::npos) << raster.error();
}

TEST(MappedCodes, EqualLoadedCodesAndSurviveDroppedPages) {
    TempDir dir;
    const std::string path = dir.path("m.r16");
    const std::vector<uint16_t> codes = writeR16(path, 513, 513, 7);
    Result<MappedCodes> mapped = mapCodes(path, codes.size() * 2);
    ASSERT_TRUE(mapped.ok()) << mapped.error();
    Heightmap map;
    map.width = map.height = 513;
    map.codes = std::move(mapped.value().codes);
    ASSERT_TRUE(map.codes.isMapped());
    ASSERT_EQ(map.codes.size(), codes.size());
    EXPECT_TRUE(std::equal(codes.begin(), codes.end(), map.codes.begin()));
    map.codes.dropResident(0, map.codes.size());
    map.codes.dropResident(1000, 5000);  // unaligned: only the whole pages inside
    EXPECT_TRUE(std::equal(codes.begin(), codes.end(), map.codes.begin()));
    // A copy shares the mapping and keeps it after the original goes.
    Heightmap copy = map;
    map = Heightmap{};
    EXPECT_TRUE(copy.codes.isMapped());
    EXPECT_EQ(copy.codeAt(512, 512), codes.back());
    EXPECT_TRUE(std::equal(codes.begin(), codes.end(), copy.codes.begin()));
    // Owned codes: dropResident does nothing.
    CodeArray owned;
    owned.resize(10, 3);
    owned.dropResident(0, 10);
    EXPECT_EQ(owned[9], 3);
    EXPECT_FALSE(owned.isMapped());
    EXPECT_FALSE(mapCodes(path, codes.size() * 2 + 2).ok());  // length changed
}

// The map truncated by another process while it is mapped, in a process that opted in to
// guardMappedReads (as the viewer does): the next read of a lost page is one line and exit status
// 1, not a death by SIGBUS.
TEST(MappedCodesDeathTest, ATruncatedMapIsOneLineAndExitStatusOne) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    TempDir dir;
    const std::string path = dir.path("m.r16");
    const std::vector<uint16_t> codes = writeR16(path, 513, 513, 7);
    EXPECT_EXIT(
        {
            guardMappedReads();
            Result<MappedCodes> mapped = mapCodes(path, codes.size() * 2);
            if (!mapped.ok() || ::truncate(path.c_str(), 4096) != 0) {
                _exit(3);
            }
            uint32_t sum = 0;
            for (size_t i = 0; i < codes.size(); i += 1024) {
                sum += mapped.value().codes[i];
            }
            _exit(sum == 0 ? 4 : 0);
        },
        ::testing::ExitedWithCode(1), "^quadterrain: a mapped file .* became shorter while in use");
}

// The library installs no process-wide handler behind its caller's back: mapping a map leaves
// SIGBUS's handler as it was (the default, or a sanitizer's own).
TEST(MappedCodesDeathTest, MappingInstallsNoSignalHandler) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    TempDir dir;
    const std::string path = dir.path("m.r16");
    const std::vector<uint16_t> codes = writeR16(path, 65, 65, 7);
    EXPECT_EXIT(
        {
            struct sigaction before {};
            struct sigaction after {};
            if (::sigaction(SIGBUS, nullptr, &before) != 0) {
                _exit(3);
            }
            Result<MappedCodes> mapped = mapCodes(path, codes.size() * 2);
            if (!mapped.ok() || ::sigaction(SIGBUS, nullptr, &after) != 0) {
                _exit(3);
            }
            _exit(after.sa_handler == before.sa_handler ? 0 : 4);
        },
        ::testing::ExitedWithCode(0), "");
}

// A writer killed before it renamed its file leaves path.tmpPID behind, as big as the map for a
// code cache: the next writer of the same path removes those of its own kind (they start with its
// magic) whose process is gone, and nothing else.
TEST(MappedCodes, WritersRemoveTemporariesOfDeadProcessesOnly) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        _exit(0);
    }
    ASSERT_EQ(waitpid(child, nullptr, 0), child);  // its id now names no process
    TempDir dir;
    const std::string cache = dir.path("m.tif.qtcodes");
    const std::string sidecar = cache + ".qtree";
    const std::string dead = cache + ".tmp" + std::to_string(child);
    const std::string deadSidecar = sidecar + ".tmp" + std::to_string(child);
    const auto withMagic = [](const FileMagic& magic) {
        std::vector<uint8_t> bytes;
        for (const char c : magic.bytes) {
            bytes.push_back(uint8_t(c));
        }
        bytes.push_back(7);
        return bytes;
    };
    const std::vector<uint8_t> ownCache = withMagic(kCodeCacheMagic);
    const std::vector<uint8_t> ownSidecar = withMagic(kTreeSidecarMagic);
    const std::vector<std::string> kept = {
        cache + ".tmp" + std::to_string(getppid()),  // its writer still runs
        cache + ".tmpx1", dead + ".bak", dir.path("other.tmp") + std::to_string(child)};
    for (const std::string& file : kept) {
        test::writeBytes(file, ownCache);
    }
    test::writeBytes(dead, ownCache);
    test::writeBytes(deadSidecar, ownSidecar);
    EXPECT_EQ(temporaryPathFor(cache), cache + ".tmp" + std::to_string(getpid()));
    {
        Result<CodeCacheWriter> writer = CodeCacheWriter::create(cache, 3, 3);
        ASSERT_TRUE(writer.ok()) << writer.error();
        EXPECT_EQ(::access(dead.c_str(), F_OK), -1);
        EXPECT_EQ(::access(deadSidecar.c_str(), F_OK), 0);              // another path's
        EXPECT_EQ(::access(temporaryPathFor(cache).c_str(), F_OK), 0);  // its own
    }
    // The tree sidecar's writer does the same for its path.
    const Status written = writeTreeSidecar(sidecar, TreeSidecar{});
    ASSERT_TRUE(written.ok()) << written.error();
    EXPECT_EQ(::access(deadSidecar.c_str(), F_OK), -1);
    EXPECT_EQ(::access(sidecar.c_str(), F_OK), 0);
    test::writeBytes(deadSidecar, ownSidecar);
    EXPECT_EQ(removeAbandonedTemporaries(sidecar, kTreeSidecarMagic), 1);
    EXPECT_EQ(removeAbandonedTemporaries(sidecar, kTreeSidecarMagic), 0);
    for (const std::string& file : kept) {
        EXPECT_EQ(::access(file.c_str(), F_OK), 0) << file;
    }
}

TEST(StreamedMap, QuadtreeBytesMatchesTheTree) {
    for (const auto& [w, h, leaf] : std::vector<std::tuple<int, int, int>>{
             {257, 257, 4}, {300, 173, 4}, {1025, 1025, 16}, {130, 411, 2}, {65, 65, 64}}) {
        const Result<Quadtree> built = buildQuadtreeStructure(w, h, leaf);
        ASSERT_TRUE(built.ok());
        const Quadtree& t = built.value();
        const uint64_t bytes = t.nodes.size() * sizeof(QuadtreeNode) + t.levelNodes.size() * 4 +
                               t.leaves.size() * sizeof(LeafCoord) + t.leafNodes.size() * 4 +
                               t.leafCodes.size() * sizeof(LeafCodes) + t.leafGrid.size() * 4 +
                               t.levelStart.size() * 4 + t.levelWidth.size() * 4 +
                               t.coarseErrors.size() * 2 + t.foldErrors.size() * 2;
        EXPECT_EQ(quadtreeBytes(w, h, leaf), bytes) << w << "x" << h << " leaf " << leaf;
        EXPECT_EQ(quadtreeNodeCount(w, h, leaf), t.nodes.size());
    }
    // A 32769-class map in a 2 GB budget's tree share: leaves of 16, about 180 MB.
    const uint64_t share = uint64_t(double(uint64_t(2) << 30) * kStreamedTreeShare);
    const Result<int> leaf = streamedLeafSize(32769, 32769, 4, share);
    ASSERT_TRUE(leaf.ok());
    EXPECT_EQ(leaf.value(), 16);
    EXPECT_LT(quadtreeBytes(32769, 32769, 16), uint64_t(200) << 20);
    EXPECT_EQ(streamedLeafSize(32769, 32769, 4, 0).value(), 4);     // no budget
    EXPECT_EQ(streamedLeafSize(32769, 32769, 2, 0).value(), 4);     // 2: over kMaxNodes
    EXPECT_EQ(streamedLeafSize(1025, 1025, 5, 0).value(), 8);       // rounded up
    EXPECT_FALSE(streamedLeafSize(32769, 32769, 4, 1 << 20).ok());  // nothing fits 1 MiB
    EXPECT_FALSE(streamedLeafSize(1025, 1025, 128, 0).ok());
}

// Rss of the mapping that holds `address`, from /proc/self/smaps (mincore would count the page
// cache, not this process's pages).
uint64_t mappingRss(const void* address) {
    FILE* smaps = std::fopen("/proc/self/smaps", "r");
    if (smaps == nullptr) {
        return UINT64_MAX;
    }
    const auto at = reinterpret_cast<uintptr_t>(address);
    char line[512];
    bool inside = false;
    uint64_t rss = UINT64_MAX;
    while (std::fgets(line, sizeof line, smaps) != nullptr) {
        unsigned long lo = 0, hi = 0;
        unsigned long long kb = 0;
        if (std::sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {  // a mapping's first line
            inside = at >= lo && at < hi;
        } else if (inside && std::sscanf(line, "Rss: %llu kB", &kb) == 1) {
            rss = kb * 1024;
            break;
        }
    }
    std::fclose(smaps);
    return rss;
}

TEST(StreamedMap, PrepassKeepsTheMappingsResidentPagesBounded) {
    TempDir dir;
    const std::string path = dir.path("m.r16");
    const int side = 2049;  // 8 MiB of samples
    writeR16(path, side, side, 9);
    StreamOptions stream;
    stream.useSidecar = false;
    stream.bandBytes = capForLevel(side, 4, 4);  // 65 rows: about 266 KB a band, 32 bands
    const Result<StreamedMap> opened = openStreamedRaw16(path, {}, 4, stream);
    ASSERT_TRUE(opened.ok()) << opened.error();
    const CodeArray& codes = opened.value().map.codes;
    const uint64_t slack = 64 * 1024;
    EXPECT_LE(mappingRss(codes.data()), stream.bandBytes + slack);
    // The measure sees the pages: reading everything makes the whole map resident, then
    // dropping it leaves none.
    uint64_t sum = 0;
    for (const uint16_t c : codes) {
        sum += c;
    }
    EXPECT_GT(sum, 0u);
    EXPECT_GE(mappingRss(codes.data()), codes.size() * 2 - 4096);
    codes.dropResident(0, codes.size());
    EXPECT_LE(mappingRss(codes.data()), slack);
}

// Objects scattered over a mapped map: the scatter hands the mapping's pages back as it goes
// (every few thousand objects, at random places all over the map) and at its end, and reads
// them back where it needs them again: the same scene as over the codes in memory, and no page of
// the map left resident.
TEST(StreamedMap, ObjectsScatteredOverMappedCodesEqualThoseOverLoadedCodes) {
    TempDir dir;
    const std::string path = dir.path("m.r16");
    writeR16(path, 513, 513, 11);
    StreamOptions stream;
    stream.useSidecar = false;
    const Result<StreamedMap> opened = openStreamedRaw16(path, {}, 4, stream);
    ASSERT_TRUE(opened.ok()) << opened.error();
    const Heightmap& mapped = opened.value().map;
    ASSERT_TRUE(mapped.codes.isMapped());
    Heightmap loaded = mapped;
    loaded.codes = CodeArray{};
    loaded.codes.resize(mapped.codes.size());
    std::copy(mapped.codes.begin(), mapped.codes.end(), loaded.codes.begin());
    const WorldMapping mapping = defaultMapping(loaded);
    const ObjectScene a = ObjectScene::scatter(mapped, mapping, 30000, 3000, 4).value();
    const ObjectScene b = ObjectScene::scatter(loaded, mapping, 30000, 3000, 4).value();
    ASSERT_EQ(a.count(), b.count());
    for (uint32_t id = 0; id < a.count(); ++id) {
        ASSERT_EQ(a.base(id), b.base(id)) << id;
        ASSERT_EQ(a.height(id), b.height(id)) << id;
    }
    EXPECT_LE(mappingRss(mapped.codes.data()), 64u * 1024u);
}

// Sidecar tests: a 257 x 257 map, leaves of 4.
struct SidecarFixture {
    TempDir dir;
    std::string path = dir.path("m.r16");
    std::string side = dir.path("m.r16.qtree");
    StreamOptions stream;
    LoadOptions options;  // the sidecar beside the map, the cache folder in dir/cache
    SidecarFixture() {
        writeR16(path, 257, 257, 11);
        stream.bandBytes = capForLevel(257, 4, 2);
        options.cacheDir = dir.path("cache");
        options.cacheBeside = true;
    }
    StreamedMap open() {
        Result<StreamedMap> r = openStreamedRaw16(path, options, 4, stream);
        EXPECT_TRUE(r.ok()) << r.error();
        return std::move(r.value());
    }
};

void expectSameBounds(const Quadtree& a, const Quadtree& b) {
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        ASSERT_EQ(a.nodes[i].minCode, b.nodes[i].minCode);
        ASSERT_EQ(a.nodes[i].maxCode, b.nodes[i].maxCode);
    }
    EXPECT_EQ(a.coarseErrors, b.coarseErrors);
    EXPECT_EQ(a.foldErrors, b.foldErrors);
    EXPECT_EQ(a.leafFoldErrors, b.leafFoldErrors);
    EXPECT_EQ(a.lodErrors, b.lodErrors);
    EXPECT_EQ(a.exactLevels, b.exactLevels);
}

TEST(TreeSidecar, WrittenOnFirstOpenUsedOnTheSecond) {
    SidecarFixture f;
    const StreamedMap first = f.open();
    EXPECT_FALSE(first.sidecarUsed);
    EXPECT_TRUE(first.sidecarWritten);
    EXPECT_TRUE(first.sidecarProblem.empty());  // a missing sidecar is no problem
    const StreamedMap second = f.open();
    EXPECT_TRUE(second.sidecarUsed);
    EXPECT_FALSE(second.sidecarWritten);
    EXPECT_EQ(second.prepassMs, 0.0);
    EXPECT_EQ(mappingRss(second.map.codes.data()), 0u);  // not one page of the map read
    expectSameBounds(second.tree, first.tree);
    EXPECT_EQ(second.map.minCode, first.map.minCode);
    EXPECT_EQ(second.map.maxCode, first.map.maxCode);
    // Another leaf size: rebuilt for it.
    Result<StreamedMap> other = openStreamedRaw16(f.path, f.options, 8, f.stream);
    ASSERT_TRUE(other.ok());
    EXPECT_FALSE(other.value().sidecarUsed);
    EXPECT_NE(other.value().sidecarProblem.find("leaf size 4"), std::string::npos);
}

// A first open that defers its exact errors: the range bound and no sidecar at once; then
// streamedExactErrors (or the job that runs it) makes the errors and the sidecar of an open
// that does not defer, byte for byte, and a cancelled one writes nothing.
TEST(TreeSidecar, DeferredErrorsEqualThoseOfAnOpenThatDoesNotDefer) {
    SidecarFixture f;
    StreamOptions defer = f.stream;
    defer.deferExactErrors = true;
    Result<StreamedMap> deferred = openStreamedRaw16(f.path, f.options, 4, defer);
    ASSERT_TRUE(deferred.ok()) << deferred.error();
    StreamedMap& d = deferred.value();
    EXPECT_TRUE(d.deferred.pending);
    EXPECT_EQ(d.deferred.sidecar, f.side);
    EXPECT_FALSE(d.sidecarWritten);
    EXPECT_EQ(::access(f.side.c_str(), F_OK), -1);
    EXPECT_EQ(d.tree.lodErrors, LodErrors::Range);
    EXPECT_EQ(d.tree.exactLevels, 0);

    // Cancelled before it starts: nothing written.
    std::atomic<bool> cancel{true};
    EXPECT_FALSE(streamedExactErrors(d.map, d.tree, d.deferred, d.tree.coarseErrors,
                                     d.tree.foldErrors, &cancel)
                     .ok());
    EXPECT_EQ(::access(f.side.c_str(), F_OK), -1);

    // In the background, handed over as the loaded maps' job does.
    CoarseErrorJob job;
    job.startStreamed(d.map, d.tree, d.deferred);
    job.finish(d.tree);
    EXPECT_TRUE(job.sidecarWritten());
    EXPECT_EQ(d.tree.lodErrors, LodErrors::Mixed);
    EXPECT_EQ(d.tree.exactLevels, 2);
    const std::vector<uint8_t> deferredSidecar = test::readBytes(f.side);

    std::remove(f.side.c_str());
    const StreamedMap whole = f.open();  // exact errors during the open, sidecar written
    EXPECT_FALSE(whole.deferred.pending);
    expectSameBounds(d.tree, whole.tree);
    EXPECT_EQ(test::readBytes(f.side), deferredSidecar);
}

// --cache-size holds a .r16's sidecar in the cache folder too: a new one removes the least
// recently used file there, and one that cannot fit is not written (one line) while the map
// still opens.
TEST(TreeSidecar, TheCacheSizeBoundsSidecarsInTheCacheFolder) {
    TempDir dir;
    LoadOptions options;
    options.cacheDir = dir.path("cache");
    StreamOptions stream;
    stream.bandBytes = capForLevel(257, 4, 2);
    writeR16(dir.path("a.r16"), 257, 257, 11);
    writeR16(dir.path("b.r16"), 257, 257, 12);
    Result<StreamedMap> a = openStreamedRaw16(dir.path("a.r16"), options, 4, stream);
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(a.value().sidecarWritten);
    const std::string aSide = a.value().sidecarPath;
    ASSERT_EQ(aSide.rfind(dir.path("cache/"), 0), 0u) << aSide;
    const uint64_t bytes = std::filesystem::file_size(aSide);
    options.cacheSizeBytes = bytes + bytes / 2;                  // room for one
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // file times: a coarse tick
    Result<StreamedMap> b = openStreamedRaw16(dir.path("b.r16"), options, 4, stream);
    ASSERT_TRUE(b.ok()) << b.error();
    EXPECT_TRUE(b.value().sidecarWritten) << b.value().sidecarProblem;
    EXPECT_FALSE(std::filesystem::exists(aSide));
    EXPECT_TRUE(std::filesystem::exists(b.value().sidecarPath));
    options.cacheSizeBytes = bytes / 2;
    Result<StreamedMap> again = openStreamedRaw16(dir.path("a.r16"), options, 4, stream);
    ASSERT_TRUE(again.ok()) << again.error();
    EXPECT_FALSE(again.value().sidecarWritten);
    EXPECT_NE(again.value().sidecarProblem.find(
                  "over --cache-size of 0 MiB; continuing without a sidecar"),
              std::string::npos)
        << again.value().sidecarProblem;
    EXPECT_TRUE(std::filesystem::exists(b.value().sidecarPath));
    EXPECT_FALSE(std::filesystem::exists(aSide));
}

// A map of one leaf: no inner node, so no errors in its sidecar, written and read again.
TEST(TreeSidecar, AOneLeafMapsSidecarIsUsedOnTheSecondOpen) {
    TempDir dir;
    const std::string path = dir.path("small.r16");
    writeR16(path, 5, 5, 3);
    Result<StreamedMap> first = openStreamedRaw16(path, {}, 4, StreamOptions{});
    ASSERT_TRUE(first.ok()) << first.error();
    EXPECT_TRUE(first.value().sidecarWritten);
    EXPECT_TRUE(first.value().tree.coarseErrors.empty());
    Result<StreamedMap> second = openStreamedRaw16(path, {}, 4, StreamOptions{});
    ASSERT_TRUE(second.ok()) << second.error();
    EXPECT_TRUE(second.value().sidecarUsed) << second.value().sidecarProblem;
    expectSameBounds(second.value().tree, first.value().tree);
}

TEST(TreeSidecar, StaleAfterTheMapChanges) {
    SidecarFixture f;
    const StreamedMap first = f.open();
    ASSERT_TRUE(first.sidecarWritten);
    // Same length, new content and modification time.
    writeR16(f.path, 257, 257, 12);
    struct timespec times[2] = {{0, UTIME_OMIT}, {1700000000, 123456789}};
    ASSERT_EQ(::utimensat(AT_FDCWD, f.path.c_str(), times, 0), 0);
    const StreamedMap changed = f.open();
    EXPECT_FALSE(changed.sidecarUsed);
    EXPECT_TRUE(changed.sidecarWritten);
    EXPECT_NE(changed.sidecarProblem.find("stale (map changed), rebuilding"), std::string::npos)
        << changed.sidecarProblem;
    const Result<Heightmap> full = loadHeightmap(f.path);
    ASSERT_TRUE(full.ok());
    EXPECT_EQ(changed.map.maxCode, full.value().maxCode);
    EXPECT_TRUE(f.open().sidecarUsed);
    // Another length (and size).
    writeR16(f.path, 129, 129, 13);
    const StreamedMap smaller = f.open();
    EXPECT_FALSE(smaller.sidecarUsed);
    EXPECT_NE(smaller.sidecarProblem.find("stale"), std::string::npos);
    EXPECT_EQ(smaller.map.width, 129);
}

// Opens with the sidecar's bytes edited by `edit`: it must be refused with a line containing
// `why`, rebuilt and equal to the first open's tree.
void expectRejected(const std::function<void(std::vector<uint8_t>&)>& edit, const char* why) {
    SCOPED_TRACE(why);
    SidecarFixture f;
    const StreamedMap first = f.open();
    std::vector<uint8_t> bytes = test::readBytes(f.side);
    edit(bytes);
    test::writeBytes(f.side, bytes);
    const StreamedMap again = f.open();
    EXPECT_FALSE(again.sidecarUsed);
    EXPECT_TRUE(again.sidecarWritten);
    EXPECT_NE(again.sidecarProblem.find(why), std::string::npos) << again.sidecarProblem;
    EXPECT_EQ(again.sidecarProblem.find('\n'), std::string::npos);
    expectSameBounds(again.tree, first.tree);
    EXPECT_TRUE(f.open().sidecarUsed);  // the rebuilt one is good
}

TEST(TreeSidecar, DamagedSidecarsAreRejectedAndRebuilt) {
    expectRejected([](std::vector<uint8_t>& b) { b.resize(b.size() / 2); }, "truncated");
    expectRejected([](std::vector<uint8_t>& b) { b.resize(40); }, "truncated");
    expectRejected([](std::vector<uint8_t>& b) { b[b.size() - 100] ^= 0x10; }, "checksum");
    expectRejected([](std::vector<uint8_t>& b) { b[44] ^= 1; }, "checksum");  // the header's range
    expectRejected([](std::vector<uint8_t>& b) { b.push_back(0); }, "trailing");
    expectRejected([](std::vector<uint8_t>& b) { b[8] = 9; }, "version");
    expectRejected([](std::vector<uint8_t>& b) { b[8] = 2; }, "version 2, not 3");  // older
    // Huge counts: refused from the header, before anything is allocated.
    expectRejected([](std::vector<uint8_t>& b) { b[55] = 0x10; }, "corrupt");
    expectRejected([](std::vector<uint8_t>& b) { b[63] = 0x7F; }, "corrupt");
    expectRejected([](std::vector<uint8_t>& b) { b[13] = 200; }, "exact levels");
    expectRejected([](std::vector<uint8_t>& b) { b[14] = 7; }, "leaf folds 7");
    // Leaf fold errors said absent: the file is then longer than the header says.
    expectRejected([](std::vector<uint8_t>& b) { b[14] = 0; }, "trailing");
}

// What is at the sidecar's path and is not a sidecar of the program's (a user's file, read-only or
// not, empty, a damaged magic, a directory, a FIFO, a link even to a good sidecar) is never read
// as one, replaced or removed: the map opens without a sidecar, said in one line, its tree the
// same; the deferred errors' writer keeps off it too.
TEST(TreeSidecar, WhatIsNotItsOwnAtItsPathIsLeftAlone) {
    ::alarm(120);  // a FIFO opened for reading would block: fail rather than hang
    SidecarFixture f;
    const StreamedMap first = f.open();
    const std::vector<uint8_t> good = test::readBytes(f.side);
    const std::string copy = f.dir.path("copy.qtree");
    test::writeBytes(copy, good);
    ASSERT_EQ(::unlink(f.side.c_str()), 0);
    std::vector<uint8_t> damaged = good;
    damaged[0] = 'X';
    struct Case {
        const char* name;
        const char* why;
        std::function<void()> make;
        std::function<void()> check;
    };
    const auto keeps = [&f](std::vector<uint8_t> bytes) {
        return [&f, bytes] { EXPECT_EQ(test::readBytes(f.side), bytes); };
    };
    const auto isA = [&f](mode_t type) {
        return [&f, type] {
            struct stat st {};
            ASSERT_EQ(::lstat(f.side.c_str(), &st), 0);
            EXPECT_EQ(st.st_mode & S_IFMT, type);
        };
    };
    const std::vector<uint8_t> notes = {'n', 'o', 't', 'e', 's', '\n'};
    const std::vector<Case> cases = {
        {"notes", "not a quadterrain tree sidecar", [&] { test::writeBytes(f.side, notes); },
         keeps(notes)},
        {"read-only notes", "not a quadterrain tree sidecar",
         [&] {
             test::writeBytes(f.side, notes);
             ASSERT_EQ(::chmod(f.side.c_str(), 0444), 0);
         },
         keeps(notes)},
        {"empty", "not a quadterrain tree sidecar", [&] { test::writeBytes(f.side, {}); },
         keeps({})},
        {"damaged magic", "not a quadterrain tree sidecar",
         [&] { test::writeBytes(f.side, damaged); }, keeps(damaged)},
        {"directory", "a directory", [&] { ASSERT_EQ(::mkdir(f.side.c_str(), 0755), 0); },
         isA(S_IFDIR)},
        {"FIFO", "not a regular file", [&] { ASSERT_EQ(::mkfifo(f.side.c_str(), 0644), 0); },
         isA(S_IFIFO)},
        {"link to a good sidecar", "a symbolic link",
         [&] { ASSERT_EQ(::symlink(copy.c_str(), f.side.c_str()), 0); },
         [&] {
             isA(S_IFLNK)();
             EXPECT_EQ(test::readBytes(copy), good);
         }},
    };
    for (const Case& c : cases) {
        for (const bool defer : {false, true}) {
            SCOPED_TRACE(std::string(c.name) + (defer ? ", deferred" : ""));
            c.make();
            StreamOptions stream = f.stream;
            stream.deferExactErrors = defer;
            Result<StreamedMap> opened = openStreamedRaw16(f.path, f.options, 4, stream);
            ASSERT_TRUE(opened.ok()) << opened.error();
            StreamedMap& m = opened.value();
            EXPECT_FALSE(m.sidecarUsed);
            EXPECT_FALSE(m.sidecarWritten);
            EXPECT_EQ(m.sidecarProblem,
                      f.side + ": left alone (" + c.why + "); continuing without a sidecar");
            EXPECT_TRUE(m.deferred.sidecar.empty());
            if (m.deferred.pending) {
                CoarseErrorJob job;
                job.startStreamed(m.map, m.tree, m.deferred);
                job.finish(m.tree);
                EXPECT_FALSE(job.sidecarWritten());
            }
            expectSameBounds(m.tree, first.tree);
            c.check();
            // Written directly, the sidecar's writer refuses too.
            const Status written = writeTreeSidecar(f.side, TreeSidecar{});
            EXPECT_FALSE(written.ok());
            EXPECT_EQ(written.error(), std::string("left alone (") + c.why + ")");
            c.check();
            EXPECT_EQ(::access(temporaryPathFor(f.side).c_str(), F_OK), -1);
            ASSERT_EQ(std::system(("rm -rf '" + f.side + "'").c_str()), 0);
        }
    }
    ::alarm(0);
}

TEST(TreeSidecar, ParserSurvivesRandomDamage) {
    SidecarFixture f;
    const StreamedMap first = f.open();
    const std::vector<uint8_t> good = test::readBytes(f.side);
    const FileStamp stamp = fileStamp(f.path).value();
    ASSERT_TRUE(parseTreeSidecar(good.data(), good.size(), stamp, 257, 257, 4).ok());
    test::Random random(17);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<uint8_t> bytes = good;
        const int edits = 1 + int(random.below(4));
        for (int e = 0; e < edits; ++e) {
            bytes[random.below(uint32_t(bytes.size()))] = uint8_t(random.below(256));
        }
        if (trial % 3 == 0) {
            bytes.resize(random.below(uint32_t(bytes.size())));
        }
        const Result<TreeSidecar> parsed =
            parseTreeSidecar(bytes.data(), bytes.size(), stamp, 257, 257, 4);
        if (parsed.ok()) {  // only edits that changed nothing
            EXPECT_EQ(parsed.value().coarseErrors, first.tree.coarseErrors);
            EXPECT_EQ(parsed.value().foldErrors, first.tree.foldErrors);
        }
    }
}

TEST(TreeSidecar, UnwritableSidecarProceedsWithout) {
    SidecarFixture f;
    ASSERT_EQ(::mkdir(f.side.c_str(), 0755), 0);  // a directory where the sidecar would go
    const StreamedMap opened = f.open();
    EXPECT_FALSE(opened.sidecarUsed);
    EXPECT_FALSE(opened.sidecarWritten);
    EXPECT_FALSE(opened.sidecarProblem.empty());
    EXPECT_EQ(opened.sidecarProblem.find('\n'), std::string::npos);
    EXPECT_GT(opened.tree.nodes.size(), 0u);
}

// By default the sidecar goes to $XDG_CACHE_HOME/quadterrain, deferred or not, and nothing is
// written beside the map; two maps of one name in different folders get sidecars of their own.
TEST(TreeSidecar, DefaultSidecarGoesToTheCacheFolderAndNothingBesideTheMap) {
    TempDir dir;
    ASSERT_EQ(::mkdir(dir.path("a").c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(dir.path("b").c_str(), 0755), 0);
    const std::string a = dir.path("a/m.r16"), b = dir.path("b/m.r16");
    writeR16(a, 257, 257, 11);
    writeR16(b, 257, 257, 12);
    const std::string folder = test::cacheHome() + "/quadterrain";
    std::string sidecars[2];
    int k = 0;
    for (const std::string& path : {a, b}) {
        SCOPED_TRACE(path);
        const std::string mapFolder = std::filesystem::path(path).parent_path().string();
        const std::vector<std::string> before = test::filesIn(mapFolder);
        StreamOptions defer;
        defer.deferExactErrors = true;
        Result<StreamedMap> first = openStreamedRaw16(path, {}, 4, defer);
        ASSERT_TRUE(first.ok()) << first.error();
        StreamedMap& d = first.value();
        EXPECT_EQ(d.deferred.sidecar, pathInCacheFolder(folder, path, ".qtree"));
        EXPECT_EQ(d.deferred.sidecar.rfind(folder + "/m.r16.", 0), 0u) << d.deferred.sidecar;
        CoarseErrorJob job;
        job.startStreamed(d.map, d.tree, d.deferred);
        job.finish(d.tree);
        EXPECT_TRUE(job.sidecarWritten());
        const Result<StreamedMap> second = openStreamedRaw16(path, {}, 4);
        ASSERT_TRUE(second.ok()) << second.error();
        EXPECT_TRUE(second.value().sidecarUsed) << second.value().sidecarProblem;
        EXPECT_EQ(second.value().sidecarPath, d.deferred.sidecar);
        EXPECT_EQ(test::filesIn(mapFolder), before);
        sidecars[k++] = d.deferred.sidecar;
    }
    EXPECT_NE(sidecars[0], sidecars[1]);
}

// --cache-beside writes MAP.qtree; a sidecar of the program's own found there is read by default
// but never rewritten there; a user's file at the cache folder's path is left alone.
TEST(TreeSidecar, BesideTheMapOnlyWithCacheBeside) {
    SidecarFixture f;
    const StreamedMap beside = f.open();
    EXPECT_TRUE(beside.sidecarWritten);
    EXPECT_EQ(beside.sidecarPath, f.side);
    EXPECT_TRUE(test::filesIn(f.dir.path("cache")).empty());
    f.options.cacheBeside = false;
    const StreamedMap read = f.open();
    EXPECT_TRUE(read.sidecarUsed);
    EXPECT_EQ(read.sidecarPath, f.side);
    EXPECT_TRUE(test::filesIn(f.dir.path("cache")).empty());
    // Another leaf size: its sidecar goes to the cache folder, the one beside the map stays.
    const std::vector<uint8_t> kept = test::readBytes(f.side);
    Result<StreamedMap> other = openStreamedRaw16(f.path, f.options, 8, f.stream);
    ASSERT_TRUE(other.ok()) << other.error();
    EXPECT_TRUE(other.value().sidecarWritten);
    const std::string inFolder = pathInCacheFolder(f.dir.path("cache"), f.path, ".qtree");
    EXPECT_EQ(other.value().sidecarPath, inFolder);
    EXPECT_EQ(test::readBytes(f.side), kept);
    // A user's file where the cache folder's sidecar goes.
    const std::vector<uint8_t> notes = {'m', 'i', 'n', 'e'};
    test::writeBytes(inFolder, notes);
    Result<StreamedMap> mine = openStreamedRaw16(f.path, f.options, 8, f.stream);
    ASSERT_TRUE(mine.ok()) << mine.error();
    EXPECT_FALSE(mine.value().sidecarWritten);
    EXPECT_EQ(
        mine.value().sidecarProblem,
        inFolder + ": left alone (not a quadterrain tree sidecar); continuing without a sidecar");
    EXPECT_EQ(test::readBytes(inFolder), notes);
}

// A cache folder that cannot be made: the map opens without a sidecar, said in one line, and
// nothing is written beside it.
TEST(TreeSidecar, ACacheFolderThatCannotBeMadeStillOpensTheMapWithOneLine) {
    SidecarFixture f;
    test::writeBytes(f.dir.path("file"), {'x'});
    f.options.cacheDir = f.dir.path("file/quadterrain");
    f.options.cacheBeside = false;
    const std::vector<std::string> before = test::filesIn(f.dir.path(""));
    for (const bool defer : {false, true}) {
        SCOPED_TRACE(defer ? "deferred" : "not deferred");
        StreamOptions stream = f.stream;
        stream.deferExactErrors = defer;
        testing::internal::CaptureStderr();
        Result<StreamedMap> opened = openStreamedRaw16(f.path, f.options, 4, stream);
        const std::string said = testing::internal::GetCapturedStderr();
        ASSERT_TRUE(opened.ok()) << opened.error();
        const StreamedMap& m = opened.value();
        EXPECT_EQ(said, m.sidecarProblem + "\n");
        EXPECT_FALSE(m.sidecarWritten);
        EXPECT_EQ(m.sidecarPath, "");
        EXPECT_EQ(m.deferred.sidecar, "");
        EXPECT_EQ(m.sidecarProblem, f.dir.path("file/quadterrain") +
                                        ": cache folder cannot be created (Not a directory); "
                                        "continuing without a sidecar");
        EXPECT_EQ(test::filesIn(f.dir.path("")), before);
    }
}

}  // namespace
}  // namespace qt
