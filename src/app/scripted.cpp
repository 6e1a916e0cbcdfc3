// The scripted modes: offscreen frames, the files they write, and the culled/unculled benchmark.
#include "app/scripted.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "app/cull_map.h"
#include "app/median.h"
#include "app/stats_json.h"
#include "core/flight_path.h"
#include "render/framebuffer.h"

namespace qt {
namespace {

using Clock = std::chrono::steady_clock;

// Frames of the benchmark flight when --frames is not given.
constexpr int kBenchFrames = 240;
// Culled, frustum only, unculled; with --lod, culled by level of detail; with synchronised
// draws, culled in one draw without waits; with back faces culled, culled drawing them.
constexpr size_t kBenchModes = 6;

// How a frame culls in the scripted runs.
enum class CullMode { FrustumAndOcclusion, FrustumOnly, None };

// How the renderer draws a frame: as set up, in one draw without synchronised batches, or
// drawing back faces.
enum class DrawVariant { AsSetUp, OneDraw, TwoSided };

// Draws one frame into `target` and waits for the GPU, so frameMs is the real frame time;
// lodPixels > 0 draws by level of detail.
FrameStats renderFrame(Session& s, const Framebuffer& target, const Camera& camera, CullMode mode,
                       float lodPixels, DrawVariant variant = DrawVariant::AsSetUp) {
    const Clock::time_point start = Clock::now();
    target.bind();
    TerrainRenderer::clear(target.width, target.height);
    const CullView view{camera, target.height, mode != CullMode::None,
                        mode == CullMode::FrustumAndOcclusion, lodPixels};
    const bool synced = s.renderer.syncDraws;
    const bool backFaceCulling = s.renderer.backFaceCulling;
    s.renderer.syncDraws = synced && variant != DrawVariant::OneDraw;
    s.renderer.backFaceCulling = backFaceCulling && variant != DrawVariant::TwoSided;
    FrameStats stats = renderTerrain(s.renderer, s.terrain, camera, view, false);
    s.renderer.syncDraws = synced;
    s.renderer.backFaceCulling = backFaceCulling;
    glFinish();
    stats.frameMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return stats;
}

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

struct BenchRow {
    glm::vec3 eye;
    FrameStats stats;
};

}  // namespace

int runOneShot(Session& s) {
    const ViewerOptions& o = s.options;
    Result<Framebuffer> target = Framebuffer::create(o.windowWidth, o.windowHeight);
    if (!target) {
        std::fprintf(stderr, "quadterrain: %s\n", target.error().c_str());
        return kExitFailure;
    }
    const bool cull = !o.noCull;
    const CullMode mode = o.noCull        ? CullMode::None
                          : o.noOcclusion ? CullMode::FrustumOnly
                                          : CullMode::FrustumAndOcclusion;
    FrameStats stats;
    for (int frame = 0; frame < std::max(o.frames, 1); ++frame) {
        stats = renderFrame(s, target.value(), s.camera, mode, o.lodPixels);
    }
    std::vector<uint8_t> pixels;
    readPixels(target.value().width, target.value().height, pixels);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    target.value().destroy();
    s.context.checkErrors("the scripted frames");

    int status = 0;
    auto fail = [&status](const std::string& message) {
        std::fprintf(stderr, "quadterrain: %s\n", message.c_str());
        status = kExitFailure;
    };
    if (!o.screenshotPath.empty()) {
        if (Status e = writeRgbaAsRgbPng(o.screenshotPath, o.windowWidth, o.windowHeight, pixels);
            !e) {
            fail(e.error());
        }
    }
    if (!o.statsJsonPath.empty()) {
        StatsReport report;
        report.path = s.terrain.path;
        report.width = s.terrain.map.width;
        report.height = s.terrain.map.height;
        report.mapping = s.terrain.mapping;
        report.camera = s.camera;
        report.target = o.target ? *o.target : s.camera.position + s.camera.forward();
        report.leafSize = s.terrain.tree.leafSize;
        report.culling = cull;
        report.stats = stats;
        if (o.dumpLeaves && stats.lod) {  // level of detail leaves the leaves as runs
            s.terrain.drawList.clear();
            appendLeafCoords(s.terrain.tree, s.terrain.drawn, s.terrain.drawList);
        }
        report.visibleLeaves = o.dumpLeaves ? &s.terrain.drawList : nullptr;
        const std::string json = statsJson(report);
        if (Status e = writeFile(o.statsJsonPath, json.data(), json.size()); !e) {
            fail(e.error());
        }
    }
    if (!o.cullMapPath.empty()) {
        const glm::mat4 viewProjection = s.camera.viewProjection();
        const RgbImage image =
            cullMapImage(s.terrain.tree, s.terrain.mapping, s.terrain.cull.ranges, s.terrain.drawn,
                         Frustum::corners(viewProjection), s.camera.position);
        if (Status e = writePng(o.cullMapPath, image.width, image.height, 3, image.rgb.data());
            !e) {
            fail(e.error());
        }
    }
    return status;
}

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
    s.terrain.cull.recordDecisions = false;
    s.terrain.cull.reserveFor(s.terrain.tree);
    // First the culled flight alone (with level of detail when --lod asks for it), so that the
    // peak after it is that flight's. Then the timed flight: each camera in every mode in turn,
    // the order rotating from camera to camera, so a burst of host noise lands on every mode
    // alike rather than on one mode's pass. The first three modes are at full detail; with --lod
    // a fourth, culled (frustum and occlusion) by level of detail, so its ratios to the others
    // are taken inside the run too. When the renderer synchronises its draws (software
    // rasterisers), a mode draws the culled frames in one draw without waits: the price of the
    // bounded queue, inside the run. When back faces may be culled, a last mode draws the culled
    // frames with them: what culling them saves.
    // Each mode: its name in the CSV, how it culls, how it draws.
    struct BenchMode {
        const char* name;
        CullMode cull;
        DrawVariant variant;
    };
    constexpr BenchMode kModes[kBenchModes] = {
        {"culled", CullMode::FrustumAndOcclusion, DrawVariant::AsSetUp},
        {"frustum", CullMode::FrustumOnly, DrawVariant::AsSetUp},
        {"unculled", CullMode::None, DrawVariant::AsSetUp},
        {"lod", CullMode::FrustumAndOcclusion, DrawVariant::AsSetUp},
        {"one-draw", CullMode::FrustumAndOcclusion, DrawVariant::OneDraw},
        {"two-sided", CullMode::FrustumAndOcclusion, DrawVariant::TwoSided}};
    constexpr size_t kLodMode = 3;
    constexpr size_t kOneDrawMode = 4;
    constexpr size_t kTwoSidedMode = 5;
    const bool lod = o.lodPixels > 0.0f;
    const bool synced = s.renderer.syncDraws;
    std::vector<size_t> modes = {0, 1, 2};
    if (lod) {
        modes.push_back(kLodMode);
    }
    if (synced) {
        modes.push_back(kOneDrawMode);
    }
    if (s.renderer.backFaceCulling) {
        modes.push_back(kTwoSidedMode);
    }
    const auto lodOf = [&](size_t mode) { return mode == kLodMode ? o.lodPixels : 0.0f; };
    const auto frame = [&](const Camera& camera, size_t mode) {
        return renderFrame(s, target.value(), camera, kModes[mode].cull, lodOf(mode),
                           kModes[mode].variant);
    };
    std::vector<BenchRow> rows[kBenchModes];
    const double loadedMb = peakResidentMb();  // the load and the context, before any frame
    double peakMb[2] = {0.0, 0.0};  // after the culled flight; after the unculled frames too
    const size_t flown = lod ? kLodMode : 0;
    frame(path.front(), flown);  // warm-up
    for (const Camera& camera : path) {
        frame(camera, flown);
    }
    glFinish();
    peakMb[0] = peakResidentMb();
    for (const size_t mode : modes) {
        rows[mode].resize(path.size());
        frame(path.front(), mode);  // warm-up
    }
    for (size_t i = 0; i < path.size(); ++i) {
        for (size_t k = 0; k < modes.size(); ++k) {
            const size_t mode = modes[(i + k) % modes.size()];
            rows[mode][i] = {path[i].position, frame(path[i], mode)};
        }
    }
    glFinish();
    peakMb[1] = peakResidentMb();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    target.value().destroy();
    s.context.checkErrors("the benchmark frames");

