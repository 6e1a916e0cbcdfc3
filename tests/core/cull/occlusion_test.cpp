// Occlusion culling never removes the leaf a ray from the eye first meets (a CPU ray cast through
// the exact mesh is the reference), removes most of what a ridge hides, and stands down when the
// view allows no proof.
#include "core/cull/occlusion.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>
#include <glm/trigonometric.hpp>

#include "core/cull/cull.h"
#include "core/cull/horizon.h"
#include "core/lod/lod.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/synthetic.h"
#include "test_files.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::makeScene;
using test::Random;
using test::Scene;

// Bumpy ground 0..4 with walls: one 30 high along x at rows [40, 48], a diagonal one 12 high
// beyond row 50 and a block 30 high; codes are integers, kept exactly.
Heightmap ridgeMap(int width, int height) {
    std::vector<float> samples(size_t(width) * size_t(height), 0.0f);
    for (int row = 0; row < height; ++row) {
        for (int col = 0; col < width; ++col) {
            const bool wall = row >= 40 && row <= 48;
            const bool diagonal = row > 50 && std::abs((col - row) - 30) <= 3;
            const bool block = col >= 90 && col <= 100 && row >= 80 && row <= 86;
            samples[size_t(row) * size_t(width) + size_t(col)] =
                wall || block ? 30.0f : (diagonal ? 12.0f : float((col * 7 + row * 3) % 5));
        }
    }
    return makeHeightmap(width, height, samples).value();
}

std::vector<LeafRange> allLeaves(const Quadtree& tree) {
    return {{0, uint32_t(tree.leaves.size())}};
}

std::vector<uint8_t> mask(const Quadtree& tree, const std::vector<LeafRange>& ranges) {
    std::vector<uint8_t> in(tree.leaves.size(), 0);
    for (const LeafRange& r : ranges) {
        std::fill(in.begin() + r.first, in.begin() + r.first + r.count, 1);
    }
    return in;
}

// kept: sorted maximal runs, every leaf a candidate.
void expectWellFormed(const Quadtree& tree, const std::vector<LeafRange>& candidates,
                      const std::vector<LeafRange>& kept) {
    const std::vector<uint8_t> in = mask(tree, candidates);
    for (size_t k = 0; k < kept.size(); ++k) {
        ASSERT_GT(kept[k].count, 0u);
        ASSERT_LE(kept[k].first + kept[k].count, tree.leaves.size());
        if (k > 0) {
            ASSERT_GT(kept[k].first, kept[k - 1].first + kept[k - 1].count) << "not maximal";
        }
        for (uint32_t i = kept[k].first; i < kept[k].first + kept[k].count; ++i) {
            ASSERT_TRUE(in[i]) << "leaf " << i << " kept but not a candidate";
        }
    }
}

uint32_t leafCount(const std::vector<LeafRange>& ranges) {
    uint32_t n = 0;
    for (const LeafRange& r : ranges) {
        n += r.count;
    }
    return n;
}

// Ray against triangle (Moeller-Trumbore) in double, with a hair of tolerance so that rays through
// shared edges hit one side or the other; returns t or infinity.
double hitTriangle(const glm::dvec3& o, const glm::dvec3& d, const glm::dvec3& a,
                   const glm::dvec3& b, const glm::dvec3& c) {
    constexpr double kTolerance = 1e-9;
    const glm::dvec3 e1 = b - a, e2 = c - a;
    const glm::dvec3 p = glm::cross(d, e2);
    const double det = glm::dot(e1, p);
    if (std::fabs(det) < 1e-300) {
        return std::numeric_limits<double>::infinity();
    }
    const glm::dvec3 s = o - a;
    const double u = glm::dot(s, p) / det;
    const glm::dvec3 q = glm::cross(s, e1);
    const double v = glm::dot(d, q) / det;
    const double t = glm::dot(e2, q) / det;
    if (u < -kTolerance || v < -kTolerance || u + v > 1.0 + kTolerance || t <= 0.0) {
        return std::numeric_limits<double>::infinity();
    }
    return t;
}

// The first triangle of the drawn mesh along the ray from o (inside the footprint) in direction
// d: marches the grid squares in order (Amanatides-Woo) and tests each square's two triangles,
// split along the diagonal appendLeafStrip draws: (c, r + 1)-(c + 1, r). Returns the tree-order
// leaf of that square and sets t (and, given, the upward normal of the triangle hit), or
// returns -1. With `frontOnly`, a triangle met from below (a back face) is passed through, as the
// renderer draws the terrain when drawsFrontFacesOnly() holds.
int firstHitLeaf(const Scene& s, const glm::dvec3& o, const glm::dvec3& d, double& t,
                 glm::dvec3* upNormal = nullptr, bool frontOnly = false) {
    const double spX = double(s.mapping.spacingX);
    const double spZ = double(s.mapping.spacingZ);
    const int cells[2] = {s.map.width - 1, s.map.height - 1};
    const double origin[2] = {o.x / spX, o.z / spZ};
    const double dir[2] = {d.x / spX, d.z / spZ};
    int cell[2], step[2];
    double tMax[2], tDelta[2];
    for (int a = 0; a < 2; ++a) {
        cell[a] = std::clamp(int(std::floor(origin[a])), 0, cells[a] - 1);
        step[a] = dir[a] > 0.0 ? 1 : -1;
        const double boundary = double(cell[a] + (dir[a] > 0.0 ? 1 : 0));
        tMax[a] = dir[a] != 0.0 ? (boundary - origin[a]) / dir[a]
                                : std::numeric_limits<double>::infinity();
        tDelta[a] =
            dir[a] != 0.0 ? 1.0 / std::fabs(dir[a]) : std::numeric_limits<double>::infinity();
    }
    for (;;) {
        const int c = cell[0], r = cell[1];
        if (s.map.nodata.holes() && s.map.nodata.holeSquare(c, r)) {  // nothing drawn there
            const int a = tMax[0] < tMax[1] ? 0 : 1;
            cell[a] += step[a];
            if (cell[a] < 0 || cell[a] >= cells[a]) {
                return -1;
            }
            tMax[a] += tDelta[a];
            continue;
        }
        auto vertex = [&](int col, int row) {
            return glm::dvec3(double(float(col) * s.mapping.spacingX), s.height(col, row),
                              double(float(row) * s.mapping.spacingZ));
        };
        const glm::dvec3 v00 = vertex(c, r), v01 = vertex(c, r + 1), v10 = vertex(c + 1, r),
                         v11 = vertex(c + 1, r + 1);
        const glm::dvec3 up0 = glm::cross(v01 - v00, v10 - v00);
        const glm::dvec3 up1 = glm::cross(v11 - v01, v10 - v01);
        const double inf = std::numeric_limits<double>::infinity();
        const double t0 =
            frontOnly && glm::dot(d, up0) > 0.0 ? inf : hitTriangle(o, d, v00, v01, v10);
        const double t1 =
            frontOnly && glm::dot(d, up1) > 0.0 ? inf : hitTriangle(o, d, v01, v10, v11);
        t = std::min(t0, t1);
        if (upNormal) {
            *upNormal = t0 <= t1 ? up0 : up1;
        }
        if (std::isfinite(t)) {
            return int(s.tree.leafIndexAt(c >> s.tree.leafShift, r >> s.tree.leafShift));
        }
        const int a = tMax[0] < tMax[1] ? 0 : 1;
        cell[a] += step[a];
        if (cell[a] < 0 || cell[a] >= cells[a]) {
            return -1;
        }
        tMax[a] += tDelta[a];
    }
}

