// Shader compilation and linking with whole info logs in the error.
#include "render/shader.h"

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <vector>

#include "core/base/text.h"
#include "core/light/light_byte.h"
#include "render/embedded_shaders.h"

namespace qt {
namespace {

std::string infoLog(GLuint object, bool program) {
    GLint length = 0;
    program ? glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length)
            : glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(size_t(std::max(length, 1)), '\0');
    program ? glGetProgramInfoLog(object, GLsizei(log.size()), nullptr, log.data())
            : glGetShaderInfoLog(object, GLsizei(log.size()), nullptr, log.data());
    std::string text(log.data());
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

// A shader's source: the file `path`, or with `embedded` the source compiled in under its name.
Result<std::string> sourceOf(const std::string& path, bool embedded) {
    if (!embedded) {
        return readTextFile(path);
    }
    const size_t slash = path.find_last_of('/');
    const char* text = embeddedShader(path.substr(slash == std::string::npos ? 0 : slash + 1));
    if (text == nullptr) {
        return Result<std::string>::failure(escapedPath(path) + ": no such shader compiled in");
    }
    return std::string(text);
}

// `defines` after the source's #version line (which only comments may precede), so that line
// numbers in the log move by the defines' lines only from there.
void insertDefines(std::string& source, const std::string& defines) {
    if (defines.empty()) {
        return;
    }
    const size_t version = source.find("#version");
    const size_t eol = source.find('\n', version == std::string::npos ? 0 : version);
    source.insert(eol == std::string::npos ? source.size() : eol + 1, defines);
}

// Includes nest at most this deep; deeper, a file includes itself through others.
constexpr int kMaxIncludeDepth = 4;

// GLSL 3.30 has no #include: each line `#include "NAME"` is replaced by the file NAME beside
// `path` (or compiled in under that name), its own includes expanded, between #line directives
// so that the compiler's log numbers an included file's lines as source string 1 and the
// shader's own as 0. An included file guards itself against a second inclusion (#ifndef).
Status expandIncludes(std::string& source, const std::string& path, bool embedded, int depth = 0) {
    const size_t slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string resume = depth == 0 ? " 0\n" : " 1\n";
    std::string out;
    size_t at = 0;
    int line = 1;
    while (at < source.size()) {
        size_t eol = source.find('\n', at);
        eol = eol == std::string::npos ? source.size() : eol + 1;
        const std::string text = source.substr(at, eol - at);
        const size_t open = text.find("#include \"");
        const size_t close = open == 0 ? text.find('"', 10) : std::string::npos;
        if (close != std::string::npos) {
            const std::string name = text.substr(10, close - 10);
            const std::string where = escapedPath(path) + " line " + std::to_string(line) + ": ";
            if (depth == kMaxIncludeDepth) {
                return Status::failure(where + "includes nest deeper than " +
                                       std::to_string(kMaxIncludeDepth) + " (a cycle?)");
            }
            Result<std::string> included = sourceOf(folder + name, embedded);
            if (!included) {
                return Status::failure(where + included.error());
            }
            if (Status nested =
                    expandIncludes(included.value(), folder + name, embedded, depth + 1);
                !nested) {
                return nested;
            }
            out +=
                "#line 1 1\n" + included.value() + "\n#line " + std::to_string(line + 1) + resume;
        } else {
            out += text;
        }
        at = eol;
        ++line;
    }
    source = std::move(out);
    return {};
}

// Constants the core and the shaders share, defined in every shader from the core's own: the
// light byte's layout (core/light/light_byte.h, read by shaders/light.glsl).
const std::string& sharedDefines() {
    static const std::string defines = "#define QT_LIGHT_BANDS " + std::to_string(kLightBands) +
                                       "\n#define QT_LIGHT_SKY_LEVELS " +
                                       std::to_string(kLightSkyLevels) + "\n";
    return defines;
}

// The shader `path` (a file, or with `embedded` the one compiled in under its name) with its
// includes expanded.
Result<std::string> expandedSource(const std::string& path, bool embedded) {
    Result<std::string> source = sourceOf(path, embedded);
    if (!source) {
        return source;
    }
    if (Status included = expandIncludes(source.value(), path, embedded); !included) {
        return Result<std::string>::failure(included.error());
    }
    return source;
}

Result<GLuint> compile(GLenum stage, const std::string& path, std::string source,
                       const std::string& defines) {
    insertDefines(source, sharedDefines() + defines);
    const GLuint shader = glCreateShader(stage);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        const std::string log = infoLog(shader, false);
        glDeleteShader(shader);
        return Result<GLuint>::failure(escapedPath(path) + ": compile failed:\n" + log);
    }
    return shader;
}

}  // namespace

