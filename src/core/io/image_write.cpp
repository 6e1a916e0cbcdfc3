// Whole-file writes with every step checked, and PNG encoding through stb_image_write.
#include "core/io/image_write.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <stb_image_write.h>

#include "core/base/text.h"

namespace qt {

Status writeFile(const std::string& path, const void* data, size_t size) {
    auto failed = [&](const char* what) {
        return Status::failure(escapedPath(path) + ": cannot " + what + " the file (" +
                               std::strerror(errno) + ")");
    };
    errno = 0;
    FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) {
        return failed("create");
    }
    const bool wrote = std::fwrite(data, 1, size, file) == size && std::fflush(file) == 0;
    const int writeErrno = errno;
    const bool closed = std::fclose(file) == 0;
    if (!wrote) {
        errno = writeErrno;
        return failed("write");
    }
    if (!closed) {
        return failed("write");
    }
    return {};
}

Status writePng(const std::string& path, int width, int height, int channels,
                const uint8_t* pixels) {
    std::vector<uint8_t> png;
    const auto append = [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<uint8_t>*>(context);
        const auto* bytes = static_cast<const uint8_t*>(data);
        out->insert(out->end(), bytes, bytes + size);
    };
    if (!stbi_write_png_to_func(append, &png, width, height, channels, pixels, width * channels) ||
        png.empty()) {
        return Status::failure(escapedPath(path) + ": cannot encode the " + std::to_string(width) +
                               "x" + std::to_string(height) + " PNG");
    }
    return writeFile(path, png.data(), png.size());
}

Status writeRgbaAsRgbPng(const std::string& path, int width, int height,
                         const std::vector<uint8_t>& rgba) {
    std::vector<uint8_t> rgb(rgba.size() / 4 * 3);
    for (size_t i = 0, j = 0; i < rgba.size(); i += 4, j += 3) {
        std::copy(&rgba[i], &rgba[i] + 3, &rgb[j]);
    }
    return writePng(path, width, height, 3, rgb.data());
}

}  // namespace qt
