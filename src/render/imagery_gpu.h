// Imagery on the GPU (core/io/imagery.h): a pool of sRGB page layers in one texture array and the
// page table that maps (level, page x, page y) to a layer, read by the terrain programs compiled
// with IMAGERY (shaders/terrain.frag). The pages come and go through the imagery's streamer
// (core/streaming/imagery_streamer.h).
#pragma once

#include <cstdint>

#include "core/base/result.h"
#include "core/io/imagery.h"
#include "render/gl.h"

namespace qt {

// The page table's entry of a page with no layer.
constexpr uint16_t kImageryAbsent = 0xFFFF;

// Whether the GL takes BC3 pages: sRGB S3TC textures (GL_EXT_texture_compression_s3tc and
// GL_EXT_texture_sRGB, which llvmpipe and desktop GPUs have; OpenGL 3.3 does not promise them).
bool imageryTakesBc3();

// The layers a pool of `plan`'s pages stored as `compression` says takes: every page, at most
// `maxBytes` of them, at most the GL's array layers, and what a proxy texture says the driver takes
// (a driver may cap one texture's bytes below its limits); at least the 64 a view needs (or every
// page, if fewer).
int imageryPoolLayers(const ImageryPlan& plan, uint64_t maxBytes,
                      ImageryCompression compression = ImageryCompression::None);

// The most taps the imagery's shader takes along a footprint's major axis. At the level it reads, a
// footprint is less than twice that many texels long, so its taps lie within 3 texels of the
// fragment and their bilinear reads within the pages' border of 4 (kImageryPageBorder).
constexpr float kImageryAnisotropy = 4.0f;

struct ImageryGpu {
    // GL_SRGB8_ALPHA8 (or, BC3, GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT) GL_TEXTURE_2D_ARRAY of
    // side x side layers, one level, linear (the shader filters across levels and along a
    // footprint's major axis); colour premultiplied by alpha (core/io/imagery.h), so that
    // filtering does not bleed the colour of texels the imagery does not cover.
    GLuint pages = 0;
    GLuint table = 0;  // GL_R16UI, plan.tableWidth x plan.tableHeight: a layer or kImageryAbsent
    ImageryPlan plan;
    ImageryCompression compression = ImageryCompression::None;
    int layers = 0;
    float anisotropy =
        1.0f;            // the most taps the shader takes along a footprint (kImageryAnisotropy)
    uint64_t bytes = 0;  // the GPU's bytes: layers and table

    // Fails with one line when the GPU refuses the textures (BC3 without imageryTakesBc3) or has
    // no memory for them, leaving nothing behind.
    static Result<ImageryGpu> create(const ImageryPlan& plan, int layers,
                                     ImageryCompression compression = ImageryCompression::None);
    // Writes a page's stored bytes (its texels, or their BC3 blocks) into `layer` and points its
    // table entry there (and that of the page evicted from it, when not -1, at kImageryAbsent).
    void uploadPage(int layer, uint32_t page, const uint8_t* stored, int64_t evicted);
    void destroy();
    bool present() const { return pages != 0; }
};

}  // namespace qt
