// The loaders' front door: the format by extension, the file's length and header checked, the
// memory budget and the caller's size check applied, then the format's decoder.
#include "core/io/load.h"

#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/text.h"
#include "core/config.h"
#include "core/io/decoders.h"
#include "core/io/gdal_inputs.h"
#include "core/io/heightmap_gdal.h"

namespace qt {

namespace {

// Bytes read from the start of an image to check its header before the rest is read.
constexpr uint64_t kHeaderBytes = 65536;

// The file's length, or the problem with it (without the path).
Result<uint64_t> fileLength(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return Result<uint64_t>::failure(errno == ENOENT ? "no such file" : std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        return Result<uint64_t>::failure("is a directory, not a heightmap file");
    }
    if (!S_ISREG(st.st_mode)) {
        return Result<uint64_t>::failure("not a regular file");
    }
    return uint64_t(st.st_size);
}

// Reads up to `limit` bytes from the start of the file (the whole file when it is shorter).
Status readFile(const std::string& path, uint64_t limit, std::vector<unsigned char>& bytes) {
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        return Status::failure(std::string("cannot open: ") + std::strerror(errno));
    }
    bytes.resize(size_t(limit));
    const size_t got = std::fread(bytes.data(), 1, bytes.size(), file.get());
    if (got != bytes.size()) {
        return Status::failure("read failed (file changed or unreadable)");
    }
    return {};
}

// Whether `ext` names a format we read under these options.
Status checkFormat(const std::string& ext, const LoadOptions& options) {
    const bool isRaw = ext == ".r16" || ext == ".raw";
    if (!isRaw && ext != ".hgt" && !isStbExtension(ext) && !isGdalExtension(ext)) {
        return Status::failure(
            "unknown extension '" + escapedText(ext) +
            "' (expected .png .jpg .jpeg .bmp .tga .pgm .ppm .pnm .gif .psd .hdr "
            ".hgt .r16 .raw, or through GDAL " +
            gdalExtensionList() + ")");
    }
    if (!isRaw && (options.rawWidth != 0 || options.rawHeight != 0)) {
        return Status::failure("--size applies only to headerless .r16/.raw files");
    }
    if (ext != ".png" && options.encoding != HeightEncoding::Gray) {
        return Status::failure("--encoding applies only to PNG images");
    }
    return {};
}

}  // namespace

std::string lowerExtension(const std::string& path) {
    // A URL's query and fragment ("map.tif?X-Amz-Signature=...") are not its name.
    const size_t end = isNetworkPath(path) ? path.find_first_of("?#") : std::string::npos;
    const std::string named = path.substr(0, end);
    const size_t slash = named.find_last_of('/');
    const size_t dot = named.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
        return "";
    }
    std::string ext = named.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

