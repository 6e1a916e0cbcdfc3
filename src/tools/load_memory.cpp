// load_memory: loads a heightmap and builds its tree as the viewer does, without a GPU, and
// prints the process's peak resident memory after each step as one JSON object.
//
// Usage: load_memory MAP [--leaf N]      (bench/memory.py runs it beside the viewer)
//
// The viewer adds the GPU's copy of the codes (2 bytes a sample, in host memory on llvmpipe) and
// the frame buffers; this is the CPU side of a load: decode, codes, tree.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/frame.h"
#include "core/heightmap.h"
#include "core/quadtree.h"

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

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 && !(argc == 4 && std::strcmp(argv[2], "--leaf") == 0)) {
        std::fprintf(stderr, "usage: load_memory MAP [--leaf N]\n");
        return 2;
    }
    const int leafSize = argc == 4 ? std::atoi(argv[3]) : 4;
    const Resident start = resident();
    qt::Result<qt::Heightmap> map = qt::loadHeightmap(argv[1]);
    if (!map) {
        std::fprintf(stderr, "load_memory: %s\n", map.error().c_str());
        return 1;
    }
    malloc_trim(0);
    const Resident decoded = resident();
    qt::Result<qt::Quadtree> tree = qt::buildQuadtree(map.value(), leafSize);
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
