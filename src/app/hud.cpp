// HUD layout: statistics first, then toggles, the minimap, loading and the mapping sliders.
#include "app/hud.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>

#include "app/minimap.h"

namespace qt {
namespace {

constexpr const char* kHelp =
    "WASD move, Q/E down/up, Shift fast, right-drag look, Tab capture mouse, wheel speed, "
    "C cull, O occlusion, L level of detail, F freeze, G wireframe, B boxes, R/F5 reload shaders, "
    "H hide HUD";

double percent(uint64_t part, uint64_t whole) {
    return whole ? 100.0 * double(part) / double(whole) : 0.0;
}

}  // namespace

void HudState::recordFrame(float ms) {
    frameMs[size_t(frameCursor)] = ms;
    frameCursor = (frameCursor + 1) % kFrameHistory;
}

HudRequests drawHud(HudState& state, const FrameStats& stats, Terrain& terrain,
                    const Camera& camera, const std::array<glm::vec3, 8>& cullCorners,
                    float speed) {
    HudRequests requests;
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(360, 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("quadterrain");
    ImGui::TextWrapped("%s", kHelp);
    ImGui::Separator();

    const CullStats& c = stats.cull;
    ImGui::Text("map %s  %dx%d, leaf %d", terrain.path.c_str(), terrain.map.width,
                terrain.map.height, terrain.tree.leafSize);
    ImGui::Text("leaves drawn %u / %u (%.1f%%)", c.leavesDrawn, stats.leavesTotal,
                percent(c.leavesDrawn, stats.leavesTotal));
    ImGui::Text("culled by the frustum %u, occluded %u%s", c.leavesCulled, c.leavesOccluded,
                stats.lod ? " (full-detail nodes)" : "");
    ImGui::Text("nodes tested %u of %u, whole subtrees %u", c.nodesTested, stats.nodesTotal,
                c.subtreesAccepted);
    if (stats.lod) {
        const LodStats& l = stats.lodStats;
        ImGui::Text("LOD: %u nodes over %u leaves, levels 0-%d", l.nodesDrawn, l.leavesCovered,
                    int(l.deepestLevel));
    }
    ImGui::Text("triangles %llu, draw calls %d%s%s", (unsigned long long)c.triangles,
                stats.drawCalls, stats.syncedDraws ? " (synchronised batches)" : "",
                stats.backFacesCulled ? ", back faces culled" : "");
    ImGui::Text("culling %.3f ms", stats.cullMs);

    // Frame graph: the ring buffer read from its oldest entry.
    const float last =
        state.frameMs[size_t((state.frameCursor + kFrameHistory - 1) % kFrameHistory)];
    float worst = 0.0f;
    for (const float ms : state.frameMs) {
        worst = std::max(worst, ms);
    }
    ImGui::Text("frame %.2f ms (%.0f fps), worst of last %d: %.2f ms", last,
                last > 0.0f ? 1000.0f / last : 0.0f, kFrameHistory, worst);
    ImGui::PlotLines("##frames", state.frameMs.data(), kFrameHistory, state.frameCursor, nullptr,
                     0.0f, std::max(worst, 1.0f), ImVec2(-1, 50));

    ImGui::Checkbox("culling (C)", &state.cull);
    ImGui::SameLine();
    ImGui::Checkbox("occlusion (O)", &state.occlusion);
    ImGui::SameLine();
    ImGui::Checkbox("freeze frustum (F)", &state.freeze);
    ImGui::Checkbox("level of detail (L)", &state.lod);
    if (state.lod) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-1);
        ImGui::SliderFloat("##lodPixels", &state.lodPixels, 0.25f, 16.0f, "step <= %.2f px",
                           ImGuiSliderFlags_Logarithmic);
        state.lodPixels = std::clamp(state.lodPixels, 0.25f, 16.0f);
    }
    ImGui::Checkbox("wireframe (G)", &state.wireframe);
    ImGui::SameLine();
    ImGui::Checkbox("leaf boxes (B)", &state.boxes);
    if (state.boxes) {
        ImGui::Text("boxes drawn: %d (at most %d)", state.boxesDrawn, kMaxLeafBoxes);
    }
    ImGui::Text("camera %.1f, %.1f, %.1f  speed %.3g/s", camera.position.x, camera.position.y,
                camera.position.z, speed);
    if (ImGui::Button("reset camera")) {
        requests.resetCamera = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("reload shaders (R)")) {
        requests.reloadShaders = true;
    }

    if (ImGui::CollapsingHeader("minimap", ImGuiTreeNodeFlags_DefaultOpen)) {
        drawMinimap(terrain, camera, cullCorners, ImGui::GetContentRegionAvail().x,
                    state.minimapCells, stats.lod);
    }

    ImGui::InputText("##path", state.path, sizeof(state.path));
    ImGui::SameLine();
    if (ImGui::Button("Load")) {
        requests.load = true;
    }
    ImGui::TextDisabled("or drop a heightmap file onto the window");
    const WorldMapping before = terrain.mapping;
    ImGui::DragFloat("spacing", &terrain.mapping.spacing, 0.01f * terrain.mapping.spacing, 1e-4f,
                     1e6f, "%.4g", ImGuiSliderFlags_Logarithmic);
    const float scaleStep = 0.01f * std::max(std::abs(terrain.mapping.heightScale), 1e-6f);
    ImGui::DragFloat("height scale", &terrain.mapping.heightScale, scaleStep, -1e6f, 1e6f, "%.4g");
    terrain.mapping.spacing = std::max(terrain.mapping.spacing, 1e-4f);
    if (Status world = checkWorldFinite(terrain.map, terrain.mapping); !world) {
        terrain.mapping = before;  // a slider never makes a world of non-finite floats
        state.message = world.error();
    }
    if (!state.message.empty()) {
        ImGui::TextWrapped("%s", state.message.c_str());
    }
    ImGui::End();
    return requests;
}

}  // namespace qt
