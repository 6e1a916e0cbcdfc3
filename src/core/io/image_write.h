// Files the programs write: whole files with every step checked, and PNG images.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace qt {

// Writes the bytes to the file, replacing it: every write, the flush and the close checked. A
// regular file is written as PATH.tmpPID beside it (beside the file a symbolic link names) and
// renamed over it when complete, so that a failed write (a full disk) leaves nothing partial and
// an existing file as it was; a device or FIFO is written in place. The error is one line naming
// the path (control bytes escaped) and the system's reason.
Status writeFile(const std::string& path, const void* data, size_t size);

// Encodes the image as PNG in memory, then writes it with writeFile.
Status writePng(const std::string& path, int width, int height, int channels,
                const uint8_t* pixels);

// Writes RGBA pixels (as read back from GL, alpha 1 everywhere) as an RGB PNG.
Status writeRgbaAsRgbPng(const std::string& path, int width, int height,
                         const std::vector<uint8_t>& rgba);

}  // namespace qt
