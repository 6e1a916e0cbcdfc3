// Sky pass vertex shader: one triangle over the whole viewport at the far plane's depth, made
// from the vertex id (no vertex buffer).
#version 330 core

uniform mat4 skyUnproject;  // sky.glsl's: the inverse of the view-projection from the eye

// The corner's ray: its point at depth 0 in normalised device coordinates, unprojected, without
// its division by w: for a perspective, w is positive and the same over the screen, so the
// direction is the same. It is linear in the screen position, so interpolated over the triangle
// (its clip w is 1: no perspective) it is each pixel's, and the fragment shader normalises it
// instead of unprojecting the pixel (sky.glsl's viewRayAt): a matrix product less a pixel.
noperspective out vec3 skyRay;

void main() {
    vec2 corner = vec2(float((gl_VertexID & 1) << 2), float((gl_VertexID & 2) << 1)) - 1.0;
    skyRay = (skyUnproject * vec4(corner, 0.0, 1.0)).xyz;
    gl_Position = vec4(corner, 1.0, 1.0);
}
