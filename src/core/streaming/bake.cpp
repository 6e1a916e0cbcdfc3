// Baking a map into its layout (bake.h): each level written through GDAL's GeoTIFF driver in
// strips of one tile row, copied by its COG driver into a Cloud-Optimised GeoTIFF, its tiles'
// checksums taken from the codes written; then the tree sidecar, then layout.json.
#include "core/streaming/bake.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include <cpl_conv.h>
#include <cpl_json.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <gdal_priv.h>

#include "core/base/checksum.h"
#include "core/config.h"
#include "core/io/gdal_inputs.h"
#include "core/io/gdal_raster.h"
#include "core/io/heightmap_gdal.h"
#include "core/io/image_write.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/open_map.h"
#include "core/streaming/own_files.h"
#include "core/streaming/streamed_map.h"
#include "core/terrain/height_pages.h"

namespace qt {

namespace {

namespace fs = std::filesystem;

constexpr const char* kManifest = "layout.json";
constexpr const char* kFormat = "quadterrain layout";
constexpr int kVersion = 1;
constexpr const char* kTreeFile = "tree.qtree";
// A layout.json larger than this is refused before it is read (about 20 bytes a tile: 2^23 tiles).
constexpr uint64_t kMaxManifestBytes = uint64_t(256) << 20;

std::string levelFile(int level) {
    return "heights-" + std::to_string(level) + ".tif";
}

// Files a layout holds: what an earlier bake may have left in the folder.
bool isLayoutFile(const std::string& name) {
    if (name == kManifest || name == kTreeFile || name == std::string(kManifest) + ".part") {
        return true;
    }
    // writeFile's file while it writes the tree (PATH.tmpPID).
    const std::string treeTemp = std::string(kTreeFile) + ".tmp";
    if (name.compare(0, treeTemp.size(), treeTemp) == 0 && name.size() > treeTemp.size() &&
        name.find_first_not_of("0123456789", treeTemp.size()) == std::string::npos) {
        return true;
    }
    const std::string prefix = "heights-";
    if (name.compare(0, prefix.size(), prefix) != 0) {
        return false;
    }
    size_t i = prefix.size();
    const size_t digits = i;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9') {
        ++i;
    }
    const std::string rest = name.substr(i);
    return i > digits && (rest == ".tif" || rest == ".tif.part");
}

// Whether the layout may be written into `folder`: absent (its parent a folder); else empty, or
// an earlier layout (its layout.json names the format, and it holds nothing a layout does not).
Status checkFolder(const std::string& folder) {
    std::error_code error;
    const fs::file_status status = fs::symlink_status(folder, error);
    if (!fs::exists(status)) {
        const fs::path parent = fs::absolute(folder, error).parent_path();
        if (!fs::is_directory(parent, error)) {
            return Status::failure("the layout folder's parent is not a folder");
        }
        return Status();
    }
    if (!fs::is_directory(status)) {
        return Status::failure("the layout's place is not a folder");
    }
    bool empty = true;
    bool ours = false;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
        empty = false;
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file() || entry.is_symlink() || !isLayoutFile(name)) {
            return Status::failure("the folder holds files that are not a layout's (" + name +
                                   "); give an empty or a new folder");
        }
        ours = ours || name == kManifest;
    }
    if (error) {
        return Status::failure("cannot read the layout folder: " + error.message());
    }
    if (!empty && !ours) {
        return Status::failure(
            "the folder holds files but no layout.json; give an empty or a "
            "new folder");
    }
    if (ours) {
        const GdalMessages said;  // a parse error is this function's line, not GDAL's
        CPLJSONDocument manifest;
        if (!manifest.Load((fs::path(folder) / kManifest).string()) ||
            manifest.GetRoot().GetString("format") != kFormat) {
            return Status::failure("the folder's layout.json is not a quadterrain layout's");
        }
    }
    return Status();
}

