// The OpenGL 3.3 core context (a GLFW window, or a headless EGL context for runs that only write
// files), the GL loader and the GL error counter.
#pragma once

#include <string>

#include "core/base/result.h"
#include "render/gl.h"

struct GLFWwindow;

namespace qt {

struct GlContextOptions {
    int width = 1280;
    int height = 720;
    bool visible = true;
    // Debug context and glDebugMessageCallback (when GL_KHR_debug is there); also set by
    // QT_GL_DEBUG=1 in the environment.
    bool debug = false;
    std::string title = "quadterrain";
};

// Where the context comes from. QT_GL_PLATFORM=egl or =glfw in the environment chooses; by
// default a hidden context with no display to open a window on is headless.
enum class GlPlatform {
    Window,    // a GLFW window (X11 or Wayland); hidden when the options say so
    Headless,  // EGL with no surface: a GPU's EGL device, else Mesa's surfaceless platform
};

// The platform for these options and this environment, or one line naming a bad QT_GL_PLATFORM.
Result<GlPlatform> chooseGlPlatform(const GlContextOptions& options);

// Owns the window (or the headless context) and makes it current; destroy() releases it.
// A headless context has no default framebuffer: everything draws into framebuffer objects.
struct GlContext {
    GLFWwindow* window = nullptr;  // null when headless
    void* eglDisplay = nullptr;    // headless only: the EGLDisplay and EGLContext
    void* eglContext = nullptr;
    bool debugOutput = false;  // a debug callback is installed

    // One line on failure: no display, no OpenGL 3.3 core (with what was found), loader failure.
    static Result<GlContext> create(const GlContextOptions& options);
    // The headless path alone (create() calls it for GlPlatform::Headless).
    static Result<GlContext> createHeadless(const GlContextOptions& options);
    void destroy();

    // GL errors and high-severity debug messages seen so far: glGetError() is drained into the
    // count, each reported on stderr with `where`.
    int checkErrors(const char* where);
};

// Errors counted so far by the debug callback and checkErrors(), over every context.
int glErrorCount();

// checkErrors for the context current on this thread, whoever made it.
int checkGlErrors(const char* where);

// Loads the GL functions of the context current on this thread through `load` (a caller's own
// context: glfwGetProcAddress, eglGetProcAddress); fails with one line when it offers no OpenGL
// 3.3 core.
Status loadGlFunctions(GLADloadfunc load);

// True when QT_GL_DEBUG is set to something other than "0" or "".
bool glDebugRequested();

}  // namespace qt
