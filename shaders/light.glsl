// The terrain's light under a Sun, one byte a sample (qt::TerrainGpu::shadows; the layout of
// core/light/light_byte.h): the share of the Sun's disc a sample sees and the share of the sky,
// read by terrain.vert at each vertex and objects.vert at each object's base.
#ifndef QT_LIGHT_GLSL
#define QT_LIGHT_GLSL

#include "quotient.glsl"

uniform sampler2DArray shadows;
uniform ivec2 shadowLayerSize;   // the map columns and rows a layer holds
uniform int shadowLayersAcross;  // layers side by side across the map's width

// qt::kLightBands and qt::kLightSkyLevels, defined in every shader (render/shader.cpp).
const float kLightBands = float(QT_LIGHT_BANDS);
const float kLightSkyLevels = float(QT_LIGHT_SKY_LEVELS);

// The shares of a light byte read as a normalised texel (0 to 1), the Sun's and the sky's.
vec2 sharesOf(float texel) {
    float byte = floor(texel * 255.0 + 0.5);
    float sun = floor(byte / kLightSkyLevels);
    return vec2(sun / kLightBands, (byte - sun * kLightSkyLevels) / (kLightSkyLevels - 1.0));
}

// Map sample m's shares, each 0 to 1 (the map split into layers of shadowLayerSize, row by row).
vec2 lightShares(ivec2 m) {
    ivec2 block = ivec2(quotientOf(m.x, shadowLayerSize.x), quotientOf(m.y, shadowLayerSize.y));
    ivec2 within = m - block * shadowLayerSize;
    return sharesOf(
        texelFetch(shadows, ivec3(within, block.y * shadowLayersAcross + block.x), 0).r);
}

#endif
