// Imagery over the map: the file checked and sized before a pixel is read, its bands brought to
// 8-bit RGBA by a VRT (gdal_translate), then warped onto the map's grid (gdalwarp) or stretched
// over its extent (a resampled RasterIO), written straight into the texels.
#include "core/io/imagery.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cpl_conv.h>
#include <cpl_string.h>
#include <gdal_alg.h>
#include <gdal_priv.h>
#include <gdal_utils.h>
#include <ogr_spatialref.h>
#include <stb_dxt.h>
#include <stb_rect_pack.h>

#include "core/io/gdal_capacity.h"
#include "core/io/gdal_inputs.h"
#include "core/io/gdal_raster.h"

namespace qt {
namespace {

// Points along each side of the lattice of map positions whose places in the imagery give its
// window and density: the map's edges and 31 lines between them.
constexpr int kLatticePoints = 33;

// The map's sample centres in its CRS: column c at x0 + c * dx, row r at y0 + r * dy (dx < 0
// when the columns run west, dy > 0 when row 0 is at the south).
struct MapGrid {
    double x0, y0, dx, dy;
};

MapGrid mapGrid(const Georeference& geo, int mapWidth, int mapHeight) {
    const double sx = (geo.east - geo.west) / mapWidth;
    const double sy = (geo.north - geo.south) / mapHeight;
    MapGrid g;
    g.x0 = geo.columnsWest ? geo.east - 0.5 * sx : geo.west + 0.5 * sx;
    g.dx = geo.columnsWest ? -sx : sx;
    g.y0 = geo.rowsNorth ? geo.south + 0.5 * sy : geo.north - 0.5 * sy;
    g.dy = geo.rowsNorth ? sy : -sy;
    return g;
}

// The map's CRS as GDAL takes it, or empty when the map has none to warp to.
std::string mapCrs(const Georeference& geo) {
    if (!geo.present) {
        return "";
    }
    if (!geo.crsWkt.empty()) {
        return geo.crsWkt;
    }
    return geo.geographic ? "EPSG:4326" : "";
}

// Where the map lies in the imagery: source pixels per map sample along the map's columns and
// rows (the densest the lattice finds), and the source window that covers the map (empty when
// the imagery misses it).
struct Footprint {
    double densityX = 0.0;
    double densityY = 0.0;
    double inside = 0.0;  // share of the lattice's map points inside the imagery's extent
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool empty() const { return x1 <= x0 || y1 <= y0; }
};

Result<Footprint> footprint(GDALDataset& source, const std::string& crs, const MapGrid& g,
                            int mapWidth, int mapHeight, const GdalMessages& messages) {
    using F = Result<Footprint>;
    CPLStringList options;
    options.SetNameValue("DST_SRS", crs.c_str());
    void* transformer =
        GDALCreateGenImgProjTransformer2(GDALDataset::ToHandle(&source), nullptr, options.List());
    if (transformer == nullptr) {
        return F::failure("its CRS cannot be transformed to the map's: " +
                          messages.line("no transformation"));
    }
    constexpr int n = kLatticePoints;
    std::vector<double> x(n * n), y(n * n), z(n * n, 0.0);
    std::vector<int> ok(n * n, 0);
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            x[j * n + i] = g.x0 + g.dx * (double(i) * (mapWidth - 1) / (n - 1));
            y[j * n + i] = g.y0 + g.dy * (double(j) * (mapHeight - 1) / (n - 1));
        }
    }
    GDALGenImgProjTransform(transformer, TRUE, n * n, x.data(), y.data(), z.data(), ok.data());
    GDALDestroyGenImgProjTransformer(transformer);

    Footprint f;
    double minX = HUGE_VAL, minY = HUGE_VAL, maxX = -HUGE_VAL, maxY = -HUGE_VAL;
    const double stepX = double(mapWidth - 1) / (n - 1);  // map samples between lattice points
    const double stepY = double(mapHeight - 1) / (n - 1);
    bool any = false;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < n; ++i) {
            const int k = j * n + i;
            if (!ok[k] || !std::isfinite(x[k]) || !std::isfinite(y[k])) {
                continue;
            }
            any = true;
            f.inside += x[k] >= 0.0 && y[k] >= 0.0 && x[k] <= source.GetRasterXSize() &&
                        y[k] <= source.GetRasterYSize();
            minX = std::min(minX, x[k]);
            maxX = std::max(maxX, x[k]);
            minY = std::min(minY, y[k]);
            maxY = std::max(maxY, y[k]);
            if (i + 1 < n && ok[k + 1]) {
                f.densityX =
                    std::max(f.densityX, std::hypot(x[k + 1] - x[k], y[k + 1] - y[k]) / stepX);
            }
            if (j + 1 < n && ok[k + n]) {
                f.densityY =
                    std::max(f.densityY, std::hypot(x[k + n] - x[k], y[k + n] - y[k]) / stepY);
            }
        }
    }
    if (!any || !(f.densityX > 0.0) || !(f.densityY > 0.0) || !std::isfinite(f.densityX) ||
        !std::isfinite(f.densityY)) {
        return F::failure("its CRS cannot be transformed to the map's over the map's extent: " +
                          messages.line("every point failed"));
    }
    f.inside /= double(n * n);
    // A pixel more on each side for the resampling kernel; clipped to the imagery.
    const double w = source.GetRasterXSize();
    const double h = source.GetRasterYSize();
    f.x0 = int(std::clamp(std::floor(minX) - 1.0, 0.0, w));
    f.x1 = int(std::clamp(std::ceil(maxX) + 1.0, 0.0, w));
    f.y0 = int(std::clamp(std::floor(minY) - 1.0, 0.0, h));
    f.y1 = int(std::clamp(std::ceil(maxY) + 1.0, 0.0, h));
    return f;
}

// The texture's size: the imagery's own texels over the map, each axis lowered to the texels per
// sample allowed, then both by one factor to the side and bytes allowed; the warning names the
// limits that lowered it.
struct TextureSize {
    int width = 1;
    int height = 1;
    std::string warning;
};

