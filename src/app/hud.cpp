// HUD layout: the map, toggles, statistics and frame times, loading and mapping, help, the
// minimap; the compass, scale bar and message toast over the view.
#include "app/hud.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <imgui.h>
#include <imgui_internal.h>

#include "core/config.h"

#include "app/minimap.h"
#include "app/readout_text.h"
#include "app/view_scale.h"

namespace qt {
namespace {

constexpr const char* kHelp =
    "WASD move, Q/E down/up, Shift fast, right-drag look, Tab capture mouse, wheel speed, "
    "T ground-follow, left-drag measure, double-click fly there, click the minimap to go there, "
    "F12 screenshot (Shift+F12 without the HUD), Ctrl+O type a path, C cull, O occlusion, L level "
    "of detail, F freeze, G wireframe, B boxes, R/F5 reload shaders, P pause objects, "
    "H hide HUD; right-drag on the minimap selects objects, Shift+click one in the view to "
    "select or deselect it";

double percent(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * double(part) / double(whole) : 0.0;
}

// A path for the HUD: the home folder as ~, and a long path cut to its last kHudPathChars
// characters (its file name, then as much of its folders as fit).
constexpr size_t kHudPathChars = 72;
std::string shortPath(const std::string& path) {
    std::string out = path;
    const char* home = std::getenv("HOME");
    if (home != nullptr && home[0] == '/' && out.rfind(std::string(home) + "/", 0) == 0) {
        out = "~" + out.substr(std::strlen(home));
    }
    if (out.size() > kHudPathChars) {
        out = "..." + out.substr(out.size() - (kHudPathChars - 3));
    }
    return out;
}

}  // namespace

void HudState::recordFrame(float ms) {
    frameMs[size_t(frameCursor)] = ms;
    frameCursor = (frameCursor + 1) % kFrameHistory;
}

namespace {

// A count with thousands separators: 1,234,567.
std::string groupedCount(int64_t count) {
    return groupedNumber(double(count), 0);
}

// A layout streamed by tiles: how many have arrived, what failed and why, and its code cache
// once finished.
void drawTiles(const Terrain& terrain) {
    const LayoutTileCounts t = layoutTileCounts(*terrain.tiles);
    ImGui::Text("tiles %s of %s present (%s read, %s kept), %s failed reads",
                groupedCount(int64_t(t.present)).c_str(), groupedCount(int64_t(t.total)).c_str(),
                groupedCount(int64_t(t.read)).c_str(), groupedCount(int64_t(t.kept)).c_str(),
                groupedCount(int64_t(t.failed)).c_str());
    std::string failure = terrain.streamer ? terrain.streamer->lastFailure() : "";
    if (failure.empty() && terrain.asker) {
        failure = terrain.asker->lastFailure();
    }
    if (!failure.empty()) {
        ImGui::TextWrapped("last unread: %s (drawn coarser there; asked again)", failure.c_str());
    }
    if (!terrain.tilesProblem.empty()) {
        ImGui::TextWrapped("code cache not kept: %s", terrain.tilesProblem.c_str());
    } else if (terrain.tilesKept) {
        ImGui::TextWrapped("every tile arrived: the code cache is kept for the next open");
    }
}

// The counts of the frame: what was drawn (leaves, or level-of-detail nodes), what culling and
// occlusion removed, the walk's work and the draw's.
void drawStats(const FrameStats& stats, const Terrain& terrain) {
    const CullStats& c = stats.cull;
    const HeightPages& pages = terrain.gpu.pages;
    ImGui::Text("heights on the GPU %.1f MiB, %.2f B/sample (%d pages of %d^2)",
                double(pages.bytes()) / (1024.0 * 1024.0), terrain.gpu.bytesPerSample(),
                pages.layers, pages.pageSize);
    if (terrain.onDemand) {
        const StreamStats st = terrain.streamStats();
        ImGui::Text("on demand: %d of %d pool layers resident, %d requested, %d uploaded",
                    st.resident, st.pool, st.requested, st.uploaded);
    } else if (terrain.streamed()) {
        const StreamStats st = terrain.streamStats();
        ImGui::Text("streaming: %d of %d pool layers resident, %d requested, %d uploaded",
                    st.resident, st.pool, st.requested, st.uploaded);
        if (terrain.map.codes.isMapped()) {
            ImGui::Text("heights mapped from %s; tree %s",
                        terrain.codeCache == "written"    ? "its code cache (written by this load)"
                        : terrain.codeCache == "read"     ? "its code cache"
                        : terrain.codeCache == "by tiles" ? "its tiles as they arrive"
                        : terrain.codeCache == "not kept" ? "a file of its codes (not kept)"
                                                          : "the file",
                        terrain.sidecar == "read"      ? "read from its .qtree"
                        : terrain.sidecar == "written" ? "written to its .qtree"
                                                       : "built (no .qtree)");
            if (terrain.tiles) {
                drawTiles(terrain);
            }
            // Where the program keeps them: the cache folder, or beside the map.
            const bool cache = terrain.codeCache == "written" || terrain.codeCache == "read";
            const bool tree = !terrain.sidecar.empty() && !terrain.sidecarPath.empty();
            if (cache) {
                const bool beside = tree && terrain.sidecarPath == terrain.codeCachePath + ".qtree";
                ImGui::TextWrapped("code cache %s%s", shortPath(terrain.codeCachePath).c_str(),
                                   beside ? " (and its .qtree)" : "");
            }
            if (tree && !(cache && terrain.sidecarPath == terrain.codeCachePath + ".qtree")) {
                ImGui::TextWrapped("sidecar %s", shortPath(terrain.sidecarPath).c_str());
            }
        }
    }
    if (stats.lod) {
        const LodStats& l = stats.lodStats;
        ImGui::Text("nodes drawn %u (levels 0-%d), %s errors", l.nodesDrawn, int(l.deepestLevel),
                    lodErrorsName(terrain.tree.lodErrors));
        ImGui::Text("leaves in view %s of %s (%.1f%%)", groupedCount(c.leavesDrawn).c_str(),
                    groupedCount(stats.leavesTotal).c_str(),
                    percent(c.leavesDrawn, stats.leavesTotal));
    } else {
        ImGui::Text("leaves drawn %s of %s (%.1f%%)", groupedCount(c.leavesDrawn).c_str(),
                    groupedCount(stats.leavesTotal).c_str(),
                    percent(c.leavesDrawn, stats.leavesTotal));
    }
    ImGui::Text("culled by the frustum %u, occluded %u%s", c.leavesCulled, c.leavesOccluded,
                stats.lod ? " (full detail)" : "");
    if (stats.instancesEmpty > 0) {  // in view, but every square is a hole: nothing to draw
        ImGui::Text("%s %s all nodata, left out", groupedCount(stats.instancesEmpty).c_str(),
                    stats.lod ? "nodes" : "leaves");
    }
    ImGui::Text("nodes tested %u of %u, whole subtrees %u", c.nodesTested, stats.nodesTotal,
                c.subtreesAccepted);
    ImGui::Text("triangles %s, draw calls %d", groupedCount(int64_t(c.triangles)).c_str(),
                stats.drawCalls);
    if (stats.syncedDraws || stats.backFacesCulled) {
        ImGui::TextDisabled("%s%s%s", stats.syncedDraws ? "synchronised batches" : "",
                            stats.syncedDraws && stats.backFacesCulled ? ", " : "",
                            stats.backFacesCulled ? "back faces culled" : "");
    }
    if (terrain.objects) {  // the objects in two lines; the rest in their own section
        const ObjectFrameStats& o = stats.objects;
        const StepStats& step = terrain.lastStep;
        ImGui::TextWrapped("objects %u/%u drawn, %u culled, %u occluded", o.drawn, o.total,
                           o.culled, o.occluded);
        ImGui::TextWrapped("step %llu: %u pairs, %u contacts; %.1f + %.1f + %.2f ms",
                           (unsigned long long)terrain.objects->steps(), step.pairsTested,
                           step.contacts, step.updateMs, step.collideMs, o.cullMs);
    }
}

// Frame time now, the worst of the history, and the graph of the history, oldest first.
void drawFrameTimes(const HudState& state, const FrameStats& stats) {
    const float last =
        state.frameMs[size_t((state.frameCursor + kFrameHistory - 1) % kFrameHistory)];
    float worst = 0.0f;
    for (const float ms : state.frameMs) {
        worst = std::max(worst, ms);
    }
    ImGui::Text("frame %.1f ms (%.0f fps), culling %.3f ms", last,
                last > 0.0f ? 1000.0f / last : 0.0f, stats.cullMs);
    // PlotLines takes no negative width: the available width, given outright.
    char overlay[48];
    std::snprintf(overlay, sizeof(overlay), "worst %.1f ms", worst);
    ImGui::PlotLines("##frames", state.frameMs.data(), kFrameHistory, state.frameCursor, overlay,
                     0.0f, std::max(worst, 1.0f), ImVec2(ImGui::GetContentRegionAvail().x, 40.0f));
}

// The interval the contours start at: a round length giving about 20 lines over the map's
// height range.
float defaultContourInterval(const Heightmap& map) {
    const double range = double(map.maxSample) - double(map.minSample);
    const double interval = roundScaleBar(range / 20.0, 1.0f).length;
    return interval > 0.0 ? float(interval) : 1.0f;
}

// The view's switches (three a row), fog and contours, the camera, ground-follow.
HudRequests drawToggles(HudState& state, const Camera& camera, const Heightmap& map, float speed) {
    HudRequests requests;
    const float column = ImGui::GetContentRegionAvail().x / 3.0f;
    ImGui::Checkbox("cull (C)", &state.cull);
    ImGui::SameLine(column);
    ImGui::Checkbox("occlusion (O)", &state.occlusion);
    ImGui::SameLine(2.0f * column);
    ImGui::Checkbox("LOD (L)", &state.lod);
    ImGui::Checkbox("freeze (F)", &state.freeze);
    ImGui::SameLine(column);
    ImGui::Checkbox("wireframe (G)", &state.wireframe);
    ImGui::SameLine(2.0f * column);
    ImGui::Checkbox("boxes (B)", &state.boxes);
    if (state.lod) {
        ImGui::SetNextItemWidth(-1);
        char format[80];
        if (state.frameBudgetMs > 0) {
            std::snprintf(format, sizeof(format), "level of detail: %%.2f px for %d ms frames",
                          state.frameBudgetMs);
        } else {
            std::snprintf(format, sizeof(format), "level of detail: within %%.2f px");
        }
        if (ImGui::SliderFloat("##lodPixels", &state.lodPixels, 0.25f, 16.0f, format,
                               ImGuiSliderFlags_Logarithmic)) {
            state.frameBudgetMs = 0;  // set by hand: the budget lets go
        }
        state.lodPixels = std::clamp(state.lodPixels, 0.25f, 16.0f);
    }
    // Fog and contours share a row: each a checkbox and, when on, its distance or interval.
    const float half = 0.5f * ImGui::GetContentRegionAvail().x;
    ImGui::Checkbox("fog", &state.fog.on);
    if (state.fog.on) {
        // Shown where it starts now (the default follows the far plane); an edit fixes it.
        float start = state.fog.startFor(camera.farPlane);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(half - ImGui::GetCursorPosX() + ImGui::GetStyle().WindowPadding.x -
                                ImGui::GetStyle().ItemSpacing.x);
        if (ImGui::DragFloat("##fogStart", &start, 0.01f * std::max(camera.farPlane, 1.0f), 0.0f,
                             camera.farPlane, "from %.0f", ImGuiSliderFlags_Logarithmic)) {
            state.fog.start = std::max(start, 0.0f);
        }
    }
    ImGui::SameLine(half);
    ImGui::Checkbox("contours", &state.contours);
    if (state.contours) {
        if (!(state.contourInterval > 0.0f)) {
            state.contourInterval = defaultContourInterval(map);
        }
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-1);
        ImGui::DragFloat("##contourInterval", &state.contourInterval, 0.01f * state.contourInterval,
                         0.01f, 1e5f, map.metres ? "every %.1f m" : "every %.1f",
                         ImGuiSliderFlags_Logarithmic);
        state.contourInterval = std::clamp(state.contourInterval, 0.01f, 1e5f);
    }
    // The Sun: a checkbox and, when on, its azimuth and elevation; moving them asks for new
    // shadows (the viewer compares them with the Sun it lights by).
    ImGui::Checkbox("sun", &state.sun);
    if (state.sun) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(half - ImGui::GetCursorPosX() + ImGui::GetStyle().WindowPadding.x -
                                ImGui::GetStyle().ItemSpacing.x);
        ImGui::SliderFloat("##sunAzimuth", &state.sunAzimuth, 0.0f, 360.0f, "azimuth %.0f deg");
        ImGui::SameLine(half);
        ImGui::SetNextItemWidth(-1);
        ImGui::SliderFloat("##sunElevation", &state.sunElevation, HudState::kSunElevationLowest,
                           HudState::kSunElevationHighest, "elevation %.1f deg");
        state.sunAzimuth = std::clamp(state.sunAzimuth, 0.0f, 360.0f);
        state.sunElevation = std::clamp(state.sunElevation, -90.0f, 90.0f);
        if (state.sunNote[0] != '\0') {
            ImGui::TextDisabled("%s", state.sunNote);
        }
    }
    if (state.boxes) {
        ImGui::Text("boxes drawn: %d (at most %d)", state.boxesDrawn, kMaxLeafBoxes);
    }
    // Whole units once a coordinate reaches 10,000, so that the line fits the column.
    const glm::vec3& p = camera.position;
    const float largest = std::max({std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
    const auto coordinate = [&](float v) { return groupedNumber(v, largest < 1e4f ? 1 : 0); };
    ImGui::TextWrapped("camera %s, %s, %s; speed %s/s", coordinate(p.x).c_str(),
                       coordinate(p.y).c_str(), coordinate(p.z).c_str(),
                       groupedNumber(speed, speed < 10.0f  ? 2
                                            : speed < 1e4f ? 1
                                                           : 0)
                           .c_str());
    drawFollowSetting(state.follow, state.followHeight);
    if (ImGui::Button("reset camera")) {
        requests.resetCamera = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("reload shaders (R)")) {
        requests.reloadShaders = true;
    }
    return requests;
}

// The objects: counts of the last frame and step, the simulation's pause, the minimap layers,
// the selection, and a new scatter.
bool drawObjects(HudState& state, const FrameStats& stats, const Terrain& terrain) {
    if (terrain.objects) {
        const ObjectFrameStats& o = stats.objects;
        const StepStats& step = terrain.lastStep;
        ImGui::Text("%u moving; %d draws; tested %u tree nodes, %u boxes",
                    terrain.objects->movingCount(), stats.objectDrawCalls, o.nodesTested,
                    o.objectsTested);
        ImGui::Text("update %.2f, collide %.2f, cull %.3f ms", step.updateMs, step.collideMs,
                    o.cullMs);
        const ObjectSizing& sizing = terrain.objects->sizing();
        ImGui::Text(sizing.metres ? "trees %.3g-%.3g m tall (--object-scale %g)"
                                  : "trees %.3g-%.3g units tall, no metres (--object-scale %g)",
                    4.0 * double(sizing.unit), 9.0 * double(sizing.unit), double(sizing.scale));
        if (terrain.objects->sizeScale() < 1.0f) {
            ImGui::Text("crowded map: every object at %.0f%% of its size",
                        100.0 * double(terrain.objects->sizeScale()));
        }
        ImGui::Text("selected %zu (right-drag on the minimap, Shift+click in the view)",
                    state.minimapObjects.selected.size());
        ImGui::Checkbox("pause (P)", &state.objectsPaused);
        ImGui::SameLine();
        ImGui::Checkbox("tree cells on the minimap", &state.minimapObjects.cells);
    }
    if (!ImGui::TreeNode("scatter")) {
        return false;
    }
    const float width = ImGui::GetContentRegionAvail().x * 0.3f;
    ImGui::SetNextItemWidth(width);
    ImGui::InputInt("objects", &state.objectCount, 0, 0);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(width * 0.7f);
    ImGui::InputInt("moving", &state.movingCount, 0, 0);
    ImGui::SetNextItemWidth(width);
    ImGui::InputInt("seed", &state.objectSeed, 0, 0);
    state.objectCount =
        std::clamp(state.objectCount, 0, int(std::min<uint32_t>(kMaxObjects, INT32_MAX)));
    state.movingCount = std::clamp(state.movingCount, 0, state.objectCount);
    state.objectSeed = std::max(state.objectSeed, 0);
    ImGui::SameLine();
    const bool scatter = ImGui::Button("scatter");
    ImGui::TreePop();
    return scatter;
}

// The nodata samples' count and share, and how they are drawn.
void drawNodata(const NodataMask& nodata) {
    if (nodata.samples == 0) {
        ImGui::TextDisabled("no nodata samples");
        return;
    }
    ImGui::Text("nodata %s samples (%.2f%%)", groupedNumber(double(nodata.samples), 0).c_str(),
                100.0 * nodata.share());
    if (nodata.filled) {
        ImGui::TextWrapped("  drawn filled from their neighbours: invented terrain");
    } else {
        ImGui::Text("  drawn as holes");
    }
}

// A height of the map with `decimals` fixed decimals, " m" after it when metres.
std::string heightText(double value, int decimals, bool metres) {
    return groupedNumber(value, decimals) + (metres ? " m" : "");
}

// What the map is: its file, size, CRS and corners, metres per sample, the height range and
// the quantisation step, the nodata share.
void drawMap(const Terrain& terrain) {
    const Heightmap& map = terrain.map;
    const Georeference& g = map.geo;
    ImGui::TextWrapped("%s", shortPath(terrain.path).c_str());
    ImGui::Text("%s x %s samples, leaf %d", groupedCount(map.width).c_str(),
                groupedCount(map.height).c_str(), terrain.tree.leafSize);
    if (g.present) {
        ImGui::TextWrapped("CRS %s", g.crsName.empty() ? "(none named)" : g.crsName.c_str());
        if (g.geographic) {
            ImGui::Text("lat %s to %s, lon %s to %s", groupedNumber(g.south, 4).c_str(),
                        groupedNumber(g.north, 4).c_str(), groupedNumber(g.west, 4).c_str(),
                        groupedNumber(g.east, 4).c_str());
        } else {
            ImGui::TextWrapped("x %s to %s, y %s to %s", groupedNumber(g.west, 1).c_str(),
                               groupedNumber(g.east, 1).c_str(), groupedNumber(g.south, 1).c_str(),
                               groupedNumber(g.north, 1).c_str());
        }
        ImGui::Text("a sample %s east-west, %s north-south", lengthText(g.metresX, true).c_str(),
                    lengthText(g.metresZ, true).c_str());
    } else {
        ImGui::TextDisabled("no georeference");
    }
    // Both ends with the decimals the range needs; the quantisation step with its own.
    const double step = double(map.coding.step);
    const double range = double(map.maxSample) - double(map.minSample);
    const int decimals = range >= 100.0 ? 1 : range >= 1.0 ? 2 : 4;
    ImGui::Text("heights %s to %s%s, step %s", heightText(map.minSample, decimals, false).c_str(),
                heightText(map.maxSample, decimals, map.metres).c_str(),
                map.metres ? "" : " (map units)",
                heightText(step, step < 0.01 ? 4 : 3, map.metres).c_str());
    drawNodata(map.nodata);
}

// The imagery's path box (Enter or the button loads it over the terrain) and, while the terrain
// has imagery, what it is and how it shows.
void drawImagery(HudState& state, const Terrain& terrain, HudRequests& requests) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 50.0f);
    if (ImGui::InputText("##imageryPath", state.imageryPath, sizeof(state.imageryPath),
                         ImGuiInputTextFlags_EnterReturnsTrue)) {
        requests.loadImagery = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Drape")) {
        requests.loadImagery = true;
    }
    if (terrain.imageryLoad) {
        ImGui::TextWrapped("loading %s...", shortPath(terrain.imageryLoad->path).c_str());
    }
    if (!terrain.gpu.imagery.present()) {
        ImGui::TextDisabled("none: the terrain's own colours");
        return;
    }
    const ImageryInfo& info = terrain.imagery;
    ImGui::TextWrapped("%s", shortPath(info.source).c_str());
    ImGui::Text("%s x %s px, %d band%s, %s", groupedCount(info.sourceWidth).c_str(),
                groupedCount(info.sourceHeight).c_str(), info.bands, info.bands == 1 ? "" : "s",
                info.type.c_str());
    ImGui::TextWrapped("%s", info.georeferenced
                                 ? ("placed from " +
                                    (info.crsName.empty() ? std::string("its CRS") : info.crsName))
                                       .c_str()
                                 : "stretched over the map's extent");
    ImGui::Text("%s x %s texels, %.2f x %.2f a sample", groupedCount(info.width).c_str(),
                groupedCount(info.height).c_str(), info.texelsPerSampleX, info.texelsPerSampleY);
    ImGui::Text("covers %.1f%% of the map, GPU %s MB%s", 100.0 * info.coverage,
                groupedNumber(double(terrain.gpu.imagery.bytes) / 1048576.0, 1).c_str(),
                terrain.gpu.imagery.compression == ImageryCompression::Bc3 ? " (BC3)" : "");
    if (terrain.imageryStreamer) {
        const ImageryStreamStats st = terrain.imageryStreamer->stats();
        ImGui::Text("pages %s of %s resident, %d coming", groupedCount(st.resident).c_str(),
                    groupedCount(terrain.gpu.imagery.plan.pages).c_str(), st.requested + st.ready);
        const std::string failed = terrain.imageryStreamer->error();
        if (!failed.empty()) {
            ImGui::TextWrapped("%d pages unread: %s", st.failed, failed.c_str());
        }
    }
    ImGui::Checkbox("show", &state.imageryOn);
    ImGui::SameLine();
    ImGui::Checkbox("lit", &state.imageryLit);
    ImGui::SameLine();
    if (ImGui::Button("remove")) {
        requests.removeImagery = true;
    }
    ImGui::SetNextItemWidth(-1);
    ImGui::SliderFloat("##imageryOpacity", &state.imageryOpacity, 0.0f, 1.0f, "opacity %.2f");
    state.imageryOpacity = std::clamp(state.imageryOpacity, 0.0f, 1.0f);
}

