// Back faces on a map with holes: which drawn boxes of terrain no pixel's ray can meet first on a
// back face, so that the renderer may cull their back faces and draw only the rest with both.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cull/slope_levels.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"

namespace qt {

// Why a back face can be the first surface point only a little beyond a hole.
// 1. Let the eye E be clear of the near terrain (eyeClearOfNearTerrain, core/cull/occlusion.h):
//    inside the map's footprint, above the surface wherever a square under it is drawn, and no
//    ray meets the surface before the near plane. Take a ray from E whose first surface point P,
//    at horizontal distance hP, is on a back face: E is below that triangle's plane, so just
//    before P the ray runs below the drawn surface. Going back along the ray from P, it stays
//    below the drawn surface while it runs over drawn squares (a point where it met the surface
//    would be a surface point nearer than P), and it cannot do so back to E, which is above it.
//    So it leaves a hole square H (a square with a nodata corner, not drawn) at some hOut < hP,
//    where it is at or below the drawn surface beside H, which interpolates the map's samples:
//    y(hOut) <= M_H, the highest height of any box of the tree holding H (the samples it
//    interpolates are corners of H, so in the block of H's leaf).
// 2. Wedge: the ray keeps its azimuth, so H lies in P's direction, nearer than P.
// 3. Dive: the ray's slope is then at most s_H = (M_H - ey) / h over the distances h of H's box
//    (its nearest when M_H > ey, else its farthest). Back along the ray, where it first went
//    below the drawn surface, it dove through holes nearer still, and so lay inside the box of
//    one of them (occlusion.cpp's argument 7): its slope is at least that box's least slope,
//    (m_H - ey) / h at the box's farthest when m_H > ey, else its nearest, m_H its lowest height.
//    P lies on a box X of terrain (footprint F, distances [hNear, hFar], heights [m, M]), so the
//    slope lies between X's least slope, (m - ey) / hNear when m < ey, else (m - ey) / hFar, and
//    its highest, (M - ey) / hNear when M > ey, else (M - ey) / hFar.
// 4. So X shows no back face first when no box a ray may dive through (7) in F's span of
//    azimuths, nearer than hFar, has slopes that meet X's. Those boxes are stamped per frame into
//    bins of azimuth and levels of slope (SlopeSplit, core/cull/slope_levels.h: the level is a
//    non-decreasing function of the slope, so ranges that overlap have levels that overlap):
//    each (bin, level) of a box's span and slopes keeps the nearest distance of the boxes
//    stamped there. X is tested over the bins of its span and the levels of its slopes: a
//    distance there below its hFar means it may show a back face, and it is drawn with both
//    sides. From above, a hole beyond X or on slopes lower or higher than X's does not matter.
// 5. The GPU: a fragment of X may lie on a ray a little off X's rays (vertices snap, pixels
//    sample their centres): X's span is widened by kOcclusionMarginPixels pixels of angle delta,
//    which moves the azimuth of a ray of elevation e by at most delta / cos(|e| + delta) and its
//    slope by delta / cos^2(|e| + delta) (occlusion.cpp's margins). A fragment's point still lies
//    in X's box and a dive's in its box, so distances need only widening against rounding, as
//    heights do. A back face that shares an edge with
//    the first surface point can win its pixel only by a depth tie, as in backFacesHidden().
// 6. Every first surface point is then drawn as it is unculled: on a front face, or on a box that
//    4 cannot clear (drawn with both sides), beyond the near plane by 1, and on a kept leaf
//    (occlusion.cpp's argument 5). A culled back face only held points that were not first.
// 7. The boxes. The dive of 3 lies past the near plane (1) and before P, so inside the frustum,
//    inside the box of a left-out square: its footprint and the range of the drawn surface over
//    it. At full detail that surface interpolates the square's corners, so the box lies in its
//    leaf's hole box (Quadtree::holeLeafBox); the frame's boxes are the hole boxes of every leaf
//    of the frustum walk with a hole (before occlusion, so whatever occlusion keeps), left-out
//    leaves included. By level of detail the surface over a square is drawn by the selected node
//    holding it (every node the selection made, drawn or not: it covers every leaf in the
//    frustum). Without culling the boxes are those of the leaves or nodes the culling frustum
//    keeps, so that culled and unculled frames decide alike. A full-detail leaf may morph toward
//    its parent's grid, within its samples: its hole box with the leaf's range. A node of grid step
//    s > 1 has vertices at its samples, moved toward the even ones (its parent's grid, step 2s) by
//    the geomorph and by the folds beside a coarser neighbour, each within the cell of step 2s
//    holding it, so each of its triangles lies with its footprint in one such cell, its heights
//    blends of the samples there; a cell of step 2s is one of the node's children's boxes, and
//    along the edges between cells (and between nodes: no cracks) the surface is the same from
//    either side. So the surface over a left-out square lies in the range of the child holding the
//    square, and the frame's boxes are the children with a hole of every selected node above level
//    0, whole.
struct BackFaceTest {
    static constexpr int kBins = 1024;   // over the pseudo-angle's [-2, 2): 4 to 8 mrad each
    static constexpr int kLevels = 256;  // of slope, the viewing camera's
    static constexpr size_t kCells = size_t(kBins) * kLevels;
    static constexpr int kGroupLevels = 16;
    static constexpr int kGroups = kLevels / kGroupLevels;

