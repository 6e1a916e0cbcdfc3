// The cursor bar: world point, map sample, height, longitude, latitude and CRS coordinates under
// the cursor, and the object in front of it; distance, level distance (geodesic on geographic
// maps) and height difference of the measurement, and its line over the view; ground-follow.
#include "app/hud_cursor.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>
#include <glm/geometric.hpp>
#include <glm/vec4.hpp>

#include "app/readout_text.h"

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

// A world coordinate: fixed decimals, thousands grouped.
std::string worldText(float v) {
    return groupedNumber(v, std::fabs(v) < 100.0f ? 3 : 2);
}

// An object's size in world units: metres when the map's world is (its default mapping), else
// world units.
std::string worldLength(float v, bool metres) {
    return metres ? lengthText(v, true) : groupedNumber(v, std::fabs(v) < 100.0f ? 3 : 2);
}

}  // namespace

void drawFollowSetting(bool& follow, float& followHeight) {
    ImGui::Checkbox("ground-follow (T)", &follow);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    ImGui::DragFloat("##followHeight", &followHeight, 0.01f * std::max(followHeight, 1e-3f), 1e-3f,
                     1e9f, "at least %.2f above", ImGuiSliderFlags_Logarithmic);
    followHeight = std::clamp(followHeight, 1e-3f, 1e9f);
}

float drawCursorBar(const CursorReadout& r, const glm::mat4& viewProjection, float left) {
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
        return display.y;  // no room right of the HUD
    }
    ImGui::SetNextWindowPos(ImVec2(left, display.y - 10.0f), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowSize(ImVec2(width, 0.0f), ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("cursor", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav);
    if (r.hover.hit) {
        const glm::vec3& p = r.hover.world;
        ImGui::Text("cursor %s, %s, %s   sample %d, %d   height %s", worldText(p.x).c_str(),
                    worldText(p.y).c_str(), worldText(p.z).c_str(), r.hover.col, r.hover.row,
                    lengthText(r.hoverHeight, r.metres).c_str());
        if (r.hoverGeo) {
            const GeoPoint& g = *r.hoverGeo;
            const std::string crs =
                crsText(g, r.geographic) + " (" + (r.crsName.empty() ? "no CRS" : r.crsName) + ")";
            if (g.hasLonLat) {
                ImGui::Text("%s   %s", lonLatText(g.lon, g.lat).c_str(), crs.c_str());
            } else {
                ImGui::Text("%s", crs.c_str());
            }
        }
    } else if (r.hover.arriving) {
        ImGui::TextDisabled("cursor: heights arriving (the map's tiles under it are on their way)");
    } else {
        ImGui::TextDisabled("cursor: no terrain under it");
    }
    if (r.hoverObject) {
        const ObjectShape& o = r.hoverShape;
        const glm::vec3& p = r.hoverObject->world;
        const std::string at = worldText(p.x) + ", " + worldText(p.y) + ", " + worldText(p.z);
        if (o.kind == ObjectKind::Ball) {
            ImGui::Text("%s %u: radius %s, rolling %s/s, at %s", objectKindName(o.kind),
                        r.hoverObject->id, worldLength(o.radius, r.metres).c_str(),
                        worldLength(glm::length(r.hoverVelocity), r.metres).c_str(), at.c_str());
        } else {  // a tree's height from its base, a rock's from its centre
            ImGui::Text("%s %u: radius %s, %s %s, at %s", objectKindName(o.kind), r.hoverObject->id,
                        worldLength(o.radius, r.metres).c_str(),
                        o.kind == ObjectKind::Tree ? "height" : "half-height",
                        worldLength(o.height, r.metres).c_str(), at.c_str());
        }
    }
    if (r.measured) {
        ImGui::Text("%s", measureText(r.distance).c_str());
    } else {
        ImGui::TextDisabled("drag to measure, double-click to fly there");
    }
    const float top = ImGui::GetWindowPos().y;
    ImGui::End();
    return top;
}

}  // namespace qt
