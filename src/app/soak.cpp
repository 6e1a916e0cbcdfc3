// Soak: deterministic abuse of the viewer's frame loop with checks at every step.
#include "app/soak.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

#include <glm/gtc/constants.hpp>
#include <glm/trigonometric.hpp>

#include "app/heap_count.h"
#include "core/base/median.h"
#include "render/framebuffer.h"

namespace qt {
namespace {

constexpr int kReloadEvery = 1000;     // frames between reloads (good and bad alternate)
constexpr int kCheckpointEvery = 500;  // frames between culled == unculled comparisons
constexpr int kResizeEvery = 250;      // frames between offscreen target resizes

// Memory is sampled at each checkpoint in one reference state: target kReferenceWidth x
// kReferenceHeight, overview camera, culling on, the reference frame drawn kReferenceFrames times
// (llvmpipe's scene memory follows the last frames' triangles and target size). Warm-up ends
// after kWarmUp frames: a whole cycle of target sizes (so buffers have reached their largest) and
// two reloads. Drift compares the median of the first kDriftSamples samples after warm-up with the
// median of the last kDriftSamples; kMaxDrift or more fails.
constexpr int kReferenceWidth = 64;
constexpr int kReferenceHeight = 48;
constexpr int kReferenceFrames = 3;
constexpr int kWarmUp = 2000;
constexpr size_t kDriftSamples = 3;
constexpr double kMaxDrift = 0.01;

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

// Memory in the reference state at one checkpoint.
struct Sample {
    int frame = 0;
    size_t resident = 0;  // bytes, after malloc_trim
    HeapCount heap;       // operator new's live blocks and bytes
};

// Median of the first and of the last kDriftSamples values, and the relative change.
struct Drift {
    double first = 0.0;
    double last = 0.0;
    double relative() const { return first > 0.0 ? (last - first) / first : 0.0; }
};

template <typename Field>
Drift drift(const std::vector<Sample>& samples, Field field) {
    std::vector<double> first, last;
    for (size_t i = 0; i < kDriftSamples; ++i) {
        first.push_back(double(field(samples[i])));
        last.push_back(double(field(samples[samples.size() - kDriftSamples + i])));
    }
    return {median(first), median(last)};
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
    float lodPixels = 0.0f;  // level of detail, toggled now and then
    Camera frozenCamera;     // the culling camera while frozen
    int failures = 0;
    int checkpoints = 0;
    int reloads = 0;
    std::vector<uint8_t> culled, unculled, reference, firstReference;
    std::vector<Sample> samples;

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
        const WorldExtent e = worldExtent(map, m);
        const float sizeX = e.sizeX, sizeZ = e.sizeZ, size = e.longerSide();
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

    // Culling on means the frustum walk and the occlusion stage, as in the viewer; withLod > 0
    // draws by level of detail within that many pixels of full detail.
    void render(bool culling, const Camera& cullCamera, std::vector<uint8_t>* pixels,
                float withLod) {
        target.bind();
        TerrainRenderer::clear(target.width, target.height);
        renderTerrain(s.renderer, s.terrain, s.camera,
                      CullView{cullCamera, target.height, culling, culling, withLod}, false);
        if (pixels) {
            readPixels(target.width, target.height, *pixels);
        }
    }

    // Draws the reference frame into a reference-sized target and samples memory, then puts the
    // soak's camera and target size back.
    void sampleMemory(int frame) {
        const Camera soakCamera = s.camera;
        const int width = target.width;
        const int height = target.height;
        resize(kReferenceWidth, kReferenceHeight);
        s.camera = overviewCamera(s.terrain.map, s.terrain.mapping,
                                  float(kReferenceWidth) / float(kReferenceHeight),
                                  glm::radians(s.options.fovDegrees));
        for (int i = 0; i < kReferenceFrames; ++i) {
            render(true, s.camera, &reference, 0.0f);
        }
        if (firstReference.empty()) {
            firstReference = reference;
        } else if (reference != firstReference) {
            fail(frame, "the reference frame differs from the first one");
        }
        Sample sample;
        sample.frame = frame;
        sample.heap = heapCount();  // before malloc_trim, which allocates nothing through new
        sample.resident = residentBytes();
        samples.push_back(sample);
        s.camera = soakCamera;
        resize(width, height);
    }

    void reload(int frame) {
        const std::string good = s.terrain.path;
        const int kind = reloads++ % 3;
        if (kind == 0) {
            if (Status loaded = s.replaceTerrain(good); !loaded) {
                fail(frame, "reloading the good map failed: " + loaded.error());
            }
            return;
        }
        const std::string bad = kind == 1 ? good + ".missing.png" : "/dev/null.png";
        if (s.replaceTerrain(bad) || s.terrain.path != good) {
            fail(frame, "a bad reload (" + bad + ") did not keep the terrain");
        }
    }
};

}  // namespace

int runSoak(Session& session) {
    Soak soak(session);
    const int frames = session.options.soakFrames;
    soak.samples.reserve(size_t(frames / kCheckpointEvery + 1));  // no growth during the run
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
        if (soak.random.below(60) == 0) {  // level of detail on at 0.5 to 8 pixels, or off
            soak.lodPixels = soak.lodPixels > 0.0f ? 0.0f : soak.random.uniform(0.5f, 8.0f);
        }
        if (soak.random.below(70) == 0) {  // synchronised batches, or one draw
            session.renderer.syncDraws = !session.renderer.syncDraws;
        }
        if (soak.random.below(90) == 0) {  // back faces culled where hidden, or always drawn
            session.renderer.backFaceCulling = !session.renderer.backFaceCulling;
        }
        if (soak.random.below(80) == 0) {
            soak.frozen = !soak.frozen;
            soak.frozenCamera = session.camera;
        }
        const int width = std::max(soak.target.width, 1);
        session.camera.aspect = float(width) / float(std::max(soak.target.height, 1));
        fitClipPlanes(session.camera, session.terrain.map, session.terrain.mapping);
        if (!soak.cameraFinite()) {
            soak.fail(frame, "the camera went NaN or infinite");
            session.resetCamera(session.camera.aspect);
        }
        const bool minimised = soak.target.framebuffer == 0;  // nothing to draw into
        if (!minimised) {
            soak.render(soak.cull, soak.frozen ? soak.frozenCamera : session.camera, nullptr,
                        soak.lodPixels);
        }
        if (frame % kCheckpointEvery == 0) {
            if (!minimised) {
                // Both frames of the pair split by the same, exact, errors: a handover between
                // them would change the level of detail, not the culling. The frames since the
                // last load drew with whichever bound was live.
                session.terrain.finishErrors();
                soak.render(true, session.camera, &soak.culled, soak.lodPixels);
                soak.render(false, session.camera, &soak.unculled, soak.lodPixels);
                ++soak.checkpoints;
                if (soak.culled != soak.unculled) {
                    soak.fail(frame, "the culled frame differs from the unculled frame");
                }
            }
            soak.sampleMemory(frame);
        }
        if (frames >= 10 && frame % (frames / 10) == 0 && !soak.samples.empty()) {
            const Sample& last = soak.samples.back();
            std::printf("  frame %d: reference resident %.1f MB, own heap %zu bytes\n", last.frame,
                        double(last.resident) / 1e6, last.heap.liveBytes);
        }
    }
    soak.target.destroy();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    std::printf("soak: %d frames, %d checkpoints culled == unculled, %d reloads, %d failures\n",
                frames, soak.checkpoints, soak.reloads, soak.failures);

