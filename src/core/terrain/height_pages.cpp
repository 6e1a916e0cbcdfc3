// The pyramid of subsampled heights cut into bordered pages, and the page table over them.
#include "core/terrain/height_pages.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace qt {

namespace {

// The map row of texel row y of page row py of `level` (l), on a map `height` rows high: level
// row py * pageSize + y - 1, clamped to the level, times 2^level, clamped to the map.
int mapRowOf(int height, const HeightPages& pages, const PageLevel& l, int level, int py, int y) {
    const int r = std::clamp(py * pages.pageSize + y - 1, 0, l.samplesY - 1);
    return int(std::min(int64_t(r) << level, int64_t(height) - 1));
}

// Mapped codes at a coarse level: the rows read are 4 or more apart, and a kernel that maps the
// whole large folio around each read (Linux maps up to 2 MB of a file's page cache per fault)
// would make most of a page's span resident at once, the whole map for the coarsest levels. A
// reader of such rows tells this each row it has read; the rows are dropped again whenever they
// span 32 MB and after the last, so it keeps at most that span and a folio at each end mapped, in
// a few calls a page.
class RowDropper {
public:
    RowDropper(const Heightmap& map, int level)
        : map_(map), on_(map.codes.isMapped() && level >= 2) {}

    void read(int row, bool last) {
        constexpr size_t kDropSpanBytes = size_t(32) << 20;
        kept_ = kept_ < 0 ? row : kept_;
        const size_t width = size_t(map_.width);
        if (on_ && (size_t(row - kept_ + 1) * width * sizeof(uint16_t) >= kDropSpanBytes || last)) {
            map_.codes.dropResident(size_t(kept_) * width, size_t(row - kept_ + 1) * width);
            kept_ = -1;
        }
    }

private:
    const Heightmap& map_;
    bool on_;
    int kept_ = -1;  // the first row read and not dropped yet; -1: none
};

// Page (px, py) of `level` from a width x height grid of samples (row-major): each texel the
// sample at its level column and row times 2^level, the level's clamped to its last and the map's
// to the map's last. afterRow(row, last) hears of each map row read, the page's last with `last`.
// Texel row `target` (texels wide) of a page of `level` whose first column is level column
// `origin` + 1, from map row `source`.
template <typename T>
void fillTexelRow(const T* source, int width, const PageLevel& l, int level, int origin, int t,
                  T* target) {
    for (int x = 0; x < t; ++x) {
        const int c = std::clamp(origin + x, 0, l.samplesX - 1);
        target[x] = source[std::min(int64_t(c) << level, int64_t(width) - 1)];
    }
}

template <typename T, typename AfterRow>
void fillPage(const T* samples, int width, int height, const HeightPages& pages, int level, int px,
              int py, T* out, AfterRow afterRow) {
    const PageLevel& l = pages.level[size_t(level)];
    const int t = pages.texels;
    const int origin = px * pages.pageSize - 1;
    for (int y = 0; y < t; ++y) {
        const int row = mapRowOf(height, pages, l, level, py, y);
        fillTexelRow(samples + size_t(row) * size_t(width), width, l, level, origin, t,
                     out + size_t(y) * size_t(t));
        afterRow(row, y == t - 1);
    }
}

}  // namespace

uint64_t HeightPages::bytes() const {
    return uint64_t(layers) * uint64_t(texels) * uint64_t(texels) * 2u +
           uint64_t(tableWidth) * uint64_t(tableHeight) * 2u;
}

int HeightPages::levelOfPage(uint32_t page) const {
    int k = 0;
    while (size_t(k + 1) < level.size() && page >= uint32_t(level[size_t(k + 1)].firstPage)) {
        ++k;
    }
    return k;
}

void HeightPages::tableCell(uint32_t page, int& x, int& y) const {
    const PageLevel& l = level[size_t(levelOfPage(page))];
    const int at = int(page) - l.firstPage;
    x = at % l.pagesX;
    y = l.tableRow + at / l.pagesX;
}

std::vector<uint16_t> HeightPages::table() const {
    std::vector<uint16_t> entries(size_t(tableWidth) * size_t(tableHeight), 0);
    for (size_t k = 0; k < level.size(); ++k) {
        const PageLevel& l = level[k];
        const bool absent = pooled(int(k));
        for (int py = 0; py < l.pagesY; ++py) {
            for (int px = 0; px < l.pagesX; ++px) {
                entries[size_t(l.tableRow + py) * size_t(tableWidth) + size_t(px)] =
                    absent ? kAbsentPage : uint16_t(l.firstLayer + py * l.pagesX + px);
            }
        }
    }
    return entries;
}

