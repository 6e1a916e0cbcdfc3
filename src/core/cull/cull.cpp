// The culling walk: depth-first traversal in tree order with plane masking and whole-subtree
// acceptance, a node's four children tested together in SSE lanes, and at the bottom a node's 16
// leaves from one line of leaf codes.
#include "core/cull/cull.h"

#if defined(__SSE2__)
#include <emmintrin.h>  // SSE2, part of every x86-64
#include <xmmintrin.h>
#define QT_CULL_LANES 1
#else
#define QT_CULL_LANES 0
#endif

#include <algorithm>
#include <cassert>

#include "core/config.h"

namespace qt {
namespace {

// A node being walked: its children's group, tested, and those inside the frustum still to visit.
// The frame of a node at depth k is stack[k].
struct Frame {
    uint32_t firstChild;  // the group's first node
    uint32_t straddled;   // byte q: the planes child q straddles (its children test only those)
    uint32_t bound[5];    // child q's leaves are [bound[q], bound[q + 1]) in tree order
    uint8_t present;      // bit q: child q exists
    uint8_t todo;         // bit q: child q is inside the frustum and not yet visited
    uint8_t accepted;     // bit q: child q is inside every plane, drawn whole untested
    uint8_t whole;        // bit q: no map border runs through child q
};

// Collects sorted leaf runs, merging a run that starts where the last one ended; the open run
// stays in registers until a gap ends it.
struct RunWriter {
    std::vector<LeafRange>& ranges;
    uint32_t first = 0;
    uint32_t end = 0;

