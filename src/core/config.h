// Tunables of the terrain core, one sentence each.
#pragma once

#include <cstdint>

namespace qt {

// Longest side, in samples, a heightmap may have; uint16 node coordinates hold up to 65535.
constexpr int kMaxSide = 32769;
// Most samples a heightmap may have (16385 x 16385); refused before any allocation.
constexpr int64_t kMaxSamples = int64_t{16385} * 16385;
// Grid squares along a leaf side when the user does not choose (the blueprint's 4x4 cells).
constexpr int kDefaultLeafSize = 4;
// Smallest and largest leaf sizes accepted; both powers of two.
constexpr int kMinLeafSize = 2;
constexpr int kMaxLeafSize = 64;
// Horizontal metres per arc-second of latitude, for the spacing of SRTM .hgt tiles.
constexpr double kMetresPerArcSecond = 30.87;
// Value SRTM uses for a void (missing) sample.
constexpr int kHgtVoid = -32768;
// Share of the map's longer side that the full sample range spans by default (images, raw).
constexpr double kDefaultReliefFraction = 0.125;

}  // namespace qt
