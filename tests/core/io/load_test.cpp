// Heightmap loaders: every format keeps every sample; every bad input is one line, no crash.
#include "core/terrain/heightmap.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>

#include <gtest/gtest.h>
#include <stb/stb_image_write.h>

#include "core/config.h"
#include "core/io/load.h"
#include "core/io/voids.h"
#include "qt_source_paths.h"
#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

std::vector<uint8_t> bigEndian16(const std::vector<int16_t>& values) {
    std::vector<uint8_t> out;
    for (int16_t v : values) {
        out.push_back(uint8_t(uint16_t(v) >> 8));
        out.push_back(uint8_t(v));
    }
    return out;
}

TEST(Heightmap, Png16KeepsAllSixteenBits) {
    TempDir dir;
    const std::vector<uint16_t> values = {0, 1, 255, 256, 40000, 65535};
    test::writeBytes(dir.path("m.png"), test::png16(3, 2, values));
    const Result<Heightmap> map = loadHeightmap(dir.path("m.png"));
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(map.value().width, 3);
    EXPECT_EQ(map.value().height, 2);
    EXPECT_EQ(map.value().format, HeightmapFormat::Image16);
    for (size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(map.value().codes[i], values[i]) << i;  // stored exactly, as codes
        EXPECT_EQ(heightmapSamples(map.value())[i], float(values[i])) << i;
    }
    EXPECT_EQ(map.value().minSample, 0.0f);
    EXPECT_EQ(map.value().maxSample, 65535.0f);
}

TEST(Heightmap, Png8AndColourReducedByLuminance) {
    TempDir dir;
    const uint8_t gray[6] = {0, 10, 20, 30, 40, 255};
    ASSERT_TRUE(stbi_write_png(dir.path("g.png").c_str(), 3, 2, 1, gray, 3));
    const Result<Heightmap> g = loadHeightmap(dir.path("g.png"));
    ASSERT_TRUE(g.ok()) << g.error();
    EXPECT_EQ(g.value().format, HeightmapFormat::Image8);
    EXPECT_EQ(g.value().at(1, 0), 10.0f);
    EXPECT_EQ(g.value().at(2, 1), 255.0f);

    // Documented reduction: (77 R + 150 G + 29 B) >> 8, alpha ignored.
    const uint8_t rgba[2 * 2 * 4] = {255, 0, 0,   255, 0,   255, 0,   0,
                                     0,   0, 255, 128, 100, 100, 100, 7};
    ASSERT_TRUE(stbi_write_png(dir.path("c.png").c_str(), 2, 2, 4, rgba, 8));
    const Result<Heightmap> c = loadHeightmap(dir.path("c.png"));
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_EQ(c.value().at(0, 0), float((255 * 77) >> 8));
    EXPECT_EQ(c.value().at(1, 0), float((255 * 150) >> 8));
    EXPECT_EQ(c.value().at(0, 1), float((255 * 29) >> 8));
    EXPECT_EQ(c.value().at(1, 1), float((100 * 256) >> 8));
}

TEST(Heightmap, OtherStbFormats) {
    TempDir dir;
    uint8_t pixels[4 * 3];
    for (int i = 0; i < 12; ++i) {
        pixels[i] = uint8_t(i * 20);
    }
    ASSERT_TRUE(stbi_write_bmp(dir.path("m.bmp").c_str(), 4, 3, 1, pixels));
    ASSERT_TRUE(stbi_write_tga(dir.path("m.TGA").c_str(), 4, 3, 1, pixels));
    ASSERT_TRUE(stbi_write_jpg(dir.path("m.jpg").c_str(), 4, 3, 1, pixels, 95));
    const std::string header = "P5\n4 3\n255\n";
    std::vector<uint8_t> pgm(header.begin(), header.end());
    for (uint8_t p : pixels) {
        pgm.push_back(p);
    }
    test::writeBytes(dir.path("m.pgm"), pgm);
    for (const char* name : {"m.bmp", "m.TGA", "m.pgm"}) {
        const Result<Heightmap> map = loadHeightmap(dir.path(name));
        ASSERT_TRUE(map.ok()) << map.error();
        EXPECT_EQ(map.value().width, 4) << name;
        EXPECT_EQ(map.value().height, 3) << name;
        for (int i = 0; i < 12; ++i) {
            EXPECT_EQ(heightmapSamples(map.value())[size_t(i)], float(pixels[i]))
                << name << " " << i;
        }
    }
    const Result<Heightmap> jpg = loadHeightmap(dir.path("m.jpg"));
    ASSERT_TRUE(jpg.ok()) << jpg.error();
    EXPECT_EQ(jpg.value().width, 4);
    EXPECT_NEAR(jpg.value().at(3, 2), 220.0f, 30.0f);  // lossy, but close
}

