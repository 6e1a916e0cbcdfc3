// Sky pass vertex shader: one triangle over the whole viewport at the far plane's depth, made
// from the vertex id (no vertex buffer).
#version 330 core

void main() {
    vec2 corner = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0;
    gl_Position = vec4(corner, 1.0, 1.0);
}