int streamedLevels(const HeightPages& full, uint64_t heldBytes) {
    const int top = int(full.level.size()) - 1;
    int levels = std::min(2, std::max(top, 1));
    uint64_t held = 0;  // the pages of levels `levels` and up
    for (int k = levels; k <= top; ++k) {
        held += full.levelBytes(k);
    }
    while (levels < top && held > heldBytes) {
        held -= full.levelBytes(levels);
        ++levels;
    }
    return levels;
}

HeightPages streamedHeightPages(const HeightPages& full, int pool, int levels) {
    assert(full.poolLayers == 0 && pool >= 1);
    assert(levels >= 0 && (levels <= 1 || levels < int(full.level.size())));
    HeightPages pages = full;
    pages.pooledLevels = levels > 0 ? levels : streamedLevels(full);
    const int pooledPages = pages.pooledPages();
    pages.poolLayers = std::min(pool, pooledPages);
    const int shift = pages.poolLayers - pooledPages;
    for (size_t k = 0; k < pages.level.size(); ++k) {
        pages.level[k].firstLayer = pages.pooled(int(k)) ? -1 : pages.level[k].firstLayer + shift;
    }
    pages.layers += shift;
    return pages;
}

int heightLevels(int width, int height, int leafSize) {
    const int leavesX = (width - 2) / leafSize + 1;
    const int leavesZ = (height - 2) / leafSize + 1;
    int depth = 0;
    while ((1 << depth) < std::max(leavesX, leavesZ)) {
        ++depth;
    }
    return depth + 1;
}

HeightPages planHeightPages(int width, int height, int leafSize, int pageSize) {
    assert(width >= 2 && height >= 2);
    assert(pageSize >= leafSize && (pageSize & (pageSize - 1)) == 0);
    HeightPages pages;
    pages.width = width;
    pages.height = height;
    pages.pageSize = pageSize;
    pages.pageShift = __builtin_ctz(unsigned(pageSize));
    pages.texels = pageSize + 3;
    const int levels = heightLevels(width, height, leafSize);
    pages.level.resize(size_t(levels));
    for (int k = 0; k < levels; ++k) {
        PageLevel& l = pages.level[size_t(k)];
        const int64_t step = int64_t{1} << k;
        l.samplesX = int((int64_t(width) - 1 + step - 1) >> k) + 1;
        l.samplesY = int((int64_t(height) - 1 + step - 1) >> k) + 1;
        l.pagesX = (l.samplesX - 1 + pageSize - 1) >> pages.pageShift;
        l.pagesY = (l.samplesY - 1 + pageSize - 1) >> pages.pageShift;
        l.firstLayer = pages.layers;
        l.firstPage = pages.layers;
        l.tableRow = pages.tableHeight;
        pages.layers += l.pagesX * l.pagesY;
        pages.tableHeight += l.pagesY;
    }
    pages.tableWidth = pages.level[0].pagesX;
    pages.pageCount = pages.layers;
    return pages;
}

Result<HeightPages> fitHeightPages(int width, int height, int leafSize, int pageSize,
                                   const PageLimits& limits, const PagePool& pool,
                                   uint64_t heldBytes) {
    int size = leafSize;
    while (size < pageSize) {
        size *= 2;
    }
    // Layers are 16-bit in the page table.
    const int maxLayers = std::min(limits.maxLayers, 65535);
    const int longest = std::max(width, height);
    for (;;) {
        HeightPages pages = planHeightPages(width, height, leafSize, size);
        if (pool) {
            pages.pooledLevels = streamedLevels(pages, heldBytes);
            pages = streamedHeightPages(pages, std::max(pool(pages), 1), pages.pooledLevels);
        }
        const bool fitsTexels = pages.texels <= limits.maxTextureSize &&
                                pages.tableWidth <= limits.maxTextureSize &&
                                pages.tableHeight <= limits.maxTextureSize;
        if (fitsTexels && pages.layers <= maxLayers) {
            return pages;
        }
        // Larger pages mean fewer layers until one page holds the whole map.
        if (!fitsTexels || size >= longest) {
            return Result<HeightPages>::failure(
                "the GPU cannot hold a " + std::to_string(width) + " x " + std::to_string(height) +
                " map as pages: " + std::to_string(pages.layers) + " pages of " +
                std::to_string(pages.texels) + "^2 texels, and it takes at most " +
                std::to_string(limits.maxLayers) + " layers (GL_MAX_ARRAY_TEXTURE_LAYERS) of " +
                std::to_string(limits.maxTextureSize) + "^2 (GL_MAX_TEXTURE_SIZE)");
        }
        size *= 2;
    }
}