TEST(Heightmap, Pgm16AndPpmDecodedExactly) {
    TempDir dir;
    const std::string header = "P5\n# comment\n2 2\n65535\n";
    std::vector<uint8_t> pgm(header.begin(), header.end());
    for (uint8_t b : {0x00, 0x01, 0x01, 0x00, 0xFF, 0xFF, 0x80, 0x00}) {
        pgm.push_back(b);
    }
    test::writeBytes(dir.path("m.pgm"), pgm);
    const Result<Heightmap> map = loadHeightmap(dir.path("m.pgm"));
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(map.value().format, HeightmapFormat::Image16);
    EXPECT_EQ(heightmapSamples(map.value()), (std::vector<float>{1, 256, 65535, 32768}));
    // A 16-bit header over 8-bit-sized data is truncated, not read past the end.
    pgm.resize(pgm.size() - 4);
    test::writeBytes(dir.path("short.pgm"), pgm);
    EXPECT_EQ(loadHeightmap(dir.path("short.pgm")).error(),
              dir.path("short.pgm") +
                  ": PGM/PPM: truncated: 2x2 pixels of 2 bytes need 31 bytes, the file has 27");
    const std::string ppmHeader = "P6 2 2 255 ";
    std::vector<uint8_t> ppm(ppmHeader.begin(), ppmHeader.end());
    for (uint8_t b : {255, 0, 0, 0, 0, 255, 0, 255, 0, 9, 9, 9}) {
        ppm.push_back(b);
    }
    test::writeBytes(dir.path("m.ppm"), ppm);
    const Result<Heightmap> colour = loadHeightmap(dir.path("m.ppm"));
    ASSERT_TRUE(colour.ok()) << colour.error();
    EXPECT_EQ(heightmapSamples(colour.value()),
              (std::vector<float>{(255 * 77) >> 8, (255 * 29) >> 8, (255 * 150) >> 8, 9}));
}

TEST(Heightmap, HgtBigEndianSignedWithVoidsFilled) {
    TempDir dir;
    // 3x3 tile: a void in the middle and one in a corner.
    const std::vector<int16_t> values = {-10, 20, -32768, 40, -32768, 60, 70, 80, 90};
    test::writeBytes(dir.path("N00E000.hgt"), bigEndian16(values));
    const Result<Heightmap> map = loadHeightmap(dir.path("N00E000.hgt"));
    ASSERT_TRUE(map.ok()) << map.error();
    const Heightmap& m = map.value();
    EXPECT_EQ(m.format, HeightmapFormat::Hgt);
    EXPECT_EQ(m.at(0, 0), -10.0f);
    EXPECT_EQ(m.at(2, 2), 90.0f);
    // Corner (2,0) touches 20, 40(void->filled later) , 60: first pass sees 20 and 60 known.
    EXPECT_EQ(m.at(2, 0), 40.0f);
    // Centre: mean of its known 8-neighbours (-10,20,40,60,70,80,90) and the filled corner.
    EXPECT_GT(m.at(1, 1), -10.0f);
    EXPECT_LT(m.at(1, 1), 90.0f);
    EXPECT_EQ(m.minSample, -10.0f);
    // The voids are holes: the mask holds exactly them.
    ASSERT_TRUE(m.nodata.holes());
    EXPECT_EQ(m.nodata.samples, 2);
    EXPECT_DOUBLE_EQ(m.nodata.share(), 2.0 / 9.0);
    EXPECT_TRUE(m.nodata.at(2, 0));
    EXPECT_TRUE(m.nodata.at(1, 1));
    EXPECT_FALSE(m.nodata.at(0, 0));
    EXPECT_TRUE(m.nodata.holeSquare(0, 0));  // its corner (1, 1) is a void
    EXPECT_TRUE(m.nodata.holeSquare(1, 1));
}

