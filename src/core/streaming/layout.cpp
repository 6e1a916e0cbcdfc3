// Reading a baked layout: its manifest, its level 0 held to its checksums, its tree.
#include "core/streaming/layout.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include <cpl_json.h>
#include <cpl_minixml.h>
#include <cpl_vsi.h>
#include <gdal_priv.h>

#include "core/base/checksum.h"
#include "core/base/huge_pages.h"
#include "core/config.h"
#include "core/io/gdal_inputs.h"
#include "core/io/gdal_raster.h"
#include "core/io/memory_budget.h"
#include "core/streaming/code_cache.h"

namespace qt {

namespace {

namespace fs = std::filesystem;

// GDAL's block cache while every level is verified: each block is read once.
constexpr int64_t kVerifyGdalCacheBytes = int64_t(64) << 20;

}  // namespace

std::string layoutLevelFile(int level, bool mosaic) {
    return "heights-" + std::to_string(level) + (mosaic ? ".vrt" : ".tif");
}

std::string checksumHex(uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

uint64_t chainTileCodes(uint64_t h, const uint16_t* codes, int count) {
    return hashWords(h, reinterpret_cast<const unsigned char*>(codes),
                     size_t(count) * sizeof(uint16_t));
}

uint64_t tileChecksum(const uint16_t* codes, const uint8_t* valid, int w, int h, size_t pitch) {
    uint64_t chain = kChecksumSeed;
    for (int y = 0; y < h; ++y) {
        chain = chainTileCodes(chain, codes + size_t(y) * pitch, w);
    }
    // The mask as 0 and 1, whatever nonzero value the driver gives a valid sample.
    std::vector<unsigned char> row(valid != nullptr ? size_t(w) : 0);
    for (int y = 0; valid != nullptr && y < h; ++y) {
        const uint8_t* from = valid + size_t(y) * pitch;
        for (int x = 0; x < w; ++x) {
            row[size_t(x)] = from[x] != 0 ? 1 : 0;
        }
        chain = hashWords(chain, row.data(), row.size());
    }
    return mixHash(chain);
}

uint64_t bytesChecksum(const std::vector<unsigned char>& bytes) {
    return mixHash(hashWords(kChecksumSeed, bytes.data(), bytes.size()));
}

std::string layoutPath(const std::string& folder, const std::string& name) {
    std::string base = folder;
    while (base.size() > 1 && base.back() == '/') {
        base.pop_back();
    }
    return base + "/" + name;
}

namespace {

// The same as GDAL opens it (a URL through /vsicurl/).
std::string gdalInLayout(const std::string& folder, const std::string& name) {
    return networkGdalPath(layoutPath(folder, name));
}

// The bytes of the layout's file at `gdalPath` (local, or a URL through /vsicurl/), which must be
// a regular file of exactly `expected` bytes: its size checked before anything is read.
Result<std::vector<unsigned char>> readLayoutFile(const std::string& gdalPath, uint64_t expected) {
    using R = Result<std::vector<unsigned char>>;
    VSIStatBufL info;
    if (VSIStatL(gdalPath.c_str(), &info) != 0 || !VSI_ISREG(info.st_mode)) {
        return R::failure("missing, or not a file");
    }
    if (uint64_t(info.st_size) != expected) {
        return R::failure("not the size layout.json gives (" + std::to_string(info.st_size) +
                          " bytes, not " + std::to_string(expected) + ")");
    }
    VSILFILE* file = VSIFOpenL(gdalPath.c_str(), "rb");
    if (file == nullptr) {
        return R::failure("cannot be read");
    }
    std::vector<unsigned char> bytes;
    resizeHuge(bytes, static_cast<size_t>(expected));
    const size_t read = VSIFReadL(bytes.data(), 1, bytes.size(), file);
    VSIFCloseL(file);
    if (read != bytes.size()) {
        return R::failure("cut short");
    }
    return bytes;
}

// The bytes of `folder`'s tree.qtree, held to the size layout.json gives before anything is read
// and to its checksum after.
Result<std::vector<unsigned char>> readLayoutTree(const std::string& folder, uint64_t bytes,
                                                  const std::string& checksum) {
    using R = Result<std::vector<unsigned char>>;
    Result<std::vector<unsigned char>> tree =
        readLayoutFile(gdalInLayout(folder, kLayoutTree), bytes);
    if (!tree) {
        return R::failure(std::string(kLayoutTree) + ": " + tree.error());
    }
    if (checksumHex(bytesChecksum(tree.value())) != checksum) {
        return R::failure(std::string(kLayoutTree) + ": does not match its checksum");
    }
    return tree;
}

}  // namespace

bool isLayoutFolder(const std::string& path) {
    if (isNetworkPath(path)) {
        // Only a URL without an extension can name a folder: a map's URL costs no request here.
        if (!lowerExtension(path).empty()) {
            return false;
        }
        registerGdalDrivers();
        const GdalMessages said;  // a server's refusal is no message here
        VSIStatBufL info;
        return VSIStatL(gdalInLayout(path, kLayoutManifest).c_str(), &info) == 0 &&
               VSI_ISREG(info.st_mode);
    }
    std::error_code error;
    return fs::is_directory(path, error) &&
           fs::is_regular_file(fs::path(path) / kLayoutManifest, error);
}

std::string whyNotALayout(const std::string& path) {
    registerGdalDrivers();
    const Status manifest = checkGdalInputs(gdalInLayout(path, kLayoutManifest));
    return std::string("a URL without an extension names a layout's folder, and its layout.json ") +
           (manifest ? "is not a file" : manifest.error());
}

namespace {

// Loads `folder`'s layout.json into `manifest`: a regular file of a size a layout's manifest can
// have (before it is read), JSON, of this format and version, with a page size a layout can have
// and a file for each of its levels. GDAL's own messages (a JSON parse error) are kept, not
// printed.
Status loadManifest(const std::string& folder, CPLJSONDocument& manifest) {
    registerGdalDrivers();
    const GdalMessages said;
    const std::string manifestPath = gdalInLayout(folder, kLayoutManifest);
    // A regular file of a size a layout's manifest can have, before it is read.
    VSIStatBufL info;
    if (VSIStatL(manifestPath.c_str(), &info) != 0 || !VSI_ISREG(info.st_mode)) {
        return Status::failure("layout.json: missing, or not a file");
    }
    if (uint64_t(info.st_size) > kMaxLayoutManifestBytes) {
        return Status::failure("layout.json: larger than a layout's (" +
                               std::to_string(uint64_t(info.st_size) >> 20) + " MiB)");
    }
    if (!manifest.Load(manifestPath)) {
        return Status::failure("layout.json: not JSON");
    }
    const CPLJSONObject root = manifest.GetRoot();
    if (root.GetString("format") != kLayoutFormat) {
        return Status::failure("layout.json: not a quadterrain layout");
    }
    if (const int version = root.GetInteger("version"); version != kLayoutVersion) {
        return Status::failure("layout.json: a layout of version " + std::to_string(version) +
                               "; this program reads version " + std::to_string(kLayoutVersion) +
                               ": bake the map again");
    }
    const int pageSize = root.GetInteger("pageSize");
    if (pageSize < 16 || pageSize > 4096 || (pageSize & (pageSize - 1)) != 0) {
        return Status::failure("layout.json: a page size that is not a power of two, 16 to 4096");
    }
    const CPLJSONArray levels = root.GetArray("files");
    if (!levels.IsValid() || levels.Size() < 1 || levels.Size() != root.GetInteger("levels")) {
        return Status::failure("layout.json: its levels do not match its files");
    }
    return Status();
}

}  // namespace

namespace {

// What a viewer reads first of the layout `folder` from its layout.json, already loaded
// (loadManifest): readLayoutManifest's checks.
Result<LayoutManifest> manifestOf(const std::string& folder, const CPLJSONDocument& manifest) {
    using R = Result<LayoutManifest>;
    const CPLJSONObject root = manifest.GetRoot();
    LayoutManifest out;
    out.folder = folder;
    out.width = root.GetInteger("width");
    out.height = root.GetInteger("height");
    out.leafSize = root.GetInteger("leafSize");
    out.pageSize = root.GetInteger("pageSize");
    out.nodataSamples = root.GetObj("nodata").GetLong("samples", -1);
    const CPLJSONObject level = root.GetArray("files")[0];
    const std::string name = level.GetString("file");
    const CPLJSONArray tiles = level.GetArray("tiles");
    const int64_t tilesX = (int64_t(out.width) + out.pageSize - 1) / out.pageSize;
    const int64_t tilesY = (int64_t(out.height) + out.pageSize - 1) / out.pageSize;
    if (out.width < 2 || out.height < 2 || out.width > kMaxBakeSide || out.height > kMaxBakeSide ||
        out.leafSize < kMinLeafSize || out.leafSize > kMaxLeafSize ||
        (out.leafSize & (out.leafSize - 1)) != 0 || out.nodataSamples < 0 ||
        out.nodataSamples > int64_t(out.width) * out.height) {
        return R::failure("layout.json: a size, leaf size or nodata count a map cannot have");
    }
    if ((name != layoutLevelFile(0) && name != layoutLevelFile(0, true)) ||
        level.GetInteger("columns") != out.width || level.GetInteger("rows") != out.height ||
        !tiles.IsValid() || tiles.Size() != tilesX * tilesY) {
        return R::failure("layout.json: level 0 is not of the map's size and tiles");
    }
    // A mosaic is held to what a join writes before anything opens it.
    if (name == layoutLevelFile(0, true)) {
        if (Status mosaic = checkLayoutMosaic(folder, name, 0); !mosaic) {
            return R::failure(mosaic.error());
        }
    }
    out.levelZero = layoutPath(folder, name);
    out.levelZeroTiles.reserve(size_t(tiles.Size()));
    for (int i = 0; i < tiles.Size(); ++i) {
        out.levelZeroTiles.push_back(tiles[i].ToString());
    }
    // The levels above: each the map's samples at its stride, in tiles of the page size. A
    // mosaic is held to what a join writes when it is first opened (LayoutLevelPages), so that an
    // open asks for no level it does not read.
    const CPLJSONArray files = root.GetArray("files");
    for (int k = 1; k < files.Size() && k <= kMaxLayoutLevel; ++k) {
        const CPLJSONObject entry = files[k];
        LayoutManifest::Level upper;
        upper.file = entry.GetString("file");
        upper.columns = entry.GetInteger("columns");
        upper.rows = entry.GetInteger("rows");
        const CPLJSONArray levelTiles = entry.GetArray("tiles");
        // ceil((width - 1) / 2^k) + 1 samples a row (PageLevel's), and as many rows.
        const int64_t columns = ((int64_t(out.width) - 2 + (int64_t(1) << k)) >> k) + 1;
        const int64_t rows = ((int64_t(out.height) - 2 + (int64_t(1) << k)) >> k) + 1;
        const int64_t across = (columns + out.pageSize - 1) / out.pageSize;
        const int64_t down = (rows + out.pageSize - 1) / out.pageSize;
        if ((upper.file != layoutLevelFile(k) && upper.file != layoutLevelFile(k, true)) ||
            upper.columns != columns || upper.rows != rows || !levelTiles.IsValid() ||
            levelTiles.Size() != across * down) {
            return R::failure("layout.json: level " + std::to_string(k) +
                              " is not of its stride's size and tiles");
        }
        upper.tiles.reserve(size_t(levelTiles.Size()));
        for (int i = 0; i < levelTiles.Size(); ++i) {
            upper.tiles.push_back(levelTiles[i].ToString());
        }
        out.upperLevels.push_back(std::move(upper));
    }
    const CPLJSONObject tree = root.GetObj("tree");
    const GInt64 treeBytes = tree.GetLong("bytes", -1);
    if (treeBytes < 0) {
        return R::failure("layout.json: the tree's size is missing");
    }
    out.treeBytes = uint64_t(treeBytes);
    // Its size held to what a tree of the map can take before anything is read or allocated: a
    // layout.json (a server's) cannot ask for more.
    if (out.treeBytes > sidecarBytes(out.width, out.height, out.leafSize)) {
        return R::failure("layout.json: a tree larger than the map's can be");
    }
    out.treeChecksum = tree.GetString("checksum");
    out.tree = layoutPath(folder, kLayoutTree);
    return out;
}

}  // namespace

Result<LayoutManifest> readLayoutManifest(const std::string& folder) {
    CPLJSONDocument manifest;
    if (Status loaded = loadManifest(folder, manifest); !loaded) {
        return Result<LayoutManifest>::failure(loaded.error());
    }
    return manifestOf(folder, manifest);
}

namespace {

// A mosaic's XML larger than this is refused before it is read (about 1 KiB a region, with its
// mask's source: 2^16 regions).
constexpr uint64_t kMaxMosaicBytes = uint64_t(64) << 20;

// Whether `path` is "regions/X-Z/heights-K.tif" for level `level`, X and Z numbers.
bool isRegionFile(const std::string& path, int level) {
    const std::string prefix = "regions/";
    const std::string suffix = "/" + layoutLevelFile(level);
    if (path.size() <= prefix.size() + suffix.size() ||
        path.compare(0, prefix.size(), prefix) != 0 ||
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return false;
    }
    const std::string region =
        path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
    const size_t dash = region.find('-');
    const auto digits = [](const std::string& t) {
        return !t.empty() && t.size() <= 9 &&
               t.find_first_not_of("0123456789") == std::string::npos;
    };
    return dash != std::string::npos && digits(region.substr(0, dash)) &&
           digits(region.substr(dash + 1));
}

// Every element of `node` and its siblings, depth first, while `visit` returns true.
bool everyElement(const CPLXMLNode* node, const std::function<bool(const CPLXMLNode&)>& visit) {
    for (; node != nullptr; node = node->psNext) {
        if (node->eType == CXT_Element && (!visit(*node) || !everyElement(node->psChild, visit))) {
            return false;
        }
    }
    return true;
}

}  // namespace

namespace {

// A mosaic's band's source as a join writes it: a region's file and where its samples go.
struct MosaicSource {
    std::string file;
    int srcX = 0, srcY = 0, srcW = 0, srcH = 0;
    int dstX = 0, dstY = 0, dstW = 0, dstH = 0;
};

int intAttribute(const CPLXMLNode* element, const char* name) {
    const char* text = element != nullptr ? CPLGetXMLValue(element, name, nullptr) : nullptr;
    if (text == nullptr) {
        return -1;
    }
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    return end != text && *end == '\0' && value >= 0 && value <= kMaxBakeSide ? int(value) : -1;
}

struct Mosaic {
    std::vector<MosaicSource> sources;  // its band's (those of its mask band left out)
    std::string sourceless;             // its XML with every source taken out
};

// Reads the mosaic `name` of the layout `folder` and holds it to what a join writes (as
// checkLayoutMosaic says).
Result<Mosaic> readLayoutMosaic(const std::string& folder, const std::string& name, int level) {
    using R = Result<Mosaic>;
    // The mosaic is data: before GDAL opens it, every source must be one of the layout's regions'
    // files by a relative path, and no band of another kind (raw, derived: a pixel function).
    const std::string path = gdalInLayout(folder, name);
    VSIStatBufL info;
    if (VSIStatL(path.c_str(), &info) != 0 || !VSI_ISREG(info.st_mode)) {
        return R::failure(name + ": missing, or not a file");
    }
    if (uint64_t(info.st_size) > kMaxMosaicBytes) {
        return R::failure(name + ": larger than a layout's mosaic");
    }
    Result<std::vector<unsigned char>> bytes = readLayoutFile(path, uint64_t(info.st_size));
    if (!bytes) {
        return R::failure(name + ": " + bytes.error());
    }
    const std::string text(bytes.value().begin(), bytes.value().end());
    const GdalMessages said;
    CPLXMLNode* root = CPLParseXMLString(text.c_str());
    if (root == nullptr) {
        return R::failure(name + ": not XML");
    }
    std::string problem;
    everyElement(root, [&](const CPLXMLNode& element) {
        const std::string tag = element.pszValue;
        if (tag == "VRTRasterBand" && CPLGetXMLValue(&element, "subClass", nullptr) != nullptr) {
            problem = "a band of another kind than the layout's (" +
                      std::string(CPLGetXMLValue(&element, "subClass", "")) + ")";
        } else if (tag == "SourceFilename" &&
                   (std::string(CPLGetXMLValue(&element, "relativeToVRT", "0")) != "1" ||
                    !isRegionFile(CPLGetXMLValue(&element, nullptr, ""), level))) {
            problem = "a source that is not one of the layout's regions' files";
        }
        return problem.empty();
    });
    // The band's sources: the elements of the dataset's VRTRasterBand (its MaskBand's apart).
    Mosaic out;
    std::vector<MosaicSource>& sources = out.sources;
    CPLXMLNode* dataset = CPLGetXMLNode(root, "=VRTDataset");
    CPLXMLNode* band = dataset != nullptr ? CPLGetXMLNode(dataset, "VRTRasterBand") : nullptr;
    for (const CPLXMLNode* node = band != nullptr ? band->psChild : nullptr;
         problem.empty() && node != nullptr; node = node->psNext) {
        if (node->eType != CXT_Element || !EQUAL(node->pszValue, "SimpleSource")) {
            continue;
        }
        MosaicSource source;
        source.file = CPLGetXMLValue(node, "SourceFilename", "");
        const CPLXMLNode* src = CPLGetXMLNode(node, "SrcRect");
        const CPLXMLNode* dst = CPLGetXMLNode(node, "DstRect");
        source.srcX = intAttribute(src, "xOff");
        source.srcY = intAttribute(src, "yOff");
        source.srcW = intAttribute(src, "xSize");
        source.srcH = intAttribute(src, "ySize");
        source.dstX = intAttribute(dst, "xOff");
        source.dstY = intAttribute(dst, "yOff");
        source.dstW = intAttribute(dst, "xSize");
        source.dstH = intAttribute(dst, "ySize");
        sources.push_back(std::move(source));
    }
    // Without its sources (and its mask band's), for what the mosaic says of the map alone.
    if (problem.empty() && band != nullptr) {
        for (CPLXMLNode* node = band->psChild; node != nullptr;) {
            CPLXMLNode* next = node->psNext;
            if (node->eType == CXT_Element &&
                (EQUAL(node->pszValue, "SimpleSource") || EQUAL(node->pszValue, "ComplexSource") ||
                 EQUAL(node->pszValue, "MaskBand"))) {
                CPLRemoveXMLChild(band, node);
                CPLDestroyXMLNode(node);
            }
            node = next;
        }
        if (CPLXMLNode* mask = CPLGetXMLNode(dataset, "MaskBand"); mask != nullptr) {
            CPLRemoveXMLChild(dataset, mask);
            CPLDestroyXMLNode(mask);
        }
        char* serialised = CPLSerializeXMLTree(dataset);
        out.sourceless = serialised != nullptr ? serialised : "";
        CPLFree(serialised);
    }
    CPLDestroyXMLNode(root);
    if (!problem.empty()) {
        return R::failure(name + ": " + problem);
    }
    return out;
}

}  // namespace

Status checkLayoutMosaic(const std::string& folder, const std::string& name, int level) {
    const Result<Mosaic> mosaic = readLayoutMosaic(folder, name, level);
    return mosaic ? Status() : Status::failure(mosaic.error());
}

Result<LayoutLevelFiles> layoutLevelFiles(const std::string& folder, const std::string& name,
                                          int level, int columns, int rows, int pageSize) {
    using R = Result<LayoutLevelFiles>;
    LayoutLevelFiles out;
    out.pageSize = pageSize;
    out.tilesX = (columns + pageSize - 1) / pageSize;
    const int tilesY = (rows + pageSize - 1) / pageSize;
    if (name != layoutLevelFile(level, true)) {
        out.files.push_back({name, gdalInLayout(folder, name), 0, 0, columns, rows});
        out.tileFile.assign(size_t(out.tilesX) * size_t(tilesY), 0);
        return out;
    }
    Result<Mosaic> mosaic = readLayoutMosaic(folder, name, level);
    if (!mosaic) {
        return R::failure(mosaic.error());
    }
    out.sourceless = std::move(mosaic.value().sourceless);
    // Every source whole (its file's samples from its first), at a multiple of the page size,
    // ending at one or at the level's edge, inside the level; every tile in exactly one.
    constexpr uint32_t kNone = 0xFFFFFFFFu;
    out.tileFile.assign(size_t(out.tilesX) * size_t(tilesY), kNone);
    for (const MosaicSource& s : mosaic.value().sources) {
        const bool placed = s.srcX == 0 && s.srcY == 0 && s.srcW > 0 && s.srcH > 0 &&
                            s.dstW == s.srcW && s.dstH == s.srcH && s.dstX >= 0 && s.dstY >= 0 &&
                            s.dstX % pageSize == 0 && s.dstY % pageSize == 0 &&
                            int64_t(s.dstX) + s.dstW <= columns &&
                            int64_t(s.dstY) + s.dstH <= rows &&
                            ((s.dstX + s.dstW) % pageSize == 0 || s.dstX + s.dstW == columns) &&
                            ((s.dstY + s.dstH) % pageSize == 0 || s.dstY + s.dstH == rows);
        if (!placed) {
            return R::failure(name + ": a source not placed as a join places a region's file");
        }
        const uint32_t index = uint32_t(out.files.size());
        for (int ty = s.dstY / pageSize; ty * pageSize < s.dstY + s.dstH; ++ty) {
            for (int tx = s.dstX / pageSize; tx * pageSize < s.dstX + s.dstW; ++tx) {
                uint32_t& file = out.tileFile[size_t(ty) * size_t(out.tilesX) + size_t(tx)];
                if (file != kNone) {
                    return R::failure(name + ": two sources hold one tile");
                }
                file = index;
            }
        }
        out.files.push_back({s.file, gdalInLayout(folder, s.file), s.dstX, s.dstY, s.dstW, s.dstH});
    }
    if (std::find(out.tileFile.begin(), out.tileFile.end(), kNone) != out.tileFile.end()) {
        return R::failure(name + ": its sources leave a tile out");
    }
    return out;
}

Result<GdalRaster> openLayoutLevelFile(const LayoutLevelFiles::File& file, int pageSize,
                                       const GdalMessages& said) {
    using R = Result<GdalRaster>;
    registerGdalDrivers();
    if (!isNetworkPath(file.path)) {
        // A FIFO or a device would block or never end the read.
        VSIStatBufL info;
        if (VSIStatL(file.path.c_str(), &info) != 0 || !VSI_ISREG(info.st_mode)) {
            return R::failure(file.name + ": missing, or not a file");
        }
    }
    const char* const geoTiffOnly[] = {"GTiff", nullptr};
    CPLSetThreadLocalConfigOption("GDAL_DISABLE_READDIR_ON_OPEN", "EMPTY_DIR");
    CPLSetThreadLocalConfigOption("GDAL_PAM_ENABLED", "NO");
    GdalRaster raster;
    raster.dataset.reset(GDALDataset::Open(
        file.path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR, geoTiffOnly));
    CPLSetThreadLocalConfigOption("GDAL_DISABLE_READDIR_ON_OPEN", nullptr);
    CPLSetThreadLocalConfigOption("GDAL_PAM_ENABLED", nullptr);
    if (!raster.dataset) {
        // Why: what the server answers for it (checkGdalInputs asks), else GDAL's reason.
        const std::string reason = said.line("not a GeoTIFF");
        const Status there = isNetworkPath(file.path) ? checkGdalInputs(file.path) : Status();
        return R::failure(file.name + ": " +
                          (there ? "GDAL cannot open it as a GeoTIFF: " + reason : there.error()));
    }
    if (raster.dataset->GetRasterCount() != 1) {
        return R::failure(file.name + ": not one band of codes");
    }
    raster.width = raster.dataset->GetRasterXSize();
    raster.height = raster.dataset->GetRasterYSize();
    raster.band = raster.dataset->GetRasterBand(1);
    if (Status same = levelAsManifestSays(raster, file.name, file.columns, file.rows, pageSize);
        !same) {
        return R::failure(same.error());
    }
    return raster;
}

uint64_t layoutSignature(const LayoutManifest& layout) {
    const int64_t sizes[4] = {layout.width, layout.height, layout.leafSize, layout.pageSize};
    uint64_t h = hashWords(kChecksumSeed, reinterpret_cast<const unsigned char*>("qtlayout"), 8);
    h = hashWords(h, reinterpret_cast<const unsigned char*>(sizes), sizeof sizes);
    for (const std::string& tile : layout.levelZeroTiles) {
        h = hashWords(h, reinterpret_cast<const unsigned char*>(tile.data()), tile.size());
    }
    h = hashWords(h, reinterpret_cast<const unsigned char*>(layout.treeChecksum.data()),
                  layout.treeChecksum.size());
    return mixHash(h);
}

Status levelAsManifestSays(const GdalRaster& raster, const std::string& name, int columns, int rows,
                           int pageSize) {
    int blockX = 0, blockY = 0;
    raster.band->GetBlockSize(&blockX, &blockY);
    const bool mosaic = name.size() > 4 && name.compare(name.size() - 4, 4, ".vrt") == 0;
    const bool tiled = (blockX == pageSize && blockY == pageSize) || mosaic;
    if (raster.width != columns || raster.height != rows ||
        raster.band->GetRasterDataType() != GDT_UInt16 || !tiled) {
        return Status::failure(name + ": its size, type or tiles are not layout.json's");
    }
    return Status();
}

Status readCheckedTile(GDALRasterBand& band, GDALRasterBand* mask, int tx, int ty, int x, int y,
                       int w, int h, uint16_t* codes, uint8_t* valid, const std::string& checksum,
                       const GdalMessages& said) {
    const std::string tile = "tile (" + std::to_string(tx) + ", " + std::to_string(ty) + ")";
    if (band.RasterIO(GF_Read, x, y, w, h, codes, w, h, GDT_UInt16, 0, 0, nullptr) != CE_None ||
        (mask != nullptr &&
         mask->RasterIO(GF_Read, x, y, w, h, valid, w, h, GDT_Byte, 0, 0, nullptr) != CE_None)) {
        return Status::failure(tile + " cannot be read: " + said.line("GDAL gave no reason"));
    }
    if (checksumHex(tileChecksum(codes, mask != nullptr ? valid : nullptr, w, h, size_t(w))) !=
        checksum) {
        return Status::failure(tile + " does not match its checksum");
    }
    return {};
}

Status verifyLayout(const std::string& folder) {
    const GdalCacheCap cacheCap(kVerifyGdalCacheBytes);  // every block is read once
    CPLJSONDocument manifest;
    if (Status loaded = loadManifest(folder, manifest); !loaded) {
        return loaded;
    }
    // Level 0's entry and mosaic, and the tree's size held to the map's, before anything is read.
    const Result<LayoutManifest> layout = manifestOf(folder, manifest);
    if (!layout) {
        return Status::failure(layout.error());
    }
    const GdalMessages said;
    const CPLJSONObject root = manifest.GetRoot();
    const int pageSize = root.GetInteger("pageSize");
    const CPLJSONArray levels = root.GetArray("files");
    std::vector<uint16_t> tile(size_t(pageSize) * size_t(pageSize));
    const bool masked = layout.value().nodataSamples > 0;
    std::vector<uint8_t> valid(masked ? tile.size() : 0);
    for (int level = 0; level < levels.Size(); ++level) {
        const CPLJSONObject entry = levels[level];
        const std::string name = entry.GetString("file");
        if (name != layoutLevelFile(level) && name != layoutLevelFile(level, true)) {
            return Status::failure("layout.json: level " + std::to_string(level) + " names " +
                                   name);
        }
        if (level > 0 && name == layoutLevelFile(level, true)) {
            if (Status mosaic = checkLayoutMosaic(folder, name, level); !mosaic) {
                return mosaic;
            }
        }
        // Opened as a map's raster is: regular files only, one band, its size checked.
        Result<GdalRaster> raster =
            openGdalRaster(gdalInLayout(folder, name), said, kBakeSizeLimit);
        if (!raster) {
            return Status::failure(name + ": " + raster.error());
        }
        const int columns = entry.GetInteger("columns");
        const int rows = entry.GetInteger("rows");
        GDALRasterBand* band = raster.value().band;
        if (Status same = levelAsManifestSays(raster.value(), name, columns, rows, pageSize);
            !same) {
            return same;
        }
        const CPLJSONArray tiles = entry.GetArray("tiles");
        const int tilesX = (columns + pageSize - 1) / pageSize;
        const int tilesY = (rows + pageSize - 1) / pageSize;
        if (!tiles.IsValid() || tiles.Size() != tilesX * tilesY) {
            return Status::failure("layout.json: " + name + "'s tiles are not its checksums'");
        }
        for (int ty = 0; ty < tilesY; ++ty) {
            for (int tx = 0; tx < tilesX; ++tx) {
                const int w = std::min(pageSize, columns - tx * pageSize);
                const int h = std::min(pageSize, rows - ty * pageSize);
                if (Status checked =
                        readCheckedTile(*band, masked ? band->GetMaskBand() : nullptr, tx, ty,
                                        tx * pageSize, ty * pageSize, w, h, tile.data(),
                                        valid.data(), tiles[ty * tilesX + tx].ToString(), said);
                    !checked) {
                    return Status::failure(name + ": " + checked.error());
                }
            }
        }
    }
    const Result<std::vector<unsigned char>> tree =
        readLayoutTree(folder, layout.value().treeBytes, layout.value().treeChecksum);
    return tree ? Status() : Status::failure(tree.error());
}

std::string levelZeroName(const LayoutManifest& layout) {
    return fs::path(layout.levelZero).filename().string();
}

namespace {

// Level 0's tile rows `first`, first + stride, ... read through GDAL (its own dataset), each tile
// held to its checksum before its rows are kept: into `map`'s codes, or written into `cache`
// through a buffer of one tile row. The mask's bits are set under `lock` (a word may hold two tile
// rows' samples). The share of one thread of readLayoutLevelZero.
// The most files of level 0 one thread of readLayoutLevelZero keeps open: a row of tiles crosses
// a row of regions (32 at 65537² in regions of 2048).
constexpr size_t kMostOpenPerRead = 64;

struct LevelZeroRead {
    const LayoutManifest* layout = nullptr;
    const LayoutLevelFiles* files = nullptr;
    Heightmap* map = nullptr;
    CodeCacheWriter* cache = nullptr;
    std::mutex* lock = nullptr;
    std::atomic<bool>* failed = nullptr;
    const ReadProgress* progress = nullptr;
    int64_t* rowsDone = nullptr;  // rows of tiles read or kept by every thread, under `lock`
    std::string error;            // the first failure of this thread's share
    uint16_t lo = 0xFFFF;
    uint16_t hi = 0;
    int64_t voids = 0;
    int reused = 0;  // rows of tiles kept from a resumed cache

    void fail(std::string line) {
        error = std::move(line);
        failed->store(true);
    }

    // Whether every tile of the row of tiles at `codes` (`rows` rows of the map) with its mask
    // (`valid`, the same layout; null without holes) matches its checksum; the first that does
    // not in `mismatch`.
    bool rowMatches(const uint16_t* codes, const uint8_t* valid, int ty, int rows,
                    int* mismatch = nullptr) const {
        const LayoutManifest& l = *layout;
        const int width = map->width;
        const int tilesX = (width + l.pageSize - 1) / l.pageSize;
        for (int tx = 0; tx < tilesX; ++tx) {
            const int x = tx * l.pageSize;
            const int w = std::min(l.pageSize, width - x);
            if (checksumHex(tileChecksum(codes + x, valid != nullptr ? valid + x : nullptr, w, rows,
                                         size_t(width))) !=
                l.levelZeroTiles[size_t(ty) * size_t(tilesX) + size_t(tx)]) {
                if (mismatch != nullptr) {
                    *mismatch = tx;
                }
                return false;
            }
        }
        return true;
    }

    // The datasets of level 0's files this thread has open (codes, and masks through datasets
    // of their own: GDAL 3.6's reader of a COG by URL, its mask interleaved with the imagery,
    // fails to decode a block of codes read after that block's mask on the same dataset).
    struct Open {
        uint32_t file = 0;
        GdalRaster codes, masks;
    };
    std::vector<Open> open;

    // Reads columns [0, width) of `rows` rows from `row` of level 0, each file's share from that
    // file (a mosaic's regions), into `codes` and, with holes, `valid` (rows `width` apart).
    Status readRows(int row, int rows, uint16_t* codes, uint8_t* valid, bool codesToo,
                    const GdalMessages& said) {
        const LayoutManifest& l = *layout;
        const int ty = row / l.pageSize;
        for (int tx = 0; tx < files->tilesX;) {
            const uint32_t index = files->fileIndex(tx, ty);
            const LayoutLevelFiles::File& file = files->files[index];
            auto it = std::find_if(open.begin(), open.end(),
                                   [&](const Open& o) { return o.file == index; });
            if (it == open.end()) {
                if (open.size() >= kMostOpenPerRead) {
                    open.clear();
                }
                Open o;
                o.file = index;
                Result<GdalRaster> opened = openLayoutLevelFile(file, l.pageSize, said);
                if (!opened) {
                    return Status::failure(opened.error());
                }
                o.codes = std::move(opened).value();
                if (l.nodataSamples > 0) {
                    Result<GdalRaster> masks = openLayoutLevelFile(file, l.pageSize, said);
                    if (!masks) {
                        return Status::failure(masks.error());
                    }
                    o.masks = std::move(masks).value();
                }
                it = open.insert(open.end(), std::move(o));
            }
            const int x = file.x0, fy = row - file.y0;
            const GSpacing pitch = GSpacing(map->width);
            if ((valid != nullptr &&
                 it->masks.band->GetMaskBand()->RasterIO(GF_Read, 0, fy, file.columns, rows,
                                                         valid + x, file.columns, rows, GDT_Byte, 1,
                                                         pitch, nullptr) != CE_None) ||
                (codesToo && it->codes.band->RasterIO(GF_Read, 0, fy, file.columns, rows, codes + x,
                                                      file.columns, rows, GDT_UInt16, 2, 2 * pitch,
                                                      nullptr) != CE_None)) {
                return Status::failure(
                    file.name + ": " +
                    said.line("tile row " + std::to_string(ty) + " cannot be read"));
            }
            tx = (file.x0 + file.columns + l.pageSize - 1) / l.pageSize;
        }
        return {};
    }

    void run(int first, int stride) {
        const LayoutManifest& l = *layout;
        const GdalMessages said;
        const bool holes = l.nodataSamples > 0;
        const int width = map->width;
        const size_t tileRow = size_t(width) * size_t(l.pageSize);
        const int tilesY = (map->height + l.pageSize - 1) / l.pageSize;
        std::vector<uint8_t> valid(holes ? tileRow : 0);
        std::vector<uint16_t> buffer(cache != nullptr ? tileRow : 0);
        for (int ty = first; ty < tilesY && !failed->load(); ty += stride) {
            const int row = ty * l.pageSize;
            const int rows = std::min(l.pageSize, map->height - row);
            const size_t firstCode = size_t(row) * size_t(width);
            uint8_t* mask = holes ? valid.data() : nullptr;
            // The mask first: a resumed cache's row that already matches keeps its codes.
            if (Status got = readRows(row, rows, nullptr, mask, false, said); !got) {
                return fail(got.error());
            }
            const uint8_t* holesOf = mask;
            // A resumed cache's row of tiles that already matches (codes and mask) is kept as it
            // is there.
            const bool kept = cache != nullptr && cache->resumed() &&
                              rowMatches(cache->codes().data() + firstCode, holesOf, ty, rows);
            uint16_t* read = cache != nullptr ? buffer.data() : map->codes.data() + firstCode;
            const uint16_t* codes = kept ? cache->codes().data() + firstCode : read;
            if (!kept) {
                if (Status got = readRows(row, rows, read, nullptr, true, said); !got) {
                    return fail(got.error());
                }
            }
            if (int tx = 0; !kept && !rowMatches(codes, holesOf, ty, rows, &tx)) {
                return fail(files->fileOf(tx, ty).name + ": tile (" + std::to_string(tx) + ", " +
                            std::to_string(ty) + ") does not match its checksum");
            }
            const auto [a, b] = std::minmax_element(codes, codes + size_t(rows) * size_t(width));
            lo = std::min(lo, *a);
            hi = std::max(hi, *b);
            if (kept) {
                ++reused;
                cache->codes().dropResident(firstCode, size_t(rows) * size_t(width));
            } else if (cache != nullptr) {
                if (Status written = cache->writeRows(row, rows, codes); !written) {
                    return fail(written.error());
                }
            }
            const std::lock_guard<std::mutex> hold(*lock);
            if (mask != nullptr) {
                for (size_t i = 0; i < size_t(rows) * size_t(width); ++i) {
                    if (valid[i] == 0) {
                        const size_t bit = size_t(row) * size_t(width) + i;
                        map->nodata.bits[bit >> 6] |= uint64_t(1) << (bit & 63);
                        ++voids;
                    }
                }
            }
            ++*rowsDone;
            if (*progress) {
                (*progress)(*rowsDone, tilesY);
            }
        }
    }
};

}  // namespace

Result<GdalRaster> openLayoutLevelZero(const LayoutManifest& layout) {
    using R = Result<GdalRaster>;
    const std::string name = levelZeroName(layout);
    const GdalMessages said;
    const Result<LayoutLevelFiles> files =
        layoutLevelFiles(layout.folder, name, 0, layout.width, layout.height, layout.pageSize);
    if (!files) {
        return R::failure(files.error());
    }
    if (files.value().sourceless.empty()) {
        return openLayoutLevelFile(files.value().files[0], layout.pageSize, said);
    }
    const char* const vrtOnly[] = {"VRT", nullptr};
    GdalRaster raster;
    raster.dataset.reset(GDALDataset::Open(files.value().sourceless.c_str(),
                                           GDAL_OF_RASTER | GDAL_OF_READONLY, vrtOnly));
    if (!raster.dataset || raster.dataset->GetRasterCount() != 1) {
        return R::failure(name + ": GDAL cannot read it: " + said.line("not a mosaic GDAL reads"));
    }
    raster.width = raster.dataset->GetRasterXSize();
    raster.height = raster.dataset->GetRasterYSize();
    raster.band = raster.dataset->GetRasterBand(1);
    return raster;
}

Status describeLayoutLevelZero(const LayoutManifest& layout, Heightmap& map) {
    const std::string name = levelZeroName(layout);
    Result<GdalRaster> raster = openLayoutLevelZero(layout);
    if (!raster) {
        return Status::failure(raster.error());
    }
    GDALRasterBand& band = *raster.value().band;
    if (Status same =
            levelAsManifestSays(raster.value(), name, layout.width, layout.height, layout.pageSize);
        !same) {
        return same;
    }
    const Result<GdalBand> described = describeGdalBand(*raster.value().dataset, band);
    if (!described) {
        return Status::failure(name + ": " + described.error());
    }
    const GdalBand& info = described.value();
    map.width = layout.width;
    map.height = layout.height;
    map.format = HeightmapFormat::Elevation;
    map.geo = info.geo;
    map.metres = info.metres();
    map.coding = codingInMetres(HeightCoding{float(info.offset), float(info.scale)}, info);
    map.nodata = NodataMask{};
    map.nodata.total = map.sampleCount();
    if (layout.nodataSamples > 0) {
        map.nodata.width = layout.width;
        map.nodata.height = layout.height;
        map.nodata.bits.assign((size_t(map.sampleCount()) + 63) / 64, 0);
    }
    return Status();
}

Status readLayoutLevelZero(const LayoutManifest& layout, Heightmap& map, CodeCacheWriter* cache,
                           int* reusedTileRows, const ReadProgress& progress) {
    assert(map.width == layout.width && map.height == layout.height);
    assert(cache != nullptr || map.codes.size() == size_t(map.sampleCount()));
    const int tilesY = (layout.height + layout.pageSize - 1) / layout.pageSize;
    const int threads =
        std::max(1, std::min({int(std::thread::hardware_concurrency()), 4, tilesY}));
    // Read from the files that hold the tiles: a mosaic's regions each as a GeoTIFF alone.
    const Result<LayoutLevelFiles> files = layoutLevelFiles(
        layout.folder, levelZeroName(layout), 0, layout.width, layout.height, layout.pageSize);
    if (!files) {
        return Status::failure(files.error());
    }
    std::mutex lock;
    std::atomic<bool> failed{false};
    int64_t rowsDone = 0;
    std::vector<LevelZeroRead> reads(static_cast<size_t>(threads));
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t) {
        LevelZeroRead& read = reads[size_t(t)];
        read.layout = &layout;
        read.files = &files.value();
        read.map = &map;
        read.cache = cache;
        read.lock = &lock;
        read.failed = &failed;
        read.progress = &progress;
        read.rowsDone = &rowsDone;
        if (t + 1 < threads) {
            running.emplace_back(&LevelZeroRead::run, &read, t, threads);
        } else {
            read.run(t, threads);
        }
    }
    for (std::thread& thread : running) {
        thread.join();
    }
    uint16_t lo = 0xFFFF, hi = 0;
    int64_t voids = 0;
    int reused = 0;
    for (const LevelZeroRead& read : reads) {
        if (!read.error.empty()) {
            return Status::failure(read.error);
        }
        lo = std::min(lo, read.lo);
        hi = std::max(hi, read.hi);
        voids += read.voids;
        reused += read.reused;
    }
    if (reusedTileRows != nullptr) {
        *reusedTileRows = reused;
    }
    if (voids != layout.nodataSamples) {
        return Status::failure(levelZeroName(layout) + ": its mask holds " + std::to_string(voids) +
                               " nodata samples, layout.json " +
                               std::to_string(layout.nodataSamples));
    }
    map.nodata.samples = voids;
    setCodeRange(map, lo, hi);
    return Status();
}

Result<TreeSidecar> readLayoutTreeSidecar(const LayoutManifest& layout) {
    using R = Result<TreeSidecar>;
    Result<std::vector<unsigned char>> tree =
        readLayoutTree(layout.folder, layout.treeBytes, layout.treeChecksum);
    if (!tree) {
        return R::failure(tree.error());
    }
    Result<TreeSidecar> parsed =
        parseTreeSidecar(tree.value().data(), tree.value().size(), FileStamp{}, layout.width,
                         layout.height, layout.leafSize);
    if (!parsed) {
        return R::failure(std::string(kLayoutTree) + ": " + parsed.error());
    }
    return parsed;
}

Result<LayoutMap> readLayoutMap(const LayoutManifest& layout, const SizeCheck& acceptSize,
                                const MemoryBudget& memory, const ReadProgress& progress) {
    using R = Result<LayoutMap>;
    const std::string name = levelZeroName(layout);
    if (Status fits = checkDimensions(layout.width, layout.height); !fits) {
        return R::failure(name + ": " + fits.error());
    }
    if (acceptSize) {
        if (Status accepted = acceptSize(layout.width, layout.height); !accepted) {
            return R::failure(name + ": " + accepted.error());
        }
    }
    if (Status budget = checkMemoryBudget(layout.width, layout.height, kLoadBytesPerSample, memory);
        !budget) {
        return R::failure(name + ": " + budget.error());
    }
    LayoutMap out;
    if (Status described = describeLayoutLevelZero(layout, out.map); !described) {
        return R::failure(described.error());
    }
    out.map.codes.resize(size_t(out.map.sampleCount()));  // not zeroed: the read writes every one
    if (Status read = readLayoutLevelZero(layout, out.map, nullptr, nullptr, progress); !read) {
        return R::failure(read.error());
    }
    Result<TreeSidecar> tree = readLayoutTreeSidecar(layout);
    if (!tree) {
        return R::failure(tree.error());
    }
    out.tree = std::move(tree).value();
    return out;
}

}  // namespace qt
