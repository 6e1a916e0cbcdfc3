// Objects drawn instanced: one draw per unit mesh (a tree and a sphere, each fine and as an
// impostor, core/objects/mesh.h) and kind of instance data, and one more per fine mesh for its
// objects in the band between mesh and impostor, at most kMaxObjectDraws draws whatever the
// count. The static objects' records go to the GPU once per scene (a buffer texture,
// ObjectRecordTexels' layout) in the order of their places in the object tree
// (core/objects/static_runs.h), and each frame only the runs of places its groups hold follow, 8
// bytes a run, expanded on the GPU into the id lists the draws read (shaders/object_runs.comp,
// where the context has compute shaders: OpenGL 4.3), or on the CPU and sent as ids, 4 bytes an
// object; the balls, which move every step, upload their drawn instances whole (ObjectInstance,
// 24 bytes).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>

#include "core/base/result.h"
#include "core/objects/instances.h"
#include "core/objects/mesh.h"
#include "core/objects/scene.h"
#include "core/objects/static_runs.h"
#include "core/view/camera.h"
#include "render/fog.h"
#include "render/shader.h"
#include "render/sky.h"

namespace qt {

struct TerrainGpu;

// The most draws a frame's objects take: each mesh, and each fine mesh's band, from whole
// instances and from ids.
constexpr int kMaxObjectDraws = 2 * (kObjectMeshes + 2);

// The objects' programs (objects.vert, objects.frag), by the light they are drawn in: the fixed
// light; a Sun, the terrain's light read from TerrainGpu::shadows; a Sun, from a streamed map's
// light pages, in one texture array or in several (read through a branch over them, which a
// software rasteriser runs arm by arm: no program pays for a light it does not read). Each for
// the meshes, from kObjectPrograms on the same for the impostors, and from 2 * kObjectPrograms
// for the meshes of objects in the band, the only mesh programs that discard fragments (their
// share of the dither): a program that may discard loses the early depth test, on a GPU and on
// llvmpipe alike, so the meshes out of the band keep it.
enum ObjectProgram : int {
    kObjectsFixedLight = 0,
    kObjectsSunLight = 1,
    kObjectsPagedLight = 2,
    kObjectsPagedLightManyArrays = 3,
    kObjectPrograms = 4,
};

struct ObjectRenderer {
    struct MeshGpu {
        GLuint vertexBuffer = 0;
        GLuint indexBuffer = 0;
        GLuint vertexArray = 0;    // instances read whole from instanceBuffer
        GLuint idVertexArray = 0;  // instances read by id from idBuffer
        GLsizei indexCount = 0;
    };
    // By ObjectProgram, then the impostors' by kObjectPrograms + ObjectProgram, then the band's
    // meshes' by 2 * kObjectPrograms + ObjectProgram: the fixed light's meshes' (both) made by
    // reloadShaders, the others when first drawn.
    ProgramFamily programs;
    // The sizes on screen that choose between an object's mesh and its impostor (tests change
    // them), and the band they make for the frame's camera (MeshChoice's fineBeyond and
    // impostorBeyond, set by prepare()).
    ObjectDetail detail;
    glm::vec2 bandBeyond{0.0f};
    std::string shaderDir;  // where the shaders are read from; "": the ones compiled in
    Fog fog;                // distance fog, as the terrain's (TerrainRenderer::fog)
    // Under a Sun, the frame's sky and haze (TerrainRenderer::skyFrameFor): the objects fade
    // into the daylight sky as the terrain does; none: into the fog's colour.
    std::optional<SkyFrame> sky;
    // Under a Sun: its direction, and the terrain's light (TerrainGpu::shadows, or a streamed
    // map's light pages in `pages`; neither: every object in full light) read at each object's
    // base, whose map column and row are its x and z over `spacing`. Without a Sun, the fixed
    // light.
    struct SunLight {
        glm::vec3 towards{0.0f, 1.0f, 0.0f};
        GLuint light = 0;
        glm::ivec2 layerSize{1};  // TerrainGpu's shadow columns and rows per layer
        int layersAcross = 1;     // and its layers across the map
        glm::vec2 spacing{1.0f};
        glm::ivec2 mapSize{1};
        const TerrainGpu* pages = nullptr;  // read when it has light pages (lightPaged)
    };
    std::optional<SunLight> sun;
    std::array<MeshGpu, kObjectMeshes> meshes;
    GLuint instanceBuffer = 0;
    size_t instanceCapacity = 0;  // instances the buffer holds
    GLuint idBuffer = 0;
    size_t idCapacity = 0;  // ids the buffer holds
    // The static objects' records, of the scene whose serial is recordsSerial (0: none).
    GLuint recordBuffer = 0;
    GLuint recordTexture = 0;
    uint64_t recordsSerial = 0;
    bool recordsHeld = false;  // whether the GPU took them (its buffer textures are big enough)
    // Off: every object drawn from whole instances, as on a GPU whose buffer textures cannot hold
    // the records (the tests compare the two paths' images).
    bool staticById = true;
    ObjectInstances instances;  // this frame's, grouped by mesh
    // The order of the static objects' places (the scene's whose serial it has), and the frame's
    // runs of places.
    StaticOrder order;
    StaticRuns runs;
    // The frame's static objects go to the GPU as runs (runEntries), not expanded here.
    bool gpuRuns = false;
    // The frame's static objects whole, in the order of the ids they would be (where the
    // records are not held: staticById off, or too many for a buffer texture).
    std::vector<ObjectInstance> staticWhole;
    // Off: the runs are expanded on the CPU even where the GPU could (the tests compare the two).
    bool expandOnGpu = true;
    // object_runs.comp, made by reloadShaders where the context has compute shaders (id 0
    // elsewhere), and what it reads: the runs as (first place | kBandRun, first entry), and the
    // selected places, sorted (those of the selection whose version is selectionShown).
    ShaderProgram expand;
    GLuint runBuffer = 0;
    size_t runCapacity = 0;  // runs the buffer holds
    std::vector<uint32_t> runEntries;
    GLuint selectedBuffer = 0;
    size_t selectedCapacity = 0;
    std::vector<uint32_t> selectedPlaces;
    uint64_t selectionShown = ~uint64_t(0);
    bool selectedSent = false;   // selectedPlaces are in selectedBuffer
    GLint64 storageLimit = 0;    // GL_MAX_SHADER_STORAGE_BLOCK_SIZE, bytes
    bool expandedOnGpu = false;  // the last upload's runs were expanded on the GPU (the tests)
    uint64_t uploadBytes = 0;    // what the last upload sent: instances, ids or runs, selection

