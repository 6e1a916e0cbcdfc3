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

#include "height_pages.glsl"

uniform int leafSize;  // grid squares along a leaf side
// Positions are taken relative to the eye, so that no coordinate far from the origin (a high map,
// an eye over the far side of a wide one) cancels against another in float: the eye at map column
// eyeSample.x + eyeFraction.x and row eyeSample.y + eyeFraction.y (the integer parts subtract
// exactly), and heights as code * heightScale + heightBiasFromEye: the map's bias
// (qt::HeightTransform: world height = code * heightScale + bias) less the eye's height, taken in
// double on the CPU. The colours read the height above the map's lowest world height the same
// way, with heightBiasFromLow.
uniform ivec2 eyeSample;
uniform vec2 eyeFraction;
uniform float heightBiasFromEye;
uniform float heightBiasFromLow;
uniform mat4 viewProjection;  // the view from the origin (qt::Camera::viewProjectionFromEye)

// What the fragment shader needs, in one vector: the rasteriser keeps three interpolation
// coefficients per vector and triangle, so one vector instead of two makes each binned triangle
// smaller. x, z: the unit normal's (its y is positive on a height field); y: height above the
// map's lowest world height; w: distance from the eye.
out vec4 surface;
// The point's map column and row (its grid square: their floor), for the fragment shader's
// normals, hole test and imagery coordinates; exact at the vertices, as the geomorph moves them.
out vec2 mapAt;
// The drawn node's level: the fragment shader takes finer normals than its vertices' where its
// grid step looks longer than a pixel.
flat out int drawnLevel;
// A map with holes draws the nodes over a hole with this shader compiled with HOLES and the rest
// without (qt::FrameBuffers::holesFrom); HOLES and IMAGERY add no step to gl_Position, so the
// vertices two such nodes share coincide (the render tests' crack test captures both and holds
// them to the same positions). `invariant gl_Position` would promise it, but on llvmpipe it
// changes the geomorph's rounding so that the crack test's mesh no longer closes.
// Nodes part way through a morph (qt::morphsPartWay) are drawn with this shader compiled with
// MORPHING, which moves each odd vertex from its own sample towards its target (on the boundary a
// sample, inside the parent's surface there); the rest without, fetching one sample a vertex.
// Both give a boundary vertex at morph 0 or 255 and an inside one at 0 the same values.
// Lit by a given Sun (qt::TerrainRenderer::sun), this shader is compiled with SUN: each vertex
// reads its map sample's light (qt::TerrainGpu::shadows: one byte a sample, rows split into
// layers of shadowRowsPerLayer, holding the share of the Sun's disc it sees and the share of the
// sky: core/light/light_byte.h) and hands both on interpolated across the triangle, as its
// normal is. Per vertex rather than per fragment: one fetch a vertex, and a node of level of
// detail lit by its own samples as it is shaped by them. SUN adds no step to gl_Position.
#ifdef SUN
#include "light.glsl"
#include "sky.glsl"
uniform bool shadowed;  // false: no light on the GPU yet, every sample lit, open sky
out vec2 sunlit;        // the Sun's share, the sky's
// The share of the vertex's light that reaches the eye through the haze (sky.glsl's
// hazeTransmittance), interpolated across the triangle. Per vertex rather than per fragment:
// the software rasteriser shades whole 4x4 blocks of pixels, so where triangles are about a pixel
// each (level of detail within PIXELS) it runs the fragment shader more often than the vertex
// shader, and the transmittance varies smoothly with distance and height.
out float hazeThrough;

#ifdef PAGED_LIGHT
// A streamed map's light is paged as its heights are (qt::TerrainGpu::lightPages: the same
// arrays, layers and texels), so a vertex reads it at its level sample in the page usePage chose.
uniform sampler2DArray lightPages[4];  // qt::kMaxHeightArrays

// The light of level sample s (of the page usePage chose).
vec2 sunlitAt(ivec2 s) {
    if (!shadowed) {
        return vec2(1.0);
    }
    ivec3 at = ivec3(s.x - page.x, s.y - page.y, page.z);
    // Through a branch over the arrays only where there are several (as codeAt).
#ifdef MANY_HEIGHT_ARRAYS
    float texel;
    if (pageArray == 0) {
        texel = texelFetch(lightPages[0], at, 0).r;
    } else if (pageArray == 1) {
        texel = texelFetch(lightPages[1], at, 0).r;
    } else if (pageArray == 2) {
        texel = texelFetch(lightPages[2], at, 0).r;
    } else {
        texel = texelFetch(lightPages[3], at, 0).r;
    }
#else
    float texel = texelFetch(lightPages[0], at, 0).r;
#endif
    return sharesOf(texel);
}
#else
// The light of level sample s: its map sample's byte in the map's light texture.
vec2 sunlitAt(ivec2 s) {
    return shadowed ? lightShares(mapSample(s)) : vec2(1.0);
}
#endif
#endif

// The drawn node's origin in level samples, set by main() (usePage sets the level and page).
ivec2 origin;

// The level sample of the node's vertex (i, j): the node's origin plus (i, j), clamped to the level
// (the padding of partial border nodes folds onto the last sample, as clamping the map's sample
// every 2^level from the origin does).
ivec2 sampleOf(int i, int j) {
    return min(origin + ivec2(i, j), levelLast);
}

