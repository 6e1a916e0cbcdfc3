// The heights as pages (qt::HeightPages), read by terrain.vert at each vertex and terrain.frag for
// its normals: level k of the pyramid holds, at (c, r), the sample (min(c * 2^k, width - 1),
// min(r * 2^k, height - 1)); its pages are pageSize = 2^pageShift squares a side plus a one-texel
// border, page (px, py)'s texel (x, y) holding level sample (px * pageSize + x - 1, py * pageSize
// + y - 1). The page table maps (level, px, py) to the page's layer: row pageTableRow[level] + py,
// column px. Layer L is layer L % layersPerArray of array L / layersPerArray: a driver may cap one
// texture's bytes (llvmpipe does), so the pages of a large map span several arrays.
#ifndef QT_HEIGHT_PAGES_GLSL
#define QT_HEIGHT_PAGES_GLSL

#include "quotient.glsl"

uniform usampler2DArray heightPages[4];  // qt::kMaxHeightArrays
uniform int layersPerArray;
uniform usampler2D pageTable;
uniform int pageShift;
uniform int pageTableRow[16];  // by level: qt::kMaxPageLevels
uniform ivec2 mapSize;         // samples (width, height)
uniform vec2 spacing;          // world units between columns (x) and rows (y)
uniform float heightScale;     // world units per height code

// The level read, its page (texel origin in level samples, layer in its array, its array) and
// the level's last column and row: set by usePage before any fetch.
int level;
ivec3 page;
int pageArray;
ivec2 levelLast;

// The last column and row of level `lvl`.
ivec2 lastOfLevel(int lvl) {
    return (mapSize - 2 + (1 << lvl)) >> lvl;
}

// Reads level `lvl` from the page holding level sample s: its squares and their neighbours (s +-1
// where the square's corner s lies in the page's squares).
void usePage(int lvl, ivec2 s) {
    level = lvl;
    levelLast = lastOfLevel(lvl);
    ivec2 pageXY = s >> pageShift;
    int layer = int(texelFetch(pageTable, ivec2(pageXY.x, pageTableRow[lvl] + pageXY.y), 0).r);
    pageArray = quotientOf(layer, layersPerArray);
    page = ivec3((pageXY << pageShift) - 1, layer - pageArray * layersPerArray);
}

// Samplers in an array are indexed by constants only (GLSL 3.30), so pages spread over several
// arrays are read through a branch over them (MANY_HEIGHT_ARRAYS, qt::kManyArraysVariant). A
// software rasteriser (llvmpipe) runs every arm of such a branch, a fetch each, so a map whose
// pages fit one array is read without it.
float codeAt(int col, int row) {
    ivec3 at = ivec3(col - page.x, row - page.y, page.z);
#ifdef MANY_HEIGHT_ARRAYS
    uint code;
    if (pageArray == 0) {
        code = texelFetch(heightPages[0], at, 0).r;
    } else if (pageArray == 1) {
        code = texelFetch(heightPages[1], at, 0).r;
    } else if (pageArray == 2) {
        code = texelFetch(heightPages[2], at, 0).r;
    } else {
        code = texelFetch(heightPages[3], at, 0).r;
    }
#else
    uint code = texelFetch(heightPages[0], at, 0).r;
#endif
    return float(code);
}

// The map column and row of a level sample.
ivec2 mapSample(ivec2 s) {
    return min(s << level, mapSize - 1);
}

// The unit normal at a level sample by central differences over the level's neighbours (at level
// 0 the map's, one-sided on the border: the same as qt::vertexNormal; at level k from samples
// 2^k apart).
vec3 levelNormal(ivec2 s) {
    int c0 = max(s.x - 1, 0);
    int c1 = min(s.x + 1, levelLast.x);
    int r0 = max(s.y - 1, 0);
    int r1 = min(s.y + 1, levelLast.y);
    float dx = (codeAt(c1, s.y) - codeAt(c0, s.y)) * heightScale;
    float dz = (codeAt(s.x, r1) - codeAt(s.x, r0)) * heightScale;
    ivec2 low = mapSample(ivec2(c0, r0));
    ivec2 high = mapSample(ivec2(c1, r1));
    float sx = float(high.x - low.x) * spacing.x;
    float sz = float(high.y - low.y) * spacing.y;
    return normalize(vec3(-dx * sz, sx * sz, -dz * sx));
}

#endif
