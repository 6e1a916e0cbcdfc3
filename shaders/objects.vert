// Object vertex shader: a unit mesh (core/objects/mesh.h) scaled into each instance's box, or
// under IMPOSTOR the impostor's quad turned to face the eye over the box's bounding sphere. An
// instance is either whole (qt::ObjectInstance in attributes 3-5) or, with byId, a static
// object's place in attribute 5 (bit 31: selected, bit 30: in the band between mesh and impostor)
// whose record the shader fetches from `records`, kept by place (core/objects/static_runs.h's
// StaticOrder; objectRecordTexels: two texels an object).
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
// qt::MeshChoice's fineBeyond and impostorBeyond: the distances, per unit of an object's size,
// where the band between its mesh and its impostor begins and ends.
uniform vec2 bandBeyond;

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
// a page of a pooled level out of the pool.
uniform usampler2D pageTable;
uniform sampler2DArray lightPages[4];  // qt::kMaxHeightArrays
uniform int layersPerArray;
uniform int pageShift;
uniform int pageTableRow[16];  // by level: qt::kMaxPageLevels
uniform int pageLevels;

// The page holding level sample s among its squares or on their far edge: a level's last
// sample, a multiple of the page size, lies on its last page's edge (a page's texels hold its
// squares' corners and a border), and no page starts there.
ivec2 pageOf(ivec2 s) {
    return max(s - 1, ivec2(0)) >> pageShift;
}

// Map sample m's light from the pages: level 0's when its page is resident, else the nearest
// sample of the first level k whose page is, 2^(k - 1) samples away at most (the levels above the
// pool are always resident; a base whose level-j page is out lies where the terrain is drawn from
// level j + 1 or coarser, qt::LodResidency).
vec2 pagedLightAt(ivec2 m) {
    ivec2 s = m;
    ivec2 pageXY = pageOf(s);
    uint layer = texelFetch(pageTable, ivec2(pageXY.x, pageTableRow[0] + pageXY.y), 0).r;
    for (int k = 1; k < 16 && layer == 0xFFFFu; ++k) {
        if (pageLevels <= k) {
            return vec2(1.0);
        }
        // Level k's nearest sample; its last is (mapSize - 2 + 2^k) >> k.
        s = min((m + (1 << (k - 1))) >> k, (mapSize - 2 + (1 << k)) >> k);
        pageXY = pageOf(s);
        layer = texelFetch(pageTable, ivec2(pageXY.x, pageTableRow[k] + pageXY.y), 0).r;
    }
    int array = quotientOf(int(layer), layersPerArray);  // light.glsl's
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
flat out uint fade;  // the impostor's share of the object's pixels, 0 to 31 (objects.frag)
out float trunk;

#ifdef IMPOSTOR
// The quad's point, the box's base and its scale (radius, height, radius), from the eye: the
// fragment shader casts the ray from the eye through the point at the unit shape.
out vec3 quadPoint;
flat out vec3 boxBase;
flat out vec3 boxScale;
#endif

// The impostor's share of an object in the band, at `distance` from the eye and of `size`:
// 1 to 30 of 31, growing linearly with the distance across the band. The mesh's and the
// impostor's programs compute it alike, so their shares of a pixel are complementary.
uint bandShare(float distance, float size) {
    float near = size * bandBeyond.x;
    float far = size * bandBeyond.y;
    return uint(clamp(round(31.0 * (distance - near) / max(far - near, 1e-30)), 1.0, 30.0));
}

void main() {
    vec4 place = baseRadius;  // base, radius
    float tall = height;
    uint what = look;
    if (byId) {
        int at = 2 * int(look & 0x3FFFFFFFu);
        place = texelFetch(records, at);
        vec4 rest = texelFetch(records, at + 1);  // height, kind
        tall = rest.x;
        what = uint(rest.y) | ((look >> 31) << 8) | (((look >> 30) & 1u) << 9);
    }
    vec3 scale = vec3(place.w, tall, place.w);
    kind = what & 0xFFu;
    selected = (what >> 8) & 1u;
#ifdef IMPOSTOR
    const uint alone = 31u;
#else
    const uint alone = 0u;
#endif
    bool inBand = ((what >> 9) & 1u) != 0u;
    fade = inBand ? bandShare(length(place.xyz - eye), max(place.w, tall)) : alone;
    baseLight = lightAt(place.xyz);
#ifdef IMPOSTOR
    // The bounding sphere of the shape in its box (a tree's cylinder over its base, a sphere
    // about it), and the square, in the plane through its centre facing the eye, that covers the
    // sphere's outline: the cone of rays touching the sphere meets that plane in a circle of
    // radius R d / sqrt(d^2 - R^2). The eye lies well outside (qt::kNearestImpostor).
    vec3 base = place.xyz - eye;
    bool tree = kind == 0u;
    vec3 centre = tree ? base + vec3(0.0, 0.5 * tall, 0.0) : base;
    float radius = tree ? sqrt(place.w * place.w + 0.25 * tall * tall) : max(place.w, tall);
    float d = length(centre);
    vec3 axis = centre / d;
    vec3 side = normalize(cross(abs(axis.y) < 0.9 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0),
                                axis));
    vec3 up = cross(axis, side);
    float reach = radius * d / sqrt(max(d * d - radius * radius, 1e-6 * d * d));
    vec3 fromEye = centre + reach * (unitPosition.x * side + unitPosition.y * up);
    quadPoint = fromEye;
    boxBase = base;
    boxScale = scale;
    normal = axis;
    trunk = 0.0;
#else
    vec3 fromEye = (place.xyz - eye) + unitPosition * scale;
    normal = normalize(unitNormal / scale);
    trunk = material;
#endif
    distanceFromEye = length(fromEye);
    gl_Position = viewProjection * vec4(fromEye, 1.0);
}