// A camera over the footprint, from just above the ground (the highest sample within two leaves)
// to well above the highest peak. One in three has a near plane from a tenth to four times as far
// as the ground below: the near plane clips the first crossing of the steeper rays.
// Its eye over [fromX, toX] of the map's width, and 0.02 to 0.98 of its length.
Camera randomCamera(const Scene& s, Random& rng, float fromX = 0.02f, float toX = 0.98f) {
    float lo = s.mapping.worldHeight(s.map.minSample);
    float hi = s.mapping.worldHeight(s.map.maxSample);
    if (lo > hi) {
        std::swap(lo, hi);
    }
    const float relief = std::max(hi - lo, 1.0f);
    Camera c;
    const float x = rng.uniform(fromX, toX) * s.sizeX();
    const float z = rng.uniform(0.02f, 0.98f) * s.sizeZ();
    const int col = int(x / s.mapping.spacingX), row = int(z / s.mapping.spacingZ);
    const int reach = 2 * s.tree.leafSize;
    float ground = -std::numeric_limits<float>::infinity();
    for (int r = std::max(row - reach, 0); r <= std::min(row + reach, s.map.height - 1); ++r) {
        for (int q = std::max(col - reach, 0); q <= std::min(col + reach, s.map.width - 1); ++q) {
            ground = std::max(ground, float(s.height(q, r)));
        }
    }
    if (rng.uniform(0.0f, 1.0f) < 0.25f) {
        ground = hi;
    }
    c.position = {x, ground + relief * std::pow(10.0f, rng.uniform(-2.5f, -0.3f)), z};
    c.yaw = rng.uniform(-glm::pi<float>(), glm::pi<float>());
    c.pitch = glm::radians(rng.uniform(-50.0f, 20.0f));
    c.fovY = glm::radians(60.0f);
    c.aspect = 16.0f / 9.0f;
    c.nearPlane = 0.01f;
    if (rng.uniform(0.0f, 1.0f) < 1.0f / 3.0f) {
        c.nearPlane =
            std::max(0.01f, (c.position.y - ground) * std::pow(10.0f, rng.uniform(-1.0f, 0.6f)));
    }
    c.farPlane = 4.0f * std::max({s.sizeX(), s.sizeZ(), relief});
    return c;
}

constexpr int kPixelsX = 160;
constexpr int kPixelsY = 90;

// The ray through the centre of pixel (i, j), row 0 at the top.
glm::dvec3 pixelRay(const Camera& c, int i, int j) {
    const double tanHalf = std::tan(0.5 * double(c.fovY));
    const double x = (2.0 * (i + 0.5) / kPixelsX - 1.0) * tanHalf * double(c.aspect);
    const double y = (1.0 - 2.0 * (j + 0.5) / kPixelsY) * tanHalf;
    return glm::normalize(glm::dvec3(c.forward()) + x * glm::dvec3(c.right()) +
                          y * glm::dvec3(c.up()));
}

struct RayCastTotals {
    int cameras = 0;
    int active = 0;
    uint64_t occluded = 0;      // leaves removed, over every camera and viewport
    uint64_t leavesTested = 0;  // leaves tested, and the tests made: fewer when parents are units
    uint64_t unitsTested = 0;
    uint64_t hits = 0;         // pixels whose ray meets the terrain
    uint64_t clipped = 0;      // of those, the ones whose first hit is nearer than the near plane
    int oneSided = 0;          // cameras for which the terrain is drawn with one side
    uint64_t frontBeyond = 0;  // pixels whose first front face lies beyond a first back face
};

void printTotals(const char* what, const RayCastTotals& totals) {
    std::printf(
        "%s: %d of %d camera views active, %llu leaves removed, %llu tested in %llu units, %llu "
        "pixels hit, %llu first hits clipped; %d cameras drawn with one side, %llu pixels showing "
        "a front face beyond a back face\n",
        what, totals.active, 2 * totals.cameras, (unsigned long long)totals.occluded,
        (unsigned long long)totals.leavesTested, (unsigned long long)totals.unitsTested,
        (unsigned long long)totals.hits, (unsigned long long)totals.clipped, totals.oneSided,
        (unsigned long long)totals.frontBeyond);
}

// Occlusion of all leaves from camera c in a viewport of the given height: kept as a leaf mask.
std::vector<uint8_t> keptFromAll(const Scene& s, const Camera& c, int viewportHeight,
                                 OcclusionBuffers& buffers, RayCastTotals& totals) {
    std::vector<LeafRange> kept;
    OcclusionStats stats;
    const std::vector<LeafRange> all = allLeaves(s.tree);
    cullOccluded(s.tree, s.mapping, c, viewportHeight, all, buffers, kept, stats);
    expectWellFormed(s.tree, all, kept);
    EXPECT_EQ(leafCount(kept) + stats.leavesOccluded, s.tree.leaves.size());
    EXPECT_LE(stats.leavesOccluded, stats.leavesTested);
    EXPECT_LE(stats.unitsTested, stats.leavesTested);
    totals.active += stats.active;
    totals.occluded += stats.leavesOccluded;
    totals.leavesTested += stats.leavesTested;
    totals.unitsTested += stats.unitsTested;
    return mask(s.tree, kept);
}

