// OpenGL 3.3 core context creation (a GLFW window, or headless through EGL), with clear errors
// and GL debug output.
#include "render/gl_context.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "render/gl.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
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

// Loads the GL functions through `load` and checks for 3.3; installs the debug callback when asked
// and offered. Empty on success, else the one line to report.
std::string loadGl(GLADloadfunc load, bool debug, GlContext& context) {
    const int version = gladLoadGL(load);
    if (version == 0 || GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 33) {
        return "OpenGL 3.3 core is needed, but the GL loader found " +
               (version == 0 ? std::string("no usable OpenGL functions")
                             : "OpenGL " + std::to_string(GLAD_VERSION_MAJOR(version)) + "." +
                                   std::to_string(GLAD_VERSION_MINOR(version)));
    }
    if (debug && GLAD_GL_KHR_debug) {
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDebugMessageCallback(onDebugMessage, nullptr);
        context.debugOutput = true;
    }
    return {};
}

GLADapiproc eglLoad(const char* name) {
    return reinterpret_cast<GLADapiproc>(eglGetProcAddress(name));
}

bool hasExtension(const char* list, const char* name) {
    const size_t length = std::strlen(name);
    for (const char* at = list ? std::strstr(list, name) : nullptr; at;
         at = std::strstr(at + length, name)) {
        const bool starts = at == list || at[-1] == ' ';
        const bool ends = at[length] == ' ' || at[length] == '\0';
        if (starts && ends) {
            return true;
        }
    }
    return false;
}

// An OpenGL 3.3 core context with no surface on `display` (initialised here), or empty with
// `why` set. Needs EGL_KHR_surfaceless_context; any config will do, or none with
// EGL_KHR_no_config_context.
EGLContext surfacelessContext(EGLDisplay display, bool debug, std::string& why) {
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
        why = "eglInitialize failed";
        return EGL_NO_CONTEXT;
    }
    const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
    if (major * 10 + minor < 15 || !hasExtension(extensions, "EGL_KHR_surfaceless_context") ||
        !eglBindAPI(EGL_OPENGL_API)) {
        why = "EGL " + std::to_string(major) + "." + std::to_string(minor) +
              " without desktop OpenGL or surfaceless contexts";
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    const EGLint configAttributes[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config = nullptr;
    EGLint configs = 0;
    if (!eglChooseConfig(display, configAttributes, &config, 1, &configs) || configs < 1) {
        config = nullptr;  // EGL_NO_CONFIG_KHR
        if (!hasExtension(extensions, "EGL_KHR_no_config_context")) {
            why = "no EGL config for OpenGL";
            eglTerminate(display);
            return EGL_NO_CONTEXT;
        }
    }
    const EGLint contextAttributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                                        3,
                                        EGL_CONTEXT_MINOR_VERSION,
                                        3,
                                        EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                        EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                        EGL_CONTEXT_OPENGL_FORWARD_COMPATIBLE,
                                        EGL_TRUE,
                                        EGL_CONTEXT_OPENGL_DEBUG,
                                        debug ? EGL_TRUE : EGL_FALSE,
                                        EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, contextAttributes);
    if (context == EGL_NO_CONTEXT ||
        !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
        char code[16];
        std::snprintf(code, sizeof(code), "0x%04X", unsigned(eglGetError()));
        why = std::string("no OpenGL 3.3 core context (EGL error ") + code + ")";
        if (context != EGL_NO_CONTEXT) {
            eglDestroyContext(display, context);
        }
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    return context;
}

}  // namespace

Result<GlPlatform> chooseGlPlatform(const GlContextOptions& options) {
    const char* forced = std::getenv("QT_GL_PLATFORM");
    const std::string platform = forced ? forced : "";
    if (platform == "egl") {
        if (options.visible) {
            return Result<GlPlatform>::failure(
                "QT_GL_PLATFORM=egl makes no window; the viewer needs a display (glfw)");
        }
        return GlPlatform::Headless;
    }
    if (platform == "glfw") {
        return GlPlatform::Window;
    }
    if (!platform.empty()) {
        return Result<GlPlatform>::failure("QT_GL_PLATFORM is '" + platform +
                                           "'; it takes egl (headless) or glfw (a window)");
    }
    return !options.visible && !haveDisplay() ? GlPlatform::Headless : GlPlatform::Window;
}

// A GPU's EGL device first (EGL_EXT_platform_device: a real GPU with no display at all), then
// Mesa's surfaceless platform (llvmpipe or a GPU), then the default display.
Result<GlContext> GlContext::createHeadless(const GlContextOptions& options) {
    const bool debug = options.debug || glDebugRequested();
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    auto platformDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
        eglGetProcAddress("eglGetPlatformDisplayEXT"));
    auto queryDevices =
        reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    std::vector<EGLDisplay> displays;
    if (platformDisplay && queryDevices && hasExtension(client, "EGL_EXT_platform_device")) {
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        if (queryDevices(8, devices, &count)) {
            for (EGLint i = 0; i < count; ++i) {
                displays.push_back(platformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr));
            }
        }
    }
    if (platformDisplay && hasExtension(client, "EGL_MESA_platform_surfaceless")) {
        displays.push_back(
            platformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr));
    }
    displays.push_back(eglGetDisplay(EGL_DEFAULT_DISPLAY));
    std::string why = "no EGL display";
    for (EGLDisplay display : displays) {
        EGLContext egl = surfacelessContext(display, debug, why);
        if (egl == EGL_NO_CONTEXT) {
            continue;
        }
        GlContext context;
        context.eglDisplay = display;
        context.eglContext = egl;
        const std::string failed = loadGl(eglLoad, debug, context);
        if (failed.empty()) {
            return context;
        }
        context.destroy();
        why = failed;
    }
    return Result<GlContext>::failure("no headless OpenGL 3.3 core context through EGL (" + why +
                                      "); with a display, run it under one or with xvfb-run -a");
}

int glErrorCount() {
    return gGlErrors;
}

bool glDebugRequested() {
    const char* value = std::getenv("QT_GL_DEBUG");
    return value && *value && std::string(value) != "0";
}

Result<GlContext> GlContext::create(const GlContextOptions& options) {
    const Result<GlPlatform> platform = chooseGlPlatform(options);
    if (!platform) {
        return Result<GlContext>::failure(platform.error());
    }
    if (platform.value() == GlPlatform::Headless) {
        return createHeadless(options);
    }
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
    GlContext context;
    context.window = window;
    const std::string failed = loadGl(glfwGetProcAddress, debug, context);
    if (!failed.empty()) {
        context.destroy();
        return Result<GlContext>::failure(failed);
    }
    return context;
}

void GlContext::destroy() {
    if (window) {
        glfwDestroyWindow(window);
        window = nullptr;
        glfwTerminate();
    }
    if (eglContext) {
        eglMakeCurrent(eglDisplay, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(eglDisplay, eglContext);
        eglTerminate(eglDisplay);
        eglContext = nullptr;
        eglDisplay = nullptr;
    }
    debugOutput = false;
}

int GlContext::checkErrors(const char* where) {
    return checkGlErrors(where);
}

int checkGlErrors(const char* where) {
    for (GLenum error = glGetError(); error != GL_NO_ERROR; error = glGetError()) {
        ++gGlErrors;
        std::fprintf(stderr, "quadterrain: GL error 0x%04X after %s\n", error, where);
    }
    return gGlErrors;
}

Status loadGlFunctions(GLADloadfunc load) {
    GlContext unused;
    const std::string failed = loadGl(load, false, unused);
    return failed.empty() ? Status{} : Status::failure(failed);
}

}  // namespace qt
