// Integer quotients by a float division, included by the shaders that find a layer from a row or
// a page number (height_pages.glsl, light.glsl).
#ifndef QT_QUOTIENT_GLSL
#define QT_QUOTIENT_GLSL

// n / d for 0 <= n < 2^20 and d > 0, by a float division: exact however the GPU divides, as the
// quotient of n + 0.5 lies at least 0.5 / d from a whole number. An integer division is a loop
// of scalar divisions on a CPU's vector units (a software rasteriser's shaders).
int quotientOf(int n, int d) {
    return int((float(n) + 0.5) / float(d));
}

#endif
