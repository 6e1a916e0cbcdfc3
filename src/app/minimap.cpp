// Minimap: culled subtrees, drawn and occluded nodes as rectangles, the frustum's x/z footprint,
// the eye.
#include "app/minimap.h"

#include <algorithm>

#include <imgui.h>

#include "app/palette.h"

namespace qt {
namespace {

constexpr ImU32 opaque(Rgb c) {
    return IM_COL32(c.r, c.g, c.b, 255);
}
constexpr ImU32 kCulled = opaque(kCulledColour);
constexpr ImU32 kDrawn = opaque(kDrawnColour);
constexpr ImU32 kOccluded = opaque(kOccludedColour);
constexpr ImU32 kBackground = opaque(kOutsideColour);
constexpr ImU32 kFrustum = opaque(kFrustumColour);
constexpr ImU32 kCamera = opaque(kCameraColour);
constexpr ImU32 kObjectCell = IM_COL32(255, 255, 255, 70);
constexpr ImU32 kObjectDot = IM_COL32(250, 120, 40, 160);
constexpr ImU32 kSelectedDot = IM_COL32(255, 220, 30, 255);
constexpr ImU32 kSelection = IM_COL32(255, 220, 30, 200);

// A swatch of `colour` and its name, on the current line.
void swatch(ImU32 colour, const char* name) {
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(at.x, at.y + 0.2f * h),
                                              ImVec2(at.x + 0.8f * h, at.y + h), colour);
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine(0.0f, 2.0f);
    ImGui::TextUnformatted(name);
}

void drawLegend(bool lod, bool objects) {
    swatch(kDrawn, lod ? "drawn (greener: finer)" : "drawn");
    ImGui::SameLine();
    swatch(kOccluded, "occluded");
    ImGui::SameLine();
    swatch(kCulled, "culled");
    swatch(kFrustum, "frustum");
    ImGui::SameLine();
    swatch(kCamera, "eye");
    if (objects) {
        ImGui::SameLine();
        swatch(kObjectDot, "object drawn");
        ImGui::SameLine();
        swatch(kSelectedDot, "selected");
    }
}

}  // namespace

void selectObjects(Terrain& terrain, const Rect& rect, MinimapObjects& objects) {
    for (uint32_t id : objects.selected) {
        terrain.selectedObjects[id] = 0;
    }
    objects.selected.clear();
    ++terrain.selectionVersion;
    if (!terrain.objects) {
        return;
    }
    terrain.objects->index().queryRect(rect, objects.selected);
    for (uint32_t id : objects.selected) {
        terrain.selectedObjects[id] = 1;
    }
    ++terrain.selectionVersion;
}

void toggleObject(Terrain& terrain, uint32_t id, MinimapObjects& objects) {
    if (!terrain.objects || id >= terrain.selectedObjects.size()) {
        return;
    }
    std::vector<uint32_t>& selected = objects.selected;
    const auto at = std::lower_bound(selected.begin(), selected.end(), id);
    if (at != selected.end() && *at == id) {
        selected.erase(at);
        terrain.selectedObjects[id] = 0;
    } else {
        selected.insert(at, id);
        terrain.selectedObjects[id] = 1;
    }
    ++terrain.selectionVersion;
}

float minimapLegendHeight() {
    return 2.0f * ImGui::GetTextLineHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y;
}

