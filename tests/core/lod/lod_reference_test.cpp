// The reference selection meets its own definition (every drawn node within PIXELS over its
// samples, drawn neighbours one level apart, a split only for its own deviation or that rule),
// and the live selection, which meets the same rules, is nowhere coarser than it.
#include "core/lod/lod_reference.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "core/lod/lod.h"
#include "core/terrain/synthetic.h"
#include "qt_source_paths.h"
#include "test_files.h"
#include "test_scene.h"

namespace qt {
namespace {

using test::makeScene;
using test::Random;
using test::Scene;

int levelAt(const Quadtree& tree, const LodReference& r, int col, int row) {
    return r.levelAt[size_t(row) * size_t(tree.leavesX) + size_t(col)];
}

// The reference drawn for `camera`, into `r`, checked against its definition.
void checkReference(const Scene& s, const Camera& camera, int viewportHeight, float pixels,
                    const Frustum* frustum, const std::string& what, LodReference& r) {
    const Quadtree& tree = s.tree;
    const LodScreen screen{s.map, tree, s.mapping, camera, viewportHeight};
    selectLodReference(screen, pixels, frustum, r);
    uint64_t triangles = 0;
    for (int row = 0; row < tree.leavesZ; ++row) {
        for (int col = 0; col < tree.leavesX; ++col) {
            const int level = levelAt(tree, r, col, row);
            if (level < 0) {
                continue;
            }
            const int size = 1 << level;
            const int c0 = col & ~(size - 1), r0 = row & ~(size - 1);
            // A drawn node covers its whole square of leaves, at its own level.
            for (int z = r0; z < std::min(r0 + size, tree.leavesZ); ++z) {
                for (int x = c0; x < std::min(c0 + size, tree.leavesX); ++x) {
                    ASSERT_EQ(levelAt(tree, r, x, z), level) << what << " leaf " << x << "," << z;
                }
            }
            // Drawn neighbours one level apart at most.
            if (col + 1 < tree.leavesX && levelAt(tree, r, col + 1, row) >= 0) {
                ASSERT_LE(std::abs(levelAt(tree, r, col + 1, row) - level), 1) << what;
            }
            if (row + 1 < tree.leavesZ && levelAt(tree, r, col, row + 1) >= 0) {
                ASSERT_LE(std::abs(levelAt(tree, r, col, row + 1) - level), 1) << what;
            }
            if (c0 != col || r0 != row) {
                continue;  // the node's first leaf checks the node
            }
            const SampleBox box = levelNodeBox(tree, level, col, row);
            triangles += 2u * uint64_t((box.x1 - box.x0 + size - 1) / size) *
                         uint64_t((box.z1 - box.z0 + size - 1) / size);
            ASSERT_LE(lodNodeDeviation(screen, level, col, row), pixels)
                << what << ": level " << level << " node at leaf " << col << "," << row;
            if (level == tree.depth) {
                continue;
            }
            // Its parent split for its own deviation, or beside a drawn node two levels below it.
            const int up = 2 * size;
            const int pc = col & ~(up - 1), pr = row & ~(up - 1);
            if (lodNodeDeviation(screen, level + 1, pc, pr) > pixels) {
                continue;
            }
            bool finerBeside = false;
            const int pc1 = std::min(pc + up, tree.leavesX), pr1 = std::min(pr + up, tree.leavesZ);
            for (int i = 0; i < up && !finerBeside; ++i) {
                const int x = pc + i, z = pr + i;
                const auto finer = [&](int c, int rr) {
                    return c >= 0 && rr >= 0 && c < tree.leavesX && rr < tree.leavesZ &&
                           levelAt(tree, r, c, rr) >= 0 && levelAt(tree, r, c, rr) < level;
                };
                finerBeside = (x < pc1 && (finer(x, pr - 1) || finer(x, pr1))) ||
                              (z < pr1 && (finer(pc - 1, z) || finer(pc1, z)));
            }
            ASSERT_TRUE(finerBeside) << what << ": level " << level << " node at leaf " << col
                                     << "," << row << " split from a parent within pixels";
        }
    }
    EXPECT_EQ(triangles, r.triangles) << what;
}

// Over cameras on a map: the reference meets its definition, and the live selection draws no
// leaf coarser than the reference does, where both draw
// it (the reference taken with the tests' rounding allowance on PIXELS).
void checkMap(const Scene& s, int cameras, uint32_t seed, const std::string& name) {
    Random rng(seed);
    int compared = 0;
    for (int i = 0; i < cameras; ++i) {
        Camera camera = test::anyCamera(s, rng);
        camera.fovY = rng.uniform(0.5f, 1.6f);
        const float pixels = rng.uniform(0.5f, 8.0f);
        const int viewportHeight = 360;
        const Frustum frustum = Frustum::fromViewProjection(camera.viewProjection());
        const std::string what = name + " camera " + std::to_string(i);
        const Frustum* culling = i % 2 == 0 ? &frustum : nullptr;
        LodReference r;
        checkReference(s, camera, viewportHeight, pixels, culling, what, r);
        if (::testing::Test::HasFatalFailure()) {
            return;
        }
        LodReference allowed;
        selectLodReference({s.map, s.tree, s.mapping, camera, viewportHeight},
                           pixels * 1.001f + 1e-3f, culling, allowed);
        const WorldExtent e = worldExtent(s.map, s.mapping);
        LodReach reach;
        {
            LodParams params =
                lodParams(s.tree, s.mapping, camera, viewportHeight, pixels, e.minY, e.maxY);
            updateLodReach(s.tree, s.mapping, params, reach);
            params.reach = &reach;
            LodOutput out;
            out.reserveFor(s.tree);
            selectLod(s.tree, s.mapping, params, culling, out);
            for (const DrawNode& d : out.nodes) {
                const int size = 1 << d.level;
                for (int z = d.row; z < std::min(d.row + size, s.tree.leavesZ); ++z) {
                    for (int x = d.col; x < std::min(d.col + size, s.tree.leavesX); ++x) {
                        const int limit = levelAt(s.tree, allowed, x, z);
                        if (limit >= 0) {
                            ASSERT_LE(int(d.level), limit) << what << " leaf " << x << "," << z;
                            ++compared;
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(compared, 0) << name;
}

TEST(LodReference, MeetsItsDefinitionAndTheLiveSelectionIsNowhereCoarser) {
    checkMap(makeScene(syntheticHeightmap(257, 257, 3), {1.0f, 0.02f, 0.0f}, 4), 12, 7,
             "synthetic 257x257");
    checkMap(makeScene(syntheticHeightmap(203, 141, 4), {2.0f, 0.05f, -50.0f}, 8), 12, 8,
             "synthetic 203x141");
}

TEST(LodReference, OnARealMap) {
    const int found = test::forEachSharedScene(
        {"jacksboro_fault_403x344.png"},
        [](const Scene& s, const std::string& name, int) { checkMap(s, 8, 9, name); });
    if (found == 0) {
        GTEST_SKIP()
            << "the shared heightmaps are absent (QT_SHARED_HEIGHTMAPS); real-map checks skipped";
    }
}

}  // namespace
}  // namespace qt