TEST(Heightmap, HgtTileGivesARenamedHgtItsPlace) {
    TempDir dir;
    test::writeBytes(dir.path("renamed.hgt"), bigEndian16({1, 2, 3, 4, 5, 6, 7, 8, 9}));
    EXPECT_FALSE(loadHeightmap(dir.path("renamed.hgt")).value().geo.present);
    LoadOptions options;
    options.hgtTile = "S12W077";
    const Heightmap placed = loadHeightmap(dir.path("renamed.hgt"), options).value();
    ASSERT_TRUE(placed.geo.present);
    EXPECT_TRUE(placed.geo.geographic);
    // Samples on the square's edges, each cell half a step (a quarter degree) beyond them.
    EXPECT_DOUBLE_EQ(placed.geo.west, -77.25);
    EXPECT_DOUBLE_EQ(placed.geo.south, -12.25);
    EXPECT_DOUBLE_EQ(placed.geo.north, -10.75);
}

TEST(Heightmap, FillVoidsSpreadsIntoLargeHoles) {
    std::vector<float> s(100, -1.0f);
    s[0] = 5.0f;
    ASSERT_TRUE(fillVoids(s.data(), 10, 10, -1.0f));
    for (float v : s) {
        EXPECT_EQ(v, 5.0f);
    }
    std::vector<float> allVoid(4, -1.0f);
    EXPECT_FALSE(fillVoids(allVoid.data(), 2, 2, -1.0f));
}

// The fill as first written, with arrays of known and queued samples beside the samples: the
// reference that the fill keeping its state in the samples must equal.
bool referenceFill(std::vector<float>& samples, int width, int height, float voidValue) {
    const size_t total = samples.size();
    std::vector<uint8_t> known(total);
    for (size_t i = 0; i < total; ++i) {
        known[i] = samples[i] != voidValue;
    }
    if (std::find(known.begin(), known.end(), 1) == known.end()) {
        return false;
    }
    auto neighbours = [&](size_t i) {
        std::vector<size_t> out;
        const int col = int(i % size_t(width)), row = int(i / size_t(width));
        for (int dr = -1; dr <= 1; ++dr) {
            for (int dc = -1; dc <= 1; ++dc) {
                const int c = col + dc, r = row + dr;
                if ((dr != 0 || dc != 0) && c >= 0 && r >= 0 && c < width && r < height) {
                    out.push_back(size_t(r) * size_t(width) + size_t(c));
                }
            }
        }
        return out;
    };
    std::vector<uint8_t> queued(known);
    std::deque<size_t> frontier;
    for (size_t i = 0; i < total; ++i) {
        if (!known[i]) {
            bool touches = false;
            for (size_t n : neighbours(i)) {
                touches |= known[n] != 0;
            }
            if (touches) {
                frontier.push_back(i);
                queued[i] = 1;
            }
        }
    }
    while (!frontier.empty()) {
        const size_t i = frontier.front();
        frontier.pop_front();
        double sum = 0.0;
        int count = 0;
        for (size_t n : neighbours(i)) {
            if (known[n]) {
                sum += samples[n];
                ++count;
            } else if (!queued[n]) {
                queued[n] = 1;
                frontier.push_back(n);
            }
        }
        samples[i] = float(std::round(sum / count));
        known[i] = 1;
    }
    return true;
}

