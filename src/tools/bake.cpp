// quadterrain-bake: bakes a map into a layout folder the viewer streams by pages (the layout:
// core/streaming/bake.h), or checks one.
//
// Usage: quadterrain-bake INPUT OUTPUT [--leaf-size N] [--page-size N] [--region-size N]
//                                      [--threads N]
//        quadterrain-bake --verify LAYOUT      (a layout's folder, or its URL)
//
// INPUT is anything the viewer opens streamed (a GDAL raster, a .r16), read by regions of
// --region-size squares, --threads at once (one a core by default), never whole and through no
// cache. On a terminal, stderr counts the regions baked. Prints a line of what it wrote and one of
// how; exit 0. Bad input, an OUTPUT that holds files not of a layout, a layout that does not match
// its checksums: one line on stderr, exit 2.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/io/memory_budget.h"
#include "core/streaming/bake.h"

namespace {

constexpr const char* kUsage =
    "usage: quadterrain-bake INPUT OUTPUT [--leaf-size N] [--page-size N] [--region-size N]\n"
    "                                     [--threads N]\n"
    "       quadterrain-bake --verify LAYOUT\n";

bool parseCount(const char* text, int& out) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 1 || value > 65536) {
        return false;
    }
    out = int(value);
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace qt;
    if (argc == 3 && std::strcmp(argv[1], "--verify") == 0) {
        const Status checked = verifyLayout(argv[2]);
        if (!checked) {
            std::fprintf(stderr, "quadterrain-bake: %s: %s\n", argv[2], checked.error().c_str());
            return 2;
        }
        std::printf("%s: every tile and the tree match layout.json\n", argv[2]);
        return 0;
    }
    std::string input, output;
    BakeOptions options;
    options.load.memory.limitBytes = defaultMemoryBudgetBytes();
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--leaf-size" && hasValue) {
            if (!parseCount(argv[++i], options.leafSize)) {
                std::fprintf(stderr, "quadterrain-bake: --leaf-size wants a count, 1 to 65536\n");
                return 2;
            }
        } else if (arg == "--page-size" && hasValue) {
            if (!parseCount(argv[++i], options.pageSize)) {
                std::fprintf(stderr, "quadterrain-bake: --page-size wants a count, 1 to 65536\n");
                return 2;
            }
        } else if (arg == "--region-size" && hasValue) {
            if (!parseCount(argv[++i], options.regionSize)) {
                std::fprintf(stderr, "quadterrain-bake: --region-size wants a count, 1 to 65536\n");
                return 2;
            }
        } else if (arg == "--threads" && hasValue) {
            if (!parseCount(argv[++i], options.threads)) {
                std::fprintf(stderr, "quadterrain-bake: --threads wants a count, 1 to 65536\n");
                return 2;
            }
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "quadterrain-bake: unknown option %s\n", arg.c_str());
            return 2;
        } else if (input.empty()) {
            input = arg;
        } else if (output.empty()) {
            output = arg;
        } else {
            std::fprintf(stderr, "quadterrain-bake: one INPUT and one OUTPUT, then options\n");
            return 2;
        }
    }
    if (input.empty() || output.empty()) {
        std::fprintf(stderr, "%s", kUsage);
        return 2;
    }
    // The regions baked so far, on a terminal: a long bake says how far it is.
    const bool terminal = ::isatty(STDERR_FILENO) != 0;
    bool counting = false;  // a count is on stderr's last line, unended
    if (terminal) {
        options.progress = [&counting](int done, int total) {
            counting = done < total;
            std::fprintf(stderr, "\rquadterrain-bake: %d of %d regions", done, total);
            if (done == total) {
                std::fprintf(stderr, "\n");
            }
        };
    }
    const Result<BakeSummary> baked = bakeLayout(input, output, options);
    if (!baked) {
        // A count cut short by the failure ends its line first: the failure is a line of its own.
        std::fprintf(stderr, "%squadterrain-bake: %s: %s\n", counting ? "\n" : "", input.c_str(),
                     baked.error().c_str());
        return 2;
    }
    const BakeSummary& s = baked.value();
    std::printf("%s: %d x %d samples, leaves of %d, %d levels, %lld tiles of %d^2, %.1f MiB\n",
                output.c_str(), s.width, s.height, s.leafSize, s.levels,
                static_cast<long long>(s.tiles), s.pageSize, double(s.bytes) / 1048576.0);
    std::printf(
        "read in %d region%s of %d x %d squares, %d at once; the tree's levels 1 to %d of %d "
        "exact, the range bound above\n",
        s.regions, s.regions == 1 ? "" : "s", s.regionSize, s.regionSize, s.threads, s.exactLevels,
        s.treeDepth);
    return 0;
}
