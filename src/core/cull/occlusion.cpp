// Horizon occlusion culling of the frustum walk's leaves, near to far over distance buckets.
// Idea: Lloyd and Egbert, "Horizon Occlusion Culling for Real-time Rendering of Hierarchical
// Terrains", IEEE Visualization 2002: a horizon of slopes over azimuth, raised by nearer terrain,
// against which farther terrain is tested.
//
// Why it never removes a visible leaf.
// 1. The region below a height field is opaque. Let the eye E be inside the map's footprint (in
//    xz) and above the surface there. A ray from E that is strictly below the surface at a point Q
//    of the footprint crossed the surface before Q: ray height minus surface height is continuous
//    along the segment E..Q, which stays in the convex footprint, positive at E and negative at Q.
//    A ray is described by its azimuth theta and its slope s = dy/dh, h the horizontal distance
//    from E; h grows along the ray, so "before" is "at smaller h".
// 2. Occluder: a leaf L with footprint F (E not on F) and lowest height m. The directions from E
//    to the points of the convex F form an arc, its span; a ray whose azimuth is in the span meets
//    F at some point, at some h in [hNear, hFar] (least and greatest distance from E to F), where
//    the surface, interpolating L's samples, is >= m. The ray is strictly below it there when
//    ey + s h < m, i.e. s < (m - ey) / h; over [hNear, hFar] that bound is least at hNear when
//    m < ey (negative, rising toward 0) and at hFar otherwise. That least value, c_L, holds for
//    every ray of the span whatever h it meets F at.
// 3. Horizon: bin b holds H[b] = max c_L over the inserted leaves whose span holds all of bin b
//    (bins it covers in part get nothing): a ray of azimuth in b and slope < H[b] passes under the
//    surface at some h <= that leaf's hFar.
// 4. Occludee: a leaf N with highest height M. A ray that meets N's surface does so at some h in
//    [hNear_N, hFar_N] and height <= M: its azimuth is in N's span and its slope is at most
//    s_N = (M - ey) / hNear_N when M > ey, else (M - ey) / hFar_N. N is occluded when
//    s_N < H[b] in every bin under N's span, the horizon holding only leaves with
//    hFar_L (1 + eps) <= hNear_N: every ray that reaches N then crosses the surface at some P with
//    h_P < hNear_N / (1 + eps), before it gets there.
// 5. So the first surface point P* along any ray is never on an occluded leaf: by 4 the ray
//    would cross the surface before P*. Leaves holding first surface points are kept, in their
//    order; a removed leaf only had points farther along their rays than a kept surface point.
//    Occluded leaves may still occlude: 2-4 reason about the real surface, drawn or not, and 5
//    shows that the nearer crossing they imply is preceded by a first hit on a kept leaf.
// 6. Holes: squares with a nodata corner are not drawn, so a ray may pass below the surface
//    through one and meet the terrain beyond from below. Let D be the least horizontal distance
//    from E to a leaf holding such a square. A leaf L with hFar_L < D holds no hole, and for a ray
//    below its surface at Q, the segment E..Q (h <= hFar_L < D) crosses only drawn squares, so 1
//    holds there: only such leaves join the horizon (an eye over a hole, D = 0, has none), and
//    2-5 hold for them as they stand. Leaves with holes are still occludees. Where D is beyond
//    the near plane's reach (below), a pixel's ray can meet a hole only past the near plane,
//    inside the frustum, so over a square with a nodata corner of a candidate leaf, at an azimuth
//    of the span of that leaf's hole box (Quadtree::holeLeafBox, below): D is then taken per bin
//    over the candidates' hole boxes, and a leaf joins the horizon in a bin only when its hFar is
//    below the D of every bin it would raise.
// 7. Dives, where D is beyond the near plane's reach (below). Take a ray below the surface of an
//    occluder L without holes at Q, and its first point B at or below the drawn surface. Either
//    the ray meets a drawn square there coming from above (a surface point nearer than Q, so 5
//    holds), or it reaches B over squares left out: it dives. Back along the ray from B, over
//    left-out squares only, to a point A where it was above a drawn square (the eye is over
//    none). At A it is at or above the drawn edge it leaves, whose samples are corners of the
//    first left-out square it passes; at B at or below the edge it meets, corners of the last.
//    Take each left-out square's box: its footprint and the range of its four corners (a nodata
//    corner holds its fill). Were the ray outside the box all over each square, it would be above
//    the first (by A), above each next one (squares passed in turn share a corner, above which
//    the ray runs) and so not at or below the last at B. So at some point p it lies inside the
//    box of a left-out square, which its leaf X's hole box holds (Quadtree::holeLeafBox: the
//    squares of X with a nodata corner and their corners' range): past the near plane (X is at
//    least D away) and before N's point along the ray, so inside the frustum: X is a candidate,
//    nearer than N, and the ray's slope is at most the hole box's highest slope, s_X (its
//    DiveRecord, with an occludee's margins). A ray that may show a fragment of N has a
//    slope of at least N's least slope, its margin less; so when every candidate with a hole
//    nearer than N, in every bin under N's span, has s_X below that, no such ray dives before
//    it passes under an occluder, and 5 holds (and where s_X is at least that, when no ray
//    through X's hole box has a slope N's rays may have). The sweep keeps that per bin (dive):
//    the slopes of the rays through the hole boxes of the units with holes in the buckets up to
//    N's, over their occludee bins; and a second horizon that every leaf without a hole raises.
//    N is hidden by the horizon of 6, or by the second one with no dive in its bins holding a
//    slope of its rays.
//    A ray dives at X only if it was above the surface all the way to p. A ray of a bin with a
//    slope below the second horizon there that reaches p passed below a leaf without holes
//    before X (2, 3), so before p: X adds no dive for it. So X's dive in a bin holds the slopes
//    from the second horizon's to s_X (margin included: p is in X's hole box), none where s_X is
//    below it; slopes are kept as levels (core/cull/slope_levels.h), 256 over the view's height.
// 8. Level of detail. The candidates are then the leaves drawn at full detail, which may morph
//    toward their parents' grid, and coarse nodes draw the rest. A drawn node's surface lies in
//    its box's range (its vertices are its samples or blends of them), and where two drawn nodes
//    meet they draw the same edge (no cracks), so the surface along it lies in both ranges. In
//    7, at A the ray is at or above the surface on the edge of the first left-out square, which
//    the node drawing that square draws; at B likewise; a corner shared by squares in turn lies
//    in the ranges of the nodes holding both. So 7's chain holds with each left-out square's box
//    taken as its footprint and its drawn node's range: a full-detail leaf's dive takes its hole
//    box's footprint with the leaf's range (View::lodSurface), and a coarse node's the boxes of
//    its children with a hole (the surface over a left-out square lies in the range of the child
//    holding it: appendDiveBoxes, core/cull/occlusion.h, and so do the corners it shares).
//    Coarse nodes are no candidates, so the frame gives those with holes (DrawnHoles): beyond
//    the near plane's reach a pixel's ray meets a hole only inside the frustum, in a drawn node.
//    They join 6's D per bin and 7's dives, in the bucket of their near distance.
// The same holds of any box that holds leaves and their code range, a parent node's included:
// far from the eye, four sibling leaves go through as one unit, their parent (kOcclusionQuad*).
//
// What the GPU adds, and the margins that cover it.
// - Depth: along one ray eye depth is proportional to h, so P is at eye depth z1 and N's point at
//   z2 >= z1 (1 + eps). Window depth is d(z) = (1/n - 1/z) / (1/n - 1/f), hence
//   d(z2) - d(z1) = n f / (f - n) (1/z1 - 1/z2) >= (n / f) eps / (1 + eps) for z1 <= f (beyond f
//   N's point is clipped anyway). eps = max(kOcclusionMinGap, g / (1 - g)) with
//   g = kOcclusionDepthQuanta 2^-24 f / n makes that at least kOcclusionDepthQuanta quanta of a
//   24-bit buffer under GL_LESS; no culling when g >= 1/2 (f / n beyond about 1e6).
// - Near plane: a crossing nearer than the near plane would be clipped. Let d = 2 n / cos(a), a
//   the widest angle between a pixel's ray and the view axis, and H the highest leaf that meets
//   the square of half-side d around the eye, below it (else no culling). A ray meeting the
//   surface within distance d of the eye does so at h <= d and height <= H, so its slope is at
//   most s_clip = (H - ey) / d < 0. Occludees are only tested when every ray that can show one of
//   their fragments, margin included (below), is shallower than that: their least slope less the
//   slope margin above s_clip. At a pixel where an occluded leaf has a fragment, the ray's first
//   crossing is then farther than d, at eye depth above 2 n: drawn, on a kept leaf (5), and
//   nearer than the occluded fragment by the depth gap. At any other pixel the two images have
//   the same fragments.
// - Rasteriser: vertices snap to a sub-pixel grid and pixels sample their centres, so a fragment
//   of N can lie on a ray slightly off N's rays. N's span is widened and s_N raised by
//   kOcclusionMarginPixels pixels of angle delta (a pixel spans at most 2 tan(fovY / 2) / height
//   radians, at the view's centre): a ray within delta of one at elevation e, |tan e| <= s, keeps
//   |elevation| <= atan(s) + delta, so its azimuth moves by at most delta / cos(atan(s) + delta)
//   (no more in pseudo-angle, which moves 1/2 to 1 per radian) and its slope by
//   delta / cos^2(atan(s) + delta), s the unit's steepest |slope|. Units that rays steeper than 45
//   degrees, or downward steeper than the near plane allows, may reach are not tested (kept).
// - Rounding: world coordinates carry a few ulps of the largest one, which turn into angle and
//   slope errors of about ulps / h; units nearer than where those reach 1 / kNearestFactor of the
//   margin neither occlude nor are tested. Pseudo-angles (horizon.h) err by less than
//   kAngleError, by which spans shrink (occluders) or grow (occludees); slopes are rounded to the
//   horizon's int16 down for occluders and up for occludees.
// - Rounding along grazing rays: the GPU places a vertex within r = kCoordinateHalfUlps half-ulps
//   of the largest coordinate of where it belongs. A ray that meets level ground (or ground
//   facing the eye) no higher than the ground near the eye, c below the eye, meets it at an angle
//   of at least c / h, so r moves the crossing along the ray by at most r h / c: a relative depth
//   error of r / c, which eps holds kGrazingShare times over (eps >= r / c / kGrazingShare). Far
//   from the origin, with the eye just above flat water, that widens the depth gap or (eps over
//   1/2) stands the stage down, where the crossing's depth is no longer the one the argument
//   assumes. Ground that falls away from the eye at a grazing angle is not covered by this bound.
//
// Near to far without a sort: units are counted into buckets of their squared near distance with
// geometric edges (the top bits of the float). A unit's far distance exceeds its near one by at
// most its diagonal, so bucket j's units are all nearer than a known bound; bucket k is tested
// once every bucket whose bound times (1 + eps) is <= k's lower edge has joined the horizon, and
// no other: hFar_L (1 + eps) <= hNear_N for every pair used.
#include "core/cull/occlusion.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "core/config.h"
#include "core/cull/cull.h"
#include "core/cull/horizon.h"
#include "core/cull/slope_levels.h"

