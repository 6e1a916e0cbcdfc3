// cull_view: opens a map, culls it for a camera (frustum walk, then occlusion) and prints what is
// visible: the counts, and the drawn leaves as runs of the tree's leaf order with their sample
// boxes. No GL.
//
// usage: cull_view MAP [EYE_X,EYE_Y,EYE_Z TARGET_X,TARGET_Y,TARGET_Z]   (default: the overview)
#include <cstdio>
#include <string>

#include <quadterrain/core/frame/frame.h>
#include <quadterrain/core/io/load.h>
#include <quadterrain/core/lod/lod_error.h>
#include <quadterrain/core/view/camera_fit.h>

namespace {

bool parseVec3(const char* text, glm::vec3& out) {
    return std::sscanf(text, "%f,%f,%f", &out.x, &out.y, &out.z) == 3;
}

}  // namespace

int main(int argc, char** argv) {
    glm::vec3 eye, target;
    if ((argc != 2 && argc != 4) ||
        (argc == 4 && (!parseVec3(argv[2], eye) || !parseVec3(argv[3], target)))) {
        std::fprintf(stderr,
                     "usage: cull_view MAP [EYE_X,EYE_Y,EYE_Z TARGET_X,TARGET_Y,TARGET_Z]\n");
        return 2;
    }
    qt::Result<qt::Heightmap> map = qt::loadHeightmap(argv[1]);
    if (!map) {
        std::fprintf(stderr, "cull_view: %s\n", map.error().c_str());
        return 1;
    }
    qt::Result<qt::Quadtree> tree = qt::buildQuadtreeExact(map.value(), qt::kDefaultLeafSize);
    if (!tree) {
        std::fprintf(stderr, "cull_view: %s\n", tree.error().c_str());
        return 1;
    }
    const qt::WorldMapping mapping = qt::defaultMapping(map.value());
    const float aspect = 16.0f / 9.0f, fovY = 1.0471976f;  // a 1280x720 view, 60 degrees
    qt::Camera camera = qt::overviewCamera(map.value(), mapping, aspect, fovY);
    if (argc == 4) {
        camera.lookAt(eye, target);
        qt::fitClipPlanes(camera, map.value(), mapping);
    }
    qt::FrameBuffers frame;
    frame.reserveFor(tree.value());
    const qt::CullView view{camera, 720, true, true, 0.0f};
    const qt::FrameStats stats = qt::runFrame(map.value(), tree.value(), mapping, view, frame);
    std::printf("%s: %dx%d samples, %u leaves of %d squares\n", argv[1], map.value().width,
                map.value().height, stats.leavesTotal, tree.value().leafSize);
    std::printf(
        "visible: %u leaves (%llu triangles); culled by the frustum: %u; hidden by nearer "
        "terrain: %u; nodes tested: %u; %.3f ms\n",
        stats.cull.leavesDrawn, (unsigned long long)stats.cull.triangles, stats.cull.leavesCulled,
        stats.cull.leavesOccluded, stats.cull.nodesTested, stats.cullMs);
    for (const qt::LeafRange& run : frame.drawn) {
        const qt::LeafCoord first = tree.value().leaves[run.first];
        std::printf("leaves %u..%u (first at sample %d,%d)\n", run.first, run.first + run.count - 1,
                    first.col * tree.value().leafSize, first.row * tree.value().leafSize);
    }
    return 0;
}