std::optional<glm::vec2> drawMinimap(Terrain& terrain, const Camera& camera,
                                     const std::array<glm::vec3, 8>& cullCorners, float side,
                                     std::vector<MapCell>& cells, bool lod,
                                     MinimapObjects& objects) {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("minimap", ImVec2(side, side));
    const bool clicked = ImGui::IsItemActive() && ImGui::IsMouseDown(ImGuiMouseButton_Left);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 end(origin.x + side, origin.y + side);
    draw->AddRectFilled(origin, end, kBackground);
    draw->PushClipRect(origin, end, true);

    // Sample coordinates to pixels, the longer side filling the square with a small border.
    const float samplesLong = float(std::max(terrain.map.width, terrain.map.height) - 1);
    const float border = 0.1f * side;
    const float scale = (side - 2.0f * border) / samplesLong;
    auto pixel = [&](float sampleX, float sampleZ) {
        return ImVec2(origin.x + border + sampleX * scale, origin.y + border + sampleZ * scale);
    };
    auto fillNode = [&](uint32_t index, ImU32 colour) {
        const QuadtreeNode& n = terrain.tree.nodes[index];
        draw->AddRectFilled(pixel(n.x0, n.z0), pixel(n.x1(), n.z1()), colour);
    };
    for (const uint32_t node : terrain.frame.walk.culledNodes) {
        fillNode(node, kCulled);
    }
    if (lod) {
        // What the walk found in the frustum, as occluded, under the nodes drawn, greener the
        // finer (level 0 as the leaves' drawn colour): what stays blue is what occlusion removed.
        for (const uint32_t node : terrain.frame.walk.acceptedNodes) {
            fillNode(node, kOccluded);
        }
        for (const DrawNode& node : terrain.frame.lod.nodes) {
            const SampleBox box = levelNodeBox(terrain.tree, node.level, node.col, node.row);
            const int level = std::min(int(node.level), 6);
            const ImU32 colour = IM_COL32(kDrawnColour.r + 25 * level, kDrawnColour.g - 8 * level,
                                          kDrawnColour.b + 12 * level, 255);
            const ImVec2 a = pixel(float(box.x0), float(box.z0));
            const ImVec2 b = pixel(float(box.x1), float(box.z1));
            draw->AddRectFilled(a, b, colour);
            if (node.level > 0 && b.x - a.x > 8.0f) {
                draw->AddRect(a, b, kBackground);
            }
        }
    } else {
        // Nodes under a pixel are not split into drawn and occluded parts.
        minimapCells(terrain.tree, terrain.frame.walk.acceptedNodes, terrain.frame.drawn,
                     int(1.0f / scale), cells);
        for (const MapCell& cell : cells) {
            fillNode(cell.node, cell.drawn ? kDrawn : kOccluded);
        }
    }

    // World x/z to sample units, then pixels. The frustum's lines inside the map's square.
    const float toColumns = 1.0f / terrain.mapping.spacingX;
    const float toRows = 1.0f / terrain.mapping.spacingZ;
    auto world = [&](const glm::vec3& p) { return pixel(p.x * toColumns, p.z * toRows); };
    draw->PushClipRect(pixel(0.0f, 0.0f),
                       pixel(float(terrain.map.width - 1), float(terrain.map.height - 1)), true);
    for (const auto& edge : Frustum::kEdges) {
        draw->AddLine(world(cullCorners[size_t(edge[0])]), world(cullCorners[size_t(edge[1])]),
                      kFrustum, 1.0f);
    }
    draw->PopClipRect();
    if (terrain.objects) {
        // The object tree's occupied cells down to about two pixels, then the drawn objects.
        const ObjectScene& scene = *terrain.objects;
        if (objects.cells) {
            scene.index().occupiedCells(2.0f * terrain.mapping.largerSpacing() / scale,
                                        objects.cellScratch);
            for (const Rect& r : objects.cellScratch) {
                draw->AddRect(world({r.minX, 0.0f, r.minZ}), world({r.maxX, 0.0f, r.maxZ}),
                              kObjectCell);
            }
        }
        const std::vector<uint32_t>& drawn = terrain.frame.objectsDrawn;
        for (size_t i = 0; i < std::min(drawn.size(), kMaxMinimapObjects); ++i) {
            const ImVec2 p = world(scene.base(drawn[i]));
            draw->AddRectFilled(p, ImVec2(p.x + 1.5f, p.y + 1.5f), kObjectDot);
        }
        for (uint32_t id : objects.selected) {
            const ImVec2 p = world(scene.base(id));
            draw->AddRectFilled(ImVec2(p.x - 1.0f, p.y - 1.0f), ImVec2(p.x + 2.0f, p.y + 2.0f),
                                kSelectedDot);
        }
        // Right-button drag: the rectangle selection, in world x/z.
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const float mouseX = (mouse.x - origin.x - border) / scale * terrain.mapping.spacingX;
        const float mouseZ = (mouse.y - origin.y - border) / scale * terrain.mapping.spacingZ;
        if (ImGui::IsItemHovered() && ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
            objects.dragging = true;
            objects.dragX = mouseX;
            objects.dragZ = mouseZ;
        }
        if (objects.dragging) {
            const Rect r{std::min(objects.dragX, mouseX), std::min(objects.dragZ, mouseZ),
                         std::max(objects.dragX, mouseX), std::max(objects.dragZ, mouseZ)};
            draw->AddRect(world({r.minX, 0.0f, r.minZ}), world({r.maxX, 0.0f, r.maxZ}), kSelection,
                          0.0f, 0, 2.0f);
            if (!ImGui::IsMouseDown(ImGuiMouseButton_Right)) {
                objects.dragging = false;
                selectObjects(terrain, r, objects);
            }
        }
    }
    const ImVec2 eye = world(camera.position);
    const glm::vec3 ahead = camera.position + camera.forward() * (0.08f * samplesLong *
                                                                  terrain.mapping.largerSpacing());
    draw->AddCircleFilled(eye, 3.5f, kCamera);
    draw->AddLine(eye, world(ahead), kCamera, 2.0f);
    draw->PopClipRect();
    drawLegend(lod, terrain.objects != nullptr);

    if (!clicked) {
        return std::nullopt;
    }
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const float sampleX =
        std::clamp((mouse.x - origin.x - border) / scale, 0.0f, float(terrain.map.width - 1));
    const float sampleZ =
        std::clamp((mouse.y - origin.y - border) / scale, 0.0f, float(terrain.map.height - 1));
    return glm::vec2(sampleX * terrain.mapping.spacingX, sampleZ * terrain.mapping.spacingZ);
}

}  // namespace qt
