// Imagery on the GPU (core/io/imagery.h): one sRGB texture over the map's extent with its whole
// mip chain, read by the terrain programs compiled with IMAGERY (shaders/terrain.frag).
#pragma once

#include <cstdint>

#include "core/base/result.h"
#include "core/io/imagery.h"
#include "render/gl.h"

namespace qt {

// The largest square side of RGBA8 texels this context takes in one 2D texture, and at most
// `maxBytes` of them: what the imagery loader is limited to (ImageryLimits).
ImageryLimits queryImageryLimits(uint64_t maxBytes);

struct ImageryGpu {
    // GL_SRGB8_ALPHA8 GL_TEXTURE_2D, mipmapped, trilinear and anisotropic where the GL offers it
    // (GL_EXT_texture_filter_anisotropic, or GL 4.6); colour premultiplied by alpha, so that
    // filtering and the mips do not bleed the colour of texels the imagery does not cover.
    GLuint texture = 0;
    int width = 0;
    int height = 0;
    float anisotropy = 1.0f;  // the filter's largest anisotropy; 1: none
    uint64_t bytes = 0;       // the GPU's bytes, mips included

    // Uploads `imagery` (its texels premultiplied in place); fails with one line when the GPU
    // refuses the texture or has no memory for it, leaving nothing behind.
    static Result<ImageryGpu> create(Imagery& imagery);
    void destroy();
    bool present() const { return texture != 0; }
};

}  // namespace qt
