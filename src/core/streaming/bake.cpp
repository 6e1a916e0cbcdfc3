// Baking a map into its layout (bake.h): the input read by regions on every core, each region's
// tiles written into its levels' GeoTIFFs and its nodes' errors into the tree; the levels above
// the regions' from the regions' highest; each level then copied by GDAL's COG driver into a
// Cloud-Optimised GeoTIFF; then the tree, then layout.json.
#include "core/streaming/bake.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
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
#include "core/lod/lod_error.h"
#include "core/streaming/bake_input.h"
#include "core/streaming/code_cache.h"
#include "core/streaming/open_map.h"
#include "core/streaming/own_files.h"
#include "core/streaming/streamed_map.h"
#include "core/streaming/tree_sidecar.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/quadtree.h"

namespace qt {

namespace {

namespace fs = std::filesystem;

// A bake by jobs: its plan, and a folder of each region's files.
constexpr const char* kPlanFile = "plan.json";
constexpr const char* kPlanFormat = "quadterrain bake plan";
constexpr const char* kRegionsDir = "regions";
constexpr const char* kRegionManifest = "region.json";
constexpr const char* kRegionFormat = "quadterrain bake region";
constexpr const char* kRegionTree = "tree.part";
// GDAL's block cache while regions are read and written.
constexpr int64_t kBakeGdalCacheBytes = int64_t(64) << 20;
// A plan.json or region.json larger than this is refused before it is read (a plan is mostly its
// CRS's WKT; a region's checksums take about 20 bytes a tile).
constexpr uint64_t kMaxPlanBytes = uint64_t(16) << 20;

// Whether `name` is writeFile's file while it writes `file` (FILE.tmpPID).
bool isTempOf(const std::string& name, const std::string& file) {
    const std::string temp = file + ".tmp";
    return name.compare(0, temp.size(), temp) == 0 && name.size() > temp.size() &&
           name.find_first_not_of("0123456789", temp.size()) == std::string::npos;
}

// Files a layout holds: what an earlier bake may have left in the folder.
bool isLayoutFile(const std::string& name) {
    for (const char* file : {kLayoutManifest, kLayoutTree, kPlanFile}) {
        if (name == file || name == std::string(file) + ".part" || isTempOf(name, file)) {
            return true;
        }
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
    return i > digits &&
           (rest == ".tif" || rest == ".tif.part" || rest == ".vrt" || isTempOf(rest, ".vrt"));
}

// The JSON file at `path` of at most maxBytes, its size checked before it is read; `what` names
// it in the failure.
Result<CPLJSONDocument> readSmallJson(const std::string& path, const std::string& what,
                                      uint64_t maxBytes = kMaxPlanBytes) {
    using R = Result<CPLJSONDocument>;
    std::error_code error;
    if (!fs::is_regular_file(path, error)) {
        return R::failure(what + ": missing, or not a file");
    }
    if (fs::file_size(path, error) > maxBytes) {
        return R::failure(what + ": larger than a bake's");
    }
    const GdalMessages said;  // a parse error is this line, not GDAL's
    CPLJSONDocument document;
    if (!document.Load(path)) {
        return R::failure(what + ": not JSON");
    }
    return document;
}

// Whether a file of ours at `path` (of at most maxBytes) is JSON naming `format`.
bool namesFormat(const std::string& path, const char* format, uint64_t maxBytes) {
    const Result<CPLJSONDocument> document = readSmallJson(path, path, maxBytes);
    return document && document.value().GetRoot().GetString("format") == format;
}

// Whether the layout may be written into `folder`: absent (its parent a folder); else empty, or
// an earlier layout (its layout.json names the format, and it holds nothing a layout does not).
// A bake by jobs (`jobs`) writes into a folder of its plan (plan.json and regions/, joined or
// not), and a whole bake never does.
Status checkFolder(const std::string& folder, bool jobs) {
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
    bool manifest = false;
    bool plan = false;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
        empty = false;
        const std::string name = entry.path().filename().string();
        const bool regions = name == kRegionsDir && entry.is_directory() && !entry.is_symlink();
        if (!regions && (!entry.is_regular_file() || entry.is_symlink() || !isLayoutFile(name))) {
            return Status::failure("the folder holds files that are not a layout's (" + name +
                                   "); give an empty or a new folder");
        }
        manifest = manifest || name == kLayoutManifest;
        plan = plan || name == kPlanFile || isTempOf(name, kPlanFile) || regions;
    }
    if (error) {
        return Status::failure("cannot read the layout folder: " + error.message());
    }
    if (!empty && !manifest && !plan) {
        return Status::failure(
            "the folder holds files but no layout.json; give an empty or a "
            "new folder");
    }
    if (manifest && !namesFormat((fs::path(folder) / kLayoutManifest).string(), kLayoutFormat,
                                 kMaxLayoutManifestBytes)) {
        return Status::failure("the folder's layout.json is not a quadterrain layout's");
    }
    if (plan && !jobs) {
        return Status::failure(
            "the folder holds a bake by jobs (plan.json, regions/): join it (--join), or give "
            "an empty or a new folder");
    }
    if (manifest && !plan && jobs) {
        return Status::failure(
            "the folder holds a layout baked whole; give an empty or a new folder to a bake by "
            "jobs");
    }
    return Status();
}

using DatasetPtr = GDALDatasetUniquePtr;

// Level `level`'s geotransform: the map's with samples 2^level apart, its origin moved so that
// each level sample's cell is centred where the map's sample lies; for a window of the level from
// its sample (x, y) (a region's file), moved there.
void levelTransform(const double* map, int level, int x, int y, double* out) {
    const double k = double(1 << level);
    out[0] = map[0] - 0.5 * (k - 1.0) * map[1] + double(x) * k * map[1];
    out[1] = map[1] * k;
    out[2] = 0.0;
    out[3] = map[3] - 0.5 * (k - 1.0) * map[5] + double(y) * k * map[5];
    out[4] = 0.0;
    out[5] = map[5] * k;
}

// A level's file while it is written: a tiled GeoTIFF in tiles of the page size, written by
// windows (regions' parts, in any order), then copied into its COG.
class LevelFile {
public:
    // The level's file of columns x rows samples, or a region's window of it from the level's
    // sample (x, y).
    Status create(const BakeInput& input, int level, int columns, int rows, int pageSize,
                  int threads, const std::string& path, const GdalMessages& said, int x = 0,
                  int y = 0) {
        path_ = path;
        threads_ = threads;
        part_ = path + ".part";
        pageSize_ = pageSize;
        GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
        if (gtiff == nullptr) {
            return Status::failure("GDAL has no GeoTIFF driver");
        }
        const std::string block = std::to_string(pageSize);
        CPLStringList options;
        options.SetNameValue("TILED", "YES");
        options.SetNameValue("BLOCKXSIZE", block.c_str());
        options.SetNameValue("BLOCKYSIZE", block.c_str());
        options.SetNameValue("SPARSE_OK", "YES");
        out_.reset(gtiff->Create(part_.c_str(), columns, rows, 1, GDT_UInt16, options.List()));
        if (!out_) {
            return Status::failure(said.line("GDAL cannot create the level's file"));
        }
        band_ = out_->GetRasterBand(1);
        band_->SetScale(input.coding.step);
        band_->SetOffset(input.coding.offset);
        if (input.metres) {
            band_->SetUnitType("m");
        }
        if (input.hasTransform) {
            double t[6];
            levelTransform(input.transform, level, x, y, t);
            out_->SetGeoTransform(t);
            if (!input.wkt.empty()) {
                out_->SetProjection(input.wkt.c_str());
            }
        }
        if (input.nodataSamples > 0) {
            // Inside the file, not a .msk beside it (the COG keeps it inside too).
            const char* was = CPLGetThreadLocalConfigOption("GDAL_TIFF_INTERNAL_MASK", nullptr);
            const std::string kept = was != nullptr ? was : "";
            CPLSetThreadLocalConfigOption("GDAL_TIFF_INTERNAL_MASK", "YES");
            const CPLErr made = out_->CreateMaskBand(GMF_PER_DATASET);
            CPLSetThreadLocalConfigOption("GDAL_TIFF_INTERNAL_MASK",
                                          was != nullptr ? kept.c_str() : nullptr);
            if (made != CE_None) {
                return Status::failure(said.line("GDAL cannot make the level's nodata mask"));
            }
            mask_ = band_->GetMaskBand();
        }
        return Status();
    }

