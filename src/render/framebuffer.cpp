// Offscreen framebuffer creation and row-flipping readback.
#include "render/framebuffer.h"

#include <algorithm>
#include <string>

namespace qt {

Result<Framebuffer> Framebuffer::create(int width, int height) {
    // What this driver can attach and draw to, asked before anything is allocated.
    GLint maxRenderbuffer = 0;
    GLint maxViewport[2] = {0, 0};
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &maxRenderbuffer);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, maxViewport);
    const int maxWidth = std::min(maxRenderbuffer, maxViewport[0]);
    const int maxHeight = std::min(maxRenderbuffer, maxViewport[1]);
    if (width < 1 || height < 1 || width > maxWidth || height > maxHeight) {
        return Result<Framebuffer>::failure(
            "offscreen framebuffer of " + std::to_string(width) + "x" + std::to_string(height) +
            " is over this OpenGL driver's limit of " + std::to_string(maxWidth) + "x" +
            std::to_string(maxHeight) + " (GL_MAX_RENDERBUFFER_SIZE, GL_MAX_VIEWPORT_DIMS)");
    }
    Framebuffer fb;
    fb.width = width;
    fb.height = height;
    glGenRenderbuffers(1, &fb.colour);
    glBindRenderbuffer(GL_RENDERBUFFER, fb.colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glGenRenderbuffers(1, &fb.depth);
    glBindRenderbuffer(GL_RENDERBUFFER, fb.depth);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glGenFramebuffers(1, &fb.framebuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, fb.framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, fb.colour);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                              fb.depth);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (status != GL_FRAMEBUFFER_COMPLETE) {
        fb.destroy();
        return Result<Framebuffer>::failure(
            "offscreen framebuffer of " + std::to_string(width) + "x" + std::to_string(height) +
            " is incomplete (status " + std::to_string(status) + ")");
    }
    return fb;
}

void Framebuffer::destroy() {
    if (framebuffer == 0 && colour == 0 && depth == 0) {
        return;  // none made: no GL call, which a failed context could not take
    }
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteRenderbuffers(1, &depth);
    glDeleteRenderbuffers(1, &colour);
    *this = Framebuffer{};
}

void readPixels(int width, int height, std::vector<uint8_t>& out) {
    const size_t rowBytes = size_t(width) * 4;
    out.resize(rowBytes * size_t(height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, out.data());
    for (int row = 0; row < height / 2; ++row) {
        uint8_t* a = out.data() + size_t(row) * rowBytes;
        uint8_t* b = out.data() + size_t(height - 1 - row) * rowBytes;
        std::swap_ranges(a, a + rowBytes, b);
    }
}

}  // namespace qt