namespace qt {
namespace {

using horizon::kAngleError;
using horizon::kBins;

constexpr float kPi = 3.14159265358979f;
constexpr float kInfinity = std::numeric_limits<float>::infinity();

// Distance buckets over the squared near distance: 2^kBucketBits per octave of the float, edges
// 0.8% to 1.6% apart in distance.
constexpr int kBucketBits = 5;
constexpr int kBucketShift = 23 - kBucketBits;
// 64 octaves of squared distance above one leaf's side; anything farther shares the last bucket.
constexpr int kMaxBuckets = 64 << kBucketBits;

// A unit's key: its bucket, kTestedBit when it is an occludee as well as an occluder, or kNoKey.
constexpr int32_t kBucketMask = 0x7FFF;
constexpr int32_t kTestedBit = 0x8000;
constexpr int32_t kNoKey = 0xFFFF;
static_assert(kMaxBuckets <= kBucketMask, "bucket numbers fit under the flag");
static_assert(3 * kBins + horizon::kMirror < 0xFFFF, "offset bin numbers fit in 16 bits");

// A unit's position: its first candidate, and flags.
constexpr uint32_t kTestedPosition = 0x80000000u;  // tested as an occludee
constexpr uint32_t kQuadPosition = 0x40000000u;    // four leaves
constexpr uint32_t kHolePosition = 0x20000000u;    // a square of it has a nodata corner
constexpr uint32_t kNearPosition = 0x10000000u;    // nearer than every hole in its bins
constexpr uint32_t kPositionMask = 0x0FFFFFFFu;

// Steepest tested ray slope (45 degrees), and the widest margin angle worth culling with.
constexpr float kMaxTestedSlope = 1.0f;
constexpr double kMaxMarginAngle = 0.05;
// Half-ulps of the largest world coordinate that its rounding may reach (CPU and GPU alike), and
// how many such errors a margin must hold at the nearest distance a unit takes part from.
constexpr double kCoordinateHalfUlps = 8.0;
constexpr double kNearestFactor = 8.0;
// How many times over the depth gap holds the relative depth error rounding gives grazing rays.
constexpr double kGrazingShare = 4.0;

// Node stack of the clearance descent: at most three siblings wait per level.
constexpr int kStackSize = 4 * 17;

// Units are measured kChunk at a time, in loops without branches or calls that the compiler runs
// in SIMD lanes, then counted or placed one by one.
constexpr int kChunk = 256;

// Dives are kept per bin as a set of SlopeLevels; a slope's level is looked up by its int16
// value's top bits, in kLevelSpans spans (narrower than a level near the view's middle).
using Levels = SlopeLevels::Set;
constexpr int kLevelSpans = 4096;
constexpr int kLevelShift = 16 - 12;

// Per-call constants.
struct View {
    float ex, ey, ez;  // the eye
    float spacingX, spacingZ;
    float sizeX, sizeZ;  // the map's footprint in world units: [0, sizeX] x [0, sizeZ]
    HeightTransform height;
    double onePlusEpsSquared;  // (1 + eps)^2: squared far distance times this <= squared near
    float delta;               // margin angle: kOcclusionMarginPixels of the widest pixel
    float cosDelta, sinDelta;
    float leafDiagonal;  // hFar <= hNear + diagonal, for a leaf and for a parent
    float quadDiagonal;
    float nearestSquared;  // nearer units neither occlude nor are tested
    float steepestDown;    // occludees' least ray slope must be at least -steepestDown, in (0, 1]
    float quadSquared;     // parents at least this far (squared) may be units
    // Maps with holes: a lower bound on the horizontal distance from the eye to every square with
    // a nodata corner (infinity without). A ray may pass below the surface only through a hole,
    // and go on beyond it: so only units that lie wholly nearer than every hole occlude (argument
    // 6 at the top).
    float holeDistance;
    float nearestHole;  // holeDistance as found, kept when holeDives sets it to infinity
    // Holes farther than the near plane's reach: a pixel's ray meets a hole only in a candidate
    // with a hole. The units wholly nearer than every such candidate in their bins raise the
    // horizon (OcclusionBuffers::holeNear, argument 6), and every unit without a hole raises a
    // second one, which hides an occludee only where no ray that may reach it can dive through a
    // nearer hole (OcclusionBuffers::dive, argument 7). holeDistance is then infinity.
    bool holeDives;
    // Argument 8: the frame draws by level of detail, so the surface beside a full-detail leaf's
    // hole lies in the leaf's range, not only its hole squares' corners'.
    bool lodSurface;
    float rounding;  // what rounding may move a world coordinate by (largestCoordinate's ulps)
    // View::holeDives: the slope level of each of kLevelSpans spans of the horizon's int16 slopes
    // (slopeLevel), non-decreasing (OcclusionBuffers::slopeLevels, kept out of this struct, which
    // the passes without holes want small).
    const uint8_t* levels;
    int32_t bucketBase;   // float bits of the lower edge of bucket 1
    int32_t bucketCount;  // bucket 0 is [0, edge 1); the last reaches to infinity
};

int32_t floatBits(float f) {
    int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i;
}

float bitsFloat(int32_t i) {
    float f;
    std::memcpy(&f, &i, sizeof f);
    return f;
}

// The level of an int16 slope (View::levels): any non-decreasing map keeps every overlap of two
// slope ranges an overlap of their level ranges, which is all argument 7 needs of it.
inline int slopeLevel(const View& v, int32_t slope) {
    return v.levels[(std::min(std::max(slope, -32768), 32767) + 32768) >> kLevelShift];
}

// The levels of the slopes [low, high].
inline Levels levelMask(const View& v, int32_t low, int32_t high) {
    return Levels::span(slopeLevel(v, std::min(low, high)), slopeLevel(v, std::max(low, high)));
}

// View::levels for the camera (SlopeLevels): each span takes the level of its lowest slope.
void fillSlopeLevels(const Camera& camera, uint8_t* table) {
    SlopeLevels levels;
    levels.fill(camera);
    for (int i = 0; i < kLevelSpans; ++i) {
        table[i] = uint8_t(levels.level(float((i << kLevelShift) - 32768) / horizon::kSlopeScale));
    }
}

// Bucket k >= 1 holds [lowerEdge(k), lowerEdge(k + 1)) of squared distance: exact floats.
inline int32_t bucketOf(const View& v, float squared) {
    const int32_t above = floatBits(squared) - v.bucketBase;
    return std::max(0, std::min((above >> kBucketShift) + 1, v.bucketCount - 1));
}

float lowerEdge(const View& v, int32_t k) {
    return k == 0 ? 0.0f : bitsFloat(v.bucketBase + ((k - 1) << kBucketShift));
}

// The greatest squared far distance of a unit in bucket k: its near distance is below the next
// edge (infinite for the last bucket), its far one no more than a diagonal beyond (a parent's
// once parents may be units).
double farthestSquared(const View& v, int32_t k) {
    if (k + 1 >= v.bucketCount) {
        return double(kInfinity);
    }
    const float next = lowerEdge(v, k + 1);
    const double far =
        std::sqrt(double(next)) + double(next > v.quadSquared ? v.quadDiagonal : v.leafDiagonal);
    return far * far;
}

// Candidates go through the passes as units: a leaf, or far enough from the eye and flat enough
// the four leaves of a parent node when all four are candidates (tree order puts them next to
// each other). A unit is tested with its node's box and code range, which hold its leaves'.
// kHoles: the map has holes (Quadtree::hasHoles), whose units are flagged kHolePosition.
template <bool kHoles>
class UnitCursor {
public:
    UnitCursor(const Quadtree& tree, const View& v, const std::vector<LeafRange>& ranges)
        : tree_(tree), v_(v), ranges_(ranges) {}

