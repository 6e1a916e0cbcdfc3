// The daylight sky of Preetham, Shirley and Smits, "A Practical Analytic Model for Daylight"
// (1999), and the aerial perspective that fades what is drawn into it: included by the terrain,
// objects, water and sky shaders when a Sun is given. core/light/daylight_sky.h computes the
// same numbers on the CPU and sets these uniforms (qt::TerrainRenderer::useSky).
#ifndef QT_SKY_GLSL
#define QT_SKY_GLSL

uniform vec3 skyToSun;       // unit, towards the Sun, at or above the horizon
uniform vec3 skyScaled;      // Y (kcd/m^2), x, y at the zenith over their distributions there
uniform float skyPerez[15];  // the distributions' a..e: Y's, then x's, then y's
uniform float skyTwilight;   // 1 by day, falling to 0 as the Sun sinks below the horizon
uniform mat4 skyUnproject;   // the inverse of the view-projection from the eye
uniform vec4 skyViewport;    // the viewport's x, y, width and height in pixels
// The haze: an atmosphere whose extinction falls exponentially with height. x: extinction per
// world unit at the base height (sea level on maps in metres); y: its falloff per world unit of
// height (1 / scale height); z: the eye's height above the base; w: 1 on, 0 off (fog off).
uniform vec4 haze;

const float kSkyExposure = 0.09;  // qt::kSkyExposure

// The unit direction from the eye through a fragment (gl_FragCoord.xy), in world axes.
vec3 viewRayAt(vec2 fragCoord) {
    vec2 ndc = (fragCoord - skyViewport.xy) / skyViewport.zw * 2.0 - 1.0;
    vec4 p = skyUnproject * vec4(ndc, 0.0, 1.0);
    return normalize(p.xyz / p.w);
}

// Perez et al.'s distribution F(theta, gamma), coefficients from skyPerez[k..k+4].
float perez(int k, float cosTheta, float gamma, float cosGamma) {
    return (1.0 + skyPerez[k] * exp(skyPerez[k + 1] / max(cosTheta, 1e-3))) *
           (1.0 + skyPerez[k + 2] * exp(skyPerez[k + 3] * gamma) +
            skyPerez[k + 4] * cosGamma * cosGamma);
}

// The sky's colour towards unit `view`, sRGB-encoded for the framebuffer; below the horizon the
// colour at the view's mirror image above it (qt::skyXyY, qt::skyDisplayColour).
vec3 skyColour(vec3 view) {
    vec3 v = normalize(vec3(view.x, abs(view.y) + 1e-7, view.z));
    float cosGamma = clamp(dot(v, skyToSun), -1.0, 1.0);
    float gamma = acos(cosGamma);
    float x = skyScaled.y * perez(5, v.y, gamma, cosGamma);
    float y = max(skyScaled.z * perez(10, v.y, gamma, cosGamma), 1e-6);
    float Y = max(skyScaled.x * perez(0, v.y, gamma, cosGamma), 0.0) * skyTwilight;
    vec3 xyz = vec3(x / y * Y, Y, (1.0 - x - y) / y * Y);
    // CIE XYZ to linear sRGB (IEC 61966-2-1), columns.
    mat3 toRgb = mat3(3.2406, -0.9689, 0.0557, -1.5372, 1.8758, -0.2040, -0.4986, 0.0415, 1.0570);
    vec3 c = 1.0 - exp(-kSkyExposure * max(toRgb * xyz, 0.0));
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

// What is seen of a surface of colour `lit` at `distance` along unit `view`: its light through
// the haze (the optical depth of the exponential atmosphere along the segment, in closed form)
// and the fog's fade to the far plane (`fade`, 0 to 1), the sky's colour in the same direction
// taking the rest, so that distant ridges meet the sky at the horizon in its own colour.
vec3 hazed(vec3 lit, vec3 view, float distance, float fade) {
    if (haze.w == 0.0) {
        return lit;
    }
    float k = haze.y;
    float eye = haze.z;
    float point = eye + view.y * distance;
    float dh = (point - eye) * k;
    float depth = abs(dh) < 1e-3 ? exp(-k * 0.5 * (eye + point))
                                 : (exp(-k * eye) - exp(-k * point)) / dh;
    float through = exp(-haze.x * distance * depth) * (1.0 - fade);
    return mix(skyColour(view), lit, through);
}

#endif
