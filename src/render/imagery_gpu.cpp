// The imagery's texture: checked with a proxy texture, uploaded once, its mips made by the GL.
#include "render/imagery_gpu.h"

#include <algorithm>
#include <string>

namespace qt {

namespace {

// Whether the driver takes a side x side GL_SRGB8_ALPHA8 texture (a proxy: nothing allocated).
bool takesSide(int width, int height) {
    glTexImage2D(GL_PROXY_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, width, height, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, nullptr);
    GLint taken = 0;
    glGetTexLevelParameteriv(GL_PROXY_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &taken);
    return taken != 0;
}

// Bytes of a mip chain over width x height texels of four bytes.
uint64_t mipChainBytes(int width, int height) {
    uint64_t bytes = 0;
    for (int w = width, h = height;; w = std::max(w / 2, 1), h = std::max(h / 2, 1)) {
        bytes += uint64_t(w) * uint64_t(h) * 4;
        if (w == 1 && h == 1) {
            break;
        }
    }
    return bytes;
}

}  // namespace

ImageryLimits queryImageryLimits(uint64_t maxBytes) {
    ImageryLimits limits;
    GLint largest = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
    // A driver may cap a texture's bytes below its largest side squared (llvmpipe does): the
    // largest square side the proxy takes.
    int lo = 0;
    int hi = std::max(largest, 1) + 1;
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (takesSide(mid, mid) ? lo : hi) = mid;
    }
    limits.maxSide = std::max(lo, 1);
    limits.maxBytes = maxBytes;
    return limits;
}

Result<ImageryGpu> ImageryGpu::create(Imagery& imagery) {
    if (imagery.width <= 0 || imagery.height <= 0 ||
        imagery.rgba.size() != size_t(imagery.width) * size_t(imagery.height) * 4) {
        return Result<ImageryGpu>::failure("imagery has no texels");
    }
    if (!takesSide(imagery.width, imagery.height)) {
        return Result<ImageryGpu>::failure("the GPU takes no " + std::to_string(imagery.width) +
                                           " x " + std::to_string(imagery.height) +
                                           " texture for the imagery");
    }
    // Premultiplied: a texel the imagery does not cover is (0, 0, 0, 0), and its neighbours'
    // filtered colours, divided by their filtered alpha in the shader, keep their own colour.
    for (size_t i = 0; i < imagery.rgba.size(); i += 4) {
        const unsigned alpha = imagery.rgba[i + 3];
        if (alpha != 255) {
            for (size_t c = 0; c < 3; ++c) {
                imagery.rgba[i + c] = uint8_t((imagery.rgba[i + c] * alpha + 127) / 255);
            }
        }
    }
    ImageryGpu gpu;
    gpu.width = imagery.width;
    gpu.height = imagery.height;
    while (glGetError() != GL_NO_ERROR) {  // only this texture's errors below
    }
    glGenTextures(1, &gpu.texture);
    glBindTexture(GL_TEXTURE_2D, gpu.texture);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, gpu.width, gpu.height, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, imagery.rgba.data());
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    // Anisotropic filtering where the GL has it (core in 4.6, else the ARB or EXT extension):
    // imagery seen at a grazing angle stays sharp along the view.
    if (GLAD_GL_ARB_texture_filter_anisotropic || GLAD_GL_EXT_texture_filter_anisotropic) {
        GLfloat largest = 1.0f;
        glGetFloatv(GL_MAX_TEXTURE_MAX_ANISOTROPY, &largest);
        gpu.anisotropy = std::clamp(largest, 1.0f, 16.0f);
        glTexParameterf(GL_TEXTURE_2D, GL_TEXTURE_MAX_ANISOTROPY, gpu.anisotropy);
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    if (glGetError() != GL_NO_ERROR) {
        gpu.destroy();
        return Result<ImageryGpu>::failure("the GPU has no memory for the imagery's " +
                                           std::to_string(imagery.width) + " x " +
                                           std::to_string(imagery.height) + " texels");
    }
    gpu.bytes = mipChainBytes(gpu.width, gpu.height);
    return gpu;
}

void ImageryGpu::destroy() {
    glDeleteTextures(1, &texture);
    *this = ImageryGpu{};
}

}  // namespace qt