// For one camera: the first-hit leaf of every pixel's ray and of random rays in every direction
// is kept from all leaves, for the viewport the pixels are (90 high) and for one 720 high, whose
// smaller margins remove more (the theorem holds for any ray, whatever the margins). What a pixel
// shows, its ray's first hit beyond the near plane (the mesh drawn from both sides), is kept
// from all leaves and, up to the far plane, from the frustum walk's leaves; so is its first hit
// on a triangle facing the eye where the renderer draws one side (drawsFrontFacesOnly: through a
// hole, the surface beyond its underside).
void checkCamera(const Scene& s, const Camera& c, Random& rng, RayCastTotals& totals,
                 const std::string& what) {
    OcclusionBuffers buffers;
    buffers.reserveFor(s.tree);
    ++totals.cameras;
    const std::vector<uint8_t> keptSmall = keptFromAll(s, c, kPixelsY, buffers, totals);
    const std::vector<uint8_t> keptLarge = keptFromAll(s, c, 720, buffers, totals);

    CullOutput walk;
    walk.reserveFor(s.tree);
    cullQuadtree(s.tree, s.mapping, Frustum::fromViewProjection(c.viewProjection()), walk);
    const std::vector<LeafRange> candidates = walk.ranges;
    std::vector<LeafRange> kept;
    OcclusionStats stats;
    cullOccluded(s.tree, s.mapping, c, kPixelsY, candidates, buffers, kept, stats);
    expectWellFormed(s.tree, candidates, kept);
    const std::vector<uint8_t> keptWalk = mask(s.tree, kept);

    const glm::dvec3 eye(c.position);
    const glm::dvec3 forward(c.forward());
    const bool oneSided = drawsFrontFacesOnly(s.tree, s.mapping, c);
    totals.oneSided += oneSided;
    auto check = [&](int leaf, const std::string& ray) {
        ASSERT_TRUE(keptSmall[size_t(leaf)]) << what << ": " << ray << " meets leaf " << leaf;
        ASSERT_TRUE(keptLarge[size_t(leaf)])
            << what << ": " << ray << " meets leaf " << leaf << " (720 pixels)";
    };
    for (int j = 0; j < kPixelsY; ++j) {
        for (int i = 0; i < kPixelsX; ++i) {
            const glm::dvec3 d = pixelRay(c, i, j);
            double t = 0.0;
            const int leaf = firstHitLeaf(s, eye, d, t);
            if (leaf < 0) {
                continue;
            }
            ++totals.hits;
            const std::string pixel = "pixel " + std::to_string(i) + "," + std::to_string(j);
            check(leaf, pixel);
            // The ray from where it crosses the near plane, when its first hit is nearer.
            const double tNear = double(c.nearPlane) / glm::dot(d, forward);
            double tShown = t;
            int shown = leaf;
            if (t < tNear) {
                const glm::dvec3 o = eye + tNear * d;
                if (!(o.x > 0.0 && o.x < double(s.sizeX()) && o.z > 0.0 &&
                      o.z < double(s.sizeZ()))) {
                    continue;
                }
                ++totals.clipped;
                shown = firstHitLeaf(s, o, d, tShown);
                if (shown < 0) {
                    continue;
                }
                tShown += tNear;
                check(shown, pixel + " beyond the near plane");
            }
            if (tShown * glm::dot(d, forward) <= double(c.farPlane)) {
                ASSERT_TRUE(keptWalk[size_t(shown)])
                    << what << ": " << pixel << " shows leaf " << shown << " (walk's leaves)";
            }
            if (oneSided) {
                double tFront = 0.0;
                const int front = firstHitLeaf(s, eye, d, tFront, nullptr, true);
                if (front >= 0 && front != leaf) {
                    ++totals.frontBeyond;
                    check(front, pixel + " drawn with one side");
                    if (tFront * glm::dot(d, forward) <= double(c.farPlane)) {
                        ASSERT_TRUE(keptWalk[size_t(front)])
                            << what << ": " << pixel << " shows leaf " << front
                            << " drawn with one side (walk's leaves)";
                    }
                }
            }
            if (::testing::Test::HasFatalFailure()) {
                return;
            }
        }
    }
    for (int k = 0; k < 2000; ++k) {
        const float z = rng.uniform(-1.0f, 1.0f);
        const float phi = rng.uniform(-glm::pi<float>(), glm::pi<float>());
        const float r = std::sqrt(std::max(0.0f, 1.0f - z * z));
        double t = 0.0;
        const glm::dvec3 d(r * std::cos(phi), z, r * std::sin(phi));
        const int leaf = firstHitLeaf(s, eye, d, t);
        if (leaf >= 0) {
            check(leaf, "ray " + std::to_string(k));
        }
        const int front = oneSided ? firstHitLeaf(s, eye, d, t, nullptr, true) : -1;
        if (front >= 0) {
            check(front, "ray " + std::to_string(k) + " drawn with one side");
        }
        if (::testing::Test::HasFatalFailure()) {
            return;
        }
    }
}

void checkRandomCameras(const Scene& s, int count, uint32_t seed, const std::string& name,
                        RayCastTotals& totals) {
    Random rng(seed);
    for (int i = 0; i < count; ++i) {
        const Camera c = randomCamera(s, rng);
        checkCamera(s, c, rng, totals, name + " camera " + std::to_string(i));
        if (::testing::Test::HasFatalFailure()) {
            return;
        }
    }
}

// The exact pseudo-angle of float inputs, in double.
double exactPseudoAngle(float z, float x) {
    const double r = double(z) / (std::fabs(double(x)) + std::fabs(double(z)));
    return x >= 0.0f ? r : (z >= 0.0f ? 2.0 - r : -2.0 - r);
}

TEST(Occlusion, PseudoAngleIsMonotoneAndNearlyExact) {
    constexpr int kSteps = 400000;
    constexpr double kTwoPi = 6.28318530717959;
    for (const float radius : {1e-3f, 1.0f, 3000.0f}) {
        double previous = 0.0, worst = 0.0;
        for (int i = 0; i <= kSteps; ++i) {
            const double angle = -3.14159265358979 + 1e-9 + kTwoPi * i / (kSteps + 1.0);
            const float x = float(radius * std::cos(angle));
            const float z = float(radius * std::sin(angle));
            const double p = double(pseudoAngle(z, x));
            worst = std::max(worst, std::fabs(p - exactPseudoAngle(z, x)));
            ASSERT_GE(p, -2.0);
            ASSERT_LE(p, 2.0);
            if (i > 0) {
                // Increasing, by 1/2 to 1 of the angle's step (the float inputs blur the step).
                const double step = kTwoPi / (kSteps + 1.0);
                ASSERT_GE(p - previous, 0.5 * step - 1e-6) << i;
                ASSERT_LE(p - previous, step + 1e-6) << i;
            }
            previous = p;
        }
        EXPECT_LT(worst, 1e-6) << radius;
    }
    EXPECT_EQ(pseudoAngle(0.0f, 0.0f), 0.0f);
    EXPECT_EQ(pseudoAngle(0.0f, -1.0f), 2.0f);
    EXPECT_EQ(pseudoAngle(1.0f, 0.0f), 1.0f);
}

// The span's ends are directions to points of the rectangle and hold every one of them.
TEST(Occlusion, FootprintSpanHoldsTheRectangle) {
    Random rng(5);
    for (int k = 0; k < 20000; ++k) {
        const float x0 = rng.uniform(-10.0f, 10.0f), z0 = rng.uniform(-10.0f, 10.0f);
        const float x1 = x0 + rng.uniform(0.1f, 8.0f), z1 = z0 + rng.uniform(0.1f, 8.0f);
        const float ex = rng.uniform(-20.0f, 20.0f), ez = rng.uniform(-20.0f, 20.0f);
        if (ex >= x0 && ex <= x1 && ez >= z0 && ez <= z1) {
            continue;  // no span: the eye is on the rectangle
        }
        float start = 0.0f, width = 0.0f;
        footprintSpan(ex, ez, x0, z0, x1, z1, start, width);
        ASSERT_GE(width, 0.0f);
        ASSERT_LT(width, 2.0f);
        double least = 10.0, most = -10.0;
        for (int i = 0; i <= 16; ++i) {
            for (int j = 0; j <= 16; ++j) {
                const float px = x0 + (x1 - x0) * float(i) / 16.0f;
                const float pz = z0 + (z1 - z0) * float(j) / 16.0f;
                // Pseudo-angle from the span's start, counter-clockwise, in (-2, 2].
                const double a =
                    std::remainder(exactPseudoAngle(pz - ez, px - ex) - double(start), 4.0);
                least = std::min(least, a);
                most = std::max(most, a);
            }
        }
        ASSERT_NEAR(least, 0.0, 1e-5) << k;
        ASSERT_NEAR(most, double(width), 1e-5) << k;
    }
}

