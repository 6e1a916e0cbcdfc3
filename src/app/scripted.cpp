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

// Draws one frame into `target` and waits for the GPU, so frameMs is the real frame time.
FrameStats renderFrame(Session& s, const Framebuffer& target, const Camera& camera, bool cull) {
    const Clock::time_point start = Clock::now();
    target.bind();
    TerrainRenderer::clear(target.width, target.height);
    const Frustum frustum = cullingFrustum(camera.viewProjection(), s.terrain.mapping);
    FrameStats stats = renderTerrain(s.renderer, s.terrain, camera, frustum, cull, false);
    glFinish();
    stats.frameMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return stats;
}

bool writeText(const std::string& path, const std::string& text) {
    std::ofstream file(path, std::ios::binary);
    file << text;
    return bool(file.flush());
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
    FrameStats stats;
    for (int frame = 0; frame < std::max(o.frames, 1); ++frame) {
        stats = renderFrame(s, target.value(), s.camera, cull);
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
        if (std::string e =
                writeRgbaAsRgbPng(o.screenshotPath, o.windowWidth, o.windowHeight, pixels);
            !e.empty()) {
            fail(e);
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
        report.visibleLeaves = o.dumpLeaves ? &s.terrain.drawList : nullptr;
        if (!writeText(o.statsJsonPath, statsJson(report))) {
            fail(o.statsJsonPath + ": cannot write the file");
        }
    }
    if (!o.cullMapPath.empty()) {
        const glm::mat4 viewProjection = s.camera.viewProjection();
        const RgbImage image =
            cullMapImage(s.terrain.tree, s.terrain.mapping, s.terrain.drawList,
                         Frustum::corners(viewProjection), s.camera.position);
        if (std::string e = writePng(o.cullMapPath, image.width, image.height, 3, image.rgb.data());
            !e.empty()) {
            fail(e);
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
    std::vector<BenchRow> rows[2];             // culled, unculled
    const double loadedMb = peakResidentMb();  // the load and the context, before any frame
    double peakMb[2] = {0.0, 0.0};             // peak resident memory after each pass
    for (int mode = 0; mode < 2; ++mode) {
        rows[mode].resize(path.size());
        renderFrame(s, target.value(), path.front(), mode == 0);  // warm-up, not recorded
        for (size_t i = 0; i < path.size(); ++i) {
            rows[mode][i] = {path[i].position, renderFrame(s, target.value(), path[i], mode == 0)};
        }
        glFinish();
        peakMb[mode] = peakResidentMb();
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    target.value().destroy();
    s.context.checkErrors("the benchmark frames");

    std::ofstream csv(o.benchCsvPath, std::ios::binary);
    csv << "mode,frame,eye_x,eye_y,eye_z,nodes_tested,leaves_drawn,leaves_culled,draw_calls,"
           "triangles,cull_ms,frame_ms\n";
    std::vector<double> frameMs[2];
    for (int mode = 0; mode < 2; ++mode) {
        for (size_t i = 0; i < rows[mode].size(); ++i) {
            const BenchRow& r = rows[mode][i];
            char line[320];
            std::snprintf(line, sizeof(line), "%s,%zu,%.3f,%.3f,%.3f,%u,%u,%u,%d,%llu,%.4f,%.4f\n",
                          mode == 0 ? "culled" : "unculled", i, r.eye.x, r.eye.y, r.eye.z,
                          r.stats.cull.nodesTested, r.stats.cull.leavesDrawn,
                          r.stats.cull.leavesCulled, r.stats.drawCalls,
                          (unsigned long long)r.stats.cull.triangles, r.stats.cullMs,
                          r.stats.frameMs);
            csv << line;
            frameMs[mode].push_back(r.stats.frameMs);
        }
    }
    if (!csv.flush()) {
        std::fprintf(stderr, "quadterrain: %s: cannot write the file\n", o.benchCsvPath.c_str());
        return kExitFailure;
    }
    const double medianCulled = median(frameMs[0]);
    const double medianUnculled = median(frameMs[1]);
    const double worstCulled = *std::max_element(frameMs[0].begin(), frameMs[0].end());
    const double worstUnculled = *std::max_element(frameMs[1].begin(), frameMs[1].end());
    std::printf("bench: %s, %dx%d samples, leaf %d, %d frames at %dx%d -> %s\n",
                s.terrain.path.c_str(), s.terrain.map.width, s.terrain.map.height,
                s.terrain.tree.leafSize, frames, o.windowWidth, o.windowHeight,
                o.benchCsvPath.c_str());
    std::printf("  culled:   median %.3f ms, worst %.3f ms\n", medianCulled, worstCulled);
    std::printf("  unculled: median %.3f ms, worst %.3f ms\n", medianUnculled, worstUnculled);
    std::printf("  unculled / culled: median %.2fx, worst %.2fx\n",
                medianCulled > 0 ? medianUnculled / medianCulled : 0.0,
                worstCulled > 0 ? worstUnculled / worstCulled : 0.0);
    std::vector<double> cullShare;
    for (const BenchRow& r : rows[0]) {
        cullShare.push_back(r.stats.frameMs > 0 ? 100.0 * r.stats.cullMs / r.stats.frameMs : 0.0);
    }
    std::printf("  culling and draw list: median %.3f%% of a culled frame\n", median(cullShare));
    const double samples = double(s.terrain.map.sampleCount());
    std::printf(
        "  peak resident memory: %.1f MiB after the culled flight (%.1f bytes a sample), "
        "%.1f MiB after the unculled frames (%.1f bytes a sample), %.1f MiB before the first "
        "frame\n",
        peakMb[0], peakMb[0] * 1048576.0 / samples, peakMb[1], peakMb[1] * 1048576.0 / samples,
        loadedMb);
    const LoadTimes& t = s.terrain.times;
    std::printf("  load: %.1f ms (decode %.1f, tree %.1f, upload %.1f)\n", t.totalMs(), t.decodeMs,
                t.treeMs, t.uploadMs);
    return 0;
}

}  // namespace qt
