// Terrain fragment shader: colour by height and slope, diffuse + ambient light, distance fog.
#version 330 core

in vec4 surface;  // normal x, world height, normal z, distance from the eye (terrain.vert)

uniform float farPlane;
uniform vec2 heightRange;  // world heights of the lowest and highest sample
uniform vec3 fogColour;
uniform bool wireframe;
uniform float dim;  // 0: as lit; towards 1, faded into the sky colour (the frozen view's context)

out vec4 colour;

const vec3 kSunDirection = normalize(vec3(-0.45, 0.75, -0.35));
const vec3 kLowland = vec3(0.26, 0.42, 0.18);
const vec3 kHills = vec3(0.45, 0.40, 0.25);
const vec3 kRock = vec3(0.46, 0.43, 0.40);
const vec3 kSnow = vec3(0.95, 0.96, 0.98);

void main() {
    vec2 nxz = surface.xz;
    vec3 n = normalize(vec3(nxz.x, sqrt(max(1.0 - dot(nxz, nxz), 0.0)), nxz.y));
    float span = max(heightRange.y - heightRange.x, 1e-6);
    float h = clamp((surface.y - heightRange.x) / span, 0.0, 1.0);

    vec3 albedo = mix(kLowland, kHills, smoothstep(0.15, 0.45, h));
    albedo = mix(albedo, kRock, smoothstep(0.45, 0.7, h));
    float steep = 1.0 - smoothstep(0.6, 0.85, abs(n.y));
    albedo = mix(albedo, kRock * 0.85, steep);
    float snow = smoothstep(0.72, 0.85, h) * smoothstep(0.55, 0.8, abs(n.y));
    albedo = mix(albedo, kSnow, snow);
    if (wireframe) {
        albedo = vec3(0.1, 0.15, 0.1);
    }

    float diffuse = max(dot(n, kSunDirection), 0.0);
    vec3 lit = albedo * (0.28 + 0.85 * diffuse);

    // Clear up to 40% of the far plane, then thickening to the sky colour at the far plane.
    float d = clamp((surface.w / farPlane - 0.4) / 0.6, 0.0, 1.0);
    float fog = d * d;
    colour = vec4(mix(mix(lit, fogColour, fog), fogColour, dim), 1.0);
}
