// --bench: the fixed flight of core/view/flight_path.h in every mode, interleaved camera by camera,
// then the CSV of every frame and the summary of medians and ratios.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "app/cull_map.h"
#include "app/frame_budget.h"
#include "app/scripted.h"
#include "core/base/median.h"
#include "core/view/flight_path.h"
#include "render/terrain_sun.h"

namespace qt {
namespace {

// Frames of the benchmark flight when --frames is not given.
constexpr int kBenchFrames = 240;

// A mode: its name in the CSV, how it culls, how it draws.
struct BenchMode {
    const char* name;
    CullMode cull;
    DrawVariant variant;
};

// Culled, frustum only, unculled; with --lod, culled by level of detail; with synchronised
// draws, culled in one draw without waits; with back faces culled, culled drawing them; with a
// Sun's shadows, culled while the shadows of a new Sun direction are computed behind the frame.
enum : size_t { kCulled, kFrustum, kUnculled, kLod, kOneDraw, kTwoSided, kSunMoving, kBenchModes };
constexpr BenchMode kModes[kBenchModes] = {
    {"culled", CullMode::FrustumAndOcclusion, DrawVariant::AsSetUp},
    {"frustum", CullMode::FrustumOnly, DrawVariant::AsSetUp},
    {"unculled", CullMode::None, DrawVariant::AsSetUp},
    {"lod", CullMode::FrustumAndOcclusion, DrawVariant::AsSetUp},
    {"one-draw", CullMode::FrustumAndOcclusion, DrawVariant::OneDraw},
    {"two-sided", CullMode::FrustumAndOcclusion, DrawVariant::TwoSided},
    {"sun-moving", CullMode::FrustumAndOcclusion, DrawVariant::AsSetUp}};

// The Sun's azimuth turns by this much before each sun-moving frame: every one asks for new
// shadows.
constexpr double kSunMovingDegrees = 7.0;

struct BenchRow {
    glm::vec3 eye;
    FrameStats stats;
    float lodPixels = 0.0f;  // the bound the frame was drawn with (0: full detail)
};

// What a run measured: the modes it flew, a row per camera for each, and peak resident memory.
struct BenchRun {
    std::vector<size_t> modes;
    std::vector<BenchRow> rows[kBenchModes];
    double loadedMb = 0.0;    // the load and the context, before any frame
    double flightMb = 0.0;    // after the culled (or level-of-detail) flight alone
    double unculledMb = 0.0;  // after the interleaved flight, unculled frames included
};

// The process's peak resident memory so far (VmHWM), in MiB; 0 where /proc is missing.
double peakResidentMb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) {
            return std::stod(line.substr(6)) / 1024.0;  // kB
        }
    }
    return 0.0;
}

// With --frame-budget MS and --lod auto on a map drawn by level of detail, the level-of-detail
// frames hold MS as the viewer flown by hand does (app/frame_budget.h): each frame's own time
// moves the bound, from the flight's first untimed frame on.
bool budgeted(const Session& s) {
    return !s.options.lodPixels && s.options.frameBudgetMs.value_or(0) > 0 &&
           autoLodPixels(s.terrain.map.width, s.terrain.map.height) > 0.0f;
}

// The level-of-detail mode's bound: --lod's, or where a frame budget moves it, where it starts.
float benchLodPixels(const Session& s) {
    return budgeted(s) ? lodPixelsFor(s.options, s.terrain.map.width, s.terrain.map.height)
                       : s.options.lodPixels.value_or(0.0f);
}

// The full-detail three, then the modes this run's options and renderer call for.
// With --bench-lod-only, the level-of-detail flight alone: maps whose full-detail frames take
// too long to fly.
std::vector<size_t> modesFor(const Session& s) {
    if (s.options.benchLodOnly) {
        return {kLod};
    }
    std::vector<size_t> modes = {kCulled, kFrustum, kUnculled};
    if (benchLodPixels(s) > 0.0f) {
        modes.push_back(kLod);
    }
    if (s.renderer.syncDraws) {
        modes.push_back(kOneDraw);
    }
    if (s.renderer.backFaceCulling) {
        modes.push_back(kTwoSided);
    }
    if (s.terrain.sunlight) {
        modes.push_back(kSunMoving);
    }
    return modes;
}

