// Imagery draped over a heightmap: any raster GDAL reads (an orthophoto, a satellite mosaic, a
// scanned map, a `gdaldem color-relief` render, a game's diffuse texture) brought to 8-bit RGBA
// texels over the map's extent, as a pyramid of pages read one at a time. Georeferenced imagery is
// reprojected and resampled onto the map by GDAL's warper, a plain image stretched over the map's
// extent by the same warper: no resampler of our own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/terrain/georeference.h"

namespace qt {

// GDAL's block cache once imagery is opened to be streamed (process-wide: GDAL has one): a page
// reads its window once, and its neighbours share at most its border's blocks, so a larger cache
// (GDAL's default is 5% of physical memory) would only hold what was read already.
constexpr int64_t kImageryGdalCacheBytes = int64_t(128) << 20;

// Level 0's largest side in texels: 2^18, a 65536² image four times over. The page table and each
// page's state stay small (at most about 350,000 pages).
constexpr int kImageryMaxSide = 1 << 18;

// What the texels may take.
struct ImageryLimits {
    // Level 0's largest side (loadImagery: the GPU's largest texture side).
    int maxSide = kImageryMaxSide;
    // loadImagery only: the bytes of level 0's RGBA8 texels (the mip chain not counted).
    uint64_t maxBytes = uint64_t(1) << 30;
    // At most this many texels per map sample along each axis; 0: the imagery's own density.
    double maxTexelsPerSample = 0.0;
    // At most this many source pixels read for one page (loadImagery: for the whole level 0), at
    // the overview level the read takes (a file without overviews: its full resolution): more is
    // refused, asking for overviews (gdaladdo), so that a header declaring 10^6 x 10^6 pixels
    // costs a header read.
    uint64_t maxReadPixels = uint64_t(1) << 30;
    // A source without overviews whose base (ImageryPlan::base) reads more source pixels than
    // this is told that gdaladdo would make its open fast: 8192^2, a quarter of a 16384^2
    // GeoTIFF's, which takes 5 to 8 s here.
    uint64_t quickReadPixels = uint64_t(8192) * 8192;
};

// What was shown, for the HUD and --stats-json.
struct ImageryInfo {
    std::string source;   // the path given
    int sourceWidth = 0;  // the file's pixels
    int sourceHeight = 0;
    int bands = 0;     // the file's bands (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA; a palette: 1)
    std::string type;  // the file's sample type: "Byte", "UInt16"
    bool georeferenced = false;  // placed by its georeference (warped onto the map)
    std::string crsName;         // the imagery's CRS when georeferenced
    // Level 0's texels over the map.
    int width = 0;
    int height = 0;
    // Texels per map sample along x (columns) and y (rows): level 0's density over the map.
    double texelsPerSampleX = 0.0;
    double texelsPerSampleY = 0.0;
    // Texels per map sample the file itself has over the map (before limits); equal to the above
    // when nothing was lost.
    double nativeTexelsPerSampleX = 0.0;
    double nativeTexelsPerSampleY = 0.0;
    // Share of the map the imagery covers: placed by its georeference, the share of the map inside
    // its extent (its nodata and alpha not counted); stretched over the map, the pyramid's top
    // page's mean alpha; loaded whole (loadImagery), the share of texels with alpha above 0.
    double coverage = 0.0;
};

// Texels over the map's extent, row 0 at map row 0: texel (i, j) has its centre at map column
// (i + 0.5) * (mapWidth - 1) / width and row (j + 0.5) * (mapHeight - 1) / height, so that the
// texture's edges are the centres of the map's outer samples (the drawn surface's edges) and a
// shader reads it at (column, row) / (mapWidth - 1, mapHeight - 1). Alpha 0 where the imagery
// has no value (outside its extent, its nodata, its own alpha): the terrain's own colours show.
struct Imagery {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgba;  // width * height * 4 bytes, sRGB colour, linear alpha
    ImageryInfo info;
    // Lines to tell the user without failing: a georeferenced image over a map without one
    // (stretched over the map's extent), 16-bit samples stretched to 8, the density lowered to
    // fit the limits.
    std::vector<std::string> warnings;
};

// Texels along a page's side, and the border of texels from its neighbours around them, which
// filtering reads: 512 + 2 x 4, so that borders cost 3% and the pyramid with them 1.375 times
// level 0's texels.
constexpr int kImageryPageTexels = 512;
constexpr int kImageryPageBorder = 4;
// How a page's texels go to the GPU: as they are (RGBA8, 4 bytes a texel), or as BC3 blocks (S3TC
// DXT5, 1 byte a texel, colour to 565 endpoints and alpha kept) encoded on the streamer's thread by
// stb_dxt: a pool of the same bytes holds four times the pages, for an error of about 1 to 2 sRGB
// levels RMS (docs/figures.md#imagery). BC1 would be half that again but keeps no alpha, which is
// the imagery's coverage.
enum class ImageryCompression : uint8_t { None, Bc3 };

// The bytes of a stored page of side^2 texels (side a multiple of 4 for BC3).
inline uint64_t imageryPageBytes(int side, ImageryCompression compression) {
    const uint64_t texels = uint64_t(side) * uint64_t(side);
    return compression == ImageryCompression::Bc3 ? texels : texels * 4;
}

// A page's side^2 RGBA8 texels as BC3 blocks, 16 bytes for each 4 x 4 texels, row of blocks by row
// of blocks (what glCompressedTexSubImage3D takes); `blocks` holds imageryPageBytes(side, Bc3).
void compressImageryPage(const uint8_t* rgba, int side, uint8_t* blocks);

// The pyramid's levels at most (level 0's side is at most 2^18 texels).
constexpr int kImageryMaxLevels = 24;
// The pyramid's base: its first level at most this many texels a side, read through GDAL whole;
// each level above it is the 2 x 2 means of the one below, made in memory. GDAL's average of a
// texel that spans much of its source is unreliable (GDAL 3.6: a 3 x 2 level of a 300 x 140
// image had alpha 181 where every pixel under its texel is opaque), and a source without overviews
// is then read once, not once a level. The same whatever the page size.
constexpr int kImageryBaseSide = 256;

// Level k of the pyramid: ceil(width / 2^k) x ceil(height / 2^k) texels, texel (i, j) covering
// level 0's 2^k x 2^k from (i 2^k, j 2^k), read from the source at that density (averaged, from
// its overview where it has one; texels past level 0's edge lie past the map's and hold what the
// imagery has there). Cut into pages of pageTexels, each stored with `border` texels of its
// neighbours (and of beyond the level's edge) on every side.
struct ImageryLevel {
    int texelsX = 0;
    int texelsY = 0;
    int pagesX = 0;  // ceil(texelsX / pageTexels)
    int pagesY = 0;
    int firstPage = 0;  // the id of page (0, 0); page (px, py) is firstPage + py * pagesX + px
    int tableRow = 0;   // the level's first row in the page table (-1 in the tail: no row)
    // Where the level's stored texels (its border included) start in its page's layer: (0, 0)
    // for a level of its own pages, the level's place in the shared page for one of the tail.
    int originX = 0;
    int originY = 0;
};

struct ImageryPlan {
    int mapWidth = 0;
    int mapHeight = 0;
    int pageTexels = kImageryPageTexels;
    int border = kImageryPageBorder;
    // 0..top, down to two texels a side as a texture's mip chain nearly, whatever the page size
    // (so that pages of any size draw alike).
    std::vector<ImageryLevel> level;
    int base = 0;  // the first level of at most kImageryBaseSide texels a side
    // The tail: levels tail..top, each smaller than a page, packed side by side into one page
    // (the top page, always resident in layer 0), so that small levels do not take a layer each
    // (a 4096^2 image's pyramid: 86 pages, not 93): as many of the coarsest levels as stb's
    // rectangle packer fits in one page.
    int tail = 0;
    int pages = 0;  // of every level, the tail's one page counted once
    // The page table: level k's pagesX x pagesY entries from row level[k].tableRow, for the levels
    // below the tail (at least one row); tableWidth is level 0's pagesX.
    int tableWidth = 0;
    int tableHeight = 0;

