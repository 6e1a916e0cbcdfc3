// The culling walk: depth-first traversal in tree order with plane masking and whole-subtree
// acceptance, a node's four children tested together in SSE lanes.
#include "core/cull.h"

#if defined(__SSE2__)
#include <emmintrin.h>  // SSE2, part of every x86-64
#include <xmmintrin.h>
#define QT_CULL_LANES 1
#else
#define QT_CULL_LANES 0
#endif

#include <algorithm>
#include <cassert>

namespace qt {
namespace {

// Deepest tree is log2(32768 / 2) = 14 levels; each level leaves at most 3 siblings waiting.
constexpr int kStackSize = 4 * 17;

enum class Action : uint8_t { Expand, Accept };

struct StackEntry {
    uint32_t node;
    uint32_t firstLeaf;  // tree-order index of the subtree's first leaf
    uint8_t mask;        // Expand: planes still to test for the children (the node straddled them)
    uint8_t level;       // depth below the root
    Action action;       // Expand: test the children; Accept: draw the node's leaves untested
    bool whole;          // no map border through the node: four children, each whole
};

// The runs of set bits in a 4-bit mask, at most two: byte 0 start, byte 1 length, bytes 2-3 the
// second run (length 0 if none).
constexpr uint32_t runsOf(unsigned m) {
    uint32_t runs = 0;
    int shift = 0;
    for (unsigned q = 0; q < 4;) {
        if ((m >> q & 1u) == 0) {
            ++q;
            continue;
        }
        unsigned length = 0;
        while (q + length < 4 && (m >> (q + length) & 1u)) {
            ++length;
        }
        runs |= (q | length << 8) << shift;
        shift += 16;
        q += length;
    }
    return runs;
}
constexpr uint32_t kRuns[16] = {
    runsOf(0), runsOf(1), runsOf(2),  runsOf(3),  runsOf(4),  runsOf(5),  runsOf(6),  runsOf(7),
    runsOf(8), runsOf(9), runsOf(10), runsOf(11), runsOf(12), runsOf(13), runsOf(14), runsOf(15)};

// A 4-bit mask with its bits in reverse order: its lowest bit first is the highest child first.
constexpr uint8_t kReversed[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};

// Lane mask (4 bits) to one byte per lane, so that a plane's straddle bits spread to each
// child's byte: kSpread[m] has byte q = bit q of m.
constexpr uint32_t spreadBits(unsigned m) {
    return (m & 1u) | (m & 2u) << 7 | (m & 4u) << 14 | (m & 8u) << 21;
}
constexpr uint32_t kSpread[16] = {spreadBits(0),  spreadBits(1),  spreadBits(2),  spreadBits(3),
                                  spreadBits(4),  spreadBits(5),  spreadBits(6),  spreadBits(7),
                                  spreadBits(8),  spreadBits(9),  spreadBits(10), spreadBits(11),
                                  spreadBits(12), spreadBits(13), spreadBits(14), spreadBits(15)};

// What testing a node's children against the planes in `mask` found: the children wholly
// outside one plane (bit q), and the planes each child straddles (byte q).
struct ChildTest {
    unsigned outside = 0;
    uint32_t straddled = 0;
    unsigned straddling = 0;  // bit q: child q straddles some plane (byte q of straddled is set)
};

// The portable test: Frustum::classify on each child in turn (CPUs without SSE2, and the
// reference the lanes are tested against).
ChildTest testChildrenOneByOne(const Quadtree& tree, const QuadtreeNode& node, const Frustum& local,
                               uint8_t mask) {
    ChildTest result;
    for (int q = 0; q < 4; ++q) {
        if (node.hasChild(q)) {
            bool outside = false;
            const uint8_t straddled =
                local.classify(gridBox(tree.nodes[node.child(q)]), mask, outside);
            result.outside |= unsigned(outside) << q;
            result.straddled |= uint32_t(straddled) << (8 * q);
            result.straddling |= unsigned(straddled != 0) << q;
        }
    }
    return result;
}

#if QT_CULL_LANES
// A frustum plane in SSE lanes, with the signs that pick its p- and n-vertex corners.
struct LanePlane {
    __m128 a, b, c, d;
    bool ax, ay, az;  // coefficient >= 0: the p-vertex takes the box's max on that axis
};

// The four children's grid boxes side by side, lane q for child q (zero where absent).
struct ChildBoxes {
    __m128 x0, x1, y0, y1, z0, z1;
};

// Loads each child (x0 z0 x1 z1 minCode maxCode, links) and transposes the boxes into lanes;
// uint16 to float is exact. A full group is four consecutive nodes.
ChildBoxes loadChildren(const Quadtree& tree, const QuadtreeNode& node, unsigned present) {
    __m128i c[4];
    const QuadtreeNode* group = &tree.nodes[node.firstChild()];
    if (present == 0xFu) {
        for (int q = 0; q < 4; ++q) {
            c[q] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(group + q));
        }
    } else {
        int next = 0;
        for (int q = 0; q < 4; ++q) {
            c[q] = present >> q & 1u
                       ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(group + next++))
                       : _mm_setzero_si128();
        }
    }
    const __m128i ab = _mm_unpacklo_epi16(c[0], c[1]);      // x0a x0b z0a z0b x1a x1b z1a z1b
    const __m128i cd = _mm_unpacklo_epi16(c[2], c[3]);      // the same for children c and d
    const __m128i abHigh = _mm_unpackhi_epi16(c[0], c[1]);  // mna mnb mxa mxb, links
    const __m128i cdHigh = _mm_unpackhi_epi16(c[2], c[3]);  // mnc mnd mxc mxd, links
    const __m128i xz0 = _mm_unpacklo_epi32(ab, cd);         // x0 a..d, z0 a..d
    const __m128i xz1 = _mm_unpackhi_epi32(ab, cd);         // x1 a..d, z1 a..d
    const __m128i y = _mm_unpacklo_epi32(abHigh, cdHigh);   // min a..d, max a..d
    const __m128i zero = _mm_setzero_si128();
    auto low = [&](__m128i v) { return _mm_cvtepi32_ps(_mm_unpacklo_epi16(v, zero)); };
    auto high = [&](__m128i v) { return _mm_cvtepi32_ps(_mm_unpackhi_epi16(v, zero)); };
    return {low(xz0), low(xz1), low(y), high(y), high(xz0), high(xz1)};
}