TextureSize fitLimits(double nativeWidth, double nativeHeight, int mapWidth, int mapHeight,
                      const ImageryLimits& limits) {
    double w = std::max(1.0, nativeWidth);
    double h = std::max(1.0, nativeHeight);
    std::string why;
    const auto because = [&why](const std::string& limit) {
        why += (why.empty() ? "" : ", ") + limit;
    };
    if (limits.maxTexelsPerSample > 0.0) {
        const double mostX = limits.maxTexelsPerSample * (mapWidth - 1);
        const double mostY = limits.maxTexelsPerSample * (mapHeight - 1);
        if (w > mostX || h > mostY) {
            because("at most " + gdalNumber(limits.maxTexelsPerSample) + " texels per sample");
        }
        w = std::min(w, std::max(1.0, mostX));
        h = std::min(h, std::max(1.0, mostY));
    }
    double s = 1.0;
    const double side = std::max(1, limits.maxSide);
    if (w > side || h > side) {
        s = std::min(side / w, side / h);
        because(std::to_string(limits.maxSide) + " texels a side");
    }
    const double bytes = 4.0 * (w * s) * (h * s);
    if (bytes > double(limits.maxBytes)) {
        s *= std::sqrt(double(limits.maxBytes) / bytes);
        because(gdalNumber(double(limits.maxBytes) / 1048576.0) + " MiB of texels");
    }
    TextureSize t;
    t.width = std::max(1, int(std::floor(w * s + 1e-9)));
    t.height = std::max(1, int(std::floor(h * s + 1e-9)));
    if (t.width < int(std::min(nativeWidth, 2e9)) || t.height < int(std::min(nativeHeight, 2e9))) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "imagery density lowered from %.3g x %.3g to %.3g x %.3g texels per map "
                      "sample (%d x %d texels) to fit ",
                      nativeWidth / (mapWidth - 1), nativeHeight / (mapHeight - 1),
                      double(t.width) / (mapWidth - 1), double(t.height) / (mapHeight - 1), t.width,
                      t.height);
        t.warning = line + why;
    }
    return t;
}

// The overview level to read (-1: the full raster): the coarsest one with at least one source
// pixel per texel on both axes, as GDAL chooses one.
int overviewLevel(GDALRasterBand& band, double pixelsPerTexelX, double pixelsPerTexelY) {
    int best = -1;
    double bestFactor = 1.0;
    for (int k = 0; k < band.GetOverviewCount(); ++k) {
        GDALRasterBand* ovr = band.GetOverview(k);
        if (ovr == nullptr || ovr->GetXSize() < 1 || ovr->GetYSize() < 1) {
            continue;
        }
        const double fx = double(band.GetXSize()) / ovr->GetXSize();
        const double fy = double(band.GetYSize()) / ovr->GetYSize();
        if (fx <= pixelsPerTexelX * (1.0 + 1e-9) && fy <= pixelsPerTexelY * (1.0 + 1e-9) &&
            fx * fy > bestFactor) {
            best = k;
            bestFactor = fx * fy;
        }
    }
    return best;
}

struct HandleCloser {
    void operator()(void* h) const {
        if (h != nullptr) {
            GDALClose(h);
        }
    }
};
using DatasetHandle = std::unique_ptr<void, HandleCloser>;

// The source as four 8-bit bands, red, green, blue and alpha (a VRT in memory, nothing read):
// a palette expanded (its nodata entry transparent); grey repeated into red, green and blue;
// 16-bit colour stretched by `scaleMax` to 0..255 and 16-bit alpha by 65535; without an alpha
// band, the alpha is the first band's mask (nodata, a mask band: 0; elsewhere 255).
Result<DatasetHandle> rgbaVrt(GDALDataset& source, bool palette, bool wide, double scaleMax,
                              const GdalMessages& messages) {
    using V = Result<DatasetHandle>;
    CPLStringList args;
    args.AddString("-of");
    args.AddString("VRT");
    if (palette) {
        args.AddString("-expand");
        args.AddString("rgba");
    } else {
        static const char* const kBands[4][4] = {{"1", "1", "1", "mask"},
                                                 {"1", "1", "1", "2"},
                                                 {"1", "2", "3", "mask"},
                                                 {"1", "2", "3", "4"}};
        const int bands = source.GetRasterCount();
        for (const char* b : kBands[bands - 1]) {
            args.AddString("-b");
            args.AddString(b);
        }
        args.AddString("-ot");
        args.AddString("Byte");
        if (wide) {
            const std::string top = gdalNumber(scaleMax);
            for (int b = 1; b <= 4; ++b) {
                const bool alpha = b == 4;
                if (alpha && (bands == 1 || bands == 3)) {
                    continue;  // the mask is 0 or 255 already
                }
                args.AddString(("-scale_" + std::to_string(b)).c_str());
                args.AddString("0");
                args.AddString(alpha ? "65535" : top.c_str());
                args.AddString("0");
                args.AddString("255");
            }
        }
        args.AddString("-a_nodata");  // the alpha says what is missing, not a value
        args.AddString("none");
        args.AddString("-mask");
        args.AddString("none");
    }
    GDALTranslateOptions* options = GDALTranslateOptionsNew(args.List(), nullptr);
    if (options == nullptr) {
        return V::failure("cannot convert its bands: " + messages.line("bad options"));
    }
    DatasetHandle vrt(GDALTranslate("", GDALDataset::ToHandle(&source), options, nullptr));
    GDALTranslateOptionsFree(options);
    if (!vrt || GDALGetRasterCount(vrt.get()) != 4) {
        return V::failure("cannot convert its bands to RGBA: " + messages.line("translate failed"));
    }
    const GDALColorInterp interp[4] = {GCI_RedBand, GCI_GreenBand, GCI_BlueBand, GCI_AlphaBand};
    for (int b = 0; b < 4; ++b) {
        GDALSetRasterColorInterpretation(GDALGetRasterBand(vrt.get(), b + 1), interp[b]);
    }
    return V(std::move(vrt));
}

