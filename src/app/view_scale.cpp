// Heading, pixel size at the view's centre and the scale bar's round length (GL-free).
#include "app/view_scale.h"

#include <cmath>

#include "app/readout_text.h"

namespace qt {

constexpr double kPi = 3.14159265358979323846;

double headingDegrees(float yaw) {
    // Yaw turns from +x towards +z, which is clockwise seen from above with north at -z.
    const double degrees = std::fmod(90.0 + double(yaw) * 180.0 / kPi, 360.0);
    return degrees < 0.0 ? degrees + 360.0 : degrees;
}

std::string headingText(double degrees) {
    const long whole = std::lround(degrees) % 360;
    return "heading " + std::to_string(whole < 0 ? whole + 360 : whole) + "\u00b0";
}

double worldPerPixel(double distance, float fovY, int viewportHeight) {
    if (!(distance > 0.0) || viewportHeight <= 0) {
        return 0.0;
    }
    return 2.0 * distance * std::tan(0.5 * double(fovY)) / double(viewportHeight);
}

ScaleBar roundScaleBar(double perPixel, float maxPixels) {
    const double most = perPixel * double(maxPixels);
    if (!(most > 0.0) || !std::isfinite(most)) {
        return {};
    }
    const double decade = std::pow(10.0, std::floor(std::log10(most)));
    for (const double step : {5.0, 2.0, 1.0}) {
        if (step * decade <= most * (1.0 + 1e-9)) {
            return {step * decade, float(step * decade / perPixel)};
        }
    }
    return {decade, float(decade / perPixel)};
}

std::string scaleText(double length, bool metres) {
    const bool km = metres && length >= 1000.0;
    const double shown = km ? length / 1000.0 : length;
    // Round lengths: as many decimals as the leading digit needs, none from 1 up.
    const int decimals = shown >= 1.0 ? 0 : int(std::ceil(-std::log10(shown) - 1e-9));
    const std::string number = groupedNumber(shown, decimals);
    return number + (km ? " km" : metres ? " m" : " map units");
}

}  // namespace qt