std::string hex(uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

// A tile's checksum chains its rows of codes, each hashed in the machine's byte order, then mixes.
uint64_t chainCodes(uint64_t h, const uint16_t* codes, int count) {
    return hashWords(h, reinterpret_cast<const unsigned char*>(codes),
                     size_t(count) * sizeof(uint16_t));
}

// Every tile's checksum of a level written row after row.
struct TileSums {
    int tilesX = 0;
    int tilesY = 0;
    std::vector<uint64_t> chain;  // by ty * tilesX + tx, unmixed until finish()

    TileSums(int columns, int rows, int pageSize)
        : tilesX((columns + pageSize - 1) / pageSize),
          tilesY((rows + pageSize - 1) / pageSize),
          chain(size_t(tilesX) * size_t(tilesY), kChecksumSeed) {}
    void addRow(int row, const uint16_t* codes, int columns, int pageSize) {
        const int ty = row / pageSize;
        for (int tx = 0; tx < tilesX; ++tx) {
            const int first = tx * pageSize;
            const int count = std::min(pageSize, columns - first);
            uint64_t& h = chain[size_t(ty) * size_t(tilesX) + size_t(tx)];
            h = chainCodes(h, codes + first, count);
        }
    }
};

using DatasetPtr = GDALDatasetUniquePtr;

// Level `level`'s geotransform: the map's with samples 2^level apart, its origin moved so that
// each level sample's cell is centred where the map's sample lies.
void levelTransform(const double* map, int level, double* out) {
    const double k = double(1 << level);
    out[0] = map[0] - 0.5 * (k - 1.0) * map[1];
    out[1] = map[1] * k;
    out[2] = 0.0;
    out[3] = map[3] - 0.5 * (k - 1.0) * map[5];
    out[4] = 0.0;
    out[5] = map[5] * k;
}

struct Source {
    const Heightmap& map;
    bool hasTransform = false;
    double transform[6] = {0, 1, 0, 0, 0, 1};
    std::string wkt;
};

// Writes level `level` of `pages` as a COG at `path`, its tile checksums into `sums`.
Status writeLevel(const Source& source, const HeightPages& pages, int level,
                  const std::string& path, std::vector<uint64_t>& sums, const GdalMessages& said) {
    const Heightmap& map = source.map;
    const PageLevel& l = pages.level[size_t(level)];
    const int ps = pages.pageSize;
    const std::string part = path + ".part";
    GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
    GDALDriver* cog = GetGDALDriverManager()->GetDriverByName("COG");
    if (gtiff == nullptr || cog == nullptr) {
        return Status::failure("GDAL has no GeoTIFF or COG driver");
    }
    // The GeoTIFF written first goes whatever happens: a failed bake leaves no part behind.
    struct RemovePart {
        const std::string& path;
        ~RemovePart() { std::remove(path.c_str()); }
    } removePart{part};
    const std::string block = std::to_string(ps);
    CPLStringList partOptions;
    partOptions.SetNameValue("TILED", "YES");
    partOptions.SetNameValue("BLOCKXSIZE", block.c_str());
    partOptions.SetNameValue("BLOCKYSIZE", block.c_str());
    partOptions.SetNameValue("SPARSE_OK", "YES");
    {
        DatasetPtr out(
            gtiff->Create(part.c_str(), l.samplesX, l.samplesY, 1, GDT_UInt16, partOptions.List()));
        if (!out) {
            return Status::failure(said.line("GDAL cannot create the level's file"));
        }
        GDALRasterBand* band = out->GetRasterBand(1);
        band->SetScale(map.coding.step);
        band->SetOffset(map.coding.offset);
        if (map.metres) {
            band->SetUnitType("m");
        }
        if (source.hasTransform) {
            double t[6];
            levelTransform(source.transform, level, t);
            out->SetGeoTransform(t);
            if (!source.wkt.empty()) {
                out->SetProjection(source.wkt.c_str());
            }
        }
        GDALRasterBand* mask = nullptr;
        if (map.nodata.holes()) {
            // Inside the file, not a .msk beside it (the COG keeps it inside too).
            const char* was = CPLGetThreadLocalConfigOption("GDAL_TIFF_INTERNAL_MASK", nullptr);
            const std::string kept = was != nullptr ? was : "";
            CPLSetThreadLocalConfigOption("GDAL_TIFF_INTERNAL_MASK", "YES");
            const CPLErr made = out->CreateMaskBand(GMF_PER_DATASET);
            CPLSetThreadLocalConfigOption("GDAL_TIFF_INTERNAL_MASK",
                                          was != nullptr ? kept.c_str() : nullptr);
            if (made != CE_None) {
                return Status::failure(said.line("GDAL cannot make the level's nodata mask"));
            }
            mask = band->GetMaskBand();
        }
        TileSums tiles(l.samplesX, l.samplesY, ps);
        std::vector<uint16_t> strip(size_t(ps) * size_t(l.samplesX));
        std::vector<uint8_t> valid(mask != nullptr ? strip.size() : 0);
        for (int y0 = 0; y0 < l.samplesY; y0 += ps) {
            const int rows = std::min(ps, l.samplesY - y0);
            for (int y = 0; y < rows; ++y) {
                const int row = std::min((y0 + y) << level, map.height - 1);
                uint16_t* codes = strip.data() + size_t(y) * size_t(l.samplesX);
                for (int x = 0; x < l.samplesX; ++x) {
                    const int col = std::min(x << level, map.width - 1);
                    codes[x] = map.codeAt(col, row);
                    if (mask != nullptr) {
                        valid[size_t(y) * size_t(l.samplesX) + size_t(x)] =
                            map.nodata.at(col, row) ? 0 : 255;
                    }
                }
                tiles.addRow(y0 + y, codes, l.samplesX, ps);
            }
            if (band->RasterIO(GF_Write, 0, y0, l.samplesX, rows, strip.data(), l.samplesX, rows,
                               GDT_UInt16, 0, 0) != CE_None ||
                (mask != nullptr && mask->RasterIO(GF_Write, 0, y0, l.samplesX, rows, valid.data(),
                                                   l.samplesX, rows, GDT_Byte, 0, 0) != CE_None)) {
                return Status::failure(said.line("GDAL cannot write the level's samples"));
            }
            // The map's mapped rows read for this strip leave the process.
            const int last = std::min(((y0 + rows - 1) << level) + 1, map.height);
            const int first = std::min(y0 << level, map.height - 1);
            map.codes.dropResident(size_t(first) * size_t(map.width),
                                   size_t(last - first) * size_t(map.width));
        }
        sums.resize(tiles.chain.size());
        std::transform(tiles.chain.begin(), tiles.chain.end(), sums.begin(), mixHash);
        CPLErrorReset();
        out.reset();  // closes: the last blocks written
        if (CPLGetLastErrorType() >= CE_Failure) {
            return Status::failure(said.line("GDAL cannot finish the level's file"));
        }
    }
    DatasetPtr written(GDALDataset::Open(part.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY));
    if (!written) {
        return Status::failure(said.line("GDAL cannot read the level's file back"));
    }
    CPLStringList cogOptions;
    cogOptions.SetNameValue("BLOCKSIZE", block.c_str());
    cogOptions.SetNameValue("COMPRESS", "DEFLATE");
    cogOptions.SetNameValue("PREDICTOR", "YES");
    cogOptions.SetNameValue("OVERVIEWS", "NONE");
    cogOptions.SetNameValue("NUM_THREADS", "ALL_CPUS");
    DatasetPtr copied(
        cog->CreateCopy(path.c_str(), written.get(), FALSE, cogOptions.List(), nullptr, nullptr));
    CPLErrorReset();
    const bool made = copied != nullptr;
    copied.reset();
    written.reset();
    if (!made || CPLGetLastErrorType() >= CE_Failure) {
        return Status::failure(said.line("GDAL cannot write the level as a COG"));
    }
    return Status();
}

// The bytes of the regular file at `path`, its size read first.
Result<std::vector<unsigned char>> readBytes(const std::string& path) {
    uint64_t bytes = 0;
    Result<int> opened = openRegularFile(path, &bytes);
    if (!opened) {
        return Result<std::vector<unsigned char>>::failure(opened.error());
    }
    ::close(opened.value());
    return readFileOfSize(path, bytes);
}

uint64_t bytesChecksum(const std::vector<unsigned char>& bytes) {
    return mixHash(hashWords(kChecksumSeed, bytes.data(), bytes.size()));
}

}  // namespace

