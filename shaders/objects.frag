// Object fragment shader: a colour by kind, lit and fogged as the terrain is (terrain.frag); under
// IMPOSTOR, the object's round shape found on its quad by a ray cast.
#version 330 core

in vec3 normal;
in float distanceFromEye;
flat in uint kind;
flat in uint selected;
flat in uint fade;
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

// An object in the band between its mesh and its impostor is drawn both ways, each over its share
// of the pixels (qt::MeshChoice): a pixel's rank among 31 from a hash of its place, the impostor
// drawing the pixels ranked below the object's share (`fade`, objects.vert's bandShare; 31 for an
// impostor alone), the mesh the others (the band's meshes only, compiled with BAND: a mesh out of
// the band draws every pixel without a discard, which keeps the early depth test). Both programs
// compute the same rank, so the two cover the object's pixels once between them.
uint ditherRank(vec2 fragCoord) {
    uvec2 p = uvec2(fragCoord);
    uint h = (p.x * 0x8da6b343u) ^ (p.y * 0xd8163841u);
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h % 31u;
}

#ifdef IMPOSTOR
in vec3 quadPoint;
flat in vec3 boxBase;
flat in vec3 boxScale;
uniform mat4 viewProjection;

// The unit tree (core/objects/mesh.h): a trunk of radius kTrunkRadius up to kTrunkTop, a cone
// from radius 1 at kConeBase to its apex at 1, with its underside; sides open and two-sided, as
// the mesh's.
const float kTrunkRadius = 0.18;
const float kTrunkTop = 0.35;
const float kConeBase = 0.25;
const float kConeSlope = 1.0 / (1.0 - kConeBase);
const float kNone = 1e30;

// The roots of a s^2 + b s + c = 0, nearer first; false when none is real.
bool roots(float a, float b, float c, out float near, out float far) {
    if (abs(a) < 1e-8) {
        near = far = abs(b) > 1e-12 ? -c / b : kNone;
        return abs(b) > 1e-12;
    }
    float d = b * b - 4.0 * a * c;
    if (d < 0.0) {
        return false;
    }
    float q = -0.5 * (b + (b >= 0.0 ? sqrt(d) : -sqrt(d)));
    float r0 = q / a;
    float r1 = abs(q) > 1e-30 ? c / q : r0;
    near = min(r0, r1);
    far = max(r0, r1);
    return true;
}

// The ray o + s v (the unit shape's space; s in world units along the view ray from the quad's
// point) against the unit tree or sphere: the nearest s it meets the shape at, its normal there
// (unscaled, in the unit shape's space) and whether it is the trunk; kNone when it misses.
float castShape(vec3 o, vec3 v, bool tree, out vec3 n, out float isTrunk) {
    float best = kNone;
    isTrunk = 0.0;
    n = vec3(0.0, 1.0, 0.0);
    float s0, s1;
    if (!tree) {
        if (roots(dot(v, v), 2.0 * dot(o, v), dot(o, o) - 1.0, s0, s1)) {
            best = s0;
            n = o + s0 * v;
        }
        return best;
    }
    // The cone's side: x^2 + z^2 = slope^2 (1 - y)^2 for y in [kConeBase, 1].
    float k2 = kConeSlope * kConeSlope;
    float p = 1.0 - o.y;
    float a = v.x * v.x + v.z * v.z - k2 * v.y * v.y;
    float b = 2.0 * (o.x * v.x + o.z * v.z + k2 * p * v.y);
    float c = o.x * o.x + o.z * o.z - k2 * p * p;
    if (roots(a, b, c, s0, s1)) {
        for (int i = 0; i < 2; ++i) {
            float s = i == 0 ? s0 : s1;
            vec3 at = o + s * v;
            if (s < best && at.y >= kConeBase && at.y <= 1.0) {
                best = s;
                n = vec3(at.x, k2 * (1.0 - at.y), at.z);
            }
        }
    }
    // The cone's underside: the disc of radius 1 at kConeBase.
    if (abs(v.y) > 1e-12) {
        float s = (kConeBase - o.y) / v.y;
        vec3 at = o + s * v;
        if (s < best && at.x * at.x + at.z * at.z <= 1.0) {
            best = s;
            n = vec3(0.0, -1.0, 0.0);
        }
    }
    // The trunk's side: x^2 + z^2 = kTrunkRadius^2 for y in [0, kTrunkTop].
    a = v.x * v.x + v.z * v.z;
    b = 2.0 * (o.x * v.x + o.z * v.z);
    c = o.x * o.x + o.z * o.z - kTrunkRadius * kTrunkRadius;
    if (a > 1e-12 && roots(a, b, c, s0, s1)) {
        for (int i = 0; i < 2; ++i) {
            float s = i == 0 ? s0 : s1;
            vec3 at = o + s * v;
            if (s < best && at.y >= 0.0 && at.y <= kTrunkTop) {
                best = s;
                n = vec3(at.x, 0.0, at.z);
                isTrunk = 1.0;
            }
        }
    }
    return best;
}
#endif

const vec3 kSunDirection = normalize(vec3(-0.45, 0.75, -0.35));
const vec3 kFoliage = vec3(0.13, 0.36, 0.14);
const vec3 kTrunk = vec3(0.36, 0.24, 0.13);
const vec3 kRock = vec3(0.52, 0.50, 0.47);
const vec3 kBall = vec3(0.85, 0.25, 0.12);
const vec3 kSelected = vec3(1.0, 0.85, 0.1);

void main() {
    float isTrunk = trunk;
    float seenAt = distanceFromEye;
    vec3 n = normalize(normal);
#ifdef IMPOSTOR
    if (ditherRank(gl_FragCoord.xy) >= fade) {
        discard;
    }
    // The view ray through the quad's point, from that point, in the unit shape's space.
    vec3 along = normalize(quadPoint);
    vec3 unitNormal;
    float s = castShape((quadPoint - boxBase) / boxScale, along / boxScale, kind == 0u, unitNormal,
                        isTrunk);
    if (s >= kNone) {
        discard;
    }
    vec3 hit = quadPoint + s * along;
    vec4 clip = viewProjection * vec4(hit, 1.0);
    gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
    seenAt = length(hit);
    n = normalize(unitNormal / boxScale);
#elif defined(BAND)
    if (ditherRank(gl_FragCoord.xy) < fade) {
        discard;
    }
#endif
    vec3 albedo = kind == 0u ? mix(kFoliage, kTrunk, step(0.5, isTrunk))
                             : (kind == 1u ? kRock : kBall);
    if (selected != 0u) {
        albedo = kSelected;
    }
#ifdef SUN
    float diffuse = max(dot(n, sunDirection), 0.0) * baseLight.x;
    vec3 lit = albedo * (0.28 * baseLight.y + 0.85 * diffuse);
#else
    float diffuse = max(dot(n, kSunDirection), 0.0);
    vec3 lit = albedo * (0.28 + 0.85 * diffuse);
#endif
    float d = fogStart < farPlane ? clamp((seenAt - fogStart) / (farPlane - fogStart), 0.0, 1.0)
                                  : 0.0;
#ifdef SUN
    colour = vec4(daylight ? hazed(lit, viewRayAt(gl_FragCoord.xy), seenAt, d * d)
                           : mix(lit, fogColour, d * d),
                  1.0);
#else
    colour = vec4(mix(lit, fogColour, d * d), 1.0);
#endif
}