// A MEM dataset whose `bands` bands are the first bytes of width x height texels of four bytes at
// `rgba` (row-major), written in place: with four, R, G, B and A (its alpha band); with one, a
// byte of each texel as plain data.
GDALDatasetUniquePtr texelDataset(uint8_t* rgba, int width, int height, int bands = 4) {
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    GDALDatasetUniquePtr ds(mem->Create("", width, height, 0, GDT_Byte, nullptr));
    if (!ds) {
        return ds;
    }
    for (int b = 0; b < bands; ++b) {
        char pointer[64] = {};
        CPLPrintPointer(pointer, rgba + b, sizeof pointer - 1);
        CPLStringList options;
        options.SetNameValue("DATAPOINTER", pointer);
        options.SetNameValue("PIXELOFFSET", "4");
        options.SetNameValue("LINEOFFSET", std::to_string(size_t(width) * 4).c_str());
        if (ds->AddBand(GDT_Byte, options.List()) != CE_None) {
            return GDALDatasetUniquePtr();
        }
    }
    if (bands == 4) {
        ds->GetRasterBand(4)->SetColorInterpretation(GCI_AlphaBand);
    }
    return ds;
}

// The colour bands' largest sample (an alpha band's left out), approximate as GDAL computes it
// (from an overview or a sample of blocks, or the file's statistics): what 16-bit colour is
// stretched by.
Result<double> largestColourSample(GDALDataset& source, const GdalMessages& messages) {
    const int bands = source.GetRasterCount();
    const int colourBands = bands == 2 || bands == 4 ? bands - 1 : bands;
    double largest = 0.0;
    for (int b = 1; b <= colourBands; ++b) {
        double minMax[2] = {0.0, 0.0};
        if (GDALComputeRasterMinMax(GDALRasterBand::ToHandle(source.GetRasterBand(b)), TRUE,
                                    minMax) != CE_None) {
            return Result<double>::failure("cannot read its samples: " +
                                           messages.line("read failed"));
        }
        largest = std::max(largest, minMax[1]);
    }
    return largest;
}

// Overview `level` of the raster at `path` as a dataset of its own (GDAL's generic OVERVIEW_LEVEL
// open option), or null.
GDALDatasetUniquePtr openOverview(const std::string& path, int level) {
    CPLStringList openOptions;
    openOptions.SetNameValue("OVERVIEW_LEVEL", std::to_string(level).c_str());
    return GDALDatasetUniquePtr(
        GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR,
                          nullptr, openOptions.List(), nullptr));
}

// Colour premultiplied by alpha: a texel the imagery does not cover is (0, 0, 0, 0), and its
// neighbours' filtered colours, divided by their filtered alpha in the shader, keep their own
// colour.
void premultiply(uint8_t* rgba, size_t texels) {
    for (size_t i = 0; i < texels * 4; i += 4) {
        const unsigned alpha = rgba[i + 3];
        if (alpha != 255) {
            for (size_t c = 0; c < 3; ++c) {
                rgba[i + c] = uint8_t((rgba[i + c] * alpha + 127) / 255);
            }
        }
    }
}

// Warps `from` into `into` (its geotransform and CRS set): bilinear, or average when `minify`,
// at scaleX x scaleY texels a source pixel; `alpha`: the last bands are alpha on both sides
// (colour averaged by it), else every band is data; `stretched`: by the geotransforms alone.
Status warpInto(GDALDatasetH from, GDALDataset* into, bool minify, double scaleX, double scaleY,
                bool stretched, bool alpha, const GdalMessages& messages) {
    CPLStringList args;
    for (const char* a :
         {"-r", minify ? "average" : "bilinear", "-ovr", "NONE", "-wo", "INIT_DEST=0"}) {
        args.AddString(a);
    }
    args.AddString("-wo");
    args.AddString(("XSCALE=" + gdalNumber(scaleX)).c_str());
    args.AddString("-wo");
    args.AddString(("YSCALE=" + gdalNumber(scaleY)).c_str());
    if (alpha) {
        args.AddString("-srcalpha");
        args.AddString("-dstalpha");
    }
    if (stretched) {
        args.AddString("-to");
        args.AddString("SRC_METHOD=GEOTRANSFORM");
    }
    GDALWarpAppOptions* options = GDALWarpAppOptionsNew(args.List(), nullptr);
    if (options == nullptr) {
        return Status::failure("cannot warp it: " + messages.line("bad options"));
    }
    GDALDatasetH sources[1] = {from};
    int usageError = 0;
    GDALDatasetH warped =
        GDALWarp(nullptr, GDALDataset::ToHandle(into), 1, sources, options, &usageError);
    GDALWarpAppOptionsFree(options);
    if (warped == nullptr) {
        return Status::failure("cannot read or warp it: " + messages.line("warp failed"));
    }
    return {};
}

}  // namespace

void compressImageryPage(const uint8_t* rgba, int side, uint8_t* blocks) {
    uint8_t block[64];
    for (int by = 0; by < side; by += 4) {
        for (int bx = 0; bx < side; bx += 4) {
            for (int y = 0; y < 4; ++y) {
                std::copy_n(&rgba[(size_t(by + y) * size_t(side) + size_t(bx)) * 4], 16,
                            &block[y * 16]);
            }
            stb_compress_dxt_block(blocks, block, 1, STB_DXT_HIGHQUAL);
            blocks += 16;
        }
    }
}

void ImageryPlan::pageOf(uint32_t id, int& k, int& px, int& py) const {
    k = 0;
    while (k < tail && int(id) >= level[size_t(k) + 1].firstPage) {
        ++k;
    }
    const int local = int(id) - level[size_t(k)].firstPage;
    px = local % level[size_t(k)].pagesX;
    py = local / level[size_t(k)].pagesX;
}

