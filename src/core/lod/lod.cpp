// Level-of-detail selection: a depth-first walk that culls by the frustum and stops at the nodes
// far enough to be drawn whole, then marks each drawn node's edges whose neighbour is coarser.
#include "core/lod/lod.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>

#include "core/base/worker_pool.h"
#include "core/config.h"
#include "core/cull/cull.h"

namespace qt {
namespace {

// A split node's children as the walk computed them: their level, the split node's first leaf
// and each child's distance by quadrant (bit 0 east, bit 1 south, as QuadtreeNode::child), with
// the split node's own family above it. A drawn node's edges read their neighbours' distances
// from here where the neighbour shares its parent or grandparent, instead of computing them again:
// that halves the selection's distance computations (the selection's cost is in them: each reads
// the node's reach, scattered over the tree's levels).
struct Family {
    const Family* up;  // the split node's own family; null for the root's children
    int level;         // the children's
    int col, row;      // the split node's first leaf
    LodDistance children[4];

    // Whether the node at `level` holding leaf (col, row) is one of these children.
    bool holds(int childLevel, int leafCol, int leafRow) const {
        return childLevel == level && (leafCol >> (level + 1)) == (col >> (level + 1)) &&
               (leafRow >> (level + 1)) == (row >> (level + 1));
    }
    const LodDistance& at(int leafCol, int leafRow) const {
        return children[((leafCol >> level) & 1) | ((leafRow >> level) & 1) << 1];
    }
};

// What one thread's walks write: drawn nodes in tree order, page asks in walk order (each ask, a
// page perhaps many times: selectLod keeps each page once) and counts.
struct PartOutput {
    std::vector<DrawNode> nodes;
    std::vector<PageRequest> asks;
    LodStats stats;
};

// A subtree left to a worker: the node (its frustum test done), what its parent's walk knew of
// it, where its output goes in the whole (after that many of the top walk's nodes and asks), and
// where the worker put it (its thread's PartOutput, from ...First to ...End).
struct Subtree {
    uint32_t index;
    int level;
    uint8_t planes;
    uint8_t morph;
    LodDistance distance;
    const Family* family;
    size_t nodesBefore;
    size_t asksBefore;
    int thread = 0;
    size_t nodesFirst = 0, nodesEnd = 0;
    size_t asksFirst = 0, asksEnd = 0;
};

struct Selector {
    const Quadtree& tree;
    const LodParams& params;
    const Frustum* frustum;  // grid space; null: nothing culled
    std::vector<DrawNode>& nodes;
    std::vector<PageRequest>& asks;
    LodStats& stats;
    // The top walk of a split selection: a node at cutLevel that splits becomes a Subtree in
    // `subtrees`, and the families above it live in `families` (reserved: they stay put).
    int cutLevel = -1;
    std::vector<Subtree>* subtrees = nullptr;
    std::vector<Family>* families = nullptr;

    // The distance of the node at `level` holding leaf (col, row), from `family` when it holds
    // that node; a held-back node that wants its page asks for it (a neighbour's edge depends on
    // it even where it is culled).
    LodDistance distanceAt(int level, int col, int row, const Family* family) {
        const SampleBox box = levelNodeBox(tree, level, col, row);
        const LodDistance d =
            family != nullptr && family->holds(level, col, row)
                ? family->at(col, row)
                : lodDistance(tree, params, level, box.x0, box.z0, box.x1, box.z1);
        if (d.wantsPage()) {
            request(d, level, box.x0, box.z0);
        }
        return d;
    }

    // Asks, at distance `d`, for the missing pages that hold back the node at `level` whose first
    // sample is (x0, z0) (LodResidency::splits).
    void request(const LodDistance& d, int level, int x0, int z0) {
        const LodResidency& r = *params.residency;
        r.forEachNeeded(level, x0, z0, [&](int j, int qx0, int qy0, int qx1, int qy1) {
            const ResidentLevel& at = r.level[size_t(j)];
            for (int y = qy0; y <= qy1; ++y) {
                for (int x = qx0; x <= qx1; ++x) {
                    const uint32_t q = uint32_t(y) * uint32_t(at.pagesX) + uint32_t(x);
                    if (at.resident[q] == 0) {
                        asks.push_back({at.first + q, d.squared});
                    }
                }
            }
        });
    }

