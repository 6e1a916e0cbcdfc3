// The static objects in the object tree's key order, and a frame's drawn static objects as runs
// of that order.
#include "core/objects/static_runs.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace qt {
namespace {

// Gallops forward from `from` (every key before it below `key`) to the first place at or past
// `key`, below `end`.
uint32_t firstAtOrPast(const std::vector<uint64_t>& keys, uint32_t from, uint32_t end,
                       uint64_t key) {
    uint32_t lo = from, bound = from, step = 1;
    while (bound < end && keys[bound] < key) {
        lo = bound + 1;
        bound = lo + step;
        step *= 2;
    }
    const uint32_t hi = std::min(bound, end);
    return uint32_t(std::lower_bound(keys.begin() + lo, keys.begin() + hi, key) - keys.begin());
}

}  // namespace

StaticOrder::StaticOrder(const ObjectScene& scene)
    : firstRock_(scene.firstRock()),
      maxDepth_(scene.index().config().maxDepth),
      serial_(scene.serial()) {
    const LooseObjectTree& index = scene.index();
    const uint32_t count = scene.firstBall();
    std::vector<uint64_t> keyOf(count);
    for (uint32_t id = 0; id < count; ++id) {
        keyOf[id] = index.fullKey(index.sweptBox(id));
    }
    id_.resize(count);
    std::iota(id_.begin(), id_.end(), 0u);
    const auto byKey = [&keyOf](uint32_t a, uint32_t b) {
        return keyOf[a] < keyOf[b] || (keyOf[a] == keyOf[b] && a < b);
    };
    std::sort(id_.begin(), id_.begin() + firstRock_, byKey);
    std::sort(id_.begin() + firstRock_, id_.end(), byKey);
    key_.resize(count);
    size_.resize(count);
    place_.resize(count);
    for (uint32_t p = 0; p < count; ++p) {
        key_[p] = keyOf[id_[p]];
        size_[p] = scene.staticSize(id_[p]);
        place_[id_[p]] = p;
    }
}

StaticRun StaticOrder::keysIn(bool rocks, uint64_t keyBegin, uint64_t keyEnd,
                              uint32_t& cursor) const {
    const uint32_t start = rocks ? firstRock_ : 0, end = rocks ? count() : firstRock_;
    uint32_t from = std::min(std::max(cursor, start), end);
    if (from > start && key_[from - 1] >= keyBegin) {
        from = start;
    }
    const uint32_t first = firstAtOrPast(key_, from, end, keyBegin);
    const uint32_t last = firstAtOrPast(key_, first, end, keyEnd);
    cursor = last;
    return {first, last - first};
}

void StaticRuns::reserve(uint32_t count) {
    for (std::vector<StaticRun>& list : runs) {
        list.reserve(count);
    }
    scratch.reserve(count);
    known.reserve(count);
}