ImageryPlan planImagery(int mapWidth, int mapHeight, int width, int height, int pageTexels,
                        int border) {
    ImageryPlan plan;
    plan.mapWidth = mapWidth;
    plan.mapHeight = mapHeight;
    plan.pageTexels = pageTexels;
    plan.border = border;
    for (int k = 0; k < kImageryMaxLevels; ++k) {
        ImageryLevel l;
        l.texelsX = std::max(1, int((int64_t(width) + (int64_t(1) << k) - 1) >> k));
        l.texelsY = std::max(1, int((int64_t(height) + (int64_t(1) << k) - 1) >> k));
        l.pagesX = (l.texelsX + pageTexels - 1) / pageTexels;
        l.pagesY = (l.texelsY + pageTexels - 1) / pageTexels;
        plan.level.push_back(l);
        // A mip chain's, down to two texels a side: GDAL's warper averages nothing into a texel
        // as wide as its source (GDAL 3.6: a 1 x 1 average of a 128^2 image is 0).
        if (l.texelsX <= 2 && l.texelsY <= 2) {
            break;
        }
    }
    plan.base = 0;
    while (plan.base < plan.top() && (plan.level[size_t(plan.base)].texelsX > kImageryBaseSide ||
                                      plan.level[size_t(plan.base)].texelsY > kImageryBaseSide)) {
        ++plan.base;
    }
    // The tail: the least t whose levels t..top all fit in one page, placed by stb's rectangle
    // packer (a skyline, bottom-left first).
    std::vector<stbrp_node> nodes(size_t(plan.side()));
    std::vector<stbrp_rect> rects;
    const auto pack = [&](int t) {
        rects.clear();
        for (int k = t; k <= plan.top(); ++k) {
            stbrp_rect r{};
            r.id = k;
            r.w = plan.level[size_t(k)].texelsX + 2 * border;
            r.h = plan.level[size_t(k)].texelsY + 2 * border;
            rects.push_back(r);
        }
        stbrp_context context;
        stbrp_init_target(&context, plan.side(), plan.side(), nodes.data(), int(nodes.size()));
        if (stbrp_pack_rects(&context, rects.data(), int(rects.size())) == 0) {
            return false;
        }
        for (const stbrp_rect& r : rects) {
            plan.level[size_t(r.id)].originX = r.x;
            plan.level[size_t(r.id)].originY = r.y;
        }
        return true;
    };
    // The top level alone always fits (two texels and borders); a packing that fails places
    // nothing.
    plan.tail = plan.top();
    pack(plan.tail);
    while (plan.tail > 0 && pack(plan.tail - 1)) {
        --plan.tail;
    }
    for (int k = 0; k <= plan.top(); ++k) {
        ImageryLevel& l = plan.level[size_t(k)];
        if (k < plan.tail) {
            l.firstPage = plan.pages;
            l.tableRow = plan.tableHeight;
            plan.pages += l.pagesX * l.pagesY;
            plan.tableHeight += l.pagesY;
            l.originX = l.originY = 0;
        } else {
            l.firstPage = plan.tail == k ? plan.pages++ : plan.level[size_t(plan.tail)].firstPage;
            l.tableRow = -1;
        }
    }
    plan.tableWidth = plan.level[0].pagesX;
    plan.tableHeight = std::max(plan.tableHeight, 1);
    return plan;
}

struct ImageryReader::Impl {
    ImageryPlan plan;
    std::string path;           // what GDAL opens ("" for texels in memory)
    GDALDatasetUniquePtr base;  // the file, or the MEM dataset over `texels`
    std::vector<uint8_t> texels;
    bool inMemory = false;  // base is already RGBA, placed over the map
    // Warped from its CRS to the map's (crs, over grid), else stretched over the map's extent:
    // its pixels' edges on the map's outer sample centres, in the space of map columns and rows.
    bool georeferenced = false;
    std::string crs;
    OGRSpatialReference mapSrs;
    MapGrid grid{};
    bool palette = false;
    bool wide = false;
    double scaleMax = 65535.0;
    std::vector<int> overview;    // per level: the overview read, or -1 (the full raster)
    std::vector<uint8_t> minify;  // per level: averaged (source pixels finer than texels)
    // Per level: texels per source pixel read (of its overview) along x and y. Given to the
    // warper, which would otherwise take them from each chunk's windows, so that a page reaching
    // past the image's edge would average differently from the same texels read whole.
    std::vector<double> scaleX;
    std::vector<double> scaleY;
    std::map<int, GDALDatasetUniquePtr> overviews;  // opened overview datasets
    std::map<int, DatasetHandle> rgba;              // per overview read: its RGBA source
    // Per overview read: its alpha as a band of plain data. GDAL's warper averages colour by
    // alpha, but gives a texel any source pixel covers full alpha; the coverage is warped apart,
    // as data, so that a texel half covered has half its alpha at every level.
    std::map<int, DatasetHandle> alpha;
    GDALDatasetUniquePtr texelAlpha;  // in memory: the texels' alpha bytes as one band

    // The RGBA source for level k's reads, and its alpha alone, made on first use.
    Result<GDALDatasetH> source(int k, const GdalMessages& messages);
    Result<GDALDatasetH> alphaSource(int k, const GdalMessages& messages);
    // Level k's texels [firstX, firstX + width) x [firstY, firstY + height) warped into `out`
    // (colour not premultiplied).
    Status warp(int k, int firstX, int firstY, int width, int height, uint8_t* out);
    // Levels plan.base..top, each stored with its border ([-border, texels + border) on each
    // axis, row-major), made on first use (ImageryReader::readPage).
    std::vector<std::vector<uint8_t>> small;
    Status makeSmall();
    // Level k's texels [x0, x0 + w) x [y0, y0 + h), k at least the base, into `out` (w x h
    // texels); texels past its stored border take the nearest it has.
    void copySmall(int k, int x0, int y0, int w, int h, uint8_t* out) const;
    // The tail's page (ImageryReader::readPage).
    Status readTail(uint8_t* page);
};

Result<GDALDatasetH> ImageryReader::Impl::source(int k, const GdalMessages& messages) {
    using S = Result<GDALDatasetH>;
    if (inMemory) {
        return GDALDataset::ToHandle(base.get());
    }
    const int o = overview[size_t(k)];
    if (auto found = rgba.find(o); found != rgba.end()) {
        return found->second.get();
    }
    GDALDataset* from = base.get();
    if (o >= 0) {
        GDALDatasetUniquePtr opened = openOverview(path, o);
        if (!opened) {
            return S::failure("cannot open its overview " + std::to_string(o) + ": " +
                              messages.line("open failed"));
        }
        from = opened.get();
        overviews[o] = std::move(opened);
    }
    Result<DatasetHandle> made = rgbaVrt(*from, palette, wide, scaleMax, messages);
    if (!made) {
        return S::failure(made.error());
    }
    GDALDatasetH vrt = made.value().get();
    if (!georeferenced) {
        // Stretched: pixel edges from map column 0 to mapWidth - 1, row 0 to mapHeight - 1.
        double t[6] = {0.0, double(plan.mapWidth - 1) / GDALGetRasterXSize(vrt), 0.0, 0.0,
                       0.0, double(plan.mapHeight - 1) / GDALGetRasterYSize(vrt)};
        GDALSetGeoTransform(vrt, t);
        GDALSetSpatialRef(vrt, nullptr);
    }
    rgba[o] = std::move(made).value();
    return vrt;
}