// The path box (Enter or the button loads it), the imagery's, and the mapping's sliders, which
// never make a world of non-finite floats.
bool drawLoadAndMapping(HudState& state, Terrain& terrain, HudRequests& requests) {
    bool load = false;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 50.0f);
    if (state.focusPath) {
        ImGui::SetKeyboardFocusHere();
        state.focusPath = false;
    }
    if (ImGui::InputText("##path", state.path, sizeof(state.path),
                         ImGuiInputTextFlags_EnterReturnsTrue)) {
        load = true;
    }
    const ImVec2 boxMin = ImGui::GetItemRectMin();
    const ImVec2 boxMax = ImGui::GetItemRectMax();
    state.pathBoxRect = {boxMin.x, boxMin.y, boxMax.x - boxMin.x, boxMax.y - boxMin.y};
    ImGui::SameLine();
    if (ImGui::Button("Load")) {
        load = true;
    }
    ImGui::TextDisabled("Enter loads; or drop a file on the window");
    ImGui::Separator();
    ImGui::TextDisabled("imagery over the terrain (Enter drapes it)");
    drawImagery(state, terrain, requests);
    ImGui::Separator();
    const WorldMapping before = terrain.mapping;
    float spacing[2] = {terrain.mapping.spacingX, terrain.mapping.spacingZ};
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    if (ImGui::DragFloat2("spacing x, z", spacing, 0.01f * terrain.mapping.largerSpacing(), 1e-4f,
                          1e6f, "%.3f", ImGuiSliderFlags_Logarithmic)) {
        terrain.mapping.spacingX = std::max(spacing[0], 1e-4f);
        terrain.mapping.spacingZ = std::max(spacing[1], 1e-4f);
    }
    const float scaleStep = 0.01f * std::max(std::abs(terrain.mapping.heightScale), 1e-6f);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    ImGui::DragFloat("height scale", &terrain.mapping.heightScale, scaleStep, -1e6f, 1e6f, "%.3f");
    // The height scale over the map's default one (1 for heights in metres).
    const float natural = defaultMapping(terrain.map).heightScale;
    float exaggeration = terrain.mapping.heightScale / natural;
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    if (ImGui::SliderFloat("exaggeration", &exaggeration, 0.1f, 20.0f, "%.2fx",
                           ImGuiSliderFlags_Logarithmic)) {
        terrain.mapping.heightScale = natural * exaggeration;
    }
    if (Status world = checkWorldFinite(terrain.map, terrain.mapping); !world) {
        terrain.mapping = before;
        state.message = world.error();
    }
    return load;
}

}  // namespace