    // A held-back node that wants its pages asks too for those its descendants would ask for were
    // it to split: each child in the frustum whose distance would want its pages (its own residency
    // aside), and so on down to level 1, at the child's squared distance times `after` (4 a level
    // down), so that the pages that let a node split at once come first. The pages a split several
    // levels down needs are then asked for in one frame and arrive side by side, not one level per
    // frame and round trip. Only requests: what is drawn is unchanged.
    void prefetch(const QuadtreeNode& node, int level, uint8_t planes, float after = 4.0f) {
        for (int q = 0; q < 4; ++q) {
            if (!node.hasChild(q)) {
                continue;
            }
            const QuadtreeNode& child = tree.nodes[node.child(q)];
            if (child.isLeaf()) {
                continue;
            }
            uint8_t inside = planes;
            if (frustum != nullptr && inside != 0) {
                bool outside = false;
                inside = frustum->classify(gridBox(child), inside, outside);
                if (outside) {
                    continue;
                }
            }
            LodDistance d =
                lodDistance(tree, params, level - 1, child.x0, child.z0, child.x1(), child.z1());
            d.heldBack = 1;
            if (d.wantsPage()) {
                LodDistance later = d;
                later.squared *= after;
                request(later, level - 1, child.x0, child.z0);
                prefetch(child, level - 1, inside, 4.0f * after);
            }
        }
    }

    // Each edge of a node drawn at `level`, a child of `family` (null for the root): a coarser
    // neighbour (its level + 1 ancestor does not split) sets the edge's bit; a finer one (the
    // neighbour at `level` splits) leaves it at morph 0, where the finer node's folded vertices
    // meet this node's own; a neighbour at the same level gives the larger of the two nodes'
    // morphs, which both compute alike. (Neighbours differ by one level at most.) A neighbour
    // under the same parent has a parent that splits; one under the same grandparent has its
    // parent's distance in the grandparent's family.
    void edges(int level, int col, int row, DrawNode& drawn, const Family* family) {
        drawn.coarser = 0;
        for (uint8_t& m : drawn.edgeMorph) {
            m = drawn.morph;  // the map's border: no neighbour to agree with
        }
        if (level + 1 > tree.depth) {
            return;  // the root has no neighbours
        }
        const int size = 1 << level;
        struct Side {
            bool present;
            int col, row;  // a leaf of the neighbour
            uint8_t bit;
            int index;
        };
        const Side sides[] = {
            {col > 0, col - 1, row, kEdgeWest, 0},
            {col + size < tree.leavesX, col + size, row, kEdgeEast, 1},
            {row > 0, col, row - 1, kEdgeNorth, 2},
            {row + size < tree.leavesZ, col, row + size, kEdgeSouth, 3},
        };
        for (const Side& side : sides) {
            if (!side.present) {
                continue;
            }
            const bool sibling = family != nullptr && family->holds(level, side.col, side.row);
            LodDistance parent;  // the neighbour's; a sibling's is this node's own, which splits
            if (!sibling) {
                parent = distanceAt(level + 1, side.col, side.row,
                                    family != nullptr ? family->up : nullptr);
                if (!parent.splits()) {
                    drawn.coarser |= side.bit;
                    continue;
                }
            }
            if (distanceAt(level, side.col, side.row, family).splits()) {
                drawn.edgeMorph[side.index] = 0;
                continue;
            }
            drawn.edgeMorph[side.index] =
                sibling ? drawn.morph : std::max(drawn.morph, parent.childMorph());
        }
    }

    void draw(const QuadtreeNode& node, int level, uint8_t morph, const Family* family) {
        const int col = node.x0 >> tree.leafShift;
        const int row = node.z0 >> tree.leafShift;
        DrawNode& drawn = nodes.emplace_back();
        drawn.col = uint16_t(col);
        drawn.row = uint16_t(row);
        drawn.level = uint8_t(level);
        drawn.morph = morph;
        drawn.pad = 0;
        edges(level, col, row, drawn, family);
        ++stats.nodesDrawn;
        stats.leavesCovered += tree.leafCount(node);
        const int step = 1 << level;
        const uint64_t cols = uint64_t((node.x1() - node.x0 + step - 1) / step);
        const uint64_t rows = uint64_t((node.z1() - node.z0 + step - 1) / step);
        stats.triangles += 2u * cols * rows;
        stats.deepestLevel = std::max(stats.deepestLevel, uint8_t(level));
    }

    // `distance`: the node's (computed by its parent, in `family`, or for the root by the
    // caller); `morph`: the node's, from its parent's distance (0 for the root).
    void visit(uint32_t index, int level, uint8_t planes, uint8_t morph,
               const LodDistance& distance, const Family* family) {
        const QuadtreeNode& node = tree.nodes[index];
        if (frustum != nullptr && planes != 0) {
            ++stats.nodesTested;
            bool outside = false;
            planes = frustum->classify(gridBox(node), planes, outside);
            if (outside) {
                return;
            }
        }
        if (level == cutLevel && distance.splits()) {
            subtrees->push_back(
                {index, level, planes, morph, distance, family, nodes.size(), asks.size()});
            return;
        }
        descend(index, level, planes, morph, distance, family);
    }