Result<GDALDatasetH> ImageryReader::Impl::alphaSource(int k, const GdalMessages& messages) {
    using S = Result<GDALDatasetH>;
    if (inMemory) {
        return GDALDataset::ToHandle(texelAlpha.get());
    }
    const int o = overview[size_t(k)];
    if (auto found = alpha.find(o); found != alpha.end()) {
        return found->second.get();
    }
    Result<GDALDatasetH> colour = source(k, messages);
    if (!colour) {
        return colour;
    }
    CPLStringList args;
    for (const char* a : {"-of", "VRT", "-b", "4"}) {
        args.AddString(a);
    }
    GDALTranslateOptions* options = GDALTranslateOptionsNew(args.List(), nullptr);
    if (options == nullptr) {
        return S::failure("cannot take its alpha: " + messages.line("bad options"));
    }
    DatasetHandle vrt(GDALTranslate("", colour.value(), options, nullptr));
    GDALTranslateOptionsFree(options);
    if (!vrt) {
        return S::failure("cannot take its alpha: " + messages.line("translate failed"));
    }
    GDALSetRasterColorInterpretation(GDALGetRasterBand(vrt.get(), 1), GCI_GrayIndex);
    GDALDatasetH handle = vrt.get();
    alpha[o] = std::move(vrt);
    return handle;
}

Status ImageryReader::Impl::warp(int k, int firstTexelX, int firstTexelY, int width, int height,
                                 uint8_t* out) {
    const GdalMessages messages;
    Result<GDALDatasetH> from = source(k, messages);
    if (!from) {
        return Status::failure(from.error());
    }
    std::fill(out, out + size_t(width) * size_t(height) * 4, uint8_t(0));
    GDALDatasetUniquePtr page = texelDataset(out, width, height);
    if (!page) {
        return Status::failure("cannot make a page: " + messages.line("MEM failed"));
    }
    // Level k's texel edges: level 0's, 2^k of them to a texel, from the map's first sample.
    const double scale = std::ldexp(1.0, k);
    const double firstX = double(firstTexelX) * scale;
    const double firstY = double(firstTexelY) * scale;
    const double texelX = double(plan.mapWidth - 1) / plan.level[0].texelsX;
    const double texelY = double(plan.mapHeight - 1) / plan.level[0].texelsY;
    if (georeferenced) {
        const double t[6] = {grid.x0 + grid.dx * texelX * firstX,
                             grid.dx * texelX * scale,
                             0.0,
                             grid.y0 + grid.dy * texelY * firstY,
                             0.0,
                             grid.dy * texelY * scale};
        page->SetGeoTransform(const_cast<double*>(t));
        page->SetSpatialRef(&mapSrs);
    } else {
        const double t[6] = {texelX * firstX, texelX * scale, 0.0, texelY * firstY, 0.0,
                             texelY * scale};
        page->SetGeoTransform(const_cast<double*>(t));
    }
    const bool averaged = minify[size_t(k)] != 0;
    if (Status colour = warpInto(from.value(), page.get(), averaged, scaleX[size_t(k)],
                                 scaleY[size_t(k)], !georeferenced, true, messages);
        !colour) {
        return colour;
    }
    Result<GDALDatasetH> coverage = alphaSource(k, messages);
    if (!coverage) {
        return Status::failure(coverage.error());
    }
    GDALDatasetUniquePtr alphaPage = texelDataset(out + 3, width, height, 1);
    if (!alphaPage) {
        return Status::failure("cannot make a page: " + messages.line("MEM failed"));
    }
    double t[6];
    page->GetGeoTransform(t);
    alphaPage->SetGeoTransform(t);
    alphaPage->SetSpatialRef(page->GetSpatialRef());
    return warpInto(coverage.value(), alphaPage.get(), averaged, scaleX[size_t(k)],
                    scaleY[size_t(k)], !georeferenced, false, messages);
}

ImageryReader::ImageryReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ImageryReader::~ImageryReader() = default;

const ImageryPlan& ImageryReader::plan() const {
    return impl_->plan;
}

Status ImageryReader::readPage(int level, int px, int py, uint8_t* rgba) {
    const ImageryPlan& plan = impl_->plan;
    if (level < 0 || level > plan.top() || px < 0 || py < 0 ||
        px >= plan.level[size_t(level)].pagesX || py >= plan.level[size_t(level)].pagesY) {
        return Status::failure("no such imagery page");
    }
    if (plan.inTail(level)) {
        return impl_->readTail(rgba);
    }
    const int x0 = px * plan.pageTexels - plan.border, y0 = py * plan.pageTexels - plan.border;
    if (level >= plan.base) {
        if (Status made = impl_->makeSmall(); !made) {
            return made;
        }
        impl_->copySmall(level, x0, y0, plan.side(), plan.side(), rgba);
        return {};
    }
    return readTexels(level, x0, y0, plan.side(), plan.side(), rgba, true);
}

Status ImageryReader::Impl::makeSmall() {
    if (!small.empty()) {
        return {};
    }
    const int border = plan.border;
    std::vector<std::vector<uint8_t>> levels(size_t(plan.top() - plan.base + 1));
    const ImageryLevel& bottom = plan.level[size_t(plan.base)];
    int w = bottom.texelsX + 2 * border, h = bottom.texelsY + 2 * border;
    levels[0].resize(size_t(w) * size_t(h) * 4);
    if (Status read = warp(plan.base, -border, -border, w, h, levels[0].data()); !read) {
        return read;
    }
    premultiply(levels[0].data(), size_t(w) * size_t(h));
    for (int k = plan.base + 1; k <= plan.top(); ++k) {
        // Level k's texel (x, y) is the mean of level k - 1's (2x, 2y) to (2x + 1, 2y + 1).
        const std::vector<uint8_t>& below = levels[size_t(k - 1 - plan.base)];
        const ImageryLevel& l = plan.level[size_t(k)];
        const int uw = l.texelsX + 2 * border, uh = l.texelsY + 2 * border;
        std::vector<uint8_t>& up = levels[size_t(k - plan.base)];
        up.resize(size_t(uw) * size_t(uh) * 4);
        const auto at = [&](int x, int y) {  // level k - 1's texel (x, y), edge-clamped
            x = std::clamp(x + border, 0, w - 1);
            y = std::clamp(y + border, 0, h - 1);
            return &below[(size_t(y) * size_t(w) + size_t(x)) * 4];
        };
        for (int y = 0; y < uh; ++y) {
            for (int x = 0; x < uw; ++x) {
                const int lx = 2 * (x - border), ly = 2 * (y - border);
                const uint8_t *a = at(lx, ly), *b = at(lx + 1, ly), *c = at(lx, ly + 1),
                              *d = at(lx + 1, ly + 1);
                uint8_t* out = &up[(size_t(y) * size_t(uw) + size_t(x)) * 4];
                for (int i = 0; i < 4; ++i) {
                    out[i] = uint8_t((unsigned(a[i]) + b[i] + c[i] + d[i] + 2) / 4);
                }
            }
        }
        w = uw;
        h = uh;
    }
    small = std::move(levels);
    return {};
}

