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

constexpr const char* kManifest = "layout.json";
constexpr const char* kFormat = "quadterrain layout";
constexpr int kVersion = 1;
constexpr const char* kTreeFile = "tree.qtree";
// GDAL's block cache while regions are read and written.
constexpr int64_t kBakeGdalCacheBytes = int64_t(64) << 20;
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

// A level's file while it is written: a tiled GeoTIFF in tiles of the page size, written by
// windows (regions' parts, in any order), then copied into its COG.
class LevelFile {
public:
    Status create(const BakeInput& input, int level, int columns, int rows, int pageSize,
                  int threads, const std::string& path, const GdalMessages& said) {
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
            levelTransform(input.transform, level, t);
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

// The checksums of the tiles of a window of a level whose corner (x, y) is a tile's corner:
// each tile's rows chained, then mixed, into sums[ty * tilesX + tx].
void windowTileSums(const uint16_t* codes, int x, int y, int w, int h, int pageSize, int tilesX,
                    uint64_t* sums) {
    for (int ty = 0; ty * pageSize < h; ++ty) {
        for (int tx = 0; tx * pageSize < w; ++tx) {
            const int columns = std::min(pageSize, w - tx * pageSize);
            const int rows = std::min(pageSize, h - ty * pageSize);
            uint64_t chain = kChecksumSeed;
            for (int r = 0; r < rows; ++r) {
                chain = chainCodes(
                    chain, codes + size_t(ty * pageSize + r) * size_t(w) + size_t(tx * pageSize),
                    columns);
            }
            sums[size_t(y / pageSize + ty) * size_t(tilesX) + size_t(x / pageSize + tx)] =
                mixHash(chain);
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
    std::function<void(int, int)> progress;
    int done = 0;  // regions baked, under `failing`

    void fail(const std::string& why) {
        const std::lock_guard<std::mutex> lock(failing);
        if (failure.empty()) {
            failure = why;
        }
        failed = true;
    }
};

// The leaves' code ranges of a region, from its window.
void regionLeafRanges(const CodeGrid& grid, const Quadtree& tree, const NodeBlock& leaves,
                      CodeRange* out) {
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
            out[size_t(lz) * size_t(tree.leavesX) + size_t(lx)] = {lo, hi};
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

// Bakes region (rx, rz): reads its window, takes its leaves' ranges and its nodes' exact errors,
// and writes its tiles of levels 0..regionPages with their checksums.
Status bakeRegion(Bake& bake, WindowReader& reader, int rx, int rz, std::vector<uint16_t>& codes,
                  std::vector<uint8_t>& valid, std::vector<uint16_t>& levelCodes,
                  std::vector<uint8_t>& levelValid) {
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
    const CodeGrid grid{codes.data(), width, height, x0, z0, size_t(w)};
    const Quadtree& tree = bake.tree;
    TreeSidecar& saved = bake.saved;
    regionLeafRanges(grid, tree, regionNodes(bake, 0, rx, rz), saved.leafRanges.data());
    for (int level = 1; level <= bake.exactLevels; ++level) {
        exactErrorsOfBlock(grid, tree, level, regionNodes(bake, level, rx, rz),
                           saved.coarseErrors.data(), saved.foldErrors.data());
    }
    if (bake.exactLevels > 0) {
        exactErrorsOfBlock(grid, tree, 0, regionNodes(bake, 0, rx, rz), nullptr,
                           saved.leafFoldErrors.data());
    }
    const int ps = bake.pages.pageSize;
    for (int level = 0; level <= bake.regionPages; ++level) {
        const PageLevel& l = bake.pages.level[size_t(level)];
        const int span = bake.regionSize >> level;
        const int cx = rx * span, cz = rz * span;
        // The last region of a row (or column) holds the level's last sample too, which lies
        // on the map's last column (row) even where that is a region's edge.
        const int cw =
            (rx == bake.regionsX - 1 ? l.samplesX : std::min(cx + span, l.samplesX)) - cx;
        const int ch =
            (rz == bake.regionsZ - 1 ? l.samplesY : std::min(cz + span, l.samplesY)) - cz;
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
        windowTileSums(levelCodes.data(), cx, cz, cw, ch, ps, (l.samplesX + ps - 1) / ps,
                       bake.sums[size_t(level)].data());
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
        const std::lock_guard<std::mutex> lock(bake.writing);
        if (Status wrote = bake.files[size_t(level)].write(cx, cz, cw, ch, levelCodes.data(),
                                                           masked ? levelValid.data() : nullptr);
            !wrote) {
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
    const int regions = bake.regionsX * bake.regionsZ;
    for (int region = bake.next++; region < regions && !bake.failed; region = bake.next++) {
        if (Status baked = bakeRegion(bake, reader.value(), region % bake.regionsX,
                                      region / bake.regionsX, codes, valid, levelCodes, levelValid);
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
        windowTileSums(codes.data(), 0, 0, l.samplesX, l.samplesY, ps, (l.samplesX + ps - 1) / ps,
                       bake.sums[size_t(level)].data());
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

uint64_t bytesChecksum(const std::vector<unsigned char>& bytes) {
    return mixHash(hashWords(kChecksumSeed, bytes.data(), bytes.size()));
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
    if (Status ready = checkFolder(folder); !ready) {
        return R::failure(ready.error());
    }
    // Threads: the plan pass's bands of rows and the regions side by side, each region's work on
    // its own thread; the COGs' tiles compressed on as many.
    const int cores = std::max(
        1, std::min(options.threads > 0 ? options.threads
                                        : int(std::max(std::thread::hardware_concurrency(), 1u)),
                    kMaxLoadThreads));
    Result<BakeInput> planned = planBakeInput(input, options.load, cores);
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
    Result<Quadtree> structure = buildQuadtreeStructure(width, height, leafSize.value());
    if (!structure) {
        return R::failure(structure.error());
    }
    const Quadtree& tree = structure.value();
    registerGdalDrivers();
    GdalMessages said;
    const HeightPages pages = planHeightPages(width, height, leafSize.value(), pageSize);
    const int levelCount = int(pages.level.size());
    {
        std::error_code error;
        const std::string dir = fs::is_directory(folder, error)
                                    ? folder
                                    : fs::absolute(folder, error).parent_path().string();
        const uint64_t needs = bakeDiskBytes(width, height, levelCount, source.nodataSamples > 0);
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

    std::vector<LevelFile> files(static_cast<size_t>(levelCount));
    std::vector<std::vector<uint64_t>> sums(static_cast<size_t>(levelCount));
    for (int level = 0; level < levelCount; ++level) {
        const PageLevel& l = pages.level[size_t(level)];
        const std::string name = levelFile(level);
        if (Status made =
                files[size_t(level)].create(source, level, l.samplesX, l.samplesY, pageSize, cores,
                                            (fs::path(folder) / name).string(), said);
            !made) {
            return R::failure(name + ": " + made.error());
        }
        sums[size_t(level)].assign(size_t((l.samplesX + pageSize - 1) / pageSize) *
                                       size_t((l.samplesY + pageSize - 1) / pageSize),
                                   0);
    }
    TreeSidecar saved;
    Bake bake(source, pages, tree, files, sums, saved);
    bake.regionSize = regionSize;
    bake.progress = options.progress;
    bake.regionPages = std::min(log2Of(regionSize / pageSize), levelCount - 1);
    bake.regionNodes = log2Of(regionSize / leafSize.value());
    bake.exactLevels = std::min(bake.regionNodes, tree.depth);
    bake.regionsX = (width - 2) / regionSize + 1;
    bake.regionsZ = (height - 2) / regionSize + 1;
    saved.leafRanges.resize(size_t(tree.leavesX) * size_t(tree.leavesZ));
    saved.coarseErrors.assign(tree.levelStart.back(), 0);
    saved.foldErrors.assign(tree.levelStart.back(), 0);
    if (bake.exactLevels > 0) {
        saved.leafFoldErrors.assign(saved.leafRanges.size(), 0);
    }
    if (bake.regionPages < levelCount - 1) {
        const PageLevel& top = pages.level[size_t(bake.regionPages)];
        bake.topCodes.resize(size_t(top.samplesX) * size_t(top.samplesY));
        bake.topValid.resize(source.nodataSamples > 0 ? bake.topCodes.size() : 0);
    }
    const int regions = bake.regionsX * bake.regionsZ;
    // Each block is read or written once, the COGs' copies included: GDAL's cache (one for the
    // process) holds no more than it must while the bake runs.
    const GdalCacheCap cacheCap(kBakeGdalCacheBytes);
    const int threads = std::min(cores, regions);
    {
        std::vector<std::thread> helpers;
        for (int t = 1; t < threads; ++t) {
            helpers.emplace_back(bakeRegions, std::ref(bake));
        }
        bakeRegions(bake);
        for (std::thread& helper : helpers) {
            helper.join();
        }
    }
    if (bake.failed) {
        return R::failure(bake.failure);
    }
    if (Status top = bakeTopLevels(bake); !top) {
        return R::failure(top.error());
    }

    // The tree: the range bound everywhere from the leaves' ranges, the regions' exact errors
    // over it on levels 1..exactLevels.
    Quadtree bounds = std::move(structure.value());
    {
        Heightmap shell;  // the size and coding alone: fillQuadtreeBounds reads no code here
        shell.width = width;
        shell.height = height;
        shell.coding = source.coding;
        fillQuadtreeBounds(bounds, shell, &saved.leafRanges);
        const auto exactEnd = ptrdiff_t(bounds.levelStart[size_t(bake.exactLevels) + 1]);
        std::copy(saved.coarseErrors.begin(), saved.coarseErrors.begin() + exactEnd,
                  bounds.coarseErrors.begin());
        std::copy(saved.foldErrors.begin(), saved.foldErrors.begin() + exactEnd,
                  bounds.foldErrors.begin());
        saved.coarseErrors = std::move(bounds.coarseErrors);
        saved.foldErrors = std::move(bounds.foldErrors);
    }
    saved.width = width;
    saved.height = height;
    saved.leafSize = leafSize.value();
    saved.exactLevels = bake.exactLevels;
    saved.lodErrors = errorsKind(bake.exactLevels, tree.depth);
    saved.minCode = 0xFFFF;
    saved.maxCode = 0;
    for (const CodeRange& range : saved.leafRanges) {
        saved.minCode = std::min(saved.minCode, range.minCode);
        saved.maxCode = std::max(saved.maxCode, range.maxCode);
    }

    CPLJSONDocument manifest;
    CPLJSONObject root = manifest.GetRoot();
    root.Add("format", kFormat);
    root.Add("version", kVersion);
    root.Add("width", width);
    root.Add("height", height);
    root.Add("leafSize", leafSize.value());
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

    BakeSummary summary;
    summary.width = width;
    summary.height = height;
    summary.leafSize = leafSize.value();
    summary.pageSize = pageSize;
    summary.levels = levelCount;
    summary.regionSize = regionSize;
    summary.regions = regions;
    summary.threads = threads;
    summary.exactLevels = bake.exactLevels;
    summary.treeDepth = tree.depth;
    CPLJSONArray levels;
    for (int level = 0; level < levelCount; ++level) {
        const std::string name = levelFile(level);
        const std::string path = (fs::path(folder) / name).string();
        if (Status written = files[size_t(level)].finish(said); !written) {
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
        for (uint64_t sum : sums[size_t(level)]) {
            tiles.Add(hex(sum));
        }
        entry.Add("tiles", tiles);
        levels.Add(entry);
        summary.tiles += int64_t(sums[size_t(level)].size());
        summary.bytes += uint64_t(fs::file_size(path, error));
    }
    root.Add("files", levels);

    const std::string treePath = (fs::path(folder) / kTreeFile).string();
    if (Status written = writeTreeSidecar(treePath, saved); !written) {
        return R::failure(std::string(kTreeFile) + ": " + written.error());
    }
    Result<std::vector<unsigned char>> treeBytes = readBytes(treePath);
    if (!treeBytes) {
        return R::failure(std::string(kTreeFile) + ": " + treeBytes.error());
    }
    CPLJSONObject treeEntry;
    treeEntry.Add("file", kTreeFile);
    treeEntry.Add("bytes", GInt64(treeBytes.value().size()));
    treeEntry.Add("checksum", hex(bytesChecksum(treeBytes.value())));
    root.Add("tree", treeEntry);
    summary.bytes += treeBytes.value().size();

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