    void add(uint32_t runFirst, uint32_t runEnd) {
        if (runFirst != end) {
            flush();
            first = runFirst;
        }
        end = runEnd;
    }
    void flush() {
        if (end != first) {
            // Field by field: a whole LeafRange built on the stack is read back in one 64-bit
            // load from two 32-bit stores, which stalls store forwarding.
            LeafRange& range = ranges.emplace_back();
            range.first = first;
            range.count = end - first;
        }
    }
};

// Calls emit(start, end) for each run of set bits [start, end) in `mask`, lowest first: a run
// starts at a set bit after a clear one and ends at a set bit before one.
template <class Emit>
inline void forEachRun(uint32_t mask, Emit&& emit) {
    for (uint32_t starts = mask & ~(mask << 1), ends = mask & ~(mask >> 1); starts != 0;
         starts &= starts - 1, ends &= ends - 1) {
        emit(uint32_t(__builtin_ctz(starts)), uint32_t(__builtin_ctz(ends)) + 1);
    }
}

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
// A frustum plane in SSE lanes.
struct LanePlane {
    __m128 a, b, c, d;
};

// The four children's grid boxes side by side, lane q for child q (zero where absent).
struct ChildBoxes {
    __m128 x0, x1, y0, y1, z0, z1;
};

// Loads each child (x0 z0, last column and row, minCode maxCode, links) and transposes the boxes
// into lanes, the far sides one past the last squares; uint16 to float is exact. A full group is
// four consecutive nodes.
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
    const __m128i xz1 = _mm_unpackhi_epi32(ab, cd);         // last column a..d, last row a..d
    const __m128i y = _mm_unpacklo_epi32(abHigh, cdHigh);   // min a..d, max a..d
    const __m128i zero = _mm_setzero_si128();
    auto low = [&](__m128i v) { return _mm_cvtepi32_ps(_mm_unpacklo_epi16(v, zero)); };
    auto high = [&](__m128i v) { return _mm_cvtepi32_ps(_mm_unpackhi_epi16(v, zero)); };
    const __m128 one = _mm_set1_ps(1.0f);
    return {low(xz0),  _mm_add_ps(low(xz1), one), low(y), high(y),
            high(xz0), _mm_add_ps(high(xz1), one)};
}

// The same decisions as testChildrenOneByOne, four children at a time. Classify's p-vertex
// distance is ((a x + b y) + c z) + d at the corner farthest along the normal: as grid coordinates
// are never negative and rounding is monotone, a x at that corner is exactly the larger of a x0 and
// a x1 (and so on for y and z), and the n-vertex takes the smaller. No per-plane corner choice.
ChildTest testBoxesInLanes(const ChildBoxes& box, unsigned present, const LanePlane (&lanes)[6],
                           uint8_t mask) {
    const __m128 zero = _mm_setzero_ps();
    ChildTest result;
    for (unsigned rest = mask; rest != 0; rest &= rest - 1) {
        const int i = __builtin_ctz(rest);
        const LanePlane& p = lanes[i];
        const __m128 ax0 = _mm_mul_ps(p.a, box.x0), ax1 = _mm_mul_ps(p.a, box.x1);
        const __m128 by0 = _mm_mul_ps(p.b, box.y0), by1 = _mm_mul_ps(p.b, box.y1);
        const __m128 cz0 = _mm_mul_ps(p.c, box.z0), cz1 = _mm_mul_ps(p.c, box.z1);
        const __m128 farXY = _mm_add_ps(_mm_max_ps(ax0, ax1), _mm_max_ps(by0, by1));
        const __m128 nearXY = _mm_add_ps(_mm_min_ps(ax0, ax1), _mm_min_ps(by0, by1));
        const __m128 far = _mm_add_ps(_mm_add_ps(farXY, _mm_max_ps(cz0, cz1)), p.d);
        const __m128 near = _mm_add_ps(_mm_add_ps(nearXY, _mm_min_ps(cz0, cz1)), p.d);
        const int across = _mm_movemask_ps(_mm_cmplt_ps(near, zero));
        result.outside |= unsigned(_mm_movemask_ps(_mm_cmplt_ps(far, zero)));
        result.straddled |= kSpread[across] << i;
        result.straddling |= unsigned(across);
    }
    result.outside &= present;  // absent children are zero boxes: not decisions
    return result;
}

// A plane for testing the 16 leaves of a whole node two levels above them (four columns and four
// rows of leaves) by their p-vertices, Frustum::classify's corner choice made once per walk.
struct LeafPlane {
    LanePlane lane;
    __m128 farColumns;  // x of column j's far side from the node's x0: j side, plus side if a >= 0
    __m128 farRows;     // z of row j's far side from the node's z0, as for c
    bool farHigh;       // b >= 0: the far corner is at the leaf's highest sample
};

LeafPlane leafPlane(const LanePlane& lane, const glm::vec4& plane, float side) {
    const __m128 steps = _mm_setr_ps(0.0f, side, 2.0f * side, 3.0f * side);
    return {lane, _mm_add_ps(steps, _mm_set1_ps(plane.x >= 0 ? side : 0.0f)),
            _mm_add_ps(steps, _mm_set1_ps(plane.z >= 0 ? side : 0.0f)), plane.y >= 0};
}

// The leaves of `node` wholly outside a plane of `mask`: bit 4q + k for leaf k of child q (both
// NW NE SW SE), the leaves in tree order. A leaf not outside is drawn, whichever planes it
// straddles. Their code ranges are the 16 tree-order entries at `codes` (one cache line where the
// node's first leaf is a multiple of 16, as in a whole tree; loaded unaligned all the same); their
// boxes follow from the node's. Each distance is classify's: ((a x + b y) + c z) + d at the
// p-vertex, with the same floats (every coordinate is an integer below 65536), so the same
// decisions.
unsigned leavesOutside(const QuadtreeNode& node, const LeafCodes* codes,
                       const LeafPlane (&planes)[6], uint8_t mask) {
    // Child q's leaves' lowest and highest codes, lane k for leaf k.
    __m128 low[4], high[4];
    const __m128i lowHalf = _mm_set1_epi32(0xFFFF);
    for (int q = 0; q < 4; ++q) {
        const __m128i pairs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + 4 * q));
        low[q] = _mm_cvtepi32_ps(_mm_and_si128(pairs, lowHalf));
        high[q] = _mm_cvtepi32_ps(_mm_srli_epi32(pairs, 16));
    }
    const __m128 x0 = _mm_set1_ps(float(node.x0)), z0 = _mm_set1_ps(float(node.z0));
    const __m128 zero = _mm_setzero_ps();
    unsigned outside = 0;
    for (unsigned rest = mask; rest != 0; rest &= rest - 1) {
        const LeafPlane& p = planes[__builtin_ctz(rest)];
        // a x for columns 0-3 and c z for rows 0-3, then spread to child q's lanes: leaf k of
        // child q is in column 2 (q & 1) + (k & 1) and row 2 (q >> 1) + (k >> 1).
        const __m128 ax = _mm_mul_ps(p.lane.a, _mm_add_ps(x0, p.farColumns));
        const __m128 cz = _mm_mul_ps(p.lane.c, _mm_add_ps(z0, p.farRows));
        const __m128 axOf[2] = {_mm_movelh_ps(ax, ax), _mm_movehl_ps(ax, ax)};
        const __m128 czOf[2] = {_mm_unpacklo_ps(cz, cz), _mm_unpackhi_ps(cz, cz)};
        const __m128* y = p.farHigh ? high : low;
        for (int q = 0; q < 4; ++q) {
            const __m128 axy = _mm_add_ps(axOf[q & 1], _mm_mul_ps(p.lane.b, y[q]));
            const __m128 far = _mm_add_ps(_mm_add_ps(axy, czOf[q >> 1]), p.lane.d);
            outside |= unsigned(_mm_movemask_ps(_mm_cmplt_ps(far, zero))) << (4 * q);
        }
    }
    return outside;
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

