// Object vertex shader: a unit mesh (core/objects/mesh.h) scaled into each instance's box. An
// instance is either whole (qt::ObjectInstance in attributes 3-5) or, with byId, a static
// object's id in attribute 5 (bit 31: selected) whose record the shader fetches from `records`
// (core/objects/instances.h, objectRecordTexels: two texels an object).
#version 330 core

layout(location = 0) in vec3 unitPosition;
layout(location = 1) in vec3 unitNormal;
layout(location = 2) in float material;  // 0: the kind's colour; 1: a tree's trunk
// Per whole instance: base and radius; height; kind in bits 0-7, bit 8 selected.
layout(location = 3) in vec4 baseRadius;
layout(location = 4) in float height;
layout(location = 5) in uint look;

uniform mat4 viewProjection;  // the view from the origin (qt::Camera::viewProjectionFromEye)
uniform vec3 eye;             // positions are taken relative to it
uniform bool byId;
uniform samplerBuffer records;

// Under a Sun (SUN): the terrain's light at the object's base (light.glsl) handed to the fragment
// shader; without light on the GPU yet (lightShown false), full light. The base's map sample is
// its x and z over `spacing`, rounded, clamped to the map. The programs by light are
// qt::ObjectProgram: none reads a light it is not drawn in.
out vec2 baseLight;
#ifdef SUN
#include "light.glsl"
uniform bool lightShown;
uniform vec2 spacing;
uniform ivec2 mapSize;

#ifdef PAGED_LIGHT
// A streamed map's light is paged as its heights are (qt::TerrainGpu::lightPages, laid out as
// shaders/height_pages.glsl says): the page table gives a page's layer, kAbsentPage (0xFFFF) for
// a level-0 page out of the pool.
uniform usampler2D pageTable;
uniform sampler2DArray lightPages[4];  // qt::kMaxHeightArrays
uniform int layersPerArray;
uniform int pageShift;
uniform int pageTableRow[2];  // levels 0 and 1
uniform int pageLevels;

// The page holding level sample s among its squares or on their far edge: a level's last
// sample, a multiple of the page size, lies on its last page's edge (a page's texels hold its
// squares' corners and a border), and no page starts there.
ivec2 pageOf(ivec2 s) {
    return max(s - 1, ivec2(0)) >> pageShift;
}

// Map sample m's light from the pages: level 0's when its page is resident, else level 1's
// nearest sample, one sample away at most (levels 1 and up are always resident; a base whose
// level-0 page is out lies where the terrain is drawn from level 1 or coarser).
vec2 pagedLightAt(ivec2 m) {
    ivec2 s = m;
    ivec2 pageXY = pageOf(s);
    uint layer = texelFetch(pageTable, ivec2(pageXY.x, pageTableRow[0] + pageXY.y), 0).r;
    if (layer == 0xFFFFu) {
        if (pageLevels < 2) {
            return vec2(1.0);
        }
        s = min((m + 1) >> 1, mapSize >> 1);  // level 1's last sample is mapSize >> 1
        pageXY = pageOf(s);
        layer = texelFetch(pageTable, ivec2(pageXY.x, pageTableRow[1] + pageXY.y), 0).r;
    }
    int array = int(layer) / layersPerArray;
    ivec3 at = ivec3(s - (pageXY << pageShift) + 1, int(layer) - array * layersPerArray);
    // Through a branch over the arrays only where there are several (height_pages.glsl's codeAt).
#ifdef MANY_HEIGHT_ARRAYS
    float texel;
    if (array == 0) {
        texel = texelFetch(lightPages[0], at, 0).r;
    } else if (array == 1) {
        texel = texelFetch(lightPages[1], at, 0).r;
    } else if (array == 2) {
        texel = texelFetch(lightPages[2], at, 0).r;
    } else {
        texel = texelFetch(lightPages[3], at, 0).r;
    }
#else
    float texel = texelFetch(lightPages[0], at, 0).r;
#endif
    return sharesOf(texel);
}
#endif

vec2 lightAt(vec3 base) {
    if (!lightShown) {
        return vec2(1.0);
    }
    ivec2 m = clamp(ivec2(floor(base.xz / spacing + 0.5)), ivec2(0), mapSize - 1);
#ifdef PAGED_LIGHT
    return pagedLightAt(m);
#else
    return lightShares(m);
#endif
}
#else
vec2 lightAt(vec3 base) {
    return vec2(1.0);
}
#endif

out vec3 normal;
out float distanceFromEye;
flat out uint kind;
flat out uint selected;
out float trunk;

void main() {
    vec4 place = baseRadius;  // base, radius
    float tall = height;
    uint what = look;
    if (byId) {
        int at = 2 * int(look & 0x7FFFFFFFu);
        place = texelFetch(records, at);
        vec4 rest = texelFetch(records, at + 1);  // height, kind
        tall = rest.x;
        what = uint(rest.y) | ((look >> 31) << 8);
    }
    vec3 scale = vec3(place.w, tall, place.w);
    vec3 fromEye = (place.xyz - eye) + unitPosition * scale;
    normal = normalize(unitNormal / scale);
    distanceFromEye = length(fromEye);
    kind = what & 0xFFu;
    selected = (what >> 8) & 1u;
    trunk = material;
    baseLight = lightAt(place.xyz);
    gl_Position = viewProjection * vec4(fromEye, 1.0);
}
