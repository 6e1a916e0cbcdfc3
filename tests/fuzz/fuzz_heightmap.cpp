// libFuzzer harness for the heightmap decoders: the first byte picks the format, the rest is the
// file. Any input must give a map or one error line; never a crash, a hang or a huge allocation.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/io/image_header.h"
#include "core/io/load.h"
#include "core/terrain/heightmap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // GDAL's formats through /vsimem/: TIFF and ESRI ASCII grids (not VRT, which names other
    // files on the machine and would make runs depend on them).
    static const char* const kExts[] = {".png", ".jpg", ".bmp", ".tga", ".pgm", ".gif", ".psd",
                                        ".hdr", ".hgt", ".r16", ".raw", ".ppm", ".tif", ".asc"};
    if (size < 1) {
        return 0;
    }
    const char* ext = kExts[data[0] % (sizeof(kExts) / sizeof(kExts[0]))];
    const std::vector<unsigned char> bytes(data + 1, data + size);
    qt::LoadOptions options;
    if (data[0] >= 128 && size >= 3) {  // exercise --size for raw files too
        options.rawWidth = data[1] % 64;
        options.rawHeight = data[2] % 64;
    }
    // The header check as loadHeightmap runs it on the first bytes of a longer file.
    const qt::Result<qt::ImageInfo> head =
        qt::checkImage(bytes.data(), bytes.size() / 2, bytes.size() + size_t(data[0]) * 4096);
    if (!head.ok() && (head.error().empty() || head.error().find('\n') != std::string::npos)) {
        __builtin_trap();
    }
    const qt::Result<qt::Heightmap> map = qt::decodeHeightmap("fuzz", ext, bytes, options);
    if (map.ok() && (map.value().width < 2 ||
                     map.value().codes.size() != size_t(map.value().width) * map.value().height)) {
        __builtin_trap();
    }
    return 0;
}
