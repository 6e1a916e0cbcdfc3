// Objects drawn instanced: one draw per unit mesh (a tree and a sphere, each fine and coarse), at
// most kObjectMeshes draws whatever the count, and each frame only the drawn objects' instances
// uploaded (ObjectInstance, 24 bytes each).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/camera.h"
#include "core/object_mesh.h"
#include "core/object_scene.h"
#include "core/result.h"
#include "render/shader.h"

namespace qt {

// One object as the vertex shader reads it: the unit mesh scaled by (radius, height, radius)
// and moved to base; look: its kind in bits 0-7, bit 8 when selected.
struct ObjectInstance {
    float x, y, z;
    float radius;
    float height;
    uint32_t look;
};
static_assert(sizeof(ObjectInstance) == 24, "the instance layout the shader reads");

constexpr uint32_t kSelectedLook = 0x100;

// Objects whose radius spans fewer pixels than this on screen take the coarse meshes.
constexpr float kCoarseObjectPixels = 6.0f;

struct ObjectRenderer {
    struct MeshGpu {
        GLuint vertexBuffer = 0;
        GLuint indexBuffer = 0;
        GLuint vertexArray = 0;
        GLsizei indexCount = 0;
    };
    ShaderProgram program;
    std::string shaderDir;
    std::array<MeshGpu, kObjectMeshes> meshes;
    GLuint instanceBuffer = 0;
    size_t instanceCapacity = 0;            // instances the buffer holds
    std::vector<ObjectInstance> instances;  // this frame's, grouped by mesh
    std::array<uint32_t, kObjectMeshes> counts{};

    // Loads objects.vert/objects.frag from shaderDir and uploads the four meshes.
    static Result<ObjectRenderer> create(const std::string& shaderDir);
    void destroy();
    Status reloadShaders();
    // Room for `count` instances on the CPU and the GPU, so that no frame allocates.
    void reserve(uint32_t count);
    // Draws `drawn` (ids of `scene`), `selected` (per id, may be empty) highlighted, seen from
    // `camera` in a viewport `viewportHeight` pixels high; the caller has drawn the terrain into
    // the bound target. Returns the draw calls issued.
    int draw(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
             const std::vector<uint8_t>& selected, const Camera& camera, int viewportHeight);
};

}  // namespace qt
