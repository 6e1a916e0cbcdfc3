// The cursor's readout: world point, map sample and height; distance, horizontal distance and
// height difference of the measurement; ground-follow.
#include "app/hud_cursor.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>
#include <glm/geometric.hpp>

namespace qt {

void drawCursorReadout(const CursorReadout& r, bool& follow, float& followHeight) {
    const char* unit = r.metres ? " m" : "";
    if (r.hover.hit) {
        const glm::vec3& p = r.hover.world;
        ImGui::Text("cursor %.2f, %.2f, %.2f", p.x, p.y, p.z);
        ImGui::Text("sample %d, %d, height %.6g%s", r.hover.col, r.hover.row, r.hoverSample,
                    r.metres ? " m" : " (map value)");
    } else {
        ImGui::TextDisabled("cursor: no terrain under it");
    }
    if (r.measured) {
        const glm::vec3 d = r.b - r.a;
        ImGui::Text("measure %.2f%s (level %.2f%s), height %+.2f%s", glm::length(d), unit,
                    std::hypot(d.x, d.z), unit, d.y, unit);
    } else {
        ImGui::TextDisabled("drag to measure, double-click to fly there");
    }
    ImGui::Checkbox("ground-follow (T)", &follow);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    ImGui::DragFloat("##followHeight", &followHeight, 0.01f * std::max(followHeight, 1e-3f), 1e-3f,
                     1e9f, "at least %.3g above", ImGuiSliderFlags_Logarithmic);
    followHeight = std::clamp(followHeight, 1e-3f, 1e9f);
}

}  // namespace qt
