// The compass, the scale bar and the message toast, drawn over the view with ImGui.
#include "app/hud_overlay.h"

#include <algorithm>
#include <cmath>

#include <imgui.h>

#include "app/view_scale.h"

namespace qt {
namespace {

constexpr float kCompassRadius = 34.0f;
constexpr float kScaleBarPixels = 160.0f;  // the bar's longest span; 1-2-5 steps keep it >= 64
constexpr double kToastSeconds = 10.0;
constexpr ImU32 kPanel = IM_COL32(20, 20, 24, 150);
constexpr ImU32 kInk = IM_COL32(240, 240, 240, 255);
constexpr ImU32 kNorthRed = IM_COL32(220, 50, 40, 255);

// Text centred on x, its top at y, on the foreground.
void centredText(ImDrawList* draw, float x, float y, const char* text) {
    const ImVec2 size = ImGui::CalcTextSize(text);
    draw->AddText(ImVec2(x - 0.5f * size.x, y), kInk, text);
}

const char* northName(NorthKind north) {
    switch (north) {
        case NorthKind::True:
            return "true north";
        case NorthKind::Grid:
            return "grid north";
        case NorthKind::Map:
            break;
    }
    return "map north";
}

}  // namespace

void drawCompass(const Camera& camera, NorthKind north) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const float line = ImGui::GetTextLineHeight();
    const ImVec2 c(display.x - kCompassRadius - 24.0f, kCompassRadius + 14.0f);
    if (c.x < kCompassRadius) {
        return;  // no room
    }
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    draw->AddRectFilled(
        ImVec2(c.x - kCompassRadius - 14.0f, c.y - kCompassRadius - 8.0f),
        ImVec2(c.x + kCompassRadius + 14.0f, c.y + kCompassRadius + 2.0f * line + 8.0f), kPanel,
        6.0f);
    draw->AddCircle(c, kCompassRadius, kInk, 48, 1.5f);
    // Map north on screen, clockwise from up: the heading turned back.
    const double heading = headingDegrees(camera.yaw);
    const float a = float(-heading * 3.14159265358979323846 / 180.0);
    const ImVec2 dir(std::sin(a), -std::cos(a));
    const ImVec2 side(-dir.y, dir.x);
    const float arm = kCompassRadius - 15.0f;
    const float half = 6.0f;
    const ImVec2 tip(c.x + dir.x * arm, c.y + dir.y * arm);
    const ImVec2 tail(c.x - dir.x * arm, c.y - dir.y * arm);
    const ImVec2 l(c.x + side.x * half, c.y + side.y * half);
    const ImVec2 r(c.x - side.x * half, c.y - side.y * half);
    draw->AddTriangleFilled(tip, l, r, kNorthRed);
    draw->AddTriangleFilled(tail, r, l, kInk);
    // "N" between the arrow's tip and the ring.
    const float out = kCompassRadius - 7.0f;
    const ImVec2 n = ImGui::CalcTextSize("N");
    draw->AddText(ImVec2(c.x + dir.x * out - 0.5f * n.x, c.y + dir.y * out - 0.5f * n.y), kNorthRed,
                  "N");
    const std::string text = headingText(heading);
    centredText(draw, c.x, c.y + kCompassRadius + 4.0f, text.c_str());
    centredText(draw, c.x, c.y + kCompassRadius + 4.0f + line, northName(north));
}

void drawScaleBar(const Camera& camera, double distance, double metresPerUnit, bool metres,
                  float bottom) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const double perPixel =
        worldPerPixel(distance, camera.fovY, int(display.y)) * (metres ? metresPerUnit : 1.0);
    const ScaleBar bar = roundScaleBar(perPixel, kScaleBarPixels);
    if (bar.length <= 0.0) {
        return;
    }
    const std::string label = scaleText(bar.length, metres);
    const ImVec2 size = ImGui::CalcTextSize(label.c_str());
    const float right = display.x - 24.0f;
    const float left = right - bar.pixels;
    const float y = bottom - 12.0f;  // the bar's line
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    draw->AddRectFilled(ImVec2(std::min(left, right - size.x) - 10.0f, y - size.y - 14.0f),
                        ImVec2(right + 10.0f, y + 8.0f), kPanel, 6.0f);
    draw->AddLine(ImVec2(left, y), ImVec2(right, y), kInk, 2.0f);
    draw->AddLine(ImVec2(left, y - 6.0f), ImVec2(left, y + 1.0f), kInk, 2.0f);
    draw->AddLine(ImVec2(right, y - 6.0f), ImVec2(right, y + 1.0f), kInk, 2.0f);
    draw->AddText(ImVec2(0.5f * (left + right) - 0.5f * size.x, y - size.y - 8.0f), kInk,
                  label.c_str());
}

void drawToast(const std::string& message, bool quitAsked, float left, std::string& shown,
               double& since) {
    const double now = ImGui::GetTime();
    if (message != shown) {
        shown = message;
        since = now;
    }
    const bool fresh = !shown.empty() && now - since < kToastSeconds;
    if (!fresh && !quitAsked) {
        return;
    }
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    // Clear of the compass in the top-right corner.
    const float width = display.x - left - 2.0f * kCompassRadius - 60.0f;
    if (width < 100.0f) {
        return;
    }
    ImGui::SetNextWindowPos(ImVec2(left, 10.0f), ImGuiCond_Always);
    ImGui::SetNextWindowSizeConstraints(ImVec2(0.0f, 0.0f), ImVec2(width, display.y * 0.3f));
    ImGui::SetNextWindowBgAlpha(0.7f);
    ImGui::Begin("message", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    ImGui::PushTextWrapPos(width - 2.0f * ImGui::GetStyle().WindowPadding.x);
    if (quitAsked) {
        ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "Esc again to quit");
    }
    if (fresh) {
        ImGui::TextUnformatted(shown.c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::End();
}

}  // namespace qt