Result<std::string> readTextFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        return Result<std::string>::failure(escapedPath(path) + ": cannot open the file");
    }
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

namespace {

Result<ShaderSources> readPair(const std::string& vertexPath, const std::string& fragmentPath,
                               bool embedded) {
    Result<std::string> vertex = expandedSource(vertexPath, embedded);
    if (!vertex) {
        return Result<ShaderSources>::failure(vertex.error());
    }
    Result<std::string> fragment = expandedSource(fragmentPath, embedded);
    if (!fragment) {
        return Result<ShaderSources>::failure(fragment.error());
    }
    ShaderSources sources;
    sources.vertexPath = vertexPath;
    sources.fragmentPath = fragmentPath;
    sources.vertex = std::move(vertex.value());
    sources.fragment = std::move(fragment.value());
    return sources;
}

// Links the compiled `shaders` (deleted whatever the outcome) into a program; `named` names them
// in the error.
Result<ShaderProgram> linkShaders(std::initializer_list<GLuint> shaders, const std::string& named) {
    const GLuint program = glCreateProgram();
    for (const GLuint shader : shaders) {
        glAttachShader(program, shader);
    }
    glLinkProgram(program);
    for (const GLuint shader : shaders) {
        glDeleteShader(shader);
    }
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        const std::string log = infoLog(program, true);
        glDeleteProgram(program);
        return Result<ShaderProgram>::failure(named + ": link failed:\n" + log);
    }
    ShaderProgram result;
    result.id = program;
    return result;
}

Result<ShaderProgram> link(const ShaderSources& sources, const std::string& defines) {
    const std::string& vertexPath = sources.vertexPath;
    const std::string& fragmentPath = sources.fragmentPath;
    Result<GLuint> vertex = compile(GL_VERTEX_SHADER, vertexPath, sources.vertex, defines);
    if (!vertex) {
        return Result<ShaderProgram>::failure(vertex.error());
    }
    Result<GLuint> fragment = compile(GL_FRAGMENT_SHADER, fragmentPath, sources.fragment, defines);
    if (!fragment) {
        glDeleteShader(vertex.value());
        return Result<ShaderProgram>::failure(fragment.error());
    }
    return linkShaders({vertex.value(), fragment.value()},
                       escapedPath(vertexPath) + " + " + escapedPath(fragmentPath));
}

}  // namespace

Result<ShaderSources> ShaderSources::read(const std::string& shaderDir,
                                          const std::string& vertexName,
                                          const std::string& fragmentName) {
    const bool embedded = shaderDir.empty();
    const std::string folder = embedded ? std::string("shaders") : shaderDir;
    return readPair(folder + "/" + vertexName, folder + "/" + fragmentName, embedded);
}

Result<ShaderProgram> ShaderProgram::build(const ShaderSources& sources,
                                           const std::string& defines) {
    return link(sources, defines);
}

Result<ShaderProgram> ShaderProgram::load(const std::string& vertexPath,
                                          const std::string& fragmentPath) {
    Result<ShaderSources> sources = readPair(vertexPath, fragmentPath, false);
    if (!sources) {
        return Result<ShaderProgram>::failure(sources.error());
    }
    return link(sources.value(), "");
}

