// The coarse-surface error of every inner node: each triangle its strip can draw, scanned row by
// row over the samples it covers, against the plane through its three corners.
#include "core/lod/lod_error.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <thread>
#include <unordered_set>

#include "core/config.h"
#include "core/lod/lod.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/vertex_grid.h"

namespace qt {
namespace {

// A triangle of sample coordinates with the plane through its corners' codes:
// h(x, z) = base + gx * x + gz * z.
struct SampleTriangle {
    int x[3];
    int z[3];
    double base, gx, gz;
};

bool makeTriangle(const CodeGrid& map, const int x[3], const int z[3], SampleTriangle& t) {
    const double ax = x[1] - x[0], az = z[1] - z[0];
    const double bx = x[2] - x[0], bz = z[2] - z[0];
    const double det = ax * bz - az * bx;
    if (det == 0.0) {
        return false;  // folded or clamped away: no area
    }
    const double h0 = map.codeAt(x[0], z[0]);
    const double ah = map.codeAt(x[1], z[1]) - h0;
    const double bh = map.codeAt(x[2], z[2]) - h0;
    for (int k = 0; k < 3; ++k) {
        t.x[k] = x[k];
        t.z[k] = z[k];
    }
    t.gx = (ah * bz - bh * az) / det;
    t.gz = (bh * ax - ah * bx) / det;
    t.base = h0 - t.gx * x[0] - t.gz * z[0];
    return true;
}

// Largest |h - plane| over samples x0..x1 of row z, clipped to the map: two reductions that
// vectorise.
double rowError(const CodeGrid& map, const SampleTriangle& t, int z, int x0, int x1) {
    if (z < 0 || z >= map.height) {
        return 0.0;
    }
    x0 = std::max(x0, 0);
    x1 = std::min(x1, map.width - 1);
    if (x0 > x1) {
        return 0.0;
    }
    const uint16_t* line =
        map.codes + size_t(z - map.originZ) * map.pitch + size_t(x0 - map.originX);
    const double start = t.base + t.gz * z + t.gx * x0;
    double lo = line[0], hi = lo;
    for (int i = 1; i <= x1 - x0; ++i) {
        const double d = double(line[i]) - t.gx * double(i);
        lo = std::min(lo, d);
        hi = std::max(hi, d);
    }
    return std::max(hi - start, start - lo);
}

// The samples the closed triangle covers, row by row.
double insideError(const CodeGrid& map, const SampleTriangle& t) {
    const int zMin = std::min({t.z[0], t.z[1], t.z[2]});
    const int zMax = std::max({t.z[0], t.z[1], t.z[2]});
    double worst = 0.0;
    for (int z = zMin; z <= zMax; ++z) {
        double lo = 1e30, hi = -1e30;
        for (int k = 0; k < 3; ++k) {
            const int a = k, b = (k + 1) % 3;
            const int za = t.z[a], zb = t.z[b];
            if (z < std::min(za, zb) || z > std::max(za, zb)) {
                continue;
            }
            if (za == zb) {
                lo = std::min({lo, double(t.x[a]), double(t.x[b])});
                hi = std::max({hi, double(t.x[a]), double(t.x[b])});
                continue;
            }
            const double x = t.x[a] + double(z - za) * double(t.x[b] - t.x[a]) / double(zb - za);
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
        if (lo <= hi) {
            worst = std::max(
                worst, rowError(map, t, z, int(std::ceil(lo - 1e-9)), int(std::floor(hi + 1e-9))));
        }
    }
    return worst;
}

// Where an edge of a coarse triangle crosses a full-detail edge between samples: the full-detail
// surface there is h(a) + t (h(b) - h(a)) along that edge, from a to b.
struct Crossing {
    double px, pz;  // the point
    int ax, az, bx, bz;
    double t;
};

// The crossings of the coarse edge (xa, za)-(xb, zb) with the full-detail grid's columns, rows and
// diagonals (x + z constant) away from samples, appended to `out`. An edge along a column, a row
// or a diagonal meets them only at samples: none. Between crossings both surfaces are linear on
// the edge, so its largest distance is at a crossing or at a sample.
void appendCrossings(int xa, int za, int xb, int zb, std::vector<Crossing>& out) {
    const int dx = xb - xa, dz = zb - za;
    if (dx == 0 || dz == 0 || dx == -dz) {
        return;
    }
    for (int k = std::min(xa, xb) + 1; k < std::max(xa, xb); ++k) {  // columns x = k
        const double z = za + double(k - xa) * dz / dx;
        const double f = std::floor(z);
        if (z != f) {
            out.push_back({double(k), z, k, int(f), k, int(f) + 1, z - f});
        }
    }
    for (int r = std::min(za, zb) + 1; r < std::max(za, zb); ++r) {  // rows z = r
        const double x = xa + double(r - za) * dx / dz;
        const double f = std::floor(x);
        if (x != f) {
            out.push_back({x, double(r), int(f), r, int(f) + 1, r, x - f});
        }
    }
    const int ca = xa + za, cb = xb + zb;
    for (int c = std::min(ca, cb) + 1; c < std::max(ca, cb); ++c) {  // diagonals x + z = c
        const double u = double(c - ca) / double(cb - ca);
        const double x = xa + u * dx;
        const double f = std::floor(x);
        if (x != f) {
            const int k = int(f);
            out.push_back({x, double(c) - x, k, c - k, k + 1, c - k - 1, x - f});
        }
    }
}

double crossingError(const CodeGrid& map, const SampleTriangle& t, const Crossing* first,
                     const Crossing* last, int x0, int z0) {
    double worst = 0.0;
    for (const Crossing* c = first; c != last; ++c) {
        const double ha = map.codeAt(x0 + c->ax, z0 + c->az);
        const double hb = map.codeAt(x0 + c->bx, z0 + c->bz);
        const double plane = t.base + t.gx * (x0 + c->px) + t.gz * (z0 + c->pz);
        worst = std::max(worst, std::abs(ha + c->t * (hb - ha) - plane));
    }
    return worst;
}

// A local triangle at one level, placed with its node's origin at (0, 0): the samples it covers
// as row spans and its edges' crossings, for nodes that the map does not clamp.
struct TriangleShape {
    int x[3], z[3];
    size_t spanFirst, spanLast, crossFirst, crossLast;
};

struct Span {
    int z, x0, x1;
};

// The closed triangle's samples, row by row, with origin (0, 0) and no map to clip to.
void appendSpans(const int x[3], const int z[3], std::vector<Span>& out) {
    const int zMin = std::min({z[0], z[1], z[2]});
    const int zMax = std::max({z[0], z[1], z[2]});
    for (int row = zMin; row <= zMax; ++row) {
        double lo = 1e30, hi = -1e30;
        for (int k = 0; k < 3; ++k) {
            const int a = k, b = (k + 1) % 3;
            if (row < std::min(z[a], z[b]) || row > std::max(z[a], z[b])) {
                continue;
            }
            if (z[a] == z[b]) {
                lo = std::min({lo, double(x[a]), double(x[b])});
                hi = std::max({hi, double(x[a]), double(x[b])});
                continue;
            }
            const double xr = x[a] + double(row - z[a]) * double(x[b] - x[a]) / double(z[b] - z[a]);
            lo = std::min(lo, xr);
            hi = std::max(hi, xr);
        }
        if (lo <= hi) {
            out.push_back({row, int(std::ceil(lo - 1e-9)), int(std::floor(hi + 1e-9))});
        }
    }
}

}  // namespace

std::vector<LocalTriangle> foldedStripTriangles(int leafSize) {
    std::vector<uint32_t> strip;
    appendLeafStrip(0, 0, leafSize, leafSize, leafSize + 1, strip);
    std::vector<LocalTriangle> triangles;
    // The triangles found so far, by their sorted corners: a hash set, as the 16 masks of a leaf
    // of 64 give 131,072 candidates (a search of the list for each took seconds).
    std::unordered_set<uint64_t> seen;
    seen.reserve(strip.size() * 2);
    const int far = 1 << 20;  // no clamping: local coordinates as they are
    for (uint8_t coarser = 0; coarser < 16; ++coarser) {
        const DrawNode node{0, 0, 0, coarser, 0, 0, {0, 0, 0, 0}};
        int vi[3] = {}, vj[3] = {};
        for (size_t n = 0; n < strip.size(); ++n) {
            const int id = int(strip[n]);
            lodVertexSample(node, id % (leafSize + 1), id / (leafSize + 1), leafSize, far, far,
                            vi[n % 3], vj[n % 3]);
            if (n < 2) {
                continue;
            }
            const bool same01 = vi[0] == vi[1] && vj[0] == vj[1];
            const bool same12 = vi[1] == vi[2] && vj[1] == vj[2];
            const bool same02 = vi[0] == vi[2] && vj[0] == vj[2];
            if (same01 || same12 || same02) {
                continue;  // a join between rows or a folded triangle: no area
            }
            // Corners sorted, so that the same triangle from two masks is found equal.
            int order[3] = {0, 1, 2};
            std::sort(order, order + 3,
                      [&](int a, int b) { return vj[a] != vj[b] ? vj[a] < vj[b] : vi[a] < vi[b]; });
            LocalTriangle t{};
            for (int k = 0; k < 3; ++k) {
                t.i[k] = uint8_t(vi[order[k]]);
                t.j[k] = uint8_t(vj[order[k]]);
            }
            uint64_t key = 0;
            for (int k = 0; k < 3; ++k) {
                key = key << 16 | uint64_t(t.i[k]) << 8 | t.j[k];
            }
            if (seen.insert(key).second) {
                triangles.push_back(t);
            }
        }
    }
    return triangles;
}

namespace {

// Whole codes, rounded up and saturated.
uint16_t roundedUp(double error) {
    return uint16_t(std::min(std::ceil(error - 1e-6), 65535.0));
}

// exactCoarseErrorsOfRows for a block of one level, with the strip's triangles already made: the
// first 2 leafSize^2 the unfolded strip's, the rest drawn only by folds. With `folds`, the unfolded
// strip's error goes to `errors` and the folds' to `folds`; without, the larger to `errors`. Level
// 0 is the leaves, by leaf (row * leavesX + col), their folds' errors alone (`errors` null: their
// unfolded strip is the full-detail surface). Rows of nodes are shared out among up to
// maxThreads threads.
void errorsOfLevelBlock(const CodeGrid& map, const Quadtree& tree,
                        const std::vector<LocalTriangle>& triangles, int level,
                        const NodeBlock& block, uint16_t* errors, uint16_t* folds,
                        const std::atomic<bool>* cancel, int maxThreads = kMaxLoadThreads,
                        bool blockLocal = false) {
    const int firstNodeRow = block.firstRow;
    const int lastNodeRow = block.lastRow;
    const size_t unfolded = size_t(2 * tree.leafSize * tree.leafSize);
    std::vector<TriangleShape> shapes;
    std::vector<Span> spans;
    std::vector<Crossing> crossings;
    const int span = tree.leafSize << level;  // samples along a whole node's side
    // The shapes at this level, for whole nodes.
    for (const LocalTriangle& local : triangles) {
        TriangleShape shape{};
        for (int k = 0; k < 3; ++k) {
            shape.x[k] = int(local.i[k]) << level;
            shape.z[k] = int(local.j[k]) << level;
        }
        shape.spanFirst = spans.size();
        appendSpans(shape.x, shape.z, spans);
        shape.spanLast = spans.size();
        shape.crossFirst = crossings.size();
        for (int k = 0; k < 3; ++k) {
            appendCrossings(shape.x[k], shape.z[k], shape.x[(k + 1) % 3], shape.z[(k + 1) % 3],
                            crossings);
        }
        shape.crossLast = crossings.size();
        shapes.push_back(shape);
    }
    const int cols = level == 0 ? tree.leavesX : int(tree.levelWidth[size_t(level)]);
    // Rows of nodes shared out among threads, each writing its own nodes' errors.
    const auto errorsOfRows = [&](int firstRow, int rowStep) {
        std::vector<Crossing> scratch;
        for (int row = firstNodeRow + firstRow; row < lastNodeRow; row += rowStep) {
            if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
                return;
            }
            for (int col = block.firstCol; col < block.lastCol; ++col) {
                const int x0 = col * span, z0 = row * span;
                const bool whole = x0 + span <= map.width - 1 && z0 + span <= map.height - 1;
                double worstUnfolded = 0.0;
                double worst = 0.0;  // of the shapes so far
                for (size_t s = 0; s < shapes.size(); ++s) {
                    if (s == unfolded) {
                        worstUnfolded = worst;
                        worst = 0.0;
                    }
                    const TriangleShape& shape = shapes[s];
                    int x[3], z[3];
                    for (int k = 0; k < 3; ++k) {
                        x[k] = std::min(x0 + shape.x[k], map.width - 1);
                        z[k] = std::min(z0 + shape.z[k], map.height - 1);
                    }
                    SampleTriangle t;
                    if (!makeTriangle(map, x, z, t)) {
                        continue;
                    }
                    if (whole) {
                        for (size_t n = shape.spanFirst; n < shape.spanLast; ++n) {
                            const Span& r = spans[n];
                            worst =
                                std::max(worst, rowError(map, t, z0 + r.z, x0 + r.x0, x0 + r.x1));
                        }
                        worst = std::max(worst,
                                         crossingError(map, t, crossings.data() + shape.crossFirst,
                                                       crossings.data() + shape.crossLast, x0, z0));
                        continue;
                    }
                    // Clamped by the map: the triangle as it is placed.
                    scratch.clear();
                    for (int k = 0; k < 3; ++k) {
                        appendCrossings(x[k], z[k], x[(k + 1) % 3], z[(k + 1) % 3], scratch);
                    }
                    worst = std::max({worst, insideError(map, t),
                                      crossingError(map, t, scratch.data(),
                                                    scratch.data() + scratch.size(), 0, 0)});
                }
                if (shapes.size() <= unfolded) {
                    worstUnfolded = worst;
                    worst = 0.0;
                }
                const size_t local =
                    size_t(row - block.firstRow) * size_t(block.lastCol - block.firstCol) +
                    size_t(col - block.firstCol);
                if (level == 0) {
                    folds[blockLocal ? local : size_t(row) * size_t(cols) + size_t(col)] =
                        roundedUp(worst);
                    continue;
                }
                const size_t index =
                    blockLocal ? local : size_t(tree.levelIndex(level, col << level, row << level));
                if (folds != nullptr) {
                    errors[index] = roundedUp(worstUnfolded);
                    folds[index] = roundedUp(worst);
                } else {
                    errors[index] = roundedUp(std::max(worstUnfolded, worst));
                }
            }
        }
    };
    const int threads = std::min({int(std::max(std::thread::hardware_concurrency(), 1u)),
                                  maxThreads, std::max(lastNodeRow - firstNodeRow, 1)});
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) {
        helpers.emplace_back(errorsOfRows, t, threads);
    }
    errorsOfRows(0, threads);
    for (std::thread& helper : helpers) {
        helper.join();
    }
}

}  // namespace

