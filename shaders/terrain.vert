// Terrain vertex shader: one instance per visible leaf or node; heights fetched from the pages of
// the node's level.
#version 330 core

// Per instance: a leaf, or with level of detail a node, drawn with one leaf's strip. x, y: its
// first leaf's (column, row); the node starts at sample (x, y) * leafSize. z (0 for a leaf): its
// level in bits 0-7, each vertex 2^level samples apart; bits 8-11 the edges (west, east, north,
// south) whose neighbour is drawn one level coarser (qt::DrawNode).
layout(location = 0) in uvec3 item;
// Per node instance (0 for leaves): x, the node's geomorph, 0..255; y, the west and east edges'
// (low and high byte); z, the north and south edges' (qt::DrawNode).
layout(location = 2) in uvec3 morphs;
// Per vertex: the local vertex's (i, j), 0..leafSize each; the index buffer holds local ids
// j * (leafSize + 1) + i, one strip over the leaf's rows.
layout(location = 1) in uvec2 local;

// The heights as pages (qt::HeightPages): level k of the pyramid holds, at (c, r), the sample
// (min(c * 2^k, width - 1), min(r * 2^k, height - 1)); its pages are pageSize = 2^pageShift squares
// a side plus a one-texel border, page (px, py)'s texel (x, y) holding level sample
// (px * pageSize + x - 1, py * pageSize + y - 1). The page table maps (level, px, py) to the
// page's layer: row pageTableRow[level] + py, column px. A node lies inside one page of its level.
// Layer L is layer L % layersPerArray of array L / layersPerArray: a driver may cap one texture's
// bytes (llvmpipe does), so the pages of a large map span several arrays.
uniform usampler2DArray heightPages[4];  // qt::kMaxHeightArrays
uniform int layersPerArray;
uniform usampler2D pageTable;
uniform int pageShift;
uniform int pageTableRow[16];  // by level; qt::kMaxTreeDepth + 1 <= 16
uniform ivec2 mapSize;         // samples (width, height)
uniform int leafSize;            // grid squares along a leaf side
uniform vec2 spacing;            // world units between columns (x) and rows (y)
// Positions are taken relative to the eye, so that no coordinate far from the origin (a high map,
// an eye over the far side of a wide one) cancels against another in float: the eye at map column
// eyeSample.x + eyeFraction.x and row eyeSample.y + eyeFraction.y (the integer parts subtract
// exactly), and heights as code * heightScale + heightBiasFromEye: the map's bias
// (qt::HeightTransform: world height = code * heightScale + bias) less the eye's height, taken in
// double on the CPU. The colours read the height above the map's lowest world height the same
// way, with heightBiasFromLow.
uniform ivec2 eyeSample;
uniform vec2 eyeFraction;
uniform float heightScale;
uniform float heightBiasFromEye;
uniform float heightBiasFromLow;
uniform mat4 viewProjection;  // the view from the origin (qt::Camera::viewProjectionFromEye)

// What the fragment shader needs, in one vector: the rasteriser keeps three interpolation
// coefficients per vector and triangle, so one vector instead of two makes each binned triangle
// smaller. x, z: the unit normal's (its y is positive on a height field); y: height above the
// map's lowest world height; w: distance from the eye.
out vec4 surface;
// A map with holes draws the nodes over a hole with this shader compiled with HOLES and the rest
// without (qt::FrameBuffers::holesFrom); HOLES only adds mapAt, so both compute gl_Position by
// the same code and the vertices two such nodes share coincide (IMAGERY, which adds mapAt too,
// likewise) (the render tests' crack test
// captures both and holds them to the same positions). `invariant gl_Position` would promise
// it, but on llvmpipe it changes the geomorph's rounding so that the crack test's mesh no longer
// closes.
#if defined(HOLES) || defined(IMAGERY)
// The point's map column and row (its grid square: their floor), for the fragment shader's hole
// test and the imagery's texture coordinates; exact at the vertices, as the geomorph moves them.
out vec2 mapAt;
#endif
// Lit by a given Sun (qt::TerrainRenderer::sun), this shader is compiled with SUN: each vertex
// reads its map sample's light (qt::TerrainGpu::shadows: one byte a sample, rows split into
// layers of shadowRowsPerLayer, holding the share of the Sun's disc it sees and the share of the
// sky: core/light/light_byte.h) and hands both on interpolated across the triangle, as its
// normal is. Per vertex rather than per fragment: one fetch a vertex, and a node of level of
// detail lit by its own samples as it is shaped by them. SUN adds no step to gl_Position.
#ifdef SUN
#include "light.glsl"
uniform bool shadowed;  // false: no light on the GPU (a streamed map), every sample lit, open sky
out vec2 sunlit;        // the Sun's share, the sky's

vec2 sunlitAt(ivec2 m) {
    return shadowed ? lightShares(m) : vec2(1.0);
}
#endif

// The drawn node's level, its origin in level samples, its page (texel origin in level samples,
// layer in its array, its array) and the level's last column and row, set by main() before any
// fetch.
int level;
ivec2 origin;
ivec3 page;
int pageArray;
ivec2 levelLast;

