// Terrain fragment shader: colour by altitude in metres (hypsometric tints) or by the map's
// relative height, and by slope; contour lines; diffuse + ambient light, distance fog (under a
// given Sun, the daylight sky's haze: sky.glsl).
#version 330 core

// Normal x, height above the map's lowest world height, normal z, distance from the eye
// (terrain.vert).
in vec4 surface;

uniform float farPlane;
uniform float fogStart;  // distance where the fog begins; at the far plane: none (render/fog.h)
uniform vec2 heightRange;  // world heights of the lowest and highest sample
uniform vec3 fogColour;
uniform bool wireframe;
uniform bool altitudeRamp;  // heights are metres: tints tied to altitude, sea level at 0
uniform vec2 toMetres;      // metres = world height * x + y
uniform float dim;  // 0: as lit; towards 1, faded into the sky colour (the frozen view's context)
// Contour lines every contourInterval of the map's heights (metres when the map is in metres);
// 0: none. The map's height = world height * toMapHeight.x + toMapHeight.y.
uniform float contourInterval;
uniform vec2 toMapHeight;

out vec4 colour;

in vec2 mapAt;         // the fragment's map column and row (terrain.vert)
flat in int drawnLevel;  // the level of the node it belongs to

#include "height_pages.glsl"

#ifdef COARSE_NODES
// The surface's normal as finely as a pixel resolves it. A node's vertices carry the normals of
// its own level's samples (terrain.vert), which is all the detail a pixel shows where one of its
// grid steps looks at most a pixel long. Level of detail picks nodes by their height error, so a
// smooth node near the eye may have longer steps: its fragments take their normal from the finest
// level whose step still covers a pixel's footprint (`perPixel`, map samples per pixel), as the
// slope of the bilinear patch over that level's four samples around it. Level 0 is left to the
// vertices: on a streamed map its pages are resident only where level-0 nodes are drawn. Level j
// shades only in its pages within 2^(j - 1) shadingReach of the eye (qt::fineShadingReach), level
// j + 1 beyond: a streamed map asks for exactly those pages of its pooled levels
// (qt::LodOutput::shadingPages) and the levels above are always resident, so once they are in it
// shades as the same map loaded whole; while one is not, the next level up stands in. Compiled in
// only for the nodes of level 2 and up (COARSE_NODES, qt::takesFinerNormals): the others keep
// their vertices' normals, and a software rasteriser would run the fetches below for every
// fragment, whichever way the branch goes.
uniform vec2 shadingEye;     // the eye's world x and z
uniform float shadingReach;  // world units

// Whether level-k sample sk's page lies within 2^(k - 1) shadingReach of the eye on the ground and
// is on the GPU (a streamed map's page table holds 0xFFFF, qt::kAbsentPage, for a page out of the
// pool).
bool levelShades(int k, ivec2 sk) {
    ivec2 pageXY = sk >> pageShift;
    vec2 low = vec2(pageXY << (pageShift + k)) * spacing;
    vec2 high = vec2((pageXY + 1) << (pageShift + k)) * spacing;
    vec2 d = max(max(low - shadingEye, shadingEye - high), vec2(0.0));
    float reach = shadingReach * float(1 << (k - 1));
    if (dot(d, d) >= reach * reach) {
        return false;
    }
    return texelFetch(pageTable, ivec2(pageXY.x, pageTableRow[k] + pageXY.y), 0).r != 0xFFFFu;
}

vec3 fineNormal(vec3 vertexNormal, float perPixel) {
    int finest = perPixel > 2.0 ? int(floor(log2(min(perPixel, 65536.0)))) : 1;
    while (finest < drawnLevel &&
           !levelShades(finest,
                        clamp(ivec2(floor(mapAt)) >> finest, ivec2(0), lastOfLevel(finest) - 1))) {
        ++finest;
    }
    if (finest >= drawnLevel) {
        return vertexNormal;
    }
    ivec2 s = clamp(ivec2(floor(mapAt)) >> finest, ivec2(0), lastOfLevel(finest) - 1);
    usePage(finest, s);
    vec2 low = vec2(mapSample(s));
    vec2 high = vec2(mapSample(s + 1));
    vec2 t = clamp((mapAt - low) / (high - low), 0.0, 1.0);
    // The slope of the bilinear patch over the square's four samples at the fragment: four
    // fetches, and where it is discontinuous, at the square's sides, a square is at most a pixel
    // or two across.
    float h00 = codeAt(s.x, s.y);
    float h10 = codeAt(s.x + 1, s.y);
    float h01 = codeAt(s.x, s.y + 1);
    float h11 = codeAt(s.x + 1, s.y + 1);
    vec2 size = (high - low) * spacing;
    float dx = mix(h10 - h00, h11 - h01, t.y) * heightScale / size.x;
    float dz = mix(h01 - h00, h11 - h10, t.x) * heightScale / size.y;
    return normalize(vec3(-dx, 1.0, -dz));
}
#endif