void exactCoarseErrorsOfRows(const CodeGrid& map, const Quadtree& tree, int level, int firstNodeRow,
                             int lastNodeRow, uint16_t* errors, const std::atomic<bool>* cancel,
                             uint16_t* folds) {
    assert(level >= 1 && level <= tree.depth && 0 <= firstNodeRow && firstNodeRow <= lastNodeRow);
    const NodeBlock rows{0, int(tree.levelWidth[size_t(level)]), firstNodeRow, lastNodeRow};
    errorsOfLevelBlock(map, tree, foldedStripTriangles(tree.leafSize), level, rows, errors, folds,
                       cancel);
}

void exactLeafFoldErrorsOfRows(const CodeGrid& map, const Quadtree& tree, int firstLeafRow,
                               int lastLeafRow, uint16_t* folds, const std::atomic<bool>* cancel) {
    assert(0 <= firstLeafRow && firstLeafRow <= lastLeafRow && lastLeafRow <= tree.leavesZ);
    const NodeBlock rows{0, tree.leavesX, firstLeafRow, lastLeafRow};
    errorsOfLevelBlock(map, tree, foldedStripTriangles(tree.leafSize), 0, rows, nullptr, folds,
                       cancel);
}

void exactErrorsOfBlock(const CodeGrid& map, const Quadtree& tree, int level,
                        const NodeBlock& block, uint16_t* errors, uint16_t* folds,
                        bool blockLocal) {
    assert(level >= 0 && level <= tree.depth && block.firstCol >= 0 &&
           block.firstCol <= block.lastCol && block.firstRow >= 0 &&
           block.firstRow <= block.lastRow);
    errorsOfLevelBlock(map, tree, foldedStripTriangles(tree.leafSize), level, block,
                       level == 0 ? nullptr : errors, folds, nullptr, 1, blockLocal);
}