// The horizon's eight-bin windows raise and read exactly the bins a plain loop around the circle
// would, wrapping past the end included.
TEST(Occlusion, HorizonWindowsMatchPlainBins) {
    using namespace horizon;
    Random rng(9);
    std::vector<int16_t> bins(kStorage, kNoSlope);
    std::vector<int16_t> model(kBins, kNoSlope);
    auto offsetBin = [&](int b) { return b + kBins * int(rng.below(3)); };  // any of its names
    for (int round = 0; round < 200; ++round) {
        for (int k = 0; k < 20; ++k) {
            const int b = k % 2 ? kBins - 1 - int(rng.below(48)) : int(rng.below(kBins));  // ends
            const int count = 1 + int(rng.below(k % 4 == 0 ? 200 : 40));
            const auto slope = int16_t(int(rng.below(60000)) - 30000);
            raise(bins.data(), offsetBin(b), count, slope);
            for (int i = 0; i < count; ++i) {
                int16_t& m = model[size_t((b + i) % kBins)];
                m = std::max(m, slope);
            }
        }
        mergeMirror(bins.data());
        for (int b = 0; b < kBins; ++b) {
            ASSERT_EQ(bins[size_t(b)], model[size_t(b)]) << "round " << round << " bin " << b;
        }
        for (int k = 0; k < 200; ++k) {
            const int b = k % 2 ? kBins - 1 - int(rng.below(48)) : int(rng.below(kBins));
            const int count = 1 + int(rng.below(k % 4 == 0 ? 200 : 40));
            const auto slope = int16_t(int(rng.below(60000)) - 30000);
            bool all = true;
            for (int i = 0; i < std::max(count, kLanes); ++i) {  // fewer than 8 are read as 8
                all = all && slope < model[size_t((b + i) % kBins)];
            }
            ASSERT_EQ(above(bins.data(), offsetBin(b), count, slope), all)
                << "bin " << b << " count " << count;
        }
    }
}

TEST(Occlusion, FirstHitLeavesAreKeptOnSyntheticMaps) {
    RayCastTotals totals;
    const Scene hills = makeScene(syntheticHeightmap(129, 129, 3), {1.0f, 0.0015f, 0.0f});
    checkRandomCameras(hills, 12, 1, "hills", totals);
    // A negative height scale turns the map over: peaks become pits.
    const Scene inverted = makeScene(syntheticHeightmap(81, 113, 4), {2.0f, -0.004f, 10.0f});
    checkRandomCameras(inverted, 10, 2, "inverted", totals);
    // Leaves of 8 squares with partial border leaves.
    const Scene coarse = makeScene(syntheticHeightmap(107, 90, 5), {1.0f, 0.0015f, 0.0f}, 8);
    checkRandomCameras(coarse, 8, 3, "coarse", totals);
    printTotals("synthetic", totals);
    // Not vacuous: most views were tested, leaves were removed, parents served as units.
    EXPECT_GT(totals.active, totals.cameras);
    EXPECT_GT(totals.occluded, 1000u);
    EXPECT_LT(totals.unitsTested, totals.leavesTested);
    EXPECT_GT(totals.hits, 100000u);
}

// A map kMaxSide samples wide, eyes near its east end: the units' boxes there reach sample 65536,
// one past what their 16-bit fields hold.
TEST(Occlusion, FirstHitLeavesAreKeptOnAMapTheLongestSideWide) {
    RayCastTotals totals;
    const Scene wide = makeScene(syntheticHeightmap(kMaxSide, 65, 14), {1.0f, 0.0015f, 0.0f});
    Random rng(31);
    for (int i = 0; i < 12; ++i) {
        const Camera c = randomCamera(wide, rng, 0.995f, 1.0f);
        checkCamera(wide, c, rng, totals, "wide camera " + std::to_string(i));
        ASSERT_FALSE(HasFatalFailure());
    }
    printTotals("wide", totals);
    EXPECT_GT(totals.active, 0u);
    EXPECT_GT(totals.occluded, 100u);
}

TEST(Occlusion, FirstHitLeavesAreKeptOnRidges) {
    RayCastTotals totals;
    const Scene ridges = makeScene(ridgeMap(129, 129), {1.0f, 1.0f, 0.0f});
    checkRandomCameras(ridges, 16, 7, "ridges", totals);
    const Scene upsideDown = makeScene(ridgeMap(129, 129), {1.0f, -1.0f, 40.0f});
    checkRandomCameras(upsideDown, 8, 8, "ridges upside down", totals);
    printTotals("ridges", totals);
    EXPECT_GT(totals.active, totals.cameras);
    EXPECT_GT(totals.occluded, 5000u);
    EXPECT_LT(totals.unitsTested, totals.leavesTested);
}

// The ridge map with holes: a gap through the wall (columns 50..75), a round hole in the block's
// shadow, one-sample specks in the far corner, and a strip of nodata along the east edge (a
// reprojected tile's).
Heightmap holeyRidgeMap(int width, int height) {
    return test::withNodata(ridgeMap(width, height), [&](int col, int row) {
        const bool gap = col >= 50 && col <= 75 && row >= 36 && row <= 52;
        const bool round = (col - 95) * (col - 95) + (row - 100) * (row - 100) < 64;
        const bool speck = row > 100 && col < 40 && (col * 31 + row * 17) % 23 == 0;
        const bool edge = col > width - 6 + row / 40;
        return gap || round || speck || edge;
    });
}

// Nodata squares show what lies beyond them: a leaf with a hole never occludes, and the ray-cast
// reference (which passes through holes) finds every first hit kept. Not vacuous: with the holes'
// leaves taken as occluders, leaves that show through the holes would go.
TEST(Occlusion, FirstHitLeavesAreKeptThroughHoles) {
    RayCastTotals totals;
    const Scene holey = makeScene(holeyRidgeMap(129, 129), {1.0f, 1.0f, 0.0f});
    ASSERT_TRUE(holey.tree.hasHoles());
    checkRandomCameras(holey, 16, 17, "ridges with holes", totals);
    const Scene hills = makeScene(
        test::withNodata(syntheticHeightmap(129, 129, 3),
                         [](int col, int row) {
                             return (col - 90) * (col - 90) + (row - 30) * (row - 30) < 150;
                         }),
        {1.0f, 0.0015f, 0.0f});
    checkRandomCameras(hills, 10, 18, "hills with holes", totals);
    // One-sample holes scattered over the whole map, as SRTM's voids are: every view has holes
    // near it, and leaves occlude only in the directions no nearer hole lies in.
    const Scene specks = makeScene(
        test::withNodata(ridgeMap(129, 129),
                         [](int col, int row) { return (col * 31 + row * 17) % 211 == 0; }),
        {1.0f, 1.0f, 0.0f});
    RayCastTotals speckTotals;
    checkRandomCameras(specks, 16, 20, "ridges with specks", speckTotals);
    printTotals("specks", speckTotals);
    EXPECT_GT(speckTotals.occluded, 3500u);
    printTotals("holes", totals);
    EXPECT_GT(totals.active, totals.cameras);
    EXPECT_GT(totals.occluded, 2000u);

    // Cameras over the ridges, the holes' leaves taken as whole: leaves seen through a hole are
    // lost, and no back face may be culled.
    Scene blind = makeScene(holeyRidgeMap(129, 129), {1.0f, 1.0f, 0.0f});
    blind.tree.holeLeavesBefore.clear();
    Random rng(19);
    uint64_t lost = 0;
    for (int i = 0; i < 16; ++i) {
        const Camera c = randomCamera(holey, rng);
        OcclusionBuffers buffers;
        buffers.reserveFor(blind.tree);
        RayCastTotals ignored;
        const std::vector<uint8_t> kept = keptFromAll(blind, c, 720, buffers, ignored);
        for (int j = 0; j < kPixelsY; ++j) {
            for (int k = 0; k < kPixelsX; ++k) {
                double t = 0.0;
                const int leaf = firstHitLeaf(holey, glm::dvec3(c.position), pixelRay(c, k, j), t);
                lost += leaf >= 0 && !kept[size_t(leaf)];
            }
        }
        EXPECT_FALSE(backFacesHidden(holey.tree, holey.mapping, c));
    }
    std::printf("holes taken as whole would hide %llu pixels' first hits\n",
                (unsigned long long)lost);
    EXPECT_GT(lost, 0u) << "no ray through a hole met a leaf that the holes' leaves would hide";
}

