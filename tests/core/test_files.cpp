// Test helpers: temp directories, file I/O and a minimal PNG encoder with stored deflate blocks.
#include "test_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "shared_maps.h"

namespace qt::test {
namespace {

uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc = 0) {
    crc = ~crc;
    for (size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) {
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

void put32(std::vector<uint8_t>& out, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) {
        out.push_back(uint8_t(v >> shift));
    }
}

void chunk(std::vector<uint8_t>& out, const char* type, const std::vector<uint8_t>& data) {
    put32(out, uint32_t(data.size()));
    const size_t start = out.size();
    out.insert(out.end(), type, type + 4);
    out.insert(out.end(), data.begin(), data.end());
    put32(out, crc32(out.data() + start, out.size() - start));
}

std::vector<uint8_t> zlibStored(const std::vector<uint8_t>& raw) {
    std::vector<uint8_t> z = {0x78, 0x01};
    size_t pos = 0;
    do {
        const size_t n = std::min<size_t>(65535, raw.size() - pos);
        z.push_back(pos + n == raw.size() ? 1 : 0);
        z.push_back(uint8_t(n));
        z.push_back(uint8_t(n >> 8));
        z.push_back(uint8_t(~n));
        z.push_back(uint8_t(~n >> 8));
        z.insert(z.end(), raw.begin() + long(pos), raw.begin() + long(pos + n));
        pos += n;
    } while (pos < raw.size());
    uint32_t a = 1, b = 0;
    for (uint8_t byte : raw) {
        a = (a + byte) % 65521;
        b = (b + a) % 65521;
    }
    put32(z, b << 16 | a);
    return z;
}

// Every test process keeps the cache folder (core/streaming/cache_folder.h) in a folder of its
// own, removed at exit: no test writes into the real home's cache, and tests running in parallel
// never share one.
struct OwnCacheHome {
    std::string dir;
    OwnCacheHome() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "qt_cache_home_XXXXXX").string();
        if (mkdtemp(pattern.data()) != nullptr) {
            dir = pattern;
            setenv("XDG_CACHE_HOME", dir.c_str(), 1);
        }
    }
    ~OwnCacheHome() {
        std::error_code ignored;
        if (!dir.empty()) {
            std::filesystem::remove_all(dir, ignored);
        }
    }
    OwnCacheHome(const OwnCacheHome&) = delete;
    OwnCacheHome& operator=(const OwnCacheHome&) = delete;
};
const OwnCacheHome ownCacheHome;

}  // namespace

std::string cacheHome() {
    return ownCacheHome.dir;
}

TempDir::TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "qt_test_XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
        throw std::runtime_error("mkdtemp failed");
    }
    dir_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<std::string> filesIn(const std::string& folder) {
    std::vector<std::string> names;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<uint8_t> readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> pngWithHeader(uint32_t width, uint32_t height, uint8_t bitDepth,
                                   uint8_t colourType, const std::vector<uint8_t>& raw) {
    std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    std::vector<uint8_t> ihdr;
    put32(ihdr, width);
    put32(ihdr, height);
    ihdr.insert(ihdr.end(), {bitDepth, colourType, 0, 0, 0});
    chunk(png, "IHDR", ihdr);
    chunk(png, "IDAT", zlibStored(raw));
    chunk(png, "IEND", {});
    return png;
}

std::vector<uint8_t> png16(int width, int height, const std::vector<uint16_t>& samples) {
    std::vector<uint8_t> raw;
    for (int row = 0; row < height; ++row) {
        raw.push_back(0);  // filter: none
        for (int col = 0; col < width; ++col) {
            const uint16_t s = samples[size_t(row) * size_t(width) + size_t(col)];
            raw.push_back(uint8_t(s >> 8));
            raw.push_back(uint8_t(s));
        }
    }
    return pngWithHeader(uint32_t(width), uint32_t(height), 16, 0, raw);
}

std::string sharedHeightmap(const std::string& name) {
    const std::string path = sharedHeightmapsFolder() + "/" + name;
    return std::filesystem::exists(path) ? path : "";
}

}  // namespace qt::test
