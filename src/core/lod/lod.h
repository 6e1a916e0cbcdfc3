// Level of detail over the culling quadtree: far nodes drawn whole, at a coarser stride of the same
// vertex grid, with edges that meet their coarser neighbours' vertices exactly (no cracks).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <glm/vec3.hpp>

#include "core/config.h"
#include "core/lod/lod_residency.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "core/view/frustum.h"

namespace qt {

// Every node is drawn with the leaves' strip over its own (leafSize + 1)^2 vertices, taken every
// 2^level samples: a node `level` levels above the leaves costs what one leaf costs.
//
// A node splits into its children while it is nearer than d(node) = stepsAway * reach(node) grid
// steps, where reach (LodReach) is at least its coarse-surface error (Quadtree::coarseErrors) in
// grid steps times errorSteps (lodErrorSteps), so that its surface would stand more than `pixels`
// off the full-detail surface on screen nearer than that. Geometry follows the error alone: no
// node splits because its grid step would look long, as the shading's detail comes per fragment
// from the height pages (shaders/terrain.frag), not from the vertices. Level 1 alone also holds
// the folds of the leaves beside it (below), with the leaves' fold errors where the tree has
// them (Quadtree::leafFoldErrors), else with its grid step (2 grid steps, a step looking at most
// `pixels` long), which is not a proven bound on those folds.
//
// Distance is the node's box's least depth along the view's forward direction, or cornerCos
// times its Euclidean distance if that is more; the box is the node's rectangle in x and z and
// the map's whole height range in y, the same for every node. Why the depth: the perspective map
// (x, y, z) -> f (x / z, y / z) moves a point by f / z (u_x - a u_z, u_y - b u_z) when it moves
// along the unit vector u, where (a, b) = (x / z, y / z) is where it lies in view. The errors
// are vertical, so u is the world's up in the camera's axes, and (a, b) lies in the view's
// rectangle |a| <= aspect tan(fovY / 2), |b| <= tan(fovY / 2): the length is a convex function
// of (a, b), largest at a corner, so a vertical error e at depth z projects at most f e s / z
// pixels long, with s (lodVerticalStretch) the largest over the four corners. Looking level, s
// is 1; it is never more than sec(theta_c) (1.55 at 60 degrees and 16:9), the largest stretch
// of any direction, at the corners' angle theta_c. A point in view has depth at least
// cos(theta_c) times its distance, so both terms bound the depth of every point of the node in
// view from below; s goes into stepsAway, which thus differs from frame to frame as the camera
// pitches. Both terms change by at most the distance a node's box moves in x and z (they are
// 1-Lipschitz), which is what the arguments below use.
//
// Why neighbours differ by one level at most: say X is drawn at level k and the level k + 2 node Z
// beside it is not split (it, or an ancestor, is drawn: an ancestor's reach is at least Z's, as
// Z's children are among the nodes below). X's parent P split, so dist(P) < d(P); Z is not split,
// so dist(Z) >= d(Z). Z touches P, so dist(Z) <= dist(P) + the diagonal of P,
// sqrt(2) * leafSize * 2^(k + 1) <= minStepsAway * 2^(k + 1). LodReach makes reach(Z) >=
// reach(P) + minStepsAway * 2^(k + 1) / stepsAway for every level k + 1 node P touching Z, so
// d(Z) >= d(P) + the diagonal of P > dist(Z): a contradiction.
//
// A streamed terrain (core/streaming/page_streamer.h) has only some level-0 pages on the GPU: a
// level-1 node splits only when the level-0 page holding it is resident (LodResidency; pages are
// node-aligned, so one page holds the whole node), else it is "held back" and drawn whole from
// level 1. The rule sits in lodDistance, so selectLod, Selector::edges and drawnLevelAt agree on
// it. Neighbours still differ by one level at most: with level 1 always resident, only level-1
// nodes are held back, and in the argument above Z is at level k + 2 >= 2, never held back, so
// dist(Z) >= d(Z) and the contradiction stand unchanged (holding a node back only makes X's
// parent P split less, never Z split more). A held-back level-1 node beside level-0 nodes is one
// level coarser than they are; they fold their edges onto it as onto any coarser neighbour, and
// it, beside finer nodes, keeps morph 0 on that edge, as any node does. No level-0 node is drawn
// in a page that is not resident: its parent would have split without its page.
//
// More levels may stream (LodResidency::levels): a node of level L then splits only when its
// level-(L - 1) page is effective, which a page is when it is resident and the 3 x 3 pages of the
// level above around its parent are effective (core/lod/lod_residency.h). Held back, a level k + 2
// node Z could otherwise stand beside a level-k node X: in the argument above, Z held back is the
// one case where dist(Z) >= d(Z) may fail. But X's parent P (level k + 1) split, so P's level-k
// page is effective, and so are the 3 x 3 level-(k + 1) pages around the one holding it. Z touches
// P and lies in one level-(k + 1) page (a page spans at least two leaves of its level, a level
// k + 2 node two of level k + 1), which is that page or one of the eight around it: Z's page is
// effective, Z is not held back, and the contradiction stands. No node is drawn from a page of
// its level that is not resident, for the same reason as at level 0. With level 0 alone pooled
// the rule is the one above; with levels 0 and 1, a level-1 node needs its level-0 page and the
// 3 x 3 level-1 pages around its own, a level-2 node its level-1 page.
//
// Where a node's neighbour is drawn one level coarser, the node's vertices on that edge fold onto
// every other one, so they are exactly the neighbour's: the shared edge is the same line of the
// same samples, computed by the same code. Lengths are in grid steps (world units / the larger
// spacing) on all three axes; a node's sides are at most as many steps as it has samples.
//
// Folds are charged to the node that causes them. A node X at level k folds an edge where the
// level k + 1 node Y beside it does not split, dist(Y) >= d(Y), and morphs an edge toward its
// parent's grid (which, complete, is the same fold) beyond its own morph only while the neighbour's
// parent, that same Y, is in its morph range, dist(Y) >= (1 - kMorphFraction) d(Y). Every point
// of the triangles only a fold draws lies within one of X's steps (2^k grid steps) of Y's
// rectangle, so at least dist(Y) - 2^k away. Y's reach includes errorSteps * X's fold error +
// 2^k / ((1 - kMorphFraction) stepsAway), so those points are at least stepsAway *
// (1 - kMorphFraction) * errorSteps * X's fold error away: where that error stands within
// `pixels` on screen, as a node's own surface does within its reach. So X's own coarse error
// need only hold its unfolded strip, and a node beside neighbours of its own level is not split
// for triangles it does not draw. Where a node's error is the range bound (the first frames, a
// streamed map's levels above its exact ones) it holds the node's own folds and the fold error is
// 0. A leaf's folds go to the level-1 nodes beside it along an edge, with its fold error
// (Quadtree::leafFoldErrors) where the tree has them; without them (the range bound's first
// frames, a streamed map's before its exact levels) level 1 takes its grid step instead.
struct LodReach;

struct LodParams {
    glm::vec3 eye{0.0f};  // in steps of the larger spacing
    // The view's unit forward direction, and the cosine of the angle between it and the view's
    // corners: distances are the depth along it, at least cornerCos times the Euclidean distance
    // (lodDistance). Zero and 1: the Euclidean distance alone.
    glm::vec3 forward{0.0f};
    float cornerCos = 1.0f;
    // Columns and rows in those steps: spacingX and spacingZ over the larger one (1 for square
    // cells), so that distances are measured on the ground whatever the cells' shape.
    float stepsPerColumn = 1.0f;
    float stepsPerRow = 1.0f;
    float yMin = 0.0f;  // the map's height range
    float yMax = 0.0f;
    float stepsAway = 0.0f;  // a node splits nearer than stepsAway * its reach
    // The least stepsAway of this lens and PIXELS at any orientation: the reach's margins are made
    // for it (updateLodReach), so turning the camera never remakes the reach. At most stepsAway.
    float leastStepsAway = 0.0f;
    // Each inner node's reach; null: 2^level, the grid step alone (what lodParams leaves, and a
    // rule that keeps neighbours one level apart for tests of the selection's structure).
    const LodReach* reach = nullptr;
    // The pages of the pooled levels on the GPU; null: every page (a terrain that is not
    // streamed).
    const LodResidency* residency = nullptr;
    // fineShadingReach in steps: with levels above 0 streamed, the level-j pages within 2^(j - 1)
    // times it are asked for (LodOutput::shadingPages). 0: none.
    float shadingReach = 0.0f;
    // Threads the selection is split over (LodOutput keeps them): the same output for any count.
    int threads = 1;
};

// Each inner node's reach, in grid steps per unit of stepsAway, by Quadtree::levelIndex: at
// level L, the largest of errorSteps * its coarse error, and for every level L - 1 node touching
// it (its children and the ring around them) minStepsAway * 2^(L - 1) / stepsAway more than that
// node's reach and errorSteps * that node's fold error (Quadtree::foldErrors) + 2^(L - 1) /
// ((1 - kMorphFraction) stepsAway), the fold charge argued above; at level 1, the leaves' fold
// charge instead. Depends on the mapping through errorSteps, on the lens and PIXELS through
// stepsAway, and on the tree's errors, so it is remade when any changes (the exact errors replacing
// the range bound: Quadtree::lodErrors).
struct LodReach {
    float errorSteps = -1.0f;  // what `steps` was made for; negative: not made
    float stepsAway = 0.0f;    // the stepsAway its margins were made for (updateLodReach)
    bool leafFolds = false;    // whether the tree's leafFoldErrors were there
    LodErrors errors = LodErrors::Range;  // the tree's bound `steps` was made from
    std::vector<float> steps;

