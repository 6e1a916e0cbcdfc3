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

// Under a Sun (sunOn): the terrain's light at the object's base (light.glsl) handed to the
// fragment shader; without light on the GPU (lightShown false), full light. The base's map
// sample is its x and z over `spacing`, rounded, clamped to the map.
#include "light.glsl"
uniform bool sunOn;
uniform bool lightShown;
uniform vec2 spacing;
uniform ivec2 mapSize;
out vec2 baseLight;

vec2 lightAt(vec3 base) {
    if (!sunOn || !lightShown) {
        return vec2(1.0);
    }
    return lightShares(clamp(ivec2(floor(base.xz / spacing + 0.5)), ivec2(0), mapSize - 1));
}

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