    int side() const { return pageTexels + 2 * border; }  // a stored page's texels a side
    int top() const { return int(level.size()) - 1; }
    uint32_t pageId(int k, int px, int py) const {
        return uint32_t(level[size_t(k)].firstPage + py * level[size_t(k)].pagesX + px);
    }
    // Level 0's texels per map sample along x and y.
    double densityX() const { return double(level[0].texelsX) / (mapWidth - 1); }
    double densityY() const { return double(level[0].texelsY) / (mapHeight - 1); }
    // The level and page of a page id (the tail's page: the tail's first level, page (0, 0)).
    void pageOf(uint32_t id, int& k, int& px, int& py) const;
    bool inTail(int k) const { return k >= tail; }
    uint32_t tailPage() const { return uint32_t(level[size_t(tail)].firstPage); }
};

// The pyramid of width x height level-0 texels over a mapWidth x mapHeight map.
ImageryPlan planImagery(int mapWidth, int mapHeight, int width, int height,
                        int pageTexels = kImageryPageTexels, int border = kImageryPageBorder);

// Reads an opened imagery's pages (openImagery). One thread at a time: it may be handed to another
// thread, which then reads it alone.
class ImageryReader {
public:
    struct Impl;
    explicit ImageryReader(std::unique_ptr<Impl> impl);
    ~ImageryReader();
    ImageryReader(const ImageryReader&) = delete;
    ImageryReader& operator=(const ImageryReader&) = delete;

