// What the HUD draws over the view itself: the compass (map north and the heading) in the top-right
// corner, the scale bar at the bottom right, and the toast line of the last message.
#pragma once

#include <string>

#include "core/view/camera.h"

namespace qt {

// What map north is: true north for a geographic grid, grid north for a projected CRS, the map's
// first row without a georeference.
enum class NorthKind { True, Grid, Map };

// A compass in the top-right corner: an arrow to map north (-z) turned by the camera's yaw, and
// "heading 312°" with the kind of north under it.
void drawCompass(const Camera& camera, NorthKind north);

// A scale bar right-aligned above `bottom` (a window y): a round length that spans at most
// kScaleBarPixels at the point `distance` away along the view's centre line, labelled in metres
// or kilometres when metres, else map units; `metresPerUnit` converts world lengths.
void drawScaleBar(const Camera& camera, double distance, double metresPerUnit, bool metres,
                  float bottom);

// The last message in a line of its own at the top of the view, right of `left`, shown for
// kToastSeconds after it changes; it covers the view, never moves the HUD's widgets. `shown`
// and `since` keep the message on screen and when it arrived.
void drawToast(const std::string& message, bool quitAsked, float left, std::string& shown,
               double& since);

}  // namespace qt