    // Loads objects.vert/objects.frag (and object_runs.comp where the context has compute
    // shaders) from shaderDir (compiled in when it is "") and uploads the four meshes.
    static Result<ObjectRenderer> create(const std::string& shaderDir);
    void destroy();
    Status reloadShaders();
    // Room for `count` objects on the CPU and the GPU, so that no frame allocates.
    void reserve(uint32_t count);
    // The order of a scene's static objects, made where the scene was (a scatter off the frame's
    // thread), so that the scene's first frame does not sort them (prepare() makes it otherwise).
    void adoptOrder(StaticOrder made) {
        order = std::move(made);
        selectionShown = ~uint64_t(0);  // the selected places are of the order
    }
    // Builds the frame's instances of `drawn` (ids of `scene`, in `groups` when not null:
    // ObjectGroups of the frame's drawn objects), `selected` (per id, may be empty) highlighted,
    // seen from `camera` in a viewport `viewportHeight` pixels high. CPU work only, apart from
    // the scene's records, uploaded once per scene. `selectionVersion` changes whenever
    // `selected` does (Terrain::selectionVersion): the selected places are found again only then.
    void prepare(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                 const ObjectGroups* groups, const std::vector<uint8_t>& selected,
                 uint64_t selectionVersion, const Camera& camera, int viewportHeight);
    // Whether this context runs object_runs.comp: compute shaders and storage buffers (OpenGL
    // 4.3).
    static bool computeAvailable();
    // Sends what prepare() built to the GPU, and expands the static objects' runs there: before
    // the terrain's draws, so that the expansion waits on none of them (a software rasteriser
    // finishes the draws queued before a compute pass first).
    void upload();
    // Draws what upload() sent, seen from `camera`; the caller has drawn the terrain into the
    // bound target. Returns the draw calls issued.
    int submit(const Camera& camera);

private:
    // Uploads `scene`'s static records (in `order`'s places) unless they are there already; false
    // when the GPU's buffer textures cannot hold them.
    bool holdRecords(const ObjectScene& scene);
    // Lays the frame's runs out for object_runs.comp (runEntries); false when the GPU cannot
    // expand them (no compute shaders, expandOnGpu off, buffers past the storage limit), for the
    // caller to expand them here and send ids.
    bool runsForGpu();
    // Sends runEntries (and the selected places when new) and expands them into the first `ids`
    // entries of idBuffer.
    void expandRunsOnGpu(size_t ids);
};

}  // namespace qt
