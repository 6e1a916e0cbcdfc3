// Terrain vertex shader: one instance per visible leaf or node; heights fetched from the samples.
#version 330 core

// Per instance: a leaf, or with level of detail a node, drawn with one leaf's strip. x, y: its
// first leaf's (column, row); the node starts at sample (x, y) * leafSize. z (0 for a leaf): its
// level in bits 0-7, each vertex 2^level samples apart; bits 8-11 the edges (west, east, north,
// south) whose neighbour is drawn one level coarser (qt::DrawNode).
layout(location = 0) in uvec3 item;
// Per vertex: the local vertex's (i, j), 0..leafSize each; the index buffer holds local ids
// j * (leafSize + 1) + i, one strip over the leaf's rows.
layout(location = 1) in uvec2 local;

uniform usamplerBuffer heights;  // R16UI height codes, row-major: index row * width + col
uniform ivec2 mapSize;           // samples (width, height)
uniform int leafSize;            // grid squares along a leaf side
uniform vec2 spacing;             // world units between columns (x) and rows (y)
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
    // On an edge beside a coarser node every other vertex folds onto the one before, so the
    // edge's vertices are the neighbour's (no T-junction). Clamping folds the padding of partial
    // border nodes onto the last sample, so those triangles have zero area.
    // The same steps as qt::lodVertexSample.
    int i = int(local.x);
    int j = int(local.y);
    int level = int(item.z & 0xFFu);
    uint coarser = item.z >> 8;
    if ((i == 0 && (coarser & 1u) != 0u) || (i == leafSize && (coarser & 2u) != 0u)) {
        j &= ~1;
    }
    if ((j == 0 && (coarser & 4u) != 0u) || (j == leafSize && (coarser & 8u) != 0u)) {
        i &= ~1;
    }
    int col = min(int(item.x) * leafSize + (i << level), mapSize.x - 1);
    int row = min(int(item.y) * leafSize + (j << level), mapSize.y - 1);
    vec3 worldPosition = vec3(float(col) * spacing.x, codeAt(col, row) * heightScale + heightBias,
                              float(row) * spacing.y);

    // Central differences, one-sided on the border: the same as qt::vertexNormal.
    int c0 = max(col - 1, 0);
    int c1 = min(col + 1, mapSize.x - 1);
    int r0 = max(row - 1, 0);
    int r1 = min(row + 1, mapSize.y - 1);
    float dx = (codeAt(c1, row) - codeAt(c0, row)) * heightScale;
    float dz = (codeAt(col, r1) - codeAt(col, r0)) * heightScale;
    float sx = float(c1 - c0) * spacing.x;
    float sz = float(r1 - r0) * spacing.y;
    vec3 normal = normalize(vec3(-dx * sz, sx * sz, -dz * sx));
    surface = vec4(normal.x, worldPosition.y, normal.z, distance(eye, worldPosition));

    gl_Position = viewProjection * vec4(worldPosition, 1.0);
}