    // Writes a window of codes (and of the mask, when the level has one: 255 given, 0 a hole).
    Status write(int x, int y, int w, int h, const uint16_t* codes, const uint8_t* valid) {
        const GdalMessages said;  // on the region's thread
        if (band_->RasterIO(GF_Write, x, y, w, h, const_cast<uint16_t*>(codes), w, h, GDT_UInt16, 0,
                            0) != CE_None ||
            (mask_ != nullptr && mask_->RasterIO(GF_Write, x, y, w, h, const_cast<uint8_t*>(valid),
                                                 w, h, GDT_Byte, 0, 0) != CE_None)) {
            return Status::failure(said.line("GDAL cannot write the level's samples"));
        }
        return Status();
    }

    // Closes the GeoTIFF and copies it into the level's COG; the GeoTIFF goes whatever happens.
    Status finish(const GdalMessages& said) {
        struct RemovePart {
            const std::string& path;
            ~RemovePart() { std::remove(path.c_str()); }
        } removePart{part_};
        CPLErrorReset();
        out_.reset();  // closes: the last blocks written
        if (CPLGetLastErrorType() >= CE_Failure) {
            return Status::failure(said.line("GDAL cannot finish the level's file"));
        }
        GDALDriver* cog = GetGDALDriverManager()->GetDriverByName("COG");
        if (cog == nullptr) {
            return Status::failure("GDAL has no COG driver");
        }
        DatasetPtr written(GDALDataset::Open(part_.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY));
        if (!written) {
            return Status::failure(said.line("GDAL cannot read the level's file back"));
        }
        const std::string block = std::to_string(pageSize_);
        CPLStringList options;
        options.SetNameValue("BLOCKSIZE", block.c_str());
        options.SetNameValue("COMPRESS", "DEFLATE");
        options.SetNameValue("PREDICTOR", "YES");
        options.SetNameValue("OVERVIEWS", "NONE");
        options.SetNameValue("NUM_THREADS", std::to_string(threads_).c_str());
        DatasetPtr copied(
            cog->CreateCopy(path_.c_str(), written.get(), FALSE, options.List(), nullptr, nullptr));
        CPLErrorReset();
        const bool made = copied != nullptr;
        copied.reset();
        written.reset();
        if (!made || CPLGetLastErrorType() >= CE_Failure) {
            return Status::failure(said.line("GDAL cannot write the level as a COG"));
        }
        return Status();
    }

    // Removes the GeoTIFF of a bake that failed before finish.
    ~LevelFile() {
        if (out_) {
            out_.reset();
            std::remove(part_.c_str());
        }
    }

private:
    std::string path_;
    std::string part_;
    int pageSize_ = 0;
    int threads_ = 1;  // compressing the COG's tiles
    DatasetPtr out_;
    GDALRasterBand* band_ = nullptr;
    GDALRasterBand* mask_ = nullptr;
};

// The checksums of the tiles of a window of a level whose corner (x, y) is a tile's corner, with
// its mask (`valid`, the same layout; null without holes): tileChecksum of each into
// sums[ty * tilesX + tx].
void windowTileSums(const uint16_t* codes, const uint8_t* valid, int x, int y, int w, int h,
                    int pageSize, int tilesX, uint64_t* sums) {
    const auto at = [&](int tx, int ty) {
        return size_t(ty * pageSize) * size_t(w) + size_t(tx * pageSize);
    };
    for (int ty = 0; ty * pageSize < h; ++ty) {
        for (int tx = 0; tx * pageSize < w; ++tx) {
            const int columns = std::min(pageSize, w - tx * pageSize);
            const int rows = std::min(pageSize, h - ty * pageSize);
            sums[size_t(y / pageSize + ty) * size_t(tilesX) + size_t(x / pageSize + tx)] =
                tileChecksum(codes + at(tx, ty), valid != nullptr ? valid + at(tx, ty) : nullptr,
                             columns, rows, size_t(w));
        }
    }
}

// What the regions share while they are baked. Regions are squares of regionSize map squares,
// which is pageSize << regionPages and leafSize << regionNodes: each holds whole tiles of levels
// 0..regionPages and whole nodes of tree levels 0..regionNodes, so that a region's work reads
// only its own samples (and the row and column it shares with the next) and writes only its own
// tiles' and nodes' entries.
struct Bake {
    Bake(const BakeInput& input_, const HeightPages& pages_, const Quadtree& tree_,
         std::vector<LevelFile>& files_, std::vector<std::vector<uint64_t>>& sums_,
         TreeSidecar& saved_)
        : input(input_), pages(pages_), tree(tree_), files(files_), sums(sums_), saved(saved_) {}

    const BakeInput& input;
    const HeightPages& pages;
    const Quadtree& tree;
    int regionSize = 0;
    int regionPages = 0;  // the highest level whose tiles regions write (at most the last level)
    int regionNodes = 0;  // the highest tree level whose nodes regions hold whole
    int exactLevels = 0;  // tree levels 1..exactLevels (min(regionNodes, depth)) are exact
    int regionsX = 0;
    int regionsZ = 0;
    std::vector<LevelFile>& files;
    std::vector<std::vector<uint64_t>>& sums;
    TreeSidecar& saved;
    // Level regionPages whole, when levels above it are made from it.
    std::vector<uint16_t> topCodes;
    std::vector<uint8_t> topValid;
    std::mutex writing;  // GDAL writes one dataset from one thread at a time
    std::mutex failing;  // the failure, and the progress calls
    std::string failure;
    std::atomic<bool> failed{false};
    std::atomic<int> next{0};
    int firstRegion = 0;  // regions firstRegion..endRegion - 1 are baked (next: the next one)
    int endRegion = 0;
    std::function<void(int, int)> progress;
    int done = 0;  // regions baked, under `failing`
    // A job of a bake by jobs: each region's files go to its folder in `regionsDir`, with the
    // checksum of the plan (planText's) they were baked by. "": the level files.
    std::string regionsDir;
    std::string planSum;