// A hillside rising along z with windows in it: rectangles of nodata and one-sample specks. A
// ray that drops through a window meets the slope beyond from below, on a back face.
Heightmap hillsideWithWindows(int width, int height) {
    std::vector<float> samples(size_t(width) * size_t(height), 0.0f);
    for (int row = 0; row < height; ++row) {
        for (int col = 0; col < width; ++col) {
            samples[size_t(row) * size_t(width) + size_t(col)] =
                0.4f * float(row) + float((col * 5 + row * 3) % 3);
        }
    }
    return test::withNodata(makeHeightmap(width, height, samples).value(), [](int col, int row) {
        const bool window = col >= 40 && col <= 60 && row >= 50 && row <= 60;
        const bool slot = col >= 80 && col <= 90 && row >= 20 && row <= 24;
        const bool speck = row > 90 && (col * 31 + row * 17) % 97 == 0;
        return window || slot || speck;
    });
}

// Where the terrain is drawn with one side (drawsFrontFacesOnly), a ray through a hole passes its
// underside and shows the first triangle beyond that faces the eye: that leaf must be kept too,
// for every pixel of random cameras and of cameras looking down through a window onto the slope
// beyond, on maps with holes (checkCamera casts both). Not vacuous: many pixels show a front face
// beyond a first back face, and some cameras draw both sides.
TEST(Occlusion, ThroughAHoleTheFrontFacesBeyondItsUndersideAreKept) {
    const Scene scenes[] = {
        makeScene(hillsideWithWindows(129, 129), {1.0f, 1.0f, 0.0f}),
        makeScene(holeyRidgeMap(129, 129), {1.0f, 1.0f, 0.0f}),
        makeScene(
            test::withNodata(ridgeMap(129, 129),
                             [](int col, int row) { return (col * 31 + row * 17) % 211 == 0; }),
            {1.0f, 1.0f, 0.0f}),
        makeScene(test::withNodata(syntheticHeightmap(129, 129, 3),
                                   [](int col, int row) {
                                       return (col - 90) * (col - 90) + (row - 30) * (row - 30) <
                                              150;
                                   }),
                  {1.0f, 0.0015f, 0.0f})};
    RayCastTotals totals;
    for (const Scene& s : scenes) {
        ASSERT_TRUE(s.tree.hasHoles());
        Random rng(29);
        std::vector<Camera> cameras;
        for (int k = 0; k < 12; ++k) {
            cameras.push_back(randomCamera(s, rng));
        }
        // Down through the hillside's window (columns 40..60, rows 50..60), from above the slope
        // below it and from above every height.
        for (float y : {30.0f, 45.0f, 60.0f, 120.0f}) {
            for (float z : {20.0f, 35.0f, 45.0f}) {
                Camera c;
                c.position = {50.0f, y, z};
                c.yaw = glm::half_pi<float>();  // toward +z
                c.pitch = -std::atan2(y - 22.0f, 55.0f - z);
                c.fovY = glm::radians(60.0f);
                c.aspect = 16.0f / 9.0f;
                c.nearPlane = 0.01f;
                c.farPlane = 1000.0f;
                cameras.push_back(c);
            }
        }
        for (size_t k = 0; k < cameras.size(); ++k) {
            checkCamera(s, cameras[k], rng, totals, "camera " + std::to_string(k));
            if (::testing::Test::HasFatalFailure()) {
                return;
            }
        }
    }
    printTotals("through holes, one side", totals);
    EXPECT_GT(totals.frontBeyond, 1000u) << "no view through a hole past its underside";
    EXPECT_GT(totals.oneSided, 60);
    EXPECT_LT(totals.oneSided, totals.cameras) << "every camera drawn with one side";
    EXPECT_GT(totals.occluded, 1000u);
}

// A flat map (or a zero height scale) hides nothing: every occluder's bound is below every slope
// that reaches a farther leaf.
TEST(Occlusion, FlatTerrainHidesNothing) {
    const Scene scenes[] = {makeScene(flatHeightmap(129, 129, 300.0f), {1.0f, 0.1f, 0.0f}),
                            makeScene(syntheticHeightmap(129, 129, 6), {1.0f, 0.0f, 12.0f})};
    for (const Scene& s : scenes) {
        OcclusionBuffers buffers;
        buffers.reserveFor(s.tree);
        std::vector<LeafRange> kept;
        Random rng(21);
        for (int i = 0; i < 10; ++i) {
            Camera c = randomCamera(s, rng);
            c.position.y = s.mapping.worldHeight(s.map.maxSample) + 0.5f + float(i);
            OcclusionStats stats;
            cullOccluded(s.tree, s.mapping, c, 720, allLeaves(s.tree), buffers, kept, stats);
            EXPECT_TRUE(stats.active);
            EXPECT_GT(stats.leavesTested, 0u);
            EXPECT_EQ(stats.leavesOccluded, 0u);
            EXPECT_EQ(leafCount(kept), s.tree.leaves.size());
        }
    }
}

// A camera of the ridge map looking toward +z, at the wall along rows 40..48.
Camera towardTheWall(const glm::vec3& position, float pitchDegrees, float nearPlane) {
    Camera c;
    c.position = position;
    c.yaw = glm::half_pi<float>();
    c.pitch = glm::radians(pitchDegrees);
    c.nearPlane = nearPlane;
    c.farPlane = 500.0f;
    return c;
}