// ((a x + b y) + c z) + d per lane: the order and roundings of Frustum::distance.
__m128 laneDistance(const LanePlane& p, __m128 x, __m128 y, __m128 z) {
    const __m128 xy = _mm_add_ps(_mm_mul_ps(p.a, x), _mm_mul_ps(p.b, y));
    return _mm_add_ps(_mm_add_ps(xy, _mm_mul_ps(p.c, z)), p.d);
}

// The same decisions as testChildrenOneByOne, four children at a time.
ChildTest testChildrenInLanes(const Quadtree& tree, const QuadtreeNode& node, unsigned present,
                              const LanePlane (&lanes)[6], uint8_t mask) {
    const ChildBoxes box = loadChildren(tree, node, present);
    const __m128 zero = _mm_setzero_ps();
    ChildTest result;
    for (unsigned rest = mask; rest != 0; rest &= rest - 1) {
        const int i = __builtin_ctz(rest);
        const LanePlane& p = lanes[i];
        const __m128 far =
            laneDistance(p, p.ax ? box.x1 : box.x0, p.ay ? box.y1 : box.y0, p.az ? box.z1 : box.z0);
        const __m128 near =
            laneDistance(p, p.ax ? box.x0 : box.x1, p.ay ? box.y0 : box.y1, p.az ? box.z0 : box.z1);
        const int across = _mm_movemask_ps(_mm_cmplt_ps(near, zero));
        result.outside |= unsigned(_mm_movemask_ps(_mm_cmplt_ps(far, zero)));
        result.straddled |= kSpread[across] << i;
        result.straddling |= unsigned(across);
    }
    result.outside &= present;  // absent children are zero boxes: not decisions
    return result;
}
#endif