#ifdef IMAGERY
// Imagery over the map (qt::ImageryGpu): a pyramid of levels, level k's texel (i, j) spanning
// level 0's 2^k x 2^k from (i 2^k, j 2^k), level 0's texels spanning the map from the centre of
// its first sample to that of its last; cut into pages of imageryPageTexels, each a layer of
// imageryPages with imageryBorder texels of its neighbours around it, found through the page
// table (imageryTable: level k's entries from row imageryTableRow[k], a layer or 0xFFFF where the
// page is not resident; the tail's levels, smaller than a page, share layer 0 at their
// imageryOrigin). Colour premultiplied by alpha (0 where the imagery has no value), drawn
// over the terrain's own colours imageryOpacity of the way, lit by the terrain's light when
// imageryLit (else as it is: orthophotos often have their shading baked in).
uniform sampler2DArray imageryPages;
uniform usampler2D imageryTable;
uniform int imageryTop;   // the top level
uniform int imageryTail;  // levels imageryTail..imageryTop: packed in layer 0, always resident
uniform int imageryTableRow[24];
uniform vec2 imageryOrigin[24];  // level k's place in its layer: (0, 0) below the tail
uniform vec2 imageryDensity;     // level-0 texels per map sample, along columns and rows
uniform vec2 imageryExtent;      // the map's extent in level-0 texels: (columns, rows) - 1 times
                                 // imageryDensity
uniform float imageryPageTexels;
uniform float imageryBorder;
uniform float imagerySide;        // a layer's texels a side: pageTexels + 2 border
uniform float imageryAnisotropy;  // the most taps along a footprint's major axis
// No level finer than log2(distance * imageryFloorScale) (qt::ImageryView): the texels a pixel
// spans at that distance, at least, so that the pages a frame asks for are all it reads.
uniform float imageryFloorScale;
uniform float imageryOpacity;
uniform bool imageryLit;

// Level k's filtered texel at level-0 texel coordinates t0, read from the nearest level at or
// above k whose page is resident: `taps` bilinear reads spread along `along` (the footprint's
// major axis, in level-0 texels). At the level the lod picks, the taps and their bilinear
// neighbours stay within the page's border (qt::kImageryAnisotropy).
vec4 imageryLevel(vec2 t0, vec2 along, int taps, int k) {
    vec2 t;
    ivec2 page;
    uint layer;
    for (;; ++k) {
        float s = exp2(-float(k));
        // Inside the map: the edge texels' centres at most, as a texture clamped to its edge.
        t = clamp(t0 * s, vec2(0.5), max(imageryExtent * s - 0.5, vec2(0.5)));
        if (k >= imageryTail) {
            page = ivec2(0);
            layer = 0u;
            break;
        }
        page = ivec2(floor(t / imageryPageTexels));
        layer = texelFetch(imageryTable, ivec2(page.x, imageryTableRow[k] + page.y), 0).r;
        if (layer != 0xFFFFu) {
            break;
        }
    }
    vec2 inPage = t - vec2(page) * imageryPageTexels + imageryBorder + imageryOrigin[k];
    vec2 step = along * exp2(-float(k)) / float(taps);
    vec2 first = inPage - step * (0.5 * float(taps - 1));
    vec4 sum = vec4(0.0);
    for (int i = 0; i < taps; ++i) {
        sum += textureLod(imageryPages, vec3((first + step * float(i)) / imagerySide,
                                             float(layer)), 0.0);
    }
    return sum / float(taps);
}

// The imagery at the fragment: trilinear between the two levels around the texels a pixel spans
// along its footprint's minor axis, or a 1/imageryAnisotropy of its major axis if more, that axis
// then read in as many taps (anisotropic filtering of our own: the GL's reads beyond a page's
// border); never finer than the floor.
vec4 imageryAt(vec2 t0, vec2 dx0, vec2 dy0) {
    float a = length(dx0);
    float b = length(dy0);
    float major = max(a, b);
    float minor = min(a, b);
    int taps = int(clamp(ceil(major / max(minor, 1e-30) - 0.01), 1.0, imageryAnisotropy));
    vec2 along = taps > 1 ? (a >= b ? dx0 : dy0) : vec2(0.0);
    float footprint = max(minor, major / float(taps));
    float lod = max(log2(max(footprint, 1e-30)), log2(max(surface.w * imageryFloorScale, 1e-30)));
    lod = clamp(lod, 0.0, float(imageryTop));
    int k = int(floor(lod));
    float f = lod - float(k);
    vec4 texel = imageryLevel(t0, along, taps, k);
    if (f > 0.0 && k < imageryTop) {
        // The footprint is half as many texels long a level up: half the taps cover it.
        texel = mix(texel, imageryLevel(t0, along, (taps + 1) / 2, k + 1), f);
    }
    return texel;
}

