// The clear daylight sky of A. J. Preetham, P. Shirley and B. Smits, "A Practical Analytic Model
// for Daylight" (SIGGRAPH 1999): the Perez all-weather distribution fitted per turbidity for the
// luminance Y and the chromaticities x, y, and the aerial perspective that fades distant terrain
// into it. The GL-free twin of shaders/sky.glsl, which evaluates the same formulas per pixel
// from DaylightSky's numbers (the render tests hold the two to each other).
#pragma once

#include <cstdint>

#include <glm/vec3.hpp>

#include "core/light/sun_position.h"

namespace qt {

// Turbidity by default: a clear sky (Preetham et al. fit T from 2, very clear, to 10, hazy).
constexpr float kDefaultTurbidity = 2.5f;
// The model is fitted for the Sun above the horizon: below it the sky is that of the Sun on the
// horizon, darkened (see twilight) until this elevation, in degrees, and dark beyond.
constexpr double kNightElevation = -12.0;

// Perez et al.'s distribution, "An all-weather model for sky luminance distribution" (1993):
// F(theta, gamma) = (1 + a exp(b / cos theta)) (1 + c exp(d gamma) + e cos^2 gamma), theta the
// view's angle from the zenith and gamma its angle from the Sun.
struct PerezDistribution {
    float a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f, e = 0.0f;
    double at(double cosTheta, double gamma) const;
};

struct DaylightSky {
    glm::vec3 toSun{0.0f, 1.0f, 0.0f};  // unit, world axes, at or above the horizon
    float turbidity = kDefaultTurbidity;
    // The distributions of Y, x and y for this turbidity (Preetham et al., appendix A.2).
    PerezDistribution luminance, chromaX, chromaY;
    // At the zenith: Y in kcd/m^2 and the chromaticities (appendix A.2), each divided by its
    // distribution at the zenith, F(0, the Sun's zenith angle): Y(view) = scaled.x * F_Y(theta,
    // gamma), etc.
    glm::vec3 zenith{0.0f};
    glm::vec3 scaled{0.0f};
    // 1 with the Sun above the horizon; below, falling to 0 at kNightElevation.
    float twilight = 1.0f;
};

// The sky under `sun` (azimuth clockwise from north, -z; elevation above the horizon).
DaylightSky daylightSky(SunDirection sun, float turbidity = kDefaultTurbidity);

// Luminance Y (kcd/m^2) and chromaticity x, y of the sky towards unit `view`: at or above the
// horizon as the model gives it; below, the sky at the view's mirror image above the horizon
// (the colour the terrain's haze takes, so that it meets the sky continuously at the horizon).
glm::dvec3 skyXyY(const DaylightSky& sky, glm::dvec3 view);

// The sky's display colours on a grid, for the shaders' table (shaders/sky.glsl): texel (i, j),
// at rgba[4 * (j * width + i)], holds skyDisplayColour towards the direction i / (width - 1) *
// 180 degrees of azimuth from the Sun's and j / (height - 1) the sine of its elevation, each
// channel 0 to 65535 (alpha 65535). The sky is symmetric about the Sun's vertical, and the
// shaders read between texels linearly: one texture fetch a pixel instead of the model.
constexpr int kSkyTableWidth = 256;
constexpr int kSkyTableHeight = 128;
void skyTable(const DaylightSky& sky, uint16_t* rgba, int width = kSkyTableWidth,
              int height = kSkyTableHeight);

// Exposure applied before the tone curve 1 - exp(-exposure * rgb): a noon sky's zenith (Sun at
// 60 degrees, turbidity 2.5, about 8 kcd/m^2) lands near the fixed light's sky colour.
constexpr double kSkyExposure = 0.09;

// The colour the framebuffer gets for xyY: CIE XYZ to linear sRGB (IEC 61966-2-1's matrix),
// the tone curve, and the sRGB encoding; each channel in [0, 1].
glm::dvec3 skyDisplayColour(glm::dvec3 xyY, double twilight);

}  // namespace qt
