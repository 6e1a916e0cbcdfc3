// The daylight sky's and the haze's uniforms (shaders/sky.glsl).
#include "render/sky.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

void SkyTable::update(SunDirection to, const uint16_t* made) {
    if (texture != 0 && to.azimuth == sun.azimuth && to.elevation == sun.elevation) {
        return;
    }
    if (made == nullptr) {
        texels.resize(size_t(kSkyTableWidth) * kSkyTableHeight * 4);
        skyTable(daylightSky(to), texels.data());
        made = texels.data();
    }
    if (texture == 0) {
        glGenTextures(1, &texture);
        glBindTexture(GL_TEXTURE_2D, texture);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kSkyTableWidth, kSkyTableHeight, 0, GL_RGBA,
                     GL_UNSIGNED_SHORT, nullptr);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
    glBindTexture(GL_TEXTURE_2D, texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kSkyTableWidth, kSkyTableHeight, GL_RGBA,
                    GL_UNSIGNED_SHORT, made);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
    sun = to;
}

void SkyTable::destroy() {
    glDeleteTextures(1, &texture);
    texture = 0;
    sun = SunDirection{0.0, -1000.0};
}

SkyFrame skyFrame(SunDirection sun, GLuint table, const Camera& camera,
                  const Atmosphere& atmosphere, const Fog& fog) {
    SkyFrame f;
    f.sky = daylightSky(sun);
    f.table = table;
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
    glUniform1f(program.uniform("skyTwilight"), sky.twilight);
    glUniformMatrix4fv(program.uniform("skyUnproject"), 1, GL_FALSE,
                       glm::value_ptr(frame.unproject));
    glUniform4fv(program.uniform("skyViewport"), 1, glm::value_ptr(frame.viewport));
    glUniform4fv(program.uniform("haze"), 1, glm::value_ptr(frame.haze));
    glActiveTexture(GL_TEXTURE0 + kSkyUnit);
    glBindTexture(GL_TEXTURE_2D, frame.table);
    glUniform1i(program.uniform("skyTable"), kSkyUnit);
}

}  // namespace qt
