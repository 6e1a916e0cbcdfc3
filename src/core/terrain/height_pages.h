// The heights laid out as pages for the GPU: a pyramid of subsampled levels, each cut into square
// pages aligned to node boundaries, every page one layer of a texture array, and the page table
// that maps (level, page x, page y) to its layer. GL-free: the renderer uploads what this plans.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/base/result.h"
#include "core/terrain/heightmap.h"

namespace qt {

// Level k of the pyramid holds, at (c, r), the sample (min(c * 2^k, width - 1), min(r * 2^k,
// height - 1)): where a node at level k puts its vertices (qt::lodVertexSample). It has
// ceil((width - 1) / 2^k) + 1 columns, so clamping a level-k coordinate to its last column is the
// same as clamping the level-0 one to the map.
//
// Page (px, py) of level k covers the level's squares [px * pageSize, (px + 1) * pageSize] (its
// (pageSize + 1)^2 samples, edges shared with the next page) and one sample more on every side,
// for the normals' neighbours: pageSize + 3 texels a side, texel (x, y) holding level sample
// (px * pageSize + x - 1, py * pageSize + y - 1) clamped to the level. pageSize is a power of two
// and a multiple of the leaf size, so every node of level k (leafSize squares of the level, from a
// multiple of leafSize) lies inside one page of its level, with its neighbours at +-1.
struct PageLevel {
    int samplesX = 0;  // the level's columns
    int samplesY = 0;  // rows
    int pagesX = 0;    // pages across: ceil((samplesX - 1) / pageSize)
    int pagesY = 0;
    // Layer of page (0, 0); page (px, py) is firstLayer + py * pagesX + px. -1 for a level whose
    // pages share a streamed terrain's pool (HeightPages::pooledLevels).
    int firstLayer = 0;
    int tableRow = 0;  // the level's first row in the page table
    // Number of page (0, 0) among every level's pages, level by level, row by row, whether pooled
    // or not: page (px, py) is firstPage + py * pagesX + px (PageRequest::page for the pooled
    // levels; the light's pyramid lays pages out in this order).
    int firstPage = 0;
};

struct HeightPages {
    int width = 0;  // the map's samples
    int height = 0;
    int pageSize = 0;   // squares along a page side (power of two)
    int pageShift = 0;  // log2(pageSize)
    int texels = 0;     // texels along a page side: pageSize + 3
    int layers = 0;     // GPU layers: the pool's and every page of the levels not pooled
    int pageCount = 0;  // pages of every level
    // The page table: tableWidth x tableHeight layers, level k's pagesX x pagesY of them from row
    // level[k].tableRow; tableWidth is level 0's pagesX.
    int tableWidth = 0;
    int tableHeight = 0;
    std::vector<PageLevel> level;  // levels 0..depth
    // Streamed (core/streaming/page_streamer.h): the pages of levels 0 .. pooledLevels - 1 share
    // this many layers, 0..poolLayers - 1, filled on demand, and their table entries start as
    // kAbsentPage; the levels above follow from layer poolLayers. 0: every page has a layer of
    // its own, all uploaded at once.
    int poolLayers = 0;
    // Levels whose pages are in the pool, from level 0 (streamedHeightPages), each with a level
    // above it to stand in for its pages while they are missing (core/lod/lod.h). 0 when not
    // streamed.
    int pooledLevels = 0;

