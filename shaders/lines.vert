// Debug lines vertex shader: world-space positions with a packed RGBA8 colour.
#version 330 core

layout(location = 0) in vec3 position;
layout(location = 1) in vec4 lineColour;  // normalised from RGBA8

uniform mat4 viewProjection;

out vec4 colourIn;

void main() {
    colourIn = lineColour;
    gl_Position = viewProjection * vec4(position, 1.0);
}