uint64_t bakeDiskBytes(int width, int height, int levels, bool mask) {
    const uint64_t perSample = mask ? 3 : 2;
    uint64_t samples = 0;
    for (int level = 0; level < levels; ++level) {
        const int64_t step = int64_t(1) << level;
        samples += uint64_t((width - 1 + step - 1) / step + 1) *
                   uint64_t((height - 1 + step - 1) / step + 1);
    }
    return (samples + uint64_t(width) * uint64_t(height)) * perSample + (uint64_t(16) << 20);
}

Result<BakeSummary> bakeLayout(const std::string& input, const std::string& folder,
                               const BakeOptions& options) {
    using R = Result<BakeSummary>;
    const int pageSize = options.pageSize > 0 ? options.pageSize : kDefaultPageSize;
    if (pageSize < 16 || pageSize > 4096 || (pageSize & (pageSize - 1)) != 0) {
        return R::failure("the page size must be a power of two from 16 to 4096");
    }
    if (Status ready = checkFolder(folder); !ready) {
        return R::failure(ready.error());
    }
    if (!opensStreamed(input, options.load, true)) {
        return R::failure(
            "not a raster the bake reads (a GDAL raster: GeoTIFF, COG, VRT, ...; or a "
            ".r16); gdal_translate makes a GeoTIFF of it");
    }
    Result<StreamedMap> opened = openStreamed(input, options.load, options.leafSize);
    if (!opened) {
        // Its line starts with the input's path, which the caller names.
        const std::string& line = opened.error();
        const std::string named = input + ": ";
        return R::failure(line.compare(0, named.size(), named) == 0 ? line.substr(named.size())
                                                                    : line);
    }
    const StreamedMap& streamed = opened.value();
    const Heightmap& map = streamed.map;
    if (pageSize % streamed.leafSize != 0) {
        return R::failure("the page size must be a multiple of the leaf size (" +
                          std::to_string(streamed.leafSize) + ")");
    }
    if (streamed.sidecarPath.empty() || !fs::exists(streamed.sidecarPath)) {
        return R::failure("its tree could not be saved: " + (streamed.sidecarProblem.empty()
                                                                 ? std::string("no sidecar")
                                                                 : streamed.sidecarProblem));
    }
    registerGdalDrivers();
    GdalMessages said;
    Source source{map, false, {0, 1, 0, 0, 0, 1}, {}};
    if (map.geo.present) {
        // The geotransform and CRS as GDAL reads them from the input itself.
        Result<GdalRaster> raster = openGdalRaster(gdalOpenPath(input), said);
        GDALDataset* dataset = raster ? raster.value().dataset.get() : nullptr;
        if (dataset != nullptr && dataset->GetGeoTransform(source.transform) == CE_None) {
            source.hasTransform = true;
            source.wkt = dataset->GetProjectionRef() != nullptr ? dataset->GetProjectionRef() : "";
        }
    }
    const HeightPages pages = planHeightPages(map.width, map.height, streamed.leafSize, pageSize);
    {
        std::error_code error;
        const std::string dir = fs::is_directory(folder, error)
                                    ? folder
                                    : fs::absolute(folder, error).parent_path().string();
        const uint64_t needs =
            bakeDiskBytes(map.width, map.height, int(pages.level.size()), map.nodata.holes());
        const uint64_t free =
            options.freeDiskBytes ? options.freeDiskBytes(dir) : freeDiskBytes(dir);
        if (free < needs) {
            return R::failure("the layout needs up to " + std::to_string(needs >> 20) +
                              " MiB while it is baked; its disk has " + std::to_string(free >> 20) +
                              " MiB free");
        }
    }
    // A layout of an earlier bake loses its layout.json first: none ever describes files half
    // replaced.
    std::error_code error;
    fs::remove(fs::path(folder) / kManifest, error);
    if (!fs::is_directory(folder, error) && !fs::create_directory(folder, error)) {
        return R::failure("cannot make the layout folder: " + error.message());
    }

    CPLJSONDocument manifest;
    CPLJSONObject root = manifest.GetRoot();
    root.Add("format", kFormat);
    root.Add("version", kVersion);
    root.Add("width", map.width);
    root.Add("height", map.height);
    root.Add("leafSize", streamed.leafSize);
    root.Add("pageSize", pageSize);
    root.Add("levels", int(pages.level.size()));
    CPLJSONObject heights;
    heights.Add("offset", double(map.coding.offset));
    heights.Add("step", double(map.coding.step));
    heights.Add("metres", map.metres);
    heights.Add("minCode", int(map.minCode));
    heights.Add("maxCode", int(map.maxCode));
    root.Add("heights", heights);
    CPLJSONObject nodata;
    nodata.Add("samples", GInt64(map.nodata.samples));
    nodata.Add("share", map.nodata.share());
    nodata.Add("holes", map.nodata.holes());
    root.Add("nodata", nodata);
    if (source.hasTransform) {
        CPLJSONObject geo;
        CPLJSONArray transform;
        for (double v : source.transform) {
            transform.Add(v);
        }
        geo.Add("geoTransform", transform);
        geo.Add("wkt", source.wkt);
        root.Add("georeference", geo);
    }

    BakeSummary summary;
    summary.width = map.width;
    summary.height = map.height;
    summary.leafSize = streamed.leafSize;
    summary.pageSize = pageSize;
    summary.levels = int(pages.level.size());
    CPLJSONArray levels;
    for (int level = 0; level < int(pages.level.size()); ++level) {
        const std::string name = levelFile(level);
        const std::string path = (fs::path(folder) / name).string();
        std::vector<uint64_t> sums;
        if (Status written = writeLevel(source, pages, level, path, sums, said); !written) {
            return R::failure(name + ": " + written.error());
        }
        const PageLevel& l = pages.level[size_t(level)];
        CPLJSONObject entry;
        entry.Add("file", name);
        entry.Add("columns", l.samplesX);
        entry.Add("rows", l.samplesY);
        entry.Add("tilesX", (l.samplesX + pageSize - 1) / pageSize);
        entry.Add("tilesY", (l.samplesY + pageSize - 1) / pageSize);
        CPLJSONArray tiles;
        for (uint64_t sum : sums) {
            tiles.Add(hex(sum));
        }
        entry.Add("tiles", tiles);
        levels.Add(entry);
        summary.tiles += int64_t(sums.size());
        summary.bytes += uint64_t(fs::file_size(path, error));
    }
    root.Add("files", levels);

    Result<std::vector<unsigned char>> tree = readBytes(streamed.sidecarPath);
    const std::string treePath = (fs::path(folder) / kTreeFile).string();
    if (!tree) {
        return R::failure("its tree sidecar " + tree.error());
    }
    if (Status written = writeFile(treePath, tree.value().data(), tree.value().size()); !written) {
        return R::failure(written.error());
    }
    CPLJSONObject treeEntry;
    treeEntry.Add("file", kTreeFile);
    treeEntry.Add("bytes", GInt64(tree.value().size()));
    treeEntry.Add("checksum", hex(bytesChecksum(tree.value())));
    root.Add("tree", treeEntry);
    summary.bytes += tree.value().size();

    const std::string manifestPath = (fs::path(folder) / kManifest).string();
    const std::string partPath = manifestPath + ".part";
    if (!manifest.Save(partPath)) {
        return R::failure("cannot write layout.json");
    }
    fs::rename(partPath, manifestPath, error);
    if (error) {
        return R::failure("cannot write layout.json: " + error.message());
    }
    summary.bytes += uint64_t(fs::file_size(manifestPath, error));
    summary.sidecar = streamed.sidecarPath;
    summary.cacheBytes = tree.value().size();
    if (!streamed.cachePath.empty() && streamed.codes != CodeSource::CacheNotKept) {
        summary.codeCache = streamed.cachePath;
        summary.cacheBytes += uint64_t(fs::file_size(streamed.cachePath, error));
    }
    return summary;
}

