// Tunables of the terrain core, one sentence each.
#pragma once

#include <cstdint>

namespace qt {

// Longest side, in samples, a heightmap may have: a tree node holds its box in 16 bits, its far
// side as its last grid square (QuadtreeNode), 65536 at most.
constexpr int kMaxSide = 65537;
// Most samples a heightmap may have (32769 x 32769, 1,073,807,361: an int32 holds the count but
// not its bytes, so byte counts and offsets are size_t); refused before any allocation. A map
// kMaxSide wide is at most 16384 long.
constexpr int64_t kMaxSamples = int64_t{32769} * 32769;
// Longest side quadterrain-bake reads and bakes (a layout's manifest, about 20 bytes a tile, holds
// the tiles of a map this size in tiles of 256): its jobs hold the tree's arrays and a region's
// window, never the map, and a layout the viewer cannot open whole is read by GDAL and QGIS.
constexpr int kMaxBakeSide = 262145;
// The largest size a map may have: samples along a side, and in all.
struct SizeLimit {
    int64_t side;
    int64_t samples;
};
// What the viewer loads, and what quadterrain-bake reads and bakes.
constexpr SizeLimit kMapSizeLimit{kMaxSide, kMaxSamples};
constexpr SizeLimit kBakeSizeLimit{kMaxBakeSide, int64_t{kMaxBakeSide} * kMaxBakeSide};
// What the viewer opens of a baked layout streamed by tiles (StreamOptions::layoutByTiles): its
// level 0 is never held, only fetched by tiles as the view asks, so the side alone is limited.
constexpr SizeLimit kLayoutByTilesSizeLimit{kMaxSide, int64_t{kMaxSide} * kMaxSide};
// Largest heightmap file, in bytes, that is read whole into memory (stb_image decodes from an int
// length); refused from its length before it is read. Raw .r16/.raw files are read straight into
// the codes and GDAL reads in blocks, so neither has this limit.
constexpr uint64_t kMaxFileBytes = 2147483647;
// Largest magnitude of a world coordinate (x, y or z of the terrain, in world units): every float
// the camera, culling and normals compute from the map then stays finite (a squared distance from
// a camera 2e15 away, a normal's unnormalised length) with room to spare. Floats hold 24 bits, so
// a position d units from the origin is exact to about d * 6e-8: 0.06 units at 1e6, 60 at 1e9.
constexpr double kMaxWorldCoordinate = 1e9;
// Least spacing between samples: below it the normals' cross products underflow to zero.
constexpr double kMinSpacing = 1e-6;
// Largest magnitude of a camera coordinate given on the command line (--eye, --target, ...).
constexpr double kMaxCameraCoordinate = 1e15;
// Grid squares along a leaf side when the user does not choose (4x4 cells, as in Ferraris 2001,
// "Quadtrees").
constexpr int kDefaultLeafSize = 4;
// Smallest and largest leaf sizes accepted; both powers of two.
constexpr int kMinLeafSize = 2;
constexpr int kMaxLeafSize = 64;
// Levels below the root of the deepest tree: kMaxSide samples in leaves of kMinLeafSize squares
// are 2^15 leaves a side. The walks keep one frame a level.
constexpr int kMaxTreeDepth = 15;
static_assert((kMaxSide - 1) / kMinLeafSize == 1 << kMaxTreeDepth, "the deepest tree's depth");
// Squares along a side of a GPU height page (core/terrain/height_pages.h) unless the map needs
// larger ones to fit the GPU's layers; a power of two.
constexpr int kDefaultPageSize = 256;
// Largest page size a user may ask for (--page-size).
constexpr int kMaxPageSize = 4096;
// Horizontal metres per arc-second of latitude, for the spacing of .hgt tiles whose name gives no
// latitude (those named by their corner get metres per degree on each axis, georeference.h).
constexpr double kMetresPerArcSecond = 30.87;
// Value SRTM uses for a void (missing) sample.
constexpr int kHgtVoid = -32768;
// Share of the map's longer side that the full sample range spans by default (images, raw).
constexpr double kDefaultReliefFraction = 0.125;
// The culling frustum's planes move out by kCullMarginSpacings sample spacings plus
// kCullMarginUlps ulps of the largest world coordinate in play (cullMargin, core/frame/frame.h), so
// that culling never removes a triangle the rasteriser would have touched (culled == unculled).
constexpr float kCullMarginSpacings = 1e-3f;
constexpr float kCullMarginUlps = 64.0f;
// Near plane = far plane / kFarToNear, but at least kMinNearPlane (world units).
constexpr float kFarToNear = 20000.0f;
constexpr float kMinNearPlane = 1e-3f;
// Least height of the eye over the terrain, a share of the map's longer side (ground-follow off).
constexpr float kGroundClearance = 1e-3f;
// Ground-follow's default height over the terrain, as a share of the map's longer side.
constexpr float kFollowHeightFraction = 0.01f;
// A double-click flight ends this share of the way back from the point to where it started.
constexpr float kFlightApproach = 0.25f;
// Seconds a double-click flight takes.
constexpr float kFlightSeconds = 0.8f;
// Longest time step the camera moves by: a longer stall (a load, a hung driver) moves it only this
// far, yet a steady 1 fps still moves at full speed.
constexpr double kMaxCameraStepSeconds = 2.0;
// Azimuth bins of the occlusion horizon over the full circle: 0.5 to 1 mrad each (they split a
// pseudo-angle evenly), about half a pixel of a 60 degree view 720 pixels high; 16 KiB of int16
// slopes that stay in the L1 cache.
constexpr int kOcclusionBins = 8192;
// Pixels of angle an occludee's rays are widened by, for the rasteriser's sub-pixel snapping.
constexpr float kOcclusionMarginPixels = 2.0f;
// 24-bit depth quanta that must separate an occluder's surface from a leaf it hides.
constexpr float kOcclusionDepthQuanta = 8.0f;
// Least relative distance gap between an occluder and what it hides, whatever the depth range.
constexpr float kOcclusionMinGap = 0.02f;
// Level of detail is on when a run starts without --lod over a map of more than this many
// triangles (2 per grid square, about 1415x1415 samples): drawn whole, such a map costs llvmpipe
// a quarter of a second or more a frame, and its far half is finer than the pixels it covers.
constexpr int64_t kAutoLodTriangles = 4000000;
// The drawn surface's largest distance from full detail, in pixels, that level of detail starts
// with when kAutoLodTriangles turns it on.
constexpr float kAutoLodPixels = 1.0f;
// Geomorphing: a node's odd vertices move onto its parent's surface over the last kMorphFraction
// of the parent's split distance (inside the node in place, on its boundary along the edge:
// lodVertexMorph); the error term of the split rule is divided by 1 - kMorphFraction, so that the
// parent's surface, which the node turns into there, is already within the level of detail's
// pixels, and inside the node the surface part way stays within them too. The triangles grow
// about with the square of that divisor, and a wider band buys no accuracy, so the band is narrow
// (docs/design/lod.md, Geomorphing).
constexpr float kMorphFraction = 0.1f;
// With the culling frustum frozen, the rest of the map is drawn around the frozen set at this
// level of detail (pixels) and faded this share of the way to the sky colour.
constexpr float kFrozenContextPixels = 4.0f;
constexpr float kFrozenContextDim = 0.55f;
// A streamed terrain (core/streaming/page_streamer.h) asks for a level-1 node's level-0 page once
// the eye is nearer than this many times the node's split distance, so that the page is usually in
// before the node splits.
constexpr float kStreamPrefetch = 1.25f;
// Pooled pages a streamed terrain uploads to the GPU per frame at most: each is one
// (pageSize + 3)^2 texture update (134 KB at pages of 256), so a frame never stalls on a burst of
// them. Levels 0 to 3 stream on the largest maps, and a split several levels down asks for a
// page of each at once (core/lod/lod.h, LodOutput::requests): at 4 a frame the bench flight over
// a 65537^2 layout drew a fifth fewer triangles than at 16, with the same worst frame to median
// (docs/design/streaming.md).
constexpr int kStreamUploadsPerFrame = 16;
// A coarse node's fragments take their normals from level 1 of the height pages (terrain.frag's
// fineNormal) only in level-1 pages within this many times the distance at which a sample spans
// a pixel (qt::fineShadingReach): where a pixel's footprint is under 4 samples, the footprint that
// picks level 1, looking square at the surface; beyond, from level 2 (a streamed terrain needs
// level 1's pages only near the eye).
constexpr float kFineShadingReach = 4.0f;
// A streamed terrain always draws by level of detail (its level-0 pages are on the GPU only near
// the eye): with level of detail off (0 pixels) it draws at this many pixels, the finest its
// pool of layers is sized for; the pool is sized for the window (render/terrain.h
// StreamSettings), kStreamPoolViewport pixels high when none is given.
constexpr float kStreamFinestPixels = 1.0f;
constexpr int kStreamPoolViewport = 1080;
// Maps held in memory with more samples than this (above 8192 x 8192) upload their level-0
// height pages on demand by default (render/terrain.h, Level0Upload::Auto): level 0 is three
// quarters of the pyramid's upload, which at 16385 x 16385 takes most of a second, while a view
// drawn by level of detail needs few of its pages.
constexpr int64_t kOnDemandSamples = int64_t{1} << 26;
// Pages the streamer's workers may hold filled and not yet uploaded (its staging ring).
constexpr int kStreamStagingPages = 2 * kStreamUploadsPerFrame;
// The streamer's workers for a layout by URL, whose pages wait on the server's round trips more
// than on this machine: pages fetched side by side (one of them of level 1 at a time).
constexpr int kStreamNetworkWorkers = 3;
// Most threads that compute the nodes' coarse-surface errors while a map loads (one per core).
constexpr int kMaxLoadThreads = 8;
// Most threads a frame's level-of-detail selection is split over (LodParams::threads).
constexpr int kMaxSelectThreads = 8;
// Four sibling leaves are tested as one unit, their parent, beyond this distance in leaf sides per
// margin angle (156 leaf sides for a 60 degree view 720 pixels high) if the parent's relief is at
// most kOcclusionQuadRelief of its distance: far leaves cost a quarter, and lose little culling.
constexpr double kOcclusionQuadDistance = 0.5;
constexpr float kOcclusionQuadRelief = 0.05f;

// Objects on the terrain (core/objects/scene.h): at most kMaxObjects, and no more than half of
// physical memory holds at kObjectBytes each (app/options.h: about 21 GB for the cap), stepped
// every kObjectStepSeconds.
constexpr uint32_t kMaxObjects = 50000000;
// The most --object-scale may multiply objects' size unit by (ObjectSizing).
constexpr float kMaxObjectScale = 1000.0f;
constexpr float kObjectStepSeconds = 1.0f / 60.0f;
// The scene's loose tree splits a leaf past this many objects: at the bench flight's cameras
// (1.1M objects) 16 tests 9.8k boxes and nodes against planes a frame where 32 tests 11.7k, and
// its smaller groups let the occlusion stage hide more objects, for more horizon tests.
constexpr uint32_t kObjectLeafLimit = 16;
// Gravity in world units a second squared (metres when the map is in metres), and the balls'
// rolling drag: the share of their speed lost a second.
constexpr float kGravity = 9.81f;
constexpr float kRollingDrag = 0.05f;

}  // namespace qt