Result<ShaderProgram> ShaderProgram::loadFrom(const std::string& shaderDir,
                                              const std::string& vertexName,
                                              const std::string& fragmentName,
                                              const std::string& defines) {
    Result<ShaderSources> sources = ShaderSources::read(shaderDir, vertexName, fragmentName);
    if (!sources) {
        return Result<ShaderProgram>::failure(sources.error());
    }
    return link(sources.value(), defines);
}

Result<ShaderProgram> ShaderProgram::computeFrom(const std::string& shaderDir,
                                                 const std::string& name) {
    Result<std::string> source = shaderSource(shaderDir, name);
    if (!source) {
        return Result<ShaderProgram>::failure(source.error());
    }
    const std::string path = (shaderDir.empty() ? std::string("shaders") : shaderDir) + "/" + name;
    Result<GLuint> compute = compile(GL_COMPUTE_SHADER, path, std::move(source.value()), "");
    if (!compute) {
        return Result<ShaderProgram>::failure(compute.error());
    }
    return linkShaders({compute.value()}, escapedPath(path));
}

Result<std::string> shaderSource(const std::string& shaderDir, const std::string& name) {
    const bool embedded = shaderDir.empty();
    return expandedSource((embedded ? std::string("shaders") : shaderDir) + "/" + name, embedded);
}

void ShaderProgram::destroy() {
    if (id) {
        glDeleteProgram(id);
        id = 0;
    }
}

namespace {

Status replace(ShaderProgram& program, Result<ShaderProgram> loaded) {
    if (!loaded) {
        return Status::failure(loaded.error());
    }
    program.destroy();
    program = loaded.value();
    return {};
}

}  // namespace

Status ShaderProgram::replaceWith(const std::string& vertexPath, const std::string& fragmentPath) {
    return replace(*this, load(vertexPath, fragmentPath));
}

Status ShaderProgram::replaceFrom(const std::string& shaderDir, const std::string& vertexName,
                                  const std::string& fragmentName, const std::string& defines) {
    return replace(*this, loadFrom(shaderDir, vertexName, fragmentName, defines));
}

ProgramFamily::ProgramFamily(std::string vertexName_, std::string fragmentName_,
                             std::vector<Variant> variants_, std::string checkDefines_)
    : vertexName(std::move(vertexName_)),
      fragmentName(std::move(fragmentName_)),
      variants(std::move(variants_)),
      checkDefines(std::move(checkDefines_)),
      programs(variants.size()),
      tried(variants.size(), 0) {}

Status ProgramFamily::reload(const std::string& shaderDir) {
    Result<ShaderSources> read = ShaderSources::read(shaderDir, vertexName, fragmentName);
    if (!read) {
        return Status::failure(read.error());
    }
    std::vector<ShaderProgram> made(variants.size());
    Status status;
    for (size_t v = 0; v < variants.size() && status; ++v) {
        if (variants[v].exists && variants[v].atReload) {
            Result<ShaderProgram> built = ShaderProgram::build(read.value(), variants[v].defines);
            if (built) {
                made[v] = built.value();
            } else {
                status = Status::failure(built.error());
            }
        }
    }
    if (status) {
        Result<ShaderProgram> check = ShaderProgram::build(read.value(), checkDefines);
        if (check) {
            check.value().destroy();
        } else {
            status = Status::failure(check.error());
        }
    }
    if (!status) {
        for (ShaderProgram& program : made) {
            program.destroy();
        }
        return status;
    }
    destroy();
    programs = std::move(made);
    sources = std::move(read.value());
    return {};
}

const ShaderProgram& ProgramFamily::program(int v) const {
    ShaderProgram& made = programs[size_t(v)];
    if (made.id == 0 && !tried[size_t(v)] && variants[size_t(v)].exists) {
        tried[size_t(v)] = 1;
        Result<ShaderProgram> built = ShaderProgram::build(sources, variants[size_t(v)].defines);
        if (built) {
            made = built.value();
        } else if (late.empty()) {
            late = built.error();
        }
    }
    return made;
}

void ProgramFamily::destroy() {
    for (ShaderProgram& program : programs) {
        program.destroy();
    }
    std::fill(tried.begin(), tried.end(), char(0));
    late.clear();
}

}  // namespace qt
