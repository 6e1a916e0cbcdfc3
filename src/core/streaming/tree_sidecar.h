// The tree sidecar: a map's leaf code ranges, coarse and fold errors saved in the cache folder
// (or beside the map: cache_folder.h), so that reopening the map reads them instead of the whole
// map.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"
#include "core/streaming/mapped_codes.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"

namespace qt {

// What a sidecar holds. Every multi-byte number is little-endian in the file.
struct TreeSidecar {
    FileStamp map;  // the map file it was made from
    int width = 0;  // the map's size in samples
    int height = 0;
    int leafSize = 0;                        // of the tree it describes
    LodErrors lodErrors = LodErrors::Range;  // the kind of coarseErrors
    int exactLevels = 0;   // levels 1..exactLevels are exact (Quadtree::exactLevels)
    uint16_t minCode = 0;  // over every sample of the map
    uint16_t maxCode = 0;
    std::vector<CodeRange> leafRanges;   // by row * leavesX + col
    std::vector<uint16_t> coarseErrors;  // by Quadtree::levelIndex
    std::vector<uint16_t> foldErrors;    // Quadtree::foldErrors, as many as coarseErrors
    // Quadtree::leafFoldErrors, as many as leafRanges; empty when the pass made no exact errors.
    std::vector<uint16_t> leafFoldErrors;
};

// The sidecar's path beside a file: its path with ".qtree" appended (a code cache's sidecar, a
// .r16's kept beside it).
std::string sidecarPath(const std::string& mapPath);

// At least the length of the sidecar of a width x height map's tree of leafSize leaves (its leaf
// ranges, coarse, fold and leaf fold errors, at most 6 bytes a node, and its header): for disk
// and --cache-size checks.
uint64_t sidecarBytes(int width, int height, int leafSize);

// Reads the sidecar at `path` for a map of the given stamp, size and leaf size. Fails with one
// line (without the path) saying why it cannot be used: missing, stale (the map changed), made
// for another leaf size, truncated, corrupt (checksum), or sizes that do not match the map. Every
// size is checked against the map's before anything is allocated.
Result<TreeSidecar> readTreeSidecar(const std::string& path, const FileStamp& map, int width,
                                    int height, int leafSize);

// Parses a sidecar already in memory (readTreeSidecar's checks; the fuzz harness's entry).
Result<TreeSidecar> parseTreeSidecar(const unsigned char* bytes, size_t count, const FileStamp& map,
                                     int width, int height, int leafSize);

// Writes the sidecar to a temporary file beside `path` and renames it over `path`, so that a
// reader sees the old file or the whole new one. Fails with one line (without the path).
Status writeTreeSidecar(const std::string& path, const TreeSidecar& sidecar);

}  // namespace qt
