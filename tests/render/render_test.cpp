// Render tests: culled and unculled frames are byte-identical over many cameras, and the image
// shows terrain where it should. Needs a display (the CTest wrapper starts xvfb-run).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <numeric>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <glm/geometric.hpp>
#include <glm/gtc/constants.hpp>
#include <glm/matrix.hpp>
#include <glm/trigonometric.hpp>

#include "core/cull/occlusion.h"
#include "core/cull/pick.h"
#include "core/frame/draw_batches.h"
#include "core/io/image_write.h"
#include "core/io/memory_budget.h"
#include "core/light/daylight_sky.h"
#include "core/light/light_byte.h"
#include "core/objects/pick.h"
#include "core/objects/static_runs.h"
#include "core/streaming/bake.h"
#include "core/streaming/layout.h"
#include "core/streaming/layout_tiles.h"
#include "core/streaming/open_map.h"
#include "core/terrain/synthetic.h"
#include "core/terrain/vertex_grid.h"
#include "fault_proxy.h"
#include "http_server.h"
#include "qt_source_paths.h"
#include "render/debug_lines.h"
#include "render/framebuffer.h"
#include "render/gl_context.h"
#include "render/imagery_gpu.h"
#include "render/shader.h"
#include "render/terrain.h"
#include "render/terrain_imagery.h"
#include "render/terrain_renderer.h"
#include "render/terrain_sun.h"
#include "shared_maps.h"
#include "streaming/layout_fixtures.h"
#include "test_nodata.h"

namespace qt {
namespace {

constexpr int kWidth = 320;
constexpr int kHeight = 180;
constexpr int kCamerasPerMap = 40;
// Maps of a million samples and more take about half a second a frame on llvmpipe; they get fewer
// cameras unless QT_RENDER_CAMERAS asks for a number for every map.
constexpr int kCamerasPerBigMap = 24;
constexpr int64_t kBigMapSamples = 1000000;

int camerasFor(const Heightmap& map) {
    if (const char* forced = std::getenv("QT_RENDER_CAMERAS"); forced && std::atoi(forced) > 0) {
        return std::atoi(forced);
    }
    return map.sampleCount() >= kBigMapSamples ? kCamerasPerBigMap : kCamerasPerMap;
}

// The sky colour as the framebuffer stores it.
const uint8_t kSky[3] = {uint8_t(std::lround(kSkyColour[0] * 255.0f)),
                         uint8_t(std::lround(kSkyColour[1] * 255.0f)),
                         uint8_t(std::lround(kSkyColour[2] * 255.0f))};

// One hidden window, renderer and framebuffer for the whole run.
struct GlFixture {
    bool ready = false;
    std::string skipReason;
    GlContext context;
    TerrainRenderer renderer;
    ObjectRenderer objects;
    Framebuffer target;
};

GlFixture& gl() {
    static GlFixture fixture = [] {
        GlFixture f;
        GlContextOptions options;
        options.width = kWidth;
        options.height = kHeight;
        options.visible = false;
        Result<GlContext> context = GlContext::create(options);
        if (!context) {
            f.skipReason = "no OpenGL 3.3 core context: " + context.error();
            return f;
        }
        f.context = context.value();
        Result<TerrainRenderer> renderer = TerrainRenderer::create(QT_SHADER_DIR);
        Result<ObjectRenderer> objects = ObjectRenderer::create(QT_SHADER_DIR);
        Result<Framebuffer> target = Framebuffer::create(kWidth, kHeight);
        if (!renderer || !objects || !target) {
            f.skipReason = !renderer  ? renderer.error()
                           : !objects ? objects.error()
                                      : target.error();
            ADD_FAILURE() << f.skipReason;
            return f;
        }
        f.renderer = renderer.value();
        f.objects = std::move(objects).value();
        f.target = target.value();
        f.ready = true;
        return f;
    }();
    return fixture;
}

// Under CI=true a test without an OpenGL 3.3 context fails, so that a green CI always means the
// render tests ran; elsewhere (a machine without a display) it skips with the reason.
bool inCi() {
    const char* ci = std::getenv("CI");
    return ci != nullptr && std::string(ci) == "true";
}

#define REQUIRE_GL()                                                          \
    do {                                                                      \
        if (!gl().ready) {                                                    \
            if (inCi()) {                                                     \
                GTEST_FAIL() << gl().skipReason << " (CI=true: no skipping)"; \
            }                                                                 \
            GTEST_SKIP() << gl().skipReason;                                  \
        }                                                                     \
    } while (false)

// The path of the shared heightmap `file` (shared_maps.h), and whether it is there: tests on real
// maps skip, saying so, where the shared maps are absent.
std::string sharedMap(const std::string& file) {
    return test::sharedHeightmapsFolder() + "/" + file;
}

bool sharedMapPresent(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0;
}

#define SKIP_WITHOUT_SHARED_MAP(path)                                            \
    do {                                                                         \
        if (!sharedMapPresent(path)) {                                           \
            GTEST_SKIP() << "the shared heightmaps are absent (" << path << ")"; \
        }                                                                        \
    } while (false)

// Renders `camera` into the test framebuffer and reads the pixels back (RGBA, top row first).
// lodPixels > 0: level of detail, as the viewer's --lod.
FrameStats render(Terrain& terrain, const Camera& camera, bool cull, std::vector<uint8_t>& pixels,
                  bool wireframe = false, float lodPixels = 0.0f) {
    GlFixture& f = gl();
    f.target.bind();
    TerrainRenderer::clear(kWidth, kHeight);
    const FrameStats stats =
        renderTerrain(f.renderer, terrain, camera, CullView{camera, kHeight, cull, cull, lodPixels},
                      wireframe, &f.objects);
    readPixels(kWidth, kHeight, pixels);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return stats;
}

// The draw calls a frame takes: its instances (leaves, or nodes with level of detail) in the
// renderer's batches, those over no hole and those over holes each in batches of their own, and
// with level of detail, within each of these, the
// nodes of each program (programKey) apart; under a Sun, one more for the sky. `terrain` holds the
// frame's instances.
int expectedDraws(const Terrain& terrain, const FrameStats& stats, bool syncDraws) {
    const uint32_t instances =
        (stats.lod ? stats.lodStats.nodesDrawn : stats.cull.leavesDrawn) - stats.instancesEmpty;
    const uint32_t triangles = 2u * uint32_t(terrain.tree.leafSize * terrain.tree.leafSize);
    const auto batches = [&](uint32_t count) {  // sized for the whole frame
        return drawCount(count, instancesPerDraw(instances, triangles, syncDraws));
    };
    const uint32_t plain = instances - stats.instancesOverHoles;
    const uint32_t bounds[] = {0, plain, instances};
    int draws = gl().renderer.sun ? 1 : 0;
    for (int part = 0; part < 2; ++part) {
        std::array<uint32_t, kProgramKeys> byKey{};
        byKey[0] = bounds[part + 1] - bounds[part];
        if (stats.lod) {
            EXPECT_EQ(terrain.frame.lod.nodes.size(), size_t(instances));
            for (uint32_t i = bounds[part]; i < bounds[part + 1]; ++i) {
                const int key = programKey(terrain.frame.lod.nodes[i]);
                --byKey[0];
                ++byKey[size_t(key)];
            }
        }
        for (const uint32_t count : byKey) {
            draws += batches(count);
        }
    }
    return draws;
}

bool isSky(const std::vector<uint8_t>& pixels, int x, int y) {
    const uint8_t* p = &pixels[(size_t(y) * kWidth + size_t(x)) * 4];
    return p[0] == kSky[0] && p[1] == kSky[1] && p[2] == kSky[2];
}

double terrainShare(const std::vector<uint8_t>& pixels) {
    int count = 0;
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) {
            count += isSky(pixels, x, y) ? 0 : 1;
        }
    }
    return double(count) / (kWidth * kHeight);
}

// Portable uniform floats from mt19937's exact output sequence.
struct Random {
    std::mt19937 engine;
    explicit Random(uint32_t seed) : engine(seed) {}
    float unit() { return float(engine() >> 8) * (1.0f / 16777216.0f); }
    float range(float lo, float hi) { return lo + (hi - lo) * unit(); }
};

// A seed from a map's file name (FNV-1a): the same cameras wherever the checkout lies.
uint32_t seedOf(const std::string& name) {
    uint32_t hash = 2166136261u;
    for (const char ch : name) {
        hash = (hash ^ uint8_t(ch)) * 16777619u;
    }
    return hash;
}

// Varied deterministic cameras: low flight, high above, inside the terrain, straight down and up,
// outside looking in, narrow and wide fields of view.
std::vector<Camera> randomCameras(const Terrain& t, int count, uint32_t seed) {
    Random random(seed);
    const WorldExtent e = worldExtent(t.map, t.mapping);
    const float sizeX = e.sizeX, sizeZ = e.sizeZ, y0 = e.minY, y1 = e.maxY;
    const float size = e.longerSide();
    const float relief = std::max(y1 - y0, 1e-3f * size);
    std::vector<Camera> cameras;
    for (int i = 0; i < count; ++i) {
        Camera c;
        c.aspect = float(kWidth) / kHeight;
        c.fovY = glm::radians(random.range(35.0f, 90.0f));
        c.position = {random.range(0.0f, sizeX), 0.0f, random.range(0.0f, sizeZ)};
        c.yaw = random.range(-glm::pi<float>(), glm::pi<float>());
        switch (i % 8) {
            case 0:  // low flight toward the horizon
                c.position.y = y1 + random.range(0.0f, 0.05f) * relief;
                c.pitch = glm::radians(random.range(-15.0f, 5.0f));
                break;
            case 1:  // high above, looking down at an angle
                c.position.y = y1 + random.range(0.3f, 2.0f) * size;
                c.pitch = glm::radians(random.range(-89.0f, -30.0f));
                break;
            case 2:  // inside the terrain's height range, any direction
                c.position.y = random.range(y0, y1);
                c.pitch = random.range(-1.5f, 1.5f);
                break;
            case 3:  // straight down
                c.position.y = y1 + random.range(0.01f, 1.0f) * size;
                c.pitch = -glm::half_pi<float>();
                break;
            case 4:  // straight up, from below the highest point
                c.position.y = random.range(y0, y1);
                c.pitch = glm::half_pi<float>();
                break;
            case 5: {  // outside the map, looking at a point on it
                const float angle = random.range(0.0f, glm::two_pi<float>());
                const glm::vec3 centre(0.5f * sizeX, 0.5f * (y0 + y1), 0.5f * sizeZ);
                const glm::vec3 eye = centre + glm::vec3(std::cos(angle) * size * 0.9f,
                                                         random.range(0.1f, 1.0f) * size,
                                                         std::sin(angle) * size * 0.9f);
                c.lookAt(eye, {random.range(0.0f, sizeX), y0, random.range(0.0f, sizeZ)});
                break;
            }
            case 6:  // narrow field of view
                c.position.y = y1 + random.range(0.01f, 0.3f) * size;
                c.pitch = glm::radians(random.range(-60.0f, 0.0f));
                c.fovY = glm::radians(random.range(2.0f, 8.0f));
                break;
            default:  // wide field of view
                c.position.y = random.range(y0, y1 + 0.2f * size);
                c.pitch = glm::radians(random.range(-80.0f, 30.0f));
                c.fovY = glm::radians(random.range(120.0f, 170.0f));
                break;
        }
        fitClipPlanes(c, t.map, t.mapping);
        cameras.push_back(c);
    }
    return cameras;
}

// Renders every camera culled (frustum and occlusion) and unculled; the two pixel buffers must be
// byte-identical. `occluded` gets the leaves the occlusion stage removed over all cameras. With
// lodPixels > 0, both frames draw by level of detail within that many pixels.
void expectCulledEqualsUnculled(Terrain& terrain, const std::vector<Camera>& cameras,
                                uint64_t* occluded = nullptr, float lodPixels = 0.0f) {
    std::vector<uint8_t> culled;
    std::vector<uint8_t> unculled;
    int totalCulled = 0;
    uint64_t totalOccluded = 0;
    for (size_t i = 0; i < cameras.size(); ++i) {
        const int errorsBefore = glErrorCount();
        const FrameStats a = render(terrain, cameras[i], true, culled, false, lodPixels);
        const int aDraws = expectedDraws(terrain, a, gl().renderer.syncDraws);
        const FrameStats b = render(terrain, cameras[i], false, unculled, false, lodPixels);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR)) << "camera " << i;
        ASSERT_EQ(glErrorCount(), errorsBefore) << "GL debug errors at camera " << i;
        EXPECT_EQ(a.cull.leavesDrawn + a.cull.leavesCulled + a.cull.leavesOccluded, a.leavesTotal);
        EXPECT_EQ(b.cull.leavesDrawn, b.leavesTotal);
        // The instance buffer has grown to what the unculled frame drew (from room for 65,536:
        // LongestSide's maps draw 524,288 leaves), never past a leaf each.
        EXPECT_GE(terrain.gpu.instanceCapacity,
                  size_t(lodPixels > 0.0f ? b.lodStats.nodesDrawn : b.cull.leavesDrawn));
        EXPECT_LE(terrain.gpu.instanceCapacity, terrain.tree.leaves.size());
        EXPECT_EQ(a.drawCalls, aDraws);
        EXPECT_EQ(b.drawCalls, expectedDraws(terrain, b, gl().renderer.syncDraws));
        EXPECT_LE(b.drawCalls, kMaxTerrainDraws + kMaxTerrainRuns - 1 +
                                   (gl().renderer.sun ? 1 : 0));  // and the sky
        ASSERT_EQ(a.lod, lodPixels > 0.0f);
        if (a.lod) {  // culling only removes drawn nodes: the unculled frame draws them all
            EXPECT_LE(a.lodStats.nodesDrawn, b.lodStats.nodesDrawn);
            EXPECT_EQ(b.lodStats.leavesCovered, b.leavesTotal);
            totalCulled += int(b.lodStats.nodesDrawn - a.lodStats.nodesDrawn);
        }
        totalCulled += int(a.cull.leavesCulled);
        totalOccluded += a.cull.leavesOccluded;
        if (culled != unculled) {
            size_t differing = 0;
            for (size_t p = 0; p < culled.size(); p += 4) {
                differing += culled[p] != unculled[p] || culled[p + 1] != unculled[p + 1] ||
                                     culled[p + 2] != unculled[p + 2]
                                 ? 1
                                 : 0;
            }
            const Camera& c = cameras[i];
            ADD_FAILURE() << terrain.path << ": camera " << i << " at (" << c.position.x << ", "
                          << c.position.y << ", " << c.position.z << ") yaw " << c.yaw << " pitch "
                          << c.pitch << " fov " << glm::degrees(c.fovY) << ": " << differing
                          << " pixels differ between culled and unculled";
        }
    }
    // The cameras must actually exercise culling, or the comparison proves nothing.
    if (terrain.tree.leaves.size() > 1) {
        EXPECT_GT(totalCulled, 0) << terrain.path;
    }
    if (occluded) {
        *occluded = totalOccluded;
    }
}

// The terrain of `map`, its heights in pages of at least pageSize squares (small pages make a
// small map cross page borders at every level), with the exact coarse errors in place, so that
// every frame of a test splits alike.
Result<Terrain> makeTerrain(const Heightmap& map, int leafSize, const std::string& name,
                            int pageSize = kDefaultPageSize) {
    Result<Terrain> terrain = Terrain::create(map, leafSize, name, {}, {}, pageSize);
    if (terrain) {
        terrain.value().finishErrors();
    }
    return terrain;
}

// A synthetic map's size, leaf size and cells: spacingX by spacingZ world units (rectangular as a
// geographic raster's away from the equator).
struct SyntheticCase {
    int width;
    int height;
    int leafSize;
    float spacingX = 1.0f;
    float spacingZ = 1.0f;
    int pageSize = kDefaultPageSize;  // squares per GPU height page (at least the leaf size)
};

void PrintTo(const SyntheticCase& c, std::ostream* out) {
    *out << c.width << "x" << c.height << " leaf " << c.leafSize << " cells " << c.spacingX << "x"
         << c.spacingZ << " pages " << c.pageSize;
}

// The synthetic terrain of a case, its cells as the case says.
Result<Terrain> syntheticTerrain(const SyntheticCase& c, const std::string& name) {
    Result<Terrain> terrain =
        makeTerrain(syntheticHeightmap(c.width, c.height, uint32_t(c.width * 31 + c.height)),
                    c.leafSize, name, c.pageSize);
    if (terrain) {
        terrain.value().mapping.spacingX = c.spacingX;
        terrain.value().mapping.spacingZ = c.spacingZ;
    }
    return terrain;
}

class SyntheticMaps : public ::testing::TestWithParam<SyntheticCase> {};

TEST_P(SyntheticMaps, CulledFramesEqualUnculledFrames) {
    REQUIRE_GL();
    const SyntheticCase c = GetParam();
    const std::string name = "synthetic " + std::to_string(c.width) + "x" +
                             std::to_string(c.height) + " leaf " + std::to_string(c.leafSize);
    Result<Terrain> terrain = syntheticTerrain(c, name);
    ASSERT_TRUE(terrain) << terrain.error();
    expectCulledEqualsUnculled(
        terrain.value(),
        randomCameras(terrain.value(), camerasFor(terrain.value().map), 7u + c.width));
    terrain.value().destroy();
}

// The same with level of detail: a coarse node's surface joins its own samples, so it lies in
// the node's box, and culling by that box leaves the image as it was. Coarse steps (8 pixels)
// so that many levels meet.
TEST_P(SyntheticMaps, LodCulledFramesEqualLodUnculledFrames) {
    REQUIRE_GL();
    const SyntheticCase c = GetParam();
    Result<Terrain> terrain = syntheticTerrain(c, "synthetic lod");
    ASSERT_TRUE(terrain) << terrain.error();
    for (const float pixels : {1.0f, 8.0f}) {
        expectCulledEqualsUnculled(
            terrain.value(), randomCameras(terrain.value(), 16, 11u + c.width), nullptr, pixels);
    }
    terrain.value().destroy();
}

INSTANTIATE_TEST_SUITE_P(Sizes, SyntheticMaps,
                         ::testing::Values(SyntheticCase{257, 257, 4}, SyntheticCase{203, 141, 4},
                                           SyntheticCase{203, 141, 16}, SyntheticCase{130, 67, 64},
                                           SyntheticCase{2, 2, 2}, SyntheticCase{5, 3, 2},
                                           SyntheticCase{5, 3, 4},
                                           SyntheticCase{203, 141, 4, 0.676f, 1.0f},
                                           SyntheticCase{130, 67, 16, 2.5f, 1.0f},
                                           // Pages of one node, or two, a side at every level.
                                           SyntheticCase{203, 141, 4, 1.0f, 1.0f, 4},
                                           SyntheticCase{257, 257, 4, 1.0f, 1.0f, 8},
                                           SyntheticCase{130, 67, 16, 1.0f, 1.0f, 32}),
                         [](const ::testing::TestParamInfo<SyntheticCase>& param) {
                             const SyntheticCase& c = param.param;
                             const bool square = c.spacingX == c.spacingZ;
                             const bool pages = c.pageSize != kDefaultPageSize;
                             return std::to_string(c.width) + "x" + std::to_string(c.height) +
                                    "_leaf" + std::to_string(c.leafSize) +
                                    (square ? "" : "_rectangular_cells") +
                                    (pages ? "_pages" + std::to_string(c.pageSize) : "");
                         });

// Maps kMaxSide samples wide and long seen from near their far corner, aimed at points beside
// it: the nodes there end at sample 65536, one past what their boxes' 16-bit fields hold, and
// every frame shows them. Culled frames equal unculled ones, with level of detail too.
TEST(LongestSide, CulledFramesEqualUnculledFramesNearTheFarCorner) {
    REQUIRE_GL();
    for (const auto& [width, height, leafSize] :
         {std::tuple{kMaxSide, 33, 2}, std::tuple{17, kMaxSide, 4}}) {
        const std::string name = std::to_string(width) + "x" + std::to_string(height);
        Result<Terrain> made = makeTerrain(
            syntheticHeightmap(width, height, uint32_t(width + height)), leafSize, name);
        ASSERT_TRUE(made) << made.error();
        Terrain& terrain = made.value();
        const WorldExtent e = worldExtent(terrain.map, terrain.mapping);
        Random random(uint32_t(width * 7 + height));
        std::vector<Camera> cameras;
        for (int i = 0; i < 12; ++i) {
            Camera c;
            c.aspect = float(kWidth) / kHeight;
            c.fovY = glm::radians(random.range(30.0f, 90.0f));
            const glm::vec3 corner(e.sizeX, e.maxY, e.sizeZ);
            const glm::vec3 target(e.sizeX - random.range(0.0f, 12.0f), e.minY,
                                   e.sizeZ - random.range(0.0f, 12.0f));
            const float angle = random.range(0.0f, glm::two_pi<float>());
            const float away = random.range(4.0f, 60.0f);
            c.lookAt(corner + glm::vec3(std::cos(angle) * away, random.range(0.5f, 1.0f) * away,
                                        std::sin(angle) * away),
                     target);
            fitClipPlanes(c, terrain.map, terrain.mapping);
            cameras.push_back(c);
        }
        expectCulledEqualsUnculled(terrain, cameras);
        for (const float pixels : {1.0f, 8.0f}) {
            expectCulledEqualsUnculled(terrain, cameras, nullptr, pixels);
        }
        // The pictures are of the terrain: the far corner's leaf is drawn in every one.
        for (size_t i = 0; i < cameras.size(); ++i) {
            std::vector<uint8_t> pixels;
            render(terrain, cameras[i], true, pixels);
            const uint32_t corner =
                terrain.tree.leafIndexAt(terrain.tree.leavesX - 1, terrain.tree.leavesZ - 1);
            const std::vector<LeafCoord>& drawn = terrain.frame.drawList;
            EXPECT_TRUE(std::any_of(drawn.begin(), drawn.end(),
                                    [&](const LeafCoord& l) {
                                        return terrain.tree.leafIndexAt(l.col, l.row) == corner;
                                    }))
                << name << " camera " << i;
        }
        terrain.destroy();
    }
}

// Holes: a wedge of nodata along the east edge (a reprojected tile's), a disc inside, one-sample
// specks on a lattice, and a strip across the middle that crosses page borders at every level.
bool syntheticHole(int col, int row, int width, int height) {
    const bool wedge = col > width - width / 8 + row / 12;
    const bool disc =
        (col - width / 3) * (col - width / 3) + (row - height / 2) * (row - height / 2) <
        (height / 8) * (height / 8);
    const bool speck = (col * 31 + row * 17) % 97 == 0;
    const bool strip = row >= height / 4 && row <= height / 4 + 2 && col > width / 2;
    return wedge || disc || speck || strip;
}

// `map` with syntheticHole's samples nodata.
Heightmap withSyntheticHoles(const Heightmap& map) {
    return test::withNodata(
        map, [&](int col, int row) { return syntheticHole(col, row, map.width, map.height); });
}

// Culled frames equal unculled ones with holes, at full detail and by level of detail, over
// small pages (holes across page borders at every level): holes never occlude, and a hole's
// squares are left out alike in both.
TEST(Holes, CulledFramesEqualUnculledFramesOnSyntheticMaps) {
    REQUIRE_GL();
    for (const SyntheticCase c : {SyntheticCase{203, 141, 4, 1.0f, 1.0f, 8},
                                  SyntheticCase{257, 257, 4}, SyntheticCase{130, 67, 16}}) {
        const int w = c.width, h = c.height;
        const Heightmap map = withSyntheticHoles(syntheticHeightmap(w, h, uint32_t(w * 31 + h)));
        Result<Terrain> terrain = makeTerrain(map, c.leafSize, "holes", c.pageSize);
        ASSERT_TRUE(terrain) << terrain.error();
        ASSERT_TRUE(terrain.value().tree.hasHoles());
        ASSERT_NE(terrain.value().gpu.holeSquares, 0u);
        const std::vector<Camera> cameras = randomCameras(terrain.value(), 24, 5u + uint32_t(w));
        expectCulledEqualsUnculled(terrain.value(), cameras);
        for (const float pixels : {1.0f, 8.0f}) {
            expectCulledEqualsUnculled(terrain.value(), cameras, nullptr, pixels);
        }
        // The frames compared drew nodes over holes and nodes over none, with the two programs.
        int split = 0;
        std::vector<uint8_t> pixels;
        for (const Camera& camera : cameras) {
            const FrameStats f = render(terrain.value(), camera, true, pixels, false, 1.0f);
            split += f.instancesOverHoles > 0 && f.instancesOverHoles < f.lodStats.nodesDrawn;
        }
        EXPECT_GT(split, 0);
        terrain.value().destroy();
    }
}

// Contour lines depend on the fragment's own height and its derivatives alone: with them on, a
// culled frame still equals the unculled one, with and without holes (the hole program sets the
// same uniforms) and with level of detail; and they darken some of the terrain's pixels.
TEST(Contours, CulledFramesEqualUnculledFramesAndLinesAreDrawn) {
    REQUIRE_GL();
    const int w = 203, h = 141;
    const Heightmap plain = syntheticHeightmap(w, h, uint32_t(w * 31 + h));
    const Heightmap holes = withSyntheticHoles(plain);
    const float interval = (plain.maxSample - plain.minSample) / 12.0f;
    ASSERT_GT(interval, 0.0f);
    TerrainRenderer& renderer = gl().renderer;
    for (const Heightmap* map : {&plain, &holes}) {
        Result<Terrain> terrain = makeTerrain(*map, 4, "contours", 8);
        ASSERT_TRUE(terrain) << terrain.error();
        Terrain& t = terrain.value();
        const std::vector<Camera> cameras = randomCameras(t, 12, 41u);
        renderer.contourInterval = interval;
        expectCulledEqualsUnculled(t, cameras);
        expectCulledEqualsUnculled(t, cameras, nullptr, 4.0f);

        // From above the middle, looking down: lines over the terrain, nothing else changed.
        Camera c;
        c.aspect = float(kWidth) / kHeight;
        c.position = {0.5f * float(w - 1), t.mapping.worldHeight(map->maxSample) + 150.0f,
                      0.5f * float(h - 1)};
        c.pitch = -1.2f;
        fitClipPlanes(c, t.map, t.mapping);
        std::vector<uint8_t> lines;
        std::vector<uint8_t> none;
        render(t, c, true, lines);
        renderer.contourInterval = 0.0f;
        render(t, c, true, none);
        size_t darker = 0, lighter = 0;
        for (size_t p = 0; p < lines.size(); p += 4) {
            const int a = lines[p] + lines[p + 1] + lines[p + 2];
            const int b = none[p] + none[p + 1] + none[p + 2];
            darker += a < b;
            lighter += a > b;
        }
        EXPECT_GT(darker, size_t(kWidth * kHeight / 200)) << "too few contour pixels";
        EXPECT_LT(darker, size_t(kWidth * kHeight / 3)) << "contours cover too much";
        EXPECT_EQ(lighter, 0u);
        t.destroy();
    }
    renderer.contourInterval = 0.0f;
}

// The same over a real map with holes cut into it (the edges of a reprojected tile, a disc,
// specks).
TEST(Holes, CulledFramesEqualUnculledFramesOnARealMap) {
    REQUIRE_GL();
    const std::string path = sharedMap("N47E009.hgt");
    SKIP_WITHOUT_SHARED_MAP(path);
    Result<Heightmap> loaded = loadHeightmap(path);
    ASSERT_TRUE(loaded) << loaded.error();
    const int w = loaded.value().width, h = loaded.value().height;
    const Heightmap map = test::withNodata(std::move(loaded).value(), [&](int col, int row) {
        return syntheticHole(col, row, w, h) || col < row / 9 - 40;
    });
    Result<Terrain> terrain = makeTerrain(map, 16, "N47E009 with holes");
    ASSERT_TRUE(terrain) << terrain.error();
    terrain.value().mapping = defaultMapping(terrain.value().map);
    const std::vector<Camera> cameras = randomCameras(terrain.value(), 16, 91u);
    expectCulledEqualsUnculled(terrain.value(), cameras);
    expectCulledEqualsUnculled(terrain.value(), cameras, nullptr, 2.0f);
    terrain.value().destroy();
}

// Straight down over level ground with holes, at full detail and with level of detail: a pixel is
// sky exactly where the ground point under its centre lies in a square with a nodata corner, and
// terrain everywhere else (no crack around a hole, nothing drawn over one). Pixels whose point lies
// within a twentieth of a square's edge (a quarter of a pixel here) are left out: the GPU's
// interpolation may put them on either side.
TEST(Holes, NothingIsDrawnOverAHoleAndEverythingElseIs) {
    REQUIRE_GL();
    const int w = 129, h = 97;
    const Heightmap map = withSyntheticHoles(flatHeightmap(w, h, 50.0f));
    Result<Terrain> terrain = makeTerrain(map, 4, "flat with holes", 8);
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    t.mapping = {1.0f, 1.0f, 0.0f};
    // No fog: at the far plane it is the sky's colour.
    const Fog fog = gl().renderer.fog;
    gl().renderer.fog.on = false;
    for (const float lodPixels : {0.0f, 1.0f, 8.0f}) {
        for (const glm::vec2 at :
             {glm::vec2(64.3f, 48.7f), glm::vec2(100.2f, 30.1f), glm::vec2(40.6f, 50.3f)}) {
            Camera c;
            c.aspect = float(kWidth) / kHeight;
            c.fovY = glm::radians(50.0f);
            c.position = {at.x, 50.0f + 40.0f, at.y};
            c.yaw = 0.3f;
            c.pitch = -glm::half_pi<float>();
            fitClipPlanes(c, t.map, t.mapping);
            std::vector<uint8_t> pixels;
            render(t, c, true, pixels, false, lodPixels);
            const glm::mat4 inverse = glm::inverse(c.viewProjection());
            int holes = 0, ground = 0;
            for (int y = 0; y < kHeight; ++y) {
                for (int x = 0; x < kWidth; ++x) {
                    const glm::vec4 ndc((x + 0.5f) / kWidth * 2.0f - 1.0f,
                                        1.0f - (y + 0.5f) / kHeight * 2.0f, 0.0f, 1.0f);
                    glm::vec4 p = inverse * ndc;
                    const glm::vec3 onNear = glm::vec3(p) / p.w;
                    const glm::vec3 dir = glm::normalize(onNear - c.position);
                    const float s = (50.0f - c.position.y) / dir.y;
                    const glm::vec3 hit = c.position + s * dir;
                    const float fx = hit.x - std::floor(hit.x), fz = hit.z - std::floor(hit.z);
                    if (hit.x < 0.0f || hit.z < 0.0f || hit.x >= float(w - 1) ||
                        hit.z >= float(h - 1) || fx < 0.05f || fx > 0.95f || fz < 0.05f ||
                        fz > 0.95f) {
                        continue;
                    }
                    const bool hole = t.map.nodata.holeSquare(int(hit.x), int(hit.z));
                    ASSERT_EQ(isSky(pixels, x, y), hole)
                        << "pixel " << x << "," << y << " over square " << int(hit.x) << ","
                        << int(hit.z) << " at lod " << lodPixels;
                    holes += hole;
                    ground += !hole;
                }
            }
            EXPECT_GT(holes, 100);
            EXPECT_GT(ground, 100);
        }
    }
    gl().renderer.fog = fog;
    t.destroy();
}