void ImageryReader::Impl::copySmall(int k, int x0, int y0, int w, int h, uint8_t* out) const {
    const ImageryLevel& l = plan.level[size_t(k)];
    const int border = plan.border;
    const int sw = l.texelsX + 2 * border, sh = l.texelsY + 2 * border;
    const std::vector<uint8_t>& stored = small[size_t(k - plan.base)];
    for (int y = 0; y < h; ++y) {
        const int sy = std::clamp(y0 + y + border, 0, sh - 1);
        for (int x = 0; x < w; ++x) {
            const int sx = std::clamp(x0 + x + border, 0, sw - 1);
            std::copy_n(&stored[(size_t(sy) * size_t(sw) + size_t(sx)) * 4], 4,
                        &out[(size_t(y) * size_t(w) + size_t(x)) * 4]);
        }
    }
}

// The tail's levels at their places: those below the base read through GDAL, the rest from the
// levels made in memory.
Status ImageryReader::Impl::readTail(uint8_t* page) {
    const int side = plan.side(), border = plan.border;
    std::fill(page, page + size_t(side) * size_t(side) * 4, uint8_t(0));
    std::vector<uint8_t> stored;
    for (int k = plan.tail; k <= plan.top(); ++k) {
        const ImageryLevel& l = plan.level[size_t(k)];
        const int w = l.texelsX + 2 * border, h = l.texelsY + 2 * border;
        stored.resize(size_t(w) * size_t(h) * 4);
        if (k < plan.base) {
            if (Status read = warp(k, -border, -border, w, h, stored.data()); !read) {
                return read;
            }
            premultiply(stored.data(), size_t(w) * size_t(h));
        } else {
            if (Status made = makeSmall(); !made) {
                return made;
            }
            copySmall(k, -border, -border, w, h, stored.data());
        }
        for (int y = 0; y < h; ++y) {
            std::copy_n(&stored[size_t(y) * size_t(w) * 4], size_t(w) * 4,
                        &page[(size_t(l.originY + y) * size_t(side) + size_t(l.originX)) * 4]);
        }
    }
    return {};
}

Status ImageryReader::readTexels(int level, int firstX, int firstY, int width, int height,
                                 uint8_t* rgba, bool premultiplied) {
    if (level < 0 || level > impl_->plan.top() || width < 1 || height < 1) {
        return Status::failure("no such imagery texels");
    }
    if (Status warped = impl_->warp(level, firstX, firstY, width, height, rgba); !warped) {
        return warped;
    }
    if (premultiplied) {
        premultiply(rgba, size_t(width) * size_t(height));
    }
    return {};
}

namespace {

// The share of the map the imagery covers: the top level's mean alpha over the map.
double topCoverage(const ImageryPlan& plan, const std::vector<uint8_t>& page) {
    const ImageryLevel& top = plan.level[size_t(plan.top())];
    double covered = 0.0;
    for (int y = 0; y < top.texelsY; ++y) {
        for (int x = 0; x < top.texelsX; ++x) {
            const size_t at = (size_t(top.originY + y + plan.border) * size_t(plan.side()) +
                               size_t(top.originX + x + plan.border)) *
                              4;
            covered += page[at + 3];
        }
    }
    return covered / 255.0 / (double(top.texelsX) * top.texelsY);
}

// What openImagery and loadImagery share: the source checked, placed and sized, and the reader
// made; `whole` sizes level 0 as one texture (loadImagery's limits) and checks its whole read.
Result<OpenedImagery> openChecked(const std::string& imagePath, int mapWidth, int mapHeight,
                                  const Georeference& geo, const ImageryLimits& limits,
                                  int pageTexels, bool whole) {
    using R = Result<OpenedImagery>;
    if (mapWidth < 2 || mapHeight < 2) {
        return R::failure("the map is " + std::to_string(mapWidth) + " x " +
                          std::to_string(mapHeight) + " samples; imagery needs at least 2 x 2");
    }
    registerGdalDrivers();  // before the first read: its options bound a network read's waits
    const std::string path = networkGdalPath(imagePath);  // imagery named by URL: byte ranges
    if (Status inputs = checkGdalInputs(path); !inputs) {
        return R::failure(inputs.error());
    }
    const GdalMessages messages;
    auto impl = std::make_unique<ImageryReader::Impl>();
    impl->path = path;
    impl->base.reset(
        GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR));
    if (!impl->base) {
        return R::failure("GDAL cannot open it: " + messages.line("not a raster GDAL reads"));
    }
    GDALDataset& base = *impl->base;
    OpenedImagery out;
    ImageryInfo& info = out.info;
    info.source = imagePath;
    info.sourceWidth = base.GetRasterXSize();
    info.sourceHeight = base.GetRasterYSize();
    info.bands = base.GetRasterCount();
    if (info.bands < 1 || info.bands > 4) {
        return R::failure("raster has " + std::to_string(info.bands) +
                          " bands; imagery is 1 to 4 (grey, grey + alpha, RGB, RGBA): pick them "
                          "with gdal_translate -b 1 -b 2 -b 3");
    }
    GDALRasterBand& first = *base.GetRasterBand(1);
    const GDALDataType type = first.GetRasterDataType();
    info.type = GDALGetDataTypeName(type);
    for (int b = 2; b <= info.bands; ++b) {
        if (base.GetRasterBand(b)->GetRasterDataType() != type) {
            return R::failure(
                "bands hold different sample types; make them one with "
                "gdal_translate -ot Byte -scale");
        }
    }
    if (type != GDT_Byte && type != GDT_UInt16) {
        return R::failure("samples are " + info.type +
                          "; imagery is 8- or 16-bit unsigned: convert it with gdal_translate "
                          "-ot Byte -scale MIN MAX 0 255");
    }
    if (Status capacity = checkGdalCapacity(base, first); !capacity) {
        return R::failure(capacity.error());
    }
    impl->palette = info.bands == 1 && first.GetColorInterpretation() == GCI_PaletteIndex &&
                    first.GetColorTable() != nullptr;