namespace {

// Appends places [first, first + count) to `list`, extending its last run when they continue it.
// Inlined, as appendWay, into every caller: as calls they were a third of the pass's
// instructions.
[[gnu::always_inline]] inline void append(StaticRuns& out, int list, uint32_t first,
                                          uint32_t count) {
    std::vector<StaticRun>& runs = out.runs[size_t(list)];
    if (!runs.empty() && runs.back().first + runs.back().count == first) {
        runs.back().count += count;
    } else {
        runs.push_back({first, count});
    }
    out.objects[size_t(list)] += count;
}

// Appends places [first, first + count), all of `way`, to that way's lists; `fine` is the list of
// their shape's fine mesh.
[[gnu::always_inline]] inline void appendWay(StaticRuns& out, int fine, int way, uint32_t first,
                                             uint32_t count) {
    if (way == int(DrawnAs::Mesh)) {
        append(out, fine, first, count);
    } else if (way == int(DrawnAs::Impostor)) {
        append(out, fine + 2, first, count);
    } else {
        append(out, fine + 1, first, count);
        append(out, fine + 2, first | kBandRun, count);
    }
}

// `run` with its least and greatest size.
StaticRuns::SizedRun sized(const StaticOrder& order, StaticRun run) {
    StaticRuns::SizedRun s{run, 0.0f, 0.0f};
    if (run.count > 0) {
        const float* sizes = order.sizes() + run.first;
        const auto [least, most] = std::minmax_element(sizes, sizes + run.count);
        s.smallest = *least;
        s.largest = *most;
    }
    return s;
}

// Appends each place of [first, first + count) (all of one kind) to its way's lists, as runs of
// consecutive places of one way, each decided by its size (its record where the group's box
// leaves it open).
void appendEachWay(const StaticOrder& order, const ObjectScene& scene, const MeshChoice& choice,
                   const GroupReach& reach, uint32_t first, uint32_t count, StaticRuns& out) {
    const int fine = first >= order.firstRock() ? int(StaticList::RockFine) : 0;
    const float* sizes = order.sizes();
    const auto wayOf = [&](uint32_t p) {
        const int way = wayInGroup(sizes[p], choice, reach);
        if (way != kWayUndecided) {
            return way;
        }
        ++out.recordsRead;
        return int(choice.way(sizes[p], scene.base(order.id(p))));
    };
    uint32_t from = first;
    int way = wayOf(first);
    for (uint32_t p = first + 1; p < first + count; ++p) {
        const int next = wayOf(p);
        if (next != way) {
            appendWay(out, fine, way, from, p - from);
            from = p;
            way = next;
        }
    }
    appendWay(out, fine, way, from, first + count - from);
}

// Appends each place of `s` (all of one kind) to its way's lists: the run whole when its least
// and greatest sizes take one way (far groups: the largest takes its impostor alone, and so does
// every smaller one; near ones: the smallest its mesh alone, and every larger one), else object by
// object.
[[gnu::always_inline]] inline void appendWays(const StaticOrder& order, const ObjectScene& scene,
                                              const MeshChoice& choice, const GroupReach& reach,
                                              const StaticRuns::SizedRun& s, StaticRuns& out) {
    const uint32_t first = s.run.first, count = s.run.count;
    if (count == 0) {
        return;
    }
    const int fine = first >= order.firstRock() ? int(StaticList::RockFine) : 0;
    const int largest = wayInGroup(s.largest, choice, reach);
    if (largest == int(DrawnAs::Impostor)) {
        appendWay(out, fine, largest, first, count);
        return;
    }
    const int smallest = wayInGroup(s.smallest, choice, reach);
    if (smallest == int(DrawnAs::Mesh) || (smallest == largest && smallest != kWayUndecided)) {
        appendWay(out, fine, smallest, first, count);
        return;
    }
    appendEachWay(order, scene, choice, reach, first, count, out);
}

// Appends the static objects among drawn[begin, end), each on its own in place order, by its
// size and `reach` (its record where that leaves it open); their places are asked for a few
// objects ahead (by id: in no order).
void appendEachOf(const StaticOrder& order, const ObjectScene& scene, const MeshChoice& choice,
                  const GroupReach& reach, const std::vector<uint32_t>& drawn, size_t begin,
                  size_t end, StaticRuns& out) {
    constexpr size_t kAhead = 16;
    const uint32_t statics = order.count();
    out.scratch.clear();
    for (size_t k = begin; k < end; ++k) {
        if (k + kAhead < end && drawn[k + kAhead] < statics) {
            order.prefetchPlace(drawn[k + kAhead]);
        }
        if (drawn[k] < statics) {
            out.scratch.push_back(order.place(drawn[k]));
        }
    }
    std::sort(out.scratch.begin(), out.scratch.end());
    for (const uint32_t p : out.scratch) {
        appendEachWay(order, scene, choice, reach, p, 1, out);
    }
}

}  // namespace

void buildStaticRuns(const StaticOrder& order, const ObjectScene& scene,
                     const std::vector<uint32_t>& drawn, const ObjectGroups* groups,
                     const Camera& camera, int viewportHeight, StaticRuns& out,
                     const ObjectDetail& detail) {
    for (std::vector<StaticRun>& list : out.runs) {
        list.clear();
    }
    out.objects = {};
    out.recordsRead = 0;
    out.nodesSearched = 0;
    const MeshChoice choice(camera, viewportHeight, detail);
    if (!groups || groups->end.empty()) {
        // No groups: each static object of drawn's (with the frustum off, every one) by its
        // record.
        appendEachOf(order, scene, choice, GroupReach{}, drawn, 0, drawn.size(), out);
        return;
    }
    if (out.orderSerial != order.serial()) {
        out.known.clear();
        out.orderSerial = order.serial();
    }
    uint32_t cursor[2] = {0, order.firstRock()};
    // What is known of a group's node is asked for this many groups ahead (the nodes' numbers
    // rise along the walk, with gaps).
    constexpr size_t kAhead = 8;
    const size_t groupCount = groups->end.size();
    for (size_t g = 0, begin = 0; g < groupCount; ++g) {
        const size_t end = groups->end[g];
        const GroupNode& node = groups->node[g];
        if (g + kAhead < groupCount && groups->node[g + kAhead].node < out.known.size()) {
            __builtin_prefetch(&out.known[groups->node[g + kAhead].node]);
        }
        if (node.whole) {
            if (node.node >= out.known.size()) {  // the pool grew: rarely
                out.known.resize(std::max<size_t>(node.node + 1, 2 * out.known.size()));
            }
            StaticRuns::NodeStatics& known = out.known[node.node];
            if (known.stamp != node.stamp) {
                ++out.nodesSearched;
                const uint64_t keyEnd =
                    node.key +
                    (node.leaf ? LooseObjectTree::subtreeKeys(order.maxDepth() - node.depth) : 1);
                known.trees = sized(order, order.keysIn(false, node.key, keyEnd, cursor[0]));
                known.rocks = sized(order, order.keysIn(true, node.key, keyEnd, cursor[1]));
                known.stamp = node.stamp;
            }
            if (known.trees.run.count + known.rocks.run.count > 0) {
                const GroupReach reach = groupReach(groups->box[g], choice.eye);
                appendWays(order, scene, choice, reach, known.trees, out);
                appendWays(order, scene, choice, reach, known.rocks, out);
            }
        } else {  // those the frustum met
            appendEachOf(order, scene, choice, groupReach(groups->box[g], choice.eye), drawn, begin,
                         end, out);
        }
        begin = end;
    }
}