    // Per bin, one entry a slope level: the nearest distance of a box stamped there (infinity
    // where there is none). 1 MiB. Per bin, one entry a group of kGroupLevels levels: the least
    // of its entries, so that a test skips groups with nothing nearer.
    std::vector<float> dives;
    std::vector<float> groups;
    // The least distance stamped into any entry; a box spanning every bin (around the eye) is
    // kept apart, as if stamped at every level: nearestEverywhere.
    float nearestCells = 0.0f;
    float nearestEverywhere = 0.0f;
    SlopeSplit<kLevels> levels;  // the viewing camera's
    bool active = false;         // false: nothing proved (the eye is not clear, or no view)
    float ex = 0.0f, ey = 0.0f, ez = 0.0f;
    float spacingX = 0.0f, spacingZ = 0.0f;
    HeightTransform height;          // the tree's codes to world heights
    float minY = 0.0f, maxY = 0.0f;  // the map's height range, widened against rounding
    float slack = 0.0f;              // what heights are widened by against rounding
    float distanceSlack = 0.0f;      // what farthest distances are widened by against rounding
    float delta = 0.0f;              // the margin angle of 5

    void reserveFor(const Quadtree& tree);
    // Stamps the boxes a ray from `camera`, in a viewport `viewportHeight` pixels high, may dive
    // through (7: the frame's, appendDiveBoxes), `count` from `boxes`; returns `active`. Its work
    // follows the boxes, no allocation after reserveFor.
    bool prepare(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                 int viewportHeight, const HoleBox* boxes, uint32_t count);
    // True when no ray from the eye meets the surface over the sample box [x0, x1] x [z0, z1],
    // whose codes lie in [minCode, maxCode], first on a back face (4); false when not active.
    bool frontOnly(uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1, uint16_t minCode,
                   uint16_t maxCode) const;
};

// The boxes of 7 of a run of leaves at full detail: the hole box of each leaf with a hole,
// appended to `out`.
void appendDiveBoxes(const Quadtree& tree, uint32_t firstLeaf, uint32_t leafCount,
                     std::vector<HoleBox>& out);

// The boxes of 7 of a node `node` selected by level of detail (a leaf: its hole box with the
// leaf's range, when it has a hole; above level 0: its children with a hole, whole), appended to
// `out`.
void appendDiveBoxes(const Quadtree& tree, uint32_t node, std::vector<HoleBox>& out);

}  // namespace qt
