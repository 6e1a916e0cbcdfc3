// Expands a frame's static objects, sent as runs of places (qt::StaticRuns,
// core/objects/static_runs.h), into the id lists the object draws read (objects.vert's byId):
// what qt::expandStaticRuns does on the CPU, one invocation a run. A run is (first place, with
// bit 30 when its objects lie in the band between mesh and impostor; its first entry in `ids`),
// its entries running to the next run's first (the last to `total`). Each entry is the place,
// bit 30 in the band, bit 31 when the place is among the `selected` (sorted).
#version 430 core

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Runs {
    uvec2 runs[];
};
layout(std430, binding = 1) readonly buffer Selected {
    uint selected[];
};
layout(std430, binding = 2) writeonly buffer Ids {
    uint ids[];
};

uniform uint runCount;
uniform uint total;
uniform uint selectedCount;

void main() {
    uint r = gl_GlobalInvocationID.x;
    if (r >= runCount) {
        return;
    }
    uvec2 run = runs[r];
    uint end = r + 1u < runCount ? runs[r + 1u].y : total;
    uint place = run.x & 0x3FFFFFFFu;
    uint band = run.x & 0x40000000u;
    // The first selected place at or past the run's first.
    uint s = 0u;
    uint n = selectedCount;
    while (n > 0u) {
        uint step = n >> 1;
        if (selected[s + step] < place) {
            s += step + 1u;
            n -= step + 1u;
        } else {
            n = step;
        }
    }
    for (uint k = run.y; k < end; ++k, ++place) {
        uint mark = band;
        if (s < selectedCount && selected[s] == place) {
            mark |= 0x80000000u;
            ++s;
        }
        ids[k] = place | mark;
    }
}
