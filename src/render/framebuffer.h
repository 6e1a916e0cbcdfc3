// An offscreen RGBA8 + depth framebuffer and pixel readback (rows top first, ready for PNG).
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/result.h"
#include "render/gl.h"

namespace qt {

struct Framebuffer {
    GLuint framebuffer = 0;
    GLuint colour = 0;  // RGBA8 renderbuffer
    GLuint depth = 0;   // DEPTH24 renderbuffer
    int width = 0;
    int height = 0;

    // Refuses a size over the driver's renderbuffer and viewport limits before allocating.
    static Result<Framebuffer> create(int width, int height);
    void destroy();
    void bind() const { glBindFramebuffer(GL_FRAMEBUFFER, framebuffer); }
};

// Reads width x height RGBA8 pixels of the bound read framebuffer into `out`, top row first.
void readPixels(int width, int height, std::vector<uint8_t>& out);

}  // namespace qt