    void reserveFor(const Quadtree& tree);
};

// Grid steps of reach per height code of error: the code's height in grid steps over 1 -
// kMorphFraction (a node's children morph into it from that share of its reach on). The view's
// stretch of a vertical length is in stepsAway (lodParams).
float lodErrorSteps(const Quadtree& tree, const WorldMapping& mapping);

// The most a perspective view stretches a vertical length on screen, against the same length at
// the view's centre looking level: max over the view's corners (a, b) of |(u_x - a u_z, u_y - b
// u_z)|, with u the world's up in the camera's axes (the argument above). 1 looking level,
// tan(theta_c) looking straight down, never above sec(theta_c), never below min(1,
// tan(theta_c)) (the corners' mean square is 1 + u_z^2 (tan^2(theta_c) - 1)).
float lodVerticalStretch(const Camera& camera);

// Remakes `reach` for `errorSteps`, `stepsAway` and the tree's errors unless it holds them
// already; no allocation once reserved. Its margins are made for the largest power of two not
// above stepsAway (at least minStepsAway), so it is remade only when stepsAway crosses one, and
// hold for every frame whose LodParams::stepsAway is at least that: pass LodParams::leastStepsAway.
void updateLodReach(const Quadtree& tree, float errorSteps, float stepsAway, LodReach& reach);

// The same for a frame's parameters: lodErrorSteps and params.leastStepsAway.
void updateLodReach(const Quadtree& tree, const WorldMapping& mapping, const LodParams& params,
                    LodReach& reach);

// The parameters for `camera` and a viewport `viewportHeight` pixels high: stepsAway, the
// distance at which a vertical length of one grid step looks at most `pixels` long anywhere in
// view (lodVerticalStretch; bounded below so that neighbours differ by one level), the least it
// can be at any orientation, and the distance's terms. The map's height range [mapMinY, mapMaxY]
// is in world units.
LodParams lodParams(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                    int viewportHeight, float pixels, float mapMinY, float mapMaxY);

// World units from the eye (on the ground, x and z) within which a coarse node's fragments may take
// their normals from level 1 (terrain.frag's fineNormal: a level-1 page whose squares lie within
// it; from level j, a level-j page within 2^(j - 1) times it): kFineShadingReach times the distance
// at which a sample of the larger spacing spans a pixel of a viewport `viewportHeight` high at
// `fovY`.
float fineShadingReach(const WorldMapping& mapping, float fovY, int viewportHeight);

// The least stepsAway: with it, nodes drawn side by side differ by at most one level.
inline float minStepsAway(int leafSize) {
    return 1.5f * float(leafSize);
}

// The sample box [x0, x1] x [z0, z1] of the node at `level` holding leaf (col, row): the aligned
// square of 2^level leaves, clipped to the map as the tree clips its nodes.
struct SampleBox {
    int x0, z0, x1, z1;
};
SampleBox levelNodeBox(const Quadtree& tree, int level, int col, int row);

// A node's distance from the eye and its split distance, both in grid steps.
struct LodDistance {
    float squared = 0.0f;  // squared distance, as the split rule measures it
    float reach = 0.0f;    // stepsAway * the node's reach (0 for leaves: they never split)
    // A node whose pages are not resident (LodParams::residency, LodResidency::splits): it does
    // not split.
    // 32 bits, not a bool: returned in a register whole, with no byte stored and read back wide
    // (a stalled store forward in every call of lodDistance).
    uint32_t heldBack = 0;