    // The node past its frustum test: drawn, or its children visited.
    void descend(uint32_t index, int level, uint8_t planes, uint8_t morph,
                 const LodDistance& distance, const Family* family) {
        const QuadtreeNode& node = tree.nodes[index];
        if (distance.wantsPage()) {
            request(distance, level, node.x0, node.z0);
            prefetch(node, level, planes);
        }
        if (!distance.splits()) {
            draw(node, level, morph, family);
            return;
        }
        Family local{family, level - 1, node.x0 >> tree.leafShift, node.z0 >> tree.leafShift, {}};
        Family* children = &local;
        if (families != nullptr) {
            assert(families->size() < families->capacity());
            families->push_back(local);
            children = &families->back();
        }
        for (int q = 0; q < 4; ++q) {
            if (node.hasChild(q)) {
                const QuadtreeNode& child = tree.nodes[node.child(q)];
                children->children[q] = child.isLeaf()
                                            ? LodDistance{}
                                            : lodDistance(tree, params, level - 1, child.x0,
                                                          child.z0, child.x1(), child.z1());
            }
        }
        const uint8_t childMorph = distance.childMorph();
        for (int q = 0; q < 4; ++q) {
            if (node.hasChild(q)) {
                visit(node.child(q), level - 1, planes, childMorph, children->children[q],
                      children);
            }
        }
    }
};

}  // namespace

namespace {

// The tangents of the half angles of a perspective view: its corners are (+-a, +-b).
struct ViewCorner {
    float a, b;
};

ViewCorner viewCorner(float fovY, float aspect) {
    const float t = std::tan(0.5f * fovY);
    return {t * aspect, t};
}

// The secant of the angle between a perspective view's axis and its corners: sqrt(1 + a^2 + b^2).
// The depth lodDistance measures comes from it (lod.h).
float cornerSecant(const ViewCorner& c) {
    return std::sqrt(1.0f + c.a * c.a + c.b * c.b);
}

}  // namespace

float lodVerticalStretch(const Camera& camera) {
    // The world's up in the camera's axes: its components along right, up and forward.
    const glm::vec3 u{camera.right().y, camera.up().y, camera.forward().y};
    const ViewCorner c = viewCorner(camera.fovY, camera.aspect);
    float most = 0.0f;
    for (const float a : {-c.a, c.a}) {
        for (const float b : {-c.b, c.b}) {
            const float x = u.x - a * u.z;
            const float y = u.y - b * u.z;
            most = std::max(most, x * x + y * y);
        }
    }
    return std::sqrt(most);
}

LodParams lodParams(const Quadtree& tree, const WorldMapping& mapping, const Camera& camera,
                    int viewportHeight, float pixels, float mapMinY, float mapMaxY) {
    LodParams params;
    const float larger = mapping.largerSpacing();
    const float toSteps = 1.0f / larger;
    params.eye = camera.position * toSteps;
    params.forward = camera.forward();
    const ViewCorner corner = viewCorner(camera.fovY, camera.aspect);
    const float cornerCos = 1.0f / cornerSecant(corner);
    params.cornerCos = cornerCos > 0.0f && cornerCos <= 1.0f ? cornerCos : 0.0f;  // NaN: 0
    params.stepsPerColumn = mapping.spacingX / larger;
    params.stepsPerRow = mapping.spacingZ / larger;
    params.yMin = std::min(mapMinY, mapMaxY) * toSteps;
    params.yMax = std::max(mapMinY, mapMaxY) * toSteps;
    // A vertical step at depth d looks at most viewportHeight / (2 tan(fovY / 2)) * stretch / d
    // pixels long (lod.h); the stretch is at least min(1, tan(theta_c)) at any orientation.
    const float pixelsPerRadian = float(viewportHeight) / (2.0f * std::tan(0.5f * camera.fovY));
    const float stretch = lodVerticalStretch(camera);
    const float leastStretch = std::min(1.0f, std::sqrt(corner.a * corner.a + corner.b * corner.b));
    const auto bounded = [&](float s) {
        const float steps = pixels > 0.0f ? pixelsPerRadian * s / pixels : 0.0f;
        return steps >= minStepsAway(tree.leafSize) ? std::min(steps, 1e30f)  // NaN too
                                                    : minStepsAway(tree.leafSize);
    };
    params.stepsAway = bounded(stretch);
    params.leastStepsAway = std::min(bounded(leastStretch), params.stepsAway);
    params.shadingReach = fineShadingReach(mapping, camera.fovY, viewportHeight) * toSteps;
    return params;
}

float fineShadingReach(const WorldMapping& mapping, float fovY, int viewportHeight) {
    const float pixelsPerRadian = float(viewportHeight) / (2.0f * std::tan(0.5f * fovY));
    const float reach = kFineShadingReach * pixelsPerRadian * mapping.largerSpacing();
    return reach > 0.0f ? std::min(reach, 1e30f) : 0.0f;  // NaN: 0
}

SampleBox levelNodeBox(const Quadtree& tree, int level, int col, int row) {
    const int size = 1 << level;
    const int lx = col & ~(size - 1);
    const int lz = row & ~(size - 1);
    const QuadtreeNode& root = tree.root();
    return {lx * tree.leafSize, lz * tree.leafSize,
            std::min((lx + size) * tree.leafSize, int(root.x1())),
            std::min((lz + size) * tree.leafSize, int(root.z1()))};
}

uint8_t LodDistance::childMorph() const {
    // Over the last kMorphFraction of the reach, 0 to 1: 1 where the node would stop splitting.
    const float distance = std::sqrt(squared);
    const float m = (distance - (1.0f - kMorphFraction) * reach) / (kMorphFraction * reach);
    return m > 0.0f ? uint8_t(std::lround(std::min(m, 1.0f) * 255.0f)) : 0;  // NaN: 0
}

LodDistance lodDistance(const Quadtree& tree, const LodParams& params, int level, int x0, int z0,
                        int x1, int z1) {
    if (level <= 0) {
        return {};
    }
    const glm::vec3& e = params.eye;
    const float sx = params.stepsPerColumn;
    const float sz = params.stepsPerRow;
    const float dx = std::max({float(x0) * sx - e.x, e.x - float(x1) * sx, 0.0f});
    const float dz = std::max({float(z0) * sz - e.z, e.z - float(z1) * sz, 0.0f});
    const float dy = std::max({params.yMin - e.y, e.y - params.yMax, 0.0f});
    // The least depth of the box, where the forward direction's linear function is least: at
    // the corner its signs pick.
    const glm::vec3& f = params.forward;
    const float depth = f.x * ((f.x >= 0.0f ? float(x0) : float(x1)) * sx - e.x) +
                        f.y * ((f.y >= 0.0f ? params.yMin : params.yMax) - e.y) +
                        f.z * ((f.z >= 0.0f ? float(z0) : float(z1)) * sz - e.z);
    const float cornerSquared = params.cornerCos * params.cornerCos * (dx * dx + dy * dy + dz * dz);
    const float steps =
        params.reach != nullptr
            ? params.reach
                  ->steps[tree.levelIndex(level, x0 >> tree.leafShift, z0 >> tree.leafShift)]
            : float(1 << level);
    const bool heldBack = params.residency != nullptr && level <= params.residency->levels &&
                          !params.residency->splits(level, x0, z0);
    const float squared =
        depth * depth > cornerSquared && depth > 0.0f ? depth * depth : cornerSquared;
    return {squared, params.stepsAway * steps, heldBack};
}

bool lodSplits(const Quadtree& tree, const LodParams& params, int level, int x0, int z0, int x1,
               int z1) {
    return lodDistance(tree, params, level, x0, z0, x1, z1).splits();
}

void LodReach::reserveFor(const Quadtree& tree) {
    errorSteps = -1.0f;
    steps.assign(tree.levelStart.empty() ? 0 : tree.levelStart.back(), 0.0f);
}

float lodErrorSteps(const Quadtree& tree, const WorldMapping& mapping) {
    const float perCode =
        std::abs(heightTransform(tree.coding, mapping).scale) / mapping.largerSpacing();
    const float steps = perCode / (1.0f - kMorphFraction);
    return steps >= 0.0f ? std::min(steps, 1e30f) : 1e30f;  // NaN: every node splits by its error
}

namespace {

// The fold charge of the leaves beside the level-1 node (col, row): a leaf folds an edge, or morphs
// it beyond its own morph, only where the level-1 node across that edge does not split, or is in
// its morph range (lod.h), so its folds are charged to the level-1 nodes it touches along an
// edge from outside, two a side. In grid steps over stepsAway: their fold errors' reach and one
// leaf step over 1 - kMorphFraction, as a level L node charges its level L - 1 neighbours'.
// Without the leaves' fold errors (the range bound's first frames), the grid step, 2 (lod.h:
// not a proven bound on the leaves' folds).
float leafFoldReach(const Quadtree& tree, int col, int row, float errorSteps, float perStep) {
    if (tree.leafFoldErrors.empty()) {
        return 2.0f;
    }
    const int x0 = 2 * col, z0 = 2 * row;
    uint16_t worst = 0;
    const auto charge = [&](int x, int z) {
        if (x >= 0 && z >= 0 && x < tree.leavesX && z < tree.leavesZ) {
            worst = std::max(worst, tree.leafFoldErrors[size_t(z) * size_t(tree.leavesX) + x]);
        }
    };
    for (int k = 0; k < 2; ++k) {
        charge(x0 - 1, z0 + k);  // west
        charge(x0 + 2, z0 + k);  // east
        charge(x0 + k, z0 - 1);  // north
        charge(x0 + k, z0 + 2);  // south
    }
    return errorSteps * float(worst) + perStep / (1.0f - kMorphFraction);
}

}  // namespace

void updateLodReach(const Quadtree& tree, float errorSteps, float stepsAway, LodReach& reach) {
    const bool leafFolds = !tree.leafFoldErrors.empty();
    // The margins are made for the largest power of two not above stepsAway (and not below
    // minStepsAway): longer than stepsAway needs, so sound, and the reach, a pass over the whole
    // tree (about 50 ms at 16385²), is remade only when PIXELS crosses a power of two, not at
    // every step of the HUD's slider or the frame budget.
    float margined = minStepsAway(tree.leafSize);
    while (margined * 2.0f <= stepsAway && margined < 1e30f) {
        margined *= 2.0f;
    }
    if (reach.errorSteps == errorSteps && reach.stepsAway == margined &&
        reach.errors == tree.lodErrors && reach.leafFolds == leafFolds) {
        return;
    }
    assert(tree.foldErrors.size() == tree.coarseErrors.size());
    assert(!leafFolds || tree.leafFoldErrors.size() == size_t(tree.leavesX) * tree.leavesZ);
    reach.errorSteps = errorSteps;
    reach.stepsAway = margined;
    reach.errors = tree.lodErrors;
    reach.leafFolds = leafFolds;
    reach.steps.resize(tree.levelStart.back());
    // Lengths in grid steps over stepsAway: what a reach adds to hold a distance in grid steps.
    const float perStep = 1.0f / margined;
    for (int level = 1; level <= tree.depth; ++level) {
        const int cols = int(tree.levelWidth[size_t(level)]);
        const int rows = ((tree.leavesZ - 1) >> level) + 1;
        const float half = float(1 << (level - 1));
        const uint32_t start = tree.levelStart[size_t(level)];
        const int belowCols = level > 1 ? int(tree.levelWidth[size_t(level - 1)]) : 0;
        const int belowRows = level > 1 ? ((tree.leavesZ - 1) >> (level - 1)) + 1 : 0;
        const float* below = level > 1 ? &reach.steps[tree.levelStart[size_t(level - 1)]] : nullptr;
        const uint16_t* belowFolds =
            level > 1 ? &tree.foldErrors[tree.levelStart[size_t(level - 1)]] : nullptr;
        // The one-level margin: the diagonal of a level L - 1 node, sqrt(2) leafSize 2^(L - 1)
        // grid steps, within minStepsAway 2^(L - 1) (lod.h).
        const float diagonal = minStepsAway(tree.leafSize) * half * perStep;
        // The fold charge's margin: one step of the level below over 1 - kMorphFraction.
        const float margin = half / (1.0f - kMorphFraction) * perStep;
        for (int row = 0; row < rows; ++row) {
            for (int col = 0; col < cols; ++col) {
                const uint32_t index = start + uint32_t(row) * uint32_t(cols) + uint32_t(col);
                float steps = errorSteps * float(tree.coarseErrors[index]);
                if (level == 1) {
                    steps = std::max(steps, leafFoldReach(tree, col, row, errorSteps, perStep));
                }
                for (int z = std::max(2 * row - 1, 0); z <= std::min(2 * row + 2, belowRows - 1);
                     ++z) {
                    for (int x = std::max(2 * col - 1, 0);
                         x <= std::min(2 * col + 2, belowCols - 1); ++x) {
                        const size_t b = size_t(z) * size_t(belowCols) + size_t(x);
                        steps = std::max({steps, below[b] + diagonal,
                                          errorSteps * float(belowFolds[b]) + margin});
                    }
                }
                reach.steps[index] = std::min(steps, 1e30f);
            }
        }
    }
}

void updateLodReach(const Quadtree& tree, const WorldMapping& mapping, const LodParams& params,
                    LodReach& reach) {
    updateLodReach(tree, lodErrorSteps(tree, mapping), params.leastStepsAway, reach);
}

// The levels a split selection leaves to its workers: the subtrees of the nodes kSplitLevels
// below the root (at most 4^kSplitLevels of them), enough for the nodes near the eye, where most
// are drawn, to spread over the threads.
constexpr int kSplitLevels = 5;
constexpr size_t kMostSubtrees = size_t(1) << (2 * kSplitLevels);

namespace {

// The level-1 nodes: at most one page request each (a held-back node is one of them).
size_t levelOneNodes(const Quadtree& tree) {
    return tree.depth >= 1 ? tree.levelStart[2] - tree.levelStart[1] : 0;
}

}  // namespace

struct LodParts {
    std::unique_ptr<WorkerPool> pool;
    std::vector<PageRequest> asks;  // the top walk's (the whole walk's when not split)
    std::vector<DrawNode> topNodes;
    std::vector<Family> families;
    std::vector<Subtree> subtrees;
    std::vector<PartOutput> threads;  // one per thread of the pool
    std::atomic<size_t> next{0};

