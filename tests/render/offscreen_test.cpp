// The offscreen renderer, the library's way to pictures without a window: a headless context of
// its own, the shaders compiled in, its pictures the viewer's --screenshot pixel for pixel, and
// culled pictures equal to unculled ones. A process of its own: it makes its own context current.
#include "render/offscreen.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <glm/trigonometric.hpp>

#include "core/terrain/world.h"

namespace qt {
namespace {

const std::string kMap = std::string(QT_SOURCE_DIR) + "/data/default_1025.png";

bool inCi() {
    const char* ci = std::getenv("CI");
    return ci != nullptr && std::string(ci) == "true";
}

// One renderer for the whole run (a context per process is what a program has).
struct Shared {
    std::unique_ptr<OffscreenRenderer> renderer;
    std::string error;
};

Shared& shared() {
    static Shared s = [] {
        Shared made;
        OffscreenOptions options;
        options.width = 320;
        options.height = 200;
        Result<OffscreenRenderer> opened = OffscreenRenderer::open(kMap, options);
        if (!opened) {
            made.error = opened.error();
        } else {
            made.renderer = std::make_unique<OffscreenRenderer>(std::move(opened).value());
        }
        return made;
    }();
    return s;
}

#define REQUIRE_RENDERER()                                                   \
    do {                                                                     \
        if (!shared().renderer) {                                            \
            if (inCi()) {                                                    \
                GTEST_FAIL() << shared().error << " (CI=true: no skipping)"; \
            }                                                                \
            GTEST_SKIP() << shared().error;                                  \
        }                                                                    \
    } while (false)

size_t differing(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    size_t count = 0;
    for (size_t i = 0; i + 3 < a.size() && i + 3 < b.size(); i += 4) {
        count += a[i] != b[i] || a[i + 1] != b[i + 1] || a[i + 2] != b[i + 2];
    }
    return count + (a.size() != b.size() ? 1 : 0);
}

// Without a headless context (CTest's offscreen_no_context points EGL's vendor-neutral loader at
// no driver, QT_TEST_NO_CONTEXT=1), opening is a failure of one line naming the context, not a
// crash: nothing made is destroyed through a GL that was never loaded.
TEST(Offscreen, WithoutAContextOpeningIsOneLine) {
    if (std::getenv("QT_TEST_NO_CONTEXT") == nullptr) {
        GTEST_SKIP() << "run by CTest's offscreen_no_context, with no EGL driver";
    }
    OffscreenOptions options;
    options.width = 64;
    options.height = 64;
    Result<OffscreenRenderer> opened = OffscreenRenderer::open(kMap, options);
    ASSERT_FALSE(opened);
    EXPECT_NE(opened.error().find("EGL"), std::string::npos) << opened.error();
    EXPECT_EQ(opened.error().find('\n'), std::string::npos) << opened.error();
}

TEST(Offscreen, CulledPicturesEqualUnculledOnesFromSeveralCameras) {
    REQUIRE_RENDERER();
    OffscreenRenderer& r = *shared().renderer;
    const WorldExtent e = worldExtent(r.view().map(), r.view().mapping());
    const std::vector<Camera> cameras = {r.overviewCamera(),
                                         r.lookAt({0.1f * e.sizeX, e.maxY + 20.0f, 0.1f * e.sizeZ},
                                                  {0.6f * e.sizeX, e.minY, 0.6f * e.sizeZ}, 1.0f),
                                         r.lookAt({0.5f * e.sizeX, e.maxY, -0.2f * e.sizeZ},
                                                  {0.5f * e.sizeX, e.minY, e.sizeZ}, 0.7f)};
    int culledSomething = 0;
    for (size_t i = 0; i < cameras.size(); ++i) {
        std::vector<uint8_t> culled, unculled;
        Result<FrameStats> a = r.render(cameras[i], culled);
        ViewFrame everything;
        everything.cull = false;
        Result<FrameStats> b = r.render(cameras[i], unculled, everything);
        ASSERT_TRUE(a && b) << (a ? b.error() : a.error());
        ASSERT_EQ(culled.size(), size_t(r.width()) * r.height() * 4);
        EXPECT_EQ(differing(culled, unculled), 0u) << "camera " << i;
        culledSomething += a.value().cull.leavesCulled + a.value().occlusion.leavesOccluded > 0;
    }
    EXPECT_GE(culledSomething, 2) << "the cameras must cull something for the test to mean much";
}

TEST(Offscreen, ObjectsAreDrawnAndCulledPicturesStillEqualUnculledOnes) {
    REQUIRE_RENDERER();
    OffscreenRenderer& r = *shared().renderer;
    ASSERT_TRUE(r.view().scatterObjects(5000, 500, 7));
    const WorldExtent e = worldExtent(r.view().map(), r.view().mapping());
    const Camera camera = r.lookAt({0.2f * e.sizeX, e.maxY, 0.2f * e.sizeZ},
                                   {0.5f * e.sizeX, e.minY, 0.5f * e.sizeZ}, 1.0f);
    std::vector<uint8_t> culled, unculled;
    Result<FrameStats> a = r.render(camera, culled);
    ViewFrame everything;
    everything.cull = false;
    Result<FrameStats> b = r.render(camera, unculled, everything);
    ASSERT_TRUE(a && b);
    EXPECT_GT(a.value().objects.drawn, 0u);
    EXPECT_GT(a.value().objects.culled, 0u);
    EXPECT_EQ(differing(culled, unculled), 0u);
    ASSERT_TRUE(r.view().scatterObjects(0));
}

// The library's compiled-in shaders and its frame draw what the viewer's shader files and
// scripted frame draw: the same pixels as `quadterrain --screenshot` for the same camera.
TEST(Offscreen, PicturesEqualTheViewersScreenshot) {
    REQUIRE_RENDERER();
    OffscreenRenderer& r = *shared().renderer;
    const glm::vec3 eye{300.0f, 160.0f, 300.0f};
    const glm::vec3 target{700.0f, 40.0f, 650.0f};
    const Camera camera = r.lookAt(eye, target, glm::radians(60.0f));
    std::vector<uint8_t> ours;
    ASSERT_TRUE(r.render(camera, ours));
    char dir[] = "/tmp/qt_offscreen_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string png = std::string(dir) + "/shot.png";
    const std::string command = std::string("env -u DISPLAY -u WAYLAND_DISPLAY '") + QT_VIEWER +
                                "' '" + kMap +
                                "' --window 320x200 --eye 300,160,300 --target 700,40,650 "
                                "--screenshot '" +
                                png + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    int w = 0, h = 0, n = 0;
    unsigned char* theirs = stbi_load(png.c_str(), &w, &h, &n, 4);
    ASSERT_NE(theirs, nullptr);
    ASSERT_EQ(w, r.width());
    ASSERT_EQ(h, r.height());
    const std::vector<uint8_t> viewer(theirs, theirs + size_t(w) * h * 4);
    stbi_image_free(theirs);
    std::remove(png.c_str());
    rmdir(dir);
    EXPECT_EQ(differing(ours, viewer), 0u);
}

TEST(Offscreen, ABadMapIsOneLineBeforeAnyContext) {
    const Result<OffscreenRenderer> opened = OffscreenRenderer::open("/no/such/map.png");
    ASSERT_FALSE(opened);
    EXPECT_EQ(opened.error(), "/no/such/map.png: no such file");
}

}  // namespace
}  // namespace qt