    // Memory drift over the reference samples taken after warm-up.
    std::vector<Sample> warm;
    for (const Sample& sample : soak.samples) {
        if (sample.frame >= kWarmUp) {
            warm.push_back(sample);
        }
    }
    if (warm.size() < 2 * kDriftSamples) {
        std::printf(
            "  memory drift not judged: %zu reference samples after the %d-frame "
            "warm-up, %zu needed\n",
            warm.size(), kWarmUp, 2 * kDriftSamples);
        return soak.failures == 0 ? 0 : kExitFailure;
    }
    const Drift resident = drift(warm, [](const Sample& x) { return x.resident; });
    const Drift heap = drift(warm, [](const Sample& x) { return x.heap.liveBytes; });
    const Drift blocks = drift(warm, [](const Sample& x) { return x.heap.liveBlocks; });
    std::printf("  reference samples: %zu after warm-up (frames %d to %d), medians of %zu\n",
                warm.size(), warm.front().frame, warm.back().frame, kDriftSamples);
    std::printf("  resident: first %.2f MB, last %.2f MB, drift %+.3f%%%s\n", resident.first / 1e6,
                resident.last / 1e6, 100.0 * resident.relative(),
                session.options.soakRssReportOnly ? " (reported, not judged)" : "");
    std::printf(
        "  own heap: first %.0f bytes in %.0f blocks, last %.0f bytes in %.0f blocks, "
        "drift %+.3f%%\n",
        heap.first, blocks.first, heap.last, blocks.last, 100.0 * heap.relative());
    if (resident.relative() >= kMaxDrift && !session.options.soakRssReportOnly) {
        ++soak.failures;
        std::fprintf(stderr, "quadterrain: soak: resident memory drifted %+.2f%% after warm-up\n",
                     100.0 * resident.relative());
    }
    if (heap.relative() >= kMaxDrift) {
        ++soak.failures;
        std::fprintf(stderr, "quadterrain: soak: own heap drifted %+.2f%% after warm-up\n",
                     100.0 * heap.relative());
    }
    return soak.failures == 0 ? 0 : kExitFailure;
}

}  // namespace qt
