// Object fragment shader: a colour by kind, lit and fogged as the terrain is (terrain.frag).
#version 330 core

in vec3 normal;
in float distanceFromEye;
flat in uint kind;
flat in uint selected;
in float trunk;
in vec2 baseLight;  // under a Sun: the terrain's Sun and sky shares at the base (objects.vert)

uniform float farPlane;
uniform float fogStart;
uniform vec3 fogColour;
#ifdef SUN
// A Sun given (qt::ObjectProgram): the light from it, shadowed as the ground under the object
// is, and the daylight sky's haze (sky.glsl) instead of the fog's flat colour while the sky is
// shown (daylight).
uniform bool daylight;
uniform vec3 sunDirection;

#include "sky.glsl"
#endif

out vec4 colour;

const vec3 kSunDirection = normalize(vec3(-0.45, 0.75, -0.35));
const vec3 kFoliage = vec3(0.13, 0.36, 0.14);
const vec3 kTrunk = vec3(0.36, 0.24, 0.13);
const vec3 kRock = vec3(0.52, 0.50, 0.47);
const vec3 kBall = vec3(0.85, 0.25, 0.12);
const vec3 kSelected = vec3(1.0, 0.85, 0.1);

void main() {
    vec3 albedo = kind == 0u ? mix(kFoliage, kTrunk, step(0.5, trunk))
                             : (kind == 1u ? kRock : kBall);
    if (selected != 0u) {
        albedo = kSelected;
    }
    vec3 n = normalize(normal);
#ifdef SUN
    float diffuse = max(dot(n, sunDirection), 0.0) * baseLight.x;
    vec3 lit = albedo * (0.28 * baseLight.y + 0.85 * diffuse);
#else
    float diffuse = max(dot(n, kSunDirection), 0.0);
    vec3 lit = albedo * (0.28 + 0.85 * diffuse);
#endif
    float d = fogStart < farPlane
                  ? clamp((distanceFromEye - fogStart) / (farPlane - fogStart), 0.0, 1.0)
                  : 0.0;
#ifdef SUN
    colour = vec4(daylight ? hazed(lit, viewRayAt(gl_FragCoord.xy), distanceFromEye, d * d)
                           : mix(lit, fogColour, d * d),
                  1.0);
#else
    colour = vec4(mix(lit, fogColour, d * d), 1.0);
#endif
}
