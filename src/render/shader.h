// GLSL programs from shaders/ (read at run time, or compiled in: render/embedded_shaders.h);
// failures name the file and carry the full info log.
#pragma once

#include <string>
#include <vector>

#include "core/base/result.h"
#include "render/gl.h"

namespace qt {

// A vertex and a fragment shader's sources as read, includes expanded: what programs compile from.
struct ShaderSources {
    std::string vertexPath;  // named in errors
    std::string fragmentPath;
    std::string vertex;
    std::string fragment;

    // The pair `vertexName`, `fragmentName` from the folder `shaderDir`, or with an empty
    // shaderDir from the sources compiled into the renderer.
    static Result<ShaderSources> read(const std::string& shaderDir, const std::string& vertexName,
                                      const std::string& fragmentName);
};

struct ShaderProgram {
    GLuint id = 0;

    // Compiles and links `vertexPath` and `fragmentPath`; nothing is left behind on failure.
    static Result<ShaderProgram> load(const std::string& vertexPath,
                                      const std::string& fragmentPath);
    // Compiles and links `sources` with `defines` ("#define HOLES\n") after each one's #version
    // line.
    static Result<ShaderProgram> build(const ShaderSources& sources, const std::string& defines);
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
    // The compute shader `name` ("object_runs.comp") from `shaderDir`, or compiled in when it is
    // empty, as a program of its own; the context must have compute shaders (OpenGL 4.3).
    static Result<ShaderProgram> computeFrom(const std::string& shaderDir, const std::string& name);
    // replaceWith for loadFrom's pair.
    Status replaceFrom(const std::string& shaderDir, const std::string& vertexName,
                       const std::string& fragmentName, const std::string& defines = "");
    void destroy();
    GLint uniform(const char* name) const { return glGetUniformLocation(id, name); }
};

// Programs compiled from one pair of sources under different defines (a renderer's variants):
// some made at each reload, the rest when first asked for, so that a driver holds only the
// programs a session draws with. The sources are kept from the reload, so that a program made
// later compiles from the text the reload checked, not from files edited since; and the reload
// compiles one program with every define on, so that an error inside an #ifdef arm that only the
// later programs have fails the reload, not a frame.
class ProgramFamily {
public:
    struct Variant {
        std::string defines;
        bool atReload = false;  // made by each reload; otherwise when first asked for
        bool exists = true;     // false: never made (program() gives id 0)
    };

    ProgramFamily() = default;
    // The programs of `vertexName` and `fragmentName` ("terrain.vert"), one per variant;
    // `checkDefines` turns on every arm the variants' defines select.
    ProgramFamily(std::string vertexName, std::string fragmentName, std::vector<Variant> variants,
                  std::string checkDefines);

    // Reads the pair from `shaderDir` ("": the sources compiled in) and compiles the variants
    // made at reload and the check. Only when all succeed are the family's programs replaced (the
    // later ones dropped, to be made from the new sources); otherwise nothing changes and the
    // first failure is returned.
    Status reload(const std::string& shaderDir);
    // Variant `v`'s program, made now when it has not been since the reload. A failure (an
    // error the check cannot see: an arm compiled only under one combination of defines) leaves
    // id 0, is kept in lateFailure() and is not tried again before the next reload.
    const ShaderProgram& program(int v) const;
    // The first failure of program() since the last reload; "" when none.
    const std::string& lateFailure() const { return late; }
    void destroy();

private:
    std::string vertexName;
    std::string fragmentName;
    std::vector<Variant> variants;
    std::string checkDefines;
    ShaderSources sources;  // as read by the last reload that succeeded
    mutable std::vector<ShaderProgram> programs;
    mutable std::vector<char> tried;  // program() compiled it since the last reload
    mutable std::string late;
};

// The source of shader `name` ("terrain.vert") from the folder `shaderDir` (or compiled in, with
// an empty shaderDir) with its includes expanded, as loadFrom compiles it before the defines.
Result<std::string> shaderSource(const std::string& shaderDir, const std::string& name);

// Reads a whole text file; the error says which path could not be read.
Result<std::string> readTextFile(const std::string& path);

}  // namespace qt