    bool splits() const { return !heldBack && squared < reach * reach; }
    // A held-back node near enough to want its page: within kStreamPrefetch of its reach.
    bool wantsPage() const {
        const float near = kStreamPrefetch * reach;
        return heldBack && squared < near * near;
    }
    // The morph of the node's children, 0 to 255: 0 nearer than (1 - kMorphFraction) * reach,
    // rising to 255 at the reach, where the node stops splitting and is drawn in their place.
    uint8_t childMorph() const;
};

// The distance of the node at `level` over samples [x0, x1] x [z0, z1].
LodDistance lodDistance(const Quadtree& tree, const LodParams& params, int level, int x0, int z0,
                        int x1, int z1);

// True when the node at `level` over samples [x0, x1] x [z0, z1] is drawn as its children.
bool lodSplits(const Quadtree& tree, const LodParams& params, int level, int x0, int z0, int x1,
               int z1);

// Edges of a drawn node, for DrawNode::coarser.
enum : uint8_t { kEdgeWest = 1, kEdgeEast = 2, kEdgeNorth = 4, kEdgeSouth = 8 };

// One drawn node, one instance: its first leaf's (col, row), its level, the edges whose neighbour
// is drawn one level coarser, and its geomorph. Twelve bytes, read by the vertex shader as
// (col, row, level | coarser << 8) and (morph, west | east << 8, north | south << 8), uint16 each.
//
// Geomorphing: each vertex (i, j) with an odd coordinate moves onto the parent's surface by morph
// / 255, its height, normal and light blended the same way (lodVertexMorph): inside the node in
// place, as in chunked level of detail (Ulrich 2002), on its boundary along the edge to (i & ~1,
// j & ~1), a vertex of the parent's grid, as in CDLOD (Strugar 2009). At 0 the node is its own
// strip; at 255 its triangles with area lie in the parent's and cover its quarter, so the node is
// drawn as the parent that replaces it. A node's morph rises over the last kMorphFraction of its
// parent's reach (LodDistance::childMorph), so siblings share it. Vertices on an edge take that
// edge's morph, the same from both nodes sharing it (Selector::edges), so edges stay closed;
// corners never move.
struct DrawNode {
    uint16_t col;
    uint16_t row;
    uint8_t level;
    uint8_t coarser;  // kEdge* bits
    uint8_t morph;    // 0..255: interior vertices onto the parent's surface
    uint8_t pad;
    uint8_t edgeMorph[4];  // west, east, north, south: the morph of vertices on that edge
};

static_assert(sizeof(DrawNode) == 12, "six uint16 per instance");

struct LodStats {
    uint32_t nodesTested = 0;  // nodes whose box met a plane test
    uint32_t nodesDrawn = 0;
    uint32_t leavesOccluded = 0;  // full-detail nodes (leaves) removed by the occlusion stage
    uint32_t leavesCovered = 0;   // leaves under the drawn nodes
    uint64_t triangles = 0;       // triangles the drawn nodes' strips cover (real squares)
    uint8_t deepestLevel = 0;     // the coarsest level drawn
};

// A page a streamed frame wants: its number (the pooled levels' pages, level by level, row by
// row: ResidentLevel::first + py * pagesX + px) and the squared distance of the nearest held-back
// node that asked for it (several nodes may each ask; the page is listed once).
struct PageRequest {
    uint32_t page;
    float squared;
};

struct LodParts;  // lod.cpp

// Per-frame output; reserve once per tree: selectLod() then never allocates (split over threads:
// after its first frames, once each part's buffers have grown to their size).
struct LodOutput {
    std::vector<DrawNode> nodes;  // tree order (runFrame then moves those over holes last)
    LodStats stats;
    // With LodParams::residency: the missing pages of the held-back nodes that want them
    // (LodDistance::wantsPage: the pages of LodResidency::forEachNeeded that are not resident)
    // and that the walk reaches in the frustum or that border a
    // drawn node (outside the frustum too: held back, such a node folds or morphs the drawn
    // node's edge, which it would not do were its pages in); and below each such node the walk
    // reaches, the missing pages of its descendants in the frustum that would want theirs, down a
    // chain of nodes that each would (residency aside), at their own distances. Each page once,
    // at its nearest distance, in walk order; empty otherwise.
    std::vector<PageRequest> requests;
    // With levels above 0 streamed and LodParams::shadingReach: for each pooled level j from 1,
    // the level-j pages under the drawn nodes of level j + 1 and up within 2^(j - 1) times it of
    // the eye (with a margin for the shader's float arithmetic), whose normals those nodes'
    // fragments there may read, each once, resident or not; those not resident are in
    // `requests` too.
    std::vector<uint32_t> shadingPages;
    std::vector<uint8_t> shadingMark;  // per pooled page, all 0 between frames
    // Per page (PageRequest::page): 1 + its index in `requests`, 0 when not asked; all 0 between
    // frames.
    // Sized by the first streamed selection.
    std::vector<uint32_t> pageRequest;
    // A selection split over threads: their pool and each part's output (kept between frames).
    std::shared_ptr<LodParts> parts;