uint64_t staticRunBytes(const StaticRuns& runs) {
    uint64_t count = 0;
    for (const std::vector<StaticRun>& list : runs.runs) {
        count += list.size();
    }
    return count * 2 * sizeof(uint32_t);
}

void countStaticRuns(const StaticRuns& runs, ObjectInstances& in) {
    const auto objects = [&runs](StaticList list) { return runs.objects[size_t(list)]; };
    in.idCounts = {objects(StaticList::TreeFine) + objects(StaticList::TreeFineBand),
                   objects(StaticList::TreeImpostor),
                   objects(StaticList::RockFine) + objects(StaticList::RockFineBand),
                   objects(StaticList::RockImpostor)};
    in.bandIds = {objects(StaticList::TreeFineBand), objects(StaticList::RockFineBand)};
    in.inBoth[0] += objects(StaticList::TreeFineBand);
    in.inBoth[1] += objects(StaticList::RockFineBand);
    in.recordsRead += runs.recordsRead;
}

uint64_t runsUploadBytes(const ObjectInstances& in, const StaticRuns& runs) {
    return uint64_t(in.sorted.size()) * sizeof(ObjectInstance) + staticRunBytes(runs);
}

namespace {

// Calls f(place, marks) for each entry of `runs`' lists in the id lists' order (the trees' fine
// mesh's list, then its band's, its impostor's, and the same for the rocks), marks kBandId and
// kSelectedId.
template <class F>
void forEachEntry(const StaticRuns& runs, const std::vector<uint32_t>& selectedPlaces, F&& f) {
    for (int list = 0; list < kStaticLists; ++list) {
        const bool fineBand =
            list == int(StaticList::TreeFineBand) || list == int(StaticList::RockFineBand);
        for (const StaticRun& run : runs.runs[size_t(list)]) {
            const uint32_t first = run.first & kPlaceMask;
            const uint32_t band = (fineBand || (run.first & kBandRun) != 0) ? kBandId : 0u;
            auto selected = std::lower_bound(selectedPlaces.begin(), selectedPlaces.end(), first);
            for (uint32_t p = first; p < first + run.count; ++p) {
                uint32_t marks = band;
                if (selected != selectedPlaces.end() && *selected == p) {
                    marks |= kSelectedId;
                    ++selected;
                }
                f(p, marks);
            }
        }
    }
}

}  // namespace

void expandStaticRuns(const StaticRuns& runs, const std::vector<uint32_t>& selectedPlaces,
                      ObjectInstances& in) {
    uint32_t* to = in.idSpace.get();
    int mesh = 0;
    uint32_t written = 0;  // of mesh's ids
    forEachEntry(runs, selectedPlaces, [&](uint32_t place, uint32_t marks) {
        while (written == in.idCounts[size_t(mesh)]) {  // the next mesh's run of idStride
            ++mesh;
            written = 0;
            to = in.idSpace.get() + size_t(mesh) * in.idStride;
        }
        *to++ = place | marks;
        ++written;
    });
}

void staticRunInstances(const StaticRuns& runs, const StaticOrder& order, const ObjectScene& scene,
                        const std::vector<uint32_t>& selectedPlaces,
                        std::vector<ObjectInstance>& out) {
    out.clear();
    forEachEntry(runs, selectedPlaces, [&](uint32_t place, uint32_t marks) {
        const ObjectShape& o = scene.shape(order.id(place));
        const uint32_t look = uint32_t(o.kind) | ((marks & kSelectedId) ? kSelectedLook : 0u) |
                              ((marks & kBandId) ? kBandLook : 0u);
        out.push_back({o.base.x, o.base.y, o.base.z, o.radius, o.height, look});
    });
}

}  // namespace qt
