// Debug lines fragment shader: flat colour.
#version 330 core

in vec4 colourIn;
out vec4 colour;

void main() {
    colour = colourIn;
}
