// Sky pass fragment shader: the daylight sky wherever nothing nearer was drawn (the pass runs
// after the terrain, objects and water, depth-tested at the far plane), with the Sun's disc.
#version 330 core

#include "sky.glsl"

// The cosine of the Sun's angular radius, 0.2666 degrees: inside it, the disc.
const float kSunDiscCos = 0.99998918;
const vec3 kSunDisc = vec3(1.0, 0.97, 0.88);

noperspective in vec3 skyRay;  // this pixel's ray, unprojected, not divided (sky.vert)

out vec4 colour;

void main() {
    vec3 view = normalize(skyRay);
    vec3 sky = skyColour(view);
    bool disc = view.y >= 0.0 && dot(view, skyToSun) >= kSunDiscCos;
    colour = vec4(disc ? mix(sky, kSunDisc, skyTwilight) : sky, 1.0);
}
