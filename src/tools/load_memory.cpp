// load_memory: loads a heightmap and builds its tree as the viewer does, without a GPU, and
// prints the process's peak resident memory after each step as one JSON object.
//
// Usage: load_memory MAP [--leaf N]      (bench/memory.py runs it beside the viewer)
//        load_memory MAP --streamed [--leaf N] [--budget BYTES] [--band BYTES]
//
// The viewer adds the GPU's copy of the codes (2 bytes a sample, in host memory on llvmpipe) and
// the frame buffers; this is the CPU side of a load: decode, codes, tree. --streamed opens a .r16
// as the viewer's streamed open does (openStreamed: codes mapped, tree from its sidecar or a
// banded pass), or a GDAL raster (its code cache read, or written by a pass through GDAL), and
// adds the open's wall time, leaf size, whether the sidecar was used and where the codes came from.
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/frame/frame.h"
#include "core/io/load.h"
#include "core/lod/lod_error.h"
#include "core/streaming/open_map.h"

namespace {

// VmHWM and VmRSS from /proc/self/status, in bytes (0 where unreadable).
struct Resident {
    unsigned long long peak = 0;
    unsigned long long now = 0;
};

Resident resident() {
    Resident r;
    FILE* status = std::fopen("/proc/self/status", "r");
    if (status == nullptr) {
        return r;
    }
    char line[256];
    while (std::fgets(line, sizeof line, status) != nullptr) {
        unsigned long long kb = 0;
        if (std::sscanf(line, "VmHWM: %llu kB", &kb) == 1) {
            r.peak = kb * 1024;
        } else if (std::sscanf(line, "VmRSS: %llu kB", &kb) == 1) {
            r.now = kb * 1024;
        }
    }
    std::fclose(status);
    return r;
}

void printStep(const char* name, const Resident& r, bool last) {
    std::printf("  \"%s\": {\"peak_bytes\": %llu, \"resident_bytes\": %llu}%s\n", name, r.peak,
                r.now, last ? "" : ",");
}

// The streamed open of a .r16 or a GDAL raster and its figures.
int streamed(const char* path, int leafSize, uint64_t budget, uint64_t band) {
    const Resident start = resident();
    qt::LoadOptions options;
    options.memory.limitBytes = budget;
    qt::StreamOptions stream;
    stream.bandBytes = band;
    const auto began = std::chrono::steady_clock::now();
    qt::Result<qt::StreamedMap> opened = qt::openStreamed(path, options, leafSize, stream);
    const double openMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    if (!opened) {
        std::fprintf(stderr, "load_memory: %s\n", opened.error().c_str());
        return 1;
    }
    const qt::StreamedMap& s = opened.value();
    qt::FrameBuffers frame;
    frame.reserveFor(s.tree);
    malloc_trim(0);
    const Resident built = resident();
    const long long samples = s.map.sampleCount();
    std::printf("{\n  \"width\": %d,\n  \"height\": %d,\n  \"samples\": %lld,\n", s.map.width,
                s.map.height, samples);
    std::printf("  \"leaf_size\": %d,\n  \"lod_errors\": \"%s\",\n  \"exact_levels\": %d,\n",
                s.leafSize, qt::lodErrorsName(s.tree.lodErrors), s.tree.exactLevels);
    std::printf("  \"sidecar_used\": %s,\n  \"sidecar_written\": %s,\n",
                s.sidecarUsed ? "true" : "false", s.sidecarWritten ? "true" : "false");
    std::printf("  \"open_ms\": %.1f,\n  \"prepass_ms\": %.1f,\n  \"sidecar_read_ms\": %.1f,\n",
                openMs, s.prepassMs, s.sidecarReadMs);
    std::printf("  \"codes\": \"%s\",\n  \"cache_ms\": %.1f,\n",
                s.codes == qt::CodeSource::MapFile        ? "map file"
                : s.codes == qt::CodeSource::CacheWritten ? "cache written"
                : s.codes == qt::CodeSource::CacheNotKept ? "cache not kept"
                                                          : "cache read",
                s.cacheMs);
    printStep("start", start, false);
    printStep("opened", built, false);
    std::printf("  \"peak_bytes_per_sample\": %.3f\n}\n", double(built.peak) / double(samples));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    int leafSize = 4;
    bool stream = false;
    uint64_t budget = 0;
    uint64_t band = qt::kStreamBandBytes;
    bool usage = argc < 2;
    for (int i = 2; i < argc && !usage; ++i) {
        const bool value = i + 1 < argc;
        if (std::strcmp(argv[i], "--streamed") == 0) {
            stream = true;
        } else if (std::strcmp(argv[i], "--leaf") == 0 && value) {
            leafSize = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--budget") == 0 && value) {
            budget = std::strtoull(argv[++i], nullptr, 10);
        } else if (std::strcmp(argv[i], "--band") == 0 && value) {
            band = std::strtoull(argv[++i], nullptr, 10);
        } else {
            usage = true;
        }
    }
    if (usage || (!stream && (budget != 0 || band != qt::kStreamBandBytes))) {
        std::fprintf(
            stderr,
            "usage: load_memory MAP [--leaf N]\n"
            "       load_memory MAP --streamed [--leaf N] [--budget BYTES] [--band BYTES]\n");
        return 2;
    }
    if (stream) {
        return streamed(argv[1], leafSize, budget, band);
    }
    const Resident start = resident();
    qt::Result<qt::Heightmap> map = qt::loadHeightmap(argv[1]);
    if (!map) {
        std::fprintf(stderr, "load_memory: %s\n", map.error().c_str());
        return 1;
    }
    malloc_trim(0);
    const Resident decoded = resident();
    qt::Result<qt::Quadtree> tree = qt::buildQuadtreeExact(map.value(), leafSize);
    if (!tree) {
        std::fprintf(stderr, "load_memory: %s\n", tree.error().c_str());
        return 1;
    }
    qt::FrameBuffers frame;
    frame.reserveFor(tree.value());
    malloc_trim(0);
    const Resident built = resident();
    const long long samples = map.value().sampleCount();
    std::printf("{\n  \"width\": %d,\n  \"height\": %d,\n  \"samples\": %lld,\n", map.value().width,
                map.value().height, samples);
    printStep("start", start, false);
    printStep("decoded", decoded, false);
    printStep("tree", built, false);
    std::printf("  \"peak_bytes_per_sample\": %.3f\n}\n", double(built.peak) / double(samples));
    return 0;
}