    // Room for `count` threads' walks of `tree`, so that a split selection allocates nothing.
    void reserveFor(const Quadtree& tree, int count) {
        topNodes.reserve(kMostSubtrees);  // the nodes drawn above the cut: fewer than its nodes
        families.reserve(kMostSubtrees);  // more than the split nodes above the cut
        subtrees.reserve(kMostSubtrees);
        const size_t mostAsks = levelOneNodes(tree);
        asks.reserve(mostAsks);
        if (count > 1 && tree.depth - kSplitLevels >= 1) {
            if (!pool || pool->threads() != count) {
                pool = std::make_unique<WorkerPool>(count);
            }
            threads.resize(size_t(count));
            for (PartOutput& part : threads) {
                // Untouched capacity costs no resident memory: room for every leaf.
                part.nodes.reserve(tree.leaves.size());
                part.asks.reserve(mostAsks);
            }
        }
    }
};

namespace {

// Each page once, in the order of its first ask, at its nearest asked distance (LodOutput).
void takeAsk(const PageRequest& ask, LodOutput& out);

// LodOutput::shadingPages: for each pooled level j from 1, the level-j pages under the drawn nodes
// of level j + 1 and up whose squares lie within 2^(j - 1) times the shading reach of the eye on
// the ground, a hundredth and a step more than the shader's test (terrain.frag's levelShades, in
// world units and floats), so that every page it lets a drawn fragment shade from is among them;
// each once, level by level, in the order of the nodes.
void appendShadingPages(const Quadtree& tree, const LodParams& params, LodOutput& out) {
    const LodResidency& residency = *params.residency;
    const float sx = params.stepsPerColumn;
    const float sz = params.stepsPerRow;
    const glm::vec3& e = params.eye;
    // The squared distance on the ground from the eye to map squares [x0, x1] x [z0, z1].
    const auto squaredTo = [&](float x0, float z0, float x1, float z1) {
        const float dx = std::max({x0 * sx - e.x, e.x - x1 * sx, 0.0f});
        const float dz = std::max({z0 * sz - e.z, e.z - z1 * sz, 0.0f});
        return dx * dx + dz * dz;
    };
    const size_t pages = residency.pageCount();
    if (out.shadingMark.size() != pages) {
        out.shadingMark.assign(pages, 0);
    }
    for (int j = 1; j < residency.levels; ++j) {
        const ResidentLevel& r = residency.level[size_t(j)];
        const float reach = params.shadingReach * float(1 << (j - 1)) * 1.01f + 1.0f;
        const int shift = residency.pageShift + j;  // a level-j page's map squares, log2
        const float side = float(1 << shift);
        for (const DrawNode& node : out.nodes) {
            if (node.level <= j) {
                continue;
            }
            const SampleBox b = levelNodeBox(tree, node.level, node.col, node.row);
            if (!(squaredTo(float(b.x0), float(b.z0), float(b.x1), float(b.z1)) < reach * reach)) {
                continue;
            }
            // The pages of its squares and of a sample either side: a fragment on the node's edge
            // may interpolate to just outside it.
            const int qx0 = std::max(b.x0 - 1, 0) >> shift;
            const int qy0 = std::max(b.z0 - 1, 0) >> shift;
            const int qx1 = std::min((b.x1 + 1) >> shift, r.pagesX - 1);
            const int qy1 = std::min((b.z1 + 1) >> shift, r.pagesY - 1);
            for (int y = qy0; y <= qy1; ++y) {
                for (int x = qx0; x <= qx1; ++x) {
                    const uint32_t q = uint32_t(y) * uint32_t(r.pagesX) + uint32_t(x);
                    if (out.shadingMark[r.first + q] != 0) {
                        continue;
                    }
                    const float squared = squaredTo(float(x) * side, float(y) * side,
                                                    float(x + 1) * side, float(y + 1) * side);
                    if (!(squared < reach * reach)) {
                        continue;
                    }
                    out.shadingMark[r.first + q] = 1;
                    out.shadingPages.push_back(r.first + q);
                    if (r.resident[q] == 0) {
                        // After the pages that let nodes split at the same distance: asked for
                        // as if twice as far.
                        takeAsk({r.first + q, 4.0f * squared}, out);
                    }
                }
            }
        }
    }
    for (const uint32_t page : out.shadingPages) {
        out.shadingMark[page] = 0;
    }
}

void takeAsk(const PageRequest& ask, LodOutput& out) {
    uint32_t& at = out.pageRequest[ask.page];
    if (at == 0) {
        out.requests.push_back(ask);
        at = uint32_t(out.requests.size());
    } else {
        float& squared = out.requests[at - 1].squared;
        squared = std::min(squared, ask.squared);
    }
}

void addStats(const LodStats& part, LodStats& whole) {
    whole.nodesTested += part.nodesTested;
    whole.nodesDrawn += part.nodesDrawn;
    whole.leavesCovered += part.leavesCovered;
    whole.triangles += part.triangles;
    whole.deepestLevel = std::max(whole.deepestLevel, part.deepestLevel);
}

// The split selection: the top walk stops at cutLevel; the workers walk the subtrees below it;
// the parts are then joined in tree order, so the output is the one-thread walk's, bit for bit.
void selectSplit(const Quadtree& tree, const LodParams& params, const Frustum* culling,
                 const LodDistance& distance, int threads, int cutLevel, LodParts& parts,
                 LodOutput& out) {
    parts.reserveFor(tree, threads);  // nothing to do once reserved for this count
    parts.topNodes.clear();
    parts.families.clear();
    parts.subtrees.clear();
    LodStats top;
    Selector selector{tree, params, culling, parts.topNodes, parts.asks, top};
    selector.cutLevel = cutLevel;
    selector.subtrees = &parts.subtrees;
    selector.families = &parts.families;
    selector.visit(tree.rootIndex(), tree.depth, kAllPlanes, 0, distance, nullptr);
    for (PartOutput& part : parts.threads) {
        part.nodes.clear();
        part.asks.clear();
        part.stats = {};
    }
    parts.next.store(0);
    auto walkSubtrees = [&](int thread) {
        PartOutput& part = parts.threads[size_t(thread)];
        for (;;) {
            const size_t i = parts.next.fetch_add(1);
            if (i >= parts.subtrees.size()) {
                return;
            }
            Subtree& t = parts.subtrees[i];
            t.thread = thread;
            t.nodesFirst = part.nodes.size();
            t.asksFirst = part.asks.size();
            Selector worker{tree, params, culling, part.nodes, part.asks, part.stats};
            worker.descend(t.index, t.level, t.planes, t.morph, t.distance, t.family);
            t.nodesEnd = part.nodes.size();
            t.asksEnd = part.asks.size();
        }
    };
    parts.pool->run(walkSubtrees);
    size_t nodesTaken = 0;
    size_t asksTaken = 0;
    const auto takeTop = [&](size_t nodesTo, size_t asksTo) {
        out.nodes.insert(out.nodes.end(), parts.topNodes.begin() + ptrdiff_t(nodesTaken),
                         parts.topNodes.begin() + ptrdiff_t(nodesTo));
        for (; asksTaken < asksTo; ++asksTaken) {
            takeAsk(parts.asks[asksTaken], out);
        }
        nodesTaken = nodesTo;
    };
    for (const Subtree& t : parts.subtrees) {
        takeTop(t.nodesBefore, t.asksBefore);
        const PartOutput& part = parts.threads[size_t(t.thread)];
        out.nodes.insert(out.nodes.end(), part.nodes.begin() + ptrdiff_t(t.nodesFirst),
                         part.nodes.begin() + ptrdiff_t(t.nodesEnd));
        for (size_t a = t.asksFirst; a < t.asksEnd; ++a) {
            takeAsk(part.asks[a], out);
        }
    }
    takeTop(parts.topNodes.size(), parts.asks.size());
    out.stats = top;
    for (const PartOutput& part : parts.threads) {
        addStats(part.stats, out.stats);
    }
}

}  // namespace

void LodOutput::reserveFor(const Quadtree& tree, int threads) {
    // Every leaf drawn on its own is the most there can be.
    nodes.reserve(tree.leaves.size());
    requests.reserve(levelOneNodes(tree));
    if (!parts) {
        parts = std::make_shared<LodParts>();
    }
    parts->reserveFor(tree, std::clamp(threads, 1, kMaxSelectThreads));
}

void selectLod(const Quadtree& tree, const WorldMapping& mapping, const LodParams& params,
               const Frustum* frustum, LodOutput& out) {
    assert(tree.depth <= kMaxTreeDepth);
    out.nodes.clear();
    out.requests.clear();
    out.shadingPages.clear();
    out.stats = {};
    if (tree.nodes.empty()) {
        return;
    }
    Frustum grid;
    if (frustum != nullptr) {
        grid = gridFrustum(*frustum, tree, mapping);
    }
    const Frustum* culling = frustum != nullptr ? &grid : nullptr;
    if (params.residency != nullptr) {
        // Sized once for the pages (the first streamed frame), then only its marks change.
        const size_t pages = params.residency->pageCount();
        if (out.pageRequest.size() != pages) {
            out.pageRequest.assign(pages, 0);
        }
    }
    if (!out.parts) {
        out.parts = std::make_shared<LodParts>();
    }
    LodParts& parts = *out.parts;
    parts.asks.clear();
    const QuadtreeNode& root = tree.root();
    const LodDistance distance = root.isLeaf() ? LodDistance{}
                                               : lodDistance(tree, params, tree.depth, root.x0,
                                                             root.z0, root.x1(), root.z1());
    const int threads = std::clamp(params.threads, 1, kMaxSelectThreads);
    const int cutLevel = tree.depth - kSplitLevels;
    if (threads == 1 || cutLevel < 1) {
        Selector selector{tree, params, culling, out.nodes, parts.asks, out.stats};
        selector.visit(tree.rootIndex(), tree.depth, kAllPlanes, 0, distance, nullptr);
        for (const PageRequest& ask : parts.asks) {
            takeAsk(ask, out);
        }
    } else {
        selectSplit(tree, params, culling, distance, threads, cutLevel, parts, out);
    }
    if (params.residency != nullptr && params.residency->levels >= 2 &&
        params.shadingReach > 0.0f) {
        appendShadingPages(tree, params, out);
    }
    for (const PageRequest& r : out.requests) {
        out.pageRequest[r.page] = 0;
    }
}

void appendFullDetailLeaves(const Quadtree& tree, const LodOutput& lod,
                            std::vector<LeafRange>& out) {
    for (const DrawNode& node : lod.nodes) {
        if (node.level == 0) {
            appendLeafRange(out, tree.leafIndexAt(node.col, node.row), 1);
        }
    }
}

void keepFullDetailLeaves(const Quadtree& tree, const std::vector<LeafRange>& kept,
                          LodOutput& lod) {
    size_t r = 0;
    size_t write = 0;
    LodStats& stats = lod.stats;
    for (const DrawNode& node : lod.nodes) {
        if (node.level == 0) {
            const uint32_t leaf = tree.leafIndexAt(node.col, node.row);
            while (r < kept.size() && kept[r].first + kept[r].count <= leaf) {
                ++r;
            }
            if (r == kept.size() || kept[r].first > leaf) {  // occluded
                ++stats.leavesOccluded;
                --stats.nodesDrawn;
                --stats.leavesCovered;
                stats.triangles -= tree.nodes[tree.leafNodes[leaf]].triangleCount();
                continue;
            }
        }
        lod.nodes[write++] = node;
    }
    lod.nodes.resize(write);
}

int drawnLevelAt(const Quadtree& tree, const LodParams& params, int col, int row) {
    uint32_t index = tree.rootIndex();
    int level = tree.depth;
    for (;;) {
        const QuadtreeNode& node = tree.nodes[index];
        if (node.isLeaf() ||
            !lodSplits(tree, params, level, node.x0, node.z0, node.x1(), node.z1())) {
            return level;
        }
        --level;
        const int q = ((col >> level) & 1) | ((row >> level) & 1) << 1;
        index = node.child(q);
    }
}

float autoLodPixels(int width, int height) {
    const int64_t squares = int64_t(std::max(width - 1, 0)) * int64_t(std::max(height - 1, 0));
    return 2 * squares > kAutoLodTriangles ? kAutoLodPixels : 0.0f;
}

}  // namespace qt
