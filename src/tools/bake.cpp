// quadterrain-bake: bakes a map into a layout folder the viewer streams by pages (the layout:
// core/streaming/bake.h), or checks one.
//
// Usage: quadterrain-bake INPUT OUTPUT [--leaf-size N] [--page-size N] [--region-size N]
//                                      [--threads N] [--plan | --job I/N]
//        quadterrain-bake --join OUTPUT [--threads N]
//        quadterrain-bake --verify LAYOUT      (a layout's folder, or its URL)
//
// INPUT is anything the viewer opens streamed (a GDAL raster, a .r16), read by regions of
// --region-size squares, --threads at once (one a core by default), never whole and through no
// cache. --job I/N bakes the I-th of N shares of the regions into OUTPUT/regions/, one process a
// job on any machine that sees OUTPUT (every job given the same INPUT and options); --join then
// makes the layout of them. --plan, run once before the jobs, writes their plan (a float band's
// pass over the input, which the jobs then take rather than each taking it again). On a terminal,
// stderr counts the regions baked. Prints a line of what it wrote and one of how; exit 0. Bad
// input, an OUTPUT that holds files not of a layout, a region missing or stale at the join, a
// layout that does not match its checksums: one line on stderr, exit 2.
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
    "                                     [--threads N] [--plan | --job I/N]\n"
    "       quadterrain-bake --join OUTPUT [--threads N]\n"
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

// "I/N", 1 <= I <= N <= 65536.
bool parseJob(const char* text, int& job, int& jobs) {
    const char* slash = std::strchr(text, '/');
    if (slash == nullptr) {
        return false;
    }
    const std::string first(text, slash);
    return parseCount(first.c_str(), job) && parseCount(slash + 1, jobs) && job <= jobs;
}

void printSummary(const char* output, const qt::BakeSummary& s) {
    std::printf("%s: %d x %d samples, leaves of %d, %d levels, %lld tiles of %d^2, %.1f MiB\n",
                output, s.width, s.height, s.leafSize, s.levels, static_cast<long long>(s.tiles),
                s.pageSize, double(s.bytes) / 1048576.0);
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
    std::string input, output, join;
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
        } else if (arg == "--job" && hasValue) {
            if (!parseJob(argv[++i], options.job, options.jobs)) {
                std::fprintf(stderr, "quadterrain-bake: --job wants I/N, a job I of 1 to N jobs\n");
                return 2;
            }
        } else if (arg == "--plan") {
            options.planOnly = true;
        } else if (arg == "--join" && hasValue) {
            join = argv[++i];
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
    if (options.planOnly && options.jobs > 0) {
        std::fprintf(stderr, "quadterrain-bake: --plan makes the plan of the jobs, not a job\n");
        return 2;
    }
    if (!join.empty()) {
        if (!input.empty() || options.jobs > 0 || options.planOnly) {
            std::fprintf(stderr, "%s", kUsage);
            return 2;
        }
        const Result<BakeSummary> joined = joinLayout(join, options);
        if (!joined) {
            std::fprintf(stderr, "quadterrain-bake: %s: %s\n", join.c_str(),
                         joined.error().c_str());
            return 2;
        }
        const BakeSummary& s = joined.value();
        printSummary(join.c_str(), s);
        std::printf(
            "joined from %d region%s of %d x %d squares; the tree's levels 1 to %d of %d "
            "exact, the range bound above\n",
            s.regions, s.regions == 1 ? "" : "s", s.regionSize, s.regionSize, s.exactLevels,
            s.treeDepth);
        return 0;
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
    if (options.planOnly) {
        std::printf(
            "%s: plan.json of %d x %d samples in %d regions of %d x %d squares; run the "
            "jobs (--job I/N) with the same input and options, then --join %s\n",
            output.c_str(), s.width, s.height, s.regions, s.regionSize, s.regionSize,
            output.c_str());
        return 0;
    }
    if (options.jobs > 0 && s.firstRegion == s.endRegion) {
        std::printf("%s: job %d of %d has no region of the %d to bake (more jobs than regions)\n",
                    output.c_str(), options.job, options.jobs, s.regions);
        return 0;
    }
    if (options.jobs > 0) {
        std::printf(
            "%s: job %d of %d baked regions %d to %d of %d (%d x %d squares each), %d at "
            "once; quadterrain-bake --join %s makes the layout once every job has run\n",
            output.c_str(), options.job, options.jobs, s.firstRegion, s.endRegion - 1, s.regions,
            s.regionSize, s.regionSize, s.threads, output.c_str());
        return 0;
    }
    printSummary(output.c_str(), s);
    std::printf(
        "read in %d region%s of %d x %d squares, %d at once; the tree's levels 1 to %d of %d "
        "exact, the range bound above\n",
        s.regions, s.regions == 1 ? "" : "s", s.regionSize, s.regionSize, s.threads, s.exactLevels,
        s.treeDepth);
    return 0;
}
