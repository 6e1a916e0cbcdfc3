// The --stats-json report: map, mapping, camera and the last frame's culling counts.
#pragma once

#include <string>
#include <vector>

#include "core/camera.h"
#include "core/quadtree.h"
#include "core/terrain_grid.h"
#include "render/terrain.h"

namespace qt {

struct StatsReport {
    std::string path;
    int width = 0;
    int height = 0;
    WorldMapping mapping;
    const Heightmap* map = nullptr;  // its georeference and height range; null: left out
    Camera camera;
    glm::vec3 target{0.0f};
    int leafSize = 0;
    bool culling = true;
    FrameStats stats;
    const std::vector<LeafCoord>* visibleLeaves = nullptr;  // null: not listed
};

std::string statsJson(const StatsReport& report);

// JSON string literal of `text`, quotes included; control bytes as \u00XX.
std::string jsonString(const std::string& text);

}  // namespace qt
