// Terrain vertex shader: one instance per visible leaf or node; heights fetched from the samples.
#version 330 core

// Per instance: a leaf, or with level of detail a node, drawn with one leaf's strip. x, y: its
// first leaf's (column, row); the node starts at sample (x, y) * leafSize. z (0 for a leaf): its
// level in bits 0-7, each vertex 2^level samples apart; bits 8-11 the edges (west, east, north,
// south) whose neighbour is drawn one level coarser (qt::DrawNode).
layout(location = 0) in uvec3 item;
// Per node instance (0 for leaves): x, the node's geomorph, 0..255; y, the west and east edges'
// (low and high byte); z, the north and south edges' (qt::DrawNode).
layout(location = 2) in uvec3 morphs;
// Per vertex: the local vertex's (i, j), 0..leafSize each; the index buffer holds local ids
// j * (leafSize + 1) + i, one strip over the leaf's rows.
layout(location = 1) in uvec2 local;

uniform usamplerBuffer heights;  // R16UI height codes, row-major: index row * width + col
uniform ivec2 mapSize;           // samples (width, height)
uniform int leafSize;            // grid squares along a leaf side
uniform vec2 spacing;            // world units between columns (x) and rows (y)
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

// The sample (col, row) of the node's vertex (i, j): every 2^level samples from the node's origin,
// clamped to the map (the padding of partial border nodes folds onto the last sample).
ivec2 sampleOf(int i, int j, int level) {
    return ivec2(min(int(item.x) * leafSize + (i << level), mapSize.x - 1),
                 min(int(item.y) * leafSize + (j << level), mapSize.y - 1));
}

// World position of a sample, and its unit normal's x and z by central differences, one-sided on
// the border: the same as qt::vertexNormal.
vec3 worldAt(ivec2 s, out vec2 normalXZ) {
    int c0 = max(s.x - 1, 0);
    int c1 = min(s.x + 1, mapSize.x - 1);
    int r0 = max(s.y - 1, 0);
    int r1 = min(s.y + 1, mapSize.y - 1);
    float dx = (codeAt(c1, s.y) - codeAt(c0, s.y)) * heightScale;
    float dz = (codeAt(s.x, r1) - codeAt(s.x, r0)) * heightScale;
    float sx = float(c1 - c0) * spacing.x;
    float sz = float(r1 - r0) * spacing.y;
    vec3 normal = normalize(vec3(-dx * sz, sx * sz, -dz * sx));
    normalXZ = normal.xz;
    return vec3(float(s.x) * spacing.x, codeAt(s.x, s.y) * heightScale + heightBias,
                float(s.y) * spacing.y);
}

void main() {
    // On an edge beside a coarser node every other vertex folds onto the one before, so the
    // edge's vertices are the neighbour's (no T-junction).
    // The same steps as qt::lodVertexSample and qt::lodVertexMorph.
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
    // Geomorph: towards the parent's grid vertex (i & ~1, j & ~1) by the edge's morph on an edge,
    // the node's inside. Even vertices stay; at morph 255 each vertex is its target, exactly.
    uint edge = int(local.x) == 0          ? morphs.y & 0xFFu
                : int(local.x) == leafSize ? morphs.y >> 8
                : int(local.y) == 0        ? morphs.z & 0xFFu
                : int(local.y) == leafSize ? morphs.z >> 8
                                           : morphs.x;
    float m = float(edge) / 255.0;
    vec2 ownNormal;
    vec3 worldPosition = worldAt(sampleOf(i, j, level), ownNormal);
    vec2 normalXZ = ownNormal;
    if (((i | j) & 1) != 0 && edge != 0u) {
        vec2 targetNormal;
        vec3 target = worldAt(sampleOf(i & ~1, j & ~1, level), targetNormal);
        worldPosition = edge == 255u ? target : mix(worldPosition, target, m);
        normalXZ = edge == 255u ? targetNormal : mix(ownNormal, targetNormal, m);
    }
    // x, z: the unit normal's (its y is positive on a height field); y: world height; w:
    // distance from the eye.
    surface = vec4(normalXZ.x, worldPosition.y, normalXZ.y, distance(eye, worldPosition));

    gl_Position = viewProjection * vec4(worldPosition, 1.0);
}