    void fail(const std::string& why) {
        const std::lock_guard<std::mutex> lock(failing);
        if (failure.empty()) {
            failure = why;
        }
        failed = true;
    }
};

// The leaves' code ranges of a region, from its window, into `out` row after row of the block.
void regionLeafRanges(const CodeGrid& grid, const Quadtree& tree, const NodeBlock& leaves,
                      CodeRange* out) {
    const auto columns = size_t(leaves.lastCol - leaves.firstCol);
    const int ls = tree.leafSize;
    for (int lz = leaves.firstRow; lz < leaves.lastRow; ++lz) {
        const int z1 = std::min(lz * ls + ls, grid.height - 1);
        for (int lx = leaves.firstCol; lx < leaves.lastCol; ++lx) {
            const int x1 = std::min(lx * ls + ls, grid.width - 1);
            uint16_t lo = 0xFFFF, hi = 0;
            for (int z = lz * ls; z <= z1; ++z) {
                for (int x = lx * ls; x <= x1; ++x) {
                    const uint16_t code = grid.codeAt(x, z);
                    lo = std::min(lo, code);
                    hi = std::max(hi, code);
                }
            }
            out[size_t(lz - leaves.firstRow) * columns + size_t(lx - leaves.firstCol)] = {lo, hi};
        }
    }
}

// The block of tree level `level`'s grid inside region (rx, rz).
NodeBlock regionNodes(const Bake& bake, int level, int rx, int rz) {
    const int shift = bake.regionNodes - level;
    const int columns = level == 0 ? bake.tree.leavesX : int(bake.tree.levelWidth[size_t(level)]);
    const int rows = ((bake.tree.leavesZ - 1) >> level) + 1;
    return {rx << shift, std::min((rx + 1) << shift, columns), rz << shift,
            std::min((rz + 1) << shift, rows)};
}

// A region's window of a level: its samples [x, x + w) x [y, y + h).
struct LevelWindow {
    int x = 0;
    int y = 0;
    int w = 0;
    int h = 0;
};

// Region (rx, rz)'s window of level `level` (at most regionPages): span = regionSize / 2^level
// samples a side, whole tiles; the last region of a row (or column) holds the level's last
// sample too, which lies on the map's last column (row) even where that is a region's edge.
LevelWindow regionWindow(const Bake& bake, int level, int rx, int rz) {
    const PageLevel& l = bake.pages.level[size_t(level)];
    const int span = bake.regionSize >> level;
    LevelWindow window;
    window.x = rx * span;
    window.y = rz * span;
    window.w =
        (rx == bake.regionsX - 1 ? l.samplesX : std::min(window.x + span, l.samplesX)) - window.x;
    window.h =
        (rz == bake.regionsZ - 1 ? l.samplesY : std::min(window.y + span, l.samplesY)) - window.y;
    return window;
}

// Calls visit(bytes, count) on each run of region (rx, rz)'s entries of the tree's arrays in
// `saved`, as bytes, in the order a region's tree part holds them: its leaves' ranges row by row,
// their fold errors, then levels 1..exactLevels' coarse and fold errors row by row.
template <class Visit>
void regionTreeRuns(const Bake& bake, int rx, int rz, Visit visit) {
    const Quadtree& tree = bake.tree;
    TreeSidecar& saved = bake.saved;
    const auto run = [&visit](auto* values, size_t count) {
        visit(reinterpret_cast<unsigned char*>(values), count * sizeof(*values));
    };
    const NodeBlock leaves = regionNodes(bake, 0, rx, rz);
    const auto columns = size_t(leaves.lastCol - leaves.firstCol);
    for (int row = leaves.firstRow; row < leaves.lastRow; ++row) {
        run(saved.leafRanges.data() + size_t(row) * size_t(tree.leavesX) + size_t(leaves.firstCol),
            columns);
    }
    if (bake.exactLevels > 0) {
        for (int row = leaves.firstRow; row < leaves.lastRow; ++row) {
            run(saved.leafFoldErrors.data() + size_t(row) * size_t(tree.leavesX) +
                    size_t(leaves.firstCol),
                columns);
        }
    }
    for (int level = 1; level <= bake.exactLevels; ++level) {
        const NodeBlock block = regionNodes(bake, level, rx, rz);
        for (std::vector<uint16_t>* errors : {&saved.coarseErrors, &saved.foldErrors}) {
            for (int row = block.firstRow; row < block.lastRow; ++row) {
                run(errors->data() + tree.levelStart[size_t(level)] +
                        size_t(row) * tree.levelWidth[size_t(level)] + size_t(block.firstCol),
                    size_t(block.lastCol - block.firstCol));
            }
        }
    }
}

// Appends the bytes of `values` to `part`.
template <class T>
void appendBytes(std::vector<unsigned char>& part, const std::vector<T>& values) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
    part.insert(part.end(), bytes, bytes + values.size() * sizeof(T));
}

// Region (rx, rz)'s tree part from its window, in regionTreeRuns' order (each block row after
// row): its leaves' ranges and fold errors, levels 1..exactLevels' coarse and fold errors.
void regionTreePart(const Bake& bake, const CodeGrid& grid, int rx, int rz,
                    std::vector<unsigned char>& part) {
    part.clear();
    const auto count = [](const NodeBlock& b) {
        return size_t(b.lastCol - b.firstCol) * size_t(b.lastRow - b.firstRow);
    };
    const NodeBlock leaves = regionNodes(bake, 0, rx, rz);
    std::vector<CodeRange> ranges(count(leaves));
    regionLeafRanges(grid, bake.tree, leaves, ranges.data());
    appendBytes(part, ranges);
    std::vector<uint16_t> errors, folds;
    if (bake.exactLevels > 0) {
        folds.assign(count(leaves), 0);
        exactErrorsOfBlock(grid, bake.tree, 0, leaves, nullptr, folds.data(), true);
        appendBytes(part, folds);
    }
    for (int level = 1; level <= bake.exactLevels; ++level) {
        const NodeBlock block = regionNodes(bake, level, rx, rz);
        errors.assign(count(block), 0);
        folds.assign(count(block), 0);
        exactErrorsOfBlock(grid, bake.tree, level, block, errors.data(), folds.data(), true);
        appendBytes(part, errors);
        appendBytes(part, folds);
    }
}

// Copies a region's tree part into the tree's arrays in `saved`.
void scatterTreePart(const Bake& bake, int rx, int rz, const unsigned char* part) {
    size_t offset = 0;
    regionTreeRuns(bake, rx, rz, [part, &offset](unsigned char* to, size_t n) {
        std::copy_n(part + offset, n, to);
        offset += n;
    });
}

// Region (rx, rz)'s folder in a bake by jobs.
std::string regionFolder(const std::string& regionsDir, int rx, int rz) {
    return (fs::path(regionsDir) / (std::to_string(rx) + "-" + std::to_string(rz))).string();
}

// Writes a region's tree part and region.json (last: a region without one is not baked).
Status writeRegionManifest(const Bake& bake, int rx, int rz,
                           const std::vector<std::vector<uint64_t>>& tileSums,
                           const std::vector<unsigned char>& part) {
    const std::string dir = regionFolder(bake.regionsDir, rx, rz);
    if (Status wrote = writeFile((fs::path(dir) / kRegionTree).string(), part.data(), part.size());
        !wrote) {
        return wrote;
    }
    CPLJSONDocument manifest;
    CPLJSONObject root = manifest.GetRoot();
    root.Add("format", kRegionFormat);
    root.Add("plan", bake.planSum);
    CPLJSONArray region;
    region.Add(rx);
    region.Add(rz);
    root.Add("region", region);
    CPLJSONArray levels;
    for (const std::vector<uint64_t>& sums : tileSums) {
        CPLJSONArray tiles;
        for (uint64_t sum : sums) {
            tiles.Add(checksumHex(sum));
        }
        levels.Add(tiles);
    }
    root.Add("tiles", levels);
    CPLJSONObject treePart;
    treePart.Add("bytes", GInt64(part.size()));
    treePart.Add("checksum",
                 checksumHex(mixHash(hashWords(kChecksumSeed, part.data(), part.size()))));
    root.Add("tree", treePart);
    const std::string text = manifest.SaveAsString();
    return writeFile((fs::path(dir) / kRegionManifest).string(), text.data(), text.size());
}

// Bakes region (rx, rz): reads its window, takes its leaves' ranges and its nodes' exact errors,
// and writes its tiles of levels 0..regionPages with their checksums.
Status bakeRegion(Bake& bake, WindowReader& reader, int rx, int rz, std::vector<uint16_t>& codes,
                  std::vector<uint8_t>& valid, std::vector<uint16_t>& levelCodes,
                  std::vector<uint8_t>& levelValid, std::vector<unsigned char>& part) {
    const BakeInput& input = bake.input;
    const int width = input.width;
    const int height = input.height;
    const int x0 = rx * bake.regionSize;
    const int z0 = rz * bake.regionSize;
    const int w = std::min(x0 + bake.regionSize, width - 1) - x0 + 1;
    const int h = std::min(z0 + bake.regionSize, height - 1) - z0 + 1;
    const bool masked = input.nodataSamples > 0;
    codes.resize(size_t(w) * size_t(h));
    valid.resize(masked ? codes.size() : 0);
    const Result<int64_t> read =
        reader.read(x0, z0, w, h, codes.data(), masked ? valid.data() : nullptr);
    if (!read) {
        return Status::failure(read.error());
    }
    if (!masked && read.value() > 0) {
        return Status::failure(
            "a region holds voids its plan did not count: the input changed "
            "since its plan was made");
    }
    const CodeGrid grid{codes.data(), width, height, x0, z0, size_t(w)};
    // The region's part of the tree: a job writes it as it is, a whole bake copies it into the
    // tree's arrays (each region's entries its own).
    regionTreePart(bake, grid, rx, rz, part);
    const bool jobs = !bake.regionsDir.empty();
    if (!jobs) {
        scatterTreePart(bake, rx, rz, part.data());
    }
    const int ps = bake.pages.pageSize;
    const std::string dir = jobs ? regionFolder(bake.regionsDir, rx, rz) : std::string();
    std::vector<std::vector<uint64_t>> regionSums;
    if (jobs) {
        // A region baked again loses its region.json first: none ever vouches for files half
        // replaced.
        std::error_code error;
        fs::remove(fs::path(dir) / kRegionManifest, error);
        fs::create_directories(dir, error);
        if (!fs::is_directory(dir, error)) {
            return Status::failure("cannot make a region's folder in regions/");
        }
    }
    for (int level = 0; level <= bake.regionPages; ++level) {
        const PageLevel& l = bake.pages.level[size_t(level)];
        const LevelWindow window = regionWindow(bake, level, rx, rz);
        const int cx = window.x, cz = window.y, cw = window.w, ch = window.h;
        levelCodes.resize(size_t(cw) * size_t(ch));
        levelValid.resize(masked ? levelCodes.size() : 0);
        for (int r = 0; r < ch; ++r) {
            const int row = std::min((cz + r) << level, height - 1) - z0;
            for (int c = 0; c < cw; ++c) {
                const int col = std::min((cx + c) << level, width - 1) - x0;
                const size_t from = size_t(row) * size_t(w) + size_t(col);
                const size_t to = size_t(r) * size_t(cw) + size_t(c);
                levelCodes[to] = codes[from];
                if (masked) {
                    levelValid[to] = valid[from];
                }
            }
        }
        if (!jobs) {
            windowTileSums(levelCodes.data(), masked ? levelValid.data() : nullptr, cx, cz, cw, ch,
                           ps, (l.samplesX + ps - 1) / ps, bake.sums[size_t(level)].data());
        }
        if (level == bake.regionPages && !bake.topCodes.empty()) {
            for (int r = 0; r < ch; ++r) {
                const size_t to = size_t(cz + r) * size_t(l.samplesX) + size_t(cx);
                std::copy_n(levelCodes.data() + size_t(r) * size_t(cw), cw,
                            bake.topCodes.data() + to);
                if (masked) {
                    std::copy_n(levelValid.data() + size_t(r) * size_t(cw), cw,
                                bake.topValid.data() + to);
                }
            }
        }
        if (jobs) {
            // The region's own COG of the level, its tiles' checksums by its own tile grid.
            const int tilesX = (cw + ps - 1) / ps;
            regionSums.emplace_back(size_t(tilesX) * size_t((ch + ps - 1) / ps), 0);
            windowTileSums(levelCodes.data(), masked ? levelValid.data() : nullptr, 0, 0, cw, ch,
                           ps, tilesX, regionSums.back().data());
            const GdalMessages said;  // on the region's thread
            const std::string name = layoutLevelFile(level);
            LevelFile file;
            Status wrote = file.create(bake.input, level, cw, ch, ps, 1,
                                       (fs::path(dir) / name).string(), said, cx, cz);
            if (wrote) {
                wrote = file.write(0, 0, cw, ch, levelCodes.data(),
                                   masked ? levelValid.data() : nullptr);
            }
            if (wrote) {
                wrote = file.finish(said);
            }
            if (!wrote) {
                return Status::failure("regions/" + std::to_string(rx) + "-" + std::to_string(rz) +
                                       "/" + name + ": " + wrote.error());
            }
            continue;
        }
        const std::lock_guard<std::mutex> lock(bake.writing);
        if (Status wrote = bake.files[size_t(level)].write(cx, cz, cw, ch, levelCodes.data(),
                                                           masked ? levelValid.data() : nullptr);
            !wrote) {
            return wrote;
        }
    }
    if (jobs) {
        if (Status wrote = writeRegionManifest(bake, rx, rz, regionSums, part); !wrote) {
            return wrote;
        }
    }
    return Status();
}

// A thread's share of the regions: the next one not taken, until none is left or one failed.
void bakeRegions(Bake& bake) {
    Result<WindowReader> reader = WindowReader::open(bake.input);
    if (!reader) {
        bake.fail(reader.error());
        return;
    }
    std::vector<uint16_t> codes, levelCodes;
    std::vector<uint8_t> valid, levelValid;
    std::vector<unsigned char> part;
    const int regions = bake.endRegion - bake.firstRegion;
    for (int region = bake.next++; region < bake.endRegion && !bake.failed; region = bake.next++) {
        if (Status baked =
                bakeRegion(bake, reader.value(), region % bake.regionsX, region / bake.regionsX,
                           codes, valid, levelCodes, levelValid, part);
            !baked) {
            bake.fail(baked.error());
        } else if (bake.progress) {
            const std::lock_guard<std::mutex> lock(bake.failing);
            bake.progress(++bake.done, regions);
        }
    }
}

// Levels above regionPages, from level regionPages whole: level K's sample c is level
// regionPages's sample min(c 2^(K - regionPages), its last), which holds the same map sample.
Status bakeTopLevels(Bake& bake) {
    const int from = bake.regionPages;
    const PageLevel& source = bake.pages.level[size_t(from)];
    const bool masked = bake.input.nodataSamples > 0;
    const int ps = bake.pages.pageSize;
    std::vector<uint16_t> codes;
    std::vector<uint8_t> valid;
    for (int level = from + 1; level < int(bake.pages.level.size()); ++level) {
        const PageLevel& l = bake.pages.level[size_t(level)];
        const int shift = level - from;
        codes.resize(size_t(l.samplesX) * size_t(l.samplesY));
        valid.resize(masked ? codes.size() : 0);
        for (int r = 0; r < l.samplesY; ++r) {
            const int row = std::min(r << shift, source.samplesY - 1);
            for (int c = 0; c < l.samplesX; ++c) {
                const int col = std::min(c << shift, source.samplesX - 1);
                const size_t i = size_t(row) * size_t(source.samplesX) + size_t(col);
                const size_t to = size_t(r) * size_t(l.samplesX) + size_t(c);
                codes[to] = bake.topCodes[i];
                if (masked) {
                    valid[to] = bake.topValid[i];
                }
            }
        }
        windowTileSums(codes.data(), masked ? valid.data() : nullptr, 0, 0, l.samplesX, l.samplesY,
                       ps, (l.samplesX + ps - 1) / ps, bake.sums[size_t(level)].data());
        if (Status wrote = bake.files[size_t(level)].write(0, 0, l.samplesX, l.samplesY,
                                                           codes.data(), valid.data());
            !wrote) {
            return wrote;
        }
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

int log2Of(int powerOfTwo) {
    int shift = 0;
    while ((1 << shift) < powerOfTwo) {
        ++shift;
    }
    return shift;
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

namespace {

// A number of a plan as text that reads back to the same value ("%.17g").
std::string exact(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

// The sizes a bake derives from its input and options, which every job of a bake by jobs and its
// join must share: plan.json holds them with the input's size, coding and georeference.
struct BakePlan {
    BakeInput source;  // the input's description (its path and GDAL path unused by a join)
    int leafSize = 0;
    int pageSize = 0;
    int regionSize = 0;
    int levels = 0;
    // The checksum of the codes (and given or not) of a grid of kProbeSide^2 samples spread over
    // the input: jobs of two inputs alike in size, coding and place (two tiles of one survey)
    // make two plans, not one layout of both.
    std::string probe;
};

// Samples along a side of a plan's probe.
constexpr int kProbeSide = 16;

// The plan's probe of the input (BakePlan::probe), read through a reader of its own.
Result<std::string> probeInput(const BakeInput& input) {
    using R = Result<std::string>;
    Result<WindowReader> reader = WindowReader::open(input);
    if (!reader) {
        return R::failure(reader.error());
    }
    uint64_t chain = kChecksumSeed;
    for (int j = 0; j < kProbeSide; ++j) {
        const int z = int(int64_t(input.height - 1) * j / (kProbeSide - 1));
        for (int i = 0; i < kProbeSide; ++i) {
            const int x = int(int64_t(input.width - 1) * i / (kProbeSide - 1));
            uint16_t code[2] = {0, 0};
            uint8_t valid = 0;
            const Result<int64_t> read = reader.value().read(x, z, 1, 1, &code[0], &valid);
            if (!read) {
                return R::failure(read.error());
            }
            code[1] = valid;
            chain = chainTileCodes(chain, code, 2);
        }
    }
    return checksumHex(mixHash(chain));
}

// plan.json's text: the same from every job of one input and one set of options.
std::string planText(const BakePlan& plan) {
    const BakeInput& source = plan.source;
    CPLJSONDocument document;
    CPLJSONObject root = document.GetRoot();
    root.Add("format", kPlanFormat);
    root.Add("version", kLayoutVersion);
    root.Add("width", source.width);
    root.Add("height", source.height);
    root.Add("leafSize", plan.leafSize);
    root.Add("pageSize", plan.pageSize);
    root.Add("regionSize", plan.regionSize);
    root.Add("levels", plan.levels);
    root.Add("kind", int(source.kind));
    if (source.kind == BakeInput::Kind::GdalFloats) {
        // The float band's range: a job given this plan takes no pass of its own.
        CPLJSONObject range;
        range.Add("lo", exact(double(source.quantiser.lo)));
        range.Add("hi", exact(double(source.hi)));
        range.Add("integral", source.integral);
        root.Add("range", range);
    }
    root.Add("offset", exact(double(source.coding.offset)));
    root.Add("step", exact(double(source.coding.step)));
    root.Add("metres", source.metres);
    root.Add("nodataSamples", GInt64(source.nodataSamples));
    root.Add("probe", plan.probe);
    if (source.hasTransform) {
        CPLJSONArray transform;
        for (double v : source.transform) {
            transform.Add(exact(v));
        }
        root.Add("geoTransform", transform);
        root.Add("wkt", source.wkt);
    }
    return document.SaveAsString();
}

uint64_t textChecksum(const std::string& text) {
    return mixHash(
        hashWords(kChecksumSeed, reinterpret_cast<const unsigned char*>(text.data()), text.size()));
}

// The plan in a bake by jobs' plan.json, and its text.
Result<BakePlan> readPlan(const std::string& folder, std::string& text) {
    using R = Result<BakePlan>;
    const std::string path = (fs::path(folder) / kPlanFile).string();
    Result<CPLJSONDocument> document = readSmallJson(path, kPlanFile);
    if (!document) {
        return R::failure(document.error() + " (a bake by jobs writes one; --join joins one)");
    }
    const CPLJSONObject root = document.value().GetRoot();
    if (root.GetString("format") != kPlanFormat || root.GetInteger("version") != kLayoutVersion) {
        return R::failure("plan.json: not a quadterrain bake plan of version " +
                          std::to_string(kLayoutVersion));
    }
    BakePlan plan;
    BakeInput& source = plan.source;
    source.width = root.GetInteger("width");
    source.height = root.GetInteger("height");
    plan.leafSize = root.GetInteger("leafSize");
    plan.pageSize = root.GetInteger("pageSize");
    plan.regionSize = root.GetInteger("regionSize");
    plan.levels = root.GetInteger("levels");
    const int kind = root.GetInteger("kind", -1);
    if (kind >= int(BakeInput::Kind::Raw16) && kind <= int(BakeInput::Kind::GdalFloats)) {
        source.kind = BakeInput::Kind(kind);
    }
    if (source.kind == BakeInput::Kind::GdalFloats) {
        const CPLJSONObject range = root.GetObj("range");
        source.quantiser.lo = float(CPLAtof(range.GetString("lo").c_str()));
        source.hi = float(CPLAtof(range.GetString("hi").c_str()));
        source.integral = range.GetBool("integral");
    }
    source.coding.offset = float(CPLAtof(root.GetString("offset").c_str()));
    source.coding.step = float(CPLAtof(root.GetString("step").c_str()));
    source.metres = root.GetBool("metres");
    source.nodataSamples = root.GetLong("nodataSamples");
    plan.probe = root.GetString("probe");
    const CPLJSONArray transform = root.GetArray("geoTransform");
    if (transform.IsValid() && transform.Size() == 6) {
        source.hasTransform = true;
        for (int i = 0; i < 6; ++i) {
            source.transform[i] = CPLAtof(transform[i].ToString().c_str());
        }
        source.wkt = root.GetString("wkt");
    }
    const bool powers = plan.pageSize >= 16 && plan.pageSize <= 4096 &&
                        (plan.pageSize & (plan.pageSize - 1)) == 0 && plan.leafSize > 0 &&
                        plan.pageSize % plan.leafSize == 0 && plan.regionSize >= plan.pageSize &&
                        plan.regionSize <= kMaxBakeRegion &&
                        (plan.regionSize & (plan.regionSize - 1)) == 0;
    if (!powers || !checkDimensions(source.width, source.height, kBakeSizeLimit) ||
        source.nodataSamples < 0 || !(source.coding.step > 0.0f) ||
        planText(plan) != document.value().SaveAsString()) {
        return R::failure("plan.json: not a plan a bake writes");
    }
    text = planText(plan);
    return plan;
}

// Threads a bake runs on: options.threads, or one a core.
int bakeThreads(const BakeOptions& options) {
    return std::max(
        1, std::min(options.threads > 0 ? options.threads
                                        : int(std::max(std::thread::hardware_concurrency(), 1u)),
                    kMaxLoadThreads));
}

// The summary's sizes: the map's, the tree's and the regions'.
void describeBake(const Bake& bake, BakeSummary& summary) {
    summary.width = bake.input.width;
    summary.height = bake.input.height;
    summary.leafSize = bake.tree.leafSize;
    summary.pageSize = bake.pages.pageSize;
    summary.levels = int(bake.pages.level.size());
    summary.regionSize = bake.regionSize;
    summary.regions = bake.regionsX * bake.regionsZ;
    summary.exactLevels = bake.exactLevels;
    summary.treeDepth = bake.tree.depth;
}

// Sets the bake's regions for its plan and sizes the tree's arrays and the tiles' checksums the
// regions fill (`arrays`: not for a job, whose regions write their own parts).
void planRegions(Bake& bake, const BakePlan& plan, bool arrays = true) {
    const int width = plan.source.width;
    const int height = plan.source.height;
    bake.regionSize = plan.regionSize;
    bake.regionPages = std::min(log2Of(plan.regionSize / plan.pageSize), plan.levels - 1);
    bake.regionNodes = log2Of(plan.regionSize / plan.leafSize);
    bake.exactLevels = std::min(bake.regionNodes, bake.tree.depth);
    bake.regionsX = (width - 2) / plan.regionSize + 1;
    bake.regionsZ = (height - 2) / plan.regionSize + 1;
    if (!arrays) {
        return;
    }
    for (int level = 0; level < plan.levels; ++level) {
        const PageLevel& l = bake.pages.level[size_t(level)];
        bake.sums[size_t(level)].assign(
            size_t((l.samplesX + plan.pageSize - 1) / plan.pageSize) *
                size_t((l.samplesY + plan.pageSize - 1) / plan.pageSize),
            0);
    }
    TreeSidecar& saved = bake.saved;
    saved.leafRanges.resize(size_t(bake.tree.leavesX) * size_t(bake.tree.leavesZ));
    saved.coarseErrors.assign(bake.tree.levelStart.back(), 0);
    saved.foldErrors.assign(bake.tree.levelStart.back(), 0);
    if (bake.exactLevels > 0) {
        saved.leafFoldErrors.assign(saved.leafRanges.size(), 0);
    }
    if (bake.regionPages < plan.levels - 1) {
        const PageLevel& top = bake.pages.level[size_t(bake.regionPages)];
        bake.topCodes.resize(size_t(top.samplesX) * size_t(top.samplesY));
        bake.topValid.resize(plan.source.nodataSamples > 0 ? bake.topCodes.size() : 0);
    }
}

// Creates the files of levels `first`.. (the level files the bake writes itself) in `folder`.
Status createLevelFiles(const Bake& bake, int first, int threads, const std::string& folder,
                        const GdalMessages& said) {
    const int pageSize = bake.pages.pageSize;
    for (int level = first; level < int(bake.pages.level.size()); ++level) {
        const PageLevel& l = bake.pages.level[size_t(level)];
        const std::string name = layoutLevelFile(level);
        if (Status made = bake.files[size_t(level)].create(
                bake.input, level, l.samplesX, l.samplesY, pageSize, threads,
                (fs::path(folder) / name).string(), said);
            !made) {
            return Status::failure(name + ": " + made.error());
        }
    }
    return Status();
}

// Runs the regions next..endRegion - 1 on `threads` threads (the calling one among them).
Status runRegions(Bake& bake, int threads) {
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) {
        helpers.emplace_back(bakeRegions, std::ref(bake));
    }
    bakeRegions(bake);
    for (std::thread& helper : helpers) {
        helper.join();
    }
    return bake.failed ? Status::failure(bake.failure) : Status();
}

// Writes a mosaic of the regions' COGs of level `level` (a GDAL VRT, each region's file a simple
// source at its window, its mask's the mask's) to `path`.
Status writeMosaic(const Bake& bake, int level, const std::string& path) {
    const PageLevel& l = bake.pages.level[size_t(level)];
    const BakeInput& input = bake.input;
    const bool masked = input.nodataSamples > 0;
    CPLXMLNode* root = CPLCreateXMLNode(nullptr, CXT_Element, "VRTDataset");
    const std::unique_ptr<CPLXMLNode, void (*)(CPLXMLNode*)> owned(root, CPLDestroyXMLNode);
    CPLAddXMLAttributeAndValue(root, "rasterXSize", std::to_string(l.samplesX).c_str());
    CPLAddXMLAttributeAndValue(root, "rasterYSize", std::to_string(l.samplesY).c_str());
    if (input.hasTransform) {
        if (!input.wkt.empty()) {
            CPLCreateXMLElementAndValue(root, "SRS", input.wkt.c_str());
        }
        double t[6];
        levelTransform(input.transform, level, 0, 0, t);
        std::string text;
        for (int i = 0; i < 6; ++i) {
            text += (i > 0 ? ", " : "") + exact(t[i]);
        }
        CPLCreateXMLElementAndValue(root, "GeoTransform", text.c_str());
    }
    const std::string block = std::to_string(bake.pages.pageSize);
    const auto sources = [&](CPLXMLNode* band, const char* sourceBand, const char* type) {
        for (int rz = 0; rz < bake.regionsZ; ++rz) {
            for (int rx = 0; rx < bake.regionsX; ++rx) {
                const LevelWindow window = regionWindow(bake, level, rx, rz);
                CPLXMLNode* source = CPLCreateXMLNode(band, CXT_Element, "SimpleSource");
                const std::string file = std::string(kRegionsDir) + "/" + std::to_string(rx) + "-" +
                                         std::to_string(rz) + "/" + layoutLevelFile(level);
                CPLXMLNode* name =
                    CPLCreateXMLElementAndValue(source, "SourceFilename", file.c_str());
                CPLAddXMLAttributeAndValue(name, "relativeToVRT", "1");
                CPLCreateXMLElementAndValue(source, "SourceBand", sourceBand);
                // The source's size, type and tiles: GDAL opens a region's file only to read it.
                CPLXMLNode* properties = CPLCreateXMLNode(source, CXT_Element, "SourceProperties");
                CPLAddXMLAttributeAndValue(properties, "RasterXSize",
                                           std::to_string(window.w).c_str());
                CPLAddXMLAttributeAndValue(properties, "RasterYSize",
                                           std::to_string(window.h).c_str());
                CPLAddXMLAttributeAndValue(properties, "DataType", type);
                CPLAddXMLAttributeAndValue(properties, "BlockXSize", block.c_str());
                CPLAddXMLAttributeAndValue(properties, "BlockYSize", block.c_str());
                for (const char* rect : {"SrcRect", "DstRect"}) {
                    const bool dst = rect[0] == 'D';
                    CPLXMLNode* r = CPLCreateXMLNode(source, CXT_Element, rect);
                    CPLAddXMLAttributeAndValue(r, "xOff",
                                               std::to_string(dst ? window.x : 0).c_str());
                    CPLAddXMLAttributeAndValue(r, "yOff",
                                               std::to_string(dst ? window.y : 0).c_str());
                    CPLAddXMLAttributeAndValue(r, "xSize", std::to_string(window.w).c_str());
                    CPLAddXMLAttributeAndValue(r, "ySize", std::to_string(window.h).c_str());
                }
            }
        }
    };
    // Tiles of the page size, as the regions' files have them.
    CPLXMLNode* band = CPLCreateXMLNode(root, CXT_Element, "VRTRasterBand");
    CPLAddXMLAttributeAndValue(band, "dataType", "UInt16");
    CPLAddXMLAttributeAndValue(band, "band", "1");
    CPLAddXMLAttributeAndValue(band, "blockXSize", block.c_str());
    CPLAddXMLAttributeAndValue(band, "blockYSize", block.c_str());
    CPLCreateXMLElementAndValue(band, "Offset", exact(double(input.coding.offset)).c_str());
    CPLCreateXMLElementAndValue(band, "Scale", exact(double(input.coding.step)).c_str());
    if (input.metres) {
        CPLCreateXMLElementAndValue(band, "UnitType", "m");
    }
    sources(band, "1", "UInt16");
    if (masked) {
        CPLXMLNode* mask = CPLCreateXMLNode(root, CXT_Element, "MaskBand");
        CPLXMLNode* maskBand = CPLCreateXMLNode(mask, CXT_Element, "VRTRasterBand");
        CPLAddXMLAttributeAndValue(maskBand, "dataType", "Byte");
        CPLAddXMLAttributeAndValue(maskBand, "blockXSize", block.c_str());
        CPLAddXMLAttributeAndValue(maskBand, "blockYSize", block.c_str());
        sources(maskBand, "mask,1", "Byte");
    }
    char* text = CPLSerializeXMLTree(root);
    const std::string xml = text != nullptr ? text : "";
    CPLFree(text);
    return writeFile(path, xml.data(), xml.size());
}

// Finishes a bake whose regions (and levels above) are written: the level files' COGs, the tree
// (the range bound from the leaves' ranges, the regions' exact errors over it on levels
// 1..exactLevels), layout.json last. Levels 0..lastMosaic (-1: none) are the regions' mosaics.
Result<BakeSummary> writeLayout(Bake& bake, int lastMosaic, const std::string& folder,
                                const GdalMessages& said, BakeSummary summary) {
    using R = Result<BakeSummary>;
    const BakeInput& source = bake.input;
    TreeSidecar& saved = bake.saved;
    const int width = source.width;
    const int height = source.height;
    const int pageSize = bake.pages.pageSize;
    const int levelCount = int(bake.pages.level.size());
    {
        // The range bound above the exact levels (whose fold errors are the regions', 0 above).
        std::vector<uint16_t> range = rangeBoundErrors(bake.tree, saved.leafRanges);
        const auto exactEnd = ptrdiff_t(bake.tree.levelStart[size_t(bake.exactLevels) + 1]);
        std::copy(saved.coarseErrors.begin(), saved.coarseErrors.begin() + exactEnd, range.begin());
        saved.coarseErrors = std::move(range);
    }
    saved.width = width;
    saved.height = height;
    saved.leafSize = bake.tree.leafSize;
    saved.exactLevels = bake.exactLevels;
    saved.lodErrors = errorsKind(bake.exactLevels, bake.tree.depth);
    saved.minCode = 0xFFFF;
    saved.maxCode = 0;
    for (const CodeRange& range : saved.leafRanges) {
        saved.minCode = std::min(saved.minCode, range.minCode);
        saved.maxCode = std::max(saved.maxCode, range.maxCode);
    }

    CPLJSONDocument manifest;
    CPLJSONObject root = manifest.GetRoot();
    root.Add("format", kLayoutFormat);
    root.Add("version", kLayoutVersion);
    root.Add("width", width);
    root.Add("height", height);
    root.Add("leafSize", bake.tree.leafSize);
    root.Add("pageSize", pageSize);
    root.Add("levels", levelCount);
    CPLJSONObject heights;
    heights.Add("offset", double(source.coding.offset));
    heights.Add("step", double(source.coding.step));
    heights.Add("metres", source.metres);
    heights.Add("minCode", int(saved.minCode));
    heights.Add("maxCode", int(saved.maxCode));
    root.Add("heights", heights);
    CPLJSONObject nodata;
    nodata.Add("samples", GInt64(source.nodataSamples));
    nodata.Add("share", double(source.nodataSamples) / (double(width) * double(height)));
    nodata.Add("holes", source.nodataSamples > 0);
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

    describeBake(bake, summary);
    CPLJSONArray levels;
    for (int level = 0; level < levelCount; ++level) {
        const bool mosaic = level <= lastMosaic;
        const std::string name = layoutLevelFile(level, mosaic);
        const std::string path = (fs::path(folder) / name).string();
        const Status written =
            mosaic ? writeMosaic(bake, level, path) : bake.files[size_t(level)].finish(said);
        if (!written) {
            return R::failure(name + ": " + written.error());
        }
        const PageLevel& l = bake.pages.level[size_t(level)];
        CPLJSONObject entry;
        entry.Add("file", name);
        entry.Add("columns", l.samplesX);
        entry.Add("rows", l.samplesY);
        entry.Add("tilesX", (l.samplesX + pageSize - 1) / pageSize);
        entry.Add("tilesY", (l.samplesY + pageSize - 1) / pageSize);
        CPLJSONArray tiles;
        for (uint64_t sum : bake.sums[size_t(level)]) {
            tiles.Add(checksumHex(sum));
        }
        entry.Add("tiles", tiles);
        levels.Add(entry);
        summary.tiles += int64_t(bake.sums[size_t(level)].size());
    }
    root.Add("files", levels);

    const std::string treePath = (fs::path(folder) / kLayoutTree).string();
    if (Status written = writeTreeSidecar(treePath, saved); !written) {
        return R::failure(std::string(kLayoutTree) + ": " + written.error());
    }
    Result<std::vector<unsigned char>> treeBytes = readBytes(treePath);
    if (!treeBytes) {
        return R::failure(std::string(kLayoutTree) + ": " + treeBytes.error());
    }
    CPLJSONObject treeEntry;
    treeEntry.Add("file", kLayoutTree);
    treeEntry.Add("bytes", GInt64(treeBytes.value().size()));
    treeEntry.Add("checksum", checksumHex(bytesChecksum(treeBytes.value())));
    root.Add("tree", treeEntry);

    const std::string manifestPath = (fs::path(folder) / kLayoutManifest).string();
    const std::string partPath = manifestPath + ".part";
    if (!manifest.Save(partPath)) {
        return R::failure("cannot write layout.json");
    }
    std::error_code error;
    fs::rename(partPath, manifestPath, error);
    if (error) {
        return R::failure("cannot write layout.json: " + error.message());
    }
    // Every file of the layout: the levels (the regions' files of the mosaics), the tree, the
    // manifest (a bake by jobs' plan and region manifests too).
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(folder, error)) {
        if (entry.is_regular_file(error)) {
            summary.bytes += uint64_t(entry.file_size(error));
        }
    }
    return summary;
}

// Makes the layout folder (or empties an earlier layout of its layout.json first: none ever
// describes files half replaced).
Status makeFolder(const std::string& folder) {
    std::error_code error;
    fs::remove(fs::path(folder) / kLayoutManifest, error);
    if (!fs::is_directory(folder, error) && !fs::create_directory(folder, error) &&
        !fs::is_directory(folder, error)) {
        return Status::failure("cannot make the layout folder: " + error.message());
    }
    return Status();
}

}  // namespace

Result<BakeSummary> bakeLayout(const std::string& input, const std::string& folder,
                               const BakeOptions& options) {
    using R = Result<BakeSummary>;
    const int pageSize = options.pageSize > 0 ? options.pageSize : kDefaultPageSize;
    if (pageSize < 16 || pageSize > 4096 || (pageSize & (pageSize - 1)) != 0) {
        return R::failure("the page size must be a power of two from 16 to 4096");
    }
    const int regionSize =
        options.regionSize > 0 ? options.regionSize : std::max(kDefaultBakeRegion, pageSize);
    if (regionSize < pageSize || regionSize > kMaxBakeRegion ||
        (regionSize & (regionSize - 1)) != 0) {
        return R::failure("the region size must be a power of two from the page size (" +
                          std::to_string(pageSize) + ") to " + std::to_string(kMaxBakeRegion));
    }
    const bool jobs = options.jobs > 0 || options.planOnly;
    if (options.jobs > 0 && (options.job < 1 || options.job > options.jobs)) {
        return R::failure("a job is one of 1 to its count of jobs");
    }
    if (Status ready = checkFolder(folder, jobs); !ready) {
        return R::failure(ready.error());
    }
    // A bake by jobs whose folder holds its plan already (--plan, or a job before) takes a float
    // band's range from it rather than from a pass of its own.
    std::string existing;
    std::error_code missing;
    const bool hasPlan = jobs && fs::exists(fs::path(folder) / kPlanFile, missing);
    Result<BakePlan> folderPlan =
        hasPlan ? readPlan(folder, existing) : Result<BakePlan>::failure("no plan");
    if (hasPlan && !folderPlan) {
        return R::failure(folderPlan.error());
    }
    PlannedRange given;
    if (folderPlan && folderPlan.value().source.kind == BakeInput::Kind::GdalFloats) {
        const BakeInput& p = folderPlan.value().source;
        given = PlannedRange{p.quantiser.lo, p.hi, p.integral, p.nodataSamples};
    }
    // Threads: the plan pass's bands of rows and the regions side by side, each region's work on
    // its own thread; the COGs' tiles compressed on as many.
    const int cores = bakeThreads(options);
    const bool takesRange =
        folderPlan && folderPlan.value().source.kind == BakeInput::Kind::GdalFloats;
    Result<BakeInput> planned =
        planBakeInput(input, options.load, cores, takesRange ? &given : nullptr);
    if (!planned) {
        return R::failure(planned.error());
    }
    const BakeInput& source = planned.value();
    const int width = source.width;
    const int height = source.height;
    const uint64_t maskBytes = source.kind == BakeInput::Kind::GdalFloats
                                   ? (uint64_t(width) * uint64_t(height) + 63) / 64 * 8
                                   : 0;
    const Result<int> leafSize =
        planStreamedMap(width, height, options.leafSize, options.load.memory, maskBytes);
    if (!leafSize) {
        return R::failure(leafSize.error());
    }
    if (pageSize % leafSize.value() != 0) {
        return R::failure("the page size must be a multiple of the leaf size (" +
                          std::to_string(leafSize.value()) + ")");
    }
    // The tree's level grids alone, never its nodes: the regions fill its arrays by levelIndex,
    // and the range bound above them comes from the leaves' ranges (rangeBoundErrors).
    Result<Quadtree> structure = buildQuadtreeLevelGrids(width, height, leafSize.value());
    if (!structure) {
        return R::failure(structure.error());
    }
    const Quadtree& tree = structure.value();
    registerGdalDrivers();
    GdalMessages said;
    const HeightPages pages = planHeightPages(width, height, leafSize.value(), pageSize);
    const int levelCount = int(pages.level.size());
    BakePlan plan;
    plan.source = source;
    plan.leafSize = leafSize.value();
    plan.pageSize = pageSize;
    plan.regionSize = regionSize;
    plan.levels = levelCount;
    if (jobs) {
        Result<std::string> probe = probeInput(source);
        if (!probe) {
            return R::failure(probe.error());
        }
        plan.probe = probe.value();
    }

    std::vector<LevelFile> files(static_cast<size_t>(levelCount));
    std::vector<std::vector<uint64_t>> sums(static_cast<size_t>(levelCount));
    TreeSidecar saved;
    Bake bake(source, pages, tree, files, sums, saved);
    bake.progress = options.progress;
    planRegions(bake, plan, !jobs);  // a job's tree goes to its regions' parts
    const int regions = bake.regionsX * bake.regionsZ;
    const bool share = options.jobs > 0 && !options.planOnly;
    bake.firstRegion = share ? int(int64_t(options.job - 1) * regions / options.jobs) : 0;
    bake.endRegion = share              ? int(int64_t(options.job) * regions / options.jobs)
                     : options.planOnly ? 0
                                        : regions;
    bake.next = bake.firstRegion;
    {
        std::error_code error;
        const std::string dir = fs::is_directory(folder, error)
                                    ? folder
                                    : fs::absolute(folder, error).parent_path().string();
        uint64_t needs = bakeDiskBytes(width, height, levelCount, source.nodataSamples > 0);
        if (jobs) {  // the job's share of the regions
            needs = uint64_t(double(needs) * double(bake.endRegion - bake.firstRegion) /
                             double(regions)) +
                    (uint64_t(16) << 20);
        }
        const uint64_t free =
            options.freeDiskBytes ? options.freeDiskBytes(dir) : freeDiskBytes(dir);
        if (free < needs) {
            return R::failure("the layout needs up to " + std::to_string(needs >> 20) +
                              " MiB while it is baked; its disk has " + std::to_string(free >> 20) +
                              " MiB free");
        }
    }
    if (Status made = makeFolder(folder); !made) {
        return R::failure(made.error());
    }
    BakeSummary summary;
    summary.firstRegion = bake.firstRegion;
    summary.endRegion = bake.endRegion;
    summary.threads = std::max(1, std::min(cores, bake.endRegion - bake.firstRegion));
    // Each block is read or written once, the COGs' copies included: GDAL's cache (one for the
    // process) holds no more than it must while the bake runs.
    const GdalCacheCap cacheCap(kBakeGdalCacheBytes);
    if (jobs) {
        // regions/ first, then plan.json: a job never sees another's plan.json half made without
        // regions/ (checkFolder's mark of a bake by jobs).
        const std::string text = planText(plan);
        const std::string planPath = (fs::path(folder) / kPlanFile).string();
        std::error_code error;
        bake.regionsDir = (fs::path(folder) / kRegionsDir).string();
        fs::create_directory(bake.regionsDir, error);
        if (!fs::is_directory(bake.regionsDir, error)) {
            return R::failure("cannot make the layout's regions/ folder");
        }
        if (hasPlan || fs::exists(planPath, error)) {
            if (!hasPlan && !readPlan(folder, existing)) {
                existing.clear();
            }
            if (existing != text) {
                return R::failure(
                    "the folder holds the plan of another bake (plan.json: another input, or "
                    "other sizes); give every job the same input and options, or a new folder");
            }
        } else if (Status wrote = writeFile(planPath, text.data(), text.size()); !wrote) {
            return R::failure(wrote.error());
        }
        bake.planSum = checksumHex(textChecksum(text));
        if (!options.planOnly) {
            if (Status ran = runRegions(bake, summary.threads); !ran) {
                return R::failure(ran.error());
            }
        }
        describeBake(bake, summary);
        return summary;
    }
    if (Status made = createLevelFiles(bake, 0, cores, folder, said); !made) {
        return R::failure(made.error());
    }
    if (Status ran = runRegions(bake, summary.threads); !ran) {
        return R::failure(ran.error());
    }
    if (Status top = bakeTopLevels(bake); !top) {
        return R::failure(top.error());
    }
    return writeLayout(bake, -1, folder, said, summary);
}

Result<BakeSummary> joinLayout(const std::string& folder, const BakeOptions& options) {
    using R = Result<BakeSummary>;
    std::string text;
    Result<BakePlan> read = readPlan(folder, text);
    if (!read) {
        return R::failure(read.error());
    }
    const BakePlan& plan = read.value();
    const BakeInput& source = plan.source;
    Result<Quadtree> structure =
        buildQuadtreeLevelGrids(source.width, source.height, plan.leafSize);
    if (!structure) {
        return R::failure("plan.json: " + structure.error());
    }
    const HeightPages pages =
        planHeightPages(source.width, source.height, plan.leafSize, plan.pageSize);
    if (int(pages.level.size()) != plan.levels) {
        return R::failure("plan.json: not a plan a bake writes");
    }
    registerGdalDrivers();
    GdalMessages said;
    std::vector<LevelFile> files(static_cast<size_t>(plan.levels));
    std::vector<std::vector<uint64_t>> sums(static_cast<size_t>(plan.levels));
    TreeSidecar saved;
    Bake bake(source, pages, structure.value(), files, sums, saved);
    planRegions(bake, plan);
    bake.regionsDir = (fs::path(folder) / kRegionsDir).string();
    bake.planSum = checksumHex(textChecksum(text));
    {
        std::error_code error;
        // The levels above the regions' at most: a twelfth of the map's level 0 at 2 bytes.
        const uint64_t needs =
            bakeDiskBytes(source.width, source.height, plan.levels, source.nodataSamples > 0) / 12 +
            (uint64_t(16) << 20);
        const uint64_t free =
            options.freeDiskBytes ? options.freeDiskBytes(folder) : freeDiskBytes(folder);
        if (free < needs) {
            return R::failure("the join needs up to " + std::to_string(needs >> 20) +
                              " MiB; its disk has " + std::to_string(free >> 20) + " MiB free");
        }
        fs::remove(fs::path(folder) / kLayoutManifest, error);
    }
    const int cores = bakeThreads(options);
    const GdalCacheCap cacheCap(kBakeGdalCacheBytes);
    if (Status made = createLevelFiles(bake, bake.regionPages + 1, cores, folder, said); !made) {
        return R::failure(made.error());
    }
    const int ps = plan.pageSize;
    const bool masked = source.nodataSamples > 0;
    std::vector<uint16_t> codes;
    std::vector<uint8_t> valid;
    for (int rz = 0; rz < bake.regionsZ; ++rz) {
        for (int rx = 0; rx < bake.regionsX; ++rx) {
            const std::string name =
                "region (" + std::to_string(rx) + ", " + std::to_string(rz) + ")";
            const std::string dir = regionFolder(bake.regionsDir, rx, rz);
            Result<CPLJSONDocument> manifest =
                readSmallJson((fs::path(dir) / kRegionManifest).string(), "region.json");
            if (!manifest) {
                return R::failure(name + " is not baked (" + manifest.error() +
                                  "): run the job that holds it again");
            }
            const CPLJSONObject root = manifest.value().GetRoot();
            const CPLJSONArray at = root.GetArray("region");
            if (root.GetString("format") != kRegionFormat || !at.IsValid() || at.Size() != 2 ||
                at[0].ToInteger() != rx || at[1].ToInteger() != rz) {
                return R::failure(name + ": its region.json is not a bake region's");
            }
            if (root.GetString("plan") != bake.planSum) {
                return R::failure(name +
                                  " was baked by another plan than plan.json's (stale): "
                                  "run the job that holds it again");
            }
            // The tiles' checksums into the levels'.
            const CPLJSONArray levels = root.GetArray("tiles");
            if (!levels.IsValid() || levels.Size() != bake.regionPages + 1) {
                return R::failure(name + ": its region.json has not its levels' tiles");
            }
            for (int level = 0; level <= bake.regionPages; ++level) {
                const PageLevel& l = pages.level[size_t(level)];
                const LevelWindow window = regionWindow(bake, level, rx, rz);
                const int tilesX = (window.w + ps - 1) / ps;
                const int tilesY = (window.h + ps - 1) / ps;
                const CPLJSONArray tiles = levels[level].ToArray();
                if (!tiles.IsValid() || tiles.Size() != tilesX * tilesY) {
                    return R::failure(name + ": its region.json has not its levels' tiles");
                }
                const int levelTilesX = (l.samplesX + ps - 1) / ps;
                for (int ty = 0; ty < tilesY; ++ty) {
                    for (int tx = 0; tx < tilesX; ++tx) {
                        const std::string sum = tiles[ty * tilesX + tx].ToString();
                        sums[size_t(level)][size_t(window.y / ps + ty) * size_t(levelTilesX) +
                                            size_t(window.x / ps + tx)] =
                            std::strtoull(sum.c_str(), nullptr, 16);
                    }
                }
            }
            // The tree part, its size and checksum region.json's.
            size_t count = 0;
            regionTreeRuns(bake, rx, rz, [&count](const unsigned char*, size_t n) { count += n; });
            const CPLJSONObject treePart = root.GetObj("tree");
            if (treePart.GetLong("bytes", -1) != GInt64(count)) {
                return R::failure(name + ": its tree part is not of its plan's size");
            }
            Result<std::vector<unsigned char>> bytes =
                readFileOfSize((fs::path(dir) / kRegionTree).string(), count);
            if (!bytes) {
                return R::failure(name + ": tree.part: " + bytes.error());
            }
            if (checksumHex(bytesChecksum(bytes.value())) != treePart.GetString("checksum")) {
                return R::failure(name + ": tree.part does not match its checksum");
            }
            scatterTreePart(bake, rx, rz, bytes.value().data());
            if (bake.topCodes.empty()) {
                continue;
            }
            // Its highest level's samples, for the levels above.
            const std::string top = layoutLevelFile(bake.regionPages);
            Result<GdalRaster> raster = openGdalRaster((fs::path(dir) / top).string(), said);
            const LevelWindow window = regionWindow(bake, bake.regionPages, rx, rz);
            if (!raster || raster.value().width != window.w || raster.value().height != window.h) {
                return R::failure(name + ": " + top + ": " +
                                  (raster ? std::string("not its window's size") : raster.error()));
            }
            codes.resize(size_t(window.w) * size_t(window.h));
            valid.resize(masked ? codes.size() : 0);
            GDALRasterBand* band = raster.value().band;
            if (band->RasterIO(GF_Read, 0, 0, window.w, window.h, codes.data(), window.w, window.h,
                               GDT_UInt16, 0, 0) != CE_None ||
                (masked &&
                 band->GetMaskBand()->RasterIO(GF_Read, 0, 0, window.w, window.h, valid.data(),
                                               window.w, window.h, GDT_Byte, 0, 0) != CE_None)) {
                return R::failure(name + ": " + top + ": " + said.line("cannot be read"));
            }
            const PageLevel& l = pages.level[size_t(bake.regionPages)];
            for (int r = 0; r < window.h; ++r) {
                const size_t to = size_t(window.y + r) * size_t(l.samplesX) + size_t(window.x);
                std::copy_n(codes.data() + size_t(r) * size_t(window.w), window.w,
                            bake.topCodes.data() + to);
                if (masked) {
                    std::copy_n(valid.data() + size_t(r) * size_t(window.w), window.w,
                                bake.topValid.data() + to);
                }
            }
        }
    }
    if (Status top = bakeTopLevels(bake); !top) {
        return R::failure(top.error());
    }
    BakeSummary summary;
    summary.threads = cores;
    return writeLayout(bake, bake.regionPages, folder, said, summary);
}

}  // namespace qt
