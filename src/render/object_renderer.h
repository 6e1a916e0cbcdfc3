// Objects drawn instanced: one draw per unit mesh (a tree and a sphere, each fine and coarse), at
// most kObjectMeshes draws whatever the count, and each frame only the drawn objects' instances
// uploaded (ObjectInstance, 24 bytes each).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/camera.h"
#include "core/object_instances.h"
#include "core/object_mesh.h"
#include "core/object_scene.h"
#include "core/result.h"
#include "render/shader.h"

namespace qt {

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
    size_t instanceCapacity = 0;  // instances the buffer holds
    ObjectInstances instances;    // this frame's, grouped by mesh

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
