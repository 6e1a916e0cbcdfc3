// The view's orientation and scale for the HUD (GL-free, unit-tested): the heading of the camera
// from map north, the world length of a pixel at the view's centre, and a scale bar of a round
// length that fits a span of pixels.
#pragma once

#include <string>

namespace qt {

// The camera's heading in degrees from map north, clockwise, in [0, 360): map north is the map's
// first row (-z), east is +x; Camera::yaw 0 looks east (90), -pi/2 north (0).
double headingDegrees(float yaw);

// "heading 312°": the heading rounded to a whole degree (359.6 reads 0).
std::string headingText(double degrees);

// The world length one pixel covers at `distance` along the view's centre line, for a camera of
// vertical field of view fovY (radians) drawing viewportHeight pixels: the view plane at that
// depth is 2 distance tan(fovY / 2) tall. 0 for a distance or viewport of 0 or less.
double worldPerPixel(double distance, float fovY, int viewportHeight);

struct ScaleBar {
    double length = 0.0;  // a round length, 1, 2 or 5 x 10^k (0: none fits)
    float pixels = 0.0f;  // how many pixels it spans
};

// The longest round length that spans at most maxPixels, at `perPixel` lengths a pixel (1-2-5
// steps keep it above maxPixels / 2.5).
ScaleBar roundScaleBar(double perPixel, float maxPixels);

// A round length's label: "500 m", "2 km", "0.05 m" when metres, else "20 map units".
std::string scaleText(double length, bool metres);

}  // namespace qt
