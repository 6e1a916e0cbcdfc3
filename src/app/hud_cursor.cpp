// The cursor bar: world point, map sample and height under the cursor, and the object in front
// of it; distance, level distance and height difference of the measurement, and its line over
// the view; ground-follow.
#include "app/hud_cursor.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>
#include <glm/geometric.hpp>
#include <glm/vec4.hpp>

namespace qt {
namespace {

constexpr ImU32 kMeasureColour = IM_COL32(255, 240, 64, 255);

// A world point in window pixels, or false when it is behind the eye.
bool toScreen(const glm::mat4& viewProjection, const glm::vec3& p, ImVec2 display, ImVec2& out) {
    const glm::vec4 clip = viewProjection * glm::vec4(p, 1.0f);
    if (!(clip.w > 0.0f)) {
        return false;
    }
    out = ImVec2((clip.x / clip.w * 0.5f + 0.5f) * display.x,
                 (0.5f - clip.y / clip.w * 0.5f) * display.y);
    return std::isfinite(out.x) && std::isfinite(out.y);
}

}  // namespace

void drawFollowSetting(bool& follow, float& followHeight) {
    ImGui::Checkbox("ground-follow (T)", &follow);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    ImGui::DragFloat("##followHeight", &followHeight, 0.01f * std::max(followHeight, 1e-3f), 1e-3f,
                     1e9f, "at least %.3g above", ImGuiSliderFlags_Logarithmic);
    followHeight = std::clamp(followHeight, 1e-3f, 1e9f);
}

void drawCursorBar(const CursorReadout& r, const glm::mat4& viewProjection, float left) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    if (r.measured) {  // over the terrain, under the HUD's windows
        ImVec2 a, b;
        if (toScreen(viewProjection, r.a, display, a) &&
            toScreen(viewProjection, r.b, display, b)) {
            ImDrawList* draw = ImGui::GetBackgroundDrawList();
            draw->AddLine(a, b, kMeasureColour, 2.0f);
            draw->AddCircleFilled(a, 4.0f, kMeasureColour);
            draw->AddCircleFilled(b, 4.0f, kMeasureColour);
        }
    }
    const float width = display.x - left - 10.0f;
    if (width < 100.0f) {
        return;  // no room right of the HUD
    }
    ImGui::SetNextWindowPos(ImVec2(left, display.y - 10.0f), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("cursor", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav);
    const char* unit = r.metres ? " m" : "";
    if (r.hover.hit) {
        const glm::vec3& p = r.hover.world;
        ImGui::Text("cursor %.7g, %.7g, %.7g   sample %d, %d   height %.6g%s", p.x, p.y, p.z,
                    r.hover.col, r.hover.row, r.hoverSample, r.metres ? " m" : " (map value)");
    } else {
        ImGui::TextDisabled("cursor: no terrain under it");
    }
    if (r.hoverObject) {
        const ObjectShape& o = r.hoverShape;
        const glm::vec3& p = r.hoverObject->world;
        if (o.kind == ObjectKind::Ball) {
            ImGui::Text("%s %u: radius %.4g%s, rolling %.4g%s/s, at %.7g, %.7g, %.7g",
                        objectKindName(o.kind), r.hoverObject->id, o.radius, unit,
                        glm::length(r.hoverVelocity), r.metres ? " m" : " units", p.x, p.y, p.z);
        } else {  // a tree's height from its base, a rock's from its centre
            ImGui::Text("%s %u: radius %.4g%s, %s %.4g%s, at %.7g, %.7g, %.7g",
                        objectKindName(o.kind), r.hoverObject->id, o.radius, unit,
                        o.kind == ObjectKind::Tree ? "height" : "half-height", o.height, unit, p.x,
                        p.y, p.z);
        }
    }
    if (r.measured) {
        const glm::vec3 d = r.b - r.a;
        ImGui::Text("measure %.6g%s (level %.6g%s, height %+.6g%s)", glm::length(d), unit,
                    std::hypot(d.x, d.z), unit, d.y, unit);
    } else {
        ImGui::TextDisabled("drag to measure, double-click to fly there");
    }
    ImGui::End();
}

}  // namespace qt
