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
// 4. So X shows no back face first when no box with holes in F's span of azimuths nearer than
//    hFar has slopes that meet X's. The holes are stamped per frame into bins of azimuth and
//    rings of distance (geometric, four an octave): the tree's hole counts lead a descent to the
//    nodes with holes, stopped at leaves or at nodes small in angle (side at most kStampRatio of
//    their distance), whose slopes go into each bin of their span at the ring of their nearest
//    distance, as a mask of SlopeLevels (core/cull/slope_levels.h: ranges that overlap have
//    levels that overlap); each bin then keeps, ring by ring, the levels of that ring and the
//    nearer ones. X is tested over its bins at the ring of its farthest distance: a level there
//    that X's slopes meet means it may show a back face, and it is drawn with both sides. From
//    above, a hole far nearer than X or on slopes lower or higher than X's does not matter.
// 5. The GPU: a fragment of X may lie on a ray a little off X's rays (vertices snap, pixels
//    sample their centres): X's span is widened by kOcclusionMarginPixels pixels of angle delta,
//    which moves the azimuth of a ray of elevation e by at most delta / cos(|e| + delta) and its
//    slope by delta / cos^2(|e| + delta) (occlusion.cpp's margins); the rings move by one each
//    way, a factor of 2^(1/4) in distance that holds the rounding of distances and of the rings'
//    logarithms, and heights are widened against rounding. A back face that shares an edge with
//    the first surface point can win its pixel only by a depth tie, as in backFacesHidden().
// 6. Every first surface point is then drawn as it is unculled: on a front face, or on a box that
//    4 cannot clear (drawn with both sides), beyond the near plane by 1, and on a kept leaf
//    (occlusion.cpp's argument 5). A culled back face only held points that were not first.
// 7. Level of detail: the surface beside H is drawn by the node drawing H, or along their common
//    edge by it too (no cracks), from that node's samples or blends of them, so y(hOut) is at most
//    that node's highest height. A full-detail leaf's is in the boxes stamped in 4; a coarse
//    node's is stamped too, with its own box (occlusion.cpp's argument 8).
struct BackFaceTest {
    static constexpr int kBins = 512;  // over the pseudo-angle's [-2, 2): 8 to 16 mrad each
    static constexpr int kRings = 64;  // rings of distance
    static constexpr int kRingsPerOctave = 4;
    static constexpr float kStampRatio = 0.125f;  // nodes this small for their distance: whole

    // Per bin, kRings entries: the slope levels of the holes in that ring or a nearer one, 0
    // where there is none.
    std::vector<uint64_t> dives;
    SlopeLevels levels;   // the viewing camera's
    bool active = false;  // false: nothing proved (the eye is not clear, or no view)
    float ex = 0.0f, ey = 0.0f, ez = 0.0f;
    float spacingX = 0.0f, spacingZ = 0.0f;
    HeightTransform height;          // the tree's codes to world heights
    float minY = 0.0f, maxY = 0.0f;  // the map's height range, widened against rounding
    float slack = 0.0f;              // what heights are widened by against rounding
    float ringBase = 0.0f;           // ring j >= 1 starts at ringBase 2^(j / kRingsPerOctave)
    float delta = 0.0f;              // the margin angle of 5

    void reserveFor(const Quadtree& tree);
    // Stamps the holes around `camera`, in a viewport `viewportHeight` pixels high; returns
    // `active`. A descent over the nodes with holes to a size fixed by their angle, so its work
    // follows the holes in view of the eye, not the map's size; no allocation after reserveFor.
    // With level of detail, `coarse` holds the drawn nodes above level 0 with a hole (7).
    bool prepare(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                 int viewportHeight, const HoleBox* coarse = nullptr, uint32_t coarseCount = 0);
    // True when no ray from the eye meets the surface over the sample box [x0, x1] x [z0, z1],
    // whose codes lie in [minCode, maxCode], first on a back face (4); false when not active.
    bool frontOnly(uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1, uint16_t minCode,
                   uint16_t maxCode) const;
};

}  // namespace qt