float codeAt(int col, int row) {
    ivec3 at = ivec3(col - page.x, row - page.y, page.z);
    // Samplers in an array are indexed by constants only (GLSL 3.30).
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
    return float(code);
}

// The level sample of the node's vertex (i, j): the node's origin plus (i, j), clamped to the level
// (the padding of partial border nodes folds onto the last sample, as clamping the map's sample
// every 2^level from the origin does).
ivec2 sampleOf(int i, int j) {
    return min(origin + ivec2(i, j), levelLast);
}

// The map column and row of a level sample.
ivec2 mapSample(ivec2 s) {
    return min(s << level, mapSize - 1);
}

// Position relative to the eye of a level sample, and its unit normal's x and z by central
// differences over the
// level's neighbours (at level 0 the map's, one-sided on the border: the same as
// qt::vertexNormal; a coarser node's normals come from its own level's samples, 2^level apart).
vec3 worldAt(ivec2 s, out vec2 normalXZ, out float aboveLowest) {
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
    vec3 normal = normalize(vec3(-dx * sz, sx * sz, -dz * sx));
    normalXZ = normal.xz;
    ivec2 m = mapSample(s);
    float code = codeAt(s.x, s.y);
    aboveLowest = code * heightScale + heightBiasFromLow;
    return vec3((float(m.x - eyeSample.x) - eyeFraction.x) * spacing.x,
                code * heightScale + heightBiasFromEye,
                (float(m.y - eyeSample.y) - eyeFraction.y) * spacing.y);
}

void main() {
    // On an edge beside a coarser node every other vertex folds onto the one before, so the
    // edge's vertices are the neighbour's (no T-junction).
    // The same steps as qt::lodVertexSample and qt::lodVertexMorph.
    int i = int(local.x);
    int j = int(local.y);
    level = int(item.z & 0xFFu);
    uint coarser = item.z >> 8;
    // The node's page: its origin, in level samples, is a multiple of leafSize, which divides
    // pageSize, so its vertices and their neighbours lie in the page's squares and border.
    levelLast = (mapSize - 2 + (1 << level)) >> level;
    origin = ivec2(item.xy) * leafSize >> level;
    ivec2 pageXY = origin >> pageShift;
    int layer = int(texelFetch(pageTable, ivec2(pageXY.x, pageTableRow[level] + pageXY.y), 0).r);
    pageArray = layer / layersPerArray;
    page = ivec3((pageXY << pageShift) - 1, layer - pageArray * layersPerArray);
    if ((i == 0 && (coarser & 1u) != 0u) || (i == leafSize && (coarser & 2u) != 0u)) {
        j &= ~1;
    }
    if ((j == 0 && (coarser & 4u) != 0u) || (j == leafSize && (coarser & 8u) != 0u)) {
        i &= ~1;
    }
    // Geomorph: towards the parent's grid vertex (i & ~1, j & ~1) by the edge's morph on an edge,
    // the node's inside. Even vertices stay; at morph 255 each vertex is its target, exactly.
    uint edge = int(local.x) == 0          ? morphs.y & 0xFFu
                : int(local.x) == leafSize ? morphs.y >> 8
                : int(local.y) == 0        ? morphs.z & 0xFFu
                : int(local.y) == leafSize ? morphs.z >> 8
                                           : morphs.x;
    float m = float(edge) / 255.0;
    vec2 ownNormal;
    float height;
    vec3 fromEye = worldAt(sampleOf(i, j), ownNormal, height);
    vec2 normalXZ = ownNormal;
#if defined(HOLES) || defined(IMAGERY)
    mapAt = vec2(mapSample(sampleOf(i, j)));
#endif
#ifdef SUN
    sunlit = sunlitAt(mapSample(sampleOf(i, j)));
#endif
    if (((i | j) & 1) != 0 && edge != 0u) {
        vec2 targetNormal;
        float targetHeight;
        vec3 target = worldAt(sampleOf(i & ~1, j & ~1), targetNormal, targetHeight);
        fromEye = edge == 255u ? target : mix(fromEye, target, m);
        normalXZ = edge == 255u ? targetNormal : mix(ownNormal, targetNormal, m);
        height = edge == 255u ? targetHeight : mix(height, targetHeight, m);
#if defined(HOLES) || defined(IMAGERY)
        vec2 targetAt = vec2(mapSample(sampleOf(i & ~1, j & ~1)));
        mapAt = edge == 255u ? targetAt : mix(mapAt, targetAt, m);
#endif
#ifdef SUN
        vec2 targetLit = sunlitAt(mapSample(sampleOf(i & ~1, j & ~1)));
        sunlit = edge == 255u ? targetLit : mix(sunlit, targetLit, m);
#endif
    }
    // x, z: the unit normal's (its y is positive on a height field); y: height above the map's
    // lowest; w: distance from the eye.
    surface = vec4(normalXZ.x, height, normalXZ.y, length(fromEye));

    gl_Position = viewProjection * vec4(fromEye, 1.0);
}
