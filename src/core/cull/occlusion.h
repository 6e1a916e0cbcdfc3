// Conservative occlusion culling: removes the frustum walk's leaves that nearer terrain provably
// hides, with a horizon of slopes over azimuth bins (the argument is at the top of occlusion.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "core/cull/slope_levels.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "core/view/frustum.h"

namespace qt {

struct OcclusionStats {
    bool active = false;          // false: the view allows no proof; every candidate is kept
    uint32_t leavesTested = 0;    // candidates checked against the horizon (alone or in a unit)
    uint32_t leavesOccluded = 0;  // candidates removed
    uint32_t unitsTested = 0;     // tests made: a leaf alone, or four leaves of a far parent
    uint32_t boxesTested = 0;     // object boxes checked against the horizon
    uint32_t boxesOccluded = 0;   // object boxes it hides
};

// World boxes that are not terrain (objects standing on it), tested against the horizon the
// leaves build, as occludees only: the argument for a leaf (4 and 5 at the top of occlusion.cpp)
// uses only that its surface lies in a box, so it holds for anything drawn inside one.
struct BoxOccludees {
    const Box* boxes = nullptr;
    uint32_t count = 0;
};

// A unit (a leaf, or the four leaves of a far parent) in the horizon's terms (core/cull/horizon.h),
// in its distance bucket. As an occluder, the occluderCount bins from occluderFirst lie wholly
// inside its span, and every ray of those azimuths whose slope is below occluderSlope passes under
// its surface. As an occludee, the occludeeCount bins from occludeeFirst cover its widened span,
// and every ray that can reach it has a slope at most occludeeSlope, margin included. Bin numbers
// are offset by kOcclusionBins, slopes scaled to int16; position is its first candidate, with flags
// in the top bits (tested as an occludee; four leaves).
struct OcclusionRecord {
    uint16_t occluderFirst;
    uint16_t occluderCount;
    uint16_t occludeeFirst;
    uint16_t occludeeCount;
    int16_t occluderSlope;
    int16_t occludeeSlope;
    uint32_t position;
};

static_assert(sizeof(OcclusionRecord) == 16, "four records a cache line");

// Maps with holes, beside each unit's record (occlusion.cpp's argument 7): its least slope, the
// margin less, which the dives are held against; and for a unit with a hole its dive, the bins and
// the least and highest slopes (margins included) of the rays through its leaf's hole box
// (Quadtree::holeLeafBox), those that may pass below the surface there (count 0 without a hole).
struct DiveRecord {
    int16_t leastSlope;
    int16_t low, high;
    uint16_t first;
    uint16_t count;
};

// What the drawn surface adds over a map with holes when the frame draws by level of detail
// (occlusion.cpp's argument 8): a full-detail leaf may morph toward its parent's grid, and coarse
// drawn nodes, which are not candidates, leave holes too. coarse: of every drawn node above level
// 0 with a square with a nodata corner (those that draw nothing included), the boxes a ray may
// dive through (appendDiveBoxes: its children with a hole), as sample boxes and code ranges; at
// most one a node of the tree.
struct DrawnHoles {
    bool lod = false;
    const HoleBox* coarse = nullptr;
    uint32_t coarseCount = 0;
};

// The boxes a ray may dive through in the squares with a nodata corner of a node `node` that level
// of detail draws, appended to `out`: nothing without a hole; a leaf's hole box
// (Quadtree::holeLeafBox) with the leaf's code range, since a full-detail leaf may morph toward
// its parent's grid within its samples; above level 0, its children with a hole, each whole. A
// node of grid step s > 1 has vertices at its samples, moved toward the even ones (its parent's
// grid, step 2s) by the geomorph and by the folds beside a coarser neighbour, each within the
// cell of step 2s holding it, so each of its triangles lies with its footprint in one such cell,
// its heights blends of the samples there; a cell of step 2s is one of the node's children's boxes
// (with leaves of 4 squares or more; else the node's own box is given), and along the edges
// between cells (and between nodes: no cracks) the surface is the same from either side. So the
// surface over a left-out square lies in the range of the child holding it.
void appendDiveBoxes(const Quadtree& tree, uint32_t node, std::vector<HoleBox>& out);

// Scratch for cullOccluded: capacity reserved once per tree (35 bytes a leaf), but only the
// entries for the most candidates seen so far are ever written, so resident memory follows the
// view. After reserveFor the call never allocates. Candidates go through as units (a leaf, or the
// four leaves of a far parent): their boxes gathered once into columns, then counting-sorted by
// distance into records.
struct OcclusionBuffers {
    std::vector<int16_t> horizon;  // per bin, the scaled slope under which rays are hidden
    // Maps with holes (occlusion.cpp's arguments 6 and 7): per bin, the nearest hole's distance;
    // the horizon of every unit without a hole; the slopes of the rays that may dive below the
    // surface through a hole, as a set of slope levels (level k in it: it may hold such a ray).
    std::vector<float> holeNear;
    std::vector<int16_t> solidHorizon;
    std::vector<SlopeLevels::Set> dive;
    // Per unit: its node's box as QuadtreeNode holds it (first samples, last squares).
    std::vector<uint16_t> boxX0, boxZ0, boxLastColumn, boxLastRow;
    std::vector<uint16_t> lowCode, highCode;  // per unit: its node's code range
    std::vector<uint32_t> unitPosition;       // per unit: its first candidate, flag for four leaves
    std::vector<uint32_t> unitLeaf;           // maps with holes, per unit with a hole: its leaf
    std::vector<uint16_t> keys;               // per unit: distance bucket and tested flag
    std::vector<uint32_t> bucketStart;        // bucket -> first record; one past the last bucket
    std::vector<OcclusionRecord> records;     // by bucket, near to far
    std::vector<DiveRecord> dives;            // maps with holes: beside each record
    // DrawnHoles::coarse as dives, by bucket as the records are (room for one a node of the
    // tree, written as used).
    std::vector<uint32_t> coarseBucketStart;
    std::vector<DiveRecord> coarseDives;
    std::vector<uint8_t> slopeLevels;  // maps with holes: the level of each span of int16 slopes
    std::vector<uint8_t> occluded;     // per candidate: 1 when removed
    // Object boxes (BoxOccludees): capacity from reserveBoxes, the count of objects.
    std::vector<uint32_t> boxBucketStart;
    std::vector<int32_t> boxKeys;
    std::vector<OcclusionRecord> boxRecords;  // position: the box's index
    std::vector<uint8_t> boxOccluded;         // per box: 1 when hidden

