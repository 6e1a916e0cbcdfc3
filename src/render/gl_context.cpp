// GLFW window and OpenGL 3.3 core context creation, with clear errors and GL debug output.
#include "render/gl_context.h"

#include <cstdio>
#include <cstdlib>

#include "render/gl.h"

#include <GLFW/glfw3.h>

namespace qt {
namespace {

std::string gLastGlfwError;  // the last message GLFW reported, for our one-line errors
int gGlErrors = 0;

void onGlfwError(int /*code*/, const char* description) {
    gLastGlfwError = description ? description : "unknown GLFW error";
}

bool haveDisplay() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

const char* kNoDisplay =
    "cannot open a window (no display); run it under a display or with xvfb-run -a quadterrain ...";

void GLAPIENTRY onDebugMessage(GLenum source, GLenum type, GLuint id, GLenum severity,
                               GLsizei /*length*/, const GLchar* message, const void* /*user*/) {
    // Compile failures come back whole from ShaderProgram::load; they are the user's to fix.
    if (source == GL_DEBUG_SOURCE_SHADER_COMPILER) {
        return;
    }
    if (type == GL_DEBUG_TYPE_ERROR || severity == GL_DEBUG_SEVERITY_HIGH) {
        ++gGlErrors;
        std::fprintf(stderr, "quadterrain: GL debug error %u: %s\n", id, message);
    }
}

// What a context without version hints offers, for the error when 3.3 core is refused.
std::string probeDefaultContext() {
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    GLFWwindow* probe = glfwCreateWindow(64, 64, "probe", nullptr, nullptr);
    if (!probe) {
        return "no OpenGL context at all (" + gLastGlfwError + ")";
    }
    glfwMakeContextCurrent(probe);
    using GetString = const unsigned char* (*)(unsigned int);
    auto getString = reinterpret_cast<GetString>(glfwGetProcAddress("glGetString"));
    std::string found = "an unknown OpenGL version";
    if (getString) {
        const unsigned char* version = getString(GL_VERSION);
        const unsigned char* renderer = getString(GL_RENDERER);
        found = std::string("OpenGL ") + (version ? (const char*)version : "?") + " (" +
                (renderer ? (const char*)renderer : "?") + ")";
    }
    glfwMakeContextCurrent(nullptr);
    glfwDestroyWindow(probe);
    return found;
}

}  // namespace

int glErrorCount() {
    return gGlErrors;
}

bool glDebugRequested() {
    const char* value = std::getenv("QT_GL_DEBUG");
    return value && *value && std::string(value) != "0";
}

Result<GlContext> GlContext::create(const GlContextOptions& options) {
    glfwSetErrorCallback(onGlfwError);
    if (!glfwInit()) {
        if (!haveDisplay()) {
            return Result<GlContext>::failure(kNoDisplay);
        }
        return Result<GlContext>::failure("cannot initialise GLFW: " + gLastGlfwError);
    }
    const bool debug = options.debug || glDebugRequested();
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, debug ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_VISIBLE, options.visible ? GLFW_TRUE : GLFW_FALSE);
    GLFWwindow* window =
        glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
    if (!window) {
        const std::string reason = gLastGlfwError;
        std::string message = haveDisplay()
                                  ? "OpenGL 3.3 core is needed, but this display offers " +
                                        probeDefaultContext() + "; GLFW said: " + reason
                                  : std::string(kNoDisplay);
        glfwTerminate();
        return Result<GlContext>::failure(message);
    }
    glfwMakeContextCurrent(window);
    const int version = gladLoadGL(glfwGetProcAddress);
    if (version == 0 || GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 33) {
        glfwDestroyWindow(window);
        glfwTerminate();
        return Result<GlContext>::failure(
            "OpenGL 3.3 core is needed, but the GL loader found " +
            (version == 0 ? std::string("no usable OpenGL functions")
                          : "OpenGL " + std::to_string(GLAD_VERSION_MAJOR(version)) + "." +
                                std::to_string(GLAD_VERSION_MINOR(version))));
    }
    GlContext context;
    context.window = window;
    if (debug && GLAD_GL_KHR_debug) {
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDebugMessageCallback(onDebugMessage, nullptr);
        context.debugOutput = true;
    }
    return context;
}

void GlContext::destroy() {
    if (window) {
        glfwDestroyWindow(window);
        window = nullptr;
        glfwTerminate();
    }
    debugOutput = false;
}

int GlContext::checkErrors(const char* where) {
    for (GLenum error = glGetError(); error != GL_NO_ERROR; error = glGetError()) {
        ++gGlErrors;
        std::fprintf(stderr, "quadterrain: GL error 0x%04X after %s\n", error, where);
    }
    return gGlErrors;
}

}  // namespace qt