// --fill-nodata's map (the fill shown as terrain) has no hole texture, and draws, pixel for
// pixel, what the same codes without nodata draw; with holes, the same cameras see sky through
// them.
TEST(Holes, AFilledMapDrawsTheFillAsTerrain) {
    REQUIRE_GL();
    const int w = 129, h = 97;
    const Heightmap plain = syntheticHeightmap(w, h, 4);
    Heightmap filled = withSyntheticHoles(plain);
    const Heightmap holey = filled;
    filled.nodata.fill();
    Result<Terrain> a = makeTerrain(filled, 4, "filled");
    Result<Terrain> b = makeTerrain(plain, 4, "plain");
    Result<Terrain> c = makeTerrain(holey, 4, "holes");
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(a.value().gpu.holeSquares, 0u);
    EXPECT_FALSE(a.value().tree.hasHoles());
    EXPECT_TRUE(a.value().map.nodata.filled);
    EXPECT_GT(a.value().map.nodata.samples, 0);
    int differ = 0;
    for (const Camera& camera : randomCameras(b.value(), 8, 3)) {
        std::vector<uint8_t> withFill, without, withHoles;
        render(a.value(), camera, true, withFill);
        render(b.value(), camera, true, without);
        render(c.value(), camera, true, withHoles);
        EXPECT_EQ(withFill, without);
        differ += withHoles != without;
    }
    EXPECT_GT(differ, 0);
    for (Result<Terrain>* t : {&a, &b, &c}) {
        t->value().destroy();
    }
}

struct RealCase {
    const char* file;
    int leafSize;
};

void PrintTo(const RealCase& c, std::ostream* out) {
    *out << c.file << " leaf " << c.leafSize;
}

// A test name from the map's file name, without its extension.
std::string realCaseName(const ::testing::TestParamInfo<RealCase>& param) {
    const std::string name = param.param.file;
    return name.substr(0, name.find('.'));
}

class RealMaps : public ::testing::TestWithParam<RealCase> {};

// Loads the shared map of `c` (skipping when the maps are absent) and compares culled and
// unculled frames on `cameras` cameras (0: camerasFor the map); lodPixels as for render().
void expectSharedMapCulledEqualsUnculled(const RealCase& c, int cameras, uint32_t seed,
                                         float lodPixels) {
    const std::string path = sharedMap(c.file);
    SKIP_WITHOUT_SHARED_MAP(path);
    Result<Terrain> terrain = loadTerrain(path, {}, c.leafSize);
    ASSERT_TRUE(terrain) << terrain.error();
    terrain.value().finishErrors();
    const int count = cameras > 0 ? cameras : camerasFor(terrain.value().map);
    expectCulledEqualsUnculled(terrain.value(), randomCameras(terrain.value(), count, seed),
                               nullptr, lodPixels);
    terrain.value().destroy();
}

TEST_P(RealMaps, CulledFramesEqualUnculledFrames) {
    REQUIRE_GL();
    expectSharedMapCulledEqualsUnculled(GetParam(), 0, seedOf(GetParam().file), 0.0f);
}

TEST_P(RealMaps, LodCulledFramesEqualLodUnculledFrames) {
    REQUIRE_GL();
    expectSharedMapCulledEqualsUnculled(GetParam(), 16, seedOf(GetParam().file) + 1, 2.0f);
}

INSTANTIATE_TEST_SUITE_P(Shared, RealMaps,
                         ::testing::Values(RealCase{"puget_sound_1025x1025.png", 8},
                                           RealCase{"N47E009.hgt", 16},
                                           RealCase{"jacksboro_fault_403x344.png", 4},
                                           RealCase{"r_volcano_maunga_whau_87x61.png", 2}),
                         realCaseName);

// The ids object_runs.comp wrote on the GPU for the last frame, read back, are those
// expandStaticRuns writes on the CPU from the same runs and selection, entry for entry; counts
// the entries marked selected and in the band.
void expectRunsExpandedAsOnTheCpu(const ObjectRenderer& objects, uint64_t& selected,
                                  uint64_t& inBand) {
    const ObjectInstances& in = objects.instances;
    const size_t total = std::accumulate(in.idCounts.begin(), in.idCounts.end(), size_t(0));
    std::vector<uint32_t> gpu(total);
    glBindBuffer(GL_ARRAY_BUFFER, objects.idBuffer);
    glGetBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(total * sizeof(uint32_t)), gpu.data());
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    ObjectInstances cpu;
    cpu.reserve(uint32_t(total));
    cpu.idCounts = in.idCounts;
    expandStaticRuns(objects.runs, objects.selectedPlaces, cpu);
    size_t at = 0;
    for (int m = 0; m < kObjectMeshes; ++m) {
        for (uint32_t k = 0; k < in.idCounts[size_t(m)]; ++k, ++at) {
            ASSERT_EQ(gpu[at], cpu.ids(m)[k]) << "mesh " << m << ", entry " << k;
            selected += (gpu[at] & kSelectedId) ? 1 : 0;
            inBand += (gpu[at] & kBandId) ? 1 : 0;
        }
    }
}

// Objects on the terrain (trees, rocks and rolling balls, after some steps): culled frames equal
// unculled ones over the varied cameras and low ones among the objects, with level of detail off
// and on; the cameras cull objects by the frustum and by occlusion, and the objects take at most
// one draw per mesh and kind of instance data; the static ones drawn from runs expanded on the GPU
// or on the CPU, or whole, they are the same pixels, selected ones highlighted alike. Far objects
// are drawn as impostors, and those in the band between as both, dithered.
// Adds the objects occluded over all frames to `occluded`.
void expectObjectsCulledEqualsUnculled(Terrain& terrain, uint32_t count, uint32_t moving,
                                       int cameraCount, uint64_t& occludedTotal) {
    Result<ObjectScene> scene =
        ObjectScene::scatter(terrain.map, terrain.mapping, count, moving, seedOf(terrain.path));
    ASSERT_TRUE(scene) << scene.error();
    terrain.setObjects(std::make_unique<ObjectScene>(std::move(scene).value()));
    gl().objects.reserve(count);
    terrain.stepObjects(30);
    // Every seventh object selected: highlighted alike however the static ones are sent.
    for (uint32_t id = 0; id < count; id += 7) {
        terrain.selectedObjects[id] = 1;
    }
    ++terrain.selectionVersion;
    std::vector<Camera> cameras = randomCameras(terrain, cameraCount, seedOf(terrain.path) + 1);
    Random random(seedOf(terrain.path) + 2);
    const WorldExtent e = worldExtent(terrain.map, terrain.mapping);
    for (int i = 0; i < cameraCount; ++i) {  // low, among the objects, toward the horizon
        Camera c;
        c.aspect = float(kWidth) / kHeight;
        const float x = random.range(0.1f, 0.9f) * e.sizeX, z = random.range(0.1f, 0.9f) * e.sizeZ;
        c.position = {x,
                      surfaceAt(terrain.map, terrain.mapping, x, z).height +
                          random.range(0.003f, 0.03f) * std::max(e.maxY - e.minY, 1.0f),
                      z};
        c.yaw = random.range(-glm::pi<float>(), glm::pi<float>());
        c.pitch = glm::radians(random.range(-15.0f, 3.0f));
        fitClipPlanes(c, terrain.map, terrain.mapping);
        cameras.push_back(c);
    }
    uint64_t culled = 0, occluded = 0, byId = 0, impostors = 0, inBand = 0, expandedOnGpu = 0;
    uint64_t selectedOnGpu = 0, bandOnGpu = 0;
    std::vector<uint8_t> a, b;
    for (const float lod : {0.0f, 2.0f}) {
        for (size_t i = 0; i < cameras.size(); ++i) {
            const int errorsBefore = glErrorCount();
            const FrameStats s = render(terrain, cameras[i], true, a, false, lod);
            if (gl().objects.expandedOnGpu) {
                expectRunsExpandedAsOnTheCpu(gl().objects, selectedOnGpu, bandOnGpu);
            }
            const ObjectInstances& drawn = gl().objects.instances;
            const std::array<uint32_t, kObjectMeshes> idCounts = drawn.idCounts;
            byId += std::accumulate(idCounts.begin(), idCounts.end(), 0u);
            impostors += idCounts[1] + idCounts[3] + drawn.counts[1] + drawn.counts[3];
            inBand += drawn.inBoth[0] + drawn.inBoth[1];
            const FrameStats u = render(terrain, cameras[i], false, b, false, lod);
            ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
            ASSERT_EQ(glErrorCount(), errorsBefore) << "GL debug errors at camera " << i;
            ASSERT_EQ(s.objects.drawn + s.objects.culled + s.objects.occluded, count);
            ASSERT_EQ(u.objects.drawn, count);
            ASSERT_LE(s.objectDrawCalls, kMaxObjectDraws);
            ASSERT_LE(u.objectDrawCalls, kMaxObjectDraws);
            culled += s.objects.culled;
            occluded += s.objects.occluded;
            size_t differing = 0;
            for (size_t p = 0; p < a.size(); p += 4) {
                differing += std::memcmp(&a[p], &b[p], 3) != 0 ? 1 : 0;
            }
            const Camera& c = cameras[i];
            EXPECT_EQ(differing, 0u)
                << terrain.path << ", lod " << lod << ": camera " << i << " at (" << c.position.x
                << ", " << c.position.y << ", " << c.position.z << ") yaw " << c.yaw << " pitch "
                << c.pitch << ": pixels differ";
            // The static objects were drawn from the runs of their places, expanded into ids on
            // the GPU where it has compute shaders, and the GPU's copy of their records; with the
            // runs expanded on the CPU instead, and drawn from whole instances, the frame is the
            // same.
            ObjectRenderer& objects = gl().objects;
            ASSERT_TRUE(objects.recordsHeld);
            expandedOnGpu += objects.expandedOnGpu ? 1 : 0;
            for (const bool whole : {false, true}) {
                (whole ? objects.staticById : objects.expandOnGpu) = false;
                render(terrain, cameras[i], true, b, false, lod);
                objects.staticById = true;
                objects.expandOnGpu = true;
                ASSERT_FALSE(objects.expandedOnGpu);
                const std::array<uint32_t, kObjectMeshes>& ids = objects.instances.idCounts;
                ASSERT_EQ(objects.staticWhole.size(),
                          whole ? std::accumulate(ids.begin(), ids.end(), size_t(0)) : 0u);
                differing = 0;
                for (size_t p = 0; p < a.size(); p += 4) {
                    differing += std::memcmp(&a[p], &b[p], 3) != 0 ? 1 : 0;
                }
                EXPECT_EQ(differing, 0u)
                    << terrain.path << ", lod " << lod << ": camera " << i << ": objects "
                    << (whole ? "whole" : "expanded on the CPU") << " and by GPU runs differ";
            }
        }
    }
    if (ObjectRenderer::computeAvailable()) {
        EXPECT_GT(expandedOnGpu, 0u) << "compute shaders, yet no runs expanded on the GPU";
        EXPECT_GT(selectedOnGpu, 0u) << "no selected object expanded on the GPU";
        EXPECT_GT(bandOnGpu, 0u) << "no object in the band expanded on the GPU";
    } else {
        std::printf("no compute shaders: the runs' expansion on the GPU is not tested\n");
    }
    EXPECT_GT(byId, 0u) << "no static object drawn by id: the comparison proves nothing";
    EXPECT_GT(impostors, 0u) << "no impostor drawn: the comparison proves nothing of them";
    EXPECT_GT(inBand, 0u) << "no object in the band between mesh and impostor";
    std::printf("%s: %u objects, %llu culled and %llu occluded over %zu frames\n",
                terrain.path.c_str(), count, (unsigned long long)culled,
                (unsigned long long)occluded, 2 * cameras.size());
    EXPECT_GT(culled, 0u);
    occludedTotal += occluded;
    terrain.setObjects(nullptr);
}

TEST(ObjectsOnTerrain, CulledFramesEqualUnculledFramesOnASyntheticMap) {
    REQUIRE_GL();
    Result<Terrain> terrain = makeTerrain(syntheticHeightmap(257, 257, 12), 4, "synthetic 257");
    ASSERT_TRUE(terrain) << terrain.error();
    uint64_t occluded = 0;
    expectObjectsCulledEqualsUnculled(terrain.value(), 5000, 1000, 16, occluded);
    terrain.value().destroy();
    EXPECT_GT(occluded, 0u) << "no object occluded: the comparison proves nothing of occlusion";
}

TEST(ObjectsOnTerrain, CulledFramesEqualUnculledFramesOnRealMaps) {
    REQUIRE_GL();
    int found = 0;
    uint64_t occluded = 0;
    // About one object per 20 square samples: room for the balls among the trees and rocks.
    const std::pair<const char*, uint32_t> maps[] = {{"puget_sound_1025x1025.png", 50000},
                                                     {"jacksboro_fault_403x344.png", 7000}};
    for (const auto& [file, count] : maps) {
        const std::string path = sharedMap(file);
        if (!sharedMapPresent(path)) {
            continue;
        }
        ++found;
        Result<Heightmap> map = loadHeightmap(path, {});
        ASSERT_TRUE(map) << map.error();
        Result<Terrain> terrain = makeTerrain(map.value(), 4, path);
        ASSERT_TRUE(terrain) << terrain.error();
        expectObjectsCulledEqualsUnculled(terrain.value(), count, count / 10, 6, occluded);
        terrain.value().destroy();
    }
    if (found == 0) {
        GTEST_SKIP() << "the shared heightmaps are absent";
    }
    EXPECT_GT(occluded, 0u) << "no object occluded: the comparison proves nothing of occlusion";
}

// Low flight inside the relief, just above the local ground, toward the horizon, in a 1280x720
// frame: where the occlusion stage removes the most and its pixel margins are thinnest. The
// culled frame must equal the unculled one, and occlusion must really have removed leaves.
class OcclusionPictures : public ::testing::TestWithParam<RealCase> {};

// Highest world height within `radius` samples of (col, row).
float groundAround(const Heightmap& map, const WorldMapping& mapping, int col, int row,
                   int radius) {
    float highest = -1e30f;
    for (int r = std::max(row - radius, 0); r <= std::min(row + radius, map.height - 1); ++r) {
        for (int c = std::max(col - radius, 0); c <= std::min(col + radius, map.width - 1); ++c) {
            highest = std::max(highest, mapping.worldHeight(map.at(c, r)));
        }
    }
    return highest;
}

// lodPixels > 0: with level of detail, where the stage tests the nodes drawn at full detail.
void expectLowFlightEqualsUnculledAndHidesLeaves(const RealCase& param, float lodPixels) {
    constexpr int kShotWidth = 1280;
    constexpr int kShotHeight = 720;
    constexpr int kCameras = 12;
    const std::string path = sharedMap(param.file);
    SKIP_WITHOUT_SHARED_MAP(path);
    Result<Heightmap> map = loadHeightmap(path, {});
    ASSERT_TRUE(map) << map.error();
    const Heightmap& m = map.value();
    Result<Terrain> loaded = Terrain::create(m, param.leafSize, path);
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain& terrain = loaded.value();
    terrain.finishErrors();
    Result<Framebuffer> target = Framebuffer::create(kShotWidth, kShotHeight);
    ASSERT_TRUE(target) << target.error();

    const WorldMapping& mapping = terrain.mapping;
    const float relief =
        std::fabs(mapping.worldHeight(m.maxSample) - mapping.worldHeight(m.minSample));
    Random random(seedOf(param.file));
    std::vector<uint8_t> culled;
    std::vector<uint8_t> unculled;
    uint64_t inFrustum = 0;
    uint64_t candidates = 0;  // the leaves the stage could hide: in the frustum, or at full detail
    uint64_t occluded = 0;
    int active = 0;
    for (int i = 0; i < kCameras; ++i) {
        const int col = int(random.range(0.1f, 0.9f) * float(m.width - 1));
        const int row = int(random.range(0.1f, 0.9f) * float(m.height - 1));
        Camera c;
        c.aspect = float(kShotWidth) / kShotHeight;
        c.position = {float(col) * mapping.spacingX,
                      groundAround(m, mapping, col, row, 8) + random.range(0.005f, 0.08f) * relief,
                      float(row) * mapping.spacingZ};
        c.yaw = random.range(-glm::pi<float>(), glm::pi<float>());
        c.pitch = glm::radians(random.range(-12.0f, 3.0f));
        fitClipPlanes(c, terrain.map, mapping);
        FrameStats stats[2];
        for (const bool cull : {true, false}) {
            std::vector<uint8_t>& pixels = cull ? culled : unculled;
            target.value().bind();
            TerrainRenderer::clear(kShotWidth, kShotHeight);
            stats[cull ? 0 : 1] = renderTerrain(
                gl().renderer, terrain, c, CullView{c, kShotHeight, cull, cull, lodPixels}, false);
            readPixels(kShotWidth, kShotHeight, pixels);
            if (cull && lodPixels > 0.0f) {
                // The culled selection's full-detail nodes: the leaves the stage kept.
                candidates += uint64_t(
                    std::count_if(terrain.frame.lod.nodes.begin(), terrain.frame.lod.nodes.end(),
                                  [](const DrawNode& node) { return node.level == 0; }));
            }
        }
        inFrustum += stats[0].cull.leavesDrawn + stats[0].cull.leavesOccluded;
        candidates +=
            stats[0].cull.leavesOccluded + (lodPixels > 0.0f ? 0 : stats[0].cull.leavesDrawn);
        ASSERT_EQ(stats[0].lod, lodPixels > 0.0f);
        ASSERT_EQ(stats[0].lodStats.leavesOccluded,
                  lodPixels > 0.0f ? stats[0].cull.leavesOccluded : 0);
        occluded += stats[0].cull.leavesOccluded;
        active += stats[0].occlusion.active;
        size_t differing = 0;
        for (size_t p = 0; p < culled.size(); p += 4) {
            differing += std::memcmp(&culled[p], &unculled[p], 3) != 0 ? 1 : 0;
        }
        EXPECT_EQ(differing, 0u) << path << ": camera " << i << " at (" << c.position.x << ", "
                                 << c.position.y << ", " << c.position.z << ") yaw " << c.yaw
                                 << " pitch " << c.pitch << ": pixels differ";
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    target.value().destroy();
    terrain.destroy();
    // Not a vacuous comparison: the stage ran in every view (each eye is above the ground near
    // it), and these views hide a good share of what it could.
    std::printf(
        "%s, lod %.1f: %d of %d views tested, %llu of %llu leaves occluded, %llu of them "
        "full-detail candidates\n",
        param.file, double(lodPixels), active, kCameras, (unsigned long long)occluded,
        (unsigned long long)inFrustum, (unsigned long long)candidates);
    EXPECT_EQ(active, kCameras) << path;
    // With level of detail only the nodes drawn at full detail can go, the nearer part of the
    // view: a share of those, as of the frustum's leaves without it.
    EXPECT_GT(double(occluded), 0.1 * double(candidates))
        << path << ": " << occluded << " of " << candidates << " candidate leaves occluded";
}

TEST_P(OcclusionPictures, LowFlightEqualsUnculledAndHidesLeaves) {
    REQUIRE_GL();
    expectLowFlightEqualsUnculledAndHidesLeaves(GetParam(), 0.0f);
}

TEST_P(OcclusionPictures, LowFlightWithLodEqualsUnculledAndHidesLeaves) {
    REQUIRE_GL();
    expectLowFlightEqualsUnculledAndHidesLeaves(GetParam(), 2.0f);
}

INSTANTIATE_TEST_SUITE_P(Shared, OcclusionPictures,
                         ::testing::Values(RealCase{"puget_sound_1025x1025.png", 4},
                                           RealCase{"N47E009.hgt", 8},
                                           RealCase{"r_volcano_maunga_whau_87x61.png", 2}),
                         realCaseName);

// A flat sea (sample 0) with islands, for eyes just above the water: the views where plane
// tests and the occlusion stage's slopes meet grazing surfaces.
Heightmap seaWithIslands(int side) {
    std::vector<float> samples(size_t(side) * size_t(side), 0.0f);
    const float islands[][4] = {
        {0.5f, 0.62f, 0.05f, 300.0f}, {0.23f, 0.35f, 0.025f, 100.0f}, {0.75f, 0.3f, 0.04f, 40.0f}};
    for (int row = 0; row < side; ++row) {
        for (int col = 0; col < side; ++col) {
            float& v = samples[size_t(row) * size_t(side) + size_t(col)];
            for (const auto& island : islands) {
                const float d = std::hypot(float(col) / float(side - 1) - island[0],
                                           float(row) / float(side - 1) - island[1]);
                v = std::max(v, std::floor(island[3] * std::max(0.0f, 1.0f - d / island[2])));
            }
        }
    }
    return makeHeightmap(side, side, samples).value();
}

// Far from the origin (height offsets up to 1e6, where a float's ulp is 0.06) and with the eye a
// few hundredths to a few units above flat water, looking low with fields of view down to 3
// degrees: culled frames still equal unculled ones, pixel for pixel.
TEST(FarFromTheOrigin, CulledFramesEqualUnculledFramesAboveFlatWater) {
    REQUIRE_GL();
    Result<Terrain> loaded = makeTerrain(seaWithIslands(257), 4, "sea with islands");
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain terrain = std::move(loaded).value();
    Random random(77);
    for (const float offset : {0.0f, 1e4f, 1e5f, 3e5f, 1e6f}) {
        terrain.mapping = {1.0f, 0.01f, offset};
        std::vector<Camera> cameras;
        for (const float above : {0.05f, 0.5f, 2.0f, 20.0f}) {
            for (const float fov : {3.0f, 3.0f, 10.0f, 10.0f, 45.0f}) {
                Camera c;
                c.fovY = glm::radians(fov);
                c.aspect = float(kWidth) / kHeight;
                c.position = {random.range(20.0f, 236.0f), offset + above,
                              random.range(20.0f, 236.0f)};
                c.yaw = random.range(-3.14f, 3.14f);
                c.pitch = glm::radians(random.range(-1.0f, 0.2f) * fov);
                fitClipPlanes(c, terrain.map, terrain.mapping);
                cameras.push_back(c);
            }
            // Along the grid's axes from a leaf corner, a little down: plane normals with zero
            // components and eyes over the leaves' edges.
            for (int k = 0; k < 4; ++k) {
                Camera c;
                c.fovY = glm::radians(3.0f);
                c.aspect = float(kWidth) / kHeight;
                const glm::vec3 eye(128.0f, offset + above, 128.0f);
                const glm::vec3 ahead(k == 0   ? 1.0f
                                      : k == 1 ? -1.0f
                                               : 0.0f,
                                      0.0f,
                                      k == 2   ? 1.0f
                                      : k == 3 ? -1.0f
                                               : 0.0f);
                c.lookAt(eye, eye + 100.0f * ahead - glm::vec3(0.0f, 0.4f * above, 0.0f));
                fitClipPlanes(c, terrain.map, terrain.mapping);
                cameras.push_back(c);
            }
        }
        SCOPED_TRACE("height offset " + std::to_string(offset));
        expectCulledEqualsUnculled(terrain, cameras);
    }
    terrain.destroy();
}

// Pixels whose colour differs between two pictures of the same size.
size_t differingPixels(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    size_t differing = 0;
    for (size_t p = 0; p < a.size(); p += 4) {
        differing += a[p] != b[p] || a[p + 1] != b[p + 1] || a[p + 2] != b[p + 2] ? 1 : 0;
    }
    return differing;
}

// The picture does not degrade with the height: positions are taken relative to the eye (in
// double on the CPU, exact integer columns in the shader), so a map raised by an offset from 0 to
// 1e6 and seen from an eye raised by the same offset gives the same pixels, culled and not. (In
// world coordinates at 1e6 a float's step is 0.06: a map a few units high breaks up.)
TEST(FarFromTheOrigin, PicturesDoNotDegradeWithTheHeight) {
    REQUIRE_GL();
    std::vector<float> samples(17 * 17);
    for (int r = 0; r < 17; ++r) {
        for (int c = 0; c < 17; ++c) {
            samples[size_t(r) * 17 + size_t(c)] = float((c * 3 + r * 5) % 7);
        }
    }
    Result<Terrain> loaded = makeTerrain(makeHeightmap(17, 17, samples).value(), 4, "small");
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain terrain = std::move(loaded).value();
    const std::vector<std::pair<glm::vec3, glm::vec3>> views = {
        {{-3.0f, 12.0f, -3.0f}, {8.0f, 0.0f, 8.0f}},
        {{8.0f, 1.5f, 20.0f}, {8.0f, 2.0f, 0.0f}},
        {{2.0f, 30.0f, 2.0f}, {9.0f, 0.0f, 10.0f}}};
    for (size_t v = 0; v < views.size(); ++v) {
        std::vector<uint8_t> reference, culled, unculled;
        for (const float offset : {0.0f, 1e3f, 4e4f, 3e5f, 1e6f}) {
            terrain.mapping = {1.0f, 1.0f, offset};
            Camera c;
            c.aspect = float(kWidth) / kHeight;
            const glm::vec3 up(0.0f, offset, 0.0f);
            c.lookAt(views[v].first + up, views[v].second + up);
            fitClipPlanes(c, terrain.map, terrain.mapping);
            render(terrain, c, true, culled);
            render(terrain, c, false, unculled);
            ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
            EXPECT_EQ(differingPixels(culled, unculled), 0u) << "view " << v << ", " << offset;
            if (offset == 0.0f) {
                reference = culled;
                EXPECT_GT(terrainShare(reference), 0.1) << "view " << v;
            } else {
                EXPECT_EQ(differingPixels(reference, culled), 0u) << "view " << v << ", " << offset;
            }
        }
    }
    terrain.destroy();
}

class Picture : public ::testing::Test {
protected:
    void SetUp() override {
        REQUIRE_GL();
        Result<Terrain> loaded = makeTerrain(syntheticHeightmap(129, 97, 3), 4, "picture");
        ASSERT_TRUE(loaded) << loaded.error();
        terrain = std::move(loaded).value();
        const WorldExtent e = worldExtent(terrain.map, terrain.mapping);
        sizeX = e.sizeX;
        sizeZ = e.sizeZ;
        top = e.maxY;
    }
    void TearDown() override { terrain.destroy(); }

    Camera above(float height, float pitch) const {
        Camera c;
        c.aspect = float(kWidth) / kHeight;
        c.position = {0.5f * sizeX, top + height, 0.5f * sizeZ};
        c.pitch = pitch;
        fitClipPlanes(c, terrain.map, terrain.mapping);
        return c;
    }

    Terrain terrain;
    float sizeX = 0.0f;
    float sizeZ = 0.0f;
    float top = 0.0f;
    std::vector<uint8_t> pixels;
};

TEST_F(Picture, OverviewIsMostlyTerrain) {
    const Camera c =
        overviewCamera(terrain.map, terrain.mapping, float(kWidth) / kHeight, glm::radians(60.0f));
    const FrameStats stats = render(terrain, c, true, pixels);
    EXPECT_EQ(stats.drawCalls, 1);
    EXPECT_EQ(stats.cull.leavesDrawn, stats.leavesTotal);  // the whole map is in view
    EXPECT_GT(terrainShare(pixels), 0.08);
    EXPECT_FALSE(isSky(pixels, kWidth / 2, kHeight / 2));  // it looks at the map's centre
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// With the frustum frozen on a narrow view of one corner, seen from the overview: the frozen set's
// pixels are exactly those of drawing it alone, and the rest of the map fills the frame around it,
// faded towards the sky.
TEST_F(Picture, FrozenFrustumKeepsTheRestOfTheMapFadedAroundIt) {
    const Camera viewing =
        overviewCamera(terrain.map, terrain.mapping, float(kWidth) / kHeight, glm::radians(60.0f));
    Camera frozen;
    frozen.aspect = float(kWidth) / kHeight;
    frozen.fovY = glm::radians(30.0f);
    frozen.lookAt({0.1f * sizeX, top, 0.1f * sizeZ}, {0.3f * sizeX, 0.0f, 0.3f * sizeZ});
    fitClipPlanes(frozen, terrain.map, terrain.mapping);
    const CullView view{frozen, kHeight, true, true, 0.0f};
    GlFixture& f = gl();
    std::vector<uint8_t> alone;
    f.target.bind();
    TerrainRenderer::clear(kWidth, kHeight);
    const FrameStats a = renderTerrain(f.renderer, terrain, viewing, view, false);
    readPixels(kWidth, kHeight, alone);
    TerrainRenderer::clear(kWidth, kHeight);
    const FrameStats b = renderFrozenView(f.renderer, terrain, viewing, view, false);
    readPixels(kWidth, kHeight, pixels);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    EXPECT_EQ(a.cull.leavesDrawn, b.cull.leavesDrawn);
    EXPECT_GT(b.drawCalls, a.drawCalls);  // the rest of the map is one more draw
    int frozenPixels = 0, around = 0;
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) {
            const size_t p = (size_t(y) * kWidth + size_t(x)) * 4;
            if (!isSky(alone, x, y)) {
                ++frozenPixels;
                ASSERT_EQ(std::memcmp(&alone[p], &pixels[p], 3), 0) << "pixel " << x << "," << y;
            } else if (!isSky(pixels, x, y)) {
                ++around;
            }
        }
    }
    EXPECT_GT(frozenPixels, kWidth * kHeight / 100);  // the frozen set is in the picture
    EXPECT_GT(around, 2 * frozenPixels);              // and the map around it
    // Faded: the map around is nearer the sky's colour than the same ground drawn lit.
    std::vector<uint8_t> lit;
    render(terrain, viewing, true, lit);
    double litDistance = 0.0, fadedDistance = 0.0;
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) {
            if (isSky(alone, x, y) && !isSky(pixels, x, y) && !isSky(lit, x, y)) {
                const size_t p = (size_t(y) * kWidth + size_t(x)) * 4;
                for (int k = 0; k < 3; ++k) {
                    litDistance += std::abs(int(lit[p + size_t(k)]) - int(kSky[k]));
                    fadedDistance += std::abs(int(pixels[p + size_t(k)]) - int(kSky[k]));
                }
            }
        }
    }
    EXPECT_LT(fadedDistance, 0.7 * litDistance);
}