TEST(Heightmap, FillVoidsKeepingItsStateInTheSamplesEqualsTheReference) {
    test::Random random(23);
    for (int trial = 0; trial < 40; ++trial) {
        const int width = 2 + int(random.below(40));
        const int height = 2 + int(random.below(40));
        const float share = random.uniform(0.0f, 1.0f);
        std::vector<float> samples(size_t(width) * size_t(height));
        for (float& v : samples) {
            v = random.uniform(0.0f, 1.0f) < share ? -5.0f : random.uniform(-300.0f, 900.0f);
        }
        std::vector<float> want = samples;
        const bool filled = referenceFill(want, width, height, -5.0f);
        ASSERT_EQ(fillVoids(samples.data(), width, height, -5.0f), filled);
        if (filled) {
            ASSERT_EQ(samples, want) << width << "x" << height;
        }
    }
    // Bounded: a queue over its limit stops the fill; a tick comes every tickEvery samples.
    std::vector<float> checker(64 * 64, 1.0f);
    for (size_t i = 0; i < checker.size(); i += 2) {
        checker[i] = -5.0f;
    }
    int ticks = 0;
    VoidFillLimits limits;
    limits.maxQueued = 100;
    limits.tickEvery = 512;
    limits.tick = [&ticks] { ++ticks; };
    EXPECT_EQ(fillVoidsWithin(checker.data(), 64, 64, -5.0f, limits), VoidFill::TooMany);
    EXPECT_GE(ticks, 8);  // the first scan alone passes 4096 samples
    limits.maxQueued = 4096;
    std::vector<float> again(64 * 64, 1.0f);
    for (size_t i = 0; i < again.size(); i += 2) {
        again[i] = -5.0f;
    }
    EXPECT_EQ(fillVoidsWithin(again.data(), 64, 64, -5.0f, limits), VoidFill::Done);
    EXPECT_EQ(again, std::vector<float>(64 * 64, 1.0f));
}

// The size check sees the size the header (or the length) gives, and its refusal is the load's
// one-line error.
TEST(Heightmap, ASizeCheckRefusesFromTheHeaderBeforeDecoding) {
    TempDir dir;
    test::writeBytes(dir.path("m.r16"), std::vector<uint8_t>(2 * 5 * 3, 7));
    int seenWidth = 0;
    int seenHeight = 0;
    const SizeCheck record = [&](int width, int height) {
        seenWidth = width;
        seenHeight = height;
        return Status{};
    };
    ASSERT_TRUE(loadHeightmap(dir.path("m.r16"), {5, 3}, record).ok());
    EXPECT_EQ(seenWidth, 5);
    EXPECT_EQ(seenHeight, 3);
    const SizeCheck refuse = [](int, int) { return Status::failure("too large for this GPU"); };
    const Result<Heightmap> raw = loadHeightmap(dir.path("m.r16"), {5, 3}, refuse);
    ASSERT_FALSE(raw.ok());
    EXPECT_EQ(raw.error(), dir.path("m.r16") + ": too large for this GPU");

    const unsigned char gray[] = {0, 10, 20, 30, 40, 50, 60, 70, 80};
    ASSERT_TRUE(stbi_write_png(dir.path("g.png").c_str(), 3, 3, 1, gray, 3));
    ASSERT_TRUE(loadHeightmap(dir.path("g.png"), {}, record).ok());
    EXPECT_EQ(seenWidth, 3);
    const Result<Heightmap> image = loadHeightmap(dir.path("g.png"), {}, refuse);
    ASSERT_FALSE(image.ok());
    EXPECT_EQ(image.error(), dir.path("g.png") + ": too large for this GPU");
}

