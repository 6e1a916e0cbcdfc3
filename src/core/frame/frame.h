// The per-frame pipeline, GL-free: the frustum walk, the occlusion stage and level-of-detail
// selection run for one camera into buffers owned here, reserved once per tree, leaving what the
// renderer draws (full-detail leaves or level-of-detail nodes) and the frame's counts.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cull/cull.h"
#include "core/cull/occlusion.h"
#include "core/lod/lod.h"
#include "core/objects/loose_tree.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "core/view/frustum.h"

namespace qt {

// How a frame culls: the culling camera (the viewing one unless frozen), the height in pixels of
// the viewport (the occlusion stage's margins are pixels), and which stages run.
struct CullView {
    Camera camera;
    int viewportHeight = 0;
    bool frustum = true;    // false: every leaf, nothing tested (the --no-cull reference)
    bool occlusion = true;  // after the walk, drop the leaves nearer terrain provably hides
    // Level of detail: far nodes drawn at coarser strides, the drawn surface at most this many
    // pixels off full detail (0: off, every leaf at full detail). The walk still runs for the
    // counts and minimap; the occlusion stage then tests the nodes drawn at full detail.
    float lodPixels = 0.0f;
    // A streamed terrain's resident level-0 pages (LodParams::residency); null: every page.
    const LodResidency* residency = nullptr;
};

// The objects' part of a frame: each object is drawn, culled by the frustum, or occluded.
struct ObjectFrameStats {
    uint32_t total = 0;
    uint32_t drawn = 0;
    uint32_t culled = 0;         // outside the culling frustum
    uint32_t occluded = 0;       // in the frustum, below the terrain's occlusion horizon
    uint32_t nodesTested = 0;    // object-tree nodes whose bounds met a plane test
    uint32_t objectsTested = 0;  // object boxes tested against planes
    uint32_t groupsTested = 0;   // groups (a node's objects in the frustum) tested against the
                                 // occlusion horizon
    double cullMs = 0.0;         // the frustum query and the split into drawn and occluded
};

// The frame's counts. The pipeline fills the culling ones; the renderer fills the draw ones
// (plain numbers about the draw, no GL state), the caller frameMs.
struct FrameStats {
    CullStats cull;  // leavesDrawn and triangles are what is drawn, after occlusion
    OcclusionStats occlusion;
    bool lod = false;  // drawn by level of detail: cull.triangles are the nodes' triangles
    LodStats lodStats;
    uint32_t nodesTotal = 0;
    uint32_t leavesTotal = 0;
    double cullMs = 0.0;  // the whole pipeline
    // Of the drawn instances (leaves, or nodes with level of detail), those over a hole
    // (FrameBuffers::holesFrom): the renderer draws them apart, with the hole test.
    uint32_t instancesOverHoles = 0;
    // Of the leaves or nodes selected, those left out because every square of theirs has a
    // nodata corner (Quadtree::emptyIn): they would draw nothing.
    uint32_t instancesEmpty = 0;
    ObjectFrameStats objects;

    int drawCalls = 0;                // terrain draws only
    int objectDrawCalls = 0;          // object draws: at most one per object mesh
    uint64_t objectTriangles = 0;     // what the object draws draw (instanceTriangles)
    uint64_t objectUploadBytes = 0;   // what they send the GPU (instanceUploadBytes)
    bool syncedDraws = false;         // drawn in synchronised batches
    bool backFacesCulled = false;     // back faces culled
    uint32_t instancesFrontOnly = 0;  // instances drawn with back faces culled
    double frameMs = 0.0;             // filled by the caller, who knows where the frame ends
    // Scripted frames: the GPU's time for the frame's GL sections, not the CPU's between them,
    // and of it the objects' sections (their uploads, runs' expansion and draws).
    double gpuMs = 0.0;
    double objectGpuMs = 0.0;
    // The renderer's CPU time making the objects' instances and runs for the draw (the culling's
    // is objects.cullMs).
    double objectPrepareMs = 0.0;
};

// The threads a frame's level-of-detail selection takes by default: every core, at most
// kMaxSelectThreads.
int defaultSelectThreads();

// Every buffer a frame writes, sized once per tree by reserveFor: a frame then never allocates.
// After runFrame, the renderer draws `drawList` (full detail) or `lod.nodes` (level of detail).
struct FrameBuffers {
    CullOutput walk;               // the frustum walk's leaves, with its decisions for the minimap
    OcclusionBuffers occlusion;    // the occlusion stage's scratch
    std::vector<LeafRange> drawn;  // the leaves drawn: walk.ranges less the occluded ones
    // The drawn leaves' coordinates, one instance each: `drawn` expanded (left empty when drawing
    // by level of detail). Room for every leaf (untouched capacity costs no resident memory).
    std::vector<LeafCoord> drawList;
    LodOutput lod;  // with level of detail: the nodes drawn
    // On a map with holes (Quadtree::hasHoles), drawList or lod.nodes holds first the instances
    // whose leaves have no hole, then from holesFrom on those over a hole, each part in the
    // order it was made (tree order): the renderer draws the first part with the plain program,
    // whose early depth test a discard would turn off, and only the rest with the hole test.
    // The list's size without holes. holeScratch: the moved instances, room for every leaf (and
    // for every node: groupByProgram's scratch).
    uint32_t holesFrom = 0;
    std::vector<LeafCoord> holeLeafScratch;
    std::vector<DrawNode> holeNodeScratch;
    // Threads the selection is split over: the machine's, at most kMaxSelectThreads.
    int lodThreads = defaultSelectThreads();
    LodReach lodReach;  // the split distances, remade when the mapping or projection changes
    // With level of detail and occlusion: the full-detail leaves (the stage's candidates), those
    // it keeps, and those it removes.
    std::vector<LeafRange> lodLeaves, lodKept, lodOccluded;
    // With level of detail on a map with holes: of the drawn nodes above level 0 with a hole
    // (those drawing nothing included), the boxes a ray may dive through (appendDiveBoxes: their
    // children with a hole), as sample boxes and code ranges, which the occlusion stage takes as
    // holes besides the tree's (occlusion.cpp's argument 8). Room for one a node of the tree.
    std::vector<HoleBox> coarseHoles;
    // Objects: those in the culling frustum (in the object tree's order: the frame needs no sort)
    // grouped by the tree node holding them, the groups' boxes the occlusion stage's occludees
    // (objectGroups.box); then those drawn, in the same order, the renderer's list: the groups
    // the stage does not hide, whole, and their groups (empty without culling by the frustum).
    std::vector<uint32_t> objectsInFrustum;
    ObjectGroups objectGroups;
    std::vector<uint32_t> objectsDrawn;
    ObjectGroups objectsDrawnGroups;

