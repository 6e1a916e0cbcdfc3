// render_view: renders a view of a map headless (EGL, no display needed) and writes it as a PNG.
//
// usage: render_view MAP OUT.png [EYE_X,EYE_Y,EYE_Z TARGET_X,TARGET_Y,TARGET_Z]
#include <cstdio>
#include <vector>

#include <quadterrain/core/io/image_write.h>
#include <quadterrain/render/offscreen.h>

namespace {

bool parseVec3(const char* text, glm::vec3& out) {
    return std::sscanf(text, "%f,%f,%f", &out.x, &out.y, &out.z) == 3;
}

}  // namespace

int main(int argc, char** argv) {
    glm::vec3 eye, target;
    if ((argc != 3 && argc != 5) ||
        (argc == 5 && (!parseVec3(argv[3], eye) || !parseVec3(argv[4], target)))) {
        std::fprintf(
            stderr,
            "usage: render_view MAP OUT.png [EYE_X,EYE_Y,EYE_Z TARGET_X,TARGET_Y,TARGET_Z]\n");
        return 2;
    }
    qt::OffscreenOptions options;
    options.width = 1280;
    options.height = 720;
    qt::Result<qt::OffscreenRenderer> renderer = qt::OffscreenRenderer::open(argv[1], options);
    if (!renderer) {
        std::fprintf(stderr, "render_view: %s\n", renderer.error().c_str());
        return 1;
    }
    qt::OffscreenRenderer& r = renderer.value();
    const qt::Camera camera =
        argc == 5 ? r.lookAt(eye, target, qt::kDefaultFovY) : r.overviewCamera();
    std::vector<uint8_t> rgba;
    const qt::Result<qt::FrameStats> stats = r.render(camera, rgba);
    if (!stats) {
        std::fprintf(stderr, "render_view: %s\n", stats.error().c_str());
        return 1;
    }
    if (qt::Status written = qt::writeRgbaAsRgbPng(argv[2], r.width(), r.height(), rgba);
        !written) {
        std::fprintf(stderr, "render_view: %s\n", written.error().c_str());
        return 1;
    }
    std::printf("%s: %u leaves drawn, %llu triangles, on %s\n", argv[2],
                stats.value().cull.leavesDrawn, (unsigned long long)stats.value().cull.triangles,
                r.view().glRenderer().c_str());
    return 0;
}