    void reserveFor(const Quadtree& tree);
    void reserveBoxes(size_t count);
    void growBoxesTo(size_t count);
    // Sizes the per-unit arrays for `candidates` leaves, within the reserved capacity.
    void growTo(size_t candidates);
};

// Removes the candidates that the terrain hides from `camera` in a viewport `viewportHeight`
// pixels high. candidates: sorted, non-overlapping runs of tree-order leaves (the frustum walk's
// output). kept: the same leaves minus the occluded ones, as sorted maximal runs (adjacent runs
// merged); reserve maxLeafRanges(tree) runs (core/cull/cull.h) once to keep the call free of
// allocation.
// It never removes a leaf that the first surface point along any ray from the eye lies on. The
// `boxes` are tested too (buffers.boxOccluded): a box is hidden only when every ray that reaches
// it crosses the terrain, nearer by the depth gap, first. With level of detail over a map with
// holes, `drawn` says so and gives the boxes of the coarse drawn nodes with holes. When
// the view allows no proof (eye outside the map's footprint or too close above the terrain,
// non-finite input, an empty viewport) stats.active is false and kept holds every candidate.
void cullOccluded(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                  int viewportHeight, const std::vector<LeafRange>& candidates,
                  OcclusionBuffers& buffers, std::vector<LeafRange>& kept, OcclusionStats& stats,
                  const BoxOccludees& boxes = {}, const DrawnHoles& drawn = {});

// True when no back face of the terrain can be the nearest surface at a pixel of `camera` on a map
// without holes: drawsFrontFacesOnly() on a map without holes. Then along every ray the first
// surface point is not clipped and is crossed from above (argument 1 at the top of
// occlusion.cpp), on a triangle facing the eye; a back face holds only points farther along the
// ray, or equally far on an edge it shares, where its fragment could only win a depth tie. False
// for non-finite input.
bool backFacesHidden(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera);

// Whether the terrain is drawn with one side, its back faces culled, for `camera`: when the eye is
// clear of the near terrain (eyeClearOfNearTerrain). On a map without holes that changes no pixel
// but depth ties (backFacesHidden). On a map with holes it is what a hole shows: a ray through a
// hole passes on below the surface, leaves it through a back face unseen, and shows the first
// surface it meets from above beyond, or the sky; the terrain's underside is never drawn as if it
// were ground. The occlusion stage's dives keep every leaf such a ray may reach (occlusion.cpp's
// argument 7 holds whatever the ray meets after its dive). Otherwise (under the ground, outside
// the map, the near plane in the ground) both sides are drawn, so that the underside shows.
bool drawsFrontFacesOnly(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera);

// The eye strictly inside the map's footprint and higher, by more than the near plane's reach d
// (twice the distance from the eye to the near plane's corners), than every leaf that meets the
// square of half-side d around it. Then every surface point within the near plane's reach lies
// below the eye's rays, so no ray meets the surface before the near plane, and the eye is above
// the surface wherever a square is drawn under it.
bool eyeClearOfNearTerrain(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera);

}  // namespace qt