// The node the walk opens next: which it is, where its leaves start, whether a map border runs
// through it, and the planes it straddles (its children test only those).
struct Cursor {
    uint32_t index;
    int level;
    uint32_t firstLeaf;
    bool whole;
    uint8_t mask;
};

// The walk below a root that straddles some plane: depth first in tree order, one frame per level
// holding the children still to visit. Each step is a member function; all are inlined into run().
class Walk {
public:
    Walk(const Quadtree& tree, const Frustum& local, const CullOptions& options, CullOutput& out)
        : tree_(tree), local_(local), options_(options), out_(out), runs_{out.ranges} {
        // openBottom only with both savings on: without them the walk is the plain one the
        // benchmarks compare against, every node's children tested before its leaves.
        leavesAtOnce_ = options.planeMasking && options.acceptWhole;
        useLanes_ = QT_CULL_LANES && options.lanes;
#if QT_CULL_LANES
        for (int i = 0; i < 6; ++i) {
            const glm::vec4& q = local.planes[size_t(i)];
            lanes_[i] = {_mm_set1_ps(q.x), _mm_set1_ps(q.y), _mm_set1_ps(q.z), _mm_set1_ps(q.w)};
            leafPlanes_[i] = leafPlane(lanes_[i], q, float(tree.leafSize));
        }
#endif
    }

    // Walks from the root, which straddles the planes of rootMask, then counts what it drew.
    void run(uint8_t rootMask) {
        Cursor at{tree_.rootIndex(), 0, 0, isWhole(tree_.root(), 0), rootMask};
        do {
            const QuadtreeNode& node = tree_.nodes[at.index];
            if (leavesAtOnce_ && at.whole && at.level + 2 == tree_.depth) {
                openBottom(node, at.firstLeaf, at.mask);
            } else {
                openNode(node, at);
            }
        } while (nextChild(at));
        runs_.flush();
        countDrawn();
    }

private:
    // A whole node's side is its level's nominal one: a whole root makes every node whole.
    uint32_t sideAt(int level) const {
        return uint32_t(tree_.leafSize) << (tree_.depth - level);
    }
    bool isWhole(const QuadtreeNode& n, int level) const {
        return uint32_t(n.x1() - n.x0) == sideAt(level) && uint32_t(n.z1() - n.z0) == sideAt(level);
    }

    // The result goes out through memory written and read field by field: returned whole, it
    // came back as two 32-bit stores read by one 64-bit load, which stalls store forwarding.
    void testChildren(const QuadtreeNode& node, unsigned present, uint8_t planes,
                      ChildTest& result) {
        out_.stats.nodesTested += bitCount4(present);
#if QT_CULL_LANES
        result = useLanes_
                     ? testBoxesInLanes(loadChildren(tree_, node, present), present, lanes_, planes)
                     : testChildrenOneByOne(tree_, node, local_, planes);
#else
        result = testChildrenOneByOne(tree_, node, local_, planes);
#endif
    }