namespace {

// `name` in the layout `folder` (a path or a URL), as the program names it.
std::string inLayout(const std::string& folder, const std::string& name) {
    std::string base = folder;
    while (base.size() > 1 && base.back() == '/') {
        base.pop_back();
    }
    return base + "/" + name;
}

// The same as GDAL opens it (a URL through /vsicurl/).
std::string gdalInLayout(const std::string& folder, const std::string& name) {
    return networkGdalPath(inLayout(folder, name));
}

}  // namespace

namespace {

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
    std::vector<unsigned char> bytes(static_cast<size_t>(expected));
    const size_t read = VSIFReadL(bytes.data(), 1, bytes.size(), file);
    VSIFCloseL(file);
    if (read != bytes.size()) {
        return R::failure("cut short");
    }
    return bytes;
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
        return VSIStatL(gdalInLayout(path, kManifest).c_str(), &info) == 0 &&
               VSI_ISREG(info.st_mode);
    }
    std::error_code error;
    return fs::is_directory(path, error) && fs::is_regular_file(fs::path(path) / kManifest, error);
}

std::string whyNotALayout(const std::string& path) {
    registerGdalDrivers();
    const Status manifest = checkGdalInputs(gdalInLayout(path, kManifest));
    return std::string("a URL without an extension names a layout's folder, and its layout.json ") +
           (manifest ? "is not a file" : manifest.error());
}

