// Water plane vertex shader: the map's footprint at sea level, one strip of four corners made
// from the vertex id (no vertex buffer).
#version 330 core

uniform vec2 size;    // the map's extent in world x and z
uniform float level;  // world height of the water
uniform mat4 viewProjection;

out vec3 worldPosition;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1)) * size;
    worldPosition = vec3(corner.x, level, corner.y);
    gl_Position = viewProjection * vec4(worldPosition, 1.0);
}
