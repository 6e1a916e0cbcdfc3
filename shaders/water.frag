// Water plane fragment shader: flat sea colour, brighter where the view grazes it, with the
// terrain's distance fog.
#version 330 core

in vec3 fromEye;  // relative to the eye (water.vert)

uniform float farPlane;
uniform float fogStart;
uniform vec3 fogColour;
// A Sun given: the daylight sky's haze (sky.glsl) instead of the fog's flat colour.
uniform bool daylight;

#include "sky.glsl"

out vec4 colour;

const vec3 kWater = vec3(0.10, 0.26, 0.45);
const vec3 kGlancing = vec3(0.42, 0.58, 0.72);

void main() {
    vec3 toEye = -fromEye;
    float distance = length(toEye);
    float grazing = 1.0 - abs(toEye.y) / max(distance, 1e-6);
    vec3 water = mix(kWater, kGlancing, grazing * grazing * grazing);
    // The same fog as terrain.frag: clear up to fogStart, then thickening.
    float d = fogStart < farPlane ? clamp((distance - fogStart) / (farPlane - fogStart), 0.0, 1.0)
                                  : 0.0;
    colour = vec4(daylight ? hazed(water, fromEye / max(distance, 1e-6), distance, d * d)
                           : mix(water, fogColour, d * d),
                  1.0);
}
