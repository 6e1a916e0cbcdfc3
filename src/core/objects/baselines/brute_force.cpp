// Brute force over every object: the reference for the object indexes' queries.
#include "core/objects/baselines/brute_force.h"

#include <algorithm>

namespace qt {

void bruteRect(const ObjectArrays& objects, const Rect& rect, std::vector<uint32_t>& out) {
    out.clear();
    if (!validRect(rect)) {
        return;
    }
    for (uint32_t i = 0; i < objects.box.size(); ++i) {
        if (objects.alive[i] && boxMeetsRect(objects.box[i], rect)) {
            out.push_back(i);
        }
    }
}

void bruteFrustum(const ObjectArrays& objects, const Frustum& frustum, std::vector<uint32_t>& out) {
    out.clear();
    for (uint32_t i = 0; i < objects.box.size(); ++i) {
        bool outside = false;
        if (objects.alive[i]) {
            frustum.classify(objects.box[i], kAllPlanes, outside);
            if (!outside) {
                out.push_back(i);
            }
        }
    }
}

std::optional<RayHit> bruteRay(const ObjectArrays& objects, const Ray& ray) {
    if (!ray.valid) {
        return std::nullopt;
    }
    std::optional<RayHit> best;
    for (uint32_t i = 0; i < objects.box.size(); ++i) {
        if (!objects.alive[i]) {
            continue;
        }
        const std::optional<float> t = rayEntry(ray, objects.box[i]);
        if (t && (!best || *t < best->distance)) {  // ascending ids: ties keep the lowest
            best = RayHit{i, *t};
        }
    }
    return best;
}

void brutePairsOf(const ObjectArrays& objects, const uint32_t* movers, size_t count,
                  std::vector<ObjectPair>& out) {
    const auto n = uint32_t(objects.swept.size());
    for (size_t k = 0; k < count; ++k) {
        const uint32_t m = movers[k];
        const Box& sm = objects.swept[m];
        for (uint32_t o = 0; o < n; ++o) {
            if (o == m || !objects.alive[o] || (objects.moving[o] && o < m)) {
                continue;
            }
            if (boxesOverlap(sm, objects.swept[o])) {
                out.push_back(m < o ? ObjectPair{m, o} : ObjectPair{o, m});
            }
        }
    }
}

void brutePairs(const ObjectArrays& objects, std::vector<ObjectPair>& out) {
    out.clear();
    std::vector<uint32_t> movers;
    for (uint32_t i = 0; i < objects.box.size(); ++i) {
        if (objects.alive[i] && objects.moving[i]) {
            movers.push_back(i);
        }
    }
    brutePairsOf(objects, movers.data(), movers.size(), out);
    std::sort(out.begin(), out.end());
}

}  // namespace qt