std::string layoutLevelPath(const std::string& folder, int level) {
    return inLayout(folder, levelFile(level));
}

Status verifyLayout(const std::string& folder, LayoutCheck what) {
    registerGdalDrivers();
    GdalMessages said;  // GDAL's own messages (a JSON parse error) kept, not printed
    CPLJSONDocument manifest;
    const std::string manifestPath = gdalInLayout(folder, kManifest);
    // A regular file of a size a layout's manifest can have, before it is read.
    VSIStatBufL info;
    if (VSIStatL(manifestPath.c_str(), &info) != 0 || !VSI_ISREG(info.st_mode)) {
        return Status::failure("layout.json: missing, or not a file");
    }
    if (uint64_t(info.st_size) > kMaxManifestBytes) {
        return Status::failure("layout.json: larger than a layout's (" +
                               std::to_string(uint64_t(info.st_size) >> 20) + " MiB)");
    }
    if (!manifest.Load(manifestPath)) {
        return Status::failure("layout.json: not JSON");
    }
    const CPLJSONObject root = manifest.GetRoot();
    if (root.GetString("format") != kFormat || root.GetInteger("version") != kVersion) {
        return Status::failure("layout.json: not a quadterrain layout of version " +
                               std::to_string(kVersion));
    }
    const int pageSize = root.GetInteger("pageSize");
    if (pageSize < 16 || pageSize > 4096 || (pageSize & (pageSize - 1)) != 0) {
        return Status::failure("layout.json: a page size that is not a power of two, 16 to 4096");
    }
    const CPLJSONArray levels = root.GetArray("files");
    if (!levels.IsValid() || levels.Size() != root.GetInteger("levels")) {
        return Status::failure("layout.json: its levels do not match its files");
    }
    std::vector<uint16_t> tile(size_t(pageSize) * size_t(pageSize));
    const int checked = what == LayoutCheck::LevelZero ? std::min(1, levels.Size()) : levels.Size();
    for (int level = 0; level < checked; ++level) {
        const CPLJSONObject entry = levels[level];
        const std::string name = entry.GetString("file");
        if (name != levelFile(level)) {
            return Status::failure("layout.json: level " + std::to_string(level) + " names " +
                                   name);
        }
        // Opened as a map's raster is: regular files only, one band, its size checked.
        Result<GdalRaster> raster = openGdalRaster(gdalInLayout(folder, name), said);
        if (!raster) {
            return Status::failure(name + ": " + raster.error());
        }
        const int columns = entry.GetInteger("columns");
        const int rows = entry.GetInteger("rows");
        GDALRasterBand* band = raster.value().band;
        int blockX = 0, blockY = 0;
        band->GetBlockSize(&blockX, &blockY);
        if (raster.value().width != columns || raster.value().height != rows ||
            band->GetRasterDataType() != GDT_UInt16 || blockX != pageSize || blockY != pageSize) {
            return Status::failure(name + ": its size, type or tiles are not layout.json's");
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
                if (band->RasterIO(GF_Read, tx * pageSize, ty * pageSize, w, h, tile.data(), w, h,
                                   GDT_UInt16, 0, 0) != CE_None) {
                    return Status::failure(name + ": " + said.line("a tile cannot be read"));
                }
                // Row after row, as the bake chained them.
                uint64_t chain = kChecksumSeed;
                for (int y = 0; y < h; ++y) {
                    chain = chainCodes(chain, tile.data() + size_t(y) * w, w);
                }
                const uint64_t sum = mixHash(chain);
                if (tiles[ty * tilesX + tx].ToString() != hex(sum)) {
                    return Status::failure(name + ": tile (" + std::to_string(tx) + ", " +
                                           std::to_string(ty) + ") does not match its checksum");
                }
            }
        }
    }
    if (what == LayoutCheck::LevelZero) {
        return Status();
    }
    const CPLJSONObject treeEntry = root.GetObj("tree");
    const GInt64 treeBytes = treeEntry.GetLong("bytes", -1);
    if (treeBytes < 0) {
        return Status::failure("layout.json: the tree's size is missing");
    }
    // Its size held to layout.json's before anything is read.
    Result<std::vector<unsigned char>> tree =
        readLayoutFile(gdalInLayout(folder, kTreeFile), uint64_t(treeBytes));
    if (!tree) {
        return Status::failure(std::string(kTreeFile) + ": " + tree.error());
    }
    if (hex(bytesChecksum(tree.value())) != treeEntry.GetString("checksum")) {
        return Status::failure(std::string(kTreeFile) + ": does not match its checksum");
    }
    return Status();
}

}  // namespace qt