TEST(Heightmap, RawInferredSquareAndGivenSize) {
    TempDir dir;
    std::vector<uint8_t> bytes;
    for (int i = 0; i < 6; ++i) {
        bytes.push_back(uint8_t(i));
        bytes.push_back(uint8_t(0x80 + i));  // little-endian: high byte second
    }
    test::writeBytes(dir.path("m.r16"), bytes);
    const Result<Heightmap> given = loadHeightmap(dir.path("m.r16"), {3, 2});
    ASSERT_TRUE(given.ok()) << given.error();
    EXPECT_EQ(given.value().at(2, 1), float(0x8505));
    const Result<Heightmap> wrong = loadHeightmap(dir.path("m.r16"), {4, 2});
    ASSERT_FALSE(wrong.ok());
    EXPECT_EQ(wrong.error(),
              dir.path("m.r16") + ": file is 12 bytes but 4x2 16-bit samples need 16");
    const Result<Heightmap> notSquare = loadHeightmap(dir.path("m.r16"));
    ASSERT_FALSE(notSquare.ok());
    EXPECT_NE(notSquare.error().find("--size WxH"), std::string::npos);

    bytes.resize(2 * 2 * 2);
    test::writeBytes(dir.path("sq.raw"), bytes);
    const Result<Heightmap> square = loadHeightmap(dir.path("sq.raw"));
    ASSERT_TRUE(square.ok()) << square.error();
    EXPECT_EQ(square.value().width, 2);
}

// An uncompressed grayscale TGA header claiming width x height, followed by two pixels.
std::vector<uint8_t> tgaClaiming(int width, int height) {
    std::vector<uint8_t> tga(18, 0);
    tga[2] = 3;  // uncompressed grayscale
    tga[12] = uint8_t(width);
    tga[13] = uint8_t(width >> 8);
    tga[14] = uint8_t(height);
    tga[15] = uint8_t(height >> 8);
    tga[16] = 8;  // bits per pixel
    tga.push_back(1);
    tga.push_back(2);
    return tga;
}

struct BadCase {
    const char* name;
    std::vector<uint8_t> bytes;
    const char* expected;  // the problem after "<path>: "
};

TEST(Heightmap, BadInputsGiveOneLineNamingTheFile) {
    TempDir dir;
    std::vector<uint8_t> good = test::png16(4, 4, std::vector<uint16_t>(16, 7));
    std::vector<uint8_t> truncated(good.begin(), good.begin() + long(good.size() / 2));
    std::vector<uint8_t> longChunk = good;
    longChunk[33 + 0] = 0x6C;  // the IDAT chunk's length claims about 1.8 GB
    std::vector<uint8_t> corrupt = good;
    corrupt[45] ^= 0xFF;  // inside the IDAT stream
    const std::vector<BadCase> cases = {
        {"empty.png", {}, "empty file"},
        {"trunc.png", truncated, "PNG: truncated: chunk 'IDAT' of "},
        {"corrupt.png", corrupt,
         "PNG: corrupt image data (chunk 'IDAT' at offset 33 fails its CRC"},
        {"claims.tga", tgaClaiming(13648, 13066),
         "TGA: truncated: 13648x13066 pixels at 8 bits need 178324786 bytes, the file has 20"},
        {"long.png", longChunk, "PNG: truncated: chunk 'IDAT' of 18"},
        {"text.png", {'h', 'e', 'l', 'l', 'o'}, "not a readable image"},
        {"huge.png", test::pngWithHeader(100000, 100000, 16, 0, {0, 0, 0}),
         "size 100000x100000 is over the limit"},
        {"one.png", test::pngWithHeader(1, 1, 8, 0, {0, 0}), "size 1x1 is too small"},
        {"claims.png", test::pngWithHeader(16000, 16000, 16, 0, {0, 0, 0}),
         "PNG: truncated: image data inflates to 3 of the 512016000 bytes its 16000x16000 header "
         "needs"},
        {"line.png", test::pngWithHeader(1, 9, 8, 0, std::vector<uint8_t>(18)),
         "size 1x9 is too small"},
        {"short.hgt", std::vector<uint8_t>(10), "file is 10 bytes; an .hgt"},
        {"odd.hgt", std::vector<uint8_t>(9), "file is 9 bytes; an .hgt"},
        {"one.hgt", std::vector<uint8_t>(2), "file is 2 bytes; an .hgt"},
        {"void.hgt", bigEndian16({-32768, -32768, -32768, -32768}), "every sample is void"},
        {"odd.raw", std::vector<uint8_t>(7), "file is 7 bytes, not a square"},
        {"map.xyz", {1, 2, 3}, "unknown extension '.xyz'"},
        {"noext", {1, 2, 3}, "unknown extension ''"},
    };
    for (const BadCase& c : cases) {
        const std::string path = dir.path(c.name);
        test::writeBytes(path, c.bytes);
        const Result<Heightmap> map = loadHeightmap(path);
        ASSERT_FALSE(map.ok()) << c.name;
        const std::string prefix = path + ": " + c.expected;
        EXPECT_EQ(map.error().substr(0, prefix.size()), prefix) << map.error();
        EXPECT_EQ(map.error().find('\n'), std::string::npos) << map.error();
    }
    const Result<Heightmap> missing = loadHeightmap(dir.path("missing.png"));
    EXPECT_EQ(missing.error(), dir.path("missing.png") + ": no such file");
    const Result<Heightmap> directory = loadHeightmap(dir.path("") + ".png/..");
    EXPECT_FALSE(directory.ok());
    std::filesystem::create_directory(dir.path("folder.png"));
    EXPECT_EQ(loadHeightmap(dir.path("folder.png")).error(),
              dir.path("folder.png") + ": is a directory, not a heightmap file");
    EXPECT_EQ(loadHeightmap(dir.path("m.png"), {3, 3}).error(),
              dir.path("m.png") + ": --size applies only to headerless .r16/.raw files");
}

