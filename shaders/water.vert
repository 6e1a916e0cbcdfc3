// Water plane vertex shader: the map's footprint at sea level, one strip of four corners made
// from the vertex id (no vertex buffer).
#version 330 core

uniform vec2 size;     // the map's extent in world x and z
uniform vec3 origin;   // the map's corner at the water's level, relative to the eye
uniform mat4 viewProjection;  // the view from the origin (qt::Camera::viewProjectionFromEye)

out vec3 fromEye;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * size;
    fromEye = origin + vec3(corner.x, 0.0, corner.y);
    gl_Position = viewProjection * vec4(fromEye, 1.0);
}