// How long the untimed flight lasts at least, repeated: a GPU's clocks rise only after it has
// been busy a while. An H100 came out of a 16385² map's load (seconds of CPU work, the GPU idle)
// at 345 MHz of its 1980 and took about a second of frames to pass 1300 (nvidia-smi every 100 ms,
// 2026-11-26); at the clocks of a slow CPU-bound frame it stayed near 480 MHz.
constexpr double kBenchWarmUpSeconds = 2.0;
// The most warm-up passes a frame budget's bound gets to settle in.
constexpr int kBenchBudgetPasses = 16;

// First the culled flight alone (by level of detail when --lod asks for it), so that the peak
// after it is that flight's, repeated until kBenchWarmUpSeconds have passed. Then the timed flight:
// each camera in every mode in turn, the order rotating from camera to camera, so a burst of host
// noise lands on every mode alike rather than on one mode's pass.
void fly(Session& s, const Framebuffer& target, const std::vector<Camera>& path, BenchRun& run) {
    const float lodPixels = benchLodPixels(s);
    std::optional<FrameBudget> budget;
    if (budgeted(s)) {
        budget.emplace(double(*s.options.frameBudgetMs), lodPixels);
    }
    SunlightJob* const sunlight = s.terrain.sunlight.get();
    SunDirection sun = s.renderer.sun.value_or(SunDirection{});
    const auto frame = [&](const Camera& camera, size_t mode) {
        // Every frame of a Sun starts with no shadows being computed. A sun-moving frame asks
        // for a new direction's as it starts and takes (uploads) the last ones finished, as the
        // viewer's frame does while the Sun moves, all within its time.
        if (sunlight != nullptr) {
            sunlight->waitIdle();
        }
        if (mode == kLod) {
            const float pixels = budget ? budget->pixels() : lodPixels;
            BenchRow row{
                camera.position,
                renderFrame(s, target, camera, kModes[mode].cull, pixels, kModes[mode].variant),
                pixels};
            if (budget) {
                budget->update(row.stats.frameMs);
            }
            return row;
        }
        if (mode != kSunMoving) {
            return BenchRow{camera.position, renderFrame(s, target, camera, kModes[mode].cull, 0.0f,
                                                         kModes[mode].variant)};
        }
        const auto start = std::chrono::steady_clock::now();
        sun.azimuth = std::fmod(sun.azimuth + kSunMovingDegrees, 360.0);
        sunlight->request(sun);
        updateTerrainSun(s.terrain, s.renderer);
        FrameStats stats =
            renderFrame(s, target, camera, kModes[mode].cull, 0.0f, kModes[mode].variant);
        stats.frameMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        return BenchRow{camera.position, stats};
    };
    run.loadedMb = peakResidentMb();
    const size_t flown = lodPixels > 0.0f ? kLod : kCulled;
    frame(path.front(), flown);  // warm-up
    const std::chrono::steady_clock::time_point warmUp = std::chrono::steady_clock::now();
    // A frame budget's bound moves a step at most every kFrameBudgetSettleFrames frames: the
    // warm-up flies on until that many frames in a row leave it where it was, which a pass of
    // fewer cameras than that cannot show alone (at most kBenchBudgetPasses).
    int still = 0;  // frames since the bound last moved
    int passes = 0;
    do {
        for (const Camera& camera : path) {
            const float before = budget ? budget->pixels() : 0.0f;
            frame(camera, flown);
            still = budget && budget->pixels() != before ? 0 : still + 1;
        }
        glFinish();
        ++passes;
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - warmUp).count() <
                 kBenchWarmUpSeconds ||
             (budget && still < kFrameBudgetSettleFrames && passes < kBenchBudgetPasses));
    run.flightMb = peakResidentMb();
    for (const size_t mode : run.modes) {
        run.rows[mode].resize(path.size());
        frame(path.front(), mode);  // warm-up
    }
    for (size_t i = 0; i < path.size(); ++i) {
        for (size_t k = 0; k < run.modes.size(); ++k) {
            const size_t mode = run.modes[(i + k) % run.modes.size()];
            run.rows[mode][i] = frame(path[i], mode);
        }
    }
    glFinish();
    run.unculledMb = peakResidentMb();
}