    std::ofstream csv(o.benchCsvPath, std::ios::binary);
    csv << "mode,frame,eye_x,eye_y,eye_z,nodes_tested,leaves_drawn,leaves_culled,leaves_occluded,"
           "draw_calls,triangles,cull_ms,frame_ms\n";
    std::vector<double> frameMs[kBenchModes];
    std::vector<double> occludedShare;  // of the frustum's leaves, culled mode
    for (const size_t mode : modes) {
        for (size_t i = 0; i < rows[mode].size(); ++i) {
            const BenchRow& r = rows[mode][i];
            const CullStats& c = r.stats.cull;
            char line[320];
            std::snprintf(line, sizeof(line),
                          "%s,%zu,%.3f,%.3f,%.3f,%u,%u,%u,%u,%d,%llu,%.4f,%.4f\n",
                          kModes[mode].name, i, r.eye.x, r.eye.y, r.eye.z, c.nodesTested,
                          c.leavesDrawn, c.leavesCulled, c.leavesOccluded, r.stats.drawCalls,
                          (unsigned long long)c.triangles, r.stats.cullMs, r.stats.frameMs);
            csv << line;
            frameMs[mode].push_back(r.stats.frameMs);
            if (mode == 0) {
                const double inFrustum = double(c.leavesDrawn + c.leavesOccluded);
                occludedShare.push_back(inFrustum > 0 ? 100.0 * c.leavesOccluded / inFrustum : 0.0);
            }
        }
    }
    if (!csv.flush()) {
        std::fprintf(stderr, "quadterrain: %s: cannot write the file\n", o.benchCsvPath.c_str());
        return kExitFailure;
    }
    double medians[kBenchModes];
    double worst[kBenchModes];
    for (const size_t mode : modes) {
        medians[mode] = median(frameMs[mode]);
        worst[mode] = *std::max_element(frameMs[mode].begin(), frameMs[mode].end());
    }
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    std::printf("bench: %s, %dx%d samples, leaf %d, %d frames at %dx%d -> %s\n",
                s.terrain.path.c_str(), s.terrain.map.width, s.terrain.map.height,
                s.terrain.tree.leafSize, frames, o.windowWidth, o.windowHeight,
                o.benchCsvPath.c_str());
    std::printf("  culled:   median %.3f ms, worst %.3f ms (frustum and occlusion)\n", medians[0],
                worst[0]);
    std::printf("  frustum:  median %.3f ms, worst %.3f ms (frustum only)\n", medians[1], worst[1]);
    std::printf("  unculled: median %.3f ms, worst %.3f ms\n", medians[2], worst[2]);
    std::printf("  unculled / culled: median %.2fx, worst %.2fx\n", ratio(medians[2], medians[0]),
                ratio(worst[2], worst[0]));
    std::printf("  unculled / frustum only: median %.2fx, worst %.2fx\n",
                ratio(medians[2], medians[1]), ratio(worst[2], worst[1]));
    std::printf("  occluded: median %.1f%% of the leaves in the frustum\n", median(occludedShare));
    // Median share of a mode's frame spent culling and building the draw list.
    const auto cullShare = [](const std::vector<BenchRow>& modeRows) {
        std::vector<double> shares;
        for (const BenchRow& r : modeRows) {
            shares.push_back(r.stats.frameMs > 0 ? 100.0 * r.stats.cullMs / r.stats.frameMs : 0.0);
        }
        return median(shares);
    };
    std::printf("  culling and draw list: median %.3f%% of a culled frame\n", cullShare(rows[0]));
    if (lod) {
        std::vector<double> triangles[2];
        for (size_t i = 0; i < path.size(); ++i) {
            triangles[0].push_back(double(rows[0][i].stats.cull.triangles));
            triangles[1].push_back(double(rows[kLodMode][i].stats.cull.triangles));
        }
        std::printf(
            "  lod:      median %.3f ms, worst %.3f ms (level of detail, a grid step at most "
            "%.2f pixels; frustum and occlusion)\n",
            medians[kLodMode], worst[kLodMode], double(o.lodPixels));
        std::printf("  culled / lod: median %.2fx; unculled / lod: median %.2fx\n",
                    ratio(medians[0], medians[kLodMode]), ratio(medians[2], medians[kLodMode]));
        std::printf("  triangles: median %.0f culled, %.0f with level of detail\n",
                    median(triangles[0]), median(triangles[1]));
        std::printf(
            "  selection, culling and draw list: median %.3f%% of a level-of-detail frame\n",
            cullShare(rows[kLodMode]));
    }
    int mostDraws = 0;
    size_t backFaceFrames = 0, allFrames = 0;
    for (const size_t mode : modes) {
        for (const BenchRow& r : rows[mode]) {
            mostDraws = std::max(mostDraws, r.stats.drawCalls);
            if (mode != kTwoSidedMode) {
                backFaceFrames += r.stats.backFacesCulled ? 1 : 0;
                ++allFrames;
            }
        }
    }
    std::printf("  draw calls: at most %d a frame (%s)\n", mostDraws,
                synced ? "synchronised batches" : "one a frame");
    std::printf("  back faces culled: in %zu of the %zu frames of the other modes%s\n",
                backFaceFrames, allFrames,
                s.renderer.backFaceCulling ? "" : " (--back-faces draw)");
    if (s.renderer.backFaceCulling) {
        std::printf("  two-sided: median %.3f ms, worst %.3f ms (culled, back faces drawn)\n",
                    medians[kTwoSidedMode], worst[kTwoSidedMode]);
        std::printf("  two-sided / culled: median %.2fx (what culling back faces saves)\n",
                    ratio(medians[kTwoSidedMode], medians[0]));
    }
    if (synced) {
        std::printf("  one-draw: median %.3f ms, worst %.3f ms (culled, one draw without waits)\n",
                    medians[kOneDrawMode], worst[kOneDrawMode]);
        std::printf("  culled / one-draw: median %.2fx (the price of the bounded queue)\n",
                    ratio(medians[0], medians[kOneDrawMode]));
    }
    const double samples = double(s.terrain.map.sampleCount());
    std::printf(
        "  peak resident memory: %.1f MiB after the %s flight (%.1f bytes a sample), "
        "%.1f MiB after the unculled frames (%.1f bytes a sample), %.1f MiB before the first "
        "frame\n",
        peakMb[0], lod ? "level-of-detail" : "culled", peakMb[0] * 1048576.0 / samples, peakMb[1],
        peakMb[1] * 1048576.0 / samples, loadedMb);
    const LoadTimes& t = s.terrain.times;
    std::printf("  load: %.1f ms (decode %.1f, tree %.1f, upload %.1f)\n", t.totalMs(), t.decodeMs,
                t.treeMs, t.uploadMs);
    return 0;
}

}  // namespace qt