// A wall 30 high across the map at rows 40..48 in front of an eye 5 above the ground at row 10.7,
// on no grid line. A leaf of rows >= 56 is at some h >= 45.3, and every ray into it crosses the
// wall's leaf row 10 (rows 40..44) before (44 - 10.7) / (56 - 10.7) = 0.74 of its distance; the
// wall leaf there is nearer than 0.74 h, so its bucket's bound on far distances is at most
// 0.74 h 1.016 + 4 sqrt 2 <= 0.88 h: within h / ((1 + eps) 1.016), eps = 2%, one bucket being
// 1.6% wide. The slopes that reach the leaf, (M - 5) / h with M <= 30, stay under the wall leaf's
// c_L = 25 / hFar >= 25 / (0.88 h) by more than the margins, and the wall's leaf spans overlap
// and reach past every widened span behind it. So every leaf of rows >= 56 must go.
TEST(Occlusion, WallHidesWhatIsBehindIt) {
    const Scene s = makeScene(ridgeMap(129, 129), {1.0f, 1.0f, 0.0f});
    const Camera c = towardTheWall({61.3f, 5.0f, 10.7f}, -5.0f, 0.05f);
    OcclusionBuffers buffers;
    buffers.reserveFor(s.tree);
    std::vector<LeafRange> kept;
    OcclusionStats stats;
    cullOccluded(s.tree, s.mapping, c, 720, allLeaves(s.tree), buffers, kept, stats);
    ASSERT_TRUE(stats.active);
    expectWellFormed(s.tree, allLeaves(s.tree), kept);
    const std::vector<uint8_t> in = mask(s.tree, kept);
    int behind = 0, behindRemoved = 0, far = 0, farRemoved = 0, front = 0, frontRemoved = 0;
    for (size_t i = 0; i < s.tree.leaves.size(); ++i) {
        const QuadtreeNode& node = s.tree.nodes[s.tree.leafNodes[i]];
        const bool removed = !in[i];
        if (node.z0 >= 48) {
            ++behind;
            behindRemoved += removed;
        }
        if (node.z0 >= 56) {
            ++far;
            farRemoved += removed;
        }
        if (node.z1() <= 40) {
            ++front;
            frontRemoved += removed;
        }
    }
    EXPECT_EQ(far, 18 * 32);
    EXPECT_EQ(farRemoved, far);
    EXPECT_GT(behindRemoved * 10, behind * 9);
    // Nothing in front of the wall can be hidden: the ground there is nearly flat and low.
    EXPECT_EQ(frontRemoved, 0);
    EXPECT_EQ(stats.leavesOccluded, uint32_t(s.tree.leaves.size()) - leafCount(kept));
    EXPECT_GE(stats.leavesTested, stats.leavesOccluded);
}

// The same wall with one-sample voids along its top (row 44, every seventh column). Rays through
// them rise at slopes near (30 - 5) / 34, far above every slope of the ground behind the wall, so
// they dive into the wall but can reach none of it: the leaves of rows >= 56 all still go. Holding
// a dive to the full range of its hole's slopes, not just its highest, is what keeps them. The ray
// cast of random cameras keeps every first hit on this map too.
TEST(Occlusion, VoidsOnAWallTopHideNothingTheirRaysCannotReach) {
    const Scene s =
        makeScene(test::withNodata(ridgeMap(129, 129),
                                   [](int col, int row) { return row == 44 && col % 7 == 3; }),
                  {1.0f, 1.0f, 0.0f});
    ASSERT_TRUE(s.tree.hasHoles());
    const Camera c = towardTheWall({61.3f, 5.0f, 10.7f}, -5.0f, 0.05f);
    OcclusionBuffers buffers;
    buffers.reserveFor(s.tree);
    RayCastTotals wall;
    const std::vector<uint8_t> in = keptFromAll(s, c, 720, buffers, wall);
    ASSERT_EQ(wall.active, 1);
    int far = 0, farRemoved = 0;
    for (size_t i = 0; i < s.tree.leaves.size(); ++i) {
        if (s.tree.nodes[s.tree.leafNodes[i]].z0 >= 56) {
            ++far;
            farRemoved += !in[i];
        }
    }
    EXPECT_EQ(far, 18 * 32);
    EXPECT_EQ(farRemoved, far);
    RayCastTotals totals;
    checkRandomCameras(s, 12, 23, "voids on a wall top", totals);
    EXPECT_GT(totals.occluded, 1000u);
}

// With level of detail, rays may dive through the holes of coarse drawn nodes, which are not the
// stage's candidates: given as DrawnHoles, a coarse node with a hole between the eye and the wall
// keeps the leaves behind the wall in its directions, and the rest still go. (The map's one void,
// behind the eye, puts the stage in its mode for holes.)
TEST(Occlusion, CoarseDrawnNodesWithHolesKeepWhatTheirRaysMayReach) {
    const Scene s =
        makeScene(test::withNodata(ridgeMap(129, 129),
                                   [](int col, int row) { return col == 120 && row == 2; }),
                  {1.0f, 1.0f, 0.0f});
    const Camera c = towardTheWall({61.3f, 5.0f, 10.7f}, -5.0f, 0.05f);
    const HoleBox coarse{56, 24, 64, 32, s.map.minCode, s.map.maxCode};
    OcclusionBuffers buffers;
    buffers.reserveFor(s.tree);
    const auto removed = [&](const DrawnHoles& drawn, int col0, int col1, int row1) {
        std::vector<LeafRange> kept;
        OcclusionStats stats;
        cullOccluded(s.tree, s.mapping, c, 720, allLeaves(s.tree), buffers, kept, stats, {}, drawn);
        EXPECT_TRUE(stats.active);
        const std::vector<uint8_t> in = mask(s.tree, kept);
        int n = 0;
        for (size_t i = 0; i < s.tree.leaves.size(); ++i) {
            const QuadtreeNode& node = s.tree.nodes[s.tree.leafNodes[i]];
            n += node.z0 >= 56 && node.z1() <= row1 && node.x0 >= col0 && node.x1() <= col1 &&
                 !in[i];
        }
        return n;
    };
    const DrawnHoles none{true, nullptr, 0};
    const DrawnHoles given{true, &coarse, 1};
    // Leaves of rows >= 56 in columns 56..68, straight behind the node, and of rows 56..84 in
    // columns 0..24, outside its directions (about 78 to 112 degrees from +x; those 116 and more).
    EXPECT_EQ(removed(none, 56, 68, 128), 18 * 3);
    EXPECT_EQ(removed(given, 56, 68, 128), 0);
    EXPECT_EQ(removed(none, 0, 24, 84), 7 * 6);
    EXPECT_EQ(removed(given, 0, 24, 84), 7 * 6);
}

