// The frame pipeline's stages in order: walk, then occlusion at full detail or level of detail.
#include "core/frame/frame.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <thread>

#include "core/config.h"

namespace qt {
namespace {

using Clock = std::chrono::steady_clock;

// The walk: frame.walk holds the leaves in the frustum (or every leaf).
void walkStage(const Quadtree& tree, const WorldMapping& mapping, const CullView& view,
               const Frustum& frustum, FrameBuffers& frame, FrameStats& stats) {
    if (view.frustum) {
        cullQuadtree(tree, mapping, frustum, frame.walk);
    } else {
        selectAll(tree, frame.walk);
    }
    stats.cull = frame.walk.stats;
}

// Objects, first part: those in the frustum (every live one with view.frustum off), and their
// boxes for the occlusion stage.
void objectFrustumStage(const LooseObjectTree& objects, const CullView& view,
                        const Frustum& frustum, FrameBuffers& frame, FrameStats& stats) {
    const Clock::time_point start = Clock::now();
    if (view.frustum) {
        FrustumQueryStats query;
        objects.queryFrustumGroups(frustum, frame.objectsInFrustum, frame.objectGroups, &query);
        stats.objects.nodesTested = query.nodesTested;
        stats.objects.objectsTested = query.objectsTested;
    } else {  // every object, in the order the query gives them (see allInTreeOrder); no groups:
              // without the frustum the occlusion stage does not run
        objects.allInTreeOrder(frame.objectsInFrustum);
        frame.objectGroups.clear();
    }
    stats.objects.total = objects.objectCount();
    stats.objects.culled = stats.objects.total - uint32_t(frame.objectsInFrustum.size());
    stats.objects.cullMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Objects, second part: those in the frustum less the groups the occlusion stage hid.
void objectDrawnStage(FrameBuffers& frame, FrameStats& stats) {
    const Clock::time_point start = Clock::now();
    const std::vector<uint32_t>& ids = frame.objectsInFrustum;
    const std::vector<uint8_t>& hidden = frame.occlusion.boxOccluded;
    const bool tested = stats.occlusion.active && stats.occlusion.boxesTested > 0;
    ObjectGroups& drawnGroups = frame.objectsDrawnGroups;
    if (!tested) {
        frame.objectsDrawn.assign(ids.begin(), ids.end());
        drawnGroups.end.assign(frame.objectGroups.end.begin(), frame.objectGroups.end.end());
        drawnGroups.box.assign(frame.objectGroups.box.begin(), frame.objectGroups.box.end());
        drawnGroups.node.assign(frame.objectGroups.node.begin(), frame.objectGroups.node.end());
    } else {
        frame.objectsDrawn.clear();
        drawnGroups.clear();
        const std::vector<uint32_t>& ends = frame.objectGroups.end;
        for (size_t g = 0; g < ends.size(); ++g) {
            if (hidden[g] == 0) {
                const uint32_t begin = g == 0 ? 0 : ends[g - 1];
                frame.objectsDrawn.insert(frame.objectsDrawn.end(), ids.begin() + begin,
                                          ids.begin() + ends[g]);
                drawnGroups.end.push_back(uint32_t(frame.objectsDrawn.size()));
                drawnGroups.box.push_back(frame.objectGroups.box[g]);
                drawnGroups.node.push_back(frame.objectGroups.node[g]);
            }
        }
    }
    stats.objects.groupsTested = stats.occlusion.boxesTested;
    stats.objects.drawn = uint32_t(frame.objectsDrawn.size());
    stats.objects.occluded = uint32_t(frame.objectsInFrustum.size()) - stats.objects.drawn;
    stats.objects.cullMs += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

BoxOccludees occludees(const FrameBuffers& frame) {
    return {frame.objectGroups.box.data(), uint32_t(frame.objectGroups.box.size())};
}

// The leaves under a drawn instance, as a run of tree-order leaves' first leaf and a count: a
// leaf, or a node `level` levels up (its leaves a square of 2^level, cut at the map's border).
LeafRange leavesUnder(const Quadtree& tree, LeafCoord leaf) {
    return {tree.leafIndexAt(leaf.col, leaf.row), 1};
}
LeafRange leavesUnder(const Quadtree& tree, const DrawNode& node) {
    const uint32_t side = 1u << node.level;
    const uint32_t cols = std::min(side, uint32_t(tree.leavesX) - node.col);
    const uint32_t rows = std::min(side, uint32_t(tree.leavesZ) - node.row);
    return {tree.leafIndexAt(node.col, node.row), cols * rows};
}

// The tree node an instance draws over: a leaf's, or the one `level` levels up from its first
// leaf (the node of that level holding it: its box is the instance's, clipped to the map alike).
const QuadtreeNode& treeNode(const Quadtree& tree, LeafCoord leaf) {
    return tree.nodes[tree.leafNodes[tree.leafIndexAt(leaf.col, leaf.row)]];
}
uint32_t treeNodeIndex(const Quadtree& tree, const DrawNode& node) {
    const uint32_t index = tree.nodeAt(node.level, node.col, node.row);
    assert(tree.nodes[index].x0 == uint32_t(node.col) << tree.leafShift &&
           tree.nodes[index].z0 == uint32_t(node.row) << tree.leafShift);
    return index;
}
const QuadtreeNode& treeNode(const Quadtree& tree, const DrawNode& node) {
    return tree.nodes[treeNodeIndex(tree, node)];
}

// The triangles an instance draws: two a square of a leaf, or of a node at its level's step.
uint64_t instanceTriangles(const Quadtree& tree, LeafCoord leaf) {
    return treeNode(tree, leaf).triangleCount();
}
uint64_t instanceTriangles(const Quadtree& tree, const DrawNode& node) {
    const QuadtreeNode& n = treeNode(tree, node);
    const uint32_t step = 1u << node.level;
    return 2ull * uint64_t((n.x1() - n.x0 + step - 1) / step) *
           uint64_t((n.z1() - n.z0 + step - 1) / step);
}

// Moves the instances over a hole behind the others, keeping each part's order (a stable
// partition through `scratch`, whose capacity reserveFor made: no allocation), and drops those
// that draw nothing (Quadtree::emptyIn: every fragment would be left out), adding their
// triangles to `emptyTriangles`; returns where the instances over a hole start.
template <typename Instance>
uint32_t moveHolesLast(const Quadtree& tree, std::vector<Instance>& instances,
                       std::vector<Instance>& scratch, uint64_t& emptyTriangles) {
    if (!tree.hasHoles()) {
        return uint32_t(instances.size());
    }
    scratch.clear();
    size_t kept = 0;
    for (const Instance& instance : instances) {
        const LeafRange leaves = leavesUnder(tree, instance);
        if (tree.emptyIn(leaves.first, leaves.count)) {
            emptyTriangles += instanceTriangles(tree, instance);
            continue;
        }
        if (tree.holesIn(leaves.first, leaves.count)) {
            scratch.push_back(instance);
        } else {
            instances[kept++] = instance;
        }
    }
    std::copy(scratch.begin(), scratch.end(), instances.begin() + std::ptrdiff_t(kept));
    instances.resize(kept + scratch.size());
    return uint32_t(kept);
}

// Full detail: the walk's leaves less those nearer terrain hides, as runs and as instances.
void fullDetailStage(const Quadtree& tree, const WorldMapping& mapping, const CullView& view,
                     FrameBuffers& frame, FrameStats& stats) {
    if (view.frustum && view.occlusion) {
        cullOccluded(tree, mapping, view.camera, view.viewportHeight, frame.walk.ranges,
                     frame.occlusion, frame.drawn, stats.occlusion, occludees(frame));
    } else {
        frame.drawn.assign(frame.walk.ranges.begin(), frame.walk.ranges.end());
    }
    if (stats.occlusion.leavesOccluded > 0) {
        stats.cull.leavesOccluded = stats.occlusion.leavesOccluded;
        stats.cull.leavesDrawn -= stats.occlusion.leavesOccluded;
        stats.cull.triangles = triangleCount(tree, frame.drawn);
    }
    frame.drawList.clear();
    appendLeafCoords(tree, frame.drawn, frame.drawList);
    const size_t selected = frame.drawList.size();
    uint64_t emptyTriangles = 0;  // drawn by no instance: they are not the frame's
    frame.holesFrom = moveHolesLast(tree, frame.drawList, frame.holeLeafScratch, emptyTriangles);
    stats.cull.triangles -= emptyTriangles;
    stats.instancesOverHoles = uint32_t(frame.drawList.size()) - frame.holesFrom;
    stats.instancesEmpty = uint32_t(selected - frame.drawList.size());
}

// Level of detail: the drawn nodes into frame.lod, culled by `frustum` unless view.frustum is
// off; the occlusion stage over the nodes drawn at full detail. The walk's leaves, less those
// occluded, stay the frame's leaves (minimap, cull map, --dump-leaves) as runs: expanding them
// per frame would cost what level of detail saves.
void levelOfDetailStage(const Heightmap& map, const Quadtree& tree, const WorldMapping& mapping,
                        const CullView& view, const Frustum& frustum, FrameBuffers& frame,
                        FrameStats& stats) {
    const Camera& c = view.camera;
    LodParams params =
        lodParams(tree, mapping, c, view.viewportHeight, view.lodPixels,
                  mapping.worldHeight(map.minSample), mapping.worldHeight(map.maxSample));
    updateLodReach(tree, mapping, params, frame.lodReach);
    params.reach = &frame.lodReach;
    params.residency = view.residency;
    params.threads = frame.lodThreads;
    selectLod(tree, mapping, params, view.frustum ? &frustum : nullptr, frame.lod);
    frame.coarseHoles.clear();
    if (view.frustum && view.occlusion) {
        for (size_t i = 0; tree.hasHoles() && i < frame.lod.nodes.size(); ++i) {
            if (frame.lod.nodes[i].level > 0) {  // appendDiveBoxes: nothing without a hole
                appendDiveBoxes(tree, treeNodeIndex(tree, frame.lod.nodes[i]), frame.coarseHoles);
            }
        }
        frame.lodLeaves.clear();
        appendFullDetailLeaves(tree, frame.lod, frame.lodLeaves);
        const DrawnHoles drawn{true, frame.coarseHoles.data(), uint32_t(frame.coarseHoles.size())};
        cullOccluded(tree, mapping, c, view.viewportHeight, frame.lodLeaves, frame.occlusion,
                     frame.lodKept, stats.occlusion, occludees(frame), drawn);
    }
    if (stats.occlusion.leavesOccluded > 0) {
        keepFullDetailLeaves(tree, frame.lodKept, frame.lod);
        subtractLeafRuns(frame.lodLeaves, frame.lodKept, frame.lodOccluded);
        subtractLeafRuns(frame.walk.ranges, frame.lodOccluded, frame.drawn);
        stats.cull.leavesOccluded = stats.occlusion.leavesOccluded;
        stats.cull.leavesDrawn -= stats.occlusion.leavesOccluded;
    } else {
        frame.drawn.assign(frame.walk.ranges.begin(), frame.walk.ranges.end());
    }
    frame.drawList.clear();
    const size_t selected = frame.lod.nodes.size();
    uint64_t emptyTriangles = 0;
    frame.holesFrom = moveHolesLast(tree, frame.lod.nodes, frame.holeNodeScratch, emptyTriangles);
    stats.instancesOverHoles = uint32_t(frame.lod.nodes.size()) - frame.holesFrom;
    stats.instancesEmpty = uint32_t(selected - frame.lod.nodes.size());
    stats.lod = true;
    stats.lodStats = frame.lod.stats;
    stats.lodStats.triangles -= emptyTriangles;
    stats.cull.triangles = stats.lodStats.triangles;
}

}  // namespace

void groupByProgram(FrameBuffers& frame) {
    std::vector<DrawNode>& nodes = frame.lod.nodes;
    std::vector<DrawNode>& scratch = frame.holeNodeScratch;
    const size_t count = nodes.size();
    const size_t bounds[] = {0, std::min(size_t(frame.holesFrom), count), count};
    for (size_t part = 0; part + 1 < std::size(bounds); ++part) {
        // A counting sort by key: the part's nodes into scratch, then back key by key.
        std::array<size_t, kProgramKeys> at{};
        for (size_t i = bounds[part]; i < bounds[part + 1]; ++i) {
            ++at[size_t(programKey(nodes[i]))];
        }
        if (*std::max_element(at.begin(), at.end()) == bounds[part + 1] - bounds[part]) {
            continue;  // one key (or none): in order already
        }
        size_t next = bounds[part];
        for (size_t& first : at) {
            const size_t keyCount = first;
            first = next;
            next += keyCount;
        }
        scratch.assign(nodes.begin() + std::ptrdiff_t(bounds[part]),
                       nodes.begin() + std::ptrdiff_t(bounds[part + 1]));
        for (const DrawNode& node : scratch) {
            nodes[at[size_t(programKey(node))]++] = node;
        }
    }
}

int defaultSelectThreads() {
    return std::clamp(int(std::thread::hardware_concurrency()), 1, kMaxSelectThreads);
}

void FrameBuffers::reserveFor(const Quadtree& tree, bool recordDecisions) {
    walk.recordDecisions = recordDecisions;
    walk.reserveFor(tree);
    occlusion.reserveFor(tree);
    drawn.clear();
    drawn.reserve(maxLeafRanges(tree));
    drawList.clear();
    drawList.reserve(tree.leaves.size());
    lod.reserveFor(tree, lodThreads);
    lodReach.reserveFor(tree);
    holeLeafScratch.clear();
    holeNodeScratch.clear();
    // A frame's dive boxes are each a leaf with a hole or a subtree holding one, the subtrees
    // apart (a selection's nodes do not overlap), so there are at most as many as leaves with a
    // hole.
    const size_t holeLeaves = tree.holeLeafBox.size();
    coarseHoles.clear();
    coarseHoles.reserve(holeLeaves);
    holeNodeScratch.reserve(lod.nodes.capacity());  // groupByProgram's too
    if (tree.hasHoles()) {
        holeLeafScratch.reserve(tree.leaves.size());
    }
    for (std::vector<LeafRange>* runs : {&lodLeaves, &lodKept, &lodOccluded}) {
        runs->clear();
        runs->reserve(maxLeafRanges(tree));
    }
}

void FrameBuffers::reserveObjects(uint32_t count) {
    objectsInFrustum.clear();
    objectsInFrustum.reserve(count);
    for (ObjectGroups* groups : {&objectGroups, &objectsDrawnGroups}) {
        groups->clear();
        groups->end.reserve(count);
        groups->box.reserve(count);
        groups->node.reserve(count);
    }
    objectsDrawn.clear();
    objectsDrawn.reserve(count);
    occlusion.reserveBoxes(count);
}

float cullMargin(const Camera& camera, const WorldMapping& mapping, const WorldExtent& extent) {
    const glm::vec3& e = camera.position;
    if (!std::isfinite(e.x) || !std::isfinite(e.y) || !std::isfinite(e.z)) {
        return std::numeric_limits<float>::max();  // non-finite input culls nothing
    }
    const float margin =
        kCullMarginSpacings * mapping.largerSpacing() +
        kCullMarginUlps * std::numeric_limits<float>::epsilon() * largestCoordinate(e, extent);
    return std::isfinite(margin) ? margin : std::numeric_limits<float>::max();
}

Frustum cullingFrustum(const Camera& camera, const WorldMapping& mapping,
                       const WorldExtent& extent) {
    return Frustum::fromViewProjection(camera.viewProjectionDouble(),
                                       cullMargin(camera, mapping, extent));
}

FrameStats runFrame(const Heightmap& map, const Quadtree& tree, const WorldMapping& mapping,
                    const CullView& view, FrameBuffers& frame, const LooseObjectTree* objects) {
    FrameStats stats;
    const Clock::time_point start = Clock::now();
    const Frustum frustum = cullingFrustum(view.camera, mapping, worldExtent(map, mapping));
    walkStage(tree, mapping, view, frustum, frame, stats);
    frame.objectGroups.clear();
    if (objects) {
        objectFrustumStage(*objects, view, frustum, frame, stats);
    }
    if (view.lodPixels > 0.0f) {
        levelOfDetailStage(map, tree, mapping, view, frustum, frame, stats);
    } else {
        fullDetailStage(tree, mapping, view, frame, stats);
    }
    if (objects) {
        objectDrawnStage(frame, stats);
    }
    stats.cullMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    stats.nodesTotal = uint32_t(tree.nodes.size());
    stats.leavesTotal = uint32_t(tree.leaves.size());
    return stats;
}

}  // namespace qt
