// Back faces on a map with holes: which drawn boxes of terrain no pixel's ray can meet first on a
// back face, so that the renderer may cull their back faces and draw only the rest with both.
#pragma once

#include <cstdint>
#include <vector>

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
//    y(hOut) <= maxY, the map's highest height.
// 2. Wedge: the ray keeps its azimuth, so H lies in P's direction, nearer than P.
// 3. Reach: when E is above every height (ey > maxY), the ray descends from ey to at most maxY
//    over hOut, so y(h) <= ey - (ey - maxY) h / hOut beyond; P, on the surface, is at least minY
//    high, so hP <= k hOut with k = (ey - minY) / (ey - maxY). Otherwise k is infinite.
// 4. So a box of terrain X (footprint F, horizontal distances [hNear, hFar] from E) shows no back
//    face first when no hole square meets F's span of azimuths at a distance in [hNear / k, hFar].
//    The holes are stamped per frame into bins of azimuth as rings of distance (geometric, four
//    an octave): the tree's hole counts lead a descent to the nodes with holes, stopped at leaves
//    or at nodes small in angle (side at most kStampRatio of their distance), whose whole
//    footprint is stamped, a superset of their holes' squares. X is tested over its bins and
//    rings: a ring set there means it may show a back face, and it is drawn with both sides.
// 5. The GPU: a fragment of X may lie on a ray a little off X's rays (vertices snap, pixels
//    sample their centres): X's span is widened by kOcclusionMarginPixels pixels of angle delta,
//    which moves the azimuth of a ray of elevation e by at most delta / cos(|e| + delta)
//    (occlusion.cpp's margins), and its rings by one each way, a factor of 2^(1/4) in distance
//    that holds the rounding of distances, of k and of the rings' logarithms. A back face that
//    shares an edge with the first surface point can win its pixel only by a depth tie, as in
//    backFacesHidden().
// 6. Every first surface point is then drawn as it is unculled: on a front face, or on a box that
//    4 cannot clear (drawn with both sides), beyond the near plane by 1, and on a kept leaf
//    (occlusion.cpp's argument 5). A culled back face only held points that were not first.
struct BackFaceTest {
    static constexpr int kBins = 512;  // over the pseudo-angle's [-2, 2): 8 to 16 mrad each
    static constexpr int kRings = 64;  // bit j of a bin: a hole in ring j of distance
    static constexpr int kRingsPerOctave = 4;
    static constexpr float kStampRatio = 0.125f;  // nodes this small for their distance: whole

    std::vector<uint64_t> rings;  // per bin, the rings that hold a hole in its azimuths
    bool active = false;          // false: nothing proved (the eye is not clear, or no view)
    float ex = 0.0f, ey = 0.0f, ez = 0.0f;
    float spacingX = 0.0f, spacingZ = 0.0f;
    float minY = 0.0f, maxY = 0.0f;  // the map's height range, widened against rounding
    float reach = 0.0f;              // k of 3, infinity when the eye is not above every height
    float ringBase = 0.0f;           // ring j >= 1 starts at ringBase 2^(j / kRingsPerOctave)
    float delta = 0.0f;              // the margin angle of 5

    void reserveFor(const Quadtree& tree);
    // Stamps the holes around `camera`, in a viewport `viewportHeight` pixels high; returns
    // `active`. A descent over the nodes with holes to a size fixed by their angle, so its work
    // follows the holes in view of the eye, not the map's size; no allocation after reserveFor.
    bool prepare(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                 int viewportHeight);
    // True when no ray from the eye meets the surface over the sample box [x0, x1] x [z0, z1]
    // first on a back face (4); false when not active.
    bool frontOnly(uint32_t x0, uint32_t z0, uint32_t x1, uint32_t z1) const;
};

}  // namespace qt