// The subtree's leaves are one run; a leaf is a run of one.
inline void accept(const Quadtree& tree, uint32_t index, uint32_t firstLeaf, CullOutput& out) {
    const QuadtreeNode& node = tree.nodes[index];
    if (out.recordDecisions) {
        out.acceptedNodes.push_back(index);
    }
    if (!node.isLeaf()) {
        ++out.stats.subtreesAccepted;
    }
    const uint32_t count = tree.leafCount(node);
    appendLeafRange(out.ranges, firstLeaf, count);
    out.stats.leavesDrawn += count;
    out.stats.triangles += node.triangleCount();
}

// Culled leaves are counted at the end: every leaf is drawn or culled.
inline void cull(uint32_t index, CullOutput& out) {
    if (out.recordDecisions) {
        out.culledNodes.push_back(index);
    }
}

}  // namespace

Frustum gridFrustum(const Frustum& frustum, const Quadtree& tree, const WorldMapping& mapping) {
    const HeightTransform height = heightTransform(tree.coding, mapping);
    return frustum.inGridSpace(mapping.spacing, height.scale, height.bias);
}

void CullOutput::reserveFor(const Quadtree& tree) {
    ranges.clear();
    ranges.reserve(maxLeafRanges(tree));
    culledNodes.clear();
    acceptedNodes.clear();
    if (recordDecisions) {
        culledNodes.reserve(tree.nodes.size());
        acceptedNodes.reserve(tree.nodes.size());
    }
    stats = {};
}

