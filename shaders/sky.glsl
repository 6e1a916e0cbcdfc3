// The daylight sky of Preetham, Shirley and Smits, "A Practical Analytic Model for Daylight"
// (1999), and the aerial perspective that fades what is drawn into it: included by the terrain,
// objects, water and sky shaders when a Sun is given. core/light/daylight_sky.h computes the sky
// into a table on the CPU; render/sky.h sets these uniforms.
#ifndef QT_SKY_GLSL
#define QT_SKY_GLSL

uniform vec3 skyToSun;      // unit, towards the Sun, at or above the horizon
uniform float skyTwilight;  // 1 by day, falling to 0 as the Sun sinks below the horizon
uniform mat4 skyUnproject;  // the inverse of the view-projection from the eye
uniform vec4 skyViewport;   // the viewport's x, y, width and height in pixels
// The sky's colours (qt::skyTable): across, the azimuth from the Sun's, 0 to 180 degrees; up,
// the sine of the elevation; sRGB-encoded, 8 bits a channel, read between texels linearly.
uniform sampler2D skyTable;
const vec2 kSkyTableSize = vec2(256.0, 128.0);  // qt::kSkyTableWidth, qt::kSkyTableHeight
// The haze: an atmosphere whose extinction falls exponentially with height. x: extinction per
// world unit at the base height (sea level on maps in metres); y: its falloff per world unit of
// height (1 / scale height); z: the eye's height above the base; w: 1 on, 0 off (fog off).
uniform vec4 haze;

// The unit direction from the eye through a fragment (gl_FragCoord.xy), in world axes. The sky
// pass and the terrain take theirs from what their vertices hand on (sky.vert, terrain.frag's
// rayToFragment), which spares a matrix product a pixel.
vec3 viewRayAt(vec2 fragCoord) {
    vec2 ndc = (fragCoord - skyViewport.xy) / skyViewport.zw * 2.0 - 1.0;
    vec4 p = skyUnproject * vec4(ndc, 0.0, 1.0);
    return normalize(p.xyz / p.w);
}

// The sky's colour towards unit `view`, sRGB-encoded for the framebuffer; below the horizon the
// colour at the view's mirror image above it (qt::skyXyY, qt::skyDisplayColour).
vec3 skyColour(vec3 view) {
    float across = length(view.xz);
    float sunAcross = length(skyToSun.xz);
    float cosAzimuth = across > 1e-6 && sunAcross > 1e-6
                           ? clamp(dot(view.xz, skyToSun.xz) / (across * sunAcross), -1.0, 1.0)
                           : 1.0;
    vec2 at = vec2(acos(cosAzimuth) * (1.0 / 3.14159265), abs(view.y));
    return texture(skyTable, (at * (kSkyTableSize - 1.0) + 0.5) / kSkyTableSize).rgb;
}

// The share of a surface's light that reaches the eye through the haze from `distance` along
// unit `view`: the optical depth of the exponential atmosphere along the segment, in closed form.
// 1 with the haze off.
float hazeTransmittance(vec3 view, float distance) {
    if (haze.w == 0.0) {
        return 1.0;
    }
    // The optical depth's mean density along the segment, (exp(-k eye) - exp(-k point)) /
    // (k (point - eye)), is symmetric in its ends: taken from the lower end, exp(-k lowest)
    // (1 - exp(-x)) / x with x = k |point - eye|, no exponential can overflow, and two of them
    // suffice (a software rasteriser pays for every one, in both arms of the choice).
    float k = haze.y;
    float rise = view.y * distance;
    float x = k * abs(rise);
    float lowest = haze.z + min(rise, 0.0);
    float depth = exp(-k * lowest) * (x < 1e-3 ? 1.0 - 0.5 * x : (1.0 - exp(-x)) / x);
    return exp(-haze.x * distance * depth);
}

// What is seen along unit `view` of a surface of colour `lit` whose light reaches the eye with
// `transmittance` (hazeTransmittance) and the fog's fade to the far plane (`fade`, 0 to 1): the
// sky's colour in the same direction takes the rest, so that distant ridges meet the sky at the
// horizon in its own colour.
vec3 hazedThrough(vec3 lit, vec3 view, float transmittance, float fade) {
    if (haze.w == 0.0) {
        return lit;
    }
    return mix(skyColour(view), lit, transmittance * (1.0 - fade));
}

// hazedThrough at `distance` along `view`, its transmittance taken here.
vec3 hazed(vec3 lit, vec3 view, float distance, float fade) {
    return hazedThrough(lit, view, hazeTransmittance(view, distance), fade);
}

#endif