// Position relative to the eye of a level sample, and its unit normal's x and z (levelNormal: a
// coarser node's from its own level's samples, 2^level apart).
vec3 worldAt(ivec2 s, out vec2 normalXZ, out float aboveLowest) {
    normalXZ = levelNormal(s).xz;
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
    int nodeLevel = int(item.z & 0xFFu);
    uint coarser = item.z >> 8;
    // The node's page: its origin, in level samples, is a multiple of leafSize, which divides
    // pageSize, so its vertices and their neighbours lie in the page's squares and border.
    origin = ivec2(item.xy) * leafSize >> nodeLevel;
    usePage(nodeLevel, origin);
    drawnLevel = nodeLevel;
    if ((i == 0 && (coarser & 1u) != 0u) || (i == leafSize && (coarser & 2u) != 0u)) {
        j &= ~1;
    }
    if ((j == 0 && (coarser & 4u) != 0u) || (j == leafSize && (coarser & 8u) != 0u)) {
        i &= ~1;
    }
    // Geomorph: towards its target by the edge's morph on an edge, the node's inside. Even vertices
    // stay; at morph 255 each vertex is its target, exactly.
    uint edge = int(local.x) == 0          ? morphs.y & 0xFFu
                : int(local.x) == leafSize ? morphs.y >> 8
                : int(local.y) == 0        ? morphs.z & 0xFFu
                : int(local.y) == leafSize ? morphs.z >> 8
                                           : morphs.x;
    vec2 ownNormal;
    float height;
#ifdef MORPHING
    float m = float(edge) / 255.0;
    vec3 fromEye = worldAt(sampleOf(i, j), ownNormal, height);
    vec2 normalXZ = ownNormal;
    mapAt = vec2(mapSample(sampleOf(i, j)));
#ifdef SUN
    sunlit = sunlitAt(sampleOf(i, j));
#endif
    // An odd vertex inside the node whose parent's square lies within the map moves in place onto
    // the parent's surface; the others slide to the vertex (i & ~1, j & ~1): on the boundary along
    // the edge, and in a partial border node's squares on the map's last column or row, where
    // vertices clamped onto one sample must move alike (qt::lodVertexMorph).
    ivec2 farCorner = (origin + ivec2((i + 1) & ~1, (j + 1) & ~1)) << nodeLevel;
    ivec2 nodeEnd = (origin + leafSize) << nodeLevel;
    bvec2 within = bvec2((farCorner.x < mapSize.x - 1 || nodeEnd.x <= mapSize.x - 1),
                         (farCorner.y < mapSize.y - 1 || nodeEnd.y <= mapSize.y - 1));
    bool slides = int(local.x) == 0 || int(local.x) == leafSize || int(local.y) == 0 ||
                  int(local.y) == leafSize || !all(within);
    if (((i | j) & 1) != 0 && edge != 0u && slides) {
        vec2 targetNormal;
        float targetHeight;
        vec3 target = worldAt(sampleOf(i & ~1, j & ~1), targetNormal, targetHeight);
        fromEye = edge == 255u ? target : mix(fromEye, target, m);
        normalXZ = edge == 255u ? targetNormal : mix(ownNormal, targetNormal, m);
        height = edge == 255u ? targetHeight : mix(height, targetHeight, m);
        vec2 targetAt = vec2(mapSample(sampleOf(i & ~1, j & ~1)));
        mapAt = edge == 255u ? targetAt : mix(mapAt, targetAt, m);
#ifdef SUN
        vec2 targetLit = sunlitAt(sampleOf(i & ~1, j & ~1));
        sunlit = edge == 255u ? targetLit : mix(sunlit, targetLit, m);
#endif
    } else if (((i | j) & 1) != 0 && edge != 0u) {
        // Inside: in place, onto the middle of the parent's edge or anti-diagonal through it.
        vec2 na, nb;
        float ha, hb;
        ivec2 a = sampleOf(i - (i & 1), j + (j & 1));
        ivec2 b = sampleOf(i + (i & 1), j - (j & 1));
        float ya = worldAt(a, na, ha).y, yb = worldAt(b, nb, hb).y;
        // Only y moves, by own + m (target - own).
        float targetY = 0.5 * ya + 0.5 * yb;
        vec2 targetNormal = 0.5 * na + 0.5 * nb;
        float targetHeight = 0.5 * ha + 0.5 * hb;
        fromEye.y = edge == 255u ? targetY : fromEye.y + m * (targetY - fromEye.y);
        normalXZ = edge == 255u ? targetNormal : ownNormal + m * (targetNormal - ownNormal);
        height = edge == 255u ? targetHeight : height + m * (targetHeight - height);
#ifdef SUN
        vec2 targetLit = 0.5 * sunlitAt(a) + 0.5 * sunlitAt(b);
        sunlit = edge == 255u ? targetLit : sunlit + m * (targetLit - sunlit);
#endif
    }
#else
    // A node inside at morph 0 and on its edges at 0 or 255 (qt::morphsPartWay false; leaves):
    // each vertex is its own sample or, on the boundary, its target, so one sample's fetches give
    // what the branch above gives, value for value, without the other's (a software rasteriser
    // runs both arms of a branch).
    ivec2 s = ((i | j) & 1) != 0 && edge == 255u ? sampleOf(i & ~1, j & ~1) : sampleOf(i, j);
    vec3 fromEye = worldAt(s, ownNormal, height);
    vec2 normalXZ = ownNormal;
    mapAt = vec2(mapSample(s));
#ifdef SUN
    sunlit = sunlitAt(s);
#endif
#endif
    // x, z: the unit normal's (its y is positive on a height field); y: height above the map's
    // lowest; w: distance from the eye.
    float distance = length(fromEye);
    surface = vec4(normalXZ.x, height, normalXZ.y, distance);
#ifdef SUN
    hazeThrough = hazeTransmittance(fromEye / max(distance, 1e-6), distance);
#endif

    gl_Position = viewProjection * vec4(fromEye, 1.0);
}