// The dive boxes of drawn nodes by level of detail (appendDiveBoxes, core/cull/occlusion.h): every
// vertex of a cell of a node above level 0, at its own sample and at its geomorph's target, with
// its edges folded beside any coarser neighbours, lies in the closed box of one child, so each
// triangle lies there with its heights in that child's range; the boxes of a node are its
// children with a hole, and a leaf's its hole box with its own range.
TEST(Occlusion, ACoarseNodesCellsLieInOneChildsBoxWhichItsDiveBoxesHold) {
    for (const int leafSize : {4, 8}) {
        const Heightmap map =
            test::withNodata(syntheticHeightmap(131, 101, 5),
                             [](int col, int row) { return (col * 31 + row * 17) % 53 == 0; });
        Result<Quadtree> built = buildQuadtree(map, leafSize);
        ASSERT_TRUE(built);
        const Quadtree& tree = built.value();
        ASSERT_TRUE(tree.hasHoles());
        int cells = 0, boxesChecked = 0;
        for (uint32_t leaf = 0; leaf < tree.leaves.size(); ++leaf) {
            const LeafCoord first = tree.leaves[leaf];
            for (int level = 1; level <= tree.depth; ++level) {
                const uint32_t index = tree.nodeAt(level, first.col, first.row);
                const QuadtreeNode& n = tree.nodes[index];
                if (tree.firstLeaf(n) != leaf) {
                    break;  // each node once: from its first leaf
                }
                const DrawNode node{uint16_t(n.x0 >> tree.leafShift),
                                    uint16_t(n.z0 >> tree.leafShift),
                                    uint8_t(level),
                                    0,
                                    128,
                                    0,
                                    {128, 128, 128, 128}};
                std::vector<HoleBox> boxes;
                appendDiveBoxes(tree, index, boxes);
                const bool holes = tree.holesIn(tree.firstLeaf(n), tree.leafCount(n));
                EXPECT_EQ(boxes.empty(), !holes);
                for (const HoleBox& b : boxes) {
                    bool child = false;
                    for (int q = 0; q < 4; ++q) {
                        if (!n.hasChild(q)) {
                            continue;
                        }
                        const QuadtreeNode& c = tree.nodes[n.child(q)];
                        child = child ||
                                (b.x0 == c.x0 && b.z0 == c.z0 && b.x1 == c.x1() && b.z1 == c.z1() &&
                                 b.minCode == c.minCode && b.maxCode == c.maxCode &&
                                 tree.holesIn(tree.firstLeaf(c), tree.leafCount(c)));
                    }
                    EXPECT_TRUE(child) << "a box that is no child with a hole";
                    ++boxesChecked;
                }
                for (uint8_t coarser = 0; coarser < 16; ++coarser) {
                    DrawNode folded = node;
                    folded.coarser = coarser;
                    for (int j0 = 0; j0 < leafSize; ++j0) {
                        for (int i0 = 0; i0 < leafSize; ++i0) {
                            std::vector<std::pair<int, int>> samples;
                            for (int c = 0; c < 4; ++c) {
                                const MorphedVertex v =
                                    lodVertexMorph(folded, i0 + (c & 1), j0 + (c >> 1), leafSize,
                                                   map.width, map.height);
                                samples.push_back({v.ownCol, v.ownRow});
                                for (int k = 0; k < 2; ++k) {
                                    samples.push_back({v.cornerCol[k], v.cornerRow[k]});
                                }
                            }
                            bool inOne = false;
                            for (int q = 0; q < 4 && !inOne; ++q) {
                                if (!n.hasChild(q)) {
                                    continue;
                                }
                                const QuadtreeNode& c = tree.nodes[n.child(q)];
                                inOne =
                                    std::all_of(samples.begin(), samples.end(),
                                                [&](const std::pair<int, int>& at) {
                                                    return at.first >= c.x0 && at.first <= c.x1() &&
                                                           at.second >= c.z0 && at.second <= c.z1();
                                                });
                            }
                            EXPECT_TRUE(inOne)
                                << "leaf size " << leafSize << " level " << level << " coarser "
                                << int(coarser) << " cell " << i0 << "," << j0;
                            ++cells;
                        }
                    }
                }
            }
        }
        EXPECT_GT(cells, 10000);
        EXPECT_GT(boxesChecked, 20);
        // A leaf: its hole box, with the leaf's own range.
        for (uint32_t leaf = 0; leaf < tree.leaves.size(); ++leaf) {
            const QuadtreeNode& n = tree.nodes[tree.leafNodes[leaf]];
            std::vector<HoleBox> boxes;
            appendDiveBoxes(tree, tree.leafNodes[leaf], boxes);
            ASSERT_EQ(boxes.size(), tree.holesIn(leaf, 1) ? 1u : 0u);
            if (!boxes.empty()) {
                const HoleBox& hole = tree.holeLeafBox[tree.holeLeavesBefore[leaf]];
                EXPECT_EQ(boxes[0].x0, hole.x0);
                EXPECT_EQ(boxes[0].z1, hole.z1);
                EXPECT_EQ(boxes[0].minCode, n.minCode);
                EXPECT_EQ(boxes[0].maxCode, n.maxCode);
            }
        }
    }
}

// An eye 1 above the wall's top, 9.3 before it, with a near plane 20 away: rays 25 degrees down
// enter the wall and leave its far side nearer than the near plane, so the pixels show the ground
// beyond it, 60 away, which the wall hides from every ray it does not clip. Those leaves must stay.
TEST(Occlusion, NearPlaneClippingTheWallKeepsWhatShowsThrough) {
    const Scene s = makeScene(ridgeMap(129, 129), {1.0f, 1.0f, 0.0f});
    const Camera c = towardTheWall({61.3f, 31.0f, 30.7f}, -25.0f, 20.0f);
    Random rng(11);
    RayCastTotals totals;
    checkCamera(s, c, rng, totals, "clipped wall");
    printTotals("clipped wall", totals);
    EXPECT_GT(totals.clipped, 1000u);  // the case arises
    EXPECT_GE(totals.active, 1);       // the 720-pixel view (the 90-pixel one's margins are wider)
}

struct NamedCamera {
    const char* name;
    Camera camera;
};

// Cameras that no proof holds for, made from `above` (high over a map whose heights are at least
// 0 and whose far edge is at z = edgeZ): under the terrain, outside the map, on its edge, and
// not a number.
std::vector<NamedCamera> offTheTerrain(const Camera& above, float edgeZ) {
    std::vector<NamedCamera> cameras(4, {"", above});
    cameras[0].name = "below";
    cameras[0].camera.position.y = -20.0f;
    cameras[1].name = "outside";
    cameras[1].camera.position.x = -1.0f;
    cameras[2].name = "on the edge";
    cameras[2].camera.position.z = edgeZ;
    cameras[3].name = "nan";
    cameras[3].camera.position.y = std::numeric_limits<float>::quiet_NaN();
    return cameras;
}

// Far from the origin the GPU rounds a vertex by ulps of its large coordinates, which along rays
// grazing the ground below the eye moves their first crossing by that rounding over the eye's
// clearance, relatively. With the eye 5 above the bumpy ground before the wall (3 above its
// highest sample near the eye), the wall hides the same leaves at height offsets 0 and 1e4; at 1e6
// (an ulp of 0.06, a vertex rounded by up to 0.48) the stage stands down.
TEST(Occlusion, StandsDownWhereRoundingSwampsTheEyesClearance) {
    uint32_t occludedAtZero = 0;
    for (const float offset : {0.0f, 1e4f, 1e6f}) {
        const Scene s = makeScene(ridgeMap(129, 129), {1.0f, 1.0f, offset});
        const float ground = float(s.map.at(61, 10)) + offset;
        const Camera c = towardTheWall({61.3f, ground + 5.0f, 10.7f}, -5.0f, 0.05f);
        OcclusionBuffers buffers;
        buffers.reserveFor(s.tree);
        std::vector<LeafRange> kept;
        OcclusionStats stats;
        cullOccluded(s.tree, s.mapping, c, 720, allLeaves(s.tree), buffers, kept, stats);
        expectWellFormed(s.tree, allLeaves(s.tree), kept);
        if (offset == 0.0f) {
            ASSERT_TRUE(stats.active);
            occludedAtZero = stats.leavesOccluded;
            EXPECT_GT(occludedAtZero, 0u);
        } else if (offset == 1e4f) {
            EXPECT_TRUE(stats.active);
            EXPECT_EQ(stats.leavesOccluded, occludedAtZero);
        } else {
            EXPECT_FALSE(stats.active);
            EXPECT_EQ(stats.leavesOccluded, 0u);
        }
    }
}