// One row per frame of every mode, written and closed with every step checked (writeFile).
Status writeCsv(const std::string& path, const BenchRun& run) {
    std::string csv =
        "mode,frame,eye_x,eye_y,eye_z,nodes_tested,leaves_drawn,leaves_culled,leaves_occluded,"
        "draw_calls,triangles,cull_ms,frame_ms,gpu_ms,lod_pixels,objects_cull_ms,"
        "objects_prepare_ms,objects_gpu_ms\n";
    for (const size_t mode : run.modes) {
        for (size_t i = 0; i < run.rows[mode].size(); ++i) {
            const BenchRow& r = run.rows[mode][i];
            const CullStats& c = r.stats.cull;
            char line[400];
            std::snprintf(line, sizeof(line),
                          "%s,%zu,%.3f,%.3f,%.3f,%u,%u,%u,%u,%d,%llu,%.4f,%.4f,%.4f,%.2f,%.4f,%.4f,"
                          "%.4f\n",
                          kModes[mode].name, i, r.eye.x, r.eye.y, r.eye.z, c.nodesTested,
                          c.leavesDrawn, c.leavesCulled, c.leavesOccluded, r.stats.drawCalls,
                          (unsigned long long)c.triangles, r.stats.cullMs, r.stats.frameMs,
                          r.stats.gpuMs, double(r.lodPixels), r.stats.objects.cullMs,
                          r.stats.objectPrepareMs, r.stats.objectGpuMs);
            csv += line;
        }
    }
    return writeFile(path, csv.data(), csv.size());
}

// A mode's frames: median, worst, the median share spent culling and building the draw list, and
// the median of the GPU's own time (timer queries round the frame's GL sections: GpuSections).
struct ModeSummary {
    double medianMs = 0.0;
    double worstMs = 0.0;
    double cullShare = 0.0;  // percent
    double gpuMs = 0.0;
};

ModeSummary summarise(const std::vector<BenchRow>& rows) {
    std::vector<double> ms, shares, gpu;
    for (const BenchRow& r : rows) {
        ms.push_back(r.stats.frameMs);
        shares.push_back(r.stats.frameMs > 0 ? 100.0 * r.stats.cullMs / r.stats.frameMs : 0.0);
        gpu.push_back(r.stats.gpuMs);
    }
    ModeSummary m;
    m.medianMs = median(ms);
    m.gpuMs = median(gpu);
    m.worstMs = ms.empty() ? 0.0 : *std::max_element(ms.begin(), ms.end());
    m.cullShare = median(shares);
    return m;
}

double ratio(double a, double b) {
    return b > 0 ? a / b : 0.0;
}

// The median of `value` over a mode's rows.
template <class Value>
double medianOf(const std::vector<BenchRow>& rows, Value value) {
    std::vector<double> values;
    for (const BenchRow& r : rows) {
        values.push_back(value(r.stats));
    }
    return median(values);
}