    // Children of a frame drawn whole: in a border frame their leaves and triangles are counted
    // (every other drawn leaf is whole), and with recordDecisions they are recorded.
    void tally(const Frame& f, unsigned children) {
        const bool border = f.whole != 0xFu;
        if (!border && !out_.recordDecisions) {
            return;
        }
        for (unsigned rest = children; rest != 0; rest &= rest - 1) {
            const int q = __builtin_ctz(rest);
            const uint32_t child = f.firstChild + bitCount4(f.present & ((1u << q) - 1u));
            if (border) {
                borderTriangles_ += tree_.nodes[child].triangleCount();
                borderLeaves_ += f.bound[q + 1] - f.bound[q];
            }
            if (out_.recordDecisions) {
                out_.acceptedNodes.push_back(child);
            }
        }
    }

    void recordCulled(const QuadtreeNode& node, unsigned children) {
        for (unsigned rest = children; rest != 0; rest &= rest - 1) {
            cull(node.child(__builtin_ctz(rest)), out_);
        }
    }

    // A whole node two levels above the leaves (most of the walk's nodes are these): its 16
    // leaves tested straight against its planes, from its box and one line of leaf codes, without
    // its children's group. That draws exactly what testing the children first would: with exact
    // grid coordinates and monotone rounding a leaf's far-corner distance is at most its
    // parent's and its near-corner distance at least the parent's, so the leaves of a child
    // outside a plane are outside it, and those of a child inside a plane are inside it.
    void openBottom(const QuadtreeNode& node, uint32_t first, uint8_t planes) {
        out_.stats.nodesTested += 16;
        // Bit 4q + k: leaf k of child q, in tree order.
        uint32_t culled = 0;
#if QT_CULL_LANES
        if (useLanes_) {
            culled = leavesOutside(node, &tree_.leafCodes[first], leafPlanes_, planes);
        }
#endif
        if (!useLanes_) {
            for (unsigned q = 0; q < 4; ++q) {
                const QuadtreeNode& child = tree_.nodes[node.firstChild() + q];
                culled |= testChildrenOneByOne(tree_, child, local_, planes).outside << (4 * q);
            }
        }
        const uint32_t drawn = 0xFFFFu & ~culled;
        // Each run of set bits is a run of leaves.
        forEachRun(drawn,
                   [&](uint32_t start, uint32_t end) { runs_.add(first + start, first + end); });
        if (out_.recordDecisions) {
            recordBottom(node, first, drawn);
        }
    }

    // A child whose four leaves share a fate is recorded as one node, else its leaves.
    void recordBottom(const QuadtreeNode& node, uint32_t first, uint32_t drawn) {
        for (unsigned q = 0; q < 4; ++q) {
            const uint32_t mine = drawn >> (4 * q) & 0xFu;
            const uint32_t child = node.firstChild() + q;
            if (mine == 0xFu || mine == 0u) {
                (mine != 0 ? out_.acceptedNodes : out_.culledNodes).push_back(child);
                continue;
            }
            for (uint32_t k = 0; k < 4; ++k) {
                const uint32_t leaf = tree_.leafNodes[first + 4 * q + k];
                (mine >> k & 1u ? out_.acceptedNodes : out_.culledNodes).push_back(leaf);
            }
        }
    }

    // Tests the node's children and fills its frame (the next free one, stack_[at.level]): leaf
    // children go out at once, inner ones stay in the frame to be visited, or drawn whole.
    void openNode(const QuadtreeNode& node, const Cursor& at) {
        const unsigned present = at.whole ? 0xFu : node.childMask();
        ChildTest test;
        testChildren(node, present, at.mask, test);
        const unsigned inside = present & ~test.outside;
        if (out_.recordDecisions) {
            recordCulled(node, present & test.outside);
        }
        const int childLevel = at.level + 1;
        Frame& f = stack_[at.level];
        f.firstChild = node.firstChild();
        f.present = uint8_t(present);
        setBounds(f, at, childLevel);
        if (childLevel == tree_.depth) {
            // The children are leaves: they go out now, as at most two runs.
            forEachRun(inside, [&](uint32_t start, uint32_t end) {
                runs_.add(f.bound[start], f.bound[end]);
            });
            tally(f, inside);
            return;
        }
        const unsigned accepted = options_.acceptWhole ? inside & ~test.straddling : 0u;
        f.straddled = test.straddled;
        f.todo = uint8_t(inside);
        f.accepted = uint8_t(accepted);
        out_.stats.subtreesAccepted += bitCount4(accepted);
        prefetchChildren(f, inside & ~accepted, childLevel);
        top_ = at.level;
    }

