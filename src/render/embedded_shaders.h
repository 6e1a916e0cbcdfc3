// The GLSL of shaders/ compiled into the renderer, so that a program using the library draws
// without the files: a renderer created with no shader folder takes its sources from here.
#pragma once

#include <string>

namespace qt {

// The source of shaders/`fileName` ("terrain.vert") as it was at build time; null when there is
// no such shader.
const char* embeddedShader(const std::string& fileName);

}  // namespace qt
