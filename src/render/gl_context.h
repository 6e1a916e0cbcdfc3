// The GLFW window with its OpenGL 3.3 core context, the GL loader and the GL error counter.
#pragma once

#include <string>

#include "core/result.h"

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

// Owns the window and its context; create() makes it current, destroy() ends GLFW.
struct GlContext {
    GLFWwindow* window = nullptr;
    bool debugOutput = false;  // a debug callback is installed

    // One line on failure: no display, no OpenGL 3.3 core (with what was found), loader failure.
    static Result<GlContext> create(const GlContextOptions& options);
    void destroy();

    // GL errors and high-severity debug messages seen so far: glGetError() is drained into the
    // count, each reported on stderr with `where`.
    int checkErrors(const char* where);
};

// Errors counted so far by the debug callback and checkErrors(), over every context.
int glErrorCount();

// True when QT_GL_DEBUG is set to something other than "0" or "".
bool glDebugRequested();

}  // namespace qt
