// Imagery over the map: the file checked and sized before a pixel is read, its bands brought to
// 8-bit RGBA by a VRT (gdal_translate), then warped onto the map's grid (gdalwarp) or stretched
// over its extent (a resampled RasterIO), written straight into the texels.
#include "core/io/imagery.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

#include "core/io/gdal_capacity.h"
#include "core/io/gdal_inputs.h"
#include "core/io/gdal_raster.h"

namespace qt {
namespace {

using R = Result<Imagery>;

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

// A MEM dataset whose four bands are the texels' R, G, B and A bytes, written in place.
GDALDatasetUniquePtr texelDataset(Imagery& out) {
    GDALDriver* mem = GetGDALDriverManager()->GetDriverByName("MEM");
    GDALDatasetUniquePtr ds(mem->Create("", out.width, out.height, 0, GDT_Byte, nullptr));
    if (!ds) {
        return ds;
    }
    for (int b = 0; b < 4; ++b) {
        char pointer[64] = {};
        CPLPrintPointer(pointer, out.rgba.data() + b, sizeof pointer - 1);
        CPLStringList options;
        options.SetNameValue("DATAPOINTER", pointer);
        options.SetNameValue("PIXELOFFSET", "4");
        options.SetNameValue("LINEOFFSET", std::to_string(size_t(out.width) * 4).c_str());
        if (ds->AddBand(GDT_Byte, options.List()) != CE_None) {
            return GDALDatasetUniquePtr();
        }
    }
    ds->GetRasterBand(4)->SetColorInterpretation(GCI_AlphaBand);
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

// Warps the RGBA source onto the texels (out's size, buffer zeroed): texel edges from the centre
// of map sample 0 to that of the last, row 0 at map row 0 (a geotransform running the map's way,
// so nothing is flipped after); bilinear, or average when the texels are coarser on both axes.
Status warpOnto(Imagery& out, GDALDatasetH rgba, const std::string& crs, const MapGrid& grid,
                int mapWidth, int mapHeight, bool minify, const GdalMessages& messages) {
    GDALDatasetUniquePtr texels = texelDataset(out);
    if (!texels) {
        return Status::failure("cannot make the texture: " + messages.line("MEM failed"));
    }
    double t[6] = {grid.x0, grid.dx * (mapWidth - 1) / out.width,  0.0, grid.y0,
                   0.0,     grid.dy * (mapHeight - 1) / out.height};
    texels->SetGeoTransform(t);
    OGRSpatialReference mapSrs;
    mapSrs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);
    if (mapSrs.SetFromUserInput(crs.c_str()) != OGRERR_NONE) {
        return Status::failure("the map's CRS is not one GDAL reads");
    }
    texels->SetSpatialRef(&mapSrs);
    CPLStringList args;
    for (const char* a : {"-r", minify ? "average" : "bilinear", "-srcalpha", "-dstalpha", "-ovr",
                          "NONE", "-wo", "INIT_DEST=0"}) {
        args.AddString(a);
    }
    GDALWarpAppOptions* options = GDALWarpAppOptionsNew(args.List(), nullptr);
    if (options == nullptr) {
        return Status::failure("cannot warp it: " + messages.line("bad options"));
    }
    GDALDatasetH sources[1] = {rgba};
    int usageError = 0;
    GDALDatasetH warped =
        GDALWarp(nullptr, GDALDataset::ToHandle(texels.get()), 1, sources, options, &usageError);
    GDALWarpAppOptionsFree(options);
    if (warped == nullptr) {
        return Status::failure("cannot read or warp it: " + messages.line("warp failed"));
    }
    return {};
}

// Reads the RGBA source over the whole texture (the image's outer pixel edges at the texture's
// edges), resampled by GDAL only when the texture is smaller.
Status stretchOver(Imagery& out, GDALDatasetH rgba, bool minify, const GdalMessages& messages) {
    GDALRasterIOExtraArg extra;
    INIT_RASTERIO_EXTRA_ARG(extra);
    extra.eResampleAlg = minify ? GRIORA_Average : GRIORA_Bilinear;
    GDALDataset* vrt = GDALDataset::FromHandle(rgba);
    if (vrt->RasterIO(GF_Read, 0, 0, vrt->GetRasterXSize(), vrt->GetRasterYSize(), out.rgba.data(),
                      out.width, out.height, GDT_Byte, 4, nullptr, 4, GSpacing(out.width) * 4, 1,
                      &extra) != CE_None) {
        return Status::failure("cannot read its pixels: " + messages.line("read failed"));
    }
    return {};
}

}  // namespace

Result<Imagery> loadImagery(const std::string& imagePath, int mapWidth, int mapHeight,
                            const Georeference& geo, const ImageryLimits& limits) {
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
    GDALDatasetUniquePtr base(
        GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR));
    if (!base) {
        return R::failure("GDAL cannot open it: " + messages.line("not a raster GDAL reads"));
    }
    Imagery out;
    ImageryInfo& info = out.info;
    info.source = imagePath;
    info.sourceWidth = base->GetRasterXSize();
    info.sourceHeight = base->GetRasterYSize();
    info.bands = base->GetRasterCount();
    if (info.bands < 1 || info.bands > 4) {
        return R::failure("raster has " + std::to_string(info.bands) +
                          " bands; imagery is 1 to 4 (grey, grey + alpha, RGB, RGBA): pick them "
                          "with gdal_translate -b 1 -b 2 -b 3");
    }
    GDALRasterBand& first = *base->GetRasterBand(1);
    const GDALDataType type = first.GetRasterDataType();
    info.type = GDALGetDataTypeName(type);
    for (int b = 2; b <= info.bands; ++b) {
        if (base->GetRasterBand(b)->GetRasterDataType() != type) {
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
    if (Status capacity = checkGdalCapacity(*base, first); !capacity) {
        return R::failure(capacity.error());
    }
    const bool palette = info.bands == 1 && first.GetColorInterpretation() == GCI_PaletteIndex &&
                         first.GetColorTable() != nullptr;

    // Placed by its georeference when both it and the map have a CRS to warp between.
    double transform[6];
    const bool hasTransform = base->GetGeoTransform(transform) == CE_None;
    const OGRSpatialReference* srs =
        hasTransform ? base->GetSpatialRef()
                     : (base->GetGCPCount() > 0 ? base->GetGCPSpatialRef() : nullptr);
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
        Result<Footprint> found = footprint(*base, crs, grid, mapWidth, mapHeight, messages);
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
    const double nativeWidth = info.georeferenced
                                   ? std::max(1.0, std::round(fp.densityX * (mapWidth - 1)))
                                   : double(info.sourceWidth);
    const double nativeHeight = info.georeferenced
                                    ? std::max(1.0, std::round(fp.densityY * (mapHeight - 1)))
                                    : double(info.sourceHeight);
    const TextureSize size = fitLimits(nativeWidth, nativeHeight, mapWidth, mapHeight, limits);
    if (!size.warning.empty()) {
        out.warnings.push_back(size.warning);
    }
    info.texelsPerSampleX = double(size.width) / (mapWidth - 1);
    info.texelsPerSampleY = double(size.height) / (mapHeight - 1);

    if (fp.empty()) {
        out.warnings.push_back("imagery covers none of the map; the terrain is shown without it");
        out.width = 1;
        out.height = 1;
        out.rgba.assign(4, 0);
        return out;
    }

    // Source pixels per texel decide the overview read and the resampling.
    const double perTexelX = fp.densityX / info.texelsPerSampleX;
    const double perTexelY = fp.densityY / info.texelsPerSampleY;
    const int level = overviewLevel(first, perTexelX, perTexelY);
    double factorX = 1.0, factorY = 1.0;
    if (level >= 0) {
        GDALRasterBand* ovr = first.GetOverview(level);
        factorX = double(info.sourceWidth) / ovr->GetXSize();
        factorY = double(info.sourceHeight) / ovr->GetYSize();
    }
    const double toRead = double(fp.x1 - fp.x0) / factorX * (double(fp.y1 - fp.y0) / factorY);
    if (toRead > double(limits.maxReadPixels)) {
        return R::failure(
            "imagery needs " + gdalNumber(toRead) + " pixels read for this map, " +
            (level >= 0 ? "even from its coarsest usable overview" : "having no overviews") +
            " (at most " + gdalNumber(double(limits.maxReadPixels)) +
            "): add overviews with gdaladdo -r average");
    }
    GDALDatasetUniquePtr overview;
    if (level >= 0) {
        CPLStringList openOptions;
        openOptions.SetNameValue("OVERVIEW_LEVEL", std::to_string(level).c_str());
        overview.reset(GDALDataset::Open(path.c_str(),
                                         GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR,
                                         nullptr, openOptions.List(), nullptr));
        if (!overview) {
            return R::failure("cannot open its overview " + std::to_string(level) + ": " +
                              messages.line("open failed"));
        }
    }
    GDALDataset& source = overview ? *overview : *base;

    // 16-bit colour: stretched by the colour bands' common largest value.
    const bool wide = type == GDT_UInt16 && !palette;
    double scaleMax = 65535.0;
    if (wide) {
        const Result<double> largest = largestColourSample(source, messages);
        if (!largest) {
            return R::failure(largest.error());
        }
        scaleMax = std::max(1.0, largest.value());
        out.warnings.push_back("16-bit imagery stretched to 8 bits: 0 to " + gdalNumber(scaleMax) +
                               " (the bands' largest sample) as 0 to 255");
    }
    Result<DatasetHandle> rgba = rgbaVrt(source, palette, wide, scaleMax, messages);
    if (!rgba) {
        return R::failure(rgba.error());
    }

    out.width = size.width;
    out.height = size.height;
    out.rgba.assign(size_t(out.width) * size_t(out.height) * 4, 0);
    const bool minify = perTexelX > 1.0 + 1e-9 && perTexelY > 1.0 + 1e-9;
    const Status read = info.georeferenced ? warpOnto(out, rgba.value().get(), crs, grid, mapWidth,
                                                      mapHeight, minify, messages)
                                           : stretchOver(out, rgba.value().get(), minify, messages);
    if (!read) {
        return R::failure(read.error());
    }

    size_t covered = 0;
    for (size_t i = 3; i < out.rgba.size(); i += 4) {
        covered += out.rgba[i] != 0;
    }
    info.coverage = double(covered) / (double(out.width) * out.height);
    if (covered == 0) {
        out.warnings.push_back("imagery covers none of the map; the terrain is shown without it");
        out.width = 1;
        out.height = 1;
        out.rgba.assign(4, 0);
    }
    return out;
}

}  // namespace qt