    // Placed by its georeference when both it and the map have a CRS to warp between.
    double transform[6];
    const bool hasTransform = base.GetGeoTransform(transform) == CE_None;
    const OGRSpatialReference* srs =
        hasTransform ? base.GetSpatialRef()
                     : (base.GetGCPCount() > 0 ? base.GetGCPSpatialRef() : nullptr);
    const bool imageGeoreferenced = srs != nullptr;
    const std::string crs = mapCrs(geo);
    info.georeferenced = imageGeoreferenced && !crs.empty();
    if (imageGeoreferenced) {
        const char* name = srs->GetName();
        info.crsName = name ? name : "";
    }
    if (imageGeoreferenced && crs.empty()) {
        out.warnings.push_back(
            geo.present ? "imagery is georeferenced but the map has no CRS: it could not be "
                          "placed and is stretched over the map's extent"
                        : "imagery is georeferenced but the map is not: it could not be placed "
                          "and is stretched over the map's extent");
    } else if (!imageGeoreferenced && geo.present) {
        out.warnings.push_back(
            hasTransform ? "imagery has a geotransform but no CRS: stretched over the map's "
                           "extent (give it one with gdal_edit.py -a_srs)"
                         : "imagery has no georeference: stretched over the map's extent");
    }

    // The imagery's own density over the map and the window it reads, before any pixel.
    const MapGrid grid = mapGrid(geo, mapWidth, mapHeight);
    Footprint fp;
    if (info.georeferenced) {
        Result<Footprint> found = footprint(base, crs, grid, mapWidth, mapHeight, messages);
        if (!found) {
            return R::failure(found.error());
        }
        fp = found.value();
    } else {
        fp.densityX = double(info.sourceWidth) / (mapWidth - 1);
        fp.densityY = double(info.sourceHeight) / (mapHeight - 1);
        fp.x1 = info.sourceWidth;
        fp.y1 = info.sourceHeight;
    }
    info.nativeTexelsPerSampleX = fp.densityX;
    info.nativeTexelsPerSampleY = fp.densityY;
    info.coverage = info.georeferenced ? fp.inside : 1.0;
    const double nativeWidth = info.georeferenced
                                   ? std::max(1.0, std::round(fp.densityX * (mapWidth - 1)))
                                   : double(info.sourceWidth);
    const double nativeHeight = info.georeferenced
                                    ? std::max(1.0, std::round(fp.densityY * (mapHeight - 1)))
                                    : double(info.sourceHeight);
    ImageryLimits sized = limits;
    if (!whole) {
        sized.maxBytes = std::numeric_limits<uint64_t>::max();  // pages: bounded by the pool
    }
    const TextureSize size = fitLimits(nativeWidth, nativeHeight, mapWidth, mapHeight, sized);
    if (!size.warning.empty()) {
        out.warnings.push_back(size.warning);
    }
    info.width = size.width;
    info.height = size.height;
    info.texelsPerSampleX = double(size.width) / (mapWidth - 1);
    info.texelsPerSampleY = double(size.height) / (mapHeight - 1);
    // Whole: one level (its pages are never read as such).
    out.plan = planImagery(mapWidth, mapHeight, size.width, size.height,
                           whole ? std::max(size.width, size.height) : pageTexels,
                           whole ? 0 : kImageryPageBorder);
    if (fp.empty()) {
        out.warnings.push_back("imagery covers none of the map; the terrain is shown without it");
        return out;
    }

    // Each level's source pixels per texel decide its overview and its resampling; a page's read
    // (or, whole, level 0's) is checked against the limit before anything is read, up to the
    // base (the levels above it are made from it).
    impl->plan = out.plan;
    const int levels = whole ? 1 : int(out.plan.level.size());
    int coarsest = -1;
    for (int k = 0; k < levels; ++k) {
        const double perTexelX = fp.densityX / info.texelsPerSampleX * std::ldexp(1.0, k);
        const double perTexelY = fp.densityY / info.texelsPerSampleY * std::ldexp(1.0, k);
        const int level = overviewLevel(first, perTexelX, perTexelY);
        double factorX = 1.0, factorY = 1.0;
        if (level >= 0) {
            GDALRasterBand* ovr = first.GetOverview(level);
            factorX = double(info.sourceWidth) / ovr->GetXSize();
            factorY = double(info.sourceHeight) / ovr->GetYSize();
        }
        // A page's window, at most the part of the source over the map.
        const double windowX = double(fp.x1 - fp.x0), windowY = double(fp.y1 - fp.y0);
        const double readX = whole ? windowX : std::min(out.plan.side() * perTexelX, windowX);
        const double readY = whole ? windowY : std::min(out.plan.side() * perTexelY, windowY);
        const double toRead = readX / factorX * (readY / factorY);
        if (k > out.plan.base) {
            // Not read through GDAL.
        } else if (toRead > double(limits.maxReadPixels)) {
            return R::failure(
                "imagery needs " + gdalNumber(toRead) + " pixels read " +
                (whole ? "for this map, " : "for a page of its level " + std::to_string(k) + ", ") +
                (level >= 0 ? "even from its coarsest usable overview" : "having no overviews") +
                " (at most " + gdalNumber(double(limits.maxReadPixels)) +
                "): add overviews with gdaladdo -r average");
        } else if (k == out.plan.base && level < 0 && toRead > double(limits.quickReadPixels)) {
            out.warnings.push_back("imagery has no overviews: its coarsest levels read " +
                                   gdalNumber(toRead) +
                                   " pixels at open; gdaladdo -r average makes that fast");
        }
        impl->overview.push_back(level);
        impl->minify.push_back(perTexelX > 1.0 + 1e-9 && perTexelY > 1.0 + 1e-9);
        impl->scaleX.push_back(factorX / perTexelX);
        impl->scaleY.push_back(factorY / perTexelY);
        coarsest = level;
    }

