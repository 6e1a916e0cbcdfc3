// The imagery's pages on the GPU: the pool checked with a proxy texture, pages written one layer
// at a time, the page table one entry at a time.
#include "render/imagery_gpu.h"

#include <algorithm>
#include <string>
#include <vector>

namespace qt {

namespace {

GLenum internalFormat(ImageryCompression compression) {
    return compression == ImageryCompression::Bc3 ? GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT
                                                  : GL_SRGB8_ALPHA8;
}

// Whether the driver takes a side x side x layers array of `compression`'s pages (a proxy:
// nothing allocated).
bool takesArray(int side, int layers, ImageryCompression compression) {
    glTexImage3D(GL_PROXY_TEXTURE_2D_ARRAY, 0, GLint(internalFormat(compression)), side, side,
                 layers, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    GLint taken = 0;
    glGetTexLevelParameteriv(GL_PROXY_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_WIDTH, &taken);
    return taken != 0;
}

}  // namespace

bool imageryTakesBc3() {
    return GLAD_GL_EXT_texture_compression_s3tc != 0 && GLAD_GL_EXT_texture_sRGB != 0;
}

int imageryPoolLayers(const ImageryPlan& plan, uint64_t maxBytes, ImageryCompression compression) {
    GLint maxLayers = 0;
    glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &maxLayers);
    const int least = std::min(plan.pages, 64);
    int layers = int(std::min<uint64_t>(uint64_t(plan.pages),
                                        maxBytes / imageryPageBytes(plan.side(), compression)));
    layers = std::max(std::min(layers, int(maxLayers)), std::min(least, int(maxLayers)));
    while (layers > 1 && !takesArray(plan.side(), layers, compression)) {
        layers = layers * 3 / 4;
    }
    return std::max(layers, 1);
}

Result<ImageryGpu> ImageryGpu::create(const ImageryPlan& plan, int layers,
                                      ImageryCompression compression) {
    using R = Result<ImageryGpu>;
    if (plan.pages < 1 || layers < 1) {
        return R::failure("imagery has no pages");
    }
    if (compression == ImageryCompression::Bc3 && !imageryTakesBc3()) {
        return R::failure(
            "the GPU takes no BC3 (S3TC sRGB) textures for the imagery; "
            "--imagery-compression none");
    }
    if (compression == ImageryCompression::Bc3 && plan.side() % 4 != 0) {
        return R::failure("imagery pages of " + std::to_string(plan.side()) +
                          "^2 texels are not whole BC3 blocks of 4 x 4");
    }
    if (!takesArray(plan.side(), layers, compression)) {
        return R::failure("the GPU takes no " + std::to_string(layers) + " layers of " +
                          std::to_string(plan.side()) + "^2 texels for the imagery");
    }
    ImageryGpu gpu;
    gpu.plan = plan;
    gpu.compression = compression;
    gpu.layers = layers;
    while (glGetError() != GL_NO_ERROR) {  // only these textures' errors below
    }
    glGenTextures(1, &gpu.pages);
    glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.pages);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GLint(internalFormat(compression)), plan.side(),
                 plan.side(), layers, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, 0);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    // Anisotropic filtering in the shader, which keeps its taps inside a page's border: the GL's
    // (where it has GL_EXT_texture_filter_anisotropic) reads past it, and llvmpipe's showed every
    // page border.
    gpu.anisotropy = kImageryAnisotropy;
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    const std::vector<uint16_t> absent(size_t(plan.tableWidth) * size_t(plan.tableHeight),
                                       kImageryAbsent);
    glGenTextures(1, &gpu.table);
    glBindTexture(GL_TEXTURE_2D, gpu.table);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R16UI, plan.tableWidth, plan.tableHeight, 0, GL_RED_INTEGER,
                 GL_UNSIGNED_SHORT, absent.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
    if (glGetError() != GL_NO_ERROR) {
        gpu.destroy();
        return R::failure("the GPU has no memory for the imagery's " + std::to_string(layers) +
                          " page layers");
    }
    gpu.bytes = uint64_t(layers) * imageryPageBytes(plan.side(), compression) +
                uint64_t(plan.tableWidth) * uint64_t(plan.tableHeight) * 2;
    return gpu;
}

void ImageryGpu::uploadPage(int layer, uint32_t page, const uint8_t* stored, int64_t evicted) {
    const auto entry = [this](uint32_t id, uint16_t value) {
        int k = 0, px = 0, py = 0;
        plan.pageOf(id, k, px, py);
        if (plan.inTail(k)) {  // always in layer 0: the shader does not look it up
            return;
        }
        glTexSubImage2D(GL_TEXTURE_2D, 0, px, plan.level[size_t(k)].tableRow + py, 1, 1,
                        GL_RED_INTEGER, GL_UNSIGNED_SHORT, &value);
    };
    glBindTexture(GL_TEXTURE_2D_ARRAY, pages);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    if (compression == ImageryCompression::Bc3) {
        glCompressedTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer, plan.side(), plan.side(), 1,
                                  internalFormat(compression),
                                  GLsizei(imageryPageBytes(plan.side(), compression)), stored);
    } else {
        glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer, plan.side(), plan.side(), 1, GL_RGBA,
                        GL_UNSIGNED_BYTE, stored);
    }
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glBindTexture(GL_TEXTURE_2D, table);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
    if (evicted >= 0) {
        entry(uint32_t(evicted), kImageryAbsent);
    }
    entry(page, uint16_t(layer));
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void ImageryGpu::destroy() {
    glDeleteTextures(1, &pages);
    glDeleteTextures(1, &table);
    *this = ImageryGpu{};
}

}  // namespace qt
