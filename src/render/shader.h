// GLSL programs from shaders/ (read at run time, or compiled in: render/embedded_shaders.h);
// failures name the file and carry the full info log.
#pragma once

#include <string>

#include "core/base/result.h"
#include "render/gl.h"

namespace qt {

struct ShaderProgram {
    GLuint id = 0;

    // Compiles and links `vertexPath` and `fragmentPath`; nothing is left behind on failure.
    static Result<ShaderProgram> load(const std::string& vertexPath,
                                      const std::string& fragmentPath);
    // Loads the pair and, only when that succeeds, replaces this program: on failure the old one
    // stays in use and the error is returned; "" on success.
    Status replaceWith(const std::string& vertexPath, const std::string& fragmentPath);
    // The pair named `vertexName` and `fragmentName` ("terrain.vert") from the folder
    // `shaderDir`, or, with an empty shaderDir, from the sources compiled into the renderer.
    // `defines` ("#define HOLES\n"), when given, goes into both sources after their #version
    // line.
    static Result<ShaderProgram> loadFrom(const std::string& shaderDir,
                                          const std::string& vertexName,
                                          const std::string& fragmentName,
                                          const std::string& defines = "");
    // replaceWith for loadFrom's pair.
    Status replaceFrom(const std::string& shaderDir, const std::string& vertexName,
                       const std::string& fragmentName, const std::string& defines = "");
    void destroy();
    GLint uniform(const char* name) const { return glGetUniformLocation(id, name); }
};

// The source of shader `name` ("terrain.vert") from the folder `shaderDir` (or compiled in, with
// an empty shaderDir) with its includes expanded, as loadFrom compiles it before the defines.
Result<std::string> shaderSource(const std::string& shaderDir, const std::string& name);

// Reads a whole text file; the error says which path could not be read.
Result<std::string> readTextFile(const std::string& path);

}  // namespace qt
