// The daylight sky and the haze under a given Sun (shaders/sky.glsl, core/light/daylight_sky.h):
// the numbers a frame's programs take, and the pass that paints the sky behind the terrain.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include "core/light/daylight_sky.h"
#include "core/view/camera.h"
#include "render/fog.h"
#include "render/shader.h"

namespace qt {

// A clear day's meteorological range in metres: the distance at which a dark ridge keeps 2% of
// its contrast against the horizon (Koschmieder: extinction = 3.912 / range).
constexpr double kHazeRangeMetres = 60000.0;
// The scale height of the haze's aerosols in metres: extinction falls by e every this much.
constexpr double kHazeScaleHeightMetres = 1200.0;

// Where the haze lies in world units: its extinction at the base height, its falloff with height
// and the base. On maps in metres world units are metres (qt::defaultMapping) and the base is sea
// level; on other maps, which have no scale, the range is kHazeRangeMaps of the map's longer side
// and the scale height the map's relief, from its lowest height.
struct Atmosphere {
    float extinction = 0.0f;  // per world unit at the base
    float falloff = 0.0f;     // per world unit of height
    float base = 0.0f;        // world height
};
constexpr double kHazeRangeMaps = 6.0;
// `metres`: the map's heights are metres; `lowest`, `highest`: its world height range;
// `longerSide`: its longer side in world units; `heightScale`: world units a metre of height.
Atmosphere atmosphereFor(bool metres, float heightScale, float heightOffset, float lowest,
                         float highest, float longerSide);

// The sky's table on the GPU (core/light/daylight_sky.h's skyTable), made again only when the Sun
// moves. Computed in 16 bits and stored as RGBA8 (the upload rounds each texel once): the
// framebuffer's depth, read by a software rasteriser on its 8-bit filtering path (llvmpipe: the
// Sun's frame 3.8 M instructions less, render.md's sky).
struct SkyTable {
    GLuint texture = 0;
    SunDirection sun{0.0, -1000.0};  // the Sun it was made for; none yet
    std::vector<uint16_t> texels;    // the table's texels, kept for the next Sun
    // The table for `sun`: uploaded unless it is that Sun's already, from `made` when given
    // (skyTable's texels for that Sun, SunlightJob::skyTexels), else computed here.
    void update(SunDirection sun, const uint16_t* made = nullptr);
    void destroy();
};

// One frame's sky and haze as the shaders take them.
struct SkyFrame {
    DaylightSky sky;
    GLuint table = 0;           // SkyTable::texture for sky's Sun
    glm::mat4 unproject{1.0f};  // inverse of the camera's view-projection from the eye
    glm::vec4 viewport{0.0f};   // the bound viewport: x, y, width, height
    glm::vec4 haze{0.0f};       // sky.glsl's haze: extinction, falloff, eye above base, on
};

// The sky under `sun` (its table `table`) seen by `camera` through the bound viewport, hazed by
// `atmosphere` unless the fog is off.
SkyFrame skyFrame(SunDirection sun, GLuint table, const Camera& camera,
                  const Atmosphere& atmosphere, const Fog& fog);

// The texture unit the sky's table is bound to while a program draws.
constexpr int kSkyUnit = 8;

// Sets sky.glsl's uniforms on the current program `program` and binds the table.
void setSkyUniforms(const ShaderProgram& program, const SkyFrame& frame);

}  // namespace qt