TEST(Heightmap, RawOverTheLimitIsRefusedBeforeAllocating) {
    TempDir dir;
    test::writeBytes(dir.path("m.raw"), std::vector<uint8_t>(8));
    const Result<Heightmap> map = loadHeightmap(dir.path("m.raw"), {100000, 100000});
    ASSERT_FALSE(map.ok());
    EXPECT_NE(map.error().find("over the limit"), std::string::npos) << map.error();
}

TEST(Heightmap, PathWithSpacesAndNonAscii) {
    TempDir dir;
    const std::string path = dir.path("Säntis höhe 1.png");
    test::writeBytes(path, test::png16(2, 2, {1, 2, 3, 4}));
    const Result<Heightmap> map = loadHeightmap(path);
    ASSERT_TRUE(map.ok()) << map.error();
    EXPECT_EQ(map.value().at(1, 1), 4.0f);
}

TEST(Heightmap, CheckDimensionsLimits) {
    EXPECT_TRUE(checkDimensions(2, 2).ok());
    EXPECT_TRUE(checkDimensions(32769, 32769).ok());
    EXPECT_FALSE(checkDimensions(32769, 32770).ok());  // the samples in all
    EXPECT_TRUE(checkDimensions(kMaxSide, 16384).ok());
    EXPECT_TRUE(checkDimensions(16384, kMaxSide).ok());
    EXPECT_FALSE(checkDimensions(kMaxSide, 16385).ok());
    EXPECT_FALSE(checkDimensions(kMaxSide + 1, 2).ok());
    EXPECT_FALSE(checkDimensions(2, kMaxSide + 1).ok());
    EXPECT_EQ(checkDimensions(kMaxSide + 1, 2).error(),
              "size 65538x2 is over the limit (65537 samples a side, 1073807361 samples in all)");
    EXPECT_TRUE(checkDimensions(kMaxBakeSide, 2, kBakeSizeLimit).ok());
    EXPECT_FALSE(checkDimensions(kMaxBakeSide + 1, 2, kBakeSizeLimit).ok());
    EXPECT_FALSE(checkDimensions(0, 5).ok());
    EXPECT_FALSE(checkDimensions(-3, 5).ok());
}