    // The frame's leaf bounds per child, and which children no map border runs through.
    void setBounds(Frame& f, const Cursor& at, int childLevel) {
        f.bound[0] = at.firstLeaf;
        if (at.whole) {  // four whole children, a quarter of the leaves each
            const uint32_t count = 1u << (2 * (tree_.depth - childLevel));
            f.bound[1] = at.firstLeaf + count;
            f.bound[2] = at.firstLeaf + 2 * count;
            f.bound[3] = at.firstLeaf + 3 * count;
            f.bound[4] = at.firstLeaf + 4 * count;
            f.whole = 0xFu;
            return;
        }
        // A map border runs through the node: children are counted from their boxes.
        f.whole = 0;
        uint32_t child = f.firstChild;
        for (int q = 0; q < 4; ++q) {
            f.bound[q + 1] = f.bound[q];
            if (f.present >> q & 1u) {
                const QuadtreeNode& c = tree_.nodes[child++];
                f.bound[q + 1] += tree_.leafCount(c);
                f.whole |= uint8_t(isWhole(c, childLevel)) << q;
            }
        }
    }

    // Fetches what the children to open will read while the ones before them are done, one line
    // each (a group off a line's start, after a partial one, is fetched in part): their groups,
    // and for a whole child two levels above the leaves, the line of its 16 leaves' codes instead
    // (openBottom). Below a whole child, what its children will read too, before anything says
    // which will open: the 4 lines of its 64 leaves' codes for openBottom, else its children's
    // groups, which in a whole subtree sit at fixed offsets (quadtree.h), each after the 4 nodes
    // of the child's group and the `below` nodes of each subtree before it.
    void prefetchChildren(const Frame& f, unsigned toOpen, int childLevel) const {
        const int h = tree_.depth - childLevel - 1;
        const uint32_t below = h >= 1 ? ((1u << (2 * h + 2)) - 4u) / 3u : 0u;
        for (unsigned rest = toOpen; rest != 0; rest &= rest - 1) {
            const int q = __builtin_ctz(rest);
            const char* codes = reinterpret_cast<const char*>(&tree_.leafCodes[f.bound[q]]);
            const bool wholeChild = (f.whole >> q & 1u) != 0;
            const bool atOnce = leavesAtOnce_ && wholeChild;  // openBottom below
            if (atOnce && h == 1) {
                __builtin_prefetch(codes);
                continue;
            }
            const QuadtreeNode& c =
                tree_.nodes[f.firstChild + bitCount4(f.present & ((1u << q) - 1u))];
            const char* group = reinterpret_cast<const char*>(&tree_.nodes[c.firstChild()]);
            __builtin_prefetch(group);
            if (atOnce && h == 2) {
                for (uint32_t k = 0; k < 4; ++k) {
                    __builtin_prefetch(codes + 64 * k);
                }
            } else if (wholeChild && h >= 1) {
                for (uint32_t k = 0; k < 4; ++k) {
                    __builtin_prefetch(group + (4 + k * below) * sizeof(QuadtreeNode));
                }
            }
        }
    }

    // The next child to open, into `at`: the first one still to visit in the deepest frame,
    // drawing the accepted children before it; a frame with none left is done. False when every
    // frame is done.
    bool nextChild(Cursor& at) {
        while (top_ >= 0) {
            Frame& g = stack_[top_];
            if (g.todo == 0) {
                --top_;
                continue;
            }
            const int q = __builtin_ctz(g.todo);
            if (g.accepted >> q & 1u) {
                // Accepted children from q on: one run (they are all still to visit).
                const int length = __builtin_ctz(~(unsigned(g.accepted) >> q));
                const unsigned children = ((1u << length) - 1u) << q;
                runs_.add(g.bound[q], g.bound[q + length]);
                tally(g, children);
                g.todo = uint8_t(g.todo & ~children);
                continue;
            }
            g.todo = uint8_t(g.todo & (g.todo - 1u));
            at.index = g.firstChild + bitCount4(g.present & ((1u << q) - 1u));
            at.level = top_ + 1;
            at.firstLeaf = g.bound[q];
            at.whole = (g.whole >> q & 1u) != 0;
            at.mask = options_.planeMasking ? uint8_t(g.straddled >> (8 * q)) : kAllPlanes;
            return true;
        }
        return false;
    }

