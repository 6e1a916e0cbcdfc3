// Test helpers: temporary files, an uncompressed 16-bit PNG writer (stb writes only 8-bit) and
// deterministic random numbers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace qt::test {

// Deterministic uniform numbers (std distributions differ between standard libraries).
class Random {
public:
    explicit Random(uint32_t seed) : engine_(seed) {}
    float uniform(float lo, float hi) {
        return lo + (hi - lo) * float(engine_() >> 8) / 16777216.0f;
    }
    uint32_t below(uint32_t n) { return uint32_t(engine_() % n); }

private:
    std::mt19937 engine_;
};

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string path(const std::string& name) const { return dir_ + "/" + name; }

private:
    std::string dir_;
};

// The XDG_CACHE_HOME of this test process: a folder of its own, removed at exit, so that the
// default cache folder is cacheHome() + "/quadterrain".
std::string cacheHome();

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes);
std::vector<uint8_t> readBytes(const std::string& path);
// The names of the files in `folder`, sorted (none when it is missing).
std::vector<std::string> filesIn(const std::string& folder);

// Grayscale PNG of width x height 16-bit samples (big-endian in the file), stored deflate blocks.
std::vector<uint8_t> png16(int width, int height, const std::vector<uint16_t>& samples);
// Any PNG from raw IHDR fields and already-filtered image bytes (for crafted bad headers).
std::vector<uint8_t> pngWithHeader(uint32_t width, uint32_t height, uint8_t bitDepth,
                                   uint8_t colourType, const std::vector<uint8_t>& raw);

// Path of the shared real heightmap `name` (shared_maps.h), or "" when it is absent.
std::string sharedHeightmap(const std::string& name);

}  // namespace qt::test