    bool pooled(int k) const { return k < pooledLevels; }
    // The pooled levels' pages (PageRequest numbers them 0 ..).
    int pooledPages() const {
        return pooledLevels == 0 ? 0
                                 : level[size_t(pooledLevels - 1)].firstPage +
                                       level[size_t(pooledLevels - 1)].pagesX *
                                           level[size_t(pooledLevels - 1)].pagesY;
    }
    // The bytes of level k's pages, every one of them (texels^2 codes each).
    uint64_t levelBytes(int k) const {
        return uint64_t(level[size_t(k)].pagesX) * uint64_t(level[size_t(k)].pagesY) *
               uint64_t(texels) * uint64_t(texels) * sizeof(uint16_t);
    }
    // The level of a page numbered as PageLevel::firstPage numbers it, and its page table cell.
    int levelOfPage(uint32_t page) const;
    void tableCell(uint32_t page, int& x, int& y) const;
    // GPU bytes of the pages (two per texel) and of the page table (two per entry).
    uint64_t bytes() const;
    // The page table's entries, row-major: each page's layer.
    std::vector<uint16_t> table() const;
};

// How a map held in memory sends its level-0 (full-detail) pages to the GPU (render/terrain.h).
enum class Level0Upload {
    Whole,     // every page at load
    OnDemand,  // as views first need them (Terrain::onDemand)
    Auto,      // OnDemand for maps of more than kOnDemandSamples samples, else Whole
};

// The page table's entry of a streamed level-0 page that has no layer: never a layer (layers are
// fewer than 65535), and never read, as no node is drawn from a page that is not resident
// (core/lod/lod.h).
constexpr uint16_t kAbsentPage = 0xFFFF;

// The most GPU bytes of pages a streamed terrain holds whole in the levels above its pool, past
// the two levels it pools at least: a map whose levels 2 and up take more pools more of them, so
// that what its open reads and holds stays near this whatever the map's size (64 MiB: levels 3
// and up of a 32769^2 map, 4 and up of a 65537^2 one).
constexpr uint64_t kHeldLevelsBytes = uint64_t(64) << 20;

// The levels a streamed terrain pools (HeightPages::pooledLevels): level 0; level 1 where the
// pyramid has a level 2 to draw in its place while a level-1 page is missing (core/lod/lod.h);
// and the levels above while those left would take more than `heldBytes` of pages, one level
// always left.
int streamedLevels(const HeightPages& full, uint64_t heldBytes = kHeldLevelsBytes);

// `full`'s layout with its levels 0 .. levels - 1 (0: streamedLevels; at least one level stays
// above them, unless the pyramid has one level) streamed through `pool` layers (at most their
// pages): the levels above keep their layers after the pool's.
HeightPages streamedHeightPages(const HeightPages& full, int pool, int levels = 0);

// The limits of the texture array the pages go into (GL_MAX_ARRAY_TEXTURE_LAYERS,
// GL_MAX_TEXTURE_SIZE).
struct PageLimits {
    int maxLayers = 0;
    int maxTextureSize = 0;
};

// Levels of detail of a width x height map in leaves of leafSize squares: the tree's depth + 1.
int heightLevels(int width, int height, int leafSize);

// The layout with pages of exactly pageSize squares.
HeightPages planHeightPages(int width, int height, int leafSize, int pageSize);

// A streamed terrain's pool of layers for a page size: given the layout with every page of that
// size and the levels that are to pool (pooledLevels; no pool yet), the layers its pooled levels
// get (streamedHeightPages; at least 1, at most their pages).
using PagePool = std::function<int(const HeightPages& full)>;

// The layout with the smallest page of at least `pageSize` squares (and of the leaf size) whose
// layers and texels fit `limits`; fails with one line when none does. With `pool`, the layout is
// streamed (streamedHeightPages with pool's layers for each page size tried, its levels
// streamedLevels with `heldBytes`): the pooled levels count only their pool.
Result<HeightPages> fitHeightPages(int width, int height, int leafSize, int pageSize,
                                   const PageLimits& limits, const PagePool& pool = {},
                                   uint64_t heldBytes = kHeldLevelsBytes);

// Fills `out` (texels^2 codes, row-major) with page (px, py) of `level`, from the map's codes.
void fillHeightPage(const Heightmap& map, const HeightPages& pages, int level, int px, int py,
                    uint16_t* out);

// Fills `out` (texels^2 bytes, row-major) with page (px, py) of `level` from one byte a sample of
// a width x height map (row-major): the bytes at the samples whose codes fillHeightPage puts at
// the same texels, so that a shader reads a sample's byte where it reads its code (a streamed
// map's light, core/light/light_byte.h).
void fillBytePage(const uint8_t* bytes, int width, int height, const HeightPages& pages, int level,
                  int px, int py, uint8_t* out);
// The texel rows of fillBytePage's pages of page row py of `level` (pagesX pages, each texels^2
// bytes, one after the other from `out`) that sample the map's rows [firstRow, endRow): filling
// every page row of a level over rows that together cover the map gives every page whole, for a
// caller whose bytes become final a band of rows at a time.
void fillBytePageRows(const uint8_t* bytes, int width, int height, const HeightPages& pages,
                      int level, int py, int firstRow, int endRow, uint8_t* out);

// The texel rows of one row of pages (`level`, `py`), each row the whole width of the level:
// row y holds the level's samples of row clamp(py * pageSize + y - 1), every column. Filling a
// row of pages from it reads each map row it needs once, not once a page, and from one thread
// each: at coarse levels the pages of a row would otherwise fault in and drop the same map rows
// in turn on every core.
struct PageRowSource {
    int level = -1;
    int py = -1;
    int width = 0;                // the level's samplesX
    std::vector<uint16_t> codes;  // texels rows of `width` codes
};

// Sizes `out` for row py of `level`'s pages; gatherPageRows then fills its rows.
void preparePageRows(const HeightPages& pages, int level, int py, PageRowSource& out);

// Fills rows [firstY, endY) of `out` (prepared by preparePageRows) from the map. Mapped codes at
// levels 2 and up drop the rows read behind them, as fillHeightPage does; callers may fill
// disjoint row ranges on several threads.
void gatherPageRows(const Heightmap& map, const HeightPages& pages, int firstY, int endY,
                    PageRowSource& out);

// Page (px, source.py) of source.level from its gathered rows: the texels fillHeightPage makes.
void fillHeightPageFromRows(const HeightPages& pages, const PageRowSource& source, int px,
                            uint16_t* out);

}  // namespace qt
