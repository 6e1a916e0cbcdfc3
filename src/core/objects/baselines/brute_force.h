// The brute-force answers every object index must equal: each object tested in turn with the same
// exact tests (../index.h), over plain arrays that tests and benchmarks keep beside an index.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/objects/index.h"

namespace qt {

// Object i's boxes and flags; a dead id has alive[i] = 0 (its boxes are ignored).
struct ObjectArrays {
    std::vector<Box> box;
    std::vector<Box> swept;  // as ObjectIndex defines it
    std::vector<uint8_t> moving;
    std::vector<uint8_t> alive;
};

void bruteRect(const ObjectArrays& objects, const Rect& rect, std::vector<uint32_t>& out);
void bruteFrustum(const ObjectArrays& objects, const Frustum& frustum, std::vector<uint32_t>& out);
std::optional<RayHit> bruteRay(const ObjectArrays& objects, const Ray& ray);
// Every pair with at least one moving object whose swept boxes overlap, a < b, sorted:
// O(moving x objects).
void brutePairs(const ObjectArrays& objects, std::vector<ObjectPair>& out);
// The pairs that the moving objects `movers` report (a pair of two moving objects by the lower
// id), appended unsorted: a share of brutePairs, for timing brute force on a subset.
void brutePairsOf(const ObjectArrays& objects, const uint32_t* movers, size_t count,
                  std::vector<ObjectPair>& out);

}  // namespace qt