    // Gathers the next units (at most kChunk) into the buffers' columns from unit u; returns how
    // many.
    int next(OcclusionBuffers& b, uint32_t u) {
        int n = 0;
        while (n < kChunk && range_ < ranges_.size()) {
            const LeafRange& r = ranges_[range_];
            const uint32_t leaf = r.first + offset_;
            uint32_t index = tree_.leafNodes[leaf];
            uint32_t take = 1;
            if (offset_ + 4 <= r.count) {
                if (const uint32_t parent = quadParent(leaf); parent != kNoNode) {
                    index = parent;
                    take = 4;
                }
            }
            const QuadtreeNode& box = tree_.nodes[index];
            const uint32_t at = u + uint32_t(n);
            b.boxX0[at] = box.x0;
            b.boxZ0[at] = box.z0;
            b.boxLastColumn[at] = box.lastColumn;
            b.boxLastRow[at] = box.lastRow;
            b.lowCode[at] = box.minCode;
            b.highCode[at] = box.maxCode;
            const bool holes = kHoles && tree_.holesIn(leaf, take);
            b.unitPosition[at] =
                position_ | (take == 4 ? kQuadPosition : 0u) | (holes ? kHolePosition : 0u);
            if (holes) {
                b.unitLeaf[at] = leaf;
            }
            ++n;
            position_ += take;
            offset_ += take;
            if (offset_ == r.count) {
                ++range_;
                offset_ = 0;
            }
        }
        return n;
    }

private:
    // The leaf's parent when the leaf is its first child, the next three leaves are the others,
    // none of them with a hole (which go one by one, so that those without occlude), and the
    // parent is far and its relief small for its distance; else kNoNode.
    uint32_t quadParent(uint32_t leaf) const {
        const LeafCoord first = tree_.leaves[leaf];
        const LeafCoord last = tree_.leaves[leaf + 3];
        if ((first.col & 1) != 0 || (first.row & 1) != 0 || last.col != first.col + 1 ||
            last.row != first.row + 1 || tree_.depth == 0 || (kHoles && tree_.holesIn(leaf, 4))) {
            return kNoNode;
        }
        const uint32_t index = tree_.nodeAt(1, first.col, first.row);
        const QuadtreeNode& parent = tree_.nodes[index];
        const float x0 = float(parent.x0) * v_.spacingX, x1 = float(parent.x1()) * v_.spacingX;
        const float z0 = float(parent.z0) * v_.spacingZ, z1 = float(parent.z1()) * v_.spacingZ;
        const float x = std::max(std::max(x0 - v_.ex, v_.ex - x1), 0.0f);
        const float z = std::max(std::max(z0 - v_.ez, v_.ez - z1), 0.0f);
        const float nearSq = x * x + z * z;
        const float relief = std::fabs(float(parent.maxCode - parent.minCode) * v_.height.scale);
        const bool quad = nearSq >= v_.quadSquared &&
                          relief * relief <= nearSq * kOcclusionQuadRelief * kOcclusionQuadRelief;
        return quad ? index : kNoNode;
    }