void fillHeightPage(const Heightmap& map, const HeightPages& pages, int level, int px, int py,
                    uint16_t* out) {
    RowDropper dropper(map, level);
    fillPage(map.codes.data(), map.width, map.height, pages, level, px, py, out,
             [&](int row, bool last) { dropper.read(row, last); });
}

void fillBytePage(const uint8_t* bytes, int width, int height, const HeightPages& pages, int level,
                  int px, int py, uint8_t* out) {
    fillPage(bytes, width, height, pages, level, px, py, out, [](int, bool) {});
}

void fillBytePageRows(const uint8_t* bytes, int width, int height, const HeightPages& pages,
                      int level, int py, int firstRow, int endRow, uint8_t* out) {
    const PageLevel& l = pages.level[size_t(level)];
    const int t = pages.texels;
    const size_t pageBytes = size_t(t) * size_t(t);
    for (int y = 0; y < t; ++y) {
        const int row = mapRowOf(height, pages, l, level, py, y);
        if (row < firstRow || row >= endRow) {
            continue;
        }
        for (int px = 0; px < l.pagesX; ++px) {
            fillTexelRow(bytes + size_t(row) * size_t(width), width, l, level,
                         px * pages.pageSize - 1, t,
                         out + size_t(px) * pageBytes + size_t(y) * size_t(t));
        }
    }
}

void preparePageRows(const HeightPages& pages, int level, int py, PageRowSource& out) {
    out.level = level;
    out.py = py;
    out.width = pages.level[size_t(level)].samplesX;
    out.codes.resize(size_t(pages.texels) * size_t(out.width));
}

void gatherPageRows(const Heightmap& map, const HeightPages& pages, int firstY, int endY,
                    PageRowSource& out) {
    const int level = out.level;
    const PageLevel& l = pages.level[size_t(level)];
    assert(0 <= firstY && firstY <= endY && endY <= pages.texels && out.width == l.samplesX);
    // The level's columns [0, unclamped) are the map's at stride 2^level; the rest its last.
    const int unclamped =
        int(std::min<int64_t>(l.samplesX, ((int64_t(map.width) - 1) >> level) + 1));
    RowDropper dropper(map, level);
    for (int y = firstY; y < endY; ++y) {
        const int row = mapRowOf(map.height, pages, l, level, out.py, y);
        const uint16_t* __restrict source = map.codes.data() + size_t(row) * size_t(map.width);
        uint16_t* __restrict target = out.codes.data() + size_t(y) * size_t(out.width);
        if (level == 0) {
            std::copy(source, source + unclamped, target);
        } else if (level == 1) {
            for (int c = 0; c < unclamped; ++c) {
                target[c] = source[2 * c];
            }
        } else {
            for (int c = 0; c < unclamped; ++c) {
                target[c] = source[size_t(c) << level];
            }
        }
        std::fill(target + unclamped, target + out.width, source[map.width - 1]);
        dropper.read(row, y == endY - 1);
    }
}

void fillHeightPageFromRows(const HeightPages& pages, const PageRowSource& source, int px,
                            uint16_t* out) {
    const int t = pages.texels;
    const int width = source.width;
    // Texel columns [first, end) are the level's columns px * pageSize - 1 + x unclamped.
    const int origin = px * pages.pageSize - 1;
    const int first = std::clamp(-origin, 0, t);
    const int end = std::clamp(width - origin, first, t);
    for (int y = 0; y < t; ++y) {
        const uint16_t* row = source.codes.data() + size_t(y) * size_t(width);
        uint16_t* target = out + size_t(y) * size_t(t);
        std::fill(target, target + first, row[0]);
        std::copy(row + origin + first, row + origin + end, target + first);
        std::fill(target + end, target + t, row[width - 1]);
    }
}

}  // namespace qt