TEST(Heightmap, RealMapsWhenPresent) {
    const std::string png = test::sharedHeightmap("puget_sound_1025x1025.png");
    const std::string raw = test::sharedHeightmap("puget_sound_1025x1025_u16le.r16");
    const std::string hgt = test::sharedHeightmap("N47E009.hgt");
    const std::string odd = test::sharedHeightmap("jacksboro_fault_403x344.png");
    if (png.empty() || raw.empty() || hgt.empty() || odd.empty()) {
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map checks skipped";
    }
    const Result<Heightmap> a = loadHeightmap(png);
    const Result<Heightmap> b = loadHeightmap(raw);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a.value().width, 1025);
    EXPECT_EQ(a.value().format, HeightmapFormat::Image16);
    EXPECT_EQ(a.value().codes, b.value().codes);  // same data, two formats
    EXPECT_GT(a.value().maxSample, 255.0f);
    const Result<Heightmap> alps = loadHeightmap(hgt);
    ASSERT_TRUE(alps.ok());
    EXPECT_EQ(alps.value().width, 1201);
    EXPECT_GT(alps.value().maxSample, 2400.0f);  // Saentis is 2502 m
    EXPECT_LT(alps.value().minSample, 500.0f);   // Lake Constance is at 395 m
    const Result<Heightmap> fault = loadHeightmap(odd);
    ASSERT_TRUE(fault.ok());
    EXPECT_EQ(fault.value().width, 403);
    EXPECT_EQ(fault.value().height, 344);
}

}  // namespace
TEST(Heightmap, IntegerSamplesAreStoredExactlyAndFloatsQuantisedOverTheirRange) {
    // Signed integers spanning 65535 steps: exact, whatever the offset.
    const std::vector<float> metres = {-32768.0f, -1.0f, 0.0f, 32767.0f};
    const Heightmap exact = makeHeightmap(2, 2, metres).value();
    EXPECT_EQ(heightmapSamples(exact), metres);
    EXPECT_EQ(exact.coding.step, 1.0f);
    EXPECT_EQ(exact.minSample, -32768.0f);
    // A flat map of a fraction is exact too (one code).
    const Heightmap flat = makeHeightmap(2, 2, std::vector<float>(4, 0.5f)).value();
    EXPECT_EQ(heightmapSamples(flat), std::vector<float>(4, 0.5f));
    // Fractions: 65536 steps between the extremes, each sample within half a step.
    std::vector<float> fractions;
    for (int i = 0; i < 64; ++i) {
        fractions.push_back(0.37f * float(i * i) - 100.0f + 1e-3f * float(i % 7));
    }
    const Heightmap quantised = makeHeightmap(8, 8, fractions).value();
    const float step = (fractions.back() - fractions.front()) / 65535.0f;
    EXPECT_NEAR(quantised.coding.step, step, step * 1e-5f);
    const std::vector<float> back = heightmapSamples(quantised);
    for (size_t i = 0; i < fractions.size(); ++i) {
        EXPECT_NEAR(back[i], fractions[i], 0.51f * step + 1e-4f) << i;
    }
    EXPECT_EQ(quantised.minCode, 0);
    EXPECT_EQ(quantised.maxCode, 65535);
    // Integers spanning more than 65535 steps are quantised, not wrapped.
    const Heightmap wide = makeHeightmap(2, 2, {0.0f, 1e6f, 5.0f, 7.0f}).value();
    EXPECT_EQ(heightmapSamples(wide).front(), 0.0f);
    EXPECT_NEAR(heightmapSamples(wide)[1], 1e6f, 1.0f);
    EXPECT_FALSE(makeHeightmap(2, 2, {0.0f, std::nanf(""), 0.0f, 0.0f}).ok());
    // A range of denormals (65535 / range overflows a float): one code, each sample within it.
    const std::vector<float> tiny = {0.0f, 1e-40f, 3e-41f, 0.0f};
    const Heightmap denormal = makeHeightmap(2, 2, tiny).value();
    const std::vector<float> tinyBack = heightmapSamples(denormal);
    for (size_t i = 0; i < tiny.size(); ++i) {
        EXPECT_NEAR(tinyBack[i], tiny[i], 1e-40f) << i;
    }
    EXPECT_EQ(denormal.maxCode, 0);
}

}  // namespace qt