// Frame times and their ratios, what occlusion removed, level of detail, draw calls, back faces,
// the bounded queue, memory and the load, one line each.
void printSummary(const Session& s, const BenchRun& run, int frames) {
    const ViewerOptions& o = s.options;
    ModeSummary m[kBenchModes];
    for (const size_t mode : run.modes) {
        m[mode] = summarise(run.rows[mode]);
    }
    std::printf("bench: %s, %dx%d samples, leaf %d, %d frames at %dx%d -> %s\n  renderer: %s\n",
                s.terrain.path.c_str(), s.terrain.map.width, s.terrain.map.height,
                s.terrain.tree.leafSize, frames, o.windowWidth, o.windowHeight,
                o.benchCsvPath.c_str(), s.renderer.glRenderer.c_str());
    const bool full = !o.benchLodOnly;
    if (full) {
        std::printf("  culled:   median %.3f ms, worst %.3f ms (frustum and occlusion)\n",
                    m[kCulled].medianMs, m[kCulled].worstMs);
        std::printf("  frustum:  median %.3f ms, worst %.3f ms (frustum only)\n",
                    m[kFrustum].medianMs, m[kFrustum].worstMs);
        std::printf("  unculled: median %.3f ms, worst %.3f ms\n", m[kUnculled].medianMs,
                    m[kUnculled].worstMs);
        std::printf("  unculled / culled: median %.2fx, worst %.2fx\n",
                    ratio(m[kUnculled].medianMs, m[kCulled].medianMs),
                    ratio(m[kUnculled].worstMs, m[kCulled].worstMs));
        std::printf("  unculled / frustum only: median %.2fx, worst %.2fx\n",
                    ratio(m[kUnculled].medianMs, m[kFrustum].medianMs),
                    ratio(m[kUnculled].worstMs, m[kFrustum].worstMs));
        const double occluded = medianOf(run.rows[kCulled], [](const FrameStats& f) {
            const double inFrustum = double(f.cull.leavesDrawn + f.cull.leavesOccluded);
            return inFrustum > 0 ? 100.0 * f.cull.leavesOccluded / inFrustum : 0.0;
        });
        std::printf("  occluded: median %.1f%% of the leaves in the frustum\n", occluded);
        std::printf("  culling and draw list: median %.3f%% of a culled frame\n",
                    m[kCulled].cullShare);
    }
    if (benchLodPixels(s) > 0.0f) {
        const auto triangles = [](const FrameStats& f) { return double(f.cull.triangles); };
        if (budgeted(s)) {
            std::vector<double> bounds;
            for (const BenchRow& r : run.rows[kLod]) {
                bounds.push_back(double(r.lodPixels));
            }
            std::printf(
                "  lod:      median %.3f ms, worst %.3f ms (level of detail held to a frame "
                "budget of %llu ms: within %.2f to %.2f pixels of full detail, median %.2f; "
                "frustum and occlusion)\n",
                m[kLod].medianMs, m[kLod].worstMs, (unsigned long long)*o.frameBudgetMs,
                *std::min_element(bounds.begin(), bounds.end()),
                *std::max_element(bounds.begin(), bounds.end()), median(bounds));
        } else {
            std::printf(
                "  lod:      median %.3f ms, worst %.3f ms (level of detail, within %.2f pixels "
                "of full detail; frustum and occlusion)\n",
                m[kLod].medianMs, m[kLod].worstMs, double(benchLodPixels(s)));
        }
        if (full) {
            std::printf("  culled / lod: median %.2fx; unculled / lod: median %.2fx\n",
                        ratio(m[kCulled].medianMs, m[kLod].medianMs),
                        ratio(m[kUnculled].medianMs, m[kLod].medianMs));
        }
        std::printf("  triangles: median %.0f culled, %.0f with level of detail\n",
                    medianOf(run.rows[kCulled], triangles), medianOf(run.rows[kLod], triangles));
        std::printf(
            "  selection, culling and draw list: median %.3f%% of a level-of-detail frame\n",
            m[kLod].cullShare);
    }
    std::printf("  GPU time (timer queries round the GL work), median:");
    for (const size_t mode : run.modes) {
        std::printf(" %s %.3f ms%s", kModes[mode].name, m[mode].gpuMs,
                    mode == run.modes.back() ? "\n" : ",");
    }
    if (s.terrain.objects) {
        // The objects' share of the frames they were drawn in, section by section.
        const size_t mode = full ? kCulled : kLod;
        const std::vector<BenchRow>& rows = run.rows[mode];
        std::printf(
            "  objects (%s), median: culling %.3f ms, instances %.3f ms (CPU); %.3f ms of GPU "
            "time of %.3f\n",
            kModes[mode].name, medianOf(rows, [](const FrameStats& f) { return f.objects.cullMs; }),
            medianOf(rows, [](const FrameStats& f) { return f.objectPrepareMs; }),
            medianOf(rows, [](const FrameStats& f) { return f.objectGpuMs; }), m[mode].gpuMs);
    }
    int mostDraws = 0;
    size_t backFaceFrames = 0, allFrames = 0;
    uint64_t frontOnly = 0, instances = 0;  // instances drawn with back faces culled, of all
    for (const size_t mode : run.modes) {
        for (const BenchRow& r : run.rows[mode]) {
            mostDraws = std::max(mostDraws, r.stats.drawCalls);
            if (mode != kTwoSided) {
                backFaceFrames += r.stats.backFacesCulled ? 1 : 0;
                ++allFrames;
                frontOnly += r.stats.instancesFrontOnly;
                // Less those that draw nothing (every square a hole): no instance is made of them.
                instances +=
                    (r.stats.lod ? r.stats.lodStats.nodesDrawn : r.stats.cull.leavesDrawn) -
                    r.stats.instancesEmpty;
            }
        }
    }
    std::printf("  draw calls: at most %d a frame (%s)\n", mostDraws,
                s.renderer.syncDraws ? "synchronised batches" : "one a frame");
    std::printf(
        "  back faces culled: in %zu of the %zu frames of the other modes, %.1f%% of their "
        "instances%s\n",
        backFaceFrames, allFrames,
        instances > 0 ? 100.0 * double(frontOnly) / double(instances) : 0.0,
        s.renderer.backFaceCulling ? "" : " (--back-faces draw)");
    if (full && s.renderer.backFaceCulling) {
        std::printf("  two-sided: median %.3f ms, worst %.3f ms (culled, back faces drawn)\n",
                    m[kTwoSided].medianMs, m[kTwoSided].worstMs);
        std::printf("  two-sided / culled: median %.2fx (what culling back faces saves)\n",
                    ratio(m[kTwoSided].medianMs, m[kCulled].medianMs));
    }
    if (full && s.terrain.sunlight) {
        std::printf(
            "  sun-moving: median %.3f ms, worst %.3f ms (culled, new shadows computed behind "
            "each frame)\n",
            m[kSunMoving].medianMs, m[kSunMoving].worstMs);
        std::printf("  sun-moving / culled: median %.2fx (frames while shadows are computed)\n",
                    ratio(m[kSunMoving].medianMs, m[kCulled].medianMs));
    }
    if (full && s.renderer.syncDraws) {
        std::printf("  one-draw: median %.3f ms, worst %.3f ms (culled, one draw without waits)\n",
                    m[kOneDraw].medianMs, m[kOneDraw].worstMs);
        std::printf("  culled / one-draw: median %.2fx (the price of the bounded queue)\n",
                    ratio(m[kCulled].medianMs, m[kOneDraw].medianMs));
    }
    const double bytesPerMb = 1048576.0 / double(s.terrain.map.sampleCount());
    std::printf(
        "  peak resident memory: %.1f MiB after the %s flight (%.1f bytes a sample), "
        "%.1f MiB after the unculled frames (%.1f bytes a sample), %.1f MiB before the first "
        "frame\n",
        run.flightMb, benchLodPixels(s) > 0.0f ? "level-of-detail" : "culled",
        run.flightMb * bytesPerMb, run.unculledMb, run.unculledMb * bytesPerMb, run.loadedMb);
    const LoadTimes& t = s.terrain.times;
    std::printf(
        "  load: %.1f ms to the first frame (decode %.1f, tree %.1f, upload %.1f, the first "
        "view's level-0 pages %.1f); exact level of detail errors %.1f ms behind it; the rest of "
        "level 0 %.1f ms before the flight\n",
        t.totalMs(), t.decodeMs, t.treeMs, t.uploadMs, t.pagesMs, t.errorsMs, t.restMs);
}

}  // namespace