    // For `tree`, split over `threads` (LodParams::threads): their pool is made here.
    void reserveFor(const Quadtree& tree, int threads = 1);
};

// Walks the tree from the root, culling by `frustum` (null: nothing culled, the reference), and
// outputs the drawn nodes. A node outside the frustum is skipped; a node not outside is drawn if
// it does not split: its coarse surface joins its own samples, so it lies in its box.
void selectLod(const Quadtree& tree, const WorldMapping& mapping, const LodParams& params,
               const Frustum* frustum, LodOutput& out);

// The leaves drawn at full detail (level 0), as sorted runs of tree-order leaves: appended to
// `out`. They are the occlusion stage's candidates with level of detail: exactly drawn, they can
// both hide (occluders) and be hidden (occludees); coarser nodes are neither, and the surface
// between them is whole (no cracks), so the stage's argument holds over the drawn surface.
void appendFullDetailLeaves(const Quadtree& tree, const LodOutput& lod,
                            std::vector<LeafRange>& out);

// Drops the full-detail nodes whose leaf is not in `kept` (sorted runs), updating the stats.
void keepFullDetailLeaves(const Quadtree& tree, const std::vector<LeafRange>& kept, LodOutput& lod);

// The level of the drawn node covering leaf (col, row), by a descent from the root: what
// selectLod's choice and the edge bits must agree with.
int drawnLevelAt(const Quadtree& tree, const LodParams& params, int col, int row);

// The sample (col, row) that vertex (i, j) of a drawn node's strips shows at morph 0, as the vertex
// shader computes it: the node's grid every 2^level samples, edges folded where the neighbour is
// coarser, clamped to the map.
inline void lodVertexSample(const DrawNode& node, int i, int j, int leafSize, int width, int height,
                            int& col, int& row) {
    if ((i == 0 && (node.coarser & kEdgeWest)) || (i == leafSize && (node.coarser & kEdgeEast))) {
        j &= ~1;
    }
    if ((j == 0 && (node.coarser & kEdgeNorth)) || (j == leafSize && (node.coarser & kEdgeSouth))) {
        i &= ~1;
    }
    col = std::min(int(node.col) * leafSize + (i << node.level), width - 1);
    row = std::min(int(node.row) * leafSize + (j << node.level), height - 1);
}

// Vertex (i, j) of a drawn node as the vertex shader morphs it, by `morph` / 255 (the edge's morph
// on an edge, the node's inside) from its sample `own` (lodVertexSample) to its target, the sum of
// `weight[k]` times corner sample k. Even vertices stay: their target is `own`. An odd vertex
// inside the node whose parent's square (corners at the even vertices (i & ~1, j & ~1) and (i + 1
// & ~1, j + 1 & ~1)) lies within the map keeps its column and row and moves vertically onto the
// parent's surface there: the middle of the parent's edge or anti-diagonal through it, half of
// each end, so that inside the node the morphed surface is (1 - m) node + m parent exactly
// (docs/design/lod.md, Geomorphing). The others (on the node's boundary, or in a partial border
// node's squares on the map's last column or row) slide to the sample of their folded (i & ~1,
// j & ~1), along the edge onto the vertex a coarser neighbour's fold keeps.
struct MorphedVertex {
    int ownCol, ownRow;
    int cornerCol[2], cornerRow[2];
    float weight[2];
    uint8_t morph;
    bool vertical;  // moves in place onto the parent's surface
};

inline MorphedVertex lodVertexMorph(const DrawNode& node, int i, int j, int leafSize, int width,
                                    int height) {
    MorphedVertex v{};
    lodVertexSample(node, i, j, leafSize, width, height, v.ownCol, v.ownRow);
    v.morph = i == 0          ? node.edgeMorph[0]
              : i == leafSize ? node.edgeMorph[1]
              : j == 0        ? node.edgeMorph[2]
              : j == leafSize ? node.edgeMorph[3]
                              : node.morph;
    const DrawNode unfolded{node.col, node.row, node.level, 0, 0, 0, {0, 0, 0, 0}};
    const bool boundary = i == 0 || i == leafSize || j == 0 || j == leafSize;
    // The parent's square unclamped, and in a node past the map's last column (row) not on it
    // either, where the vertices clamped onto it slide: vertices at one sample move alike.
    const int x0 = int(node.col) * leafSize, z0 = int(node.row) * leafSize;
    const int farX = x0 + (((i + 1) & ~1) << node.level);
    const int farZ = z0 + (((j + 1) & ~1) << node.level);
    const bool within = (farX < width - 1 || x0 + (leafSize << node.level) <= width - 1) &&
                        (farZ < height - 1 || z0 + (leafSize << node.level) <= height - 1);
    v.vertical = !boundary && ((i | j) & 1) != 0 && within;
    if (v.vertical) {
        // The ends of the parent's edge or anti-diagonal through (i, j).
        lodVertexSample(unfolded, i - (i & 1), j + (j & 1), leafSize, width, height, v.cornerCol[0],
                        v.cornerRow[0]);
        lodVertexSample(unfolded, i + (i & 1), j - (j & 1), leafSize, width, height, v.cornerCol[1],
                        v.cornerRow[1]);
        v.weight[0] = v.weight[1] = 0.5f;
        return v;
    }
    // The folded (i, j): what the shader morphs.
    int fi = i, fj = j;
    if ((i == 0 && (node.coarser & kEdgeWest)) || (i == leafSize && (node.coarser & kEdgeEast))) {
        fj &= ~1;
    }
    if ((j == 0 && (node.coarser & kEdgeNorth)) || (j == leafSize && (node.coarser & kEdgeSouth))) {
        fi &= ~1;
    }
    lodVertexSample(unfolded, fi & ~1, fj & ~1, leafSize, width, height, v.cornerCol[0],
                    v.cornerRow[0]);
    v.cornerCol[1] = v.cornerCol[0];
    v.cornerRow[1] = v.cornerRow[0];
    v.weight[0] = 1.0f;
    return v;
}

// Level of detail by default for a width x height map: kAutoLodPixels when drawing it whole
// would take more than kAutoLodTriangles triangles, else 0 (full detail).
float autoLodPixels(int width, int height);

}  // namespace qt
