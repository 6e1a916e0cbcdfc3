// Soak: deterministic abuse of the viewer's frame loop with checks at every step.
#include "app/soak.h"

#include <malloc.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

#include <glm/gtc/constants.hpp>
#include <glm/trigonometric.hpp>

#include "render/framebuffer.h"

namespace qt {
namespace {

constexpr int kReloadEvery = 1000;     // frames between reloads (good and bad alternate)
constexpr int kCheckpointEvery = 500;  // frames between culled == unculled comparisons
constexpr int kResizeEvery = 250;      // frames between offscreen target resizes

// Offscreen sizes the soak cycles through; 0x0 stands for a minimised window.
constexpr int kSizes[][2] = {{64, 48}, {0, 0}, {1, 1}, {97, 31}, {160, 90}, {0, 0}, {320, 180}};

class Random {
public:
    float uniform(float lo, float hi) {
        return lo + (hi - lo) * float(engine_() >> 8) / 16777216.0f;
    }
    uint32_t below(uint32_t n) { return engine_() % n; }

private:
    std::mt19937 engine_{12345};
};

// Resident memory after handing freed heap back to the system (glibc keeps it otherwise, so
// samples would swing by tens of MB with the allocator's state, not with what is live).
size_t residentBytes() {
    malloc_trim(0);
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0;
    size_t resident = 0;
    statm >> pages >> resident;
    return resident * size_t(sysconf(_SC_PAGESIZE));
}

bool finite(const glm::mat4& m) {
    for (int c = 0; c < 4; ++c) {
        for (int r = 0; r < 4; ++r) {
            if (!std::isfinite(m[c][r])) {
                return false;
            }
        }
    }
    return true;
}

struct Soak {
    explicit Soak(Session& session) : s(session) {}
    Session& s;
    Random random;
    Framebuffer target;
    bool cull = true;
    bool frozen = false;
    glm::mat4 frozenViewProjection{1.0f};
    int failures = 0;
    int checkpoints = 0;
    int reloads = 0;
    std::vector<uint8_t> culled, unculled;

    void fail(int frame, const std::string& what) {
        ++failures;
        std::fprintf(stderr, "quadterrain: soak frame %d: %s\n", frame, what.c_str());
    }

    void resize(int width, int height) {
        target.destroy();
        if (width > 0 && height > 0) {
            Result<Framebuffer> created = Framebuffer::create(width, height);
            target = created ? created.value() : Framebuffer{};
        }
    }

    // Teleports, turns, climbs to extreme heights or dives under the terrain.
    void moveCamera() {
        Camera& c = s.camera;
        const Heightmap& map = s.terrain.map;
        const WorldMapping& m = s.terrain.mapping;
        const float sizeX = float(map.width - 1) * m.spacing;
        const float sizeZ = float(map.height - 1) * m.spacing;
        const float size = std::max(sizeX, sizeZ);
        switch (random.below(6)) {
            case 0:
                c.position = {random.uniform(-sizeX, 2 * sizeX), random.uniform(-size, 2 * size),
                              random.uniform(-sizeZ, 2 * sizeZ)};
                break;
            case 1:  // extreme heights, far above and far below
                c.position.y = random.below(2) ? 1e5f * size : -1e5f * size;
                break;
            case 2:
                c.pitch = random.below(2) ? glm::half_pi<float>() : -glm::half_pi<float>();
                break;
            default:
                c.turn(random.uniform(-1.0f, 1.0f), random.uniform(-1.0f, 1.0f));
                c.position += c.forward() * random.uniform(0.0f, 0.05f * size);
        }
        c.fovY = glm::radians(random.uniform(5.0f, 150.0f));
    }

    bool cameraFinite() const {
        const Camera& c = s.camera;
        return std::isfinite(c.position.x) && std::isfinite(c.position.y) &&
               std::isfinite(c.position.z) && std::isfinite(c.yaw) && std::isfinite(c.pitch) &&
               finite(c.viewProjection());
    }

