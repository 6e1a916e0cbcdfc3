// The daylight sky's and the haze's uniforms (shaders/sky.glsl).
#include "render/sky.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/type_ptr.hpp>
#include <glm/matrix.hpp>

namespace qt {

Atmosphere atmosphereFor(bool metres, float heightScale, float heightOffset, float lowest,
                         float highest, float longerSide) {
    Atmosphere a;
    if (metres && heightScale != 0.0f) {
        a.extinction = float(3.912 / kHazeRangeMetres);
        a.falloff = float(1.0 / (kHazeScaleHeightMetres * std::fabs(double(heightScale))));
        a.base = heightOffset;  // 0 m
        return a;
    }
    const double side = std::max(double(longerSide), 1e-6);
    const double relief = std::max(double(highest) - double(lowest), side * 1e-3);
    a.extinction = float(3.912 / (kHazeRangeMaps * side));
    a.falloff = float(1.0 / relief);
    a.base = lowest;
    return a;
}

SkyFrame skyFrame(SunDirection sun, const Camera& camera, const Atmosphere& atmosphere,
                  const Fog& fog) {
    SkyFrame f;
    f.sky = daylightSky(sun);
    f.unproject = glm::inverse(camera.viewProjectionFromEye());
    GLint viewport[4] = {0, 0, 1, 1};
    glGetIntegerv(GL_VIEWPORT, viewport);
    f.viewport = glm::vec4(float(viewport[0]), float(viewport[1]), float(std::max(viewport[2], 1)),
                           float(std::max(viewport[3], 1)));
    f.haze =
        glm::vec4(atmosphere.extinction, atmosphere.falloff,
                  float(double(camera.position.y) - double(atmosphere.base)), fog.on ? 1.0f : 0.0f);
    return f;
}

void setSkyUniforms(const ShaderProgram& program, const SkyFrame& frame) {
    const DaylightSky& sky = frame.sky;
    glUniform3f(program.uniform("skyToSun"), sky.toSun.x, sky.toSun.y, sky.toSun.z);
    glUniform3f(program.uniform("skyScaled"), sky.scaled.x, sky.scaled.y, sky.scaled.z);
    const PerezDistribution* d[3] = {&sky.luminance, &sky.chromaX, &sky.chromaY};
    float perez[15];
    for (int i = 0; i < 3; ++i) {
        perez[5 * i + 0] = d[i]->a;
        perez[5 * i + 1] = d[i]->b;
        perez[5 * i + 2] = d[i]->c;
        perez[5 * i + 3] = d[i]->d;
        perez[5 * i + 4] = d[i]->e;
    }
    glUniform1fv(program.uniform("skyPerez"), 15, perez);
    glUniform1f(program.uniform("skyTwilight"), sky.twilight);
    glUniformMatrix4fv(program.uniform("skyUnproject"), 1, GL_FALSE,
                       glm::value_ptr(frame.unproject));
    glUniform4fv(program.uniform("skyViewport"), 1, glm::value_ptr(frame.viewport));
    glUniform4fv(program.uniform("haze"), 1, glm::value_ptr(frame.haze));
}

}  // namespace qt