namespace {

// With --fill-nodata the fill is shown as terrain: the mask goes (its count stays for the HUD),
// and with it the tree's holes.
Result<Heightmap> nodataAsAsked(Result<Heightmap> map, const LoadOptions& options, Quadtree* tree) {
    if (map && options.fillNodata && map.value().nodata.holes()) {
        map.value().nodata.fill();
        if (tree != nullptr) {
            markLeafHoles(*tree, map.value());
        }
    }
    return map;
}

Result<Heightmap> decodeAsStored(const std::string& name, const std::string& extension,
                                 const std::vector<unsigned char>& bytes,
                                 const LoadOptions& options) {
    std::string ext = extension;
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (Status problem = checkFormat(ext, options); !problem) {
        return loadFailure(name, problem.error());
    }
    if (bytes.empty()) {
        return loadFailure(name, "empty file");
    }
    if (ext == ".hgt") {
        return decodeHgt(name, bytes, options);
    }
    if (ext == ".r16" || ext == ".raw") {
        return decodeRaw16(name, bytes, options);
    }
    if (isGdalExtension(ext)) {
        return decodeGdalHeightmap(name, "map" + ext, bytes);
    }
    return decodeStbImage(name, bytes, options);
}

Result<Heightmap> loadAsStored(const std::string& path, const LoadOptions& options,
                               const SizeCheck& acceptSize, int treeLeafSize, Quadtree* tree) {
    if (path.empty()) {
        return Result<Heightmap>::failure("empty heightmap path");
    }
    const std::string name = escapedPath(path);
    const std::string ext = lowerExtension(path);
    if (Status problem = checkFormat(ext, options); !problem) {
        return loadFailure(name, problem.error());  // before touching the file
    }
    // A map named by URL is read through GDAL's network file systems, by byte ranges: its
    // raster's size is checked before its pixels are read, as a local file's is.
    const bool network = isNetworkPath(path);
    if (network && (!isGdalExtension(ext) || ext == ".gz" || ext == ".zip")) {
        return loadFailure(name,
                           "a map named by URL is read through GDAL, as .tif .tiff .asc "
                           ".vrt .dem .bil .flt .img .ter .bt; not '" +
                               escapedText(ext) + "'");
    }
    // Everything that can be checked from the length and the header is, before the pixels are
    // read: a sparse file claiming gigabytes costs nothing.
    uint64_t length = 0;  // a local file's
    if (!network) {
        const Result<uint64_t> file = fileLength(path);
        if (!file) {
            return loadFailure(name, file.error());
        }
        if (file.value() == 0) {
            return loadFailure(name, "empty file");
        }
        length = file.value();
    }
    if (isGdalExtension(ext)) {
        // GDAL reads the file itself; the raster's size is checked before its pixels are.
        const std::string gdalPath = gdalOpenPath(path);
        if (tree == nullptr) {
            return loadGdalHeightmap(gdalPath, name, options.memory, acceptSize);
        }
        Result<HeightmapWithTree> loaded =
            loadGdalHeightmapWithTree(gdalPath, name, treeLeafSize, options.memory, acceptSize);
        if (!loaded) {
            return Result<Heightmap>::failure(loaded.error());
        }
        *tree = std::move(loaded.value().tree);
        return std::move(loaded.value().map);
    }
    const bool raw = ext == ".r16" || ext == ".raw";
    if (!raw && length > kMaxFileBytes) {  // raw files are read straight into the codes
        return loadFailure(name, "file of " + std::to_string(length) +
                                     " bytes is over the limit of " +
                                     std::to_string(kMaxFileBytes) + " bytes for a heightmap");
    }
    std::vector<unsigned char> bytes;
    RawGrid size{0, 0};
    if (raw || ext == ".hgt") {
        const Result<RawGrid> grid = rawGrid(!raw, length, options);
        if (!grid) {
            return loadFailure(name, grid.error());
        }
        size = grid.value();
    } else {
        const uint64_t head = std::min<uint64_t>(length, kHeaderBytes);
        if (Status read = readFile(path, head, bytes); !read) {
            return loadFailure(name, read.error());
        }
        const Result<ImageInfo> info = checkImage(bytes.data(), bytes.size(), length);
        if (!info) {
            return loadFailure(name, info.error());
        }
        if (Status dense = checkDensity(info.value(), length); !dense) {
            return loadFailure(name, dense.error());
        }
        // The few headers checkImage does not size (0 x 0 here) are checked in loadStbImage,
        // once stb_image has read them.
        size = RawGrid{int(info.value().width), int(info.value().height)};
    }
    if (size.width > 0 && size.height > 0) {
        if (Status budget =
                checkMemoryBudget(size.width, size.height, kLoadBytesPerSample, options.memory);
            !budget) {
            return loadFailure(name, budget.error());
        }
        if (acceptSize) {
            if (Status accepted = acceptSize(size.width, size.height); !accepted) {
                return loadFailure(name, accepted.error());
            }
        }
    }
    if (raw) {
        return readRaw16File(path, name, size);
    }
    if (bytes.size() != length) {  // a small image is whole already
        if (Status read = readFile(path, length, bytes); !read) {
            return loadFailure(name, read.error());
        }
    }
    return decodeHeightmap(name, ext, bytes, options);
}

}  // namespace

Result<Heightmap> decodeHeightmap(const std::string& name, const std::string& extension,
                                  const std::vector<unsigned char>& bytes,
                                  const LoadOptions& options) {
    return nodataAsAsked(decodeAsStored(name, extension, bytes, options), options, nullptr);
}

Result<Heightmap> loadHeightmap(const std::string& path, const LoadOptions& options,
                                const SizeCheck& acceptSize, int treeLeafSize, Quadtree* tree) {
    return nodataAsAsked(loadAsStored(path, options, acceptSize, treeLeafSize, tree), options,
                         tree);
}

}  // namespace qt