    void render(bool culling, const glm::mat4& cullMatrix, std::vector<uint8_t>* pixels) {
        target.bind();
        TerrainRenderer::clear(target.width, target.height);
        renderTerrain(s.renderer, s.terrain, s.camera,
                      cullingFrustum(cullMatrix, s.terrain.mapping), culling, false);
        if (pixels) {
            readPixels(target.width, target.height, *pixels);
        }
    }

    void reload(int frame) {
        const std::string good = s.terrain.path;
        const int kind = reloads++ % 3;
        if (kind == 0) {
            if (std::string e = s.replaceTerrain(good); !e.empty()) {
                fail(frame, "reloading the good map failed: " + e);
            }
            return;
        }
        const std::string bad = kind == 1 ? good + ".missing.png" : "/dev/null.png";
        if (s.replaceTerrain(bad).empty() || s.terrain.path != good) {
            fail(frame, "a bad reload (" + bad + ") did not keep the terrain");
        }
    }
};

}  // namespace

int runSoak(Session& session) {
    Soak soak(session);
    const int frames = session.options.soakFrames;
    const int warmUp = std::min(frames / 4, 2 * kReloadEvery);
    size_t warmResident = 0;
    size_t worstResident = 0;
    soak.resize(kSizes[0][0], kSizes[0][1]);
    for (int frame = 0; frame < frames; ++frame) {
        if (frame % kResizeEvery == 0) {
            const auto& size = kSizes[(frame / kResizeEvery) % std::size(kSizes)];
            soak.resize(size[0], size[1]);
        }
        if (frame > 0 && frame % kReloadEvery == 0) {
            soak.reload(frame);
        }
        soak.moveCamera();
        if (soak.random.below(50) == 0) {
            soak.cull = !soak.cull;
        }
        if (soak.random.below(80) == 0) {
            soak.frozen = !soak.frozen;
            soak.frozenViewProjection = session.camera.viewProjection();
        }
        const int width = std::max(soak.target.width, 1);
        session.camera.aspect = float(width) / float(std::max(soak.target.height, 1));
        fitClipPlanes(session.camera, session.terrain.map, session.terrain.mapping);
        if (!soak.cameraFinite()) {
            soak.fail(frame, "the camera went NaN or infinite");
            session.resetCamera(session.camera.aspect);
        }
        if (soak.target.framebuffer == 0) {
            continue;  // minimised: nothing to draw into
        }
        const glm::mat4 viewProjection = session.camera.viewProjection();
        soak.render(soak.cull, soak.frozen ? soak.frozenViewProjection : viewProjection, nullptr);
        if (frame % kCheckpointEvery == 0) {
            soak.render(true, viewProjection, &soak.culled);
            soak.render(false, viewProjection, &soak.unculled);
            ++soak.checkpoints;
            if (soak.culled != soak.unculled) {
                soak.fail(frame, "the culled frame differs from the unculled frame");
            }
        }
        if (frames >= 10 && frame % (frames / 10) == 0) {
            std::printf("  frame %d: resident %.1f MB\n", frame, double(residentBytes()) / 1e6);
        }
        if (frame % kReloadEvery == 1) {  // just after a reload: the same state every time
            const size_t resident = residentBytes();
            if (frame >= warmUp && warmResident == 0) {
                warmResident = resident;
            }
            worstResident = std::max(worstResident, resident);
        }
    }
    soak.target.destroy();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    const size_t endResident = residentBytes();
    const double drift =
        warmResident ? (double(endResident) - double(warmResident)) / double(warmResident) : 0.0;
    std::printf("soak: %d frames, %d checkpoints culled == unculled, %d reloads, %d failures\n",
                frames, soak.checkpoints, soak.reloads, soak.failures);
    std::printf(
        "  resident after warm-up %.1f MB, at the end %.1f MB (drift %+.2f%%), worst %.1f MB\n",
        double(warmResident) / 1e6, double(endResident) / 1e6, 100.0 * drift,
        double(worstResident) / 1e6);
    return soak.failures == 0 ? 0 : kExitFailure;
}

}  // namespace qt