TEST_F(Picture, LookingAtTheCentreFromAboveIsMostlyTerrain) {
    Camera c;
    c.aspect = float(kWidth) / kHeight;
    c.lookAt({0.5f * sizeX, top + 0.5f * sizeZ, 0.9f * sizeZ}, {0.5f * sizeX, top, 0.5f * sizeZ});
    fitClipPlanes(c, terrain.map, terrain.mapping);
    render(terrain, c, true, pixels);
    EXPECT_GT(terrainShare(pixels), 0.5);
    EXPECT_FALSE(isSky(pixels, kWidth / 2, kHeight / 2));
}

TEST_F(Picture, LookingStraightDownSeesTerrainEverywhere) {
    const FrameStats stats =
        render(terrain, above(0.2f * sizeZ, -glm::half_pi<float>()), true, pixels);
    EXPECT_GT(stats.cull.leavesCulled, 0u);
    EXPECT_FALSE(isSky(pixels, kWidth / 2, kHeight / 2));
    EXPECT_GT(terrainShare(pixels), 0.99);
}

TEST_F(Picture, LookingStraightUpSeesOnlySky) {
    const FrameStats stats = render(terrain, above(1.0f, glm::half_pi<float>()), true, pixels);
    EXPECT_EQ(stats.cull.leavesDrawn, 0u);
    EXPECT_EQ(stats.drawCalls, 0);
    EXPECT_EQ(terrainShare(pixels), 0.0);
}

TEST_F(Picture, WireframeAndLiveMappingChangesRenderWithoutErrors) {
    const Camera c =
        overviewCamera(terrain.map, terrain.mapping, float(kWidth) / kHeight, glm::radians(60.0f));
    std::vector<uint8_t> solid;
    render(terrain, c, true, solid);
    render(terrain, c, true, pixels, true);
    EXPECT_NE(solid, pixels);
    terrain.mapping.heightScale *= 2.0f;  // a uniform: no re-upload
    std::vector<uint8_t> taller;
    render(terrain, c, true, taller);
    EXPECT_NE(solid, taller);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// Batches: the renderer's synchronised batches (a re-pointed instance attribute and a fence
// each) draw exactly the pixels of one instanced draw, leaves and level-of-detail nodes alike,
// in up to kMaxTerrainDraws draws.
TEST(SyncedDraws, BatchesDrawTheSamePixelsAsOneDraw) {
    REQUIRE_GL();
    Result<Terrain> loaded = makeTerrain(syntheticHeightmap(1025, 1025, 5), 4, "batches");
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain& terrain = loaded.value();
    TerrainRenderer& renderer = gl().renderer;
    const bool automatic = renderer.syncDraws;
    std::vector<Camera> cameras = randomCameras(terrain, 8, 99u);
    cameras.push_back(
        overviewCamera(terrain.map, terrain.mapping, float(kWidth) / kHeight, glm::radians(60.0f)));
    int mostDraws = 0;
    for (const float lodPixels : {0.0f, 0.5f}) {
        for (const Camera& camera : cameras) {
            std::vector<uint8_t> one;
            std::vector<uint8_t> batched;
            renderer.syncDraws = false;
            const FrameStats a = render(terrain, camera, true, one, false, lodPixels);
            const int aDraws = expectedDraws(terrain, a, false);
            renderer.syncDraws = true;
            const FrameStats b = render(terrain, camera, true, batched, false, lodPixels);
            ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
            EXPECT_EQ(a.drawCalls, aDraws);
            EXPECT_LE(a.drawCalls, lodPixels > 0.0f ? kProgramKeys : 1);  // one a program
            EXPECT_EQ(b.drawCalls, expectedDraws(terrain, b, true));
            EXPECT_LE(b.drawCalls, kMaxTerrainDraws + (lodPixels > 0.0f ? kProgramKeys - 1 : 0));
            EXPECT_TRUE(one == batched)
                << "camera at (" << camera.position.x << ", " << camera.position.y << ", "
                << camera.position.z << "), lod " << lodPixels << ": " << b.drawCalls
                << " batches differ from one draw";
            mostDraws = std::max(mostDraws, b.drawCalls);
        }
    }
    renderer.syncDraws = automatic;
    // The overview holds every leaf: 65536 leaves of 32 triangles make the full 16 batches.
    EXPECT_EQ(mostDraws, kMaxTerrainDraws);
    terrain.destroy();
}

// One frame with back faces culled where backFacesHidden() allows, or always drawn: its stats,
// pixels, depth (24-bit quanta, top row first) and the samples that passed the depth test.
struct FacesFrame {
    FrameStats stats;
    std::vector<uint8_t> pixels;
    std::vector<uint32_t> depth;
    GLuint samplesPassed = 0;
};

FacesFrame renderFaces(Terrain& terrain, const Camera& camera, bool backFaceCulling,
                       float lodPixels = 0.0f) {
    GlFixture& f = gl();
    FacesFrame frame;
    f.renderer.backFaceCulling = backFaceCulling;
    GLuint query = 0;
    glGenQueries(1, &query);
    glBeginQuery(GL_SAMPLES_PASSED, query);
    frame.stats = render(terrain, camera, true, frame.pixels, false, lodPixels);
    glEndQuery(GL_SAMPLES_PASSED);
    glGetQueryObjectuiv(query, GL_QUERY_RESULT, &frame.samplesPassed);
    glDeleteQueries(1, &query);
    f.renderer.backFaceCulling = true;
    f.target.bind();
    std::vector<uint32_t> rows(size_t(kWidth) * kHeight);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, kWidth, kHeight, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, rows.data());
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    frame.depth.resize(rows.size());
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) {
            frame.depth[size_t(y) * kWidth + x] = rows[size_t(kHeight - 1 - y) * kWidth + x] >> 8;
        }
    }
    return frame;
}

// Culling back faces (where backFacesHidden() allows) changes a pixel only where a back face won
// it by a depth tie with what lies in front: the depth there moves by at most kTieQuanta of the
// 24-bit buffer. A wrong winding would cull the faces in view (sky and far terrain, large depth
// changes); a camera under the terrain, outside the map or with the near plane in the ground
// draws both sides, and the frame must not change at all. The back faces must really go: fewer
// fragments pass the depth test.
TEST(BackFaces, CullingThemChangesOnlyDepthTies) {
    REQUIRE_GL();
    constexpr int64_t kTieQuanta = 4;
    const SyntheticCase maps[] = {{257, 257, 4}, {203, 141, 16}};
    int culledFrames = 0, twoSidedFrames = 0;
    uint64_t changed = 0, samplesCulled = 0, samplesTwoSided = 0;
    int64_t widestGap = 0;
    for (const SyntheticCase& m : maps) {
        Result<Terrain> loaded = makeTerrain(syntheticHeightmap(m.width, m.height, 17u + m.width),
                                             m.leafSize, "back faces");
        ASSERT_TRUE(loaded) << loaded.error();
        Terrain& terrain = loaded.value();
        const std::vector<Camera> cameras = randomCameras(terrain, 40, 5u + m.width);
        for (size_t i = 0; i < cameras.size(); ++i) {
            const Camera& c = cameras[i];
            const FacesFrame automatic = renderFaces(terrain, c, true);
            const FacesFrame twoSided = renderFaces(terrain, c, false);
            ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
            EXPECT_FALSE(twoSided.stats.backFacesCulled);
            const uint32_t drawn = automatic.stats.cull.leavesDrawn;
            ASSERT_EQ(automatic.stats.backFacesCulled,
                      backFacesHidden(terrain.tree, terrain.mapping, c) && drawn > 0);
            EXPECT_EQ(automatic.stats.instancesFrontOnly,
                      automatic.stats.backFacesCulled ? drawn : 0);
            if (!automatic.stats.backFacesCulled) {
                EXPECT_TRUE(automatic.pixels == twoSided.pixels) << "camera " << i;
                ++twoSidedFrames;
                continue;
            }
            ++culledFrames;
            EXPECT_LE(automatic.samplesPassed, twoSided.samplesPassed) << "camera " << i;
            samplesCulled += automatic.samplesPassed;
            samplesTwoSided += twoSided.samplesPassed;
            for (size_t p = 0; p < automatic.depth.size(); ++p) {
                if (std::memcmp(&automatic.pixels[4 * p], &twoSided.pixels[4 * p], 3) == 0) {
                    continue;
                }
                ++changed;
                const int64_t gap = int64_t(automatic.depth[p]) - int64_t(twoSided.depth[p]);
                widestGap = std::max(widestGap, gap);
                EXPECT_TRUE(gap >= 0 && gap <= kTieQuanta)
                    << "camera " << i << " pixel " << p % kWidth << "," << p / kWidth
                    << ": depth moved by " << gap << " quanta";
            }
        }
        terrain.destroy();
    }
    std::printf(
        "back faces: %d frames culled them (%llu pixels changed, depth moved at most %lld "
        "quanta; %llu of %llu samples passed), %d drew both sides\n",
        culledFrames, (unsigned long long)changed, (long long)widestGap,
        (unsigned long long)samplesCulled, (unsigned long long)samplesTwoSided, twoSidedFrames);
    EXPECT_GE(culledFrames, 20);
    EXPECT_GE(twoSidedFrames, 10);
    // Drawn both sides, the same frames pass exactly as many (nothing else differs); back faces
    // pass where they are drawn before what hides them: here about 1% of the samples.
    EXPECT_GT(samplesTwoSided - samplesCulled, samplesTwoSided / 1000);
}

// A hillside rising along z with a window of nodata in it (columns 40..60, rows 50..60) and a
// few specks: a ray that drops through the window meets the slope beyond from below.
Heightmap hillsideWithWindow(int width, int height) {
    std::vector<float> samples(size_t(width) * size_t(height));
    for (int row = 0; row < height; ++row) {
        for (int col = 0; col < width; ++col) {
            samples[size_t(row) * size_t(width) + size_t(col)] =
                0.4f * float(row) + float((col * 5 + row * 3) % 3);
        }
    }
    return test::withNodata(makeHeightmap(width, height, samples).value(), [](int col, int row) {
        const bool window = col >= 40 && col <= 60 && row >= 50 && row <= 60;
        const bool speck = row > 90 && (col * 31 + row * 17) % 97 == 0;
        return window || speck;
    });
}

// On maps with holes the terrain is drawn with one side wherever drawsFrontFacesOnly() holds
// (core/cull/occlusion.h): a hole shows what lies beyond the terrain's underside, never the
// underside itself. Against the same frame with both sides drawn, at full detail and by level of
// detail, from random cameras and from cameras looking down through the window onto the slope's
// underside beyond: a changed pixel only ever shows something farther; where it is farther by more
// than a depth tie, the CPU's pick through the pixel's centre meets the underside first from
// either side and something farther, or nothing, from above alone (at full detail, where the
// pick's triangles are the drawn ones); and a culled frame still equals the unculled one. Not
// vacuous: the window's cameras see beyond the underside, and some cameras draw both sides.
TEST(Holes, WithOneSideDrawnAHoleShowsWhatLiesBeyondTheUnderside) {
    REQUIRE_GL();
    constexpr int64_t kTieQuanta = 4;
    const Heightmap maps[] = {
        test::withNodata(syntheticHeightmap(203, 141, uint32_t(203 * 31 + 141)),
                         [](int col, int row) {
                             return (syntheticHole(col, row, 203, 141) &&
                                     (col * 31 + row * 17) % 97 != 0) ||
                                    (col * 31 + row * 17) % 4099 == 0;
                         }),
        hillsideWithWindow(129, 129)};
    int framesOneSided = 0, framesTwoSided = 0;
    uint64_t changed = 0, beyond = 0, beyondPicked = 0, beyondPickedAlike = 0;
    for (const Heightmap& map : maps) {
        Result<Terrain> loaded = makeTerrain(map, 4, "one side with holes", 8);
        ASSERT_TRUE(loaded) << loaded.error();
        Terrain& terrain = loaded.value();
        ASSERT_TRUE(terrain.tree.hasHoles());
        std::vector<Camera> cameras = randomCameras(terrain, 24, 7u + uint32_t(map.width));
        for (float y : {30.0f, 45.0f, 120.0f}) {
            for (float z : {20.0f, 40.0f}) {
                Camera c;
                c.aspect = float(kWidth) / kHeight;
                c.position = {50.0f, y, z};
                c.yaw = glm::half_pi<float>();  // toward +z
                c.pitch = -std::atan2(y - 22.0f, 55.0f - z);
                fitClipPlanes(c, terrain.map, terrain.mapping);
                cameras.push_back(c);
            }
        }
        expectCulledEqualsUnculled(terrain, cameras);
        expectCulledEqualsUnculled(terrain, cameras, nullptr, 4.0f);
        for (const float pixels : {0.0f, 4.0f}) {
            for (size_t i = 0; i < cameras.size(); ++i) {
                const Camera& c = cameras[i];
                const FacesFrame automatic = renderFaces(terrain, c, true, pixels);
                const FacesFrame twoSided = renderFaces(terrain, c, false, pixels);
                ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
                EXPECT_FALSE(twoSided.stats.backFacesCulled);
                EXPECT_EQ(twoSided.stats.instancesFrontOnly, 0u);
                const uint32_t drawn =
                    automatic.stats.lod
                        ? automatic.stats.lodStats.nodesDrawn - automatic.stats.instancesEmpty
                        : automatic.stats.cull.leavesDrawn - automatic.stats.instancesEmpty;
                const bool oneSided = drawsFrontFacesOnly(terrain.tree, terrain.mapping, c);
                ASSERT_EQ(automatic.stats.backFacesCulled, oneSided && drawn > 0) << "camera " << i;
                if (!automatic.stats.backFacesCulled) {
                    EXPECT_EQ(automatic.stats.instancesFrontOnly, 0u);
                    EXPECT_TRUE(automatic.pixels == twoSided.pixels) << "camera " << i;
                    ++framesTwoSided;
                    continue;
                }
                EXPECT_EQ(automatic.stats.instancesFrontOnly, drawn) << "camera " << i;
                ++framesOneSided;
                for (size_t p = 0; p < automatic.depth.size(); ++p) {
                    if (std::memcmp(&automatic.pixels[4 * p], &twoSided.pixels[4 * p], 3) == 0) {
                        continue;
                    }
                    ++changed;
                    const int64_t gap = int64_t(automatic.depth[p]) - int64_t(twoSided.depth[p]);
                    EXPECT_GE(gap, 0)
                        << "camera " << i << " lod " << pixels << " pixel " << p % kWidth << ","
                        << p / kWidth << ": one side drawn shows something nearer";
                    if (gap <= kTieQuanta) {
                        continue;
                    }
                    ++beyond;
                    if (pixels > 0.0f) {
                        continue;
                    }
                    PickRay ray = pixelRay(c, float(p % kWidth) + 0.5f, float(p / kWidth) + 0.5f,
                                           kWidth, kHeight);
                    const PickHit both =
                        pickTerrain(terrain.map, terrain.tree, terrain.mapping, ray);
                    ray.frontFacesOnly = true;
                    const PickHit front =
                        pickTerrain(terrain.map, terrain.tree, terrain.mapping, ray);
                    ++beyondPicked;
                    beyondPickedAlike += both.hit && (!front.hit || front.t > both.t);
                }
            }
        }
        terrain.destroy();
    }
    std::printf(
        "one side with holes: %d frames drawn with one side, %d with both; %llu pixels changed, "
        "%llu showing something farther than a depth tie (%llu of %llu at full detail where the "
        "pick agrees)\n",
        framesOneSided, framesTwoSided, (unsigned long long)changed, (unsigned long long)beyond,
        (unsigned long long)beyondPickedAlike, (unsigned long long)beyondPicked);
    EXPECT_GE(framesOneSided, 20);
    EXPECT_GE(framesTwoSided, 5);
    EXPECT_GT(beyondPicked, 150u) << "no view past the underside through a hole";
    // Pixel centres on a triangle's edge may round either way in the rasteriser and the pick.
    EXPECT_GE(beyondPickedAlike, beyondPicked - beyondPicked / 50);
}

TEST(SyncedDraws, SoftwareRasterisersAreRecognised) {
    EXPECT_TRUE(isSoftwareRasteriser("llvmpipe (LLVM 15.0.6, 256 bits)"));
    EXPECT_TRUE(isSoftwareRasteriser("softpipe"));
    EXPECT_TRUE(isSoftwareRasteriser("Apple Software Renderer"));
    EXPECT_FALSE(isSoftwareRasteriser("NVIDIA GeForce RTX 4090/PCIe/SSE2"));
    EXPECT_FALSE(isSoftwareRasteriser("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.7)"));
    EXPECT_FALSE(isSoftwareRasteriser("Mesa Intel(R) UHD Graphics 620 (KBL GT2)"));
    EXPECT_FALSE(isSoftwareRasteriser(""));
    // This suite's own context: on llvmpipe the renderer synchronises its draws by itself.
    if (gl().ready) {
        const char* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
        ASSERT_NE(name, nullptr);
        Result<TerrainRenderer> fresh = TerrainRenderer::create(QT_SHADER_DIR);
        ASSERT_TRUE(fresh) << fresh.error();
        EXPECT_EQ(fresh.value().syncDraws, isSoftwareRasteriser(name)) << name;
        fresh.value().destroy();
    }
}

// A frame's GPU time is the sum of its GL sections: a pause of the CPU between two sections, the
// first already submitted, is not in it, though the GPU's clock ran through the pause (the
// timestamps round both sections, which one query round the whole frame would have measured).
TEST(GpuTime, TheCpusWorkBetweenSectionsIsNotCounted) {
    REQUIRE_GL();
    gl().target.bind();
    GpuSections sections;
    sections.create();
    std::array<GLuint, 2> stamps{};
    glGenQueries(2, stamps.data());
    constexpr int kPauseMs = 200;
    glQueryCounter(stamps[0], GL_TIMESTAMP);
    {
        const GpuSection first(&sections);
        TerrainRenderer::clear(kWidth, kHeight);
    }
    glFlush();
    std::this_thread::sleep_for(std::chrono::milliseconds(kPauseMs));
    {
        const GpuSection second(&sections);
        TerrainRenderer::clear(kWidth, kHeight);
    }
    glQueryCounter(stamps[1], GL_TIMESTAMP);
    glFinish();
    GLuint64 from = 0, to = 0;
    glGetQueryObjectui64v(stamps[0], GL_QUERY_RESULT, &from);
    glGetQueryObjectui64v(stamps[1], GL_QUERY_RESULT, &to);
    const double spanMs = double(to - from) * 1e-6;
    EXPECT_EQ(sections.used, 2);
    EXPECT_GE(spanMs, 0.9 * kPauseMs) << "the first section was not submitted before the pause";
    EXPECT_LT(sections.milliseconds(), 0.5 * kPauseMs);
    glDeleteQueries(2, stamps.data());
    sections.destroy();
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// A frame's GPU time splits by whose work a section is: the objects' sections and the rest sum
// to the whole, and a frame without an objects' section gives the objects no time.
TEST(GpuTime, TheSectionsSplitIntoTheObjectsAndTheRest) {
    REQUIRE_GL();
    gl().target.bind();
    GpuSections sections;
    sections.create();
    for (const bool objects : {false, true}) {
        sections.reset();
        {
            const GpuSection terrain(&sections);
            TerrainRenderer::clear(kWidth, kHeight);
        }
        if (objects) {
            const GpuSection drawn(&sections, GpuWork::Objects);
            TerrainRenderer::clear(kWidth, kHeight);
        }
        glFinish();
        EXPECT_EQ(sections.used, objects ? 2 : 1);
        const double terrain = sections.milliseconds(GpuWork::Terrain);
        const double ofObjects = sections.milliseconds(GpuWork::Objects);
        EXPECT_DOUBLE_EQ(sections.milliseconds(), terrain + ofObjects);
        if (!objects) {
            EXPECT_EQ(ofObjects, 0.0);
        }
    }
    sections.destroy();
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// The terrain vertex shader linked to capture gl_Position by transform feedback, its uniforms set
// so that gl_Position is (column, height, row, 1) (the eye at the origin, no rotation); with the
// buffer and query a capture needs.
struct NodeCapture {
    GLuint program = 0;
    GLuint feedback = 0;
    GLuint query = 0;

    // False (and a failure) when the shader does not compile or link. `defines` go after the
    // #version line, as ShaderProgram::loadFrom puts them, with those the terrain's pages ask for.
    bool create(const Terrain& terrain, const std::string& variantDefines = "") {
        const std::string defines = terrainDefines(pagesVariant(terrain.gpu)) + variantDefines;
        Result<std::string> read = shaderSource(QT_SHADER_DIR, "terrain.vert");
        EXPECT_TRUE(read) << read.error();
        std::string source = read ? read.value() : std::string();
        EXPECT_FALSE(source.empty());
        source.insert(source.find('\n', source.find("#version")) + 1, defines);
        const GLuint shader = glCreateShader(GL_VERTEX_SHADER);
        const char* text = source.c_str();
        glShaderSource(shader, 1, &text, nullptr);
        glCompileShader(shader);
        GLint ok = 0;
        glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
        EXPECT_TRUE(ok);
        program = glCreateProgram();
        glAttachShader(program, shader);
        const char* varyings[] = {"gl_Position"};
        glTransformFeedbackVaryings(program, 1, varyings, GL_INTERLEAVED_ATTRIBS);
        glLinkProgram(program);
        glDeleteShader(shader);
        glGetProgramiv(program, GL_LINK_STATUS, &ok);
        EXPECT_TRUE(ok);
        if (!ok) {
            return false;
        }
        const HeightTransform height = heightTransform(terrain.map.coding, terrain.mapping);
        glUseProgram(program);
        terrain.gpu.bindHeights(program);
        glUniform2f(glGetUniformLocation(program, "spacing"), 1.0f, 1.0f);
        glUniform1f(glGetUniformLocation(program, "heightScale"), height.scale);
        // The eye at the origin: positions relative to it are the world's.
        glUniform1f(glGetUniformLocation(program, "heightBiasFromEye"), height.bias);
        const glm::mat4 identity(1.0f);
        glUniformMatrix4fv(glGetUniformLocation(program, "viewProjection"), 1, GL_FALSE,
                           &identity[0][0]);
        glGenBuffers(1, &feedback);
        glGenQueries(1, &query);
        return true;
    }

    // The triangles (three corners each, the strips' joins included) of `nodes` drawn as the
    // renderer draws them, or empty (and a failure) when fewer came back.
    std::vector<glm::vec4> capture(const Terrain& terrain, const std::vector<DrawNode>& nodes) {
        const size_t trianglesPerNode = size_t(terrain.gpu.indexCount - 2);
        glBindBuffer(GL_ARRAY_BUFFER, terrain.gpu.instanceBuffer);
        glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(nodes.size() * sizeof(DrawNode)),
                        nodes.data());
        const size_t capacity = nodes.size() * trianglesPerNode * 3;
        glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, feedback);
        glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, GLsizeiptr(capacity * sizeof(glm::vec4)),
                     nullptr, GL_STREAM_READ);
        glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, feedback);
        // A draw needs a complete framebuffer even with rasterisation off, and a headless
        // context has no default one.
        gl().target.bind();
        glEnable(GL_RASTERIZER_DISCARD);
        glBindVertexArray(terrain.gpu.nodeArray);
        glBeginQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN, query);
        glBeginTransformFeedback(GL_TRIANGLES);
        glDrawElementsInstanced(GL_TRIANGLE_STRIP, terrain.gpu.indexCount, GL_UNSIGNED_SHORT,
                                nullptr, GLsizei(nodes.size()));
        glEndTransformFeedback();
        glEndQuery(GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN);
        glBindVertexArray(0);
        glDisable(GL_RASTERIZER_DISCARD);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        GLuint written = 0;
        glGetQueryObjectuiv(query, GL_QUERY_RESULT, &written);
        EXPECT_EQ(size_t(written), nodes.size() * trianglesPerNode);
        if (size_t(written) != nodes.size() * trianglesPerNode) {
            return {};
        }
        std::vector<glm::vec4> corners(size_t(written) * 3);
        glGetBufferSubData(GL_TRANSFORM_FEEDBACK_BUFFER, 0,
                           GLsizeiptr(corners.size() * sizeof(glm::vec4)), corners.data());
        EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        return corners;
    }

    void destroy() {
        glDeleteQueries(1, &query);
        glDeleteBuffers(1, &feedback);
        glUseProgram(0);
        glDeleteProgram(program);
    }
};

// The vertex shader's own positions for every node level of detail selects, captured by
// transform feedback (nothing rasterised): every edge inside the map is shared by exactly two
// triangles of non-zero area and every edge on its border belongs to one. A crack, a T-junction
// or a fold that misses the coarser neighbour's vertex leaves an inner edge with one triangle;
// so does an edge whose two nodes morph its vertices differently. Captured with MORPHING; the
// shader compiled with HOLES too (the program nodes over a hole are drawn with) and the one
// without MORPHING for the nodes with no morph part way (the program those are drawn with) give
// the same positions bit for bit, so the mesh stays closed where the programs meet.
void expectLodMeshClosed(int pageSize) {
    Result<Terrain> loaded = makeTerrain(syntheticHeightmap(203, 141, 5), 4, "lod mesh", pageSize);
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain& terrain = loaded.value();
    NodeCapture capture;
    ASSERT_TRUE(capture.create(terrain, "#define MORPHING\n"));
    NodeCapture holes;
    ASSERT_TRUE(holes.create(terrain, "#define MORPHING\n#define HOLES\n"));
    NodeCapture settled;
    ASSERT_TRUE(settled.create(terrain));
    int morphing = 0;
    size_t settledNodes = 0;
    int deepest = 0;
    // From a corner, low and high, with coarse and fine steps: many levels meeting. Split by the
    // grid step alone (positive steps) and with each node's coarse error too (negative).
    const glm::vec3 eyes[] = {{-5.0f, 0.0f, -5.0f}, {100.0f, 30.0f, 70.0f}, {250.0f, 200.0f, 0.0f}};
    for (const glm::vec3& eye : eyes) {
        for (const float signedPixels : {1.0f, 6.0f, 30.0f, -1.0f, -6.0f, -30.0f}) {
            const float pixels = std::abs(signedPixels);
            Camera camera;  // 60 degrees, 16:9, looking into the map and down
            camera.position = eye;
            camera.yaw = 0.8f;
            camera.pitch = -0.3f;
            LodParams params = lodParams(terrain.tree, terrain.mapping, camera, 720, pixels,
                                         terrain.mapping.worldHeight(terrain.map.minSample),
                                         terrain.mapping.worldHeight(terrain.map.maxSample));
            updateLodReach(terrain.tree, terrain.mapping, params, terrain.frame.lodReach);
            params.reach = signedPixels < 0.0f ? &terrain.frame.lodReach : nullptr;
            selectLod(terrain.tree, terrain.mapping, params, nullptr, terrain.frame.lod);
            const std::vector<DrawNode>& nodes = terrain.frame.lod.nodes;
            deepest = std::max(deepest, int(terrain.frame.lod.stats.deepestLevel));
            for (const DrawNode& node : nodes) {
                morphing += node.morph > 0 && node.morph < 255 ? 1 : 0;
            }
            glUseProgram(holes.program);
            const std::vector<glm::vec4> holeCorners = holes.capture(terrain, nodes);
            glUseProgram(capture.program);
            const std::vector<glm::vec4> corners = capture.capture(terrain, nodes);
            ASSERT_FALSE(corners.empty());
            ASSERT_EQ(holeCorners.size(), corners.size());
            ASSERT_EQ(
                std::memcmp(holeCorners.data(), corners.data(), corners.size() * sizeof(glm::vec4)),
                0)
                << "the HOLES program's positions differ";
            // The nodes with no morph part way, drawn by the programs without MORPHING: the same
            // positions as MORPHING's, bit for bit.
            std::vector<DrawNode> settledList;
            std::vector<glm::vec4> expected;
            const size_t perNode = corners.size() / std::max<size_t>(nodes.size(), 1);
            for (size_t n = 0; n < nodes.size(); ++n) {
                if (!morphsPartWay(nodes[n])) {
                    settledList.push_back(nodes[n]);
                    expected.insert(expected.end(), corners.begin() + std::ptrdiff_t(n * perNode),
                                    corners.begin() + std::ptrdiff_t((n + 1) * perNode));
                }
            }
            if (!settledList.empty()) {
                glUseProgram(settled.program);
                const std::vector<glm::vec4> got = settled.capture(terrain, settledList);
                ASSERT_EQ(got.size(), expected.size());
                ASSERT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(glm::vec4)),
                          0)
                    << "the settled program's positions differ";
                settledNodes += settledList.size();
            }

            using Point = std::array<float, 3>;
            std::vector<std::pair<Point, Point>> edges;
            for (size_t t = 0; t < corners.size(); t += 3) {
                Point p[3];
                for (int k = 0; k < 3; ++k) {
                    p[k] = {corners[t + k].x, corners[t + k].y, corners[t + k].z};
                }
                if (p[0] == p[1] || p[1] == p[2] || p[0] == p[2]) {
                    continue;  // folded or clamped away: no area
                }
                for (int k = 0; k < 3; ++k) {
                    edges.push_back(std::minmax(p[k], p[(k + 1) % 3]));
                }
            }
            std::sort(edges.begin(), edges.end());
            const float lastCol = float(terrain.map.width - 1);
            const float lastRow = float(terrain.map.height - 1);
            const auto onBorder = [&](const Point& a, const Point& b) {
                return (a[0] == b[0] && (a[0] == 0.0f || a[0] == lastCol)) ||
                       (a[2] == b[2] && (a[2] == 0.0f || a[2] == lastRow));
            };
            for (size_t first = 0, end = 0; first < edges.size(); first = end) {
                while (end < edges.size() && edges[end] == edges[first]) {
                    ++end;
                }
                const Point& a = edges[first].first;
                const Point& b = edges[first].second;
                ASSERT_EQ(end - first, onBorder(a, b) ? 1u : 2u)
                    << "eye " << eye.x << "," << eye.y << "," << eye.z << " pixels " << pixels
                    << ": edge (" << a[0] << "," << a[2] << ")-(" << b[0] << "," << b[2] << ")";
            }
        }
    }
    EXPECT_GE(deepest, 3);     // the cameras really did mix levels
    EXPECT_GT(morphing, 100);  // and nodes part way through their morph
    EXPECT_GT(settledNodes, 100u);
    settled.destroy();
    holes.destroy();
    capture.destroy();
    terrain.destroy();
}

