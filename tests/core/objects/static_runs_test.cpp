// The static objects in the tree's key order and a frame's drawn static objects as runs of it:
// the same objects in the same lists as the instances sent by id, over a flight whose balls
// reshape the tree between frames.
#include "core/objects/static_runs.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/frame/frame.h"
#include "core/terrain/synthetic.h"
#include "core/view/flight_path.h"
#include "test_scene.h"

namespace qt {
namespace {

// The entries of each of `runs`' lists in place order, as the ids buildObjectInstances sends:
// each object's id, kBandId marking those in the band.
std::array<std::vector<uint32_t>, kStaticLists> idsOf(const StaticOrder& order,
                                                      const StaticRuns& runs) {
    std::array<std::vector<uint32_t>, kStaticLists> ids;
    for (int list = 0; list < kStaticLists; ++list) {
        const bool fineBand =
            list == int(StaticList::TreeFineBand) || list == int(StaticList::RockFineBand);
        for (const StaticRun& run : runs.runs[size_t(list)]) {
            const uint32_t first = run.first & kPlaceMask;
            const uint32_t band = fineBand || (run.first & kBandRun) ? kBandId : 0u;
            for (uint32_t p = first; p < first + run.count; ++p) {
                ids[size_t(list)].push_back(order.id(p) | band);
            }
        }
    }
    return ids;
}

// The ids buildObjectInstances sends for the static objects (kBandId kept, kSelectedId not), by
// StaticList, sorted.
std::array<std::vector<uint32_t>, kStaticLists> sortedIdsOf(const ObjectInstances& in) {
    std::array<std::vector<uint32_t>, kStaticLists> ids;
    const auto take = [&](int mesh, uint32_t from, uint32_t to, StaticList list) {
        for (uint32_t k = from; k < to; ++k) {
            ids[size_t(list)].push_back(in.ids(mesh)[k] & ~kSelectedId);
        }
    };
    const uint32_t treeBand = in.idCounts[0] - in.bandIds[0];
    const uint32_t rockBand = in.idCounts[2] - in.bandIds[1];
    take(0, 0, treeBand, StaticList::TreeFine);
    take(0, treeBand, in.idCounts[0], StaticList::TreeFineBand);
    take(1, 0, in.idCounts[1], StaticList::TreeImpostor);
    take(2, 0, rockBand, StaticList::RockFine);
    take(2, rockBand, in.idCounts[2], StaticList::RockFineBand);
    take(3, 0, in.idCounts[3], StaticList::RockImpostor);
    for (std::vector<uint32_t>& list : ids) {
        std::sort(list.begin(), list.end());
    }
    return ids;
}

// Each list's runs in place order, none empty, their objects counted; two runs touch only when
// one is in the band and the other not (else they would be one).
void expectOrderedRuns(const StaticRuns& runs) {
    for (int list = 0; list < kStaticLists; ++list) {
        uint64_t objects = 0;
        const std::vector<StaticRun>& r = runs.runs[size_t(list)];
        for (size_t k = 0; k < r.size(); ++k) {
            ASSERT_GT(r[k].count, 0u);
            if (k > 0) {
                const uint32_t end = (r[k - 1].first & kPlaceMask) + r[k - 1].count;
                const uint32_t first = r[k].first & kPlaceMask;
                ASSERT_GE(first, end) << "list " << list;
                ASSERT_TRUE(first > end || (r[k].first & kBandRun) != (r[k - 1].first & kBandRun))
                    << "list " << list << ": runs " << k - 1 << " and " << k << " are one";
            }
            objects += r[k].count;
        }
        EXPECT_EQ(objects, runs.objects[size_t(list)]);
    }
}

// Each node with objects, by its full key: its stamp and whether it is a leaf (a frustum holding
// everything reports every node's objects as one group each).
std::map<uint64_t, std::pair<uint64_t, bool>> stampsByKey(const LooseObjectTree& tree) {
    std::vector<uint32_t> ids;
    ObjectGroups groups;
    tree.queryFrustumGroups(Frustum{}, ids, groups, nullptr);
    std::map<uint64_t, std::pair<uint64_t, bool>> stamps;
    for (const GroupNode& node : groups.node) {
        EXPECT_TRUE(node.whole);
        EXPECT_EQ(tree.stamp(node.node), node.stamp);
        stamps[node.key] = {node.stamp, node.leaf != 0};
    }
    return stamps;
}

// A node's stamp changes when it splits or merges and follows it when compact() renumbers it, so
// that what a frame found of a node's static objects holds exactly while its stamp does.
TEST(LooseObjectTreeStamps, NewOnASplitOrAMergeKeptThroughACompaction) {
    ObjectTreeConfig config;
    config.size = 64.0f;
    config.leafLimit = 4;
    LooseObjectTree tree(config);
    std::vector<uint32_t> ids;
    for (int i = 0; i < 4; ++i) {  // four small objects in one quadrant: the root stays a leaf
        const float x = 4.0f + 4.0f * float(i);
        ids.push_back(
            tree.insert({{x, 0.0f, 4.0f}, {x + 1.0f, 1.0f, 5.0f}}, Motion::Static).value());
    }
    const auto before = stampsByKey(tree);
    ASSERT_EQ(before.size(), 1u);
    ASSERT_TRUE(before.at(0).second);
    // A fifth splits the root: a new stamp, and the objects go to a child.
    ids.push_back(tree.insert({{20.0f, 0.0f, 4.0f}, {21.0f, 1.0f, 5.0f}}, Motion::Static).value());
    ASSERT_EQ(tree.check(), "");
    const auto split = stampsByKey(tree);
    ASSERT_FALSE(split.count(0) && split.at(0).second) << "the root should have split";
    tree.compact();
    ASSERT_EQ(tree.check(), "");
    EXPECT_EQ(stampsByKey(tree), split) << "compact() renumbers nodes with their stamps";
    // Removing three (down to the merge limit, half the leaf limit) merges the nodes back into
    // the root, a leaf with a stamp of its own.
    for (int i = 0; i < 3; ++i) {
        tree.remove(ids[size_t(i)]);
    }
    tree.cleanup();
    ASSERT_EQ(tree.check(), "");
    const auto merged = stampsByKey(tree);
    ASSERT_EQ(merged.size(), 1u);
    ASSERT_TRUE(merged.at(0).second);
    EXPECT_NE(merged.at(0).first, before.at(0).first);
    for (const auto& [key, stamp] : split) {
        EXPECT_NE(merged.at(0).first, stamp.first) << "key " << key;
    }
}

TEST(StaticOrder, TreesThenRocksEachInTheTreesKeyOrder) {
    const Heightmap map = syntheticHeightmap(513, 513, 4);
    const ObjectScene scene = ObjectScene::scatter(map, defaultMapping(map), 20000, 500, 3).value();
    const StaticOrder order(scene);
    ASSERT_EQ(order.count(), scene.firstBall());
    ASSERT_EQ(order.firstRock(), scene.firstRock());
    const LooseObjectTree& index = scene.index();
    size_t deeper = 0;
    for (uint32_t p = 0; p < order.count(); ++p) {
        const uint32_t id = order.id(p);
        ASSERT_EQ(order.place(id), p);
        ASSERT_EQ(id < scene.firstRock(), p < order.firstRock()) << "place " << p;
        EXPECT_EQ(order.sizes()[p], scene.staticSize(id));
        if (p > 0 && p != order.firstRock()) {
            const uint64_t before = index.fullKey(index.sweptBox(order.id(p - 1)));
            const uint64_t key = index.fullKey(index.sweptBox(id));
            ASSERT_TRUE(before < key || (before == key && order.id(p - 1) < id)) << "place " << p;
            deeper += key > 0 ? 1 : 0;
        }
    }
    EXPECT_GT(deeper, order.count() / 2) << "most objects should lie below the root";
}

// A whole group's static objects are the places of its node's keys; runs from the groups give
// each list the same objects as the ids buildObjectInstances sends, frame after frame while the
// balls move (the tree splits and merges under the order, which stays); the frame without
// culling gives every static object, and a culled frame's lists are subsequences of its lists.
TEST(StaticRuns, SameObjectsInTheSameListsAsTheIdsWhileTheTreeChanges) {
    test::Scene s =
        test::makeScene(syntheticHeightmap(1025, 1025, 9), WorldMapping{1.0f, 0.01f, 0.0f});
    ObjectScene scene = ObjectScene::scatter(s.map, s.mapping, 30000, 3000, 5).value();
    const StaticOrder order(scene);
    FrameBuffers frame;
    frame.reserveFor(s.tree);
    frame.reserveObjects(scene.count());
    ObjectInstances instances, asRuns;
    StaticRuns runs, all;
    // Every seventh object selected, as the places the expansion marks.
    std::vector<uint8_t> selected(scene.count(), 0);
    std::vector<uint32_t> selectedPlaces;
    for (uint32_t id = 0; id < scene.count(); id += 7) {
        selected[id] = 1;
        if (id < order.count()) {
            selectedPlaces.push_back(order.place(id));
        }
    }
    std::sort(selectedPlaces.begin(), selectedPlaces.end());
    runs.reserve(order.count());
    all.reserve(order.count());
    size_t wholeGroups = 0, partGroups = 0, statics = 0, runCount = 0, searched = 0;
    std::array<size_t, kStaticLists> listed{};
    for (const Camera& c : flightPath(s.map, s.mapping, 24, 16.0f / 9.0f)) {
        for (int step = 0; step < 3; ++step) {
            scene.step(s.map, s.mapping);
        }
        runFrame(s.map, s.tree, s.mapping, {c, 720, true, true, 2.0f}, frame, &scene.index());
        const ObjectGroups& groups = frame.objectsDrawnGroups;
        ASSERT_EQ(groups.node.size(), groups.end.size());
        const LooseObjectTree& index = scene.index();
        for (size_t g = 0, begin = 0; g < groups.end.size(); ++g) {
            const GroupNode& node = groups.node[g];
            const uint64_t keyEnd =
                node.key +
                (node.leaf ? LooseObjectTree::subtreeKeys(order.maxDepth() - node.depth) : 1);
            for (size_t k = begin; k < groups.end[g]; ++k) {
                const uint64_t key = index.fullKey(index.sweptBox(frame.objectsDrawn[k]));
                ASSERT_TRUE(key >= node.key && key < keyEnd) << "group " << g;
            }
            ++(node.whole ? wholeGroups : partGroups);
            begin = groups.end[g];
        }
        buildObjectInstances(scene, frame.objectsDrawn, &groups, selected, c, 720,
                             StaticsSent::ById, instances);
        buildStaticRuns(order, scene, frame.objectsDrawn, &groups, c, 720, runs);
        expectOrderedRuns(runs);
        const auto ids = idsOf(order, runs);
        const auto expected = sortedIdsOf(instances);
        for (int list = 0; list < kStaticLists; ++list) {
            std::vector<uint32_t> got = ids[size_t(list)];
            std::sort(got.begin(), got.end());
            ASSERT_EQ(got, expected[size_t(list)]) << "list " << list;
            listed[size_t(list)] += got.size();
            runCount += runs.runs[size_t(list)].size();
        }
        EXPECT_EQ(runs.recordsRead, instances.recordsRead);
        searched += runs.nodesSearched;

        // Expanded into id lists (as places), the same entries as the ids by mesh, selection and
        // band marked alike; the balls' whole instances and every count the same.
        buildObjectInstances(scene, frame.objectsDrawn, &groups, selected, c, 720,
                             StaticsSent::AsRuns, asRuns);
        countStaticRuns(runs, asRuns);
        expandStaticRuns(runs, selectedPlaces, asRuns);
        ASSERT_EQ(asRuns.idCounts, instances.idCounts);
        ASSERT_EQ(asRuns.bandIds, instances.bandIds);
        ASSERT_EQ(asRuns.inBoth, instances.inBoth);
        ASSERT_EQ(asRuns.counts, instances.counts);
        ASSERT_EQ(asRuns.recordsRead, instances.recordsRead);
        ASSERT_EQ(asRuns.sorted.size(), instances.sorted.size());
        for (int m = 0; m < kObjectMeshes; ++m) {
            const uint32_t n = instances.idCounts[size_t(m)];
            std::vector<uint32_t> expanded(n), sent(instances.ids(m), instances.ids(m) + n);
            for (uint32_t k = 0; k < n; ++k) {
                const uint32_t entry = asRuns.ids(m)[k];
                expanded[k] = order.id(entry & kPlaceMask) | (entry & ~kPlaceMask);
            }
            std::sort(expanded.begin(), expanded.end());
            std::sort(sent.begin(), sent.end());
            ASSERT_EQ(expanded, sent) << "mesh " << m;
        }
        statics += size_t(std::count_if(frame.objectsDrawn.begin(), frame.objectsDrawn.end(),
                                        [&](uint32_t id) { return id < scene.firstBall(); }));

        // Unculled: no groups, every static object; the culled lists are subsequences.
        runFrame(s.map, s.tree, s.mapping, {c, 720, false, false, 0.0f}, frame, &scene.index());
        ASSERT_TRUE(frame.objectsDrawnGroups.end.empty());
        buildStaticRuns(order, scene, frame.objectsDrawn, &frame.objectsDrawnGroups, c, 720, all);
        expectOrderedRuns(all);
        EXPECT_EQ(all.objects[0] + all.objects[2] + all.objects[3] + all.objects[5], order.count());
        const auto allIds = idsOf(order, all);
        for (int list = 0; list < kStaticLists; ++list) {
            const std::vector<uint32_t>& part = ids[size_t(list)];
            const std::vector<uint32_t>& whole = allIds[size_t(list)];
            auto at = whole.begin();
            for (const uint32_t id : part) {
                at = std::find(at, whole.end(), id);
                ASSERT_NE(at, whole.end()) << "list " << list << ": id " << id;
            }
        }
    }
    EXPECT_GT(wholeGroups, 0u);
    EXPECT_GT(partGroups, 0u);
    std::printf("%zu whole groups, %zu of their nodes searched\n", wholeGroups, searched);
    EXPECT_GT(searched, 0u);
    EXPECT_LT(searched, wholeGroups) << "no node's runs were taken from an earlier frame";
    for (const StaticList list : {StaticList::TreeFine, StaticList::TreeFineBand,
                                  StaticList::TreeImpostor, StaticList::RockImpostor}) {
        EXPECT_GT(listed[size_t(list)], 0u) << "list " << int(list) << " never used";
    }
    EXPECT_LT(runCount, statics);
}

}  // namespace
}  // namespace qt