// The root is tested alone; from then on a node that straddles planes has its four children
// tested together against those planes, one SSE lane each (one by one without SSE2). Leaf
// children, and inner children drawn whole before the first one to open, go out at once; the rest
// go on the stack in reverse, so that the output stays in tree order.
void cullQuadtree(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                  CullOutput& out, const CullOptions& options) {
    assert(out.ranges.capacity() >= maxLeafRanges(tree));
    assert(!out.recordDecisions || out.acceptedNodes.capacity() >= tree.nodes.size());
    out.ranges.clear();
    out.culledNodes.clear();
    out.acceptedNodes.clear();
    out.stats = {};
    const Frustum local = gridFrustum(frustum, tree, mapping);
#if QT_CULL_LANES
    LanePlane lanes[6];
    for (int i = 0; i < 6; ++i) {
        const glm::vec4& q = local.planes[size_t(i)];
        lanes[i] = {_mm_set1_ps(q.x), _mm_set1_ps(q.y), _mm_set1_ps(q.z), _mm_set1_ps(q.w),
                    q.x >= 0.0f,      q.y >= 0.0f,      q.z >= 0.0f};
    }
    const bool useLanes = options.lanes;
#endif

    bool outside = false;
    ++out.stats.nodesTested;
    const uint8_t rootStraddled = local.classify(gridBox(tree.root()), kAllPlanes, outside);
    const uint32_t root = tree.rootIndex();
    const auto leaves = uint32_t(tree.leaves.size());
    if (outside) {
        cull(root, out);
        out.stats.leavesCulled = leaves;
        return;
    }
    if (tree.root().isLeaf() || (options.acceptWhole && rootStraddled == 0)) {
        accept(tree, root, 0, out);
        return;
    }
    // A whole node's side is its level's nominal one: a whole root makes every node whole.
    const auto sideAt = [&](int level) { return uint32_t(tree.leafSize) << (tree.depth - level); };
    const auto isWhole = [&](const QuadtreeNode& n, int level) {
        return uint32_t(n.x1 - n.x0) == sideAt(level) && uint32_t(n.z1 - n.z0) == sideAt(level);
    };
    const uint64_t leafTriangles = 2u * uint64_t(tree.leafSize) * uint64_t(tree.leafSize);
    StackEntry stack[kStackSize];
    int top = 0;
    stack[top++] = {root,
                    0,
                    options.planeMasking ? rootStraddled : kAllPlanes,
                    0,
                    Action::Expand,
                    isWhole(tree.root(), 0)};
    while (top > 0) {
        const StackEntry entry = stack[--top];
        if (entry.action == Action::Accept) {
            accept(tree, entry.node, entry.firstLeaf, out);
            continue;
        }
        const QuadtreeNode& node = tree.nodes[entry.node];
        const unsigned present = node.childMask();
        out.stats.nodesTested += bitCount4(present);
#if QT_CULL_LANES
        const ChildTest test = useLanes
                                   ? testChildrenInLanes(tree, node, present, lanes, entry.mask)
                                   : testChildrenOneByOne(tree, node, local, entry.mask);
#else
        const ChildTest test = testChildrenOneByOne(tree, node, local, entry.mask);
#endif
        const unsigned inside = present & ~test.outside;
        const uint32_t straddled = test.straddled;
        const auto childLevel = uint8_t(entry.level + 1);
        if (out.recordDecisions) {
            for (unsigned rest = present & test.outside; rest != 0; rest &= rest - 1) {
                cull(node.child(__builtin_ctz(rest)), out);
            }
        }
        if (childLevel == tree.depth) {
            // The children are leaves: nothing beneath them can come between them in the
            // output, so they go out now, in order, without the stack.
            if (entry.whole) {  // four whole leaves, numbered q from the subtree's first leaf
                const uint32_t runs = kRuns[inside];
                if (runs & 0xFF00u) {
                    appendLeafRange(out.ranges, entry.firstLeaf + (runs & 0xFFu),
                                    runs >> 8 & 0xFFu);
                }
                if (runs & 0xFF000000u) {
                    appendLeafRange(out.ranges, entry.firstLeaf + (runs >> 16 & 0xFFu), runs >> 24);
                }
                out.stats.triangles += bitCount4(inside) * leafTriangles;
            } else {  // leaf q is the subtree's leaf number (present children before q)
                for (unsigned rest = inside; rest != 0; rest &= rest - 1) {
                    const int q = __builtin_ctz(rest);
                    const uint32_t rank = bitCount4(present & ((1u << q) - 1u));
                    appendLeafRange(out.ranges, entry.firstLeaf + rank, 1);
                    out.stats.triangles += tree.nodes[node.firstChild() + rank].triangleCount();
                }
            }
            if (out.recordDecisions) {
                for (unsigned rest = inside; rest != 0; rest &= rest - 1) {
                    out.acceptedNodes.push_back(node.child(__builtin_ctz(rest)));
                }
            }
            out.stats.leavesDrawn += bitCount4(inside);
            continue;
        }
        // The children inside the frustum: accepted whole (inside every plane) or opened. The
        // accepted ones before the first opened one go out now; the rest go on the stack, in
        // reverse, to follow that child's subtree.
        const unsigned accepted = options.acceptWhole ? inside & ~test.straddling : 0u;
        const unsigned opened = inside & ~accepted;
        const unsigned now = accepted & ((opened & (0u - opened)) - 1u);  // below the first opened
        const int childShift = tree.depth - childLevel;
        if (entry.whole) {
            // Four whole children, a quarter of the leaves each.
            const uint32_t count = 1u << (2 * childShift);
            for (unsigned rest = now; rest != 0; rest &= rest - 1) {
                const int q = __builtin_ctz(rest);
                appendLeafRange(out.ranges, entry.firstLeaf + uint32_t(q) * count, count);
                if (out.recordDecisions) {
                    out.acceptedNodes.push_back(node.firstChild() + uint32_t(q));
                }
            }
            const uint32_t n = bitCount4(now);
            out.stats.subtreesAccepted += n;
            out.stats.leavesDrawn += n * count;
            out.stats.triangles += uint64_t(n) * count * leafTriangles;
            for (unsigned rest = kReversed[inside & ~now]; rest != 0; rest &= rest - 1) {
                const int q = 3 - __builtin_ctz(rest);
                const uint32_t child = node.firstChild() + uint32_t(q);
                const uint32_t first = entry.firstLeaf + uint32_t(q) * count;
                assert(top < kStackSize);
                if (accepted >> q & 1u) {
                    stack[top++] = {child, first, 0, childLevel, Action::Accept, true};
                    continue;
                }
                const auto mask = uint8_t(straddled >> (8 * q));
                stack[top++] = {
                    child,      first,          options.planeMasking ? mask : kAllPlanes,
                    childLevel, Action::Expand, true};
                // Fetch its children's group while its siblings are done: 64 bytes, one cache
                // line, or two when a partial group before it left it off a line's start.
                const char* group =
                    reinterpret_cast<const char*>(&tree.nodes[tree.nodes[child].firstChild()]);
                __builtin_prefetch(group);
                __builtin_prefetch(group + 4 * sizeof(QuadtreeNode) - 1);
            }
            continue;
        }
        // A map border runs through the node: children are counted from their boxes.
        uint32_t firstLeaf[4];
        uint32_t next = entry.firstLeaf;
        for (int q = 0; q < 4; ++q) {
            firstLeaf[q] = next;
            if (present >> q & 1u) {
                next += tree.leafCount(tree.nodes[node.child(q)]);
            }
        }
        for (unsigned rest = now; rest != 0; rest &= rest - 1) {
            const int q = __builtin_ctz(rest);
            accept(tree, node.child(q), firstLeaf[q], out);
        }
        for (unsigned rest = kReversed[inside & ~now]; rest != 0; rest &= rest - 1) {
            const int q = 3 - __builtin_ctz(rest);
            const uint32_t child = node.child(q);
            const bool whole = isWhole(tree.nodes[child], childLevel);
            assert(top < kStackSize);
            if (accepted >> q & 1u) {
                stack[top++] = {child, firstLeaf[q], 0, childLevel, Action::Accept, whole};
                continue;
            }
            const auto mask = uint8_t(straddled >> (8 * q));
            stack[top++] = {child,      firstLeaf[q],   options.planeMasking ? mask : kAllPlanes,
                            childLevel, Action::Expand, whole};
            const char* group =
                reinterpret_cast<const char*>(&tree.nodes[tree.nodes[child].firstChild()]);
            __builtin_prefetch(group);
            __builtin_prefetch(group + 4 * sizeof(QuadtreeNode) - 1);
        }
    }
    out.stats.leavesCulled = leaves - out.stats.leavesDrawn;
}