TEST(LodMesh, TheShadersTrianglesCloseUpWithoutCracks) {
    REQUIRE_GL();
    expectLodMeshClosed(kDefaultPageSize);
}

// Pages of one node a side at every level: every node edge is a page border.
TEST(LodMesh, TheShadersTrianglesCloseUpWithoutCracksAcrossPageBorders) {
    REQUIRE_GL();
    expectLodMeshClosed(4);
}

// A sample's world position as the vertex shader computes it, code * heightScale + heightBias,
// with the multiply and the add rounded apart (`fused` false: llvmpipe, and the CPU's
// HeightTransform) or fused into one (`fused` true: GLSL lets a compiler contract them, and
// NVIDIA's does). The two can differ in the last bit; a vertex must be exactly one of them.
glm::vec3 shaderSample(const Heightmap& map, const HeightTransform& height, int col, int row,
                       bool fused) {
    const float code = float(map.codeAt(col, row));
    return glm::vec3(float(col),
                     fused ? std::fma(code, height.scale, height.bias) : height.worldHeight(code),
                     float(row));
}

// One node drawn at morphs 0, 128 and 255 (its edges too): each vertex (i, j) is its own sample
// at 0, at 255 exactly its target (lodVertexMorph: on the boundary the parent's grid vertex (i &
// ~1, j & ~1), inside the parent's surface in the vertex's place), and on the line between them
// in proportion at 128. So at 255 the triangles with area lie in the parent's and cover the
// node's quarter: a node turns into its parent without a jump.
void expectMorphsToTheParentsGrid(int pageSize) {
    Result<Terrain> loaded = makeTerrain(syntheticHeightmap(203, 141, 8), 4, "morph", pageSize);
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain& terrain = loaded.value();
    const Heightmap& map = terrain.map;
    NodeCapture capture;
    ASSERT_TRUE(capture.create(terrain, "#define MORPHING\n"));
    NodeCapture settled;  // the program nodes with no morph part way are drawn with
    ASSERT_TRUE(settled.create(terrain));
    const HeightTransform height = heightTransform(map.coding, terrain.mapping);
    const int leafSize = terrain.tree.leafSize;
    std::vector<uint32_t> strip;
    appendLeafStrip(0, 0, leafSize, leafSize, leafSize + 1, strip);
    const auto at = [&](int col, int row, bool fused = false) {
        return shaderSample(map, height, col, row, fused);
    };
    // The NE child (level 1) of the level-2 node at leaves (8, 4); its parent drawn whole.
    const DrawNode parent{8, 4, 2, 0, 0, 0, {0, 0, 0, 0}};
    std::vector<std::array<glm::vec3, 3>> parentTriangles;
    {
        glUseProgram(capture.program);
        const std::vector<glm::vec4> corners = capture.capture(terrain, {parent});
        ASSERT_FALSE(corners.empty());
        for (size_t t = 0; t < corners.size(); t += 3) {
            std::array<glm::vec3, 3> p = {glm::vec3(corners[t]), glm::vec3(corners[t + 1]),
                                          glm::vec3(corners[t + 2])};
            if (p[0] != p[1] && p[1] != p[2] && p[0] != p[2]) {
                std::sort(p.begin(), p.end(), [](const glm::vec3& a, const glm::vec3& b) {
                    return std::tie(a.x, a.z, a.y) < std::tie(b.x, b.z, b.y);
                });
                parentTriangles.push_back(p);
            }
        }
    }
    for (const int morph : {0, 128, 255}) {
        const uint8_t m = uint8_t(morph);
        const DrawNode node{10, 4, 1, 0, m, 0, {m, m, m, m}};
        glUseProgram(capture.program);
        const std::vector<glm::vec4> corners = capture.capture(terrain, {node});
        ASSERT_FALSE(corners.empty());
        if (morph != 128) {
            // Settled (inside at 0, edges at 0 or 255: morphsPartWay false): the other program
            // gives the same positions, bit for bit.
            const DrawNode edges{10, 4, 1, 0, 0, 0, {m, m, m, m}};
            ASSERT_FALSE(morphsPartWay(edges));
            glUseProgram(capture.program);
            const std::vector<glm::vec4> morphed = capture.capture(terrain, {edges});
            glUseProgram(settled.program);
            const std::vector<glm::vec4> same = settled.capture(terrain, {edges});
            ASSERT_EQ(same.size(), morphed.size());
            ASSERT_EQ(std::memcmp(same.data(), morphed.data(), same.size() * sizeof(glm::vec4)), 0)
                << "morph " << morph;
        }
        // Each captured triangle's corners are the strip's three vertices, in some order.
        for (size_t t = 0; t + 2 < strip.size(); ++t) {
            // The three vertices, as an unfused and as a fused shader computes them.
            std::array<glm::vec3, 6> expected;
            for (int k = 0; k < 3; ++k) {
                const int id = int(strip[t + size_t(k)]);
                const MorphedVertex v =
                    lodVertexMorph(node, id % (leafSize + 1), id / (leafSize + 1), leafSize,
                                   map.width, map.height);
                for (const bool fused : {false, true}) {
                    const glm::vec3 own = at(v.ownCol, v.ownRow, fused);
                    // The shader's sum, in its order: w0 y0 + w1 y1.
                    glm::vec3 target = v.weight[0] * at(v.cornerCol[0], v.cornerRow[0], fused);
                    for (int c = 1; c < 2; ++c) {
                        target += v.weight[c] * at(v.cornerCol[c], v.cornerRow[c], fused);
                    }
                    if (v.vertical) {
                        target.x = own.x, target.z = own.z;  // in place
                    }
                    expected[size_t(k) + (fused ? 3 : 0)] =
                        morph == 255 ? target : own + (target - own) * (morph / 255.0f);
                    if (morph == 0) {
                        ASSERT_EQ(v.morph, 0);
                        ASSERT_EQ(expected[size_t(k) + (fused ? 3 : 0)], own);
                    }
                }
            }
            for (int k = 0; k < 3; ++k) {
                const glm::vec3 got(corners[t * 3 + size_t(k)]);
                const bool found =
                    std::any_of(expected.begin(), expected.end(), [&](const glm::vec3& e) {
                        return morph == 128
                                   ? glm::length(got - e) <= 1e-3f * (1.0f + glm::length(e))
                                   : got == e;
                    });
                ASSERT_TRUE(found) << "morph " << morph << " triangle " << t << " corner " << k
                                   << ": (" << got.x << ", " << got.y << ", " << got.z << ")";
            }
        }
        if (morph != 255) {
            continue;
        }
        // At 255 every triangle with area lies in one of the parent's, in its plane, and
        // together they cover the node's square: the parent's surface over the node's quarter.
        const auto within = [](const std::array<glm::vec3, 3>& parentTriangle, glm::vec3 p) {
            const glm::vec3 a = parentTriangle[0], b = parentTriangle[1] - a,
                            c = parentTriangle[2] - a;
            const float det = b.x * c.z - b.z * c.x;
            const float u = ((p.x - a.x) * c.z - (p.z - a.z) * c.x) / det;
            const float w = (b.x * (p.z - a.z) - b.z * (p.x - a.x)) / det;
            const float y = a.y + u * b.y + w * c.y;
            return u >= -1e-5f && w >= -1e-5f && u + w <= 1.0f + 1e-5f &&
                   std::abs(p.y - y) <= 1e-4f * (1.0f + std::abs(y));
        };
        double covered = 0.0;
        for (size_t t = 0; t < corners.size(); t += 3) {
            const std::array<glm::vec3, 3> p = {glm::vec3(corners[t]), glm::vec3(corners[t + 1]),
                                                glm::vec3(corners[t + 2])};
            const double area = 0.5 * std::abs(double(p[1].x - p[0].x) * (p[2].z - p[0].z) -
                                               double(p[1].z - p[0].z) * (p[2].x - p[0].x));
            if (area == 0.0) {
                continue;
            }
            covered += area;
            const glm::vec3 centre = (p[0] + p[1] + p[2]) / 3.0f;
            EXPECT_TRUE(std::any_of(parentTriangles.begin(), parentTriangles.end(),
                                    [&](const std::array<glm::vec3, 3>& q) {
                                        return within(q, p[0]) && within(q, p[1]) &&
                                               within(q, p[2]) && within(q, centre);
                                    }))
                << "triangle " << t / 3 << " lies in none of the parent's";
        }
        // In samples, as captured: the node's 2 x 2 leaves' squares.
        const double side = double(leafSize) * 2.0;
        EXPECT_NEAR(covered, side * side, 1e-6 * side * side);
    }
    settled.destroy();
    capture.destroy();
    terrain.destroy();
}

TEST(LodMesh, MorphingMovesEachVertexFromItsSampleToTheParentsGrid) {
    REQUIRE_GL();
    expectMorphsToTheParentsGrid(kDefaultPageSize);
}

// The node and its parent each in their own page of their level.
TEST(LodMesh, MorphingMovesEachVertexToTheParentsGridAcrossPages) {
    REQUIRE_GL();
    expectMorphsToTheParentsGrid(4);
}

// Every node of every level, with every combination of coarser edges, captured at morph 0: each
// vertex is exactly the map's sample that qt::lodVertexSample names, at its world position and
// height, whatever page of its level's pyramid it is read from. Small pages put page borders
// between most nodes; the default pages hold a level or most of it.
// With `arrays` above 1 the pages are spread over that many texture arrays.
void expectPagedSurfaceEqualsSamples(const Heightmap& map, int leafSize, int pageSize,
                                     int arrays = 1) {
    Result<Terrain> loaded = makeTerrain(map, leafSize, "pages", pageSize);
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain& terrain = loaded.value();
    if (arrays > 1) {
        const int layers = terrain.gpu.pages.layers;
        terrain.gpu.destroy();
        Result<TerrainGpu> spread =
            TerrainGpu::create(terrain.map, terrain.tree, pageSize, (layers + arrays - 1) / arrays);
        ASSERT_TRUE(spread) << spread.error();
        terrain.gpu = std::move(spread).value();
    }
    ASSERT_EQ(terrain.gpu.heightArrays, arrays);
    EXPECT_GE(terrain.gpu.pages.pageSize, pageSize);
    NodeCapture capture;
    ASSERT_TRUE(capture.create(terrain));
    const HeightTransform height = heightTransform(map.coding, terrain.mapping);
    std::vector<uint32_t> strip;
    appendLeafStrip(0, 0, leafSize, leafSize, leafSize + 1, strip);
    int pagesCrossed = 0;
    for (int level = 0; level <= terrain.tree.depth; ++level) {
        std::vector<DrawNode> nodes;
        for (int row = 0; row < terrain.tree.leavesZ; row += 1 << level) {
            for (int col = 0; col < terrain.tree.leavesX; col += 1 << level) {
                const uint8_t coarser = uint8_t((col * 7 + row * 3 + level) & 15);
                nodes.push_back(DrawNode{
                    uint16_t(col), uint16_t(row), uint8_t(level), coarser, 0, 0, {0, 0, 0, 0}});
            }
        }
        const PageLevel& pages = terrain.gpu.pages.level[size_t(level)];
        pagesCrossed += pages.pagesX * pages.pagesY - 1;
        const std::vector<glm::vec4> corners = capture.capture(terrain, nodes);
        ASSERT_FALSE(corners.empty());
        const size_t trianglesPerNode = strip.size() - 2;
        for (size_t n = 0; n < nodes.size(); ++n) {
            for (size_t t = 0; t < trianglesPerNode; ++t) {
                // Strip triangle t's corners come back as its three vertices, in some order,
                // each as an unfused or a fused shader computes it.
                std::array<glm::vec3, 6> expected;
                for (size_t k = 0; k < 3; ++k) {
                    const int id = int(strip[t + k]);
                    int col = 0;
                    int row = 0;
                    lodVertexSample(nodes[n], id % (leafSize + 1), id / (leafSize + 1), leafSize,
                                    map.width, map.height, col, row);
                    expected[k] = shaderSample(map, height, col, row, false);
                    expected[k + 3] = shaderSample(map, height, col, row, true);
                }
                for (size_t k = 0; k < 3; ++k) {
                    const glm::vec3 got(corners[(n * trianglesPerNode + t) * 3 + k]);
                    ASSERT_NE(std::find(expected.begin(), expected.end(), got), expected.end())
                        << "level " << level << " node (" << nodes[n].col << ", " << nodes[n].row
                        << ") triangle " << t << ": (" << got.x << ", " << got.y << ", " << got.z
                        << ")";
                }
            }
        }
    }
    if (terrain.gpu.pages.level[0].pagesX > 2) {
        EXPECT_GT(pagesCrossed, 10);  // the small pages really did split the levels
    }
    capture.destroy();
    terrain.destroy();
}

TEST(HeightPages, TheSurfaceEqualsTheMapsSamplesAtEveryLevel) {
    REQUIRE_GL();
    for (const int pageSize : {4, 8, kDefaultPageSize}) {
        SCOPED_TRACE("pages of " + std::to_string(pageSize));
        expectPagedSurfaceEqualsSamples(syntheticHeightmap(203, 141, 9), 4, pageSize);
        expectPagedSurfaceEqualsSamples(syntheticHeightmap(130, 67, 10), 16, pageSize);
        expectPagedSurfaceEqualsSamples(syntheticHeightmap(5, 3, 11), 2, pageSize);
    }
}

// A driver that caps one texture's bytes gets the pages in several arrays; every level reads the
// same samples whichever array its pages are in.
TEST(HeightPages, PagesSpreadOverSeveralArraysReadTheSameSamples) {
    REQUIRE_GL();
    for (const int arrays : {2, kMaxHeightArrays}) {
        SCOPED_TRACE(std::to_string(arrays) + " arrays");
        expectPagedSurfaceEqualsSamples(syntheticHeightmap(203, 141, 9), 4, 4, arrays);
    }
}

// Per column of a frame, the row of its topmost terrain pixel (kNoTerrain: sky all the way down).
constexpr int kNoTerrain = -1;

std::vector<int> skyline(const std::vector<uint8_t>& pixels, int width, int height) {
    std::vector<int> top(size_t(width), kNoTerrain);
    for (int x = 0; x < width; ++x) {
        for (int y = 0; y < height; ++y) {
            const uint8_t* p = &pixels[(size_t(y) * size_t(width) + size_t(x)) * 4];
            if (p[0] != kSky[0] || p[1] != kSky[1] || p[2] != kSky[2]) {
                top[size_t(x)] = y;
                break;
            }
        }
    }
    return top;
}

// Level cameras low over a real map at 1280x720: with level of detail at PIXELS, the skyline of
// every column stays within PIXELS + 1 rows (the rasteriser's rounding) of the full-detail
// frame's. A level camera sees the drawn surface's vertical offsets as vertical moves on screen,
// so the column's highest point moves by at most what LodReach bounds.
class Skyline : public ::testing::TestWithParam<RealCase> {};