// The sRGB encoding of a linear colour (IEC 61966-2-1): the texture's reads are linear, and the
// terrain's colours and the framebuffer are sRGB-encoded values.
vec3 srgbEncoded(vec3 linear) {
    vec3 c = clamp(linear, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}
#endif

#ifdef HOLES
// Squares with a nodata corner (qt::TerrainGpu::holeSquares): bit (c & 31) of texel (c / 32,
// row % holeRowsPerLayer) in layer row / holeRowsPerLayer set for square (c, row). A fragment
// over one is not drawn, at every level of detail: the hole is the map's own squares, wherever
// the drawn surface lies above them.
uniform usampler2DArray holeSquares;
uniform int holeRowsPerLayer;

bool overHole() {
    ivec2 square = clamp(ivec2(floor(mapAt)), ivec2(0), mapSize - 2);
    int layer = quotientOf(square.y, holeRowsPerLayer);
    uint word = texelFetch(holeSquares,
                           ivec3(square.x >> 5, square.y - layer * holeRowsPerLayer, layer), 0)
                    .r;
    return ((word >> uint(square.x & 31)) & 1u) != 0u;
}
#endif

#ifdef SUN
// A given Sun (qt::TerrainRenderer::sun): the unit direction towards it, and the vertex's share
// of its disc in view, 0 in full shadow, and of the sky (terrain.vert). Under it the daylight
// sky's haze takes the fog's place.
uniform vec3 sunDirection;
in vec2 sunlit;
in float hazeThrough;  // the haze's transmittance from this point to the eye (terrain.vert)
#include "sky.glsl"

// terrain.vert's: the eye's map sample and fraction, and the biases that take a height code to
// the height above the eye and above the map's lowest.
uniform ivec2 eyeSample;
uniform vec2 eyeFraction;
uniform float heightBiasFromEye;
uniform float heightBiasFromLow;

// The unit ray from the eye to this fragment, from its map position and height as the vertices
// hand them on (each interpolated over the triangle as its position is): what sky.glsl's
// viewRayAt gives the pixel, without unprojecting it.
vec3 rayToFragment() {
    return normalize(vec3((mapAt.x - float(eyeSample.x) - eyeFraction.x) * spacing.x,
                          surface.y + (heightBiasFromEye - heightBiasFromLow),
                          (mapAt.y - float(eyeSample.y) - eyeFraction.y) * spacing.y));
}
#endif

// The fixed light, without SUN.
const vec3 kSunDirection = normalize(vec3(-0.45, 0.75, -0.35));
const vec3 kLowland = vec3(0.26, 0.42, 0.18);
const vec3 kHills = vec3(0.45, 0.40, 0.25);
const vec3 kRock = vec3(0.46, 0.43, 0.40);
const vec3 kSnow = vec3(0.95, 0.96, 0.98);
const vec3 kShallowWater = vec3(0.28, 0.50, 0.68);
const vec3 kDeepWater = vec3(0.06, 0.16, 0.36);
const vec3 kCoast = vec3(0.36, 0.52, 0.26);
const vec3 kUpland = vec3(0.55, 0.50, 0.32);

// Hypsometric tints by altitude in metres: water below sea level (deeper, darker, to 5000 m),
// coastal and lowland greens to 500 m, upland browns to 1500 m, rock above 2000 m, snow from
// 2800 m on gentle slopes; steep slopes are rock at any altitude above the sea.
vec3 altitudeAlbedo(float metres, float upness) {
    if (metres < 0.0) {
        return mix(kShallowWater, kDeepWater, smoothstep(0.0, 5000.0, -metres));
    }
    vec3 albedo = mix(kCoast, kLowland, smoothstep(0.0, 150.0, metres));
    albedo = mix(albedo, kUpland, smoothstep(300.0, 1000.0, metres));
    albedo = mix(albedo, kRock, smoothstep(1500.0, 2200.0, metres));
    float steep = 1.0 - smoothstep(0.6, 0.85, upness);
    albedo = mix(albedo, kRock * 0.85, steep);
    float snow = smoothstep(2600.0, 3000.0, metres) * smoothstep(0.55, 0.8, upness);
    return mix(albedo, kSnow, snow);
}

// How much of a contour line covers this fragment, as darkening: about a pixel wide wherever
// the height crosses a multiple of contourInterval (its distance to the nearest multiple over
// the height's change across a pixel, fwidth), every fifth line darker. The fragment's own
// interpolated height and its derivatives alone decide it, so a culled frame draws the same
// lines as an unculled one.
float contourLine(float aboveLowest, float lowest) {
    // Relative to the lowest height first, so that large world heights keep their fraction.
    float lowestLines = (lowest * toMapHeight.x + toMapHeight.y) / contourInterval;
    float lines = aboveLowest * toMapHeight.x / contourInterval + fract(lowestLines);
    float perPixel = fwidth(lines);
    // Level ground exactly at a multiple (a plateau, the sea) crosses no line: none drawn where
    // lines would lie a thousand pixels apart or more.
    if (perPixel < 1e-4) {
        return 0.0;
    }
    // The level at the map's lowest height only outlines its lowest ground (often a wide floor
    // a few units above it): not drawn.
    float level = floor(lines + 0.5) + floor(lowestLines);
    if (level <= lowestLines + 0.01) {
        return 0.0;
    }
    float nearest = abs(fract(lines + 0.5) - 0.5);
    float cover = 1.0 - clamp(nearest / perPixel - 0.25, 0.0, 1.0);
    cover *= smoothstep(1e-4, 1e-3, perPixel);
    // Lines closer than two pixels apart fade out rather than fill the surface.
    cover *= 1.0 - smoothstep(0.25, 0.5, perPixel);
    return cover * (mod(level, 5.0) == 0.0 ? 0.6 : 0.4);
}

void main() {
    // Before any discard: derivatives need the whole 2x2 quad (the branch is uniform).
    float contour = contourInterval > 0.0 ? contourLine(surface.y, heightRange.x) : 0.0;
#ifdef COARSE_NODES
    vec2 footprint = fwidth(mapAt);
#endif
#ifdef IMAGERY
    vec2 t0 = mapAt * imageryDensity;
    vec4 texel = imageryAt(t0, dFdx(t0), dFdy(t0));
#endif
#ifdef HOLES
    if (overHole()) {
        discard;
    }
#endif
    vec2 nxz = surface.xz;
    vec3 n = normalize(vec3(nxz.x, sqrt(max(1.0 - dot(nxz, nxz), 0.0)), nxz.y));
#ifdef COARSE_NODES
    n = fineNormal(n, max(footprint.x, footprint.y));
#endif
    float span = max(heightRange.y - heightRange.x, 1e-6);
    float h = clamp(surface.y / span, 0.0, 1.0);

    vec3 albedo;
    if (altitudeRamp) {
        albedo = altitudeAlbedo((surface.y + heightRange.x) * toMetres.x + toMetres.y, abs(n.y));
    } else {
        albedo = mix(kLowland, kHills, smoothstep(0.15, 0.45, h));
        albedo = mix(albedo, kRock, smoothstep(0.45, 0.7, h));
        float steep = 1.0 - smoothstep(0.6, 0.85, abs(n.y));
        albedo = mix(albedo, kRock * 0.85, steep);
        float snow = smoothstep(0.72, 0.85, h) * smoothstep(0.55, 0.8, abs(n.y));
        albedo = mix(albedo, kSnow, snow);
    }
    albedo *= 1.0 - contour;
    if (wireframe) {
        albedo = vec3(0.1, 0.15, 0.1);
    }

#ifdef SUN
    // Ambient light from the sky the sample sees (horizon-based ambient occlusion).
    float diffuse = max(dot(n, sunDirection), 0.0) * sunlit.x;
    float light = 0.28 * sunlit.y + 0.85 * diffuse;
#else
    float diffuse = max(dot(n, kSunDirection), 0.0);
    float light = 0.28 + 0.85 * diffuse;
#endif
    vec3 lit = albedo * light;
#ifdef IMAGERY
    // Premultiplied: the colour where the imagery has one, the terrain's own elsewhere.
    vec3 picture = srgbEncoded(texel.rgb / max(texel.a, 1e-6)) * (1.0 - contour);
    lit = mix(lit, imageryLit ? picture * light : picture, texel.a * imageryOpacity);
#endif

    // Clear up to fogStart, then thickening to the sky colour at the far plane.
    float d = fogStart < farPlane ? clamp((surface.w - fogStart) / (farPlane - fogStart), 0.0, 1.0)
                                  : 0.0;
    float fog = d * d;
#ifdef SUN
    vec3 seen = hazedThrough(lit, rayToFragment(), hazeThrough, fog);
#else
    vec3 seen = mix(lit, fogColour, fog);
#endif
    colour = vec4(mix(seen, fogColour, dim), 1.0);
}