int runBench(Session& s) {
    const ViewerOptions& o = s.options;
    const int frames = o.frames > 0 ? o.frames : kBenchFrames;
    const float aspect = float(o.windowWidth) / float(o.windowHeight);
    const std::vector<Camera> path = flightPath(s.terrain.map, s.terrain.mapping, frames, aspect);
    Result<Framebuffer> target = Framebuffer::create(o.windowWidth, o.windowHeight);
    if (!target) {
        std::fprintf(stderr, "quadterrain: %s\n", target.error().c_str());
        return kExitFailure;
    }
    // The minimap's decision lists are not needed here; reserve once, outside the loop.
    s.terrain.finishErrors();  // every frame flown with the same, exact, errors
    // Level 0 on demand: all of it on the GPU first, so that the frames measure drawing, not
    // the pages' uploads (a streamed map's, mapped from its file, still stream as it flies).
    s.terrain.completeLevel0();
    s.terrain.frame.reserveFor(s.terrain.tree, false);
    BenchRun run;
    run.modes = modesFor(s);
    fly(s, target.value(), path, run);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    target.value().destroy();
    s.context.checkErrors("the benchmark frames");
    if (Status written = writeCsv(o.benchCsvPath, run); !written) {
        std::fprintf(stderr, "quadterrain: %s\n", written.error().c_str());
        return kExitFailure;
    }
    printSummary(s, run, frames);
    return 0;
}

}  // namespace qt
