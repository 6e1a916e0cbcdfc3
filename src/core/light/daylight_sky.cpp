// Preetham, Shirley and Smits, "A Practical Analytic Model for Daylight" (SIGGRAPH 1999),
// appendix A.2: the Perez coefficients as linear functions of turbidity and the zenith's
// luminance and chromaticity; CIE XYZ to sRGB from IEC 61966-2-1.
#include "core/light/daylight_sky.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

namespace qt {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Below this cosine of the zenith angle the distribution's exp(b / cos theta) is taken at it:
// b < 0 for every turbidity of the fit, so the term is 0 there to double precision.
constexpr double kMinCosTheta = 1e-3;

PerezDistribution perezOf(double t, const double (&m)[5][2]) {
    return {float(m[0][0] * t + m[0][1]), float(m[1][0] * t + m[1][1]),
            float(m[2][0] * t + m[2][1]), float(m[3][0] * t + m[3][1]),
            float(m[4][0] * t + m[4][1])};
}

// The zenith's chromaticity: [T^2 T 1] M [theta^3 theta^2 theta 1]^T.
double zenithChromaticity(double t, double theta, const double (&m)[3][4]) {
    const double th[4] = {theta * theta * theta, theta * theta, theta, 1.0};
    const double tt[3] = {t * t, t, 1.0};
    double sum = 0.0;
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c) {
            sum += tt[r] * m[r][c] * th[c];
        }
    }
    return sum;
}

double smoothstep(double e0, double e1, double x) {
    const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

}  // namespace

double PerezDistribution::at(double cosTheta, double gamma) const {
    const double cosGamma = std::cos(gamma);
    return (1.0 + a * std::exp(b / std::max(cosTheta, kMinCosTheta))) *
           (1.0 + c * std::exp(d * gamma) + e * cosGamma * cosGamma);
}

DaylightSky daylightSky(SunDirection sun, float turbidity) {
    static const double kLuminance[5][2] = {{0.1787, -1.4630},
                                            {-0.3554, 0.4275},
                                            {-0.0227, 5.3251},
                                            {0.1206, -2.5771},
                                            {-0.0670, 0.3703}};
    static const double kX[5][2] = {{-0.0193, -0.2592},
                                    {-0.0665, 0.0008},
                                    {-0.0004, 0.2125},
                                    {-0.0641, -0.8989},
                                    {-0.0033, 0.0452}};
    static const double kY[5][2] = {{-0.0167, -0.2608},
                                    {-0.0950, 0.0092},
                                    {-0.0079, 0.2102},
                                    {-0.0441, -1.6537},
                                    {-0.0109, 0.0529}};
    static const double kZenithX[3][4] = {{0.00166, -0.00375, 0.00209, 0.0},
                                          {-0.02903, 0.06377, -0.03202, 0.00394},
                                          {0.11693, -0.21196, 0.06052, 0.25886}};
    static const double kZenithY[3][4] = {{0.00275, -0.00610, 0.00317, 0.0},
                                          {-0.04214, 0.08970, -0.04153, 0.00516},
                                          {0.15346, -0.26756, 0.06670, 0.26688}};
    DaylightSky sky;
    const double t = std::clamp(double(turbidity), 1.7, 10.0);
    sky.turbidity = float(t);
    const double elevation = std::clamp(sun.elevation, 0.0, 90.0);
    const double thetaS = (90.0 - elevation) * kPi / 180.0;
    const double azimuth = sun.azimuth * kPi / 180.0;
    sky.toSun = glm::vec3(float(std::sin(azimuth) * std::sin(thetaS)), float(std::cos(thetaS)),
                          float(-std::cos(azimuth) * std::sin(thetaS)));
    sky.luminance = perezOf(t, kLuminance);
    sky.chromaX = perezOf(t, kX);
    sky.chromaY = perezOf(t, kY);
    const double chi = (4.0 / 9.0 - t / 120.0) * (kPi - 2.0 * thetaS);
    const double zenithY = (4.0453 * t - 4.9710) * std::tan(chi) - 0.2155 * t + 2.4192;
    sky.zenith = glm::vec3(float(zenithY), float(zenithChromaticity(t, thetaS, kZenithX)),
                           float(zenithChromaticity(t, thetaS, kZenithY)));
    sky.scaled = glm::vec3(float(zenithY / sky.luminance.at(1.0, thetaS)),
                           float(sky.zenith.y / sky.chromaX.at(1.0, thetaS)),
                           float(sky.zenith.z / sky.chromaY.at(1.0, thetaS)));
    sky.twilight =
        sun.elevation >= 0.0 ? 1.0f : float(smoothstep(kNightElevation, 0.0, sun.elevation));
    return sky;
}

glm::dvec3 skyXyY(const DaylightSky& sky, glm::dvec3 view) {
    glm::dvec3 v(view.x, std::fabs(view.y), view.z);
    const double length = glm::length(v);
    v = length > 0.0 ? v / length : glm::dvec3(0.0, 1.0, 0.0);
    const double cosGamma = std::clamp(glm::dot(v, glm::dvec3(sky.toSun)), -1.0, 1.0);
    const double gamma = std::acos(cosGamma);
    return glm::dvec3(double(sky.scaled.y) * sky.chromaX.at(v.y, gamma),
                      double(sky.scaled.z) * sky.chromaY.at(v.y, gamma),
                      double(sky.scaled.x) * sky.luminance.at(v.y, gamma));
}

glm::dvec3 skyDisplayColour(glm::dvec3 xyY, double twilight) {
    const double x = xyY.x;
    const double y = std::max(xyY.y, 1e-6);
    const double luminance = std::max(xyY.z, 0.0) * twilight;
    const double cx = x / y * luminance;
    const double cz = (1.0 - x - y) / y * luminance;
    const double cy = luminance;
    const double linear[3] = {3.2406 * cx - 1.5372 * cy - 0.4986 * cz,
                              -0.9689 * cx + 1.8758 * cy + 0.0415 * cz,
                              0.0557 * cx - 0.2040 * cy + 1.0570 * cz};
    double out[3];
    for (int i = 0; i < 3; ++i) {
        const double c = 1.0 - std::exp(-kSkyExposure * std::max(linear[i], 0.0));
        out[i] = c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
    }
    return glm::dvec3(out[0], out[1], out[2]);
}

void skyTable(const DaylightSky& sky, uint16_t* rgba, int width, int height) {
    const double sunAzimuth = std::atan2(double(sky.toSun.x), -double(sky.toSun.z));
    for (int j = 0; j < height; ++j) {
        const double sinE = double(j) / double(height - 1);
        const double cosE = std::sqrt(std::max(0.0, 1.0 - sinE * sinE));
        for (int i = 0; i < width; ++i) {
            const double azimuth = sunAzimuth + kPi * double(i) / double(width - 1);
            const glm::dvec3 view(std::sin(azimuth) * cosE, sinE, -std::cos(azimuth) * cosE);
            const glm::dvec3 c = skyDisplayColour(skyXyY(sky, view), sky.twilight);
            uint16_t* texel = rgba + 4 * (size_t(j) * size_t(width) + size_t(i));
            for (int k = 0; k < 3; ++k) {
                texel[k] = uint16_t(std::lround(std::clamp(c[k], 0.0, 1.0) * 65535.0));
            }
            texel[3] = 65535;
        }
    }
}

}  // namespace qt