std::vector<uint16_t> exactLeafFoldErrors(const CodeGrid& map, const Quadtree& tree,
                                          const std::atomic<bool>* cancel) {
    std::vector<uint16_t> folds(size_t(tree.leavesX) * size_t(tree.leavesZ), 0);
    exactLeafFoldErrorsOfRows(map, tree, 0, tree.leavesZ, folds.data(), cancel);
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
        return {};
    }
    return folds;
}

std::vector<uint16_t> exactCoarseErrors(const CodeGrid& map, const Quadtree& tree,
                                        const std::atomic<bool>* cancel,
                                        std::vector<uint16_t>* folds) {
    assert(tree.levelStart.size() == size_t(tree.depth) + 2);
    std::vector<uint16_t> errors(tree.levelStart.back(), 0);
    if (folds != nullptr) {
        folds->assign(errors.size(), 0);
    }
    const std::vector<LocalTriangle> triangles = foldedStripTriangles(tree.leafSize);
    for (int level = 1; level <= tree.depth; ++level) {
        const NodeBlock rows{0, int(tree.levelWidth[size_t(level)]), 0,
                             ((tree.leavesZ - 1) >> level) + 1};
        errorsOfLevelBlock(map, tree, triangles, level, rows, errors.data(),
                           folds != nullptr ? folds->data() : nullptr, cancel);
        if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
            if (folds != nullptr) {
                folds->clear();
            }
            return {};
        }
    }
    return errors;
}

void computeCoarseErrors(const Heightmap& map, Quadtree& tree) {
    tree.coarseErrors = exactCoarseErrors(codeGrid(map), tree, nullptr, &tree.foldErrors);
    tree.leafFoldErrors = exactLeafFoldErrors(codeGrid(map), tree);
    tree.lodErrors = LodErrors::Exact;
    tree.exactLevels = tree.depth;
}

Result<Quadtree> buildQuadtreeExact(const Heightmap& map, int leafSize) {
    Result<Quadtree> tree = buildQuadtree(map, leafSize);
    if (tree) {
        computeCoarseErrors(map, tree.value());
    }
    return tree;
}

}  // namespace qt