TEST_P(Skyline, StaysWithinPixelsOfFullDetail) {
    REQUIRE_GL();
    constexpr int kShotWidth = 1280;
    constexpr int kShotHeight = 720;
    constexpr int kCameras = 3;
    const RealCase& param = GetParam();
    const std::string path = sharedMap(param.file);
    SKIP_WITHOUT_SHARED_MAP(path);
    Result<Terrain> loaded = loadTerrain(path, {}, param.leafSize);
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain& terrain = loaded.value();
    terrain.finishErrors();
    const Heightmap& m = terrain.map;
    Result<Framebuffer> target = Framebuffer::create(kShotWidth, kShotHeight);
    ASSERT_TRUE(target) << target.error();
    const WorldMapping& mapping = terrain.mapping;
    const float relief =
        std::fabs(mapping.worldHeight(m.maxSample) - mapping.worldHeight(m.minSample));
    Random random(seedOf(param.file) + 7);
    std::vector<uint8_t> pixels;
    const auto frame = [&](const Camera& c, float lodPixels, FrameStats& stats) {
        target.value().bind();
        TerrainRenderer::clear(kShotWidth, kShotHeight);
        stats = renderTerrain(gl().renderer, terrain, c,
                              CullView{c, kShotHeight, true, true, lodPixels}, false);
        readPixels(kShotWidth, kShotHeight, pixels);
        return skyline(pixels, kShotWidth, kShotHeight);
    };
    int columns = 0;
    for (int i = 0; i < kCameras; ++i) {
        const int col = int(random.range(0.1f, 0.9f) * float(m.width - 1));
        const int row = int(random.range(0.1f, 0.9f) * float(m.height - 1));
        Camera c;
        c.aspect = float(kShotWidth) / kShotHeight;
        c.position = {float(col) * mapping.spacingX,
                      groundAround(m, mapping, col, row, 8) + random.range(0.02f, 0.1f) * relief,
                      float(row) * mapping.spacingZ};
        c.yaw = random.range(-glm::pi<float>(), glm::pi<float>());
        c.pitch = 0.0f;
        fitClipPlanes(c, terrain.map, mapping);
        FrameStats full;
        const std::vector<int> reference = frame(c, 0.0f, full);
        for (const float lodPixels : {1.0f, 2.0f, 4.0f}) {
            FrameStats lod;
            const std::vector<int> drawn = frame(c, lodPixels, lod);
            int worst = 0;
            for (int x = 0; x < kShotWidth; ++x) {
                const int a = reference[size_t(x)], b = drawn[size_t(x)];
                if (a == kNoTerrain && b == kNoTerrain) {
                    continue;
                }
                const int moved =
                    (a == kNoTerrain || b == kNoTerrain) ? kShotHeight : std::abs(a - b);
                worst = std::max(worst, moved);
                columns += a > 0 ? 1 : 0;
            }
            std::printf(
                "%s camera %d, lod %.0f: skyline moved %d px at most; %llu of %llu triangles\n",
                param.file, i, double(lodPixels), worst, (unsigned long long)lod.cull.triangles,
                (unsigned long long)full.cull.triangles);
            EXPECT_LE(worst, int(lodPixels) + 1)
                << path << ": camera " << i << " at (" << c.position.x << ", " << c.position.y
                << ", " << c.position.z << ") yaw " << c.yaw << ", lod " << lodPixels;
        }
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    target.value().destroy();
    terrain.destroy();
    // The views have a skyline below the frame's top edge to compare.
    EXPECT_GT(columns, kShotWidth) << path;
}

INSTANTIATE_TEST_SUITE_P(Shared, Skyline,
                         ::testing::Values(RealCase{"N47E009.hgt", 4},
                                           RealCase{"puget_sound_1025x1025.png", 4},
                                           RealCase{"etopo5_world_4320x2161.png", 4}),
                         realCaseName);

// A slope with fine ripples (0.4 units high, 16 samples apart) seen from afar: their height
// error is below a pixel, so level of detail draws them with nodes whose grid steps look several
// pixels long, and their relief shows only in the light. The fragments of such nodes take their
// normals from the finest level a pixel resolves (terrain.frag, fineNormal), so the picture's
// light stays close to the full-detail picture's; the vertices' normals alone, interpolated over
// those long steps, lose much of it (twice the difference).
TEST(LodShading, CoarseNodesKeepTheLightOfFullDetail) {
    REQUIRE_GL();
    constexpr int kSide = 513;
    std::vector<float> samples(size_t(kSide) * kSide);
    for (int row = 0; row < kSide; ++row) {
        for (int col = 0; col < kSide; ++col) {
            const float a = glm::two_pi<float>() / 16.0f;
            samples[size_t(row) * kSide + size_t(col)] =
                100.0f + 0.25f * float(row) +
                0.4f * std::sin(a * float(col)) * std::sin(a * float(row));
        }
    }
    Result<Heightmap> map = makeHeightmap(kSide, kSide, samples);
    ASSERT_TRUE(map) << map.error();
    Result<Terrain> terrain = makeTerrain(map.value(), 4, "ripples");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    t.mapping = WorldMapping(1.0f, 1.0f, 0.0f);  // heights in the samples' units
    Camera camera;
    camera.aspect = float(kWidth) / kHeight;
    camera.fovY = glm::radians(60.0f);
    camera.lookAt({256.0f, 500.0f, -250.0f}, {256.0f, 150.0f, 300.0f});
    fitClipPlanes(camera, t.map, t.mapping);
    std::vector<uint8_t> full, coarse;
    const FrameStats exact = render(t, camera, true, full, false, 0.0f);
    const FrameStats lod = render(t, camera, true, coarse, false, 1.0f);
    ASSERT_TRUE(lod.lod);
    // Long steps: the coarsest nodes are several levels up, for a small share of the triangles.
    EXPECT_GE(lod.lodStats.deepestLevel, 4);
    EXPECT_LT(lod.lodStats.triangles * 4, exact.cull.triangles);
    double difference = 0.0;
    int terrainPixels = 0;
    for (size_t p = 0; p < full.size(); p += 4) {
        if (isSky(full, int(p / 4) % kWidth, int(p / 4) / kWidth)) {
            continue;
        }
        ++terrainPixels;
        for (size_t k = 0; k < 3; ++k) {
            difference += std::abs(int(full[p + k]) - int(coarse[p + k]));
        }
    }
    ASSERT_GT(terrainPixels, kWidth * kHeight / 4);
    difference /= 3.0 * terrainPixels;
    // 0.92 here; 2.31 with the vertices' normals alone.
    EXPECT_LT(difference, 1.6) << "mean difference per channel";
    t.destroy();
}

TEST_F(Picture, DebugLinesDrawInOneCall) {
    Result<DebugLines> lines = DebugLines::create(QT_SHADER_DIR);
    ASSERT_TRUE(lines) << lines.error();
    const Camera c = above(0.5f * sizeZ, -1.0f);
    render(terrain, c, true, pixels);
    gl().target.bind();
    lines.value().addFrustum(Frustum::corners(c.viewProjection()), 0xFF00FFFFu);
    for (const LeafCoord& leaf : terrain.frame.drawList) {
        const uint32_t node = terrain.tree.leafNodes[terrain.tree.leafIndexAt(leaf.col, leaf.row)];
        lines.value().addBox(nodeBox(terrain.tree, terrain.tree.nodes[node], terrain.mapping),
                             0xFFFF0000u);
    }
    lines.value().draw(c.viewProjection());
    std::vector<uint8_t> withLines;
    readPixels(kWidth, kHeight, withLines);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    EXPECT_NE(withLines, pixels);
    lines.value().destroy();
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

TEST_F(Picture, AFailedLoadKeepsTheCurrentTerrain) {
    const Camera c =
        overviewCamera(terrain.map, terrain.mapping, float(kWidth) / kHeight, glm::radians(60.0f));
    render(terrain, c, true, pixels);
    const std::string pathBefore = terrain.path;
    const NodeArray nodesBefore = terrain.tree.nodes;  // exact height ranges
    char dir[] = "/tmp/qt_reload_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string corrupt = std::string(dir) + "/corrupt.png";
    std::FILE* file = std::fopen(corrupt.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    std::fputs("\x89PNG\r\n\x1a\nnot really", file);
    std::fclose(file);
    for (const std::string& bad : {std::string(dir) + "/missing.png", corrupt, std::string(dir)}) {
        const std::string error = replaceTerrain(terrain, bad, {}, 4).error();
        EXPECT_EQ(error.rfind(bad + ": ", 0), 0u) << error;
        EXPECT_EQ(terrain.path, pathBefore);
        ASSERT_EQ(terrain.tree.nodes.size(), nodesBefore.size());
        EXPECT_EQ(std::memcmp(terrain.tree.nodes.data(), nodesBefore.data(),
                              nodesBefore.size() * sizeof(QuadtreeNode)),
                  0);
        std::vector<uint8_t> after;
        render(terrain, c, true, after);
        EXPECT_EQ(after, pixels) << "the kept terrain must draw exactly as before";
    }
    // A good map over the memory budget: refused from its header, the current terrain kept.
    LoadOptions tight;
    tight.memory.limitBytes = uint64_t(1) << 20;
    const std::string big = std::string(QT_SOURCE_DIR) + "/data/default_1025.png";
    const std::string overBudget = replaceTerrain(terrain, big, tight, 4).error();
    EXPECT_NE(overBudget.find("over the memory budget of 1 MiB"), std::string::npos) << overBudget;
    EXPECT_EQ(terrain.path, pathBefore);
    std::vector<uint8_t> kept;
    render(terrain, c, true, kept);
    EXPECT_EQ(kept, pixels);
    std::remove(corrupt.c_str());
    rmdir(dir);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

TEST_F(Picture, ALoadReportsEachStepInOrderAndTimesIt) {
    std::vector<LoadStep> steps;
    const LoadProgress record = [&](LoadStep step) { steps.push_back(step); };
    const std::string missing = "/nonexistent/quadterrain/map.png";
    EXPECT_FALSE(replaceTerrain(terrain, missing, {}, 4, record));
    EXPECT_EQ(steps, std::vector<LoadStep>{LoadStep::Decode}) << "a failed read stops at decode";
    steps.clear();
    const std::string map = std::string(QT_SOURCE_DIR) + "/data/default_1025.png";
    const Status loaded = replaceTerrain(terrain, map, {}, 4, record);
    ASSERT_TRUE(loaded) << loaded.error();
    EXPECT_EQ(steps,
              (std::vector<LoadStep>{LoadStep::Decode, LoadStep::BuildTree, LoadStep::Upload}));
    EXPECT_EQ(terrain.path, map);
    EXPECT_GT(terrain.times.decodeMs, 0.0);
    EXPECT_GT(terrain.times.treeMs, 0.0);
    EXPECT_GT(terrain.times.uploadMs, 0.0);
    // The exact errors follow the load in the background; their time is known once taken.
    EXPECT_EQ(terrain.tree.lodErrors, LodErrors::Range);
    EXPECT_EQ(terrain.times.errorsMs, 0.0);
    terrain.finishErrors();
    EXPECT_EQ(terrain.tree.lodErrors, LodErrors::Exact);
    EXPECT_GT(terrain.times.errorsMs, 0.0);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// A map in metres from 200 m below sea level in the west to 200 m above in the east, seen from
// high above its middle: with the water plane the west is flat water and the east terrain, and
// culled and unculled frames still agree (the plane is not culled).
TEST(WaterPlane, CoversWhatLiesBelowSeaLevelAndCullingKeepsItsPixels) {
    REQUIRE_GL();
    const int side = 65;
    std::vector<float> metres(size_t(side) * side);
    for (int row = 0; row < side; ++row) {
        for (int col = 0; col < side; ++col) {
            metres[size_t(row) * side + size_t(col)] = float(col) * 400.0f / (side - 1) - 200.0f;
        }
    }
    Heightmap map = makeHeightmap(side, side, metres).value();
    map.metres = true;
    Result<Terrain> made = Terrain::create(map, 4, "sea and land");
    ASSERT_TRUE(made) << made.error();
    Terrain& terrain = made.value();
    terrain.finishErrors();
    terrain.mapping = {10.0f, 10.0f, 1.0f, 0.0f};
    Camera c;
    c.aspect = float(kWidth) / kHeight;
    c.lookAt({320.0f, 900.0f, 321.0f}, {320.0f, 0.0f, 320.0f});
    fitClipPlanes(c, terrain.map, terrain.mapping);
    TerrainRenderer& renderer = gl().renderer;
    renderer.water = true;
    std::vector<uint8_t> culled, unculled, dry;
    const FrameStats stats = render(terrain, c, true, culled);
    EXPECT_EQ(stats.drawCalls, expectedDraws(terrain, stats, renderer.syncDraws) + 1);
    render(terrain, c, false, unculled);
    renderer.water = false;
    render(terrain, c, true, dry);
    EXPECT_TRUE(culled == unculled);
    auto blueness = [&](int x, int y) {
        const uint8_t* p = &culled[(size_t(y) * kWidth + size_t(x)) * 4];
        return int(p[2]) - int(p[0]);
    };
    // Screen x grows west to east here (looking down, north at the top).
    const int west = kWidth / 2 - kWidth / 8;  // -100 m
    const int east = kWidth / 2 + kWidth / 8;  // +100 m
    EXPECT_GT(blueness(west, kHeight / 2), 40);
    EXPECT_LT(blueness(east, kHeight / 2), 40);
    // The plane changed the sea floor's pixels (tinted by depth) and left the land's.
    auto pixel = [&](const std::vector<uint8_t>& image, int x) {
        const uint8_t* p = &image[(size_t(kHeight / 2) * kWidth + size_t(x)) * 4];
        return std::vector<uint8_t>(p, p + 3);
    };
    EXPECT_NE(pixel(culled, west), pixel(dry, west));
    EXPECT_EQ(pixel(culled, east), pixel(dry, east));
    terrain.destroy();
}

// Every file the terrain's and the objects' renderers read from their shader folder.
const char* const kRendererShaders[] = {
    "terrain.vert", "terrain.frag",  "water.vert",      "water.frag",        "sky.vert",
    "sky.frag",     "sky.glsl",      "light.glsl",      "height_pages.glsl", "objects.vert",
    "objects.frag", "quotient.glsl", "object_runs.comp"};

class ShaderErrors : public ::testing::Test {
protected:
    void SetUp() override {
        REQUIRE_GL();
        char pattern[] = "/tmp/qt_shaders_XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        dir = pattern;
    }
    void TearDown() override {
        for (const char* name : kRendererShaders) {
            std::remove((dir + "/" + name).c_str());
        }
        if (!dir.empty()) {
            rmdir(dir.c_str());
        }
    }
    void write(const std::string& name, const std::string& text) {
        std::ofstream(dir + "/" + name) << text;
    }
    void copy(const std::string& name) {
        std::ifstream in(std::string(QT_SHADER_DIR) + "/" + name);
        std::ofstream(dir + "/" + name) << in.rdbuf();
    }
    // Every shader the renderers read but `left` (none: all of them).
    void copyAll(const std::string& left = "") {
        for (const char* name : kRendererShaders) {
            if (name != left) {
                copy(name);
            }
        }
    }
    // Shader `name` as installed with `lines` after its #version line.
    void writeWithLines(const std::string& name, const std::string& lines) {
        std::ifstream in(std::string(QT_SHADER_DIR) + "/" + name);
        std::stringstream text;
        text << in.rdbuf();
        std::string source = text.str();
        const size_t eol = source.find('\n', source.find("#version"));
        ASSERT_NE(eol, std::string::npos) << name;
        write(name, source.insert(eol + 1, lines));
    }
    std::string dir;
};

TEST_F(ShaderErrors, MissingFileIsNamed) {
    Result<TerrainRenderer> renderer = TerrainRenderer::create(dir);
    ASSERT_FALSE(renderer);
    EXPECT_NE(renderer.error().find(dir + "/terrain.vert"), std::string::npos) << renderer.error();
}

// A shader's `#include` of a file the folder lacks: the line names the including shader, its line
// and the missing file.
TEST_F(ShaderErrors, AMissingIncludeIsNamedWithTheLineThatIncludesIt) {
    copyAll("light.glsl");
    Result<TerrainRenderer> renderer = TerrainRenderer::create(dir);
    ASSERT_FALSE(renderer);
    EXPECT_NE(renderer.error().find(dir + "/terrain.vert line "), std::string::npos)
        << renderer.error();
    EXPECT_NE(renderer.error().find(dir + "/light.glsl: cannot open the file"), std::string::npos)
        << renderer.error();
}

// An include inside an included file is expanded too; one missing is named with the included
// file's line that includes it.
TEST_F(ShaderErrors, AMissingNestedIncludeIsNamedWithTheIncludedFilesLine) {
    copyAll("quotient.glsl");
    Result<TerrainRenderer> renderer = TerrainRenderer::create(dir);
    ASSERT_FALSE(renderer);
    EXPECT_NE(renderer.error().find(dir + "/height_pages.glsl line "), std::string::npos)
        << renderer.error();
    EXPECT_NE(renderer.error().find(dir + "/quotient.glsl: cannot open the file"),
              std::string::npos)
        << renderer.error();
}

// Includes that lead back to themselves are refused after a few levels, not followed forever.
TEST_F(ShaderErrors, AnIncludeCycleIsRefused) {
    copyAll();
    write("quotient.glsl", "#include \"light.glsl\"\n");
    Result<TerrainRenderer> renderer = TerrainRenderer::create(dir);
    ASSERT_FALSE(renderer);
    EXPECT_NE(renderer.error().find("includes nest deeper than"), std::string::npos)
        << renderer.error();
}

TEST_F(ShaderErrors, CompileFailureCarriesTheLogAndReloadKeepsTheOldProgram) {
    copyAll();
    Result<TerrainRenderer> renderer = TerrainRenderer::create(dir);
    ASSERT_TRUE(renderer) << renderer.error();
    const GLuint before = renderer.value().programs.program(kPlainVariant).id;
    write("terrain.frag", "#version 330 core\nvoid main() { this is not glsl; }\n");
    const std::string error = renderer.value().reloadShaders().error();
    EXPECT_NE(error.find("terrain.frag: compile failed"), std::string::npos) << error;
    EXPECT_GT(error.size(), std::string("terrain.frag: compile failed").size() + dir.size());
    EXPECT_EQ(renderer.value().programs.program(kPlainVariant).id, before);
    copy("terrain.frag");
    const Status reloaded = renderer.value().reloadShaders();
    EXPECT_TRUE(reloaded) << reloaded.error();
    EXPECT_NE(renderer.value().programs.program(kPlainVariant).id, 0u);
    renderer.value().destroy();
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// An error inside an arm that only programs made when first drawn compile (COARSE_NODES here)
// fails the reload, which keeps every program as it was, those already made later included.
TEST_F(ShaderErrors, AnErrorOnlyInAProgramMadeWhenFirstDrawnFailsTheReload) {
    copyAll();
    Result<TerrainRenderer> renderer = TerrainRenderer::create(dir);
    ASSERT_TRUE(renderer) << renderer.error();
    ProgramFamily& programs = renderer.value().programs;
    const GLuint plain = programs.program(kPlainVariant).id;
    const GLuint coarse = programs.program(kCoarseNodesVariant).id;
    ASSERT_NE(coarse, 0u);
    writeWithLines("terrain.frag", "#ifdef COARSE_NODES\nthis is not glsl;\n#endif\n");
    const Status reloaded = renderer.value().reloadShaders();
    EXPECT_NE(reloaded.error().find("terrain.frag: compile failed"), std::string::npos)
        << reloaded.error();
    EXPECT_EQ(programs.program(kPlainVariant).id, plain);
    EXPECT_EQ(programs.program(kCoarseNodesVariant).id, coarse);
    EXPECT_EQ(programs.lateFailure(), "");
    renderer.value().destroy();
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// A program made when first drawn compiles from the sources the last reload read and checked,
// not from the files as edited since.
TEST_F(ShaderErrors, ProgramsMadeLaterCompileFromTheSourcesTheReloadRead) {
    copyAll();
    Result<TerrainRenderer> renderer = TerrainRenderer::create(dir);
    ASSERT_TRUE(renderer) << renderer.error();
    write("terrain.frag", "#version 330 core\nvoid main() { this is not glsl; }\n");
    const ProgramFamily& programs = renderer.value().programs;
    EXPECT_NE(programs.program(kCoarseNodesVariant | kManyArraysVariant | kSunVariant).id, 0u);
    EXPECT_EQ(programs.lateFailure(), "");
    renderer.value().destroy();
}

// An error that only one combination of defines compiles passes the reload's check (every arm
// on); the program made for it is left out (id 0: its nodes are not drawn), the failure kept for
// the viewer to show, and it is not compiled again frame after frame; the next reload clears it.
TEST_F(ShaderErrors, AFailureOfAProgramMadeLaterIsKeptAndNotRetried) {
    copyAll();
    writeWithLines("terrain.frag",
                   "#if defined(COARSE_NODES) && !defined(HOLES)\nthis is not glsl;\n#endif\n");
    Result<TerrainRenderer> renderer = TerrainRenderer::create(dir);
    ASSERT_TRUE(renderer) << renderer.error();
    const ProgramFamily& programs = renderer.value().programs;
    EXPECT_EQ(programs.lateFailure(), "");
    EXPECT_NE(programs.program(kCoarseNodesVariant | kHolesVariant).id, 0u);
    EXPECT_EQ(programs.program(kCoarseNodesVariant).id, 0u);
    const std::string failure = programs.lateFailure();
    EXPECT_NE(failure.find(dir + "/terrain.frag: compile failed"), std::string::npos) << failure;
    EXPECT_EQ(programs.program(kCoarseNodesVariant).id, 0u);
    EXPECT_EQ(programs.program(kCoarseNodesVariant | kSunVariant).id, 0u);
    EXPECT_EQ(programs.lateFailure(), failure);  // the first failure, kept
    copy("terrain.frag");
    const Status reloaded = renderer.value().reloadShaders();
    ASSERT_TRUE(reloaded) << reloaded.error();
    EXPECT_EQ(programs.lateFailure(), "");
    EXPECT_NE(programs.program(kCoarseNodesVariant).id, 0u);
    renderer.value().destroy();
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// The objects' renderer likewise: its programs under a Sun are made when first drawn, and an
// error only they compile fails its creation.
TEST_F(ShaderErrors, AnErrorOnlyInTheObjectsPagedLightProgramFailsTheirRenderer) {
    copyAll();
    writeWithLines("objects.vert", "#ifdef MANY_HEIGHT_ARRAYS\nthis is not glsl;\n#endif\n");
    Result<ObjectRenderer> objects = ObjectRenderer::create(dir);
    ASSERT_FALSE(objects);
    EXPECT_NE(objects.error().find(dir + "/objects.vert: compile failed"), std::string::npos)
        << objects.error();
    copy("objects.vert");
    objects = ObjectRenderer::create(dir);
    ASSERT_TRUE(objects) << objects.error();
    EXPECT_NE(objects.value().programs.program(kObjectsPagedLightManyArrays).id, 0u);
    objects.value().destroy();
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// Streamed terrains. These fail, not skip, without an OpenGL context: streaming is only
// meaningful with one.
#define REQUIRE_GL_STRICT()                  \
    do {                                     \
        if (!gl().ready) {                   \
            GTEST_FAIL() << gl().skipReason; \
        }                                    \
    } while (false)

// A 257 x 257 synthetic map in leaves of 4 and pages of 8: 32 x 32 level-0 pages.
// Streamed, with `pool` layers (0: sized from the view); with `heldLevelsBytes` 0 every level but
// the top is pooled (StreamSettings::heldLevelsBytes).
Result<Terrain> streamedTerrain(const Heightmap& map, int pool = 0,
                                uint64_t heldLevelsBytes = kHeldLevelsBytes) {
    StreamSettings stream;
    stream.on = true;
    stream.pool = pool;
    stream.heldLevelsBytes = heldLevelsBytes;
    Result<Terrain> terrain = Terrain::create(map, 4, "streamed", {}, {}, 8, {}, stream);
    if (terrain) {
        terrain.value().finishErrors();
    }
    return terrain;
}

// The nodes `framed`'s last frame (`stats`) drew, drawn from `from`'s pages: the picture that
// frame must be when every page it read holds the samples `from` holds.
void drawNodesFrom(const Terrain& from, const Terrain& framed, const Camera& camera,
                   const FrameStats& stats, std::vector<uint8_t>& pixels) {
    GlFixture& g = gl();
    g.target.bind();
    TerrainRenderer::clear(kWidth, kHeight);
    DrawStyle style;
    style.cullBackFaces = stats.backFacesCulled;
    g.renderer.draw(from.gpu, from.mapping, camera, framed.frame.lod.nodes, framed.frame.holesFrom,
                    style);
    readPixels(kWidth, kHeight, pixels);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

// For each camera: settles `streamed` (every page the unculled view asks for in first, a superset
// of the culled view's), then holds its culled and unculled frames to `full`'s culled frame, pixel
// for pixel, at 1 px (even cameras) and 4 px (odd); `each(i, full's stats, culled's, unculled's)`
// adds what a test checks besides.
template <class Each>
void expectSettledFramesEqualTheFullyLoadedOnes(Terrain& full, Terrain& streamed,
                                                const std::vector<Camera>& cameras, Each each) {
    std::vector<uint8_t> expected, culled, unculled;
    for (size_t i = 0; i < cameras.size(); ++i) {
        const float pixels = i % 2 == 0 ? 1.0f : 4.0f;
        const Camera& camera = cameras[i];
        streamed.settleStreaming(CullView{camera, kHeight, false, false, pixels});
        const FrameStats f = render(full, camera, true, expected, false, pixels);
        const FrameStats a = render(streamed, camera, true, culled, false, pixels);
        const FrameStats b = render(streamed, camera, false, unculled, false, pixels);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        EXPECT_EQ(differingPixels(expected, culled), 0u) << "camera " << i;
        EXPECT_EQ(differingPixels(culled, unculled), 0u) << "camera " << i;
        each(i, f, a, b);
    }
}

// After settling, a streamed terrain draws what the fully loaded one draws, pixel for pixel, and
// culled frames still equal unculled ones: with levels 0 and 1 pooled, and with every level but
// the top (the finer normals of the pooled levels' pages too, LodOutput::shadingPages).
TEST(StreamedTerrain, SettledFramesEqualTheFullyLoadedOnes) {
    REQUIRE_GL_STRICT();
    const Heightmap map = syntheticHeightmap(257, 257, 257 * 31 + 257);
    Result<Terrain> full = makeTerrain(map, 4, "full", 8);
    ASSERT_TRUE(full) << full.error();
    for (const bool deep : {false, true}) {
        SCOPED_TRACE(deep ? "every level but the top pooled" : "levels 0 and 1 pooled");
        Result<Terrain> streamed = deep ? streamedTerrain(map, 1 << 20, 0) : streamedTerrain(map);
        ASSERT_TRUE(streamed) << streamed.error();
        ASSERT_TRUE(streamed.value().streamed());
        const HeightPages& pages = streamed.value().gpu.pages;
        if (deep) {
            ASSERT_EQ(pages.pooledLevels, int(pages.level.size()) - 1);
            ASSERT_GE(pages.pooledLevels, 5);
        } else {
            EXPECT_EQ(pages.pooledLevels, 2);
            EXPECT_EQ(pages.poolLayers, 32 * 32 + 16 * 16);  // levels 0 and 1
        }
        int fullDetailFrames = 0;
        const std::vector<Camera> cameras = randomCameras(full.value(), 12, 23u);
        expectSettledFramesEqualTheFullyLoadedOnes(
            full.value(), streamed.value(), cameras,
            [&](size_t i, const FrameStats& f, const FrameStats& a, const FrameStats& b) {
                EXPECT_EQ(f.lodStats.nodesDrawn, a.lodStats.nodesDrawn) << "camera " << i;
                EXPECT_EQ(b.lodStats.leavesCovered, b.leavesTotal);
                fullDetailFrames +=
                    f.lodStats.deepestLevel > 0 && f.lodStats.nodesDrawn > 0 ? 1 : 0;
                EXPECT_EQ(streamed.value().streamStats().requested, 0);
            });
        EXPECT_GT(fullDetailFrames, 0);
        EXPECT_GT(streamed.value().streamStats().resident, 0);
        streamed.value().destroy();
    }
    full.value().destroy();
}

// A layout streamed by tiles, as the viewer streams one from object storage: nothing of level 0
// read at open (its tree from tree.qtree), its levels 1 and up from its heights-K files, level 0's
// pages from its tiles as the frames ask for them. Settled, it draws the map held whole (the same
// layout read at once, with the same tree), pixel for pixel, culled = unculled.
TEST(StreamedTerrain, ALayoutStreamedByTilesSettlesToItsMapHeldWhole) {
    REQUIRE_GL_STRICT();
    test::TempDir dir;
    const std::string folder = dir.path("layout");
    ASSERT_TRUE(bakeLayout(test::writeInput(dir, false), folder, test::bakeOptions(dir)));
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    Result<OpenedMap> whole = openMap(folder, load, {}, 4, false);
    ASSERT_TRUE(whole) << whole.error();
    load.layoutByTiles = true;
    Result<OpenedMap> opened = openMap(folder, load, {}, 4, true);
    ASSERT_TRUE(opened) << opened.error();
    const std::shared_ptr<LayoutStream> tiles = opened.value().tiles;
    ASSERT_NE(tiles, nullptr);
    const Result<LayoutManifest> manifest = readLayoutManifest(folder);
    ASSERT_TRUE(manifest) << manifest.error();
    const auto levels = std::make_shared<LayoutLevelPages>(manifest.value());

    StreamSettings stream;
    stream.on = true;
    stream.samples = [tiles](int x0, int y0, int x1, int y1) {
        return tiles->tiles().ensure(x0, y0, x1, y1);
    };
    stream.coarse = [levels](const HeightPages& pages, int level, int px, int py, uint16_t* out) {
        return levels->fill(pages, level, px, py, out);
    };
    Result<Terrain> streamed = Terrain::create(std::move(opened.value().map), 4, "by tiles", {}, {},
                                               16, std::move(opened.value().tree), stream);
    ASSERT_TRUE(streamed) << streamed.error();
    ASSERT_TRUE(streamed.value().streamed());
    EXPECT_EQ(tiles->tiles().counts().read, 0u);
    EXPECT_GT(levels->tilesRead(), 0u);
    Result<Terrain> full =
        Terrain::create(whole.value().map, 4, "whole", {}, {}, 16, std::move(whole.value().tree));
    ASSERT_TRUE(full) << full.error();
    ASSERT_EQ(full.value().tree.coarseErrors, streamed.value().tree.coarseErrors);
    const std::vector<Camera> cameras = randomCameras(full.value(), 10, 41u);
    expectSettledFramesEqualTheFullyLoadedOnes(
        full.value(), streamed.value(), cameras,
        [&](size_t i, const FrameStats& f, const FrameStats& a, const FrameStats&) {
            EXPECT_EQ(f.lodStats.nodesDrawn, a.lodStats.nodesDrawn) << "camera " << i;
        });
    EXPECT_GT(tiles->tiles().counts().read, 0u);
    EXPECT_EQ(tiles->tiles().counts().failed, 0u);
    // Once every tile has arrived the frames have its code cache kept, off their thread.
    Terrain& t = streamed.value();
    t.adoptOpened(opened.value());
    ASSERT_TRUE(tiles->tiles().ensure(0, 0, t.map.width - 1, t.map.height - 1));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!t.tilesKept && t.tilesProblem.empty() && std::chrono::steady_clock::now() < deadline) {
        cullTerrain(t, CullView{cameras[0], kHeight, true, true, 1.0f});
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_TRUE(t.tilesKept) << t.tilesProblem;
    EXPECT_TRUE(std::filesystem::is_regular_file(opened.value().codeCachePath));
    streamed.value().destroy();
    full.value().destroy();
}

// The layout in `folder` opened streamed by tiles (its cache in `dir`), in pages of 16 (at most
// `maxLayersPerArray` to a texture when given): the terrain, or the line of whichever of the open
// and the terrain's making failed.
Result<Terrain> layoutStreamedByTiles(const test::TempDir& dir, const std::string& folder,
                                      int maxLayersPerArray = 0) {
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    load.layoutByTiles = true;
    Result<OpenedMap> opened = openMap(folder, load, {}, 4, true);
    if (!opened) {
        return Result<Terrain>::failure(opened.error());
    }
    StreamSettings on;
    on.on = true;
    on.maxLayersPerArray = maxLayersPerArray;
    return Terrain::create(std::move(opened.value().map), 4, "damaged", {}, {}, 16,
                           std::move(opened.value().tree), streamByTiles(on, opened.value().tiles));
}

// At open a layout's levels 1 and up are read side by side, a thread a level: a tile of one
// that does not match its checksum ends that level, the others go on, and the terrain is not
// made, with the damaged tile's one line; with two levels damaged, the lower level's, whichever
// thread met its tile first, as when the levels were read in turn. The same levels undamaged
// open (ALayoutStreamedByTilesSettlesToItsMapHeldWhole).
TEST(StreamedTerrain, ALayoutWithADamagedCoarseLevelIsNotOpenedAndSaysWhichTile) {
    REQUIRE_GL_STRICT();
    test::TempDir dir;
    const std::string input = test::writeInput(dir, false);
    for (const bool both : {false, true}) {
        const std::string folder = dir.path(both ? "two levels" : "one level");
        ASSERT_TRUE(bakeLayout(input, folder, test::bakeOptions(dir)));
        test::changeSample(folder + "/heights-3.tif", 20, 3);  // tile (1, 0) of level 3
        if (both) {
            test::changeSample(folder + "/heights-2.tif", 5, 20);  // tile (0, 1) of level 2
        }
        const Result<Terrain> streamed = layoutStreamedByTiles(dir, folder);
        ASSERT_FALSE(streamed) << (both ? "two levels" : "one level");
        test::expectOneLineSaying(streamed.error(),
                                  both ? "heights-2.tif: tile (0, 1) does not match its checksum"
                                       : "heights-3.tif: tile (1, 0) does not match its checksum");
        EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    }
}

// A layout's coarse levels are read from before the textures are allocated: when the textures
// cannot be (here more arrays than a terrain takes), the open says so in its one line, and the
// level readers already running are ended and joined (a reader left running would end the
// program when its thread is destroyed).
TEST(StreamedTerrain, ALayoutWhoseTexturesCannotBeMadeSaysSoAndEndsItsCoarseLevelReaders) {
    REQUIRE_GL_STRICT();
    test::TempDir dir;
    const std::string folder = dir.path("layout");
    ASSERT_TRUE(bakeLayout(test::writeInput(dir, false), folder, test::bakeOptions(dir)));
    const Result<Terrain> streamed = layoutStreamedByTiles(dir, folder, 1);
    ASSERT_FALSE(streamed);
    test::expectOneLineSaying(streamed.error(), "the GPU driver takes at most 1 layers");
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// Level 1 streams with level 0 (HeightPages::pooledLevels): a damaged tile of it does not keep the
// layout from opening; the page it is in stays out (level 2 drawn there), and the streamer says
// which tile, as for a level-0 tile.
TEST(StreamedTerrain, ALayoutWithADamagedLevelOneTileOpensAndItsPageSaysWhichTile) {
    REQUIRE_GL_STRICT();
    test::TempDir dir;
    const std::string folder = dir.path("layout");
    ASSERT_TRUE(bakeLayout(test::writeInput(dir, false), folder, test::bakeOptions(dir)));
    test::changeSample(folder + "/heights-1.tif", 20, 3);  // tile (1, 0) of level 1
    Result<Terrain> streamed = layoutStreamedByTiles(dir, folder);
    ASSERT_TRUE(streamed) << streamed.error();
    ASSERT_EQ(streamed.value().gpu.pages.pooledLevels, 2);
    // Seen from above, every level-1 page is within the shading reach, so the damaged one is
    // asked for.
    const Camera camera = overviewCamera(streamed.value().map, streamed.value().mapping,
                                         float(kWidth) / kHeight, glm::radians(60.0f));
    EXPECT_FALSE(streamed.value().settleStreaming({camera, kHeight, true, true, 1.0f}));
    EXPECT_GT(streamed.value().streamStats().failedTotal, 0u);
    test::expectOneLineSaying(streamed.value().streamer->lastFailure(),
                              "heights-1.tif: tile (1, 0) does not match its checksum");
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    streamed.value().destroy();
}

// A fault of a layout's server or network, for flyThroughAFault: what starts it and ends it, and
// what the streamer's line says while it lasts.
struct LayoutFault {
    std::function<void()> start, end;
    std::string says;
    bool othersArrive = false;  // tiles the fault leaves alone are read while it lasts
};

// A layout by URL (`url`, the layout of `folder`) streamed by tiles, flown through a fault that
// starts once one view has settled (`fault(tiles)` makes it): the frames go on, each page whose
// tiles cannot be fetched drawn from its coarser level (the frame's nodes drawn from the map held
// whole give the same pixels: nothing wrong, no hole), and the streamer's line says so; once the
// fault ends the flight settles to the map held whole, pixel for pixel, culled = unculled.
void flyThroughAFault(const test::TempDir& dir, const std::string& folder, const std::string& url,
                      const std::function<LayoutFault(const LayoutStream&)>& fault) {
    LoadOptions load;
    load.cacheDir = dir.path("cache");
    Result<OpenedMap> whole = openMap(folder, load, {}, 4, false);
    ASSERT_TRUE(whole) << whole.error();
    load.layoutByTiles = true;
    Result<OpenedMap> opened = openMap(url, load, {}, 4, true);
    ASSERT_TRUE(opened) << opened.error();
    const std::shared_ptr<LayoutStream> tiles = opened.value().tiles;
    ASSERT_NE(tiles, nullptr);
    StreamSettings on;
    on.on = true;
    Result<Terrain> streamed =
        Terrain::create(std::move(opened.value().map), 4, "by url", {}, {}, 16,
                        std::move(opened.value().tree), streamByTiles(on, tiles));
    ASSERT_TRUE(streamed) << streamed.error();
    Result<Terrain> full =
        Terrain::create(whole.value().map, 4, "whole", {}, {}, 16, std::move(whole.value().tree));
    ASSERT_TRUE(full) << full.error();
    Terrain& t = streamed.value();
    const std::vector<Camera> cameras = randomCameras(full.value(), 8, 47u);
    expectSettledFramesEqualTheFullyLoadedOnes(full.value(), t, {cameras[0]},
                                               [](size_t, auto&&...) {});
    const uint64_t readBefore = tiles->tiles().counts().read;
    EXPECT_GT(readBefore, 0u);

    const LayoutFault f = fault(*tiles);
    f.start();
    std::vector<uint8_t> drawn, sameNodes;
    for (size_t i = 1; i < cameras.size(); ++i) {
        const Camera& camera = cameras[i];
        t.settleStreaming(CullView{camera, kHeight, true, true, 1.0f});  // as far as it can
        const FrameStats s = render(t, camera, true, drawn, false, 1.0f);
        drawNodesFrom(full.value(), t, camera, s, sameNodes);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        EXPECT_EQ(differingPixels(drawn, sameNodes), 0u) << "camera " << i;
    }
    ASSERT_GT(t.streamStats().failedTotal, 0u) << "no page of the flight needed a new tile";
    if (f.othersArrive) {
        EXPECT_GT(tiles->tiles().counts().read, readBefore);
    }
    const std::string line = t.streamer->lastFailure();
    EXPECT_NE(line.find(f.says), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;

    f.end();
    // Each tile that failed is read again once its back-off is over (at most a few seconds here).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (size_t i = 1; i < cameras.size(); ++i) {
        const CullView view{cameras[i], kHeight, false, false, i % 2 == 0 ? 1.0f : 4.0f};
        while (!t.settleStreaming(view) && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    expectSettledFramesEqualTheFullyLoadedOnes(full.value(), t, cameras, [&](size_t i, auto&&...) {
        EXPECT_EQ(t.streamStats().requested, 0) << "camera " << i;
    });
    EXPECT_GT(tiles->tiles().counts().read,
              readBefore);  // bytes fetched before may have served some
    t.destroy();
    full.value().destroy();
}

// The layout's server goes away mid-flight, as object storage may, and comes back.
TEST(StreamedTerrain, ALayoutByUrlFliesOnWhileItsServerIsGoneAndSettlesWhenItReturns) {
    REQUIRE_GL_STRICT();
    test::TempDir dir;
    const std::string folder = dir.path("layout");
    ASSERT_TRUE(bakeLayout(test::writeInput(dir, false), folder, test::bakeOptions(dir)));
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    flyThroughAFault(dir, folder, server.url("layout"), [&](const LayoutStream&) {
        return LayoutFault{[&] { server.stop(); },
                           [&] { ASSERT_TRUE(server.restart()) << server.why(); }, "heights-0.tif"};
    });
}

// A layout joined from region jobs whose server loses its regions' level-0 files mid-flight, those
// the first view read nothing of (a 404 for their tiles): the tiles of the others keep coming, the
// line names a lost file, and the flight settles once they are back.
TEST(StreamedTerrain, ALayoutByUrlFliesOnWhileRegionsAreNotFound) {
    REQUIRE_GL_STRICT();
    test::TempDir dir;
    const std::string folder = dir.path("jobs");
    ASSERT_TRUE(test::bakeByJobs(dir, test::writeInput(dir, false), folder, 32, 2, 1));
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    std::vector<std::string> gone;
    flyThroughAFault(dir, folder, server.url("jobs"), [&](const LayoutStream& stream) {
        // Regions of 32 samples hold 2 x 2 tiles of 16. Of those the first view left untouched,
        // every other one (a checkerboard) goes and the rest stay, so that the flight needs tiles
        // of both.
        for (int rz = 0; rz * 32 < 141; ++rz) {
            for (int rx = 0; rx * 32 < 203; ++rx) {
                bool goes = (rx + rz) % 2 == 0;
                for (int tz = rz * 2; tz < std::min(rz * 2 + 2, 9); ++tz) {
                    for (int tx = rx * 2; tx < std::min(rx * 2 + 2, 13); ++tx) {
                        goes = goes && !stream.tiles().present(tx, tz);
                    }
                }
                if (goes) {
                    gone.push_back(folder + "/regions/" + std::to_string(rx) + "-" +
                                   std::to_string(rz) + "/heights-0.tif");
                }
            }
        }
        EXPECT_FALSE(gone.empty()) << "the first view read every region";
        return LayoutFault{[&] {
                               for (const std::string& path : gone) {
                                   std::filesystem::rename(path, path + ".away");
                               }
                           },
                           [&] {
                               for (const std::string& path : gone) {
                                   std::filesystem::rename(path + ".away", path);
                               }
                           },
                           "/heights-0.tif: cannot be read from its server: HTTP 404", true};
    });
}

// Faults of the network between the viewer and the layout's server, made by a relay
// (test::FaultProxy): level 0's bytes changed on their way, its answers' bodies cut short of their
// Content-Length, or longer than it says.
void flyThroughANetworkFault(test::FaultProxy::Fault kind, const std::string& says) {
    test::TempDir dir;
    const std::string folder = dir.path("layout");
    ASSERT_TRUE(bakeLayout(test::writeInput(dir, false), folder, test::bakeOptions(dir)));
    test::HttpServer server(dir.path(""));
    QT_REQUIRE_HTTP_SERVER(server);
    test::FaultProxy proxy(server.port());
    ASSERT_TRUE(proxy.ok());
    flyThroughAFault(dir, folder, proxy.url("layout"), [&](const LayoutStream&) {
        return LayoutFault{[&] { proxy.arm(kind, "/layout/heights-0.tif"); },
                           [&] {
                               EXPECT_GT(proxy.faultsGiven(), 0);
                               proxy.arm(test::FaultProxy::Fault::None, "");
                           },
                           says};
    });
}

TEST(StreamedTerrain, ALayoutByUrlFliesOnThroughBytesChangedInTransit) {
    REQUIRE_GL_STRICT();
    flyThroughANetworkFault(test::FaultProxy::Fault::FlipBytes, "heights-0.tif: ");
}

TEST(StreamedTerrain, ALayoutByUrlFliesOnThroughAnswersCutShortOfTheirContentLength) {
    REQUIRE_GL_STRICT();
    flyThroughANetworkFault(test::FaultProxy::Fault::CutBody, "heights-0.tif: tile (");
}

TEST(StreamedTerrain, ALayoutByUrlFliesOnThroughAnswersLongerThanTheirContentLength) {
    REQUIRE_GL_STRICT();
    flyThroughANetworkFault(test::FaultProxy::Fault::ShorterLength, "heights-0.tif: ");
}

// A smooth map seen from high above at 4 pixels: level of detail draws nodes of level 4 and up,
// whose fragments take their normals from level 2 (a pixel's footprint over 4 to 8 samples), and
// no node is near splitting into level-2 nodes. With every level but the top pooled and a terrain
// made afresh for each view, those level-2 pages are asked for by the shading alone
// (LodOutput::shadingPages), and once settled the frames shade as the fully loaded map's, pixel
// for pixel, culled and unculled.
TEST(StreamedTerrain, EveryPooledLevelsPagesAreAskedForTheirShading) {
    REQUIRE_GL_STRICT();
    const int w = 257, h = 257;
    std::vector<float> samples(size_t(w) * size_t(h));
    for (int row = 0; row < h; ++row) {
        for (int col = 0; col < w; ++col) {
            samples[size_t(row) * size_t(w) + size_t(col)] =
                3.0f * std::sin(float(col) / 9.0f) * std::cos(float(row) / 7.0f);
        }
    }
    Result<Heightmap> map = makeHeightmap(w, h, samples);
    ASSERT_TRUE(map) << map.error();
    Result<Terrain> full = makeTerrain(map.value(), 4, "full", 8);
    ASSERT_TRUE(full) << full.error();
    int shadedOnly = 0;  // views with level-2 pages resident and no node below level 3 drawn
    std::vector<uint8_t> expected, culled, unculled;
    for (const glm::vec3 at :
         {glm::vec3(64.0f, 750.0f, 64.0f), glm::vec3(128.0f, 900.0f, 128.0f),
          glm::vec3(200.0f, 1100.0f, 180.0f), glm::vec3(90.0f, 800.0f, 200.0f)}) {
        Camera c;
        c.aspect = float(kWidth) / kHeight;
        c.position = at;
        c.pitch = -glm::half_pi<float>();
        fitClipPlanes(c, full.value().map, full.value().mapping);
        Result<Terrain> streamed = streamedTerrain(map.value(), 1 << 20, 0);
        ASSERT_TRUE(streamed) << streamed.error();
        Terrain& s = streamed.value();
        ASSERT_GE(s.gpu.pages.pooledLevels, 4);
        s.settleStreaming(CullView{c, kHeight, false, false, 4.0f});
        render(full.value(), c, true, expected, false, 4.0f);
        const FrameStats a = render(s, c, true, culled, false, 4.0f);
        render(s, c, false, unculled, false, 4.0f);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        EXPECT_EQ(differingPixels(expected, culled), 0u) << "eye at " << at.y;
        EXPECT_EQ(differingPixels(culled, unculled), 0u) << "eye at " << at.y;
        int finest = 99;
        for (const DrawNode& n : s.frame.lod.nodes) {
            finest = std::min(finest, int(n.level));
        }
        const PageLevel& two = s.gpu.pages.level[2];
        int resident = 0;
        for (int p = 0; p < two.pagesX * two.pagesY; ++p) {
            resident += s.streamer->layerOf(uint32_t(two.firstPage + p)) >= 0 ? 1 : 0;
        }
        shadedOnly += finest >= 4 && a.lodStats.nodesDrawn > 0 && resident > 0 ? 1 : 0;
        s.destroy();
    }
    EXPECT_GT(shadedOnly, 0) << "no view shaded from level-2 pages that no split needed";
    full.value().destroy();
}

// The first frame, nothing resident yet: the level-1 surface stands where level 0 would, with no
// hole. The core tests show that the streamed selection tiles the map with its neighbours one
// level apart and no cracks (Lod.StreamedSelection*: every leaf under one drawn node, the folded
// strips watertight); here its pixels are shown to be exactly those of the same nodes drawn from
// the fully loaded terrain's pages, so the pool and the level-1 pages hold the right samples and
// no drawn node reads an absent entry. (A pixel tolerance against the fully loaded picture would
// not be tiny: a held-back node is drawn nearer than its split distance, so its surface can stand
// several pixels off full detail; this map's spikes move by more than 2.) With levels 0 and 1
// out, the first frame is drawn from level 2 and up; on every other camera every level but the
// top is pooled, and the first frame is the top's.
TEST(StreamedTerrain, TheFirstFrameHasNoHoles) {
    REQUIRE_GL_STRICT();
    const Heightmap map = syntheticHeightmap(257, 257, 5);
    Result<Terrain> full = makeTerrain(map, 4, "full", 8);
    ASSERT_TRUE(full) << full.error();
    const std::vector<Camera> cameras = randomCameras(full.value(), 12, 29u);
    std::vector<uint8_t> expected, first, sameNodes;
    int heldBack = 0;
    // The vertices' normals for the coarse nodes' fragments in every frame: the streamed frame's
    // pooled pages are out, the fully loaded terrain's in (TerrainRenderer::shadingReach).
    gl().renderer.shadingReach = 0.0f;
    for (size_t i = 0; i < cameras.size(); ++i) {
        const Camera& camera = cameras[i];
        Result<Terrain> streamed = streamedTerrain(map, 0, i % 2 == 1 ? 0 : kHeldLevelsBytes);
        ASSERT_TRUE(streamed) << streamed.error();
        const FrameStats f = render(full.value(), camera, true, expected, false, 1.0f);
        const FrameStats s = render(streamed.value(), camera, true, first, false, 1.0f);
        ASSERT_EQ(streamed.value().streamStats().resident, 0);
        heldBack += int(s.lodStats.nodesDrawn < f.lodStats.nodesDrawn);
        // The streamed frame's nodes drawn from every page.
        drawNodesFrom(full.value(), streamed.value(), camera, s, sameNodes);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        EXPECT_EQ(differingPixels(first, sameNodes), 0u) << "camera " << i;
        // Where the full picture shows terrain over more than a hundredth of its pixels, the
        // first frame shows some too (a sliver of a spike's top may be below the coarse surface).
        if (terrainShare(expected) > 0.01) {
            EXPECT_GT(terrainShare(first), 0.0) << "camera " << i;
        }
        streamed.value().destroy();
    }
    gl().renderer.shadingReach = -1.0f;
    EXPECT_GT(heldBack, 0) << "no camera drew a held-back node";
    full.value().destroy();
}

// A pool smaller than the view needs: pages wait, the level-1 surface stands in, and what is drawn
// reads only resident pages (the GL debug output and the settled picture stay clean).
TEST(StreamedTerrain, ASmallPoolRecyclesLayersAndStillDrawsEveryPixel) {
    REQUIRE_GL_STRICT();
    const Heightmap map = syntheticHeightmap(257, 257, 9);
    Result<Terrain> streamed = streamedTerrain(map, 6);
    ASSERT_TRUE(streamed) << streamed.error();
    EXPECT_EQ(streamed.value().gpu.pages.poolLayers, 6);
    const std::vector<Camera> cameras = randomCameras(streamed.value(), 10, 31u);
    std::vector<uint8_t> pixels;
    uint64_t uploads = 0;
    for (size_t i = 0; i < cameras.size(); ++i) {
        const int errorsBefore = glErrorCount();
        streamed.value().settleStreaming(CullView{cameras[i], kHeight, true, true, 1.0f});
        render(streamed.value(), cameras[i], true, pixels, false, 1.0f);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        ASSERT_EQ(glErrorCount(), errorsBefore);
        const StreamStats st = streamed.value().streamStats();
        EXPECT_LE(st.resident, 6);
        uploads = st.uploadedTotal;
    }
    EXPECT_GT(uploads, 6u) << "layers were recycled";
    streamed.value().destroy();
}

// The vertex shader's own positions (transform feedback) for every node a streamed frame selects,
// with pages partly resident (a pool of 320 layers for the 1,280 pages of levels 0 and 1, or the
// 1,365 of every level but the top, a few frames' uploads after each camera change; every third
// camera's view as settled as the pool holds, so that level-0 nodes are drawn however slowly the
// streamer's thread brings pages): the same, exactly, as those of the same nodes read from the
// fully loaded terrain's pages. So every vertex a drawn node fetches, level-0 nodes' included,
// comes from a resident page holding the right samples, never from an absent entry of the page
// table.
TEST(StreamedTerrain, DrawnNodesReadOnlyResidentPages) {
    REQUIRE_GL_STRICT();
    const Heightmap map = syntheticHeightmap(257, 257, 13);
    Result<Terrain> full = makeTerrain(map, 4, "full", 8);
    ASSERT_TRUE(full) << full.error();
    const std::vector<Camera> cameras = randomCameras(full.value(), 10, 37u);
    for (const bool deep : {false, true}) {
        SCOPED_TRACE(deep ? "every level but the top pooled" : "levels 0 and 1 pooled");
        Result<Terrain> streamed = streamedTerrain(map, 320, deep ? 0 : kHeldLevelsBytes);
        ASSERT_TRUE(streamed) << streamed.error();
        ASSERT_EQ(streamed.value().gpu.pages.pooledPages(), deep ? 1365 : 1280);
        int fullDetailNodes = 0, deepPooledNodes = 0;
        for (size_t i = 0; i < cameras.size(); ++i) {
            const CullView view{cameras[i], kHeight, true, true, 1.0f};
            if (i % 3 == 2) {
                // As settled as the pool of 320 holds (it cannot hold some views whole).
                streamed.value().settleStreaming(view);
            }
            for (int frame = 0; frame < 2 + 2 * int(i % 3); ++frame) {
                cullTerrain(streamed.value(), view);
            }
            const std::vector<DrawNode> nodes = streamed.value().frame.lod.nodes;
            for (const DrawNode& n : nodes) {
                fullDetailNodes += n.level == 0 ? 1 : 0;
                deepPooledNodes +=
                    n.level >= 2 && n.level < streamed.value().gpu.pages.pooledLevels;
            }
            if (nodes.empty()) {
                continue;
            }
            NodeCapture fromStream, fromFull;
            ASSERT_TRUE(fromStream.create(streamed.value(), "#define MORPHING\n"));
            const std::vector<glm::vec4> a = fromStream.capture(streamed.value(), nodes);
            fromStream.destroy();
            ASSERT_TRUE(fromFull.create(full.value(), "#define MORPHING\n"));
            const std::vector<glm::vec4> b = fromFull.capture(full.value(), nodes);
            fromFull.destroy();
            ASSERT_FALSE(a.empty());
            ASSERT_EQ(a.size(), b.size());
            EXPECT_TRUE(a == b) << "camera " << i;
        }
        EXPECT_GT(fullDetailNodes, 0) << "no level-0 node was drawn";
        if (deep) {
            EXPECT_GT(deepPooledNodes, 0) << "no node of a pooled level above 1 was drawn";
        }
        streamed.value().destroy();
    }
    full.value().destroy();
}

// A pool sized from the view: made for a 10-pixel-high viewport it holds few layers; a frame of
// the test's taller viewport needs more, so the pool grows (for a viewport a quarter taller than
// the frame's, here every page), and settled frames then equal the fully loaded ones again.
// With a pool given (--stream-pool) it stays as it is.
TEST(StreamedTerrain, APoolSizedFromTheViewGrowsWithIt) {
    REQUIRE_GL_STRICT();
    const Heightmap map = syntheticHeightmap(257, 257, 257 * 5 + 1);
    StreamSettings stream;
    stream.on = true;
    stream.viewportHeight = 10;
    Result<Terrain> streamed = Terrain::create(map, 4, "streamed", {}, {}, 8, {}, stream);
    Result<Terrain> fixed = streamedTerrain(map, 20);
    Result<Terrain> full = makeTerrain(map, 4, "full", 8);
    ASSERT_TRUE(streamed) << streamed.error();
    ASSERT_TRUE(fixed) << fixed.error();
    ASSERT_TRUE(full) << full.error();
    streamed.value().finishErrors();
    const HeightPages& pages = streamed.value().gpu.pages;
    const int first = pages.poolLayers;
    EXPECT_EQ(first, streamPoolLayers(pages, stream.fovY, 10, kStreamFinestPixels, 4));
    EXPECT_LT(first, 32 * 32 / 4);
    const std::vector<Camera> cameras = randomCameras(full.value(), 6, 47u);
    std::vector<uint8_t> expected, pixels;
    for (size_t i = 0; i < cameras.size(); ++i) {
        const CullView view{cameras[i], kHeight, true, true, 1.0f};
        streamed.value().settleStreaming(view);
        fixed.value().settleStreaming(view);
        EXPECT_GE(streamed.value().gpu.pages.poolLayers,
                  std::min(32 * 32, streamPoolLayers(streamed.value().gpu.pages, cameras[i].fovY,
                                                     kHeight, kStreamFinestPixels, 4)))
            << "camera " << i;
        render(full.value(), cameras[i], true, expected, false, 1.0f);
        render(streamed.value(), cameras[i], true, pixels, false, 1.0f);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        EXPECT_EQ(differingPixels(expected, pixels), 0u) << "camera " << i;
        render(fixed.value(), cameras[i], true, pixels, false, 1.0f);
    }
    EXPECT_GT(streamed.value().gpu.pages.poolLayers, first);
    EXPECT_EQ(fixed.value().gpu.pages.poolLayers, 20);
    streamed.value().destroy();
    fixed.value().destroy();
    full.value().destroy();
}

// A map rough at the sample scale: its coarse errors make level-1 nodes split far beyond the
// grid-step reach a pool sized from the view allows for.
Heightmap roughHeightmap(int width, int height) {
    std::vector<float> samples(size_t(width) * size_t(height));
    for (int r = 0; r < height; ++r) {
        for (int c = 0; c < width; ++c) {
            samples[size_t(r) * size_t(width) + size_t(c)] =
                float(30000.0 + 14000.0 * std::sin(c * 0.021) * std::cos(r * 0.017) +
                      9000.0 * std::sin((3 * c - r) * 0.0071) +
                      6000.0 * std::sin(c * 1.7 + r * 0.3) * std::cos(r * 2.3));
        }
    }
    return makeHeightmap(width, height, samples).value();
}

// Interactive frames, no settling: a pool sized from the view whose pages wait because every
// layer was drawn by the last frame (the view draws level 0 from all of them and asks for more)
// doubles, so frames at the per-frame upload budget reach the fully loaded picture. A pool given
// by size stays as it is.
TEST(StreamedTerrain, AStarvedPoolDoublesInInteractiveFrames) {
    REQUIRE_GL_STRICT();
    const Heightmap map = roughHeightmap(513, 513);
    // Level of detail measured for a view 60 pixels high at 120 degrees (a wide, short window):
    // the pool sized from that view holds fewer pages than the rough map's frames ask for.
    constexpr int kViewHeight = 60;
    StreamSettings stream;
    stream.on = true;
    stream.viewportHeight = kViewHeight;
    stream.fovY = glm::radians(120.0f);
    Result<Terrain> streamed = Terrain::create(map, 4, "streamed", {}, {}, 32, {}, stream);
    StreamSettings given = stream;
    given.pool = 4;
    Result<Terrain> fixed = Terrain::create(map, 4, "fixed", {}, {}, 32, {}, given);
    Result<Terrain> full = makeTerrain(map, 4, "full", 32);
    ASSERT_TRUE(streamed && fixed && full);
    streamed.value().finishErrors();
    const int first = streamed.value().gpu.pages.poolLayers;
    EXPECT_LT(first, 16 * 16) << "the view's estimate, below the map's level-0 pages";
    const auto draw = [](Terrain& t, const Camera& camera, std::vector<uint8_t>& pixels) {
        GlFixture& f = gl();
        f.target.bind();
        TerrainRenderer::clear(kWidth, kHeight);
        renderTerrain(f.renderer, t, camera, CullView{camera, kViewHeight, true, true, 1.0f}, false,
                      &f.objects);
        readPixels(kWidth, kHeight, pixels);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
    };
    std::vector<Camera> cameras = randomCameras(full.value(), 3, 53u);
    std::vector<uint8_t> expected, pixels;
    int equal = 0;
    for (Camera& camera : cameras) {
        camera.fovY = glm::radians(120.0f);
        fitClipPlanes(camera, map, full.value().mapping);
        draw(full.value(), camera, expected);
        // Frames at the per-frame upload budget until the picture is the loaded one (or it never
        // is).
        bool same = false;
        for (int frame = 0; frame < 300 && !same; ++frame) {
            draw(streamed.value(), camera, pixels);
            same = frame % 8 == 7 && differingPixels(expected, pixels) == 0;
        }
        for (int frame = 0; frame < 8; ++frame) {
            draw(fixed.value(), camera, pixels);
        }
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        equal += same ? 1 : 0;
    }
    EXPECT_GT(streamed.value().gpu.pages.poolLayers, first);
    EXPECT_EQ(equal, int(cameras.size()));
    EXPECT_EQ(fixed.value().gpu.pages.poolLayers, 4);
    streamed.value().destroy();
    fixed.value().destroy();
    full.value().destroy();
}

// A 257 x 257 synthetic map read into memory with its level-0 pages on demand (pages of 8), the
// pool sized for a viewport `viewportHeight` pixels high.
Result<Terrain> onDemandTerrain(const Heightmap& map, int viewportHeight = kStreamPoolViewport) {
    StreamSettings stream;
    stream.level0 = Level0Upload::OnDemand;
    stream.viewportHeight = viewportHeight;
    Result<Terrain> terrain = Terrain::create(map, 4, "on demand", {}, {}, 8, {}, stream);
    if (terrain) {
        terrain.value().finishErrors();
    }
    return terrain;
}

// Level 0 on demand: the first frame of a fresh terrain waits for its view's pages, so it is
// the whole upload's pixel for pixel (and the same nodes) with nothing settled by hand, culled or
// not; the load uploaded no level-0 page, and the first view took only the pages it needed. A
// pool made for a 10-pixel viewport is too small for some views: it doubles until they fit.
TEST(OnDemandLevel0, TheFirstFrameEqualsTheWholeUpload) {
    REQUIRE_GL_STRICT();
    const Heightmap map = syntheticHeightmap(257, 257, 257 * 17 + 3);
    Result<Terrain> whole = makeTerrain(map, 4, "whole", 8);
    ASSERT_TRUE(whole) << whole.error();
    const std::vector<Camera> cameras = randomCameras(whole.value(), 8, 41u);
    std::vector<uint8_t> expected, first;
    int partial = 0, grown = 0;
    for (size_t i = 0; i < cameras.size(); ++i) {
        const float pixels = i % 2 == 0 ? 1.0f : 3.0f;
        const bool cull = i % 3 != 2;
        Result<Terrain> lazy = onDemandTerrain(map, i % 2 == 0 ? 10 : kStreamPoolViewport);
        ASSERT_TRUE(lazy) << lazy.error();
        ASSERT_TRUE(lazy.value().onDemand);
        ASSERT_EQ(lazy.value().streamStats().resident, 0);
        const int pool = lazy.value().gpu.pages.poolLayers;
        EXPECT_EQ(pool, i % 2 == 0 ? 144 : 32 * 32 + 16 * 16);  // levels 0 and 1
        const FrameStats w = render(whole.value(), cameras[i], cull, expected, false, pixels);
        const FrameStats f = render(lazy.value(), cameras[i], cull, first, false, pixels);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        EXPECT_EQ(differingPixels(expected, first), 0u) << "camera " << i;
        EXPECT_EQ(w.lodStats.nodesDrawn, f.lodStats.nodesDrawn) << "camera " << i;
        const StreamStats st = lazy.value().streamStats();
        EXPECT_EQ(st.requested, 0);
        partial += st.resident > 0 && st.resident < 32 * 32 ? 1 : 0;
        grown += st.pool > pool ? 1 : 0;
        lazy.value().destroy();
    }
    EXPECT_GT(partial, 0) << "no view took some of the pages and not all";
    EXPECT_GT(grown, 0) << "no view outgrew the small pool";
    whole.value().destroy();
}

// One on-demand terrain over many views: settled, each frame equals the whole upload's; a frame
// without level of detail first makes the heights whole, equals the whole upload's full-detail
// frame, and leaves a terrain that no longer streams and still draws level-of-detail frames alike.
TEST(OnDemandLevel0, LaterViewsAndAFullDetailFrameEqualTheWholeUpload) {
    REQUIRE_GL_STRICT();
    const Heightmap map = syntheticHeightmap(257, 257, 257 * 7 + 11);
    Result<Terrain> whole = makeTerrain(map, 4, "whole", 8);
    Result<Terrain> lazy = onDemandTerrain(map);
    ASSERT_TRUE(whole) << whole.error();
    ASSERT_TRUE(lazy) << lazy.error();
    const std::vector<Camera> cameras = randomCameras(whole.value(), 10, 43u);
    std::vector<uint8_t> expected, culled;
    for (size_t i = 0; i < 4; ++i) {
        const Camera& camera = cameras[i];
        lazy.value().settleStreaming(CullView{camera, kHeight, true, true, 2.0f});
        render(whole.value(), camera, true, expected, false, 2.0f);
        render(lazy.value(), camera, true, culled, false, 2.0f);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        EXPECT_EQ(differingPixels(expected, culled), 0u) << "camera " << i;
    }
    ASSERT_TRUE(lazy.value().onDemand);
    EXPECT_LT(lazy.value().streamStats().resident, 32 * 32);
    EXPECT_GT(lazy.value().gpu.pages.poolLayers, 0);
    const Camera& camera = cameras[0];
    render(whole.value(), camera, true, expected);
    const FrameStats full = render(lazy.value(), camera, true, culled);
    ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    EXPECT_FALSE(full.lod);
    EXPECT_FALSE(lazy.value().onDemand);
    EXPECT_FALSE(lazy.value().streamed());
    EXPECT_EQ(lazy.value().gpu.pages.poolLayers, 0);  // every page a layer of its own
    EXPECT_GT(lazy.value().times.restMs, 0.0);
    EXPECT_EQ(differingPixels(expected, culled), 0u);
    for (size_t i = 4; i < cameras.size(); ++i) {
        render(whole.value(), cameras[i], true, expected, false, 1.0f);
        render(lazy.value(), cameras[i], true, culled, false, 1.0f);
        EXPECT_EQ(differingPixels(expected, culled), 0u) << "camera " << i;
    }
    lazy.value().destroy();
    whole.value().destroy();
}

// A Sun on the fixture's renderer for a test's scope, the fixed light again at its end (the
// renderer is shared by every test).
class SunOn {
public:
    SunOn(Terrain& terrain, SunDirection sun) : terrain_(terrain) {
        setTerrainSun(terrain, gl().renderer, sun, true);
    }
    ~SunOn() { setTerrainSun(terrain_, gl().renderer, std::nullopt, false); }
    SunOn(const SunOn&) = delete;
    SunOn& operator=(const SunOn&) = delete;

private:
    Terrain& terrain_;
};

// A level map `w` x `h` at height 0 with walls `height` high along `columns`, one world unit a
// sample and a unit of height: the light tests' scenes.
Result<Terrain> walledTerrain(int w, int h, std::initializer_list<int> columns, float height,
                              const std::string& name) {
    std::vector<float> samples(size_t(w) * size_t(h), 0.0f);
    for (int row = 0; row < h; ++row) {
        for (const int col : columns) {
            samples[size_t(row) * size_t(w) + size_t(col)] = height;
        }
    }
    Result<Heightmap> map = makeHeightmap(w, h, samples);
    if (!map) {
        return Result<Terrain>::failure(map.error());
    }
    Result<Terrain> terrain = makeTerrain(map.value(), 4, name);
    if (terrain) {
        terrain.value().mapping = WorldMapping(1.0f, 1.0f, 0.0f);
    }
    return terrain;
}

// The centre pixel of a camera 40 units straight above column `col` of `t`'s middle row,
// through a lens `fovDegrees` high.
std::array<int, 3> centreAbove(Terrain& t, int col, float fovDegrees) {
    Camera c;
    c.aspect = float(kWidth) / kHeight;
    c.fovY = glm::radians(fovDegrees);
    c.position = {float(col), 40.0f, float(t.map.height / 2)};
    c.pitch = -glm::half_pi<float>();
    fitClipPlanes(c, t.map, t.mapping);
    std::vector<uint8_t> pixels;
    render(t, c, true, pixels);
    const uint8_t* p = &pixels[(size_t(kHeight / 2) * kWidth + size_t(kWidth / 2)) * 4];
    return {p[0], p[1], p[2]};
}

// Suns from several sides, low enough that the relief casts long shadows.
constexpr SunDirection kTestSuns[] = {{250.0, 12.0}, {35.0, 25.0}};

// With a Sun, the terrain is drawn by the sun programs, shadowed: culled frames still equal
// unculled ones, at full detail and by level of detail, with and without holes (the sun hole
// program), over small pages.
TEST(Sun, CulledFramesEqualUnculledFramesOnSyntheticMaps) {
    REQUIRE_GL();
    const int w = 203, h = 141;
    const Heightmap plain = syntheticHeightmap(w, h, uint32_t(w * 31 + h));
    const Heightmap holes = withSyntheticHoles(plain);
    for (const Heightmap* map : {&plain, &holes}) {
        Result<Terrain> terrain = makeTerrain(*map, 4, "sun", 8);
        ASSERT_TRUE(terrain) << terrain.error();
        Terrain& t = terrain.value();
        const std::vector<Camera> cameras = randomCameras(t, 12, 43u);
        for (const SunDirection sun : kTestSuns) {
            const SunOn on(t, sun);
            ASSERT_NE(t.gpu.shadows, 0u);
            ASSERT_TRUE(gl().renderer.sun.has_value());
            EXPECT_EQ(gl().renderer.sun->azimuth, sun.azimuth);
            const std::vector<uint8_t> bytes = t.sunlight->bytes().copy();
            ASSERT_EQ(bytes.size(), map->sampleCount());
            EXPECT_GT(std::count_if(bytes.begin(), bytes.end(),
                                    [](uint8_t b) { return lightSun(b) == 0.0f; }),
                      0)
                << "no shadow";
            expectCulledEqualsUnculled(t, cameras);
            for (const float pixels : {1.0f, 8.0f}) {
                expectCulledEqualsUnculled(t, cameras, nullptr, pixels);
            }
        }
        t.destroy();
    }
}

// A streamed terrain's light is paged beside its heights: once settled it draws what the fully
// loaded terrain draws under the same Sun, pixel for pixel, culled and unculled, at full detail
// and with level of detail, with levels 0 and 1 pooled and with every level but the top. The first
// Sun's light arrives before any level-0 page (each page then takes it with its heights), the
// second's while pages are resident (their light is written anew).
TEST(Sun, StreamedSettledFramesEqualTheFullyLoadedOnes) {
    REQUIRE_GL_STRICT();
    const Heightmap map = syntheticHeightmap(257, 257, 257 * 31 + 257);
    Result<Terrain> full = makeTerrain(map, 4, "full", 8);
    ASSERT_TRUE(full) << full.error();
    const std::vector<Camera> cameras = randomCameras(full.value(), 8, 47u);
    for (const bool deep : {false, true}) {
        SCOPED_TRACE(deep ? "every level but the top pooled" : "levels 0 and 1 pooled");
        Result<Terrain> streamed = deep ? streamedTerrain(map, 1 << 20, 0) : streamedTerrain(map);
        ASSERT_TRUE(streamed) << streamed.error();
        Terrain& s = streamed.value();
        for (const SunDirection sun : kTestSuns) {
            const SunOn fullOn(full.value(), sun);
            const SunOn streamedOn(s, sun);
            ASSERT_TRUE(s.gpu.lightPaged());
            ASSERT_EQ(s.gpu.shadows, 0u);
            ASSERT_EQ(s.sunlight->bytes().copy(), full.value().sunlight->bytes().copy());
            expectSettledFramesEqualTheFullyLoadedOnes(
                full.value(), s, cameras,
                [](size_t, const FrameStats&, const FrameStats&, const FrameStats&) {});
            EXPECT_GT(s.streamStats().resident, 0);
        }
        s.destroy();
    }
    full.value().destroy();
}

// Pages spread over several texture arrays (as a driver that caps a texture's bytes spreads them)
// are read by the programs that branch over the arrays, pages in one array by those that read it
// alone: the same map draws the same pixels either way, with holes and objects, under a Sun and
// without, held whole and streamed (its light paged as its heights, read at the objects' bases;
// with levels 0 and 1 pooled, and with every level but the top).
TEST(HeightPages, FramesFromPagesInSeveralArraysEqualThoseFromOne) {
    REQUIRE_GL_STRICT();
    const int w = 257, h = 257;
    const Heightmap map = test::withNodata(syntheticHeightmap(w, h, 41), [&](int col, int row) {
        return syntheticHole(col, row, w, h);
    });
    for (const int variant : {0, 1, 2}) {
        const bool streamed = variant > 0;
        SCOPED_TRACE(variant == 0   ? "held whole"
                     : variant == 1 ? "streamed"
                                    : "streamed, every level but the top pooled");
        StreamSettings settings;
        settings.on = streamed;
        settings.heldLevelsBytes = variant == 2 ? 0 : kHeldLevelsBytes;
        Result<Terrain> one = Terrain::create(map, 4, "one array", {}, {}, 8, {}, settings);
        ASSERT_TRUE(one) << one.error();
        settings.maxLayersPerArray = (one.value().gpu.pages.layers + 2) / 3;
        Result<Terrain> three = Terrain::create(map, 4, "three arrays", {}, {}, 8, {}, settings);
        ASSERT_TRUE(three) << three.error();
        Terrain& a = one.value();
        Terrain& b = three.value();
        a.finishErrors();
        b.finishErrors();
        const uint32_t count = 2000;
        Result<ObjectScene> scene = ObjectScene::scatter(map, a.mapping, count, 0, 7u);
        ASSERT_TRUE(scene) << scene.error();
        a.setObjects(std::make_unique<ObjectScene>(scene.value()));
        b.setObjects(std::make_unique<ObjectScene>(scene.value()));
        gl().objects.reserve(count);
        ASSERT_EQ(a.gpu.heightArrays, 1);
        ASSERT_EQ(b.gpu.heightArrays, 3);
        ASSERT_EQ(pagesVariant(a.gpu), 0);
        ASSERT_EQ(pagesVariant(b.gpu), int(kManyArraysVariant));
        const std::vector<Camera> cameras = randomCameras(a, 6, 53u);
        for (const std::optional<SunDirection> sun :
             {std::optional<SunDirection>(), std::optional<SunDirection>(kTestSuns[0])}) {
            std::optional<SunOn> aLit, bLit;
            if (sun) {
                aLit.emplace(a, *sun);
                bLit.emplace(b, *sun);
                ASSERT_EQ(b.gpu.lightPaged(), streamed);
            }
            std::vector<uint8_t> expected, spread;
            int drawn = 0;
            for (size_t i = 0; i < cameras.size(); ++i) {
                const float pixels = i % 2 == 0 ? 1.0f : 4.0f;
                const CullView view{cameras[i], kHeight, false, false, pixels};
                if (streamed) {
                    a.settleStreaming(view);
                    b.settleStreaming(view);
                }
                const FrameStats f = render(a, cameras[i], true, expected, false, pixels);
                render(b, cameras[i], true, spread, false, pixels);
                ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
                EXPECT_EQ(differingPixels(expected, spread), 0u)
                    << "camera " << i << (sun ? ", Sun" : "");
                drawn += terrainShare(expected) > 0.0 && f.objects.drawn > 0;
            }
            EXPECT_GT(drawn, 0) << "no frame drew terrain and objects";
        }
        b.destroy();
        a.destroy();
    }
}

// Leaves (full detail) are drawn by programs without the fragments' finer normals, which level
// of detail's nodes need (COARSE_NODES): a full-detail frame's leaves drawn as level-0 nodes by
// the nodes' programs give the same pixels, with holes and under a Sun too.
TEST(LodShading, LeavesDrawTheSamePixelsAsLevelZeroNodes) {
    REQUIRE_GL();
    const int w = 203, h = 141;
    const Heightmap map = withSyntheticHoles(syntheticHeightmap(w, h, 19));
    Result<Terrain> loaded = makeTerrain(map, 4, "leaves", 8);
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain& t = loaded.value();
    const std::vector<Camera> cameras = randomCameras(t, 6, 61u);
    std::vector<uint8_t> leaves, nodes;
    std::vector<DrawNode> asNodes;
    for (const std::optional<SunDirection> sun :
         {std::optional<SunDirection>(), std::optional<SunDirection>(kTestSuns[1])}) {
        std::optional<SunOn> lit;
        if (sun) {
            lit.emplace(t, *sun);
        }
        int drawn = 0;
        for (size_t i = 0; i < cameras.size(); ++i) {
            const FrameStats f = render(t, cameras[i], true, leaves);
            ASSERT_FALSE(f.lod);
            asNodes.clear();
            for (const LeafCoord& leaf : t.frame.drawList) {
                asNodes.push_back(DrawNode{leaf.col, leaf.row, 0, 0, 0, 0, {0, 0, 0, 0}});
            }
            GlFixture& g = gl();
            g.target.bind();
            TerrainRenderer::clear(kWidth, kHeight);
            DrawStyle style;
            style.cullBackFaces = f.backFacesCulled;
            g.renderer.draw(t.gpu, t.mapping, cameras[i], asNodes, t.frame.holesFrom, style);
            g.renderer.drawSky(t.gpu, t.mapping, cameras[i]);  // under a Sun, as renderTerrain
            readPixels(kWidth, kHeight, nodes);
            glBindFramebuffer(GL_FRAMEBUFFER, 0);
            ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
            EXPECT_EQ(differingPixels(leaves, nodes), 0u) << "camera " << i << (sun ? ", Sun" : "");
            drawn += terrainShare(leaves) > 0.0 && f.instancesOverHoles > 0;
        }
        EXPECT_GT(drawn, 0) << "no frame drew terrain over holes";
    }
    t.destroy();
}

// Nodes with no morph part way drawn by the programs without MORPHING (one sample's fetches a
// vertex) give the pixels the MORPHING programs give them, at several bounds, over holes and
// under a Sun: the frames of each camera drawn both ways are equal.
TEST(LodShading, NodesWithNoMorphPartWayDrawTheSamePixelsByEitherProgram) {
    REQUIRE_GL();
    const Heightmap map = withSyntheticHoles(syntheticHeightmap(203, 141, 23));
    Result<Terrain> loaded = makeTerrain(map, 4, "settled", 8);
    ASSERT_TRUE(loaded) << loaded.error();
    Terrain& t = loaded.value();
    TerrainRenderer& renderer = gl().renderer;
    // Low and high over the map (expectLodMeshClosed's eyes): many levels meeting, many morphing.
    std::vector<Camera> cameras = randomCameras(t, 4, 67u);
    for (const glm::vec3& eye :
         {glm::vec3(100.0f, 30.0f, 70.0f), glm::vec3(250.0f, 200.0f, 0.0f)}) {
        Camera camera;
        camera.aspect = float(kWidth) / kHeight;
        camera.position = eye;
        camera.yaw = 0.8f;
        camera.pitch = -0.3f;
        fitClipPlanes(camera, t.map, t.mapping);
        cameras.push_back(camera);
    }
    std::vector<uint8_t> settled, morphing;
    size_t settledNodes = 0, partWay = 0;
    int withTerrain = 0;
    for (const std::optional<SunDirection> sun :
         {std::optional<SunDirection>(), std::optional<SunDirection>(kTestSuns[1])}) {
        std::optional<SunOn> lit;
        if (sun) {
            lit.emplace(t, *sun);
        }
        for (size_t i = 0; i < cameras.size(); ++i) {
            for (const float pixels : {1.0f, 6.0f, 30.0f}) {
                renderer.settledPrograms = false;
                render(t, cameras[i], true, morphing, false, pixels);
                renderer.settledPrograms = true;
                const FrameStats f = render(t, cameras[i], true, settled, false, pixels);
                ASSERT_TRUE(f.lod);
                for (const DrawNode& node : t.frame.lod.nodes) {
                    (morphsPartWay(node) ? partWay : settledNodes) += 1;
                }
                withTerrain += terrainShare(settled) > 0.1 ? 1 : 0;
                EXPECT_EQ(differingPixels(settled, morphing), 0u)
                    << "camera " << i << ", " << pixels << " px" << (sun ? ", Sun" : "");
            }
        }
    }
    renderer.settledPrograms = true;
    EXPECT_GT(withTerrain, int(cameras.size()) * 3);  // of the 6 frames a camera
    EXPECT_GT(settledNodes, 100u);
    EXPECT_GT(partWay, 100u);
    t.destroy();
}

// Shadows split into layers of a few rows (as a map taller than the driver's largest texture
// is) draw the same pixels as one layer.
// A Sun whose light's bytes, with the map's held ones, would pass the memory budget lights the
// terrain without shadows and says why; with room, or no budget, the shadows come.
TEST(Sun, ShadowsOverTheMemoryBudgetAreLeftOutAndSaidSo) {
    REQUIRE_GL();
    const int w = 203, h = 141;
    const uint64_t needs = uint64_t(w) * h * (kHeldBytesPerSample + kLightBytesPerSample);
    for (const uint64_t budget : {needs - 1, needs, uint64_t(0)}) {
        Result<Terrain> terrain = makeTerrain(syntheticHeightmap(w, h, 7), 4, "sun budget");
        ASSERT_TRUE(terrain) << terrain.error();
        Terrain& t = terrain.value();
        setTerrainSun(t, gl().renderer, kTestSuns[0], true, budget);
        ASSERT_TRUE(gl().renderer.sun.has_value()) << "budget " << budget;
        const bool over = budget == needs - 1;
        EXPECT_EQ(shadowsOff(t, gl().renderer), over ? ShadowsOff::OverBudget : ShadowsOff::None)
            << "budget " << budget;
        EXPECT_EQ(t.sunlight == nullptr, over) << "budget " << budget;
        EXPECT_EQ(t.gpu.shadows == 0, over) << "budget " << budget;
        setTerrainSun(t, gl().renderer, std::nullopt, false);
        t.destroy();
    }
}

// A map taller or wider than the driver's largest texture spans layers, blocks of rows and of
// columns of even sizes: split here by the test's limits, the terrain and the objects on it are
// lit alike, pixel for pixel, through the blocks' borders.
TEST(Sun, ShadowsSplitIntoLayersDrawTheSamePixels) {
    REQUIRE_GL();
    Result<Terrain> terrain =
        makeTerrain(syntheticHeightmap(203, 141, uint32_t(203 * 31 + 141)), 4, "sun layers");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    Result<ObjectScene> scene = ObjectScene::scatter(t.map, t.mapping, 3000, 0, 5u);
    ASSERT_TRUE(scene) << scene.error();
    t.setObjects(std::make_unique<ObjectScene>(std::move(scene).value()));
    gl().objects.reserve(3000);
    const std::vector<Camera> cameras = randomCameras(t, 8, 47u);
    const SunOn on(t, kTestSuns[0]);
    ASSERT_EQ(t.gpu.shadowRowsPerLayer, 141);
    ASSERT_EQ(t.gpu.shadowColumnsPerLayer, 203);
    std::vector<std::vector<uint8_t>> whole(cameras.size());
    for (size_t i = 0; i < cameras.size(); ++i) {
        render(t, cameras[i], true, whole[i], false, 2.0f);
    }
    // Rows alone (four blocks of 36: even sizes), then rows and columns (5 x 4 blocks of 41 x 36).
    for (const auto& [rows, columns, across, layers] :
         {std::tuple{37, 0, 1, 4}, std::tuple{37, 50, 5, 20}}) {
        t.gpu.destroyShadows();
        ASSERT_TRUE(t.gpu.createShadows(rows, columns));
        t.gpu.uploadShadows(t.sunlight->bytes().data());
        EXPECT_EQ(t.gpu.shadowRowsPerLayer, 36);
        EXPECT_EQ(t.gpu.shadowColumnsPerLayer, columns == 0 ? 203 : 41);
        EXPECT_EQ(t.gpu.shadowLayersAcross, across);
        GLint made = 0;
        glBindTexture(GL_TEXTURE_2D_ARRAY, t.gpu.shadows);
        glGetTexLevelParameteriv(GL_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_DEPTH, &made);
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        EXPECT_EQ(made, layers);
        std::vector<uint8_t> split;
        for (size_t i = 0; i < cameras.size(); ++i) {
            render(t, cameras[i], true, split, false, 2.0f);
            ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
            EXPECT_EQ(differingPixels(whole[i], split), 0u)
                << "camera " << i << ", layers of " << rows << " rows, " << columns << " columns";
        }
    }
    t.destroy();
}

// A new Sun's shadows reach the GPU a slice a frame: until the last slice, every frame draws the
// shadows before and is lit from their Sun, pixel for pixel; after it, the picture is the new
// Sun's, pixel for pixel the picture of its shadows uploaded whole (into one layer; here four).
TEST(Sun, NewShadowsArriveInSlicesAndChangeThePictureWhole) {
    REQUIRE_GL();
    Result<Terrain> terrain =
        makeTerrain(syntheticHeightmap(203, 141, uint32_t(203 * 29 + 141)), 4, "sun slices");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    const std::vector<Camera> cameras = randomCameras(t, 4, 53u);
    const auto pictures = [&](std::vector<std::vector<uint8_t>>& out) {
        out.resize(cameras.size());
        for (size_t i = 0; i < cameras.size(); ++i) {
            render(t, cameras[i], true, out[i], false, 2.0f);
        }
    };
    std::vector<std::vector<uint8_t>> before, after, now;
    {
        const SunOn second(t, kTestSuns[1]);
        pictures(after);
    }
    const SunOn first(t, kTestSuns[0]);
    // Layers of 37 rows: the slices' copy into the texture spans four of them.
    t.gpu.destroyShadows();
    ASSERT_TRUE(t.gpu.createShadows(37));
    t.gpu.uploadShadows(t.sunlight->bytes().data());
    pictures(before);
    t.sunlight->request(kTestSuns[1]);
    t.sunlight->waitIdle();
    const size_t slice = size_t(203) * 141 / 3 + 1;  // three slices
    int calls = 0;
    bool arrived = false;
    while (!arrived && calls < 10) {
        arrived = updateTerrainSun(t, gl().renderer, slice);
        ++calls;
        if (!arrived) {
            ASSERT_TRUE(t.gpu.shadowUploading());
            EXPECT_EQ(gl().renderer.sun->azimuth, kTestSuns[0].azimuth);
            pictures(now);
            for (size_t i = 0; i < cameras.size(); ++i) {
                EXPECT_EQ(differingPixels(before[i], now[i]), 0u)
                    << "camera " << i << ", slice " << calls;
            }
        }
    }
    EXPECT_TRUE(arrived);
    EXPECT_EQ(calls, 3);
    EXPECT_FALSE(t.gpu.shadowUploading());
    EXPECT_EQ(gl().renderer.sun->azimuth, kTestSuns[1].azimuth);
    pictures(now);
    for (size_t i = 0; i < cameras.size(); ++i) {
        EXPECT_EQ(differingPixels(after[i], now[i]), 0u) << "camera " << i;
        EXPECT_GT(differingPixels(before[i], now[i]), 0u) << "camera " << i;
    }
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    t.destroy();
}

// The same on a real map (skipped when the shared maps are absent).
TEST(Sun, CulledFramesEqualUnculledFramesOnARealMap) {
    REQUIRE_GL();
    const std::string path = sharedMap("puget_sound_1025x1025.png");
    SKIP_WITHOUT_SHARED_MAP(path);
    Result<Terrain> terrain = loadTerrain(path, {}, 8);
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    t.finishErrors();
    const std::vector<Camera> cameras = randomCameras(t, 8, 97u);
    {
        const SunOn on(t, kTestSuns[0]);
        ASSERT_NE(t.gpu.shadows, 0u);
        expectCulledEqualsUnculled(t, cameras);
        expectCulledEqualsUnculled(t, cameras, nullptr, 2.0f);
    }
    t.destroy();
}

// A flat map with a wall along a column: a sample east of it is in the wall's shadow under a
// low Sun from the west and lit under the same Sun from the east. Seen from straight above, its
// pixel is darker in shadow; a sample far west of the wall, lit both ways on level ground (the
// same diffuse term), is drawn the same. Without a Sun the picture is the fixed light's.
TEST(Sun, ASampleInShadowIsDrawnDarkerThanLit) {
    REQUIRE_GL();
    const int w = 129, h = 65, wallColumn = 100;
    Result<Terrain> terrain = walledTerrain(w, h, {wallColumn}, 30.0f, "wall");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    const auto pixelAbove = [&](int col) { return centreAbove(t, col, 30.0f); };
    // 30 / tan(20 degrees): 82 samples of shadow behind the wall.
    const int east = wallColumn + 15;
    const int west = 5;
    const std::array<int, 3> fixedLight = pixelAbove(east);
    std::array<int, 3> shadowed{}, lit{}, westShadowed{}, westLit{};
    {
        const SunOn on(t, {270.0, 20.0});
        ASSERT_NE(t.gpu.shadows, 0u);
        EXPECT_EQ(lightSun(t.sunlight->bytes()[size_t(h / 2) * size_t(w) + size_t(east)]), 0.0f);
        shadowed = pixelAbove(east);
        westShadowed = pixelAbove(west);
    }
    {
        const SunOn on(t, {90.0, 20.0});
        EXPECT_EQ(lightSun(t.sunlight->bytes()[size_t(h / 2) * size_t(w) + size_t(east)]), 1.0f);
        lit = pixelAbove(east);
        westLit = pixelAbove(west);
    }
    for (int k = 0; k < 3; ++k) {
        EXPECT_LT(shadowed[size_t(k)] + 10, lit[size_t(k)]) << "channel " << k;
        EXPECT_NEAR(westShadowed[size_t(k)], westLit[size_t(k)], 1) << "channel " << k;
    }
    EXPECT_FALSE(gl().renderer.sun.has_value());
    EXPECT_EQ(pixelAbove(east), fixedLight);
    t.destroy();
}

// Sky light: on a flat map with a narrow north-south gorge (walls 30 high, 6 apart), the gorge's
// floor and the open plain, both lit by a high southern Sun along the gorge and both level, are
// drawn alike but for the ambient light, which the walls cut by the share of sky they hide: the
// floor is drawn darker. The same floor under the fixed light is drawn as the plain is.
TEST(Sun, TheSkyAGorgeHidesDarkensItsFloor) {
    REQUIRE_GL();
    const int w = 129, h = 65, west = 60, east = 66;
    Result<Terrain> terrain = walledTerrain(w, h, {west, east}, 30.0f, "gorge");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    const auto pixelAbove = [&](int col) { return centreAbove(t, col, 10.0f); };
    const int floor = (west + east) / 2, plain = 10;
    const std::array<int, 3> fixedFloor = pixelAbove(floor), fixedPlain = pixelAbove(plain);
    std::array<int, 3> floorLit{}, plainLit{};
    {
        const SunOn on(t, {180.0, 70.0});
        const LightBuffer& bytes = t.sunlight->bytes();
        const size_t middle = size_t(h / 2) * size_t(w);
        ASSERT_EQ(lightSun(bytes[middle + size_t(floor)]), 1.0f);
        ASSERT_EQ(lightSun(bytes[middle + size_t(plain)]), 1.0f);
        EXPECT_LT(lightSky(bytes[middle + size_t(floor)]), 0.5f);
        EXPECT_GT(lightSky(bytes[middle + size_t(plain)]), 0.9f);
        floorLit = pixelAbove(floor);
        plainLit = pixelAbove(plain);
    }
    const auto sum = [](std::array<int, 3> c) { return c[0] + c[1] + c[2]; };
    EXPECT_LT(sum(floorLit) + 24, sum(plainLit));
    for (int k = 0; k < 3; ++k) {
        EXPECT_LE(floorLit[size_t(k)], plainLit[size_t(k)]) << "channel " << k;
        EXPECT_NEAR(fixedFloor[size_t(k)], fixedPlain[size_t(k)], 1) << "channel " << k;
    }
    t.destroy();
}

// The ray sky.glsl takes for pixel (x, y) of `camera`'s kWidth x kHeight view, row 0 at the top
// (readPixels' order): its centre unprojected as the shader unprojects gl_FragCoord.
glm::dvec3 pixelRay(const Camera& camera, int x, int y) {
    const glm::mat4 unproject = glm::inverse(camera.viewProjectionFromEye());
    const glm::vec4 ndc((float(x) + 0.5f) / kWidth * 2.0f - 1.0f,
                        (float(kHeight - 1 - y) + 0.5f) / kHeight * 2.0f - 1.0f, 0.0f, 1.0f);
    const glm::vec4 p = unproject * ndc;
    return glm::normalize(glm::dvec3(p.x, p.y, p.z) / double(p.w));
}

// The colour sky.glsl gives that pixel under `sun`, by the GL-free model
// (core/light/daylight_sky.h).
std::array<int, 3> skyModelColour(const Camera& camera, SunDirection sun, int x, int y) {
    const DaylightSky sky = daylightSky(sun);
    const glm::dvec3 c = skyDisplayColour(skyXyY(sky, pixelRay(camera, x, y)), sky.twilight);
    return {int(std::lround(c.x * 255.0)), int(std::lround(c.y * 255.0)),
            int(std::lround(c.z * 255.0))};
}

int colourDistance(const std::vector<uint8_t>& pixels, int x, int y, std::array<int, 3> colour) {
    const uint8_t* p = &pixels[(size_t(y) * kWidth + size_t(x)) * 4];
    int most = 0;
    for (int k = 0; k < 3; ++k) {
        most = std::max(most, std::abs(int(p[k]) - colour[size_t(k)]));
    }
    return most;
}

// Whether the context's texture filter is a software rasteriser's, which weighs texels in exact
// floats; a GPU's weighs them in steps of 1/256 (the sub-texel precision the GL leaves to the
// implementation), so that the same colour read through other coordinates can round a step apart.
bool exactTextureFilter() {
    const char* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return name != nullptr && isSoftwareRasteriser(name);
}

// Under a Sun the sky pass paints every pixel nothing else drew with Preetham et al.'s sky, read
// from the table the CPU fills (core/light/daylight_sky.h's skyTable): the GPU's colour equals the
// GL-free model's for the pixel's ray within 3 of 255 through an exact filter (4 through a GPU's,
// as on an NVIDIA H200 in twilight), above the horizon and below it (the mirror image), by day
// and in twilight; within 3 degrees of the Sun, where the circumsolar glow of a Sun on the
// horizon bends fastest between the table's texels, within 12. Seen from beside a map, looking
// away from it.
TEST(Sky, ThePassDrawsTheModelsColourForEveryPixelsRay) {
    REQUIRE_GL();
    Result<Terrain> terrain = makeTerrain(syntheticHeightmap(65, 65, 65u), 4, "sky");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    Camera c;
    c.aspect = float(kWidth) / kHeight;
    c.position = {-200.0f, 40.0f, 32.0f};
    c.yaw = glm::pi<float>();  // along -x: west, away from the map
    c.pitch = 0.1f;
    fitClipPlanes(c, t.map, t.mapping);
    for (const SunDirection sun : {SunDirection{260.0, 10.0}, SunDirection{300.0, 35.0},
                                   SunDirection{90.0, 60.0}, SunDirection{250.0, -4.0}}) {
        const SunOn on(t, sun);
        std::vector<uint8_t> pixels;
        const FrameStats stats = render(t, c, true, pixels);
        EXPECT_EQ(stats.cull.leavesDrawn, 0u);
        const glm::dvec3 toSun = glm::dvec3(daylightSky(sun).toSun);
        int compared = 0, worst = 0, worstNearSun = 0;
        for (int y = 0; y < kHeight; ++y) {
            for (int x = 0; x < kWidth; ++x) {
                const double fromSun = glm::degrees(std::acos(glm::dot(pixelRay(c, x, y), toSun)));
                if (fromSun < 0.4) {
                    continue;  // the disc and its rim
                }
                const int d = colourDistance(pixels, x, y, skyModelColour(c, sun, x, y));
                (fromSun < 3.0 ? worstNearSun : worst) =
                    std::max(fromSun < 3.0 ? worstNearSun : worst, d);
                ++compared;
            }
        }
        EXPECT_GT(compared, kWidth * kHeight * 9 / 10);
        EXPECT_LE(worst, exactTextureFilter() ? 3 : 4)
            << "Sun " << sun.azimuth << ", " << sun.elevation;
        EXPECT_LE(worstNearSun, 12) << "Sun " << sun.azimuth << ", " << sun.elevation;
    }
    t.destroy();
}

// The haze fades what lies far into the sky's own colour in the same direction. A level map in
// metres 100 km long at 10 m, with a wall 2,500 m high facing the eye 98 km off, seen through a
// 5 degree lens from 1,300 m: the wall keeps under a quarter of its contrast with the sky behind
// the haze (60 km range, thinning with height) and ground 20 km off over a third; with the fog
// off everything keeps all of it; and with the far plane just beyond the wall, where the fog's
// fade completes, the wall is drawn as the model's sky for each pixel's ray: the haze's colour
// and the horizon's agree, so the far plane leaves no edge.
TEST(Sky, HazeFadesDistantGroundIntoTheSkysColourAtTheHorizon) {
    REQUIRE_GL();
    const int w = 1001, h = 33, wallColumn = 980;
    std::vector<float> samples(size_t(w) * size_t(h), 10.0f);
    for (int row = 0; row < h; ++row) {
        for (int col = wallColumn; col < w; ++col) {
            samples[size_t(row) * size_t(w) + size_t(col)] = 2500.0f;
        }
    }
    Result<Heightmap> map = makeHeightmap(w, h, samples);
    ASSERT_TRUE(map) << map.error();
    Result<Terrain> terrain = makeTerrain(map.value(), 4, "haze");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    t.mapping = WorldMapping(100.0f, 1.0f, 0.0f);  // 100 m a sample, heights in metres
    t.gpu.metres = true;
    const SunDirection sun{200.0, 30.0};
    const SunOn on(t, sun);
    Camera c;
    c.aspect = float(kWidth) / kHeight;
    c.fovY = glm::radians(5.0f);
    c.position = {0.0f, 1300.0f, 1600.0f};
    c.yaw = 0.0f;  // along +x, towards the wall
    c.pitch = -0.02f;
    fitClipPlanes(c, t.map, t.mapping);
    const int x = kWidth / 2;
    const float wallX = float(wallColumn) * 100.0f;
    // Where pixel row y's ray meets the wall's face (its height there), or -1.
    const auto wallHeightAt = [&](int y) {
        const glm::dvec3 ray = pixelRay(c, x, y);
        const double height = double(c.position.y) + (wallX - c.position.x) / ray.x * ray.y;
        return height > 50.0 && height < 2450.0 ? height : -1.0;
    };
    const auto fromSky = [&](const std::vector<uint8_t>& pixels, const Camera& camera, int y) {
        return colourDistance(pixels, x, y, skyModelColour(camera, sun, x, y));
    };
    std::vector<uint8_t> hazed, clear;
    render(t, c, true, hazed);
    gl().renderer.fog.on = false;
    render(t, c, true, clear);
    gl().renderer.fog.on = true;
    int wallRows = 0;
    const int near = kHeight - 1;
    ASSERT_LT(wallHeightAt(near), 0.0);
    for (int y = 0; y < kHeight; ++y) {
        if (wallHeightAt(y) < 0.0) {
            continue;
        }
        ++wallRows;
        EXPECT_GT(fromSky(clear, c, y), 60) << "row " << y;
        EXPECT_LT(fromSky(hazed, c, y) * 4, fromSky(clear, c, y)) << "row " << y;
    }
    EXPECT_GT(wallRows, 20);
    EXPECT_GT(fromSky(clear, c, near), 60);
    EXPECT_GT(fromSky(hazed, c, near) * 3, fromSky(clear, c, near));
    // The far plane just beyond the wall.
    Camera edge = c;
    edge.farPlane = wallX * 1.01f;
    std::vector<uint8_t> faded;
    render(t, edge, true, faded);
    for (int y = 0; y < kHeight; ++y) {
        if (wallHeightAt(y) >= 0.0) {
            EXPECT_LE(fromSky(faded, edge, y), 3) << "row " << y;
        }
    }
    t.destroy();
}

// The mean brightness of the pixels objects cover (those `with` changes from `without`) west and
// east of the wall along column `wallColumn` (beyond its own pixels), seen by `c` from straight
// above; each side must have more than 200.
std::array<double, 2> objectSides(const Camera& c, int wallColumn,
                                  const std::vector<uint8_t>& without,
                                  const std::vector<uint8_t>& with) {
    double sum[2] = {0.0, 0.0};
    int n[2] = {0, 0};
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) {
            const size_t p = (size_t(y) * kWidth + size_t(x)) * 4;
            // The ground point under the pixel: its column west or east of the wall.
            const glm::dvec3 ray = pixelRay(c, x, y);
            const double column = c.position.x + ray.x * (c.position.y / -ray.y);
            if (std::fabs(column - wallColumn) < 4.0 ||
                std::equal(&without[p], &without[p] + 3, &with[p])) {
                continue;
            }
            const int side = column < wallColumn ? 0 : 1;
            sum[side] += with[p] + with[p + 1] + with[p + 2];
            ++n[side];
        }
    }
    EXPECT_GT(n[0], 200);
    EXPECT_GT(n[1], 200);
    return {sum[0] / std::max(n[0], 1), sum[1] / std::max(n[1], 1)};
}

// Objects receive the terrain's light: on a flat map with a wall along a column, a low Sun from
// the west shadows the ground east of the wall, one from the east the ground west of it. Seen
// from straight above, the pixels objects cover (those that differ from the same view without
// them) on each side are darker on average under the Sun that shadows that side than under the
// other (the same objects, lit from opposite sides at the same elevation).
TEST(Sun, ObjectsInTheTerrainsShadowAreDrawnDarker) {
    REQUIRE_GL();
    const int w = 129, h = 65, wallColumn = 64;
    Result<Terrain> terrain = walledTerrain(w, h, {wallColumn}, 60.0f, "objects in shadow");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    Camera c;
    c.aspect = float(kWidth) / kHeight;
    c.position = {float(w / 2), 120.0f, float(h / 2)};
    c.pitch = -glm::half_pi<float>();
    fitClipPlanes(c, t.map, t.mapping);
    const uint32_t count = 3000;
    Result<ObjectScene> scene = ObjectScene::scatter(t.map, t.mapping, count, 0, 5u);
    ASSERT_TRUE(scene) << scene.error();
    gl().objects.reserve(count);
    // Mean brightness of object pixels west and east of the wall.
    const auto sides = [&]() {
        std::vector<uint8_t> bare, with;
        render(t, c, true, bare);
        t.setObjects(std::make_unique<ObjectScene>(scene.value()));
        render(t, c, true, with);
        t.setObjects(nullptr);
        return objectSides(c, wallColumn, bare, with);
    };
    std::array<double, 2> fromWest{}, fromEast{};
    {
        const SunOn on(t, {270.0, 25.0});
        const size_t east = size_t(h / 2) * size_t(w) + size_t(wallColumn + 20);
        ASSERT_EQ(lightSun(t.sunlight->bytes()[east]), 0.0f);
        fromWest = sides();
    }
    {
        const SunOn on(t, {90.0, 25.0});
        const size_t west = size_t(h / 2) * size_t(w) + size_t(wallColumn - 20);
        ASSERT_EQ(lightSun(t.sunlight->bytes()[west]), 0.0f);
        fromEast = sides();
    }
    // Each side's objects (the same ones, symmetric about the vertical) in shadow and in light.
    EXPECT_LT(fromWest[1] + 40.0, fromEast[1]) << "east of the wall";
    EXPECT_LT(fromEast[0] + 40.0, fromWest[0]) << "west of the wall";
    t.destroy();
}

// Objects on a streamed terrain take the terrain's light from its pages: with every level-0 page
// resident (a view of the whole rough map), the picture of 3,000 objects beside a wall, half of
// them in its shadow, is the loaded terrain's, pixel for pixel, under Suns from either side. With a
// pool of two layers most bases' pages are out, and they read level 1's nearest sample, or level
// 2's where level 1's page is out too: the shadowed side's objects are still drawn darker than the
// lit side's.
TEST(Sun, ObjectsOnAStreamedTerrainTakeTheLightOfItsPages) {
    REQUIRE_GL_STRICT();
    const int w = 129, h = 65, wallColumn = 64;
    // Ground rough enough (up to 2 units) that the selection takes level 0 everywhere in view.
    std::vector<float> samples(size_t(w) * size_t(h));
    uint32_t state = 12345u;
    for (float& s : samples) {
        state = state * 1664525u + 1013904223u;
        s = 2.0f * float(state >> 8) / float(1u << 24);
    }
    for (int row = 0; row < h; ++row) {
        samples[size_t(row) * size_t(w) + size_t(wallColumn)] = 60.0f;
    }
    Result<Heightmap> map = makeHeightmap(w, h, samples);
    ASSERT_TRUE(map) << map.error();
    Result<Terrain> full = makeTerrain(map.value(), 4, "full", 8);
    Result<Terrain> streamed = streamedTerrain(map.value());
    Result<Terrain> small = streamedTerrain(map.value(), 2);
    ASSERT_TRUE(full) << full.error();
    ASSERT_TRUE(streamed) << streamed.error();
    ASSERT_TRUE(small) << small.error();
    Camera c;
    c.aspect = float(kWidth) / kHeight;
    c.position = {float(w / 2), 120.0f, float(h / 2)};
    c.pitch = -glm::half_pi<float>();
    fitClipPlanes(c, full.value().map, full.value().mapping);
    const uint32_t count = 3000;
    const WorldMapping mapping(1.0f, 1.0f, 0.0f);
    Result<ObjectScene> scene = ObjectScene::scatter(map.value(), mapping, count, 0, 5u);
    ASSERT_TRUE(scene) << scene.error();
    for (Terrain* t : {&full.value(), &streamed.value(), &small.value()}) {
        t->mapping = mapping;
        t->setObjects(std::make_unique<ObjectScene>(scene.value()));
    }
    gl().objects.reserve(count);
    const PageLevel& level0 = streamed.value().gpu.pages.level[0];
    const PageLevel& level1 = streamed.value().gpu.pages.level[1];
    ASSERT_EQ(streamed.value().gpu.pages.pooledLevels, 2);
    std::vector<uint8_t> expected, pixels, bare;
    for (const SunDirection sun : {SunDirection{270.0, 25.0}, SunDirection{90.0, 25.0}}) {
        const SunOn fullOn(full.value(), sun);
        const SunOn streamedOn(streamed.value(), sun);
        const SunOn smallOn(small.value(), sun);
        ASSERT_TRUE(streamed.value().gpu.lightPaged());
        render(full.value(), c, true, expected, false, 1.0f);
        streamed.value().settleStreaming(CullView{c, kHeight, true, true, 1.0f});
        render(streamed.value(), c, true, pixels, false, 1.0f);
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        // Every page of levels 0 and 1: level 1's are all within the shading reach of this eye.
        ASSERT_EQ(streamed.value().streamStats().resident,
                  level0.pagesX * level0.pagesY + level1.pagesX * level1.pagesY);
        EXPECT_EQ(differingPixels(expected, pixels), 0u) << "Sun from " << sun.azimuth;

        small.value().settleStreaming(CullView{c, kHeight, true, true, 1.0f});
        render(small.value(), c, true, pixels, false, 1.0f);
        small.value().setObjects(nullptr);
        render(small.value(), c, true, bare, false, 1.0f);
        small.value().setObjects(std::make_unique<ObjectScene>(scene.value()));
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        ASSERT_LE(small.value().streamStats().resident, 2);
        const std::array<double, 2> lit = objectSides(c, wallColumn, bare, pixels);
        const int shadowed = sun.azimuth > 180.0 ? 1 : 0;  // the side away from the Sun
        EXPECT_LT(lit[size_t(shadowed)] + 25.0, lit[size_t(1 - shadowed)])
            << "Sun from " << sun.azimuth;
    }
    for (Terrain* t : {&full.value(), &streamed.value(), &small.value()}) {
        t->setObjects(nullptr);
        t->destroy();
    }
}

// The pixels of `with` that differ from `without`: what the objects cover.
std::vector<uint8_t> coveredPixels(const std::vector<uint8_t>& without,
                                   const std::vector<uint8_t>& with) {
    std::vector<uint8_t> covered(without.size() / 4, 0);
    for (size_t p = 0; p < covered.size(); ++p) {
        covered[p] = std::equal(&without[4 * p], &without[4 * p] + 3, &with[4 * p]) ? 0 : 1;
    }
    return covered;
}

// Impostors stand for their meshes. Objects on a level map seen from above at 23 degrees, 3 to 30
// pixels tall, drawn as their fine meshes alone, as impostors alone (ObjectDetail forcing either)
// and in the band between (each both ways, the impostor's share growing with the distance): the
// impostors cover the meshes' pixels but for their outlines (the exact round shapes against
// meshes of 10 sides and 320 triangles, within 5% of all the pixels either covers), in nearly the
// same colours (the same normals and light); in the band every pixel both alone cover is covered
// (the dither's two shares of a pixel make it whole), none that neither covers; and the CPU's pick
// of each pixel's ray finds an object exactly where the impostors cover it.
TEST(ObjectImpostors, CoverTheirMeshesPixelsAndTheBandLeavesNoGap) {
    REQUIRE_GL();
    Result<Terrain> terrain = walledTerrain(257, 257, {}, 0.0f, "level");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    Camera c;
    c.aspect = float(kWidth) / kHeight;
    c.lookAt({128.0f, 60.0f, 300.0f}, {128.0f, 0.0f, 160.0f});
    fitClipPlanes(c, t.map, t.mapping);
    const uint32_t count = 600;
    Result<ObjectScene> scene = ObjectScene::scatter(t.map, t.mapping, count, 60, 11u, 1.5f);
    ASSERT_TRUE(scene) << scene.error();
    gl().objects.reserve(count);
    std::vector<uint8_t> bare, meshes, impostors, band;
    render(t, c, true, bare);
    t.setObjects(std::make_unique<ObjectScene>(std::move(scene).value()));
    const ObjectDetail standard = gl().objects.detail;
    struct Drawn {
        std::array<uint32_t, kObjectMeshes> idCounts, counts;
        std::array<uint32_t, 2> inBoth, bandIds, bandWhole;
    };
    const auto drawnWith = [&](ObjectDetail detail, std::vector<uint8_t>& pixels) {
        gl().objects.detail = detail;
        render(t, c, true, pixels);
        gl().objects.detail = standard;
        const ObjectInstances& in = gl().objects.instances;
        return Drawn{in.idCounts, in.counts, in.inBoth, in.bandIds, in.bandWhole};
    };
    const Drawn asMeshes = drawnWith({0.0f, 0.0f}, meshes);
    ASSERT_EQ(asMeshes.idCounts[1] + asMeshes.idCounts[3] + asMeshes.counts[1] + asMeshes.counts[3],
              0u);
    const Drawn asImpostors = drawnWith({1e9f, 1e9f}, impostors);
    ASSERT_EQ(asImpostors.idCounts[0] + asImpostors.idCounts[2] + asImpostors.counts[0] +
                  asImpostors.counts[2],
              0u);
    // The band from 4 sizes away (kNearestImpostor) to about twice the farthest object's
    // distance: every object in it, the impostor's share from about 1 to 15 of 31.
    const Drawn inBand = drawnWith({1e9f, 2.0f}, band);
    ASSERT_GT(inBand.inBoth[0], 200u);
    ASSERT_GT(inBand.inBoth[1], 30u);
    // Each in the band is at the end of its fine mesh's list, drawn by the program that dithers
    // (the only mesh program that discards).
    ASSERT_EQ(inBand.bandIds[0] + inBand.bandWhole[0], inBand.inBoth[0]);
    ASSERT_EQ(inBand.bandIds[1] + inBand.bandWhole[1], inBand.inBoth[1]);
    ASSERT_NE(gl().objects.programs.program(2 * kObjectPrograms + kObjectsFixedLight).id, 0u);
    const std::vector<uint8_t> m = coveredPixels(bare, meshes);
    const std::vector<uint8_t> i = coveredPixels(bare, impostors);
    const std::vector<uint8_t> b = coveredPixels(bare, band);
    size_t either = 0, onlyOne = 0, both = 0, bandMissing = 0, bandOutside = 0;
    double colourDifference = 0.0;
    for (size_t p = 0; p < m.size(); ++p) {
        either += m[p] | i[p];
        onlyOne += m[p] ^ i[p];
        if (m[p] && i[p]) {
            ++both;
            bandMissing += b[p] ? 0 : 1;
            for (int k = 0; k < 3; ++k) {
                colourDifference += std::abs(int(meshes[4 * p + k]) - int(impostors[4 * p + k]));
            }
        }
        bandOutside += b[p] && !m[p] && !i[p] ? 1 : 0;
    }
    std::printf(
        "objects cover %zu pixels: %zu by one way alone, %zu by both; mean colour "
        "difference %.2f a channel; the band (%u trees, %u spheres) misses %zu, adds %zu\n",
        either, onlyOne, both, colourDifference / double(3 * std::max<size_t>(both, 1)),
        inBand.inBoth[0], inBand.inBoth[1], bandMissing, bandOutside);
    EXPECT_GT(either, 3000u) << "too few object pixels to compare";
    EXPECT_LT(double(onlyOne), 0.05 * double(either));
    EXPECT_LT(colourDifference / double(3 * std::max<size_t>(both, 1)), 4.0);
    EXPECT_LT(double(bandMissing), 0.002 * double(both));
    EXPECT_EQ(bandOutside, 0u);
    // Picking names what the impostors show: the ray through a pixel's centre meets an object
    // before the terrain (pickObjectBefore, the shapes' closed forms in double) exactly where an
    // impostor covers the pixel, but for a few rays grazing an outline.
    size_t disagree = 0;
    for (int y = 0; y < kHeight; ++y) {
        for (int x = 0; x < kWidth; ++x) {
            const PickRay ray = pixelRay(c, float(x) + 0.5f, float(y) + 0.5f, kWidth, kHeight);
            const PickHit ground = pickTerrain(t.map, t.tree, t.mapping, ray);
            const bool picked = pickObjectBefore(*t.objects, ray, ground).has_value();
            disagree += picked != (i[size_t(y) * kWidth + size_t(x)] != 0) ? 1 : 0;
        }
    }
    std::printf("the pick disagrees with the impostors at %zu of their %zu pixels\n", disagree,
                size_t(std::count(i.begin(), i.end(), uint8_t(1))));
    EXPECT_LT(double(disagree), 0.005 * double(either));
    if (const char* dump = std::getenv("QT_DUMP_IMPOSTORS")) {
        writeRgbaAsRgbPng(std::string(dump) + "_meshes.png", kWidth, kHeight, meshes);
        writeRgbaAsRgbPng(std::string(dump) + "_impostors.png", kWidth, kHeight, impostors);
        writeRgbaAsRgbPng(std::string(dump) + "_band.png", kWidth, kHeight, band);
    }
    t.destroy();
}

// Imagery on the fixture's renderer for a test's scope: `imagery` on the terrain's GPU, the
// renderer's style set; at its end the terrain's own colours and the default style again (the
// renderer is shared by every test).
class ImageryOn {
public:
    // Pages of `pageTexels` stored as `compression` says in a pool of `layers` (0: every page).
    ImageryOn(Terrain& terrain, const Imagery& imagery, ImageryStyle style = {},
              int pageTexels = kImageryPageTexels, int layers = 0,
              ImageryCompression compression = ImageryCompression::None)
        : terrain_(terrain) {
        Result<OpenedImagery> opened =
            openImageryTexels(imagery, terrain.map.width, terrain.map.height, pageTexels);
        EXPECT_TRUE(opened) << opened.error();
        if (opened) {
            const int pool = layers > 0 ? layers : opened.value().plan.pages;
            const Status set =
                setTerrainImagery(terrain, std::move(opened).value(), pool, compression);
            EXPECT_TRUE(set) << set.error();
        }
        gl().renderer.imagery = style;
    }
    ~ImageryOn() {
        clearTerrainImagery(terrain_);
        gl().renderer.imagery = ImageryStyle{};
    }
    ImageryOn(const ImageryOn&) = delete;
    ImageryOn& operator=(const ImageryOn&) = delete;

private:
    Terrain& terrain_;
};

// Imagery of width x height texels whose colour changes along both axes and at every texel (so
// that any misplacement changes the picture), with a band along the west edge the imagery does
// not cover (alpha 0) and a few texels half covered.
Imagery patternImagery(int width, int height) {
    Imagery imagery;
    imagery.width = width;
    imagery.height = height;
    imagery.rgba.resize(size_t(width) * size_t(height) * 4);
    for (int j = 0; j < height; ++j) {
        for (int i = 0; i < width; ++i) {
            uint8_t* t = &imagery.rgba[(size_t(j) * size_t(width) + size_t(i)) * 4];
            t[0] = uint8_t(i * 255 / std::max(width - 1, 1));
            t[1] = uint8_t(j * 255 / std::max(height - 1, 1));
            t[2] = uint8_t(((i / 3) ^ (j / 5)) * 37);
            t[3] = i < width / 10 ? 0 : (i + j) % 17 == 0 ? 128 : 255;
        }
    }
    imagery.info.source = "pattern";
    imagery.info.coverage = 0.9;
    return imagery;
}

// With imagery, the terrain is drawn by the imagery programs: culled frames still equal
// unculled ones at full detail and by level of detail, with and without holes (the imagery hole
// program), lit and unlit, with a Sun, at four texels a sample and at less than one.
TEST(Imagery, CulledFramesEqualUnculledFramesOnSyntheticMaps) {
    REQUIRE_GL();
    const int w = 203, h = 141;
    const Heightmap plain = syntheticHeightmap(w, h, uint32_t(w * 31 + h));
    const Heightmap holes = withSyntheticHoles(plain);
    for (const Heightmap* map : {&plain, &holes}) {
        Result<Terrain> terrain = makeTerrain(*map, 4, "imagery", 8);
        ASSERT_TRUE(terrain) << terrain.error();
        Terrain& t = terrain.value();
        const std::vector<Camera> cameras = randomCameras(t, 10, 53u);
        {
            const ImageryOn on(t, patternImagery((w - 1) * 4, (h - 1) * 4));
            ASSERT_TRUE(t.gpu.imagery.present());
            expectCulledEqualsUnculled(t, cameras);
            expectCulledEqualsUnculled(t, cameras, nullptr, 1.0f);
            expectCulledEqualsUnculled(t, cameras, nullptr, 8.0f);
        }
        {
            const ImageryOn on(t, patternImagery(77, 50), ImageryStyle{true, 0.6f, false});
            const SunOn sun(t, kTestSuns[0]);
            expectCulledEqualsUnculled(t, cameras);
            expectCulledEqualsUnculled(t, cameras, nullptr, 2.0f);
        }
        t.destroy();
    }
}

// The same on a real map with imagery at twice its density (skipped when the shared maps are
// absent).
TEST(Imagery, CulledFramesEqualUnculledFramesOnARealMap) {
    REQUIRE_GL();
    const std::string path = sharedMap("puget_sound_1025x1025.png");
    SKIP_WITHOUT_SHARED_MAP(path);
    Result<Terrain> terrain = loadTerrain(path, {}, 8);
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    t.finishErrors();
    const std::vector<Camera> cameras = randomCameras(t, 8, 101u);
    {
        const ImageryOn on(t, patternImagery(2048, 2048));
        expectCulledEqualsUnculled(t, cameras);
        expectCulledEqualsUnculled(t, cameras, nullptr, 2.0f);
    }
    t.destroy();
}

// Seen from straight above a flat map, unlit and opaque, each pixel is the texel under it: a
// texture of 4 x 4 blocks of one colour each is drawn as those colours (within the sRGB round
// trip's rounding) at the blocks' centres, and where the imagery has no value (alpha 0) the
// terrain's own colour shows, the same as without imagery. Lit, the imagery is darkened or
// brightened by the light as the terrain's colours are. Opacity 0 is the terrain's picture.
TEST(Imagery, EachPixelShowsTheTexelUnderIt) {
    REQUIRE_GL();
    const int side = 129;
    Result<Heightmap> map =
        makeHeightmap(side, side, std::vector<float>(size_t(side) * side, 0.0f));
    ASSERT_TRUE(map) << map.error();
    Result<Terrain> terrain = makeTerrain(map.value(), 4, "flat");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    t.mapping = WorldMapping(1.0f, 1.0f, 0.0f);
    const Fog fog = gl().renderer.fog;
    gl().renderer.fog = Fog{false, -1.0f};
    Camera camera;
    camera.aspect = float(kWidth) / kHeight;
    camera.fovY = glm::radians(60.0f);
    camera.position = {64.0f, 150.0f, 64.0f};
    camera.pitch = -glm::half_pi<float>();
    camera.yaw = -glm::half_pi<float>();  // looking down, x to the right and z downwards
    fitClipPlanes(camera, t.map, t.mapping);
    // 16 blocks of 32 x 32 texels (4 texels a sample), block (bx, by) of colour (60 bx, 60 by,
    // 200); block (0, 0) not covered.
    Imagery blocks;
    blocks.width = blocks.height = 128;
    blocks.rgba.resize(128 * 128 * 4);
    for (int j = 0; j < 128; ++j) {
        for (int i = 0; i < 128; ++i) {
            uint8_t* p = &blocks.rgba[(size_t(j) * 128 + size_t(i)) * 4];
            p[0] = uint8_t(60 * (i / 32));
            p[1] = uint8_t(60 * (j / 32));
            p[2] = 200;
            p[3] = i < 32 && j < 32 ? 0 : 255;
        }
    }
    // The pixel over map point (x, z): the camera's view-projection.
    const glm::mat4 vp = camera.viewProjection();
    const auto pixelAt = [&](const std::vector<uint8_t>& pixels, float x, float z) {
        const glm::vec4 clip = vp * glm::vec4(x, 0.0f, z, 1.0f);
        const int px = int((clip.x / clip.w * 0.5f + 0.5f) * kWidth);
        // Rows read back top first.
        const int py = int((0.5f - clip.y / clip.w * 0.5f) * kHeight);
        const uint8_t* p = &pixels[(size_t(py) * kWidth + size_t(px)) * 4];
        return std::array<int, 3>{p[0], p[1], p[2]};
    };
    std::vector<uint8_t> own, unlit, lit, transparent;
    render(t, camera, true, own);
    {
        const ImageryOn on(t, blocks, ImageryStyle{true, 1.0f, false});
        render(t, camera, true, unlit);
    }
    {
        const ImageryOn on(t, blocks, ImageryStyle{true, 1.0f, true});
        render(t, camera, true, lit);
    }
    {
        const ImageryOn on(t, blocks, ImageryStyle{true, 0.0f, false});
        render(t, camera, true, transparent);
    }
    EXPECT_EQ(differingPixels(own, transparent), 0u);
    // Block (bx, by) spans map columns [bx, bx + 1) * 32, since 128 texels span 128 squares.
    for (int by = 0; by < 4; ++by) {
        for (int bx = 0; bx < 4; ++bx) {
            const float x = (float(bx) + 0.5f) * 32.0f, z = (float(by) + 0.5f) * 32.0f;
            const std::array<int, 3> drawn = pixelAt(unlit, x, z);
            const std::array<int, 3> terrainColour = pixelAt(own, x, z);
            const std::array<int, 3> litColour = pixelAt(lit, x, z);
            if (bx == 0 && by == 0) {
                EXPECT_EQ(drawn, terrainColour);
                continue;
            }
            const std::array<int, 3> expected{60 * bx, 60 * by, 200};
            for (size_t k = 0; k < 3; ++k) {
                EXPECT_NEAR(drawn[k], expected[k], 2) << "block " << bx << ", " << by;
            }
            // The flat map's light: the same factor on every channel (0.28 + 0.85 diffuse).
            const double factor = double(litColour[2]) / 200.0;
            EXPECT_GT(factor, 0.3);
            EXPECT_NEAR(litColour[0], expected[0] * factor, 2.5) << "block " << bx << ", " << by;
        }
    }
    gl().renderer.fog = fog;
    t.destroy();
}

// Every page of the terrain's imagery asked for and made resident (a pool of every page).
void makeEveryImageryPageResident(Terrain& t) {
    ImageryStreamer& streamer = *t.imageryStreamer;
    streamer.requestEvery();
    ImageryGpu& gpu = t.gpu.imagery;
    ASSERT_TRUE(
        streamer.settle([&gpu](int layer, uint32_t page, const uint8_t* rgba, int64_t evicted) {
            gpu.uploadPage(layer, page, rgba, evicted);
        }));
    ASSERT_EQ(streamer.stats().resident, t.gpu.imagery.plan.pages);
}

// A streamed pyramid, its pages asked for by what each frame draws, in a pool of about what the
// busiest view asks for, draws once settled what the whole pyramid resident draws, pixel for
// pixel, at full detail and by level of detail: every page a fragment reads was asked for (a page
// missing would be read from a coarser level). Frames that do not wait draw coarser levels
// meanwhile and converge to the same picture.
TEST(Imagery, StreamedPagesEqualThePyramidWhollyResident) {
    REQUIRE_GL();
    const int side = 257;
    const Heightmap map = syntheticHeightmap(side, side, 977u);
    Result<Terrain> whole = makeTerrain(map, 4, "imagery whole", 64);
    Result<Terrain> streamed = makeTerrain(map, 4, "imagery streamed", 64);
    ASSERT_TRUE(whole && streamed);
    Terrain& w = whole.value();
    Terrain& t = streamed.value();
    const Imagery texels = patternImagery(4 * (side - 1), 4 * (side - 1));
    const std::vector<Camera> cameras = randomCameras(w, 12, 211u);
    const ImageryOn allOn(w, texels, ImageryStyle{}, 32);
    makeEveryImageryPageResident(w);
    const int pages = w.gpu.imagery.plan.pages;
    // The pool: what the busiest view asks for, and a few.
    int busiest = 0;
    std::vector<uint8_t> reference, drawn;
    for (const Camera& c : cameras) {
        for (const float lod : {0.0f, 1.0f}) {
            render(w, c, true, reference, false, lod);
            busiest = std::max(busiest, w.imageryStreamer->stats().wanted);
        }
    }
    const int pool = busiest + 4;
    ASSERT_LT(pool, pages / 2) << "the views ask for most of the pyramid: no test of streaming";
    {
        const ImageryOn on(t, texels, ImageryStyle{}, 32, pool);
        for (size_t i = 0; i < cameras.size(); ++i) {
            for (const float lod : {0.0f, 1.0f}) {
                render(w, cameras[i], true, reference, false, lod);
                render(t, cameras[i], true, drawn, false, lod);
                const ImageryStreamStats st = t.imageryStreamer->stats();
                ASSERT_FALSE(st.starved) << "camera " << i;
                EXPECT_EQ(st.requested + st.ready, 0);
                EXPECT_EQ(differingPixels(reference, drawn), 0u)
                    << "camera " << i << ", lod " << lod;
            }
        }
        const ImageryStreamStats st = t.imageryStreamer->stats();
        EXPECT_LE(st.resident, pool);
        EXPECT_GT(st.uploadedTotal, uint64_t(pool)) << "no page was ever evicted";
        // Not waiting: a few pages a frame, coarser levels drawn meanwhile, then the same.
        gl().renderer.imagery.waitForPages = false;
        const Camera& c = cameras[1];
        render(w, c, true, reference, false, 1.0f);
        int frames = 0;
        do {
            render(t, c, true, drawn, false, 1.0f);
            const ImageryStreamStats now = t.imageryStreamer->stats();
            if (now.requested + now.ready == 0 && now.wanted > 0) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        } while (++frames < 2000);
        render(t, c, true, drawn, false, 1.0f);
        EXPECT_EQ(differingPixels(reference, drawn), 0u) << frames << " frames";
    }
    w.destroy();
    t.destroy();
}

// BC3 pages: streamed into a pool of about what the busiest view asks for, they draw once settled
// what the whole pyramid of BC3 pages resident draws, pixel for pixel; against RGBA8 pages they
// differ only by the blocks' error (texels that change at every texel, the blocks' worst case),
// in a quarter of the GPU bytes.
TEST(Imagery, Bc3PagesStreamAsRgba8PagesDoAndDrawWithinTheBlocksError) {
    REQUIRE_GL();
    if (!imageryTakesBc3()) {
        GTEST_FAIL() << "this GL takes no S3TC sRGB textures";
    }
    const int side = 257;
    const Heightmap map = syntheticHeightmap(side, side, 977u);
    Result<Terrain> whole = makeTerrain(map, 4, "bc3 whole", 64);
    Result<Terrain> streamed = makeTerrain(map, 4, "bc3 streamed", 64);
    Result<Terrain> exact = makeTerrain(map, 4, "rgba8 whole", 64);
    ASSERT_TRUE(whole && streamed && exact);
    Terrain& w = whole.value();
    Terrain& t = streamed.value();
    Terrain& e = exact.value();
    const Imagery texels = patternImagery(4 * (side - 1), 4 * (side - 1));
    const std::vector<Camera> cameras = randomCameras(w, 6, 307u);
    const ImageryOn bc3On(w, texels, ImageryStyle{}, 32, 0, ImageryCompression::Bc3);
    const ImageryOn exactOn(e, texels, ImageryStyle{}, 32);
    makeEveryImageryPageResident(w);
    makeEveryImageryPageResident(e);
    EXPECT_EQ(w.gpu.imagery.compression, ImageryCompression::Bc3);
    const ImageryPlan& plan = w.gpu.imagery.plan;
    const uint64_t table = uint64_t(plan.tableWidth) * uint64_t(plan.tableHeight) * 2;
    const uint64_t layer = uint64_t(plan.side()) * uint64_t(plan.side());
    EXPECT_EQ(w.gpu.imagery.bytes - table, uint64_t(plan.pages) * layer);
    EXPECT_EQ(e.gpu.imagery.bytes - table, uint64_t(plan.pages) * layer * 4);
    std::vector<uint8_t> reference, drawn, rgba8;
    int busiest = 0;
    for (const Camera& c : cameras) {
        for (const float lod : {0.0f, 1.0f}) {
            render(w, c, true, reference, false, lod);
            busiest = std::max(busiest, w.imageryStreamer->stats().wanted);
        }
    }
    const int pool = busiest + 4;
    ASSERT_LT(pool, w.gpu.imagery.plan.pages / 2);
    const ImageryOn on(t, texels, ImageryStyle{}, 32, pool, ImageryCompression::Bc3);
    double sum = 0.0;
    size_t channels = 0, differing = 0;
    int largest = 0;
    for (size_t i = 0; i < cameras.size(); ++i) {
        for (const float lod : {0.0f, 1.0f}) {
            render(w, cameras[i], true, reference, false, lod);
            render(t, cameras[i], true, drawn, false, lod);
            render(e, cameras[i], true, rgba8, false, lod);
            EXPECT_FALSE(t.imageryStreamer->stats().starved) << "camera " << i;
            EXPECT_EQ(differingPixels(reference, drawn), 0u) << "camera " << i << ", lod " << lod;
            for (size_t p = 0; p < rgba8.size(); p += 4) {
                for (size_t c = 0; c < 3; ++c) {
                    const int d = std::abs(int(reference[p + c]) - int(rgba8[p + c]));
                    sum += d;
                    largest = std::max(largest, d);
                    ++channels;
                }
            }
            differing += differingPixels(reference, rgba8);
        }
    }
    EXPECT_GT(t.imageryStreamer->stats().uploadedTotal, uint64_t(pool)) << "nothing evicted";
    EXPECT_GT(differing, 0u) << "BC3 drew the RGBA8 picture exactly: not compressed";
    EXPECT_LT(sum / double(channels), 3.0);
    EXPECT_LE(largest, 64);
    std::printf("BC3 against RGBA8: mean %.2f, largest %d, %zu pixels differ\n",
                sum / double(channels), largest, differing);
    w.destroy();
    t.destroy();
    e.destroy();
}

// A BC3 pool of pages whose side is not a multiple of 4 (a block's) is refused in one line.
TEST(Imagery, Bc3PagesOfASideOffTheBlocksAreRefusedInOneLine) {
    REQUIRE_GL();
    const ImageryPlan plan = planImagery(65, 65, 256, 256, 32, 3);  // 38^2 texels a page
    Result<ImageryGpu> gpu = ImageryGpu::create(plan, 4, ImageryCompression::Bc3);
    ASSERT_FALSE(gpu);
    EXPECT_NE(gpu.error().find("not whole BC3 blocks"), std::string::npos) << gpu.error();
    EXPECT_EQ(gpu.error().find('\n'), std::string::npos);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// Page borders and the levels' seams do not show: the same imagery cut into pages of 32 texels
// (a border every 32) and of 512 draws the same picture within the filter's rounding, over views
// at full detail and by level of detail: through an exact filter a step of one in under a pixel
// in a thousand; through a GPU's, whose texel weights round to 1/256 (a step of one where the
// pattern's neighbouring texels differ by up to 255), at most 4 (one a weight: two axes, two
// levels) in under a pixel in a hundred (an NVIDIA H200: at most 3, in 0.25% of the pixels).
// A seam would read a texel of the wrong place: a difference of tens.
TEST(Imagery, PageBordersDoNotShow) {
    REQUIRE_GL();
    const int side = 257;
    Result<Terrain> terrain = makeTerrain(syntheticHeightmap(side, side, 979u), 4, "borders", 64);
    ASSERT_TRUE(terrain);
    Terrain& t = terrain.value();
    const Imagery texels = patternImagery(2 * (side - 1), 2 * (side - 1));
    const std::vector<Camera> cameras = randomCameras(t, 8, 223u);
    std::vector<std::vector<uint8_t>> large;
    std::vector<uint8_t> pixels;
    {
        const ImageryOn on(t, texels, ImageryStyle{}, 512);
        makeEveryImageryPageResident(t);
        for (const Camera& c : cameras) {
            for (const float lod : {0.0f, 2.0f}) {
                render(t, c, true, pixels, false, lod);
                large.push_back(pixels);
            }
        }
    }
    const ImageryOn on(t, texels, ImageryStyle{}, 32);
    makeEveryImageryPageResident(t);
    ASSERT_GT(t.gpu.imagery.plan.level[0].pagesX, 8);
    size_t k = 0, differing = 0, total = 0;
    int largest = 0;
    for (const Camera& c : cameras) {
        for (const float lod : {0.0f, 2.0f}) {
            render(t, c, true, pixels, false, lod);
            const std::vector<uint8_t>& other = large[k++];
            for (size_t p = 0; p < pixels.size(); p += 4) {
                int most = 0;
                for (size_t ch = 0; ch < 3; ++ch) {
                    most = std::max(most, std::abs(int(pixels[p + ch]) - int(other[p + ch])));
                }
                differing += most > 0;
                largest = std::max(largest, most);
                ++total;
            }
        }
    }
    const bool exact = exactTextureFilter();
    EXPECT_LE(largest, exact ? 1 : 4) << differing << " of " << total << " pixels differ";
    EXPECT_LT(differing, total / (exact ? 1000 : 100));
    t.destroy();
}

// Imagery the GPU is given through the terrain: in use only while shown; removed, the terrain's
// own picture again, with no GL error.
TEST(Imagery, HiddenOrRemovedImageryDrawsTheTerrainsOwnColours) {
    REQUIRE_GL();
    Result<Terrain> terrain = makeTerrain(syntheticHeightmap(129, 129, 7u), 4, "imagery toggled");
    ASSERT_TRUE(terrain) << terrain.error();
    Terrain& t = terrain.value();
    std::vector<Camera> cameras = randomCameras(t, 4, 59u);
    cameras.front() =
        overviewCamera(t.map, t.mapping, float(kWidth) / kHeight, glm::radians(60.0f));
    std::vector<uint8_t> own, hidden, shown;
    for (const Camera& camera : cameras) {
        render(t, camera, true, own);
        {
            const ImageryOn on(t, patternImagery(256, 256), ImageryStyle{false, 1.0f, true});
            render(t, camera, true, hidden);
            gl().renderer.imagery.on = true;
            render(t, camera, true, shown);
        }
        EXPECT_EQ(differingPixels(own, hidden), 0u);
        if (&camera == &cameras.front()) {  // the whole map in view
            EXPECT_GT(differingPixels(own, shown), own.size() / 4 / 10);
        }
        EXPECT_FALSE(t.gpu.imagery.present());
        ASSERT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    }
    t.destroy();
}

}  // namespace
}  // namespace qt
