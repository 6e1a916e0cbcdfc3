// The HUD's cursor bar along the bottom of the view (the terrain under the cursor: world point,
// sample, height, and where a georeferenced map puts it: longitude, latitude, CRS coordinates; the
// object in front of it; the measurement dragged between two points, in metres when the map's
// georeference says so, also drawn over the view) and the ground-follow setting.
#pragma once

#include <optional>
#include <string>

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "core/cull/pick.h"
#include "core/objects/pick.h"
#include "core/terrain/geo_transform.h"
#include "core/terrain/heightmap.h"

namespace qt {

struct CursorReadout {
    PickHit hover;                     // the terrain under the cursor this frame (hit false: none)
    double hoverHeight = 0.0;          // the surface's height at hover's point, in the map's units
    std::optional<GeoPoint> hoverGeo;  // hover's point in the map's CRS and WGS 84
    // The object under the cursor, in front of the terrain there (none: no objects, or none hit),
    // with its shape and a ball's horizontal velocity at that frame.
    std::optional<ObjectPickHit> hoverObject;
    ObjectShape hoverShape;
    glm::vec2 hoverVelocity{0.0f};
    bool metres = false;      // the georeference says metres (GeoTransform::metres)
    std::string crsName;      // the map's CRS, shown beside its coordinates
    bool geographic = false;  // its CRS coordinates are angles
    bool measured = false;    // a point was pressed on: a to b is shown
    bool dragging = false;    // the left button is still down: b follows the cursor
    glm::vec3 a{0.0f}, b{0.0f};
    GroundDistance distance;  // a to b, in metres when metres

    // The readout's units and CRS for a map's georeference.
    void setMap(const GeoTransform& geo) {
        metres = geo.metres();
        crsName = geo.present() ? geo.georeference().crsName : "";
        geographic = geo.present() && geo.georeference().geographic;
    }
};

// One line in the current ImGui window: the ground-follow checkbox and its least height.
void drawFollowSetting(bool& follow, float& followHeight);

// A window along the bottom of the view, right of the HUD's column (`left` pixels), with the
// readout; the measurement's line and ends drawn over the view, seen through `viewProjection`.
// Returns the bar's top (the view's height when there is no room for it).
float drawCursorBar(const CursorReadout& r, const glm::mat4& viewProjection, float left);

}  // namespace qt
