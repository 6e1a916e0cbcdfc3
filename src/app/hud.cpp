// HUD layout: statistics and frame times, toggles, loading and mapping, the minimap, help.
#include "app/hud.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <imgui.h>

#include "core/config.h"

#include "app/minimap.h"
#include "app/readout_text.h"

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

// The counts of the frame: what was drawn (leaves, or level-of-detail nodes), what culling and
// occlusion removed, the walk's work and the draw's.
void drawStats(const FrameStats& stats, const Terrain& terrain) {
    const CullStats& c = stats.cull;
    ImGui::TextWrapped("map %s, %dx%d, leaf %d", terrain.path.c_str(), terrain.map.width,
                       terrain.map.height, terrain.tree.leafSize);
    const HeightPages& pages = terrain.gpu.pages;
    ImGui::Text("heights on the GPU %.1f MiB, %.2f B/sample (%d pages of %d^2)",
                double(pages.bytes()) / (1024.0 * 1024.0), terrain.gpu.bytesPerSample(),
                pages.layers, pages.pageSize);
    if (terrain.onDemand) {
        const StreamStats st = terrain.streamStats();
        ImGui::Text("level 0 on demand: %d of %d pool layers resident, %d requested, %d uploaded",
                    st.resident, st.pool, st.requested, st.uploaded);
    } else if (terrain.streamed()) {
        const StreamStats st = terrain.streamStats();
        ImGui::Text("streaming: %d of %d pool layers resident, %d requested, %d uploaded",
                    st.resident, st.pool, st.requested, st.uploaded);
        if (terrain.map.codes.isMapped()) {
            ImGui::Text("heights mapped from %s; tree %s",
                        terrain.codeCache == "written"    ? "its code cache (written by this load)"
                        : terrain.codeCache == "read"     ? "its code cache"
                        : terrain.codeCache == "not kept" ? "a file of its codes (not kept)"
                                                          : "the file",
                        terrain.sidecar == "read"      ? "read from its .qtree"
                        : terrain.sidecar == "written" ? "written to its .qtree"
                                                       : "built (no .qtree)");
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
        ImGui::Text("leaves in view %u of %u (%.1f%%)", c.leavesDrawn, stats.leavesTotal,
                    percent(c.leavesDrawn, stats.leavesTotal));
    } else {
        ImGui::Text("leaves drawn %u of %u (%.1f%%)", c.leavesDrawn, stats.leavesTotal,
                    percent(c.leavesDrawn, stats.leavesTotal));
    }
    ImGui::Text("culled by the frustum %u, occluded %u%s", c.leavesCulled, c.leavesOccluded,
                stats.lod ? " (full detail)" : "");
    ImGui::Text("nodes tested %u of %u, whole subtrees %u", c.nodesTested, stats.nodesTotal,
                c.subtreesAccepted);
    ImGui::Text("triangles %llu, draw calls %d", (unsigned long long)c.triangles, stats.drawCalls);
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

HudRequests drawToggles(HudState& state, const Camera& camera, float speed) {
    HudRequests requests;
    ImGui::Checkbox("culling (C)", &state.cull);
    ImGui::SameLine();
    ImGui::Checkbox("occlusion (O)", &state.occlusion);
    ImGui::Checkbox("freeze frustum (F)", &state.freeze);
    ImGui::SameLine();
    ImGui::Checkbox("level of detail (L)", &state.lod);
    if (state.lod) {
        ImGui::SetNextItemWidth(-1);
        ImGui::SliderFloat("##lodPixels", &state.lodPixels, 0.25f, 16.0f, "grid step <= %.2f px",
                           ImGuiSliderFlags_Logarithmic);
        state.lodPixels = std::clamp(state.lodPixels, 0.25f, 16.0f);
    }
    ImGui::Checkbox("wireframe (G)", &state.wireframe);
    ImGui::SameLine();
    ImGui::Checkbox("leaf boxes (B)", &state.boxes);
    ImGui::Checkbox("fog", &state.fog.on);
    if (state.fog.on) {
        // Shown where it starts now (the default follows the far plane); an edit fixes it.
        float start = state.fog.startFor(camera.farPlane);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-1);
        if (ImGui::DragFloat("##fogStart", &start, 0.01f * std::max(camera.farPlane, 1.0f), 0.0f,
                             camera.farPlane, "from %.4g away", ImGuiSliderFlags_Logarithmic)) {
            state.fog.start = std::max(start, 0.0f);
        }
    }
    if (state.boxes) {
        ImGui::Text("boxes drawn: %d (at most %d)", state.boxesDrawn, kMaxLeafBoxes);
    }
    ImGui::Text("camera %.1f, %.1f, %.1f", camera.position.x, camera.position.y, camera.position.z);
    ImGui::Text("speed %.3g/s (wheel)", speed);
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

// Where the map lies and what its samples measure: CRS, corners, metres per sample on each
// axis, the height range and the quantisation step.
void drawGeoreference(const Heightmap& map) {
    const Georeference& g = map.geo;
    const char* unit = map.metres ? " m" : "";
    if (g.present) {
        ImGui::TextWrapped("CRS %s", g.crsName.empty() ? "(none named)" : g.crsName.c_str());
        if (g.geographic) {
            ImGui::Text("latitude %.5f to %.5f", g.south, g.north);
            ImGui::Text("longitude %.5f to %.5f", g.west, g.east);
        } else {
            ImGui::Text("x %.2f to %.2f", g.west, g.east);
            ImGui::Text("y %.2f to %.2f", g.south, g.north);
        }
        ImGui::Text("metres per sample %.4g east-west,", g.metresX);
        ImGui::Text("  %.4g north-south", g.metresZ);
    } else {
        ImGui::TextDisabled("no georeference");
    }
    ImGui::Text("heights %.6g to %.6g%s", double(map.minSample), double(map.maxSample), unit);
    ImGui::Text("quantisation step %.3g%s", double(map.coding.step), unit);
    drawNodata(map.nodata);
}

// The path box (Enter or the button loads it) and the mapping's sliders, which never make a
// world of non-finite floats.
bool drawLoadAndMapping(HudState& state, Terrain& terrain) {
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
    const WorldMapping before = terrain.mapping;
    float spacing[2] = {terrain.mapping.spacingX, terrain.mapping.spacingZ};
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    if (ImGui::DragFloat2("spacing x, z", spacing, 0.01f * terrain.mapping.largerSpacing(), 1e-4f,
                          1e6f, "%.4g", ImGuiSliderFlags_Logarithmic)) {
        terrain.mapping.spacingX = std::max(spacing[0], 1e-4f);
        terrain.mapping.spacingZ = std::max(spacing[1], 1e-4f);
    }
    const float scaleStep = 0.01f * std::max(std::abs(terrain.mapping.heightScale), 1e-6f);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    ImGui::DragFloat("height scale", &terrain.mapping.heightScale, scaleStep, -1e6f, 1e6f, "%.4g");
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

// One window down the left side, as tall as the viewport: the message, then collapsible sections
// (statistics, view and keys, loading and mapping, the key list, the minimap); the minimap takes
// the height left, so nothing needs scrolling at 1280x720.
HudRequests drawHud(HudState& state, const FrameStats& stats, Terrain& terrain,
                    const Camera& camera, const std::array<glm::vec3, 8>& cullCorners,
                    float speed) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(kHudWidth, std::max(display.y - 20.0f, 100.0f)),
                             ImGuiCond_Always);
    ImGui::Begin("quadterrain", nullptr, ImGuiWindowFlags_NoResize);
    if (state.quitAsked) {
        ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "Esc again to quit");
    }
    if (!state.message.empty()) {
        ImGui::TextWrapped("%s", state.message.c_str());
        ImGui::Separator();
    }
    if (ImGui::CollapsingHeader("statistics", ImGuiTreeNodeFlags_DefaultOpen)) {
        drawStats(stats, terrain);
        drawFrameTimes(state, stats);
    }
    HudRequests requests;
    if (ImGui::CollapsingHeader("view and keys", ImGuiTreeNodeFlags_DefaultOpen)) {
        requests = drawToggles(state, camera, speed);
    }
    if (ImGui::CollapsingHeader("georeference and heights", ImGuiTreeNodeFlags_DefaultOpen)) {
        drawGeoreference(terrain.map);
    }
    if (ImGui::CollapsingHeader("objects")) {
        requests.scatterObjects = drawObjects(state, stats, terrain);
    }
    if (state.focusPath) {
        ImGui::SetNextItemOpen(true);
    }
    state.pathBoxRect = {};
    if (ImGui::CollapsingHeader("load and mapping")) {
        const WorldMapping before = terrain.mapping;
        requests.load = drawLoadAndMapping(state, terrain);
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
    drawCursorBar(state.cursor, camera.viewProjection(), kHudWidth + 20.0f);
    return requests;
}

}  // namespace qt
