// Instanced object drawing: the drawn objects grouped by mesh into one upload, then one draw per
// mesh with the instance attributes pointed at its group (GL 3.3 has no base instance).
#include "render/object_renderer.h"

#include <cmath>
#include <cstddef>

#include <glm/gtc/type_ptr.hpp>

#include "render/terrain_renderer.h"

namespace qt {
namespace {

void pointInstances(GLuint instanceBuffer, size_t first) {
    glBindBuffer(GL_ARRAY_BUFFER, instanceBuffer);
    const size_t base = first * sizeof(ObjectInstance);
    glVertexAttribPointer(3, 4, GL_FLOAT, GL_FALSE, sizeof(ObjectInstance),
                          reinterpret_cast<const void*>(base + offsetof(ObjectInstance, x)));
    glVertexAttribPointer(4, 1, GL_FLOAT, GL_FALSE, sizeof(ObjectInstance),
                          reinterpret_cast<const void*>(base + offsetof(ObjectInstance, height)));
    glVertexAttribIPointer(5, 1, GL_UNSIGNED_INT, sizeof(ObjectInstance),
                           reinterpret_cast<const void*>(base + offsetof(ObjectInstance, look)));
}

}  // namespace

Result<ObjectRenderer> ObjectRenderer::create(const std::string& shaderDir) {
    ObjectRenderer r;
    r.shaderDir = shaderDir;
    if (Status loaded = r.reloadShaders(); !loaded) {
        return Result<ObjectRenderer>::failure(loaded.error());
    }
    glGenBuffers(1, &r.instanceBuffer);
    for (int i = 0; i < kObjectMeshes; ++i) {
        const Mesh mesh = objectMesh(ObjectMesh(i));
        MeshGpu& g = r.meshes[size_t(i)];
        glGenVertexArrays(1, &g.vertexArray);
        glGenBuffers(1, &g.vertexBuffer);
        glGenBuffers(1, &g.indexBuffer);
        glBindVertexArray(g.vertexArray);
        glBindBuffer(GL_ARRAY_BUFFER, g.vertexBuffer);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(mesh.vertices.size() * sizeof(MeshVertex)),
                     mesh.vertices.data(), GL_STATIC_DRAW);
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                              reinterpret_cast<const void*>(offsetof(MeshVertex, position)));
        glEnableVertexAttribArray(1);
        glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                              reinterpret_cast<const void*>(offsetof(MeshVertex, normal)));
        glEnableVertexAttribArray(2);
        glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                              reinterpret_cast<const void*>(offsetof(MeshVertex, material)));
        pointInstances(r.instanceBuffer, 0);
        for (GLuint a = 3; a <= 5; ++a) {
            glEnableVertexAttribArray(a);
            glVertexAttribDivisor(a, 1);
        }
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.indexBuffer);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(mesh.indices.size() * sizeof(uint16_t)),
                     mesh.indices.data(), GL_STATIC_DRAW);
        g.indexCount = GLsizei(mesh.indices.size());
        glBindVertexArray(0);
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
    return r;
}

void ObjectRenderer::destroy() {
    program.destroy();
    for (MeshGpu& g : meshes) {
        glDeleteBuffers(1, &g.vertexBuffer);
        glDeleteBuffers(1, &g.indexBuffer);
        glDeleteVertexArrays(1, &g.vertexArray);
        g = {};
    }
    glDeleteBuffers(1, &instanceBuffer);
    instanceBuffer = 0;
    instanceCapacity = 0;
}

Status ObjectRenderer::reloadShaders() {
    return program.replaceWith(shaderDir + "/objects.vert", shaderDir + "/objects.frag");
}

void ObjectRenderer::reserve(uint32_t count) {
    instances.reserve(count);
    if (count > instanceCapacity) {
        instanceCapacity = count;
        glBindBuffer(GL_ARRAY_BUFFER, instanceBuffer);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(instanceCapacity * sizeof(ObjectInstance)),
                     nullptr, GL_STREAM_DRAW);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
    }
}

int ObjectRenderer::draw(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                         const std::vector<uint8_t>& selected, const Camera& camera,
                         int viewportHeight) {
    if (drawn.empty() || viewportHeight <= 0) {
        return 0;
    }
    reserve(scene.count());
    buildObjectInstances(scene, drawn, selected, camera, viewportHeight, instances);
    glBindBuffer(GL_ARRAY_BUFFER, instanceBuffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0,
                    GLsizeiptr(instances.sorted.size() * sizeof(ObjectInstance)),
                    instances.sorted.data());
    glUseProgram(program.id);
    const glm::mat4 viewProjection = camera.viewProjection();
    glUniformMatrix4fv(program.uniform("viewProjection"), 1, GL_FALSE,
                       glm::value_ptr(viewProjection));
    glUniform3f(program.uniform("eye"), camera.position.x, camera.position.y, camera.position.z);
    glUniform1f(program.uniform("farPlane"), camera.farPlane);
    glUniform3f(program.uniform("fogColour"), kSkyColour[0], kSkyColour[1], kSkyColour[2]);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    int draws = 0;
    size_t first = 0;
    for (int i = 0; i < kObjectMeshes; ++i) {
        const MeshGpu& g = meshes[size_t(i)];
        const uint32_t count = instances.counts[size_t(i)];
        if (count > 0) {
            glBindVertexArray(g.vertexArray);
            pointInstances(instanceBuffer, first);
            glDrawElementsInstanced(GL_TRIANGLES, g.indexCount, GL_UNSIGNED_SHORT, nullptr,
                                    GLsizei(count));
            ++draws;
        }
        first += count;
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glUseProgram(0);
    return draws;
}

}  // namespace qt
