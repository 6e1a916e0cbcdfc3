// What block compression would give the imagery's GPU pages (core/io/imagery.h): pages of a real
// imagery file, read as the viewer reads them (520^2 premultiplied sRGB texels), encoded as BC1
// (0.5 byte a texel, colour only) or BC3 (1 byte, colour and alpha) by stb_dxt (Debian's libstb,
// which the issue names) and by libsquish's cluster fit, and decoded by libsquish. Per page: the
// encode time on one thread, and the error against the page's own texels in sRGB bytes (RMS,
// PSNR, largest) with alpha's largest for BC3; pages whose coverage has an edge (alpha other than
// 255) are counted, since BC1 keeps no alpha of its own.
//   QT_IMAGERY=imagery.tif QT_IMAGERY_MAP=map.hgt
//   ./build/core_bench --benchmark_filter=BM_ImageryPageCompression
#include <benchmark/benchmark.h>

#include <squish.h>
#include <stb_dxt.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/io/imagery.h"
#include "core/io/load.h"

namespace qt {
namespace {

constexpr int kSampledPages = 24;

// Level-0 pages spread over the imagery's grid (every pagesX * pagesY / kSampledPages-th), read
// once; empty when $QT_IMAGERY or $QT_IMAGERY_MAP is unset or unreadable.
struct SampledPages {
    int side = 0;
    std::vector<std::vector<uint8_t>> pages;
    std::vector<uint8_t> edged;  // per page: alpha other than 255 on the level's own texels
    std::string error;
};

const SampledPages& sampledPages() {
    static const SampledPages sampled = [] {
        SampledPages s;
        const char* imagery = std::getenv("QT_IMAGERY");
        const char* mapPath = std::getenv("QT_IMAGERY_MAP");
        if (imagery == nullptr || mapPath == nullptr) {
            s.error = "set $QT_IMAGERY and $QT_IMAGERY_MAP";
            return s;
        }
        Result<Heightmap> map = loadHeightmap(mapPath);
        if (!map) {
            s.error = map.error();
            return s;
        }
        Result<OpenedImagery> opened =
            openImagery(imagery, map.value().width, map.value().height, map.value().geo);
        if (!opened || !opened.value().reader) {
            s.error = opened ? "the imagery covers none of the map" : opened.error();
            return s;
        }
        const ImageryPlan& plan = opened.value().plan;
        const ImageryLevel& level = plan.level[0];
        const int count = level.pagesX * level.pagesY;
        s.side = plan.side();
        for (int i = 0; i < std::min(count, kSampledPages); ++i) {
            const int page = int(int64_t(i) * count / std::min(count, kSampledPages));
            std::vector<uint8_t> texels(size_t(s.side) * size_t(s.side) * 4);
            if (!opened.value().reader->readPage(0, page % level.pagesX, page / level.pagesX,
                                                 texels.data())) {
                s.error = "a page could not be read";
                return s;
            }
            const int px = page % level.pagesX, py = page / level.pagesX;
            bool edge = false;
            for (int y = 0; y < s.side; ++y) {
                for (int x = 0; x < s.side; ++x) {
                    const int tx = px * plan.pageTexels + x - plan.border;
                    const int ty = py * plan.pageTexels + y - plan.border;
                    edge =
                        edge || (tx >= 0 && ty >= 0 && tx < level.texelsX && ty < level.texelsY &&
                                 texels[(size_t(y) * size_t(s.side) + size_t(x)) * 4 + 3] != 255);
                }
            }
            s.edged.push_back(edge);
            s.pages.push_back(std::move(texels));
        }
        return s;
    }();
    return sampled;
}

enum Encoder { kStbBc1, kStbBc3, kSquishBc1, kSquishBc3 };

bool hasAlpha(int encoder) {
    return encoder == kStbBc3 || encoder == kSquishBc3;
}

// A page's side x side texels into 4 x 4 blocks (side is a multiple of 4: 520).
void encode(int encoder, const std::vector<uint8_t>& page, int side, std::vector<uint8_t>& out) {
    const size_t blockBytes = hasAlpha(encoder) ? 16 : 8;
    out.resize(size_t(side / 4) * size_t(side / 4) * blockBytes);
    if (encoder == kSquishBc1 || encoder == kSquishBc3) {
        squish::CompressImage(
            page.data(), side, side, out.data(),
            (encoder == kSquishBc1 ? squish::kDxt1 : squish::kDxt5) | squish::kColourClusterFit);
        return;
    }
    uint8_t block[64];
    uint8_t* dest = out.data();
    for (int by = 0; by < side; by += 4) {
        for (int bx = 0; bx < side; bx += 4) {
            for (int y = 0; y < 4; ++y) {
                std::copy_n(&page[(size_t(by + y) * size_t(side) + size_t(bx)) * 4], 16,
                            &block[y * 16]);
            }
            stb_compress_dxt_block(dest, block, hasAlpha(encoder) ? 1 : 0, STB_DXT_HIGHQUAL);
            dest += blockBytes;
        }
    }
}

// state.range(0): the encoder. Each iteration encodes one sampled page (in turn); the counters
// are over every sampled page.
void BM_ImageryPageCompression(benchmark::State& state) {
    const SampledPages& sampled = sampledPages();
    if (sampled.pages.empty()) {
        state.SkipWithError(sampled.error.c_str());
        return;
    }
    const int encoder = int(state.range(0));
    const int side = sampled.side;
    std::vector<uint8_t> blocks, decoded(size_t(side) * size_t(side) * 4);
    double squares = 0.0;
    int largest = 0, alphaLargest = 0, edged = 0;
    size_t texels = 0;
    for (size_t p = 0; p < sampled.pages.size(); ++p) {
        const std::vector<uint8_t>& page = sampled.pages[p];
        encode(encoder, page, side, blocks);
        squish::DecompressImage(decoded.data(), side, side, blocks.data(),
                                hasAlpha(encoder) ? squish::kDxt5 : squish::kDxt1);
        for (size_t i = 0; i < page.size(); i += 4) {
            for (size_t c = 0; c < 3; ++c) {
                const int d = int(decoded[i + c]) - int(page[i + c]);
                squares += double(d) * d;
                largest = std::max(largest, std::abs(d));
            }
            if (hasAlpha(encoder)) {
                alphaLargest = std::max(alphaLargest, std::abs(int(decoded[i + 3]) - page[i + 3]));
            }
        }
        edged += sampled.edged[p];
        texels += page.size() / 4;
    }
    size_t next = 0;
    for (auto _ : state) {
        encode(encoder, sampled.pages[next], side, blocks);
        benchmark::DoNotOptimize(blocks.data());
        next = (next + 1) % sampled.pages.size();
    }
    const double rms = std::sqrt(squares / (3.0 * double(texels)));
    state.counters["pages"] = double(sampled.pages.size());
    state.counters["bytes_per_texel"] = double(blocks.size()) / (double(side) * side);
    state.counters["rms"] = rms;
    state.counters["psnr_db"] = 20.0 * std::log10(255.0 / std::max(rms, 1e-9));
    state.counters["largest"] = largest;
    state.counters["alpha_largest"] = hasAlpha(encoder) ? alphaLargest : -1;
    state.counters["pages_with_alpha_edges"] = edged;
}
BENCHMARK(BM_ImageryPageCompression)
    ->ArgName("encoder")
    ->DenseRange(kStbBc1, kSquishBc3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qt
