// Opens a .r16 map larger than memory: its codes mapped read-only, its tree built in bands of rows
// (or read from its sidecar) without the whole map resident at once.
#pragma once

#include <cstdint>
#include <string>

#include "core/heightmap.h"
#include "core/quadtree.h"
#include "core/result.h"

namespace qt {

// Share of the memory budget the streamed tree may take (the rest: the GPU's pages and pyramid).
constexpr double kStreamedTreeShare = 0.125;
// Bytes of samples a band of the prepass may hold resident: levels whose rows of nodes span
// more get the range bound, not the exact errors.
constexpr uint64_t kStreamBandBytes = uint64_t(256) << 20;

// Resident bytes of a streamed map that do not grow with its size: the level-0 page pool, the
// staging pages, the frame's buffers (llvmpipe keeps the pool in host memory).
constexpr uint64_t kStreamedFixedBytes = uint64_t(128) << 20;

struct StreamOptions {
    uint64_t bandBytes = kStreamBandBytes;  // the band cap (tests use tiny ones)
    bool useSidecar = true;                 // read and write path.qtree
};

struct StreamedMap {
    Heightmap map;                // format Raw16, range set, codes a read-only mapping
    Quadtree tree;                // bounds and coarse errors (tree.lodErrors says which)
    int leafSize = 0;             // the leaf size chosen (streamedLeafSize)
    bool sidecarUsed = false;     // the tree came from path.qtree: no pass over the map
    bool sidecarWritten = false;  // path.qtree was (re)written by this open
    std::string sidecarProblem;   // why an existing sidecar was not used or not written; "" if none
    double prepassMs = 0.0;       // the banded pass over the map (0 with the sidecar)
    double sidecarReadMs = 0.0;   // reading and checking the sidecar
};

// Bytes of a quadtree's arrays (nodes, parents, leaves, leaf nodes, leaf codes, leaf grid, level
// grids, coarse errors) for a width x height map in leaves of leafSize squares.
uint64_t quadtreeBytes(int width, int height, int leafSize);

// Estimated resident bytes of a streamed width x height map in leaves of leafSize: its tree, the
// pyramid's levels 1.. on the GPU (a third of the samples, 2 bytes each, and the pages' borders)
// and kStreamedFixedBytes; checked against the budget before the map is mapped.
uint64_t streamedPeakBytes(int width, int height, int leafSize);

// The smallest power of two >= requestedLeafSize (and >= kMinLeafSize) whose tree takes at most
// treeBudget bytes (0: no limit) and has at most kMaxNodes nodes; fails when none up to
// kMaxLeafSize does.
Result<int> streamedLeafSize(int width, int height, int requestedLeafSize, uint64_t treeBudget);

// Opens a .r16 (raw little-endian 16-bit, square or options.rawWidth x rawHeight) without
// reading it whole. Codes equal the file's values (coding offset 0, step 1). The tree's leaf size
// is streamedLeafSize(requestedLeafSize, kStreamedTreeShare of options.memory's free budget).
// Its bounds come from the sidecar path.qtree when that matches the file (length, modification
// time, size, leaf size) and its checksum holds; else from one pass over the map in bands of
// rows of at most stream.bandBytes, each band's pages dropped from the process behind it, and the
// sidecar is written (one line to stderr when an existing one is rebuilt or none can be written).
// The coarse errors are exact on the levels whose rows of nodes fit a band and the range bound
// above (LodErrors::Mixed, Quadtree::exactLevels). Bad input (length, size, unreadable file) is
// one line starting with the path.
Result<StreamedMap> openStreamedRaw16(const std::string& path, const LoadOptions& options,
                                      int requestedLeafSize, const StreamOptions& stream = {});

}  // namespace qt