    const Quadtree& tree_;
    const View& v_;
    const std::vector<LeafRange>& ranges_;
    size_t range_ = 0;
    uint32_t offset_ = 0;
    uint32_t position_ = 0;
};

// The gathered boxes of a chunk of units: first samples, last squares (QuadtreeNode's fields).
struct Boxes {
    const uint16_t* x0;
    const uint16_t* z0;
    const uint16_t* lastColumn;
    const uint16_t* lastRow;
    const uint16_t* lowCode;
    const uint16_t* highCode;
};

Boxes boxesFrom(const OcclusionBuffers& b, uint32_t u) {
    return {b.boxX0.data() + u,      b.boxZ0.data() + u,   b.boxLastColumn.data() + u,
            b.boxLastRow.data() + u, b.lowCode.data() + u, b.highCode.data() + u};
}

// A unit's world footprint and height range, from its gathered box.
struct Footprint {
    float x0, z0, x1, z1;
    float low, high;
};

inline Footprint footprint(const View& v, const Boxes& b, int j) {
    const float y0 = v.height.worldHeight(float(int32_t(b.lowCode[j])));
    const float y1 = v.height.worldHeight(float(int32_t(b.highCode[j])));
    return {float(int32_t(b.x0[j])) * v.spacingX,
            float(int32_t(b.z0[j])) * v.spacingZ,
            float(int32_t(b.lastColumn[j]) + 1) * v.spacingX,
            float(int32_t(b.lastRow[j]) + 1) * v.spacingZ,
            std::min(y0, y1),  // a negative scale turns the range over
            std::max(y0, y1)};
}

// A world box's footprint and height range: an object's, as an occludee.
inline Footprint boxFootprint(const Box& b) {
    return {b.min.x, b.min.z, b.max.x, b.max.z, b.min.y, b.max.y};
}

// Squared least and greatest horizontal distance from the eye to a footprint.
inline float nearSquared(const View& v, const Footprint& f) {
    const float x = std::max(std::max(f.x0 - v.ex, v.ex - f.x1), 0.0f);
    const float z = std::max(std::max(f.z0 - v.ez, v.ez - f.z1), 0.0f);
    return x * x + z * z;
}

inline float farSquared(const View& v, const Footprint& f) {
    const float x = std::max(v.ex - f.x0, f.x1 - v.ex);
    const float z = std::max(v.ez - f.z0, f.z1 - v.ez);
    return x * x + z * z;
}

// Pass 1 for a chunk of n units: each one's key. A unit off the eye and not too near is keyed by
// the bucket of its squared near distance; kTestedBit marks an occludee, one that no ray steeper
// than allowed reaches: (low - ey) / hNear >= -steepestDown and (high - ey) / hNear <= 1 (the
// other cases have the safe sign), tested on squares.
// Footprints is a callable giving the j-th footprint: the terrain's gathered boxes, or objects'.
template <class Footprints>
void measureKeys(const View& v, const Footprints& footprintOf, int n, int32_t* key) {
    for (int j = 0; j < n; ++j) {
        const Footprint f = footprintOf(j);
        const float nearSq = nearSquared(v, f);
        const bool off = (v.ex < f.x0) | (v.ex > f.x1) | (v.ez < f.z0) | (v.ez > f.z1);
        const bool used = off & (nearSq >= v.nearestSquared);
        const float dLow = f.low - v.ey;
        const float dHigh = f.high - v.ey;
        const float down = v.steepestDown * v.steepestDown * nearSq;
        const float up = kMaxTestedSlope * kMaxTestedSlope * nearSq;
        const bool tested = used & ((dLow >= 0.0f) | (dLow * dLow <= down)) &
                            ((dHigh <= 0.0f) | (dHigh * dHigh <= up));
        const int32_t bucket = bucketOf(v, nearSq);  // computed in every lane: no branch
        key[j] = used ? (tested ? bucket | kTestedBit : bucket) : kNoKey;
    }
}

// An occluder's bins: those wholly inside its span [start, start + width] shrunk by the angle
// error, offset bins [first, end).
inline void occluderBins(float start, float width, int32_t& first, int32_t& end) {
    const float lo = horizon::binPosition(start + kAngleError);
    first = horizon::binFloor(lo) + int32_t(float(horizon::binFloor(lo)) < lo);
    end = horizon::binFloor(horizon::binPosition(start + width - kAngleError));
}

// The margins at a unit whose rays' slopes lie in [low, high] (the rasteriser's, at the top):
// what its span widens by (angle error included) and its highest slope rises by. At the steepest
// elevation e + delta, tan e = s: 1 / cos(e + delta) = sqrt(1 + s^2) / (cos delta - s sin delta),
// and its square for slopes. The clamp keeps units pass 1 left out (infinite slopes) finite.
struct Margins {
    float angle, slope;
};

inline Margins marginsAt(const View& v, float low, float high) {
    const float s = std::min(2.0f, std::max(std::fabs(low), std::fabs(high)));
    const float secant = std::sqrt(1.0f + s * s) / (v.cosDelta - s * v.sinDelta);
    return {v.delta * secant + kAngleError, v.delta * secant * secant};
}

// An occludee's bins: every offset bin that meets its span [start, start + width] widened by the
// angle margin.
inline void occludeeBins(float start, float width, float angleMargin, int32_t& first,
                         int32_t& count) {
    using horizon::binFloor;
    using horizon::binPosition;
    first = binFloor(binPosition(start - angleMargin));
    count = binFloor(binPosition(start + width + angleMargin)) - first + 1;
}

// One chunk's records in columns, before they are packed into their buckets. leastSlope: the
// least slope of a ray that may show a fragment of the unit, its margin included, rounded down.
struct Records {
    float hFar[kChunk];
    int32_t occluderFirst[kChunk], occluderCount[kChunk], occluderSlope[kChunk];
    int32_t occludeeFirst[kChunk], occludeeCount[kChunk], occludeeSlope[kChunk];
    int32_t leastSlope[kChunk];
};

// Pass 2 for a chunk of n units: each one's records (meaningless for units pass 1 left out);
// with kDives (View::holeDives) their far distances and least slopes too.
template <bool kDives, class Footprints>
void measureRecords(const View& v, const Footprints& footprintOf, int n, Records& r) {
    for (int j = 0; j < n; ++j) {
        const Footprint f = footprintOf(j);
        const float hNear = std::sqrt(nearSquared(v, f));
        const float hFar = std::sqrt(farSquared(v, f));
        const float dLow = f.low - v.ey;
        const float dHigh = f.high - v.ey;
        const float low = dLow / (dLow < 0.0f ? hNear : hFar);     // c_L, and the least slope
        const float high = dHigh / (dHigh > 0.0f ? hNear : hFar);  // s_N
        const Margins margins = marginsAt(v, low, high);
        const float angleMargin = margins.angle;
        const float slopeMargin = margins.slope;
        float start, width;
        footprintSpan(v.ex, v.ez, f.x0, f.z0, f.x1, f.z1, start, width);
        int32_t first, end;
        occluderBins(start, width, first, end);
        r.occluderFirst[j] = first;
        if constexpr (kDives) {
            r.hFar[j] = hFar;
        }
        r.occluderCount[j] = hFar < v.holeDistance ? std::max(end - first, 0) : 0;
        r.occluderSlope[j] = horizon::slopeDown(low);
        occludeeBins(start, width, angleMargin, r.occludeeFirst[j], r.occludeeCount[j]);
        r.occludeeSlope[j] = horizon::slopeUp(high + slopeMargin);
        if constexpr (kDives) {
            r.leastSlope[j] = horizon::slopeDown(low - slopeMargin);
        }
    }
}

// A sample box and code range as a footprint.
Footprint holeBoxFootprint(const View& v, const HoleBox& h) {
    const float y0 = v.height.worldHeight(float(int32_t(h.minCode)));
    const float y1 = v.height.worldHeight(float(int32_t(h.maxCode)));
    return {float(int32_t(h.x0)) * v.spacingX,
            float(int32_t(h.z0)) * v.spacingZ,
            float(int32_t(h.x1)) * v.spacingX,
            float(int32_t(h.z1)) * v.spacingZ,
            std::min(y0, y1),
            std::max(y0, y1)};
}

// A leaf's hole box (Quadtree::holeLeafBox) as a footprint; by level of detail with the leaf's
// range (argument 8).
Footprint holeFootprint(const Quadtree& tree, const View& v, uint32_t leaf) {
    HoleBox h = tree.holeLeafBox[tree.holeLeavesBefore[leaf]];
    if (v.lodSurface) {
        const QuadtreeNode& node = tree.nodes[tree.leafNodes[leaf]];
        h.minCode = node.minCode;
        h.maxCode = node.maxCode;
    }
    return holeBoxFootprint(v, h);
}

// A dive through footprint f: the bins and the least and highest slopes of the rays through it,
// with an occludee's margins (argument 7).
DiveRecord diveThrough(const View& v, const Footprint& f) {
    const float hNear = std::sqrt(nearSquared(v, f));
    const float hFar = std::sqrt(farSquared(v, f));
    const float dLow = f.low - v.ey;
    const float dHigh = f.high - v.ey;
    const float low = dLow / (dLow < 0.0f ? hNear : hFar);
    const float high = dHigh / (dHigh > 0.0f ? hNear : hFar);
    const Margins margins = marginsAt(v, low, high);
    float start, width;
    footprintSpan(v.ex, v.ez, f.x0, f.z0, f.x1, f.z1, start, width);
    int32_t first, count;
    occludeeBins(start, width, margins.angle, first, count);
    return {0, int16_t(horizon::slopeDown(low - margins.slope)),
            int16_t(horizon::slopeUp(high + margins.slope)), uint16_t(first), uint16_t(count)};
}

// The dive of a unit with a hole that pass 1 keyed: through its leaf's hole box.
DiveRecord diveOf(const Quadtree& tree, const View& v, uint32_t leaf) {
    return diveThrough(v, holeFootprint(tree, v, leaf));
}

// The highest surface height of the leaves that meet [x0, x1] x [z0, z1] (world), by a descent
// that takes nodes inside the square whole.
float highestWithin(const Quadtree& tree, const View& v, float x0, float z0, float x1, float z1) {
    const float c0 = x0 / v.spacingX, c1 = x1 / v.spacingX;
    const float r0 = z0 / v.spacingZ, r1 = z1 / v.spacingZ;
    float highest = -kInfinity;
    uint32_t stack[kStackSize];
    int top = 0;
    stack[top++] = tree.rootIndex();
    while (top > 0) {
        const QuadtreeNode& node = tree.nodes[stack[--top]];
        if (float(node.x1()) < c0 || float(node.x0) > c1 || float(node.z1()) < r0 ||
            float(node.z0) > r1) {
            continue;
        }
        const bool inside = float(node.x0) >= c0 && float(node.x1()) <= c1 &&
                            float(node.z0) >= r0 && float(node.z1()) <= r1;
        if (inside || node.isLeaf()) {
            highest = std::max({highest, v.height.worldHeight(float(node.minCode)),
                                v.height.worldHeight(float(node.maxCode))});
            continue;
        }
        for (int q = 0; q < 4; ++q) {
            if (node.hasChild(q)) {
                assert(top < kStackSize);
                stack[top++] = node.child(q);
            }
        }
    }
    return highest;
}

bool allFinite(std::initializer_list<float> values) {
    return std::all_of(values.begin(), values.end(), [](float x) { return std::isfinite(x); });
}

// The near plane's reach: twice the distance from the eye to its corners, the farthest its
// clipped points get from the eye.
float nearReach(const Camera& camera) {
    const double tanHalf = std::tan(0.5 * double(camera.fovY));
    const double tanWidest = tanHalf * std::sqrt(1.0 + double(camera.aspect) * camera.aspect);
    return float(2.0 * double(camera.nearPlane) * std::sqrt(1.0 + tanWidest * tanWidest));
}

// The camera and mapping are finite and well-formed.
bool validView(const Camera& camera, const WorldMapping& mapping, const HeightTransform& height) {
    const glm::vec3& eye = camera.position;
    return allFinite({eye.x, eye.y, eye.z, camera.fovY, camera.aspect, camera.nearPlane,
                      camera.farPlane, mapping.spacingX, mapping.spacingZ, height.scale,
                      height.bias}) &&
           mapping.spacingX > 0.0f && mapping.spacingZ > 0.0f && camera.nearPlane > 0.0f &&
           camera.farPlane > camera.nearPlane && camera.fovY > 0.0f && camera.fovY < kPi &&
           camera.aspect > 0.0f;
}

// The eye, spacing, map size and height transform into v; false unless the camera and mapping
// are valid and the eye is strictly inside the map's footprint (argument 1 at the top).
bool viewOverMap(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera, View& v) {
    v.height = heightTransform(tree.coding, mapping);
    v.spacingX = mapping.spacingX;
    v.spacingZ = mapping.spacingZ;
    v.ex = camera.position.x;
    v.ey = camera.position.y;
    v.ez = camera.position.z;
    if (tree.nodes.empty() || !validView(camera, mapping, v.height)) {
        return false;
    }
    const Box root = nodeBox(tree, tree.root(), mapping);  // the map's footprint
    v.sizeX = root.max.x;
    v.sizeZ = root.max.z;
    return v.ex > 0.0f && v.ex < v.sizeX && v.ez > 0.0f && v.ez < v.sizeZ;
}

// (ey - H) / d, d the near plane's reach and H the highest leaf that meets the square of
// half-side d around the eye: rays that may meet the surface within d of the eye have slopes at
// most minus this.
double nearClearance(const Quadtree& tree, const View& v, const Camera& camera) {
    const float d = nearReach(camera);
    const float highest = highestWithin(tree, v, v.ex - d, v.ez - d, v.ex + d, v.ez + d);
    return (double(v.ey) - double(highest)) / double(d);
}

// View::holeDistance: the least horizontal distance from the eye to a leaf that holds a square
// with a nodata corner, shrunk by a millionth against rounding; infinity without holes. A
// descent that skips subtrees without holes and boxes no nearer than the best so far.
float nearestHoleDistance(const Quadtree& tree, const View& v) {
    if (!tree.hasHoles()) {
        return kInfinity;
    }
    float best = kInfinity;
    uint32_t stack[kStackSize];
    int top = 0;
    stack[top++] = tree.rootIndex();
    while (top > 0) {
        const QuadtreeNode& node = tree.nodes[stack[--top]];
        if (!tree.holesIn(tree.firstLeaf(node), tree.leafCount(node))) {
            continue;
        }
        const float dx = std::max(
            {float(node.x0) * v.spacingX - v.ex, 0.0f, v.ex - float(node.x1()) * v.spacingX});
        const float dz = std::max(
            {float(node.z0) * v.spacingZ - v.ez, 0.0f, v.ez - float(node.z1()) * v.spacingZ});
        const float d = std::sqrt(dx * dx + dz * dz) * (1.0f - 1e-6f);
        if (d >= best) {
            continue;
        }
        if (node.isLeaf()) {
            best = d;
            continue;
        }
        for (int q = 0; q < 4; ++q) {
            if (node.hasChild(q)) {
                assert(top < kStackSize);
                stack[top++] = node.child(q);
            }
        }
    }
    return best;
}

// The per-call constants, or false when the view allows no proof.
bool prepareView(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                 int viewportHeight, View& v) {
    if (viewportHeight <= 0 || !viewOverMap(tree, mapping, camera, v)) {
        return false;
    }
    // Depth: the relative gap that is kOcclusionDepthQuanta 24-bit quanta at the far plane.
    const double g = double(kOcclusionDepthQuanta) / 16777216.0 * double(camera.farPlane) /
                     double(camera.nearPlane);
    if (!(g < 0.5)) {
        return false;
    }
    // Grazing rays: r / c, r the GPU's rounding of a vertex and c the eye's clearance above the
    // ground near it (argument at the top).
    const double clipSlope = nearClearance(tree, v, camera);
    const double clearance = clipSlope * double(nearReach(camera));
    const WorldExtent map{v.sizeX, v.sizeZ, v.height.worldHeight(float(tree.root().minCode)),
                          v.height.worldHeight(float(tree.root().maxCode))};
    const double largest = largestCoordinate({v.ex, v.ey, v.ez}, map);
    const double rounding = kCoordinateHalfUlps * largest / 16777216.0;
    v.rounding = float(rounding);
    const double grazing = clearance > 0.0 ? kGrazingShare * rounding / clearance : 1.0;
    if (!(grazing < 0.5)) {
        return false;
    }
    // Holes: beyond the near plane's reach a pixel's ray meets a hole only inside the frustum, in
    // a candidate leaf, whose azimuths bound the rays it lets through (holeBins); nearer, any
    // direction may, and only units nearer than every hole occlude.
    v.holeDistance = nearestHoleDistance(tree, v);
    v.nearestHole = v.holeDistance;
    v.holeDives = v.holeDistance < kInfinity && v.holeDistance > nearReach(camera);
    if (v.holeDives) {
        v.holeDistance = kInfinity;
    }
    const double onePlusEps = 1.0 + std::max({double(kOcclusionMinGap), g / (1.0 - g), grazing});
    v.onePlusEpsSquared = onePlusEps * onePlusEps;
    // Margins: kOcclusionMarginPixels of the widest pixel.
    const double tanHalf = std::tan(0.5 * double(camera.fovY));
    const double delta = double(kOcclusionMarginPixels) * 2.0 * tanHalf / double(viewportHeight);
    if (!(delta <= kMaxMarginAngle)) {
        return false;
    }
    v.delta = float(delta);
    v.cosDelta = float(std::cos(delta));
    v.sinDelta = float(std::sin(delta) * (1.0 + 1e-6));  // rounded up: the margins only grow
    // Rounding of world coordinates, against the margin.
    const double nearest = kNearestFactor * rounding / delta;
    v.nearestSquared = float(nearest * nearest);
    // Units: leaves, and far parents.
    // The diagonal of a leaf's footprint, rounded up; its longer side sets the quads' distance.
    const float leafSide = float(tree.leafSize) * std::max(v.spacingX, v.spacingZ);
    v.leafDiagonal = float(double(tree.leafSize) *
                           std::hypot(double(v.spacingX), double(v.spacingZ)) * (1.0 + 1e-4));
    v.quadDiagonal = 2.0f * v.leafDiagonal;
    const double quad = kOcclusionQuadDistance * double(leafSide) / delta;
    v.quadSquared = float(quad * quad);
    // The near plane: rays that may meet the surface within d of the eye have slopes at most
    // (highest - ey) / d. Occludees' rays, less the slope margin at slope 1 (the most a tested
    // unit has), must be shallower: rounded toward fewer tests.
    const double slopeMargin = 2.0 * delta / std::pow(std::cos(delta) - std::sin(delta), 2.0);
    const double steepestDown =
        std::min(double(kMaxTestedSlope), clipSlope - slopeMargin * (1.0 + 1e-3) - 1e-4);
    if (!(steepestDown > 0.0)) {
        return false;
    }
    v.steepestDown = float(steepestDown);
    // Buckets from one leaf's side to the farthest corner of the map, squared.
    const float farX = std::max(v.ex, v.sizeX - v.ex);
    const float farZ = std::max(v.ez, v.sizeZ - v.ez);
    v.bucketBase = floatBits(leafSide * leafSide);
    const int32_t span = floatBits(std::max(farX * farX + farZ * farZ, leafSide * leafSide));
    v.bucketCount = std::min(((span - v.bucketBase) >> kBucketShift) + 2, kMaxBuckets);
    return true;
}

// Pass 1: each unit's box gathered into the columns and its key; the bucket sizes, turned into
// start offsets. Returns the number of units.
template <bool kHoles>
uint32_t countBuckets(const Quadtree& tree, const View& v, const std::vector<LeafRange>& candidates,
                      OcclusionBuffers& buffers) {
    uint32_t* start = buffers.bucketStart.data();
    std::fill(start, start + v.bucketCount + 1, 0u);
    UnitCursor<kHoles> cursor(tree, v, candidates);
    int32_t key[kChunk];
    uint32_t u = 0;
    for (int n = cursor.next(buffers, u); n > 0; u += uint32_t(n), n = cursor.next(buffers, u)) {
        const Boxes boxes = boxesFrom(buffers, u);
        measureKeys(
            v, [&](int j) { return footprint(v, boxes, j); }, n, key);
        for (int j = 0; j < n; ++j) {
            buffers.keys[u + uint32_t(j)] = uint16_t(key[j]);
            if (key[j] != kNoKey) {
                ++start[(key[j] & kBucketMask) + 1];
            }
        }
    }
    for (int k = 0; k < v.bucketCount; ++k) {
        start[k + 1] += start[k];
    }
    return u;
}

// The least of holeNear over `count` bins from the offset bin `first`.
float nearestHoleIn(const float* holeNear, int32_t first, int32_t count) {
    float nearest = kInfinity;
    for (int32_t k = 0; k < std::min(count, int32_t(horizon::kBins)); ++k) {
        nearest = std::min(nearest, holeNear[horizon::unwrap(first + k)]);
    }
    return nearest;
}

// View::holeDives: for every unit with a hole, the near distance of its leaf's hole box into each
// bin the box's span meets (widened by the angle error), the least per bin. A ray that passes
// below the surface through a hole does so over a square with a nodata corner, in a bin the
// square spans, at least that far from the eye. Units pass 1 left out, too near for their hole
// boxes' angles to be trusted, give their leaves' boxes.
void fillHoleNear(const Quadtree& tree, const View& v, uint32_t unitCount, const DrawnHoles& drawn,
                  OcclusionBuffers& buffers) {
    float* holeNear = buffers.holeNear.data();
    std::fill(holeNear, holeNear + horizon::kBins, kInfinity);
    const auto add = [&](const Footprint& f) {
        const bool on = v.ex >= f.x0 && v.ex <= f.x1 && v.ez >= f.z0 && v.ez <= f.z1;
        if (on) {  // a coarse node under the eye: its holes are at least View::nearestHole away
            std::for_each(holeNear, holeNear + horizon::kBins,
                          [&](float& near) { near = std::min(near, v.nearestHole); });
            return;
        }
        const float hNear = std::sqrt(nearSquared(v, f)) * (1.0f - 1e-6f);
        float start, width;
        footprintSpan(v.ex, v.ez, f.x0, f.z0, f.x1, f.z1, start, width);
        const int32_t first = horizon::binFloor(horizon::binPosition(start - horizon::kAngleError));
        const int32_t last =
            horizon::binFloor(horizon::binPosition(start + width + horizon::kAngleError));
        for (int32_t b = first; b <= last && b - first < horizon::kBins; ++b) {
            float& near = holeNear[horizon::unwrap(b)];
            near = std::min(near, hNear);
        }
    };
    for (uint32_t u = 0; u < unitCount; ++u) {
        if (buffers.unitPosition[u] & kHolePosition) {
            add(buffers.keys[u] == kNoKey ? footprint(v, boxesFrom(buffers, u), 0)
                                          : holeFootprint(tree, v, buffers.unitLeaf[u]));
        }
    }
    for (uint32_t i = 0; i < drawn.coarseCount; ++i) {
        add(holeBoxFootprint(v, drawn.coarse[i]));
    }
}

// The highest slope of a ray through the box of a unit with a hole, the box grown by the
// rounding on every side, rounded up; the top of the range when the eye may be inside it.
int32_t nearDive(const View& v, const Footprint& f) {
    const Footprint grown{
        f.x0 - v.rounding,  f.z0 - v.rounding, f.x1 + v.rounding, f.z1 + v.rounding, f.low,
        f.high + v.rounding};
    const float hNear = std::sqrt(nearSquared(v, grown));
    const float dHigh = grown.high - v.ey;
    if (!(hNear > 0.0f)) {
        return std::numeric_limits<int16_t>::max();
    }
    return horizon::slopeUp(dHigh / (dHigh > 0.0f ? hNear : std::sqrt(farSquared(v, grown))));
}

// A box with a hole too near for its angles to be trusted dives in every bin, at every slope up
// to nearDive's.
void diveEverywhere(const View& v, const Footprint& f, OcclusionBuffers& buffers) {
    const Levels levels = levelMask(v, horizon::kNoSlope, nearDive(v, f));
    for (Levels& bin : buffers.dive) {
        bin |= levels;
    }
}

// Argument 8: the coarse drawn nodes' boxes with holes as dives, counting-sorted into the buckets
// of their near distances (coarseBucketStart advances as placeRecords' starts do); one under the
// eye or too near for its angles to be trusted dives in every bin at once, as nearDive's units do.
void placeCoarseDives(const View& v, const DrawnHoles& drawn, OcclusionBuffers& buffers) {
    uint32_t* start = buffers.coarseBucketStart.data();
    std::fill(start, start + v.bucketCount + 1, 0u);
    const auto keyOf = [&](const Footprint& f) {
        const bool off = (v.ex < f.x0) | (v.ex > f.x1) | (v.ez < f.z0) | (v.ez > f.z1);
        const float nearSq = nearSquared(v, f);
        return off && nearSq >= v.nearestSquared ? bucketOf(v, nearSq) : kNoKey;
    };
    for (uint32_t i = 0; i < drawn.coarseCount; ++i) {
        const Footprint f = holeBoxFootprint(v, drawn.coarse[i]);
        const int32_t key = keyOf(f);
        if (key == kNoKey) {
            diveEverywhere(v, f, buffers);
            continue;
        }
        ++start[key + 1];
    }
    for (int k = 0; k < v.bucketCount; ++k) {
        start[k + 1] += start[k];
    }
    for (uint32_t i = 0; i < drawn.coarseCount; ++i) {
        const Footprint f = holeBoxFootprint(v, drawn.coarse[i]);
        const int32_t key = keyOf(f);
        if (key != kNoKey) {
            buffers.coarseDives[start[key]++] = diveThrough(v, f);
        }
    }
}

// View::holeDives: a leaf with a hole occludes with its largest rectangle of squares without a
// nodata corner (Quadtree::holeLeafSolid), a leaf without holes of its own (arguments 2 and 7:
// the surface over that rectangle is drawn and no lower than the leaf's lowest height).
void solidOccluder(const Quadtree& tree, const View& v, const Footprint& leaf, uint32_t leafIndex,
                   Records& r, int j) {
    const SolidBox box = tree.holeLeafSolid[tree.holeLeavesBefore[leafIndex]];
    if (box.x0 == box.x1) {
        return;
    }
    const Footprint f{float(box.x0) * v.spacingX,
                      float(box.z0) * v.spacingZ,
                      float(box.x1) * v.spacingX,
                      float(box.z1) * v.spacingZ,
                      leaf.low,
                      leaf.high};
    const float hNear = std::sqrt(nearSquared(v, f));
    if (!(hNear > 0.0f)) {
        return;
    }
    const float dLow = f.low - v.ey;
    const float low = dLow / (dLow < 0.0f ? hNear : std::sqrt(farSquared(v, f)));
    float start, width;
    footprintSpan(v.ex, v.ez, f.x0, f.z0, f.x1, f.z1, start, width);
    int32_t first, end;
    occluderBins(start, width, first, end);
    r.occluderFirst[j] = first;
    r.occluderCount[j] = std::max(end - first, 0);
    r.occluderSlope[j] = horizon::slopeDown(low);
}

// Pass 2: each unit's record, placed in its bucket. The start offsets advance to the ends of
// their buckets: bucket k is [start[k - 1], start[k]) afterwards, bucket 0 from 0.
// With View::holeDives a unit with a hole occludes only with its largest solid rectangle
// (solidOccluder), one wholly nearer than every hole in its bins is flagged kNearPosition, and
// each record has its DiveRecord beside it: the unit's least slope, which the sweep holds against
// the dives, and a hole's dive (diveOf). A unit with a hole that pass 1 left out, too near for its
// azimuths to be trusted, dives in every bin, at its highest slope from its box grown by the
// rounding (nearDive).
template <bool kDives>
void placeRecords(const Quadtree& tree, const View& v, uint32_t unitCount,
                  OcclusionBuffers& buffers) {
    uint32_t* next = buffers.bucketStart.data();
    Records records;
    for (uint32_t u = 0; u < unitCount; u += kChunk) {
        const int n = int(std::min<uint32_t>(kChunk, unitCount - u));
        const Boxes boxes = boxesFrom(buffers, u);
        measureRecords<kDives>(
            v, [&](int j) { return footprint(v, boxes, j); }, n, records);
        for (int j = 0; j < n; ++j) {
            const int32_t key = buffers.keys[u + uint32_t(j)];
            uint32_t position = buffers.unitPosition[u + uint32_t(j)];
            if (kDives && (position & kHolePosition)) {
                if (key == kNoKey) {
                    diveEverywhere(v, footprint(v, boxes, j), buffers);
                }
                records.occluderCount[j] = 0;
                if (key != kNoKey) {
                    solidOccluder(tree, v, footprint(v, boxes, j),
                                  buffers.unitLeaf[u + uint32_t(j)], records, j);
                }
            } else if (kDives && records.occluderCount[j] > 0 &&
                       records.hFar[j] < nearestHoleIn(buffers.holeNear.data(),
                                                       records.occluderFirst[j],
                                                       records.occluderCount[j])) {
                position |= kNearPosition;
            }
            if (key == kNoKey) {
                continue;
            }
            if (kDives) {
                DiveRecord& d = buffers.dives[next[key & kBucketMask]];
                d = (position & kHolePosition) ? diveOf(tree, v, buffers.unitLeaf[u + uint32_t(j)])
                                               : DiveRecord{0, 0, 0, 0, 0};
                d.leastSlope = int16_t(records.leastSlope[j]);
            }
            buffers.records[next[key & kBucketMask]++] = {
                uint16_t(records.occluderFirst[j]),
                uint16_t(records.occluderCount[j]),
                uint16_t(records.occludeeFirst[j]),
                uint16_t(records.occludeeCount[j]),
                int16_t(records.occluderSlope[j]),
                int16_t(records.occludeeSlope[j]),
                position | ((key & kTestedBit) ? kTestedPosition : 0u)};
        }
    }
}

// The boxes' records, counting-sorted into the same buckets as the units'. Boxes are occludees
// only (they never raise the horizon), so only those that pass 1 marks tested get a record, its
// position the box's index and its occluder slope its least slope (for the dives).
// boxBucketStart advances as placeRecords' starts do.
template <bool kDives>
void placeBoxRecords(const View& v, const BoxOccludees& boxes, OcclusionBuffers& buffers) {
    uint32_t* start = buffers.boxBucketStart.data();
    std::fill(start, start + v.bucketCount + 1, 0u);
    std::fill(buffers.boxOccluded.begin(), buffers.boxOccluded.begin() + boxes.count, 0);
    int32_t* keys = buffers.boxKeys.data();
    for (uint32_t u = 0; u < boxes.count; u += kChunk) {
        const int n = int(std::min<uint32_t>(kChunk, boxes.count - u));
        measureKeys(
            v, [&](int j) { return boxFootprint(boxes.boxes[u + uint32_t(j)]); }, n, keys + u);
        for (int j = 0; j < n; ++j) {
            const int32_t key = keys[u + uint32_t(j)];
            if (key != kNoKey && (key & kTestedBit)) {
                ++start[(key & kBucketMask) + 1];
            }
        }
    }
    for (int k = 0; k < v.bucketCount; ++k) {
        start[k + 1] += start[k];
    }
    Records records;
    for (uint32_t u = 0; u < boxes.count; u += kChunk) {
        const int n = int(std::min<uint32_t>(kChunk, boxes.count - u));
        measureRecords<kDives>(
            v, [&](int j) { return boxFootprint(boxes.boxes[u + uint32_t(j)]); }, n, records);
        for (int j = 0; j < n; ++j) {
            const int32_t key = keys[u + uint32_t(j)];
            if (key == kNoKey || !(key & kTestedBit)) {
                continue;
            }
            buffers.boxRecords[start[key & kBucketMask]++] = {
                0,
                0,
                uint16_t(records.occludeeFirst[j]),
                uint16_t(records.occludeeCount[j]),
                int16_t(kDives ? records.leastSlope[j] : 0),
                int16_t(records.occludeeSlope[j]),
                u + uint32_t(j)};
        }
    }
}

// View::holeDives: the dives of a bucket's units with holes (DiveRecord: the bins and slopes of
// the rays through their hole boxes) join OcclusionBuffers::dive, in each bin at the slopes from
// the second horizon's up: a ray of that bin with a lower slope that reaches them has passed
// below the surface before (argument 7). One dive; records [from, end) and their dives.
void addDive(const View& v, const DiveRecord& d, const int16_t* solid, Levels* dive) {
    const int count = std::min(int(d.count), horizon::kBins);
    for (int i = 0; i < count; ++i) {
        const int b = horizon::unwrap(d.first + i);
        if (!(d.high < solid[b])) {
            dive[b] |= levelMask(v, std::max<int32_t>(d.low, solid[b]), d.high);
        }
    }
}

void addDives(const View& v, const OcclusionRecord* records, const DiveRecord* dives, uint32_t from,
              uint32_t end, const int16_t* solid, Levels* dive) {
    for (uint32_t k = from; k < end; ++k) {
        if (records[k].position & kHolePosition) {
            addDive(v, dives[k], solid, dive);
        }
    }
}

// Whether a dive in the `count` bins from offset bin `first` may hold a ray of the slope levels
// `levels`.
inline bool divesMeet(const Levels* dive, int32_t first, int32_t count, const Levels& levels) {
    Levels met;
    for (int32_t i = 0; i < std::min(count, int32_t(horizon::kBins)); ++i) {
        met |= dive[horizon::unwrap(first + i)];
    }
    return met.meets(levels);
}

// Whether an occludee's record is hidden: below the horizon in all its bins; or with
// View::holeDives below the second horizon, and no dive in its bins meeting its slopes, from its
// least slope to its highest.
template <bool kDives>
inline bool hiddenBy(const View& v, const int16_t* bins, const int16_t* solid, const Levels* dive,
                     const OcclusionRecord& r, int16_t leastSlope) {
    return horizon::above(bins, r.occludeeFirst, r.occludeeCount, r.occludeeSlope) ||
           (kDives && horizon::above(solid, r.occludeeFirst, r.occludeeCount, r.occludeeSlope) &&
            !divesMeet(dive, r.occludeeFirst, r.occludeeCount,
                       levelMask(v, leastSlope, r.occludeeSlope)));
}

// Pass 3: buckets near to far, each tested against the buckets far enough before it: its units,
// then its boxes. With View::holeDives the dives of every bucket up to k first (argument 7).
template <bool kDives>
void sweep(const View& v, uint32_t candidateCount, uint32_t boxCount, OcclusionBuffers& buffers,
           OcclusionStats& stats) {
    int16_t* bins = buffers.horizon.data();
    int16_t* solid = buffers.solidHorizon.data();
    Levels* dive = buffers.dive.data();
    std::fill(bins, bins + horizon::kStorage, horizon::kNoSlope);
    if (kDives) {
        std::fill(solid, solid + horizon::kStorage, horizon::kNoSlope);
    }
    std::fill(buffers.occluded.begin(), buffers.occluded.begin() + candidateCount, 0);
    const OcclusionRecord* records = buffers.records.data();
    const uint32_t* end = buffers.bucketStart.data();  // bucket k ends at end[k]
    int32_t joined = 0;                                // buckets [0, joined) are in the horizon
    bool raised = false;
    for (int32_t k = 0; k < v.bucketCount; ++k) {
        const double lower = double(lowerEdge(v, k));
        const int32_t before = joined;
        while (joined < k && farthestSquared(v, joined) * v.onePlusEpsSquared <= lower) {
            for (uint32_t i = joined == 0 ? 0 : end[joined - 1]; i < end[joined]; ++i) {
                const OcclusionRecord& r = records[i];
                if (r.occluderCount == 0) {
                    continue;
                }
                if (!kDives || (r.position & kNearPosition)) {
                    horizon::raise(bins, r.occluderFirst, r.occluderCount, r.occluderSlope);
                }
                if (kDives) {
                    horizon::raise(solid, r.occluderFirst, r.occluderCount, r.occluderSlope);
                }
            }
            ++joined;
        }
        if (joined != before) {
            raised = true;
            horizon::mergeMirror(bins);
            if (kDives) {
                horizon::mergeMirror(solid);
            }
        }
        const uint32_t from = k == 0 ? 0 : end[k - 1];
        if (kDives) {
            addDives(v, records, buffers.dives.data(), from, end[k], solid, dive);
            const uint32_t* coarseEnd = buffers.coarseBucketStart.data();
            for (uint32_t i = k == 0 ? 0 : coarseEnd[k - 1]; i < coarseEnd[k]; ++i) {
                addDive(v, buffers.coarseDives[i], solid, dive);
            }
        }
        if (!raised) {
            continue;
        }
        for (uint32_t i = from; i < end[k]; ++i) {
            const OcclusionRecord& r = records[i];
            if (r.position & kTestedPosition) {
                const bool hidden = hiddenBy<kDives>(v, bins, solid, dive, r,
                                                     kDives ? buffers.dives[i].leastSlope : 0);
                const uint32_t leaves = (r.position & kQuadPosition) ? 4 : 1;
                std::fill_n(&buffers.occluded[r.position & kPositionMask], leaves, uint8_t(hidden));
                ++stats.unitsTested;
                stats.leavesTested += leaves;
                stats.leavesOccluded += hidden ? leaves : 0;
            }
        }
        if (boxCount == 0) {
            continue;
        }
        const uint32_t* boxEnd = buffers.boxBucketStart.data();
        for (uint32_t i = k == 0 ? 0 : boxEnd[k - 1]; i < boxEnd[k]; ++i) {
            const OcclusionRecord& r = buffers.boxRecords[i];
            const bool hidden = hiddenBy<kDives>(v, bins, solid, dive, r, r.occluderSlope);
            buffers.boxOccluded[r.position] = uint8_t(hidden);
            ++stats.boxesTested;
            stats.boxesOccluded += hidden ? 1 : 0;
        }
    }
}

// Bytes equal to `value` (0 or 1) at the start of [p, p + n), eight at a time while it lasts.
uint32_t runOf(const uint8_t* p, uint32_t n, uint8_t value) {
    const uint64_t all = value * 0x0101010101010101u;
    uint32_t k = 0;
    for (uint64_t word; k + 8 <= n; k += 8) {
        std::memcpy(&word, p + k, sizeof word);
        if (word != all) {
            break;
        }
    }
    while (k < n && p[k] == value) {
        ++k;
    }
    return k;
}

// The candidates whose flag is 0 (all of them without flags), as sorted maximal runs.
void keep(const std::vector<LeafRange>& candidates, const uint8_t* occluded,
          std::vector<LeafRange>& kept) {
    kept.clear();
    for (const LeafRange& r : candidates) {
        for (uint32_t done = 0; done < r.count;) {
            const uint32_t visible =
                occluded ? runOf(occluded + done, r.count - done, 0) : r.count - done;
            if (visible > 0) {
                appendLeafRange(kept, r.first + done, visible);
                done += visible;
            }
            if (occluded) {
                done += runOf(occluded + done, r.count - done, 1);
            }
        }
        if (occluded) {
            occluded += r.count;
        }
    }
}

}  // namespace

// Capacity for every leaf, but sizes only as large as the most candidates seen so far: pages
// beyond them are never touched, so a view of a corner of a big map keeps a corner's memory.
void OcclusionBuffers::reserveFor(const Quadtree& tree) {
    const size_t leaves = tree.leaves.size();
    horizon.assign(horizon::kStorage, 0);
    holeNear.assign(tree.hasHoles() ? horizon::kBins : 0, kInfinity);
    solidHorizon.assign(tree.hasHoles() ? horizon::kStorage : 0, horizon::kNoSlope);
    dive.assign(tree.hasHoles() ? horizon::kBins : 0, Levels());
    bucketStart.assign(kMaxBuckets + 1, 0);
    for (auto* v : {&boxX0, &boxZ0, &boxLastColumn, &boxLastRow, &lowCode, &highCode, &keys}) {
        v->clear();
        v->reserve(leaves);
    }
    unitPosition.clear();
    unitPosition.reserve(leaves);
    unitLeaf.clear();
    unitLeaf.reserve(tree.hasHoles() ? leaves : 0);
    records.clear();
    records.reserve(leaves);
    dives.clear();
    dives.reserve(tree.hasHoles() ? leaves : 0);
    coarseBucketStart.assign(tree.hasHoles() ? kMaxBuckets + 1 : 0, 0);
    slopeLevels.assign(tree.hasHoles() ? kLevelSpans : 0, 0);
    coarseDives.clear();
    coarseDives.reserve(tree.hasHoles() ? tree.nodes.size() : 0);
    occluded.clear();
    occluded.reserve(leaves);
}

void OcclusionBuffers::reserveBoxes(size_t count) {
    boxBucketStart.assign(kMaxBuckets + 1, 0);
    boxKeys.clear();
    boxKeys.reserve(count);
    boxRecords.clear();
    boxRecords.reserve(count);
    boxOccluded.clear();
    boxOccluded.reserve(count);
}

void OcclusionBuffers::growBoxesTo(size_t count) {
    if (boxOccluded.size() >= count) {
        return;
    }
    assert(boxOccluded.capacity() >= count);  // reserveBoxes: growing never reallocates
    boxKeys.resize(count);
    boxRecords.resize(count);
    boxOccluded.resize(count);
}

void OcclusionBuffers::growTo(size_t candidates) {
    if (occluded.size() >= candidates) {
        return;
    }
    assert(occluded.capacity() >= candidates);  // reserveFor: growing never reallocates
    for (auto* v : {&boxX0, &boxZ0, &boxLastColumn, &boxLastRow, &lowCode, &highCode, &keys}) {
        v->resize(candidates);
    }
    unitPosition.resize(candidates);
    if (unitLeaf.capacity() > 0) {
        unitLeaf.resize(candidates);
    }
    records.resize(candidates);
    if (dives.capacity() > 0) {
        dives.resize(candidates);
    }
    occluded.resize(candidates);
}

void cullOccluded(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                  int viewportHeight, const std::vector<LeafRange>& candidates,
                  OcclusionBuffers& buffers, std::vector<LeafRange>& kept, OcclusionStats& stats,
                  const BoxOccludees& boxes, const DrawnHoles& drawn) {
    stats = {};
    buffers.growBoxesTo(boxes.count);
    std::fill(buffers.boxOccluded.begin(), buffers.boxOccluded.begin() + boxes.count, 0);
    View v;
    if (!prepareView(tree, mapping, camera, viewportHeight, v)) {
        keep(candidates, nullptr, kept);
        return;
    }
    v.lodSurface = drawn.lod;
    v.levels = buffers.slopeLevels.data();
    if (v.holeDives) {
        fillSlopeLevels(camera, buffers.slopeLevels.data());
    }
    stats.active = true;
    uint32_t candidateCount = 0;
    for (const LeafRange& r : candidates) {
        candidateCount += r.count;
    }
    buffers.growTo(candidateCount);
    const uint32_t unitCount = tree.hasHoles() ? countBuckets<true>(tree, v, candidates, buffers)
                                               : countBuckets<false>(tree, v, candidates, buffers);
    assert(candidateCount <= kPositionMask);
    if (v.holeDives) {
        fillHoleNear(tree, v, unitCount, drawn, buffers);
        std::fill(buffers.dive.begin(), buffers.dive.end(), Levels());
        assert(drawn.coarseCount <= buffers.coarseDives.capacity());
        if (buffers.coarseDives.size() < drawn.coarseCount) {
            buffers.coarseDives.resize(drawn.coarseCount);  // within reserveFor's: written as used
        }
        placeCoarseDives(v, drawn, buffers);
        placeRecords<true>(tree, v, unitCount, buffers);
        if (boxes.count > 0) {
            placeBoxRecords<true>(v, boxes, buffers);
        }
        sweep<true>(v, candidateCount, boxes.count, buffers, stats);
    } else {
        placeRecords<false>(tree, v, unitCount, buffers);
        if (boxes.count > 0) {
            placeBoxRecords<false>(v, boxes, buffers);
        }
        sweep<false>(v, candidateCount, boxes.count, buffers, stats);
    }
    keep(candidates, buffers.occluded.data(), kept);
}

bool backFacesHidden(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera) {
    // Through a hole a ray can pass below the surface and meet it from below, on a back face.
    return !tree.hasHoles() && eyeClearOfNearTerrain(tree, mapping, camera);
}

bool drawsFrontFacesOnly(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera) {
    return eyeClearOfNearTerrain(tree, mapping, camera);
}

void appendDiveBoxes(const Quadtree& tree, uint32_t node, std::vector<HoleBox>& out) {
    const QuadtreeNode& n = tree.nodes[node];
    if (!tree.holesIn(tree.firstLeaf(n), tree.leafCount(n))) {
        return;
    }
    if (n.isLeaf()) {
        HoleBox box = tree.holeLeafBox[tree.holeLeavesBefore[tree.firstLeaf(n)]];
        box.minCode = n.minCode;
        box.maxCode = n.maxCode;
        out.push_back(box);
        return;
    }
    // A cell of twice the node's grid step is a child's box only for leaves of 4 squares or more.
    if (tree.leafSize < 4) {
        out.push_back({n.x0, n.z0, n.x1(), n.z1(), n.minCode, n.maxCode});
        return;
    }
    for (int q = 0; q < 4; ++q) {
        if (!n.hasChild(q)) {
            continue;
        }
        const QuadtreeNode& c = tree.nodes[n.child(q)];
        if (tree.holesIn(tree.firstLeaf(c), tree.leafCount(c))) {
            out.push_back({c.x0, c.z0, c.x1(), c.z1(), c.minCode, c.maxCode});
        }
    }
}

bool eyeClearOfNearTerrain(const Quadtree& tree, const WorldMapping& mapping,
                           const Camera& camera) {
    View v;
    return viewOverMap(tree, mapping, camera, v) && nearClearance(tree, v, camera) > 1.0;
}

}  // namespace qt