// One window down the left side, as tall as the viewport, of collapsible sections: the map, the
// view's switches, statistics (closed), objects, loading, imagery and mapping, the key list, and
// the minimap, which takes the height left, at least 160 px at 1280x720 with nothing scrolled.
// Messages go to the toast line over the view, so that they never move a widget.
HudRequests drawHud(HudState& state, const FrameStats& stats, Terrain& terrain,
                    const Camera& camera, const std::array<glm::vec3, 8>& cullCorners,
                    float speed) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(kHudWidth, std::max(display.y - 20.0f, 100.0f)),
                             ImGuiCond_Always);
    ImGui::Begin("quadterrain", nullptr, ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoTitleBar);
    if (ImGui::CollapsingHeader("map", ImGuiTreeNodeFlags_DefaultOpen)) {
        drawMap(terrain);
    }
    HudRequests requests;
    if (ImGui::CollapsingHeader("view and keys", ImGuiTreeNodeFlags_DefaultOpen)) {
        requests = drawToggles(state, camera, terrain.map, speed);
    }
    if (ImGui::CollapsingHeader("statistics")) {
        drawStats(stats, terrain);
        drawFrameTimes(state, stats);
    }
    // The header says when objects are on their way, open or closed (its id stays "objects").
    char objectsHeader[64] = "objects###objects";
    if (state.objectsComing > 0) {
        std::snprintf(objectsHeader, sizeof(objectsHeader), "objects: scattering %s###objects",
                      groupedNumber(double(state.objectsComing), 0).c_str());
    }
    if (ImGui::CollapsingHeader(objectsHeader)) {
        requests.scatterObjects = drawObjects(state, stats, terrain);
    }
    if (state.focusPath) {
        ImGui::SetNextItemOpen(true);
    }
    state.pathBoxRect = {};
    if (ImGui::CollapsingHeader("load, imagery and mapping")) {
        const WorldMapping before = terrain.mapping;
        requests.load = drawLoadAndMapping(state, terrain, requests);
        requests.mappingChanged = terrain.mapping.spacingX != before.spacingX ||
                                  terrain.mapping.spacingZ != before.spacingZ ||
                                  terrain.mapping.heightScale != before.heightScale ||
                                  terrain.mapping.heightOffset != before.heightOffset;
    }
    if (ImGui::CollapsingHeader("keys")) {
        ImGui::TextWrapped("%s", kHelp);
    }
    state.minimapSquare = {};
    if (ImGui::CollapsingHeader("minimap", ImGuiTreeNodeFlags_DefaultOpen)) {
        const ImVec2 room = ImGui::GetContentRegionAvail();
        const float side = std::max(std::min(room.x, room.y - minimapLegendHeight()), 40.0f);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        state.minimapSquare = {at.x, at.y, side};
        requests.moveTo = drawMinimap(terrain, camera, cullCorners, side, state.minimapCells,
                                      stats.lod, state.minimapObjects);
    }
    ImGui::End();
    const float left = kHudWidth + 20.0f;
    const float barTop = drawCursorBar(state.cursor, camera.viewProjection(), left);
    drawToast(state.message, state.quitAsked, left, state.toast, state.toastSince);
    const Georeference& g = terrain.map.geo;
    drawCompass(camera, !g.present     ? NorthKind::Map
                        : g.geographic ? NorthKind::True
                                       : NorthKind::Grid);
    // The distance to the terrain at the view's centre; with none hit, the eye's height over the
    // map's lowest point, the distance to that level looking straight down.
    const float lo = std::min(terrain.mapping.worldHeight(terrain.map.minSample),
                              terrain.mapping.worldHeight(terrain.map.maxSample));
    const double distance = state.viewDistance > 0.0f
                                ? double(state.viewDistance)
                                : std::max(double(camera.position.y) - double(lo), 0.0);
    // Metres per world unit across the ground: the mean of the two axes' (default mapping: 1).
    double metresPerUnit = 1.0;
    if (state.cursor.metres && terrain.mapping.spacingX > 0.0f && terrain.mapping.spacingZ > 0.0f) {
        metresPerUnit = 0.5 * (g.metresX / double(terrain.mapping.spacingX) +
                               g.metresZ / double(terrain.mapping.spacingZ));
    }
    drawScaleBar(camera, distance, metresPerUnit, state.cursor.metres, barTop);
    return requests;
}

std::vector<HudWindowRecord> hudWindowRecords() {
    std::vector<HudWindowRecord> records;
    // ImGui's public API tells a window's scroll range only inside it; the internal window
    // record (imgui_internal.h, shipped with the library) tells it after the frame.
    for (const char* name : {"quadterrain", "cursor", "message"}) {
        const ImGuiWindow* w = ImGui::FindWindowByName(name);
        if (w == nullptr || !w->Active) {
            continue;
        }
        records.push_back(
            {name, {w->Pos.x, w->Pos.y, w->Size.x, w->Size.y}, {w->ScrollMax.x, w->ScrollMax.y}});
    }
    return records;
}

}  // namespace qt