    // Sizes every buffer for `tree`; recordDecisions keeps the walk's decisions (the minimap's).
    void reserveFor(const Quadtree& tree, bool recordDecisions = true);
    // Sizes the object buffers for `count` objects.
    void reserveObjects(uint32_t count);
};

// The culling frustum's margin, in world units: kCullMarginSpacings of the larger spacing plus
// kCullMarginUlps
// ulps (2^-23 relative) of the largest coordinate in play, M, the largest of the eye's and of the
// map box's (extent). Both sides of the comparison round in floats: the walk's plane tests (the
// planes come from the float view-projection, whose translation holds the eye, and each distance
// sums products as large as M) and the GPU's transform of vertices as large as M. Each errs by a
// few ulps of M in distance to a plane, however narrow the view (the planes are unit). With the
// margin above both, a leaf the walk culls lies outside the GPU's clip volume: culled equals
// unculled at any offset whose coordinates are finite (tested to 1e6, where an ulp is 0.06).
// Far from the origin the picture itself coarsens (vertices land on ulps of M), the same culled
// or not; the world's origin stays at the map's corner so that x and z stay small.
float cullMargin(const Camera& camera, const WorldMapping& mapping, const WorldExtent& extent);

// The culling frustum of `camera`, its planes moved out by cullMargin().
Frustum cullingFrustum(const Camera& camera, const WorldMapping& mapping,
                       const WorldExtent& extent);

// Runs the frame's stages for `view` into `frame` and times them:
// 1. walk: the frustum walk (or every leaf, with view.frustum off) into frame.walk;
// 2. at full detail: the occlusion stage into frame.drawn, expanded into frame.drawList;
// 2'. with level of detail: selectLod into frame.lod (culled by the same frustum), then the
//     occlusion stage over its full-detail nodes, whose removed leaves leave frame.drawn too.
// 3. with `objects`: the object tree's frustum query with the same frustum (every object with
//    view.frustum off) into frame.objectsInFrustum, grouped by node; the occlusion stage tests
//    each group's box against the horizon its leaves build, and the groups it does not hide go
//    to frame.objectsDrawn.
// `frame` must have been reserved for `tree` (and for the objects' count). `map` gives the height
// range (its codes unused).
FrameStats runFrame(const Heightmap& map, const Quadtree& tree, const WorldMapping& mapping,
                    const CullView& view, FrameBuffers& frame,
                    const LooseObjectTree* objects = nullptr);

// Whether a drawn node's fragments may take finer normals than its vertices' (terrain.frag's
// fineNormal: nodes of level 2 and up), so that it is drawn by the programs compiled with
// COARSE_NODES; the others are shaded by their vertices' normals alone.
inline bool takesFinerNormals(const DrawNode& node) {
    return node.level >= 2;
}

// Whether a drawn node has a morph that moves a vertex off a sample, so that it is drawn by the
// programs compiled with MORPHING, which blend a vertex with its target: inside, any but 0 (an
// odd vertex there morphs onto the parent's surface, between samples: lodVertexMorph); on an edge,
// neither 0 nor 255. Otherwise every vertex is one sample, which the others fetch alone.
inline bool morphsPartWay(const DrawNode& node) {
    const auto partWay = [](uint8_t morph) { return morph != 0 && morph != 255; };
    return node.morph != 0 || partWay(node.edgeMorph[0]) || partWay(node.edgeMorph[1]) ||
           partWay(node.edgeMorph[2]) || partWay(node.edgeMorph[3]);
}

// The program a drawn node takes, as bits: kKeyMorphing (morphsPartWay) and kKeyFinerNormals
// (takesFinerNormals); 0 to kProgramKeys - 1.
constexpr int kKeyMorphing = 1;
constexpr int kKeyFinerNormals = 2;
constexpr int kProgramKeys = 4;
inline int programKey(const DrawNode& node) {
    return (morphsPartWay(node) ? kKeyMorphing : 0) |
           (takesFinerNormals(node) ? kKeyFinerNormals : 0);
}

// After runFrame: orders each part of frame.lod.nodes that is drawn alike (over no hole; over a
// hole) by programKey, each key's nodes keeping their order (a stable partition; no allocation
// once reserved): the renderer then draws each part with at most kProgramKeys programs. Culled
// frames keep their instances a subsequence of the unculled ones' in the same order, as before.
void groupByProgram(FrameBuffers& frame);

}  // namespace qt