    // The leaf counts and triangles, from the output runs and the border tallies.
    void countDrawn() {
        uint32_t drawn = 0;
        for (const LeafRange& range : out_.ranges) {
            drawn += range.count;
        }
        const uint64_t leafTriangles = 2u * uint64_t(tree_.leafSize) * uint64_t(tree_.leafSize);
        out_.stats.leavesDrawn = drawn;
        out_.stats.leavesCulled = uint32_t(tree_.leaves.size()) - drawn;
        out_.stats.triangles = borderTriangles_ + uint64_t(drawn - borderLeaves_) * leafTriangles;
    }

    const Quadtree& tree_;
    const Frustum& local_;  // the planes in grid space
    const CullOptions& options_;
    CullOutput& out_;
    RunWriter runs_;
    bool leavesAtOnce_ = false;
    bool useLanes_ = false;
#if QT_CULL_LANES
    LanePlane lanes_[6];
    LeafPlane leafPlanes_[6];
#endif
    // Leaves drawn from frames with a map border through them, and their triangles.
    uint32_t borderLeaves_ = 0;
    uint64_t borderTriangles_ = 0;
    Frame stack_[kMaxTreeDepth];  // stack_[k]: the frame of the node being opened at depth k
    int top_ = -1;                // the deepest frame with children still to visit
};

}  // namespace

Frustum gridFrustum(const Frustum& frustum, const Quadtree& tree, const WorldMapping& mapping) {
    const HeightTransform height = heightTransform(tree.coding, mapping);
    return frustum.inGridSpace(mapping.spacingX, mapping.spacingZ, height.scale, height.bias);
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
// tested together against those planes, one SSE lane each (one by one without SSE2). The walk is
// depth first with one frame per level, holding the children still to visit; whole nodes two
// levels above the leaves (most of the walk's tests) test their 16 leaves at once, without frames,
// in openBottom. The output is in tree order, and the leaf counts and triangles come from it at
// the end.
void cullQuadtree(const Quadtree& tree, const WorldMapping& mapping, const Frustum& frustum,
                  CullOutput& out, const CullOptions& options) {
    assert(out.ranges.capacity() >= maxLeafRanges(tree));
    assert(!out.recordDecisions || out.acceptedNodes.capacity() >= tree.nodes.size());
    assert(tree.depth <= kMaxTreeDepth);
    out.ranges.clear();
    out.culledNodes.clear();
    out.acceptedNodes.clear();
    out.stats = {};
    const Frustum local = gridFrustum(frustum, tree, mapping);
    bool outside = false;
    ++out.stats.nodesTested;
    const uint8_t rootStraddled = local.classify(gridBox(tree.root()), kAllPlanes, outside);
    if (outside) {
        cull(tree.rootIndex(), out);
        out.stats.leavesCulled = uint32_t(tree.leaves.size());
        return;
    }
    if (tree.root().isLeaf() || (options.acceptWhole && rootStraddled == 0)) {
        accept(tree, tree.rootIndex(), 0, out);
        return;
    }
    Walk walk(tree, local, options, out);
    walk.run(options.planeMasking ? rootStraddled : kAllPlanes);
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

void subtractLeafRuns(const std::vector<LeafRange>& from, const std::vector<LeafRange>& removed,
                      std::vector<LeafRange>& out) {
    out.clear();
    size_t r = 0;
    for (const LeafRange& range : from) {
        uint32_t first = range.first;
        const uint32_t end = range.first + range.count;
        while (r < removed.size() && removed[r].first + removed[r].count <= first) {
            ++r;  // removed runs wholly before this one
        }
        for (size_t k = r; k < removed.size() && removed[k].first < end; ++k) {
            if (removed[k].first > first) {
                appendLeafRange(out, first, removed[k].first - first);
            }
            first = std::max(first, removed[k].first + removed[k].count);
        }
        if (first < end) {
            appendLeafRange(out, first, end - first);
        }
    }
}

uint64_t triangleCount(const Quadtree& tree, const std::vector<LeafRange>& ranges) {
    const QuadtreeNode& root = tree.root();
    const uint64_t perLeaf = 2u * uint64_t(tree.leafSize) * uint64_t(tree.leafSize);
    uint64_t triangles = 0;
    if (root.x1() % tree.leafSize == 0 && root.z1() % tree.leafSize == 0) {  // every leaf whole
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
