// Terrain vertex shader: one instance per visible leaf; heights fetched from the sample buffer.
#version 330 core

// Per instance: the leaf's (column, row); the leaf starts at sample (col, row) * leafSize.
layout(location = 0) in uvec2 leaf;

uniform usamplerBuffer heights;  // R16UI height codes, row-major: index row * width + col
uniform ivec2 mapSize;           // samples (width, height)
uniform int leafSize;            // grid squares along a leaf side
uniform float spacing;
uniform float heightScale;  // world height = code * heightScale + heightBias (qt::HeightTransform)
uniform float heightBias;
uniform mat4 viewProjection;
uniform vec3 eye;

// What the fragment shader needs, in one vector: the rasteriser keeps three interpolation
// coefficients per vector and triangle, so one vector instead of two makes each binned triangle
// smaller. x, z: the unit normal's (its y is positive on a height field); y: world height;
// w: distance from the eye.
out vec4 surface;

float codeAt(int col, int row) {
    return float(texelFetch(heights, row * mapSize.x + col).r);
}

void main() {
    // The index buffer holds local vertex numbers j * (leafSize + 1) + i; gl_VertexID is that
    // number. Clamping folds the padding of partial border leaves onto the last sample, so
    // those triangles have zero area.
    int i = gl_VertexID % (leafSize + 1);
    int j = gl_VertexID / (leafSize + 1);
    int col = min(int(leaf.x) * leafSize + i, mapSize.x - 1);
    int row = min(int(leaf.y) * leafSize + j, mapSize.y - 1);
    vec3 worldPosition = vec3(float(col) * spacing, codeAt(col, row) * heightScale + heightBias,
                              float(row) * spacing);

    // Central differences, one-sided on the border: the same as qt::vertexNormal.
    int c0 = max(col - 1, 0);
    int c1 = min(col + 1, mapSize.x - 1);
    int r0 = max(row - 1, 0);
    int r1 = min(row + 1, mapSize.y - 1);
    float dx = (codeAt(c1, row) - codeAt(c0, row)) * heightScale;
    float dz = (codeAt(col, r1) - codeAt(col, r0)) * heightScale;
    float sx = float(c1 - c0) * spacing;
    float sz = float(r1 - r0) * spacing;
    vec3 normal = normalize(vec3(-dx * sz, sx * sz, -dz * sx));
    surface = vec4(normal.x, worldPosition.y, normal.z, distance(eye, worldPosition));

    gl_Position = viewProjection * vec4(worldPosition, 1.0);
}
