// Object vertex shader: a unit mesh (core/object_mesh.h) scaled into each instance's box.
#version 330 core

layout(location = 0) in vec3 unitPosition;
layout(location = 1) in vec3 unitNormal;
layout(location = 2) in float material;  // 0: the kind's colour; 1: a tree's trunk
// Per instance (qt::ObjectInstance): base and radius; height; kind in bits 0-7, bit 8 selected.
layout(location = 3) in vec4 baseRadius;
layout(location = 4) in float height;
layout(location = 5) in uint look;

uniform mat4 viewProjection;
uniform vec3 eye;

out vec3 normal;
out float distanceFromEye;
flat out uint kind;
flat out uint selected;
out float trunk;

void main() {
    vec3 scale = vec3(baseRadius.w, height, baseRadius.w);
    vec3 world = baseRadius.xyz + unitPosition * scale;
    normal = normalize(unitNormal / scale);
    distanceFromEye = distance(eye, world);
    kind = look & 0xFFu;
    selected = (look >> 8) & 1u;
    trunk = material;
    gl_Position = viewProjection * vec4(world, 1.0);
}