    // 16-bit colour: stretched by the colour bands' common largest value, as the coarsest level's
    // source has it.
    impl->wide = type == GDT_UInt16 && !impl->palette;
    if (impl->wide) {
        GDALDatasetUniquePtr overview = coarsest >= 0 ? openOverview(path, coarsest) : nullptr;
        const Result<double> largest = largestColourSample(overview ? *overview : base, messages);
        if (!largest) {
            return R::failure(largest.error());
        }
        impl->scaleMax = std::max(1.0, largest.value());
        out.warnings.push_back("16-bit imagery stretched to 8 bits: 0 to " +
                               gdalNumber(impl->scaleMax) +
                               " (the bands' largest sample) as 0 to 255");
    }
    impl->georeferenced = info.georeferenced;
    impl->crs = crs;
    impl->grid = grid;
    if (info.georeferenced) {
        impl->mapSrs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
        if (impl->mapSrs.SetFromUserInput(crs.c_str()) != OGRERR_NONE) {
            return R::failure("the map's CRS is not one GDAL reads");
        }
    }
    out.reader = std::make_unique<ImageryReader>(std::move(impl));
    return out;
}

}  // namespace

Result<OpenedImagery> openImagery(const std::string& path, int mapWidth, int mapHeight,
                                  const Georeference& geo, const ImageryLimits& limits,
                                  int pageTexels) {
    Result<OpenedImagery> opened =
        openChecked(path, mapWidth, mapHeight, geo, limits, pageTexels, false);
    lowerGdalCache(kImageryGdalCacheBytes);
    if (!opened || !opened.value().reader) {
        return opened;
    }
    OpenedImagery& out = opened.value();
    const ImageryPlan& plan = out.plan;
    out.topPage.resize(size_t(plan.side()) * size_t(plan.side()) * 4);
    if (Status read = out.reader->readPage(plan.top(), 0, 0, out.topPage.data()); !read) {
        return Result<OpenedImagery>::failure(read.error());
    }
    // Stretched imagery: the top level's mean alpha. Placed imagery: the share of the map in its
    // extent.
    if (!out.info.georeferenced) {
        out.info.coverage = topCoverage(plan, out.topPage);
    }
    if (!(out.info.coverage > 0.0)) {
        out.warnings.push_back("imagery covers none of the map; the terrain is shown without it");
        out.reader.reset();
    }
    return opened;
}

Result<OpenedImagery> openImageryTexels(const Imagery& texels, int mapWidth, int mapHeight,
                                        int pageTexels) {
    using R = Result<OpenedImagery>;
    if (mapWidth < 2 || mapHeight < 2 || texels.width < 1 || texels.height < 1 ||
        texels.rgba.size() != size_t(texels.width) * size_t(texels.height) * 4) {
        return R::failure("imagery has no texels");
    }
    registerGdalDrivers();
    const GdalMessages messages;
    auto impl = std::make_unique<ImageryReader::Impl>();
    impl->texels = texels.rgba;
    impl->base = texelDataset(impl->texels.data(), texels.width, texels.height);
    if (!impl->base) {
        return R::failure("cannot hold the texels: " + messages.line("MEM failed"));
    }
    impl->inMemory = true;
    impl->texelAlpha = texelDataset(impl->texels.data() + 3, texels.width, texels.height, 1);
    double t[6] = {0.0, double(mapWidth - 1) / texels.width,  0.0, 0.0,
                   0.0, double(mapHeight - 1) / texels.height};
    impl->base->SetGeoTransform(t);
    if (!impl->texelAlpha) {
        return R::failure("cannot hold the texels: " + messages.line("MEM failed"));
    }
    impl->texelAlpha->SetGeoTransform(t);
    OpenedImagery out;
    out.plan = planImagery(mapWidth, mapHeight, texels.width, texels.height, pageTexels);
    out.info = texels.info;
    out.info.width = texels.width;
    out.info.height = texels.height;
    out.info.texelsPerSampleX = out.info.nativeTexelsPerSampleX = out.plan.densityX();
    out.info.texelsPerSampleY = out.info.nativeTexelsPerSampleY = out.plan.densityY();
    impl->plan = out.plan;
    for (int k = 0; k <= out.plan.top(); ++k) {
        impl->overview.push_back(-1);
        impl->minify.push_back(k > 0);
        impl->scaleX.push_back(std::ldexp(1.0, -k));
        impl->scaleY.push_back(std::ldexp(1.0, -k));
    }
    out.reader = std::make_unique<ImageryReader>(std::move(impl));
    out.topPage.resize(size_t(out.plan.side()) * size_t(out.plan.side()) * 4);
    if (Status read = out.reader->readPage(out.plan.top(), 0, 0, out.topPage.data()); !read) {
        return R::failure(read.error());
    }
    out.info.coverage = topCoverage(out.plan, out.topPage);
    return out;
}

Result<Imagery> loadImagery(const std::string& path, int mapWidth, int mapHeight,
                            const Georeference& geo, const ImageryLimits& limits) {
    using R = Result<Imagery>;
    Result<OpenedImagery> opened = openChecked(path, mapWidth, mapHeight, geo, limits, 0, true);
    if (!opened) {
        return R::failure(opened.error());
    }
    OpenedImagery& o = opened.value();
    Imagery out;
    out.info = o.info;
    out.warnings = std::move(o.warnings);
    if (!o.reader) {  // covers none of the map
        out.width = out.height = 1;
        out.rgba.assign(4, 0);
        return out;
    }
    out.width = o.info.width;
    out.height = o.info.height;
    out.rgba.resize(size_t(out.width) * size_t(out.height) * 4);
    if (Status read = o.reader->readTexels(0, 0, 0, out.width, out.height, out.rgba.data(), false);
        !read) {
        return R::failure(read.error());
    }
    size_t covered = 0;
    for (size_t i = 3; i < out.rgba.size(); i += 4) {
        covered += out.rgba[i] != 0;
    }
    out.info.coverage = double(covered) / (double(out.width) * out.height);
    if (covered == 0) {
        out.warnings.push_back("imagery covers none of the map; the terrain is shown without it");
        out.width = 1;
        out.height = 1;
        out.rgba.assign(4, 0);
    }
    return out;
}

}  // namespace qt