TEST(Occlusion, StandsDownWhenTheViewAllowsNoProof) {
    const Scene s = makeScene(syntheticHeightmap(65, 65, 2), {1.0f, 0.001f, 0.0f});
    // A frustum walk's runs, with adjacent runs that the output must merge.
    std::vector<LeafRange> candidates = {{3, 5}, {8, 2}, {20, 7}, {40, 1}, {41, 30}};
    const std::vector<LeafRange> merged = {{3, 7}, {20, 7}, {40, 31}};
    OcclusionBuffers buffers;
    buffers.reserveFor(s.tree);
    std::vector<LeafRange> kept;
    Camera above;
    above.position = {32.0f, 200.0f, 32.0f};
    above.pitch = -0.3f;
    Camera infiniteFar = above;
    infiniteFar.farPlane = std::numeric_limits<float>::infinity();
    Camera deepRange = above;  // f / n = 1e7: no depth gap would hold
    deepRange.nearPlane = 1e-4f;
    deepRange.farPlane = 1e3f;
    Camera grazing = above;  // the near plane could clip the ground below
    const float ground = float(s.map.at(32, 32)) * 0.001f;
    grazing.position.y = ground + 0.001f;
    struct Case {
        const char* name;
        Camera camera;
        int viewportHeight;
    };
    std::vector<Case> cases;
    for (const NamedCamera& c : offTheTerrain(above, 64.0f)) {  // the map spans 0..50
        cases.push_back({c.name, c.camera, 720});
    }
    const Case others[] = {{"far at infinity", infiniteFar, 720},
                           {"deep range", deepRange, 720},
                           {"grazing", grazing, 720},
                           {"empty viewport", above, 0},
                           {"tiny viewport", above, 4}};
    cases.insert(cases.end(), std::begin(others), std::end(others));
    for (const Case& k : cases) {
        OcclusionStats stats;
        stats.leavesTested = 99;
        cullOccluded(s.tree, s.mapping, k.camera, k.viewportHeight, candidates, buffers, kept,
                     stats);
        EXPECT_FALSE(stats.active) << k.name;
        EXPECT_EQ(stats.leavesTested, 0u) << k.name;
        EXPECT_EQ(stats.leavesOccluded, 0u) << k.name;
        ASSERT_EQ(kept.size(), merged.size()) << k.name;
        for (size_t i = 0; i < kept.size(); ++i) {
            EXPECT_EQ(kept[i].first, merged[i].first) << k.name;
            EXPECT_EQ(kept[i].count, merged[i].count) << k.name;
        }
    }
    OcclusionStats stats;
    cullOccluded(s.tree, s.mapping, above, 720, candidates, buffers, kept, stats);
    EXPECT_TRUE(stats.active);
    expectWellFormed(s.tree, candidates, kept);
}

// Where backFacesHidden() holds, the renderer culls back faces: the first triangle along every
// pixel's ray (the CPU ray cast through the exact mesh) must face the eye and lie beyond the near
// plane, so that the cull changes no pixel but depth ties. Over random cameras, from just above
// the ground to high above it, with near planes that clip the ground (which it must refuse).
TEST(Occlusion, BackFacesHiddenOnlyWhereEveryFirstHitFacesTheEye) {
    int accepted = 0, refused = 0;
    uint64_t hits = 0;
    const Scene scenes[] = {makeScene(syntheticHeightmap(129, 129, 4), {1.0f, 0.002f, 0.0f}),
                            makeScene(ridgeMap(129, 129), {0.5f, -1.0f, 40.0f})};
    for (const Scene& s : scenes) {
        Random rng(23);
        for (int k = 0; k < 40; ++k) {
            const Camera c = randomCamera(s, rng);
            if (!backFacesHidden(s.tree, s.mapping, c)) {
                ++refused;
                continue;
            }
            ++accepted;
            const glm::dvec3 eye(c.position);
            const glm::dvec3 forward(c.forward());
            for (int j = 0; j < kPixelsY; ++j) {
                for (int i = 0; i < kPixelsX; ++i) {
                    const glm::dvec3 d = pixelRay(c, i, j);
                    double t = 0.0;
                    glm::dvec3 up;
                    if (firstHitLeaf(s, eye, d, t, &up) < 0) {
                        continue;
                    }
                    ++hits;
                    ASSERT_LT(glm::dot(d, up), 0.0) << "camera " << k << " pixel " << i << "," << j;
                    ASSERT_GT(t * glm::dot(d, forward), double(c.nearPlane))
                        << "camera " << k << " pixel " << i << "," << j << ": clipped";
                }
            }
        }
    }
    std::printf("back faces hidden: %d cameras accepted (%llu pixels hit), %d refused\n", accepted,
                (unsigned long long)hits, refused);
    EXPECT_GE(accepted, 40);
    EXPECT_GE(refused, 10);  // the near plane reaches the ground: the case arises

    // The cases with no proof.
    const Scene& s = scenes[0];
    Camera above;
    above.position = {64.0f, 300.0f, 64.0f};
    above.pitch = -0.3f;
    EXPECT_TRUE(backFacesHidden(s.tree, s.mapping, above));
    std::vector<NamedCamera> cases = offTheTerrain(above, 128.0f);
    Camera grazing = above;  // just above the ground, closer than the near plane's reach
    grazing.position.y = float(s.height(64, 64)) + 0.5f * grazing.nearPlane;
    Camera hugeNear = above;  // the near plane's reach passes the ground 300 below
    hugeNear.nearPlane = 400.0f;
    hugeNear.farPlane = 1e4f;
    cases.push_back({"grazing", grazing});
    cases.push_back({"huge near plane", hugeNear});
    for (const NamedCamera& c : cases) {
        EXPECT_FALSE(backFacesHidden(s.tree, s.mapping, c.camera)) << c.name;
    }
}

// After reserveFor, calls reuse the buffers: no allocation, and the same answer twice.
TEST(Occlusion, ReusesItsBuffers) {
    const Scene s = makeScene(ridgeMap(129, 129), {1.0f, 1.0f, 0.0f});
    OcclusionBuffers buffers;
    buffers.reserveFor(s.tree);
    std::vector<LeafRange> kept, again;
    kept.reserve(maxLeafRanges(s.tree));
    const void* data[] = {buffers.horizon.data(), buffers.records.data(), buffers.keys.data(),
                          buffers.occluded.data(), kept.data()};
    Random rng(3);
    for (int i = 0; i < 20; ++i) {
        const Camera c = randomCamera(s, rng);
        OcclusionStats stats, statsAgain;
        cullOccluded(s.tree, s.mapping, c, 720, allLeaves(s.tree), buffers, kept, stats);
        cullOccluded(s.tree, s.mapping, c, 720, allLeaves(s.tree), buffers, again, statsAgain);
        ASSERT_EQ(kept.size(), again.size());
        for (size_t k = 0; k < kept.size(); ++k) {
            ASSERT_EQ(kept[k].first, again[k].first);
            ASSERT_EQ(kept[k].count, again[k].count);
        }
        ASSERT_EQ(stats.leavesOccluded, statsAgain.leavesOccluded);
    }
    const void* after[] = {buffers.horizon.data(), buffers.records.data(), buffers.keys.data(),
                           buffers.occluded.data(), kept.data()};
    EXPECT_TRUE(std::equal(std::begin(data), std::end(data), std::begin(after)));
}

}  // namespace
}  // namespace qt