    const ImageryPlan& plan() const;
    // Fills `rgba` (plan().side()^2 texels of four bytes, row-major) with page (level, px, py):
    // stored texel (originX + x, originY + y) is the level's texel (px pageTexels + x - border,
    // py pageTexels + y - border), colour premultiplied by alpha. A level of the tail fills the
    // tail's page, every tail level at its place and zero between them. Levels up to the base are
    // read through GDAL; each above it is the 2 x 2 means of the one below, its border's texels
    // past the one below's border taking the nearest it has. Fails with one line (without the
    // path) when GDAL cannot read or warp the source there.
    Status readPage(int level, int px, int py, uint8_t* rgba);
    // Level `level`'s texels [firstX, firstX + width) x [firstY, firstY + height) into `rgba`
    // (width x height texels of four bytes), premultiplied or not, as GDAL's warper reads them at
    // that level (the pages of levels above the base are means of the base's instead).
    Status readTexels(int level, int firstX, int firstY, int width, int height, uint8_t* rgba,
                      bool premultiplied);

private:
    std::unique_ptr<Impl> impl_;
};

// Imagery opened over a map: its pyramid, what it is, what to tell the user, and its reader.
struct OpenedImagery {
    ImageryPlan plan;
    ImageryInfo info;
    std::vector<std::string> warnings;
    std::unique_ptr<ImageryReader> reader;
    std::vector<uint8_t> topPage;  // the tail's page, read at open (premultiplied)
};

// Opens `path` (a file, or a URL read by byte ranges through GDAL's /vsicurl/) as imagery over a
// mapWidth x mapHeight map placed by `geo`, reading nothing but its header and the pyramid's top
// page; GDAL's block cache is lowered to kImageryGdalCacheBytes if it was more. Fails with one line
// (without the path: the caller names it) for a file GDAL cannot open or read, 5 or more bands,
// sample types other than 8- and 16-bit unsigned integers, a CRS that cannot be transformed to the
// map's, or a level whose page would read more source pixels than `limits` allow at the best
// overview; every size is checked before anything big is read. Imagery that covers none of the map
// is no failure: coverage 0 and a warning, and the caller shows the terrain without it.
Result<OpenedImagery> openImagery(const std::string& path, int mapWidth, int mapHeight,
                                  const Georeference& geo, const ImageryLimits& limits = {},
                                  int pageTexels = kImageryPageTexels);

// Texels held in memory (their width x height over the map as Imagery says) opened as imagery of
// that density: a plain image stretched over the map, read page by page by the same warper.
Result<OpenedImagery> openImageryTexels(const Imagery& texels, int mapWidth, int mapHeight,
                                        int pageTexels = kImageryPageTexels);

// Level 0 whole: `path` opened as openImagery does, within `limits`' side and bytes as one
// texture, and every level-0 page read into it (not premultiplied). For tests and tools that want
// the texels at once.
Result<Imagery> loadImagery(const std::string& path, int mapWidth, int mapHeight,
                            const Georeference& geo, const ImageryLimits& limits = {});

}  // namespace qt