void cullBruteForce(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                    CullOutput& out) {
    out.ranges.clear();
    out.stats = {};
    const Frustum local = gridFrustum(frustum, tree, mapping);
    for (size_t i = 0; i < tree.leaves.size(); ++i) {
        const QuadtreeNode& leaf = tree.nodes[tree.leafNodes[i]];
        bool outside = false;
        ++out.stats.nodesTested;
        local.classify(gridBox(leaf), kAllPlanes, outside);
        if (outside) {
            ++out.stats.leavesCulled;
        } else {
            appendLeafRange(out.ranges, uint32_t(i), 1);
            ++out.stats.leavesDrawn;
            out.stats.triangles += leaf.triangleCount();
        }
    }
}

void selectAll(const Quadtree& tree, CullOutput& out) {
    out.ranges.clear();
    out.culledNodes.clear();
    out.acceptedNodes.clear();
    if (out.recordDecisions) {
        out.acceptedNodes.push_back(tree.rootIndex());  // the root, drawn whole
    }
    out.stats = {};
    out.ranges.push_back({0, uint32_t(tree.leaves.size())});
    out.stats.leavesDrawn = uint32_t(tree.leaves.size());
    out.stats.triangles = tree.root().triangleCount();
}

uint64_t triangleCount(const Quadtree& tree, const std::vector<LeafRange>& ranges) {
    const QuadtreeNode& root = tree.root();
    const uint64_t perLeaf = 2u * uint64_t(tree.leafSize) * uint64_t(tree.leafSize);
    uint64_t triangles = 0;
    if (root.x1 % tree.leafSize == 0 && root.z1 % tree.leafSize == 0) {  // every leaf whole
        for (const LeafRange& range : ranges) {
            triangles += perLeaf * range.count;
        }
        return triangles;
    }
    for (const LeafRange& range : ranges) {
        for (uint32_t leaf = range.first; leaf < range.first + range.count; ++leaf) {
            triangles += tree.nodes[tree.leafNodes[leaf]].triangleCount();
        }
    }
    return triangles;
}

void appendLeafCoords(const Quadtree& tree, const std::vector<LeafRange>& ranges,
                      std::vector<LeafCoord>& out) {
    for (const LeafRange& range : ranges) {
        const LeafCoord* first = tree.leaves.data() + range.first;
        out.insert(out.end(), first, first + range.count);
    }
}

}  // namespace qt
