// World-space debug lines (frozen frustum, leaf boxes): one dynamic buffer, one draw call.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "core/view/frustum.h"
#include "render/shader.h"

namespace qt {

struct LineVertex {
    glm::vec3 position;
    uint32_t rgba;  // R in the lowest byte
};

struct DebugLines {
    ShaderProgram program;
    GLuint vertexArray = 0;
    GLuint vertexBuffer = 0;
    size_t bufferCapacity = 0;      // vertices the GL buffer holds
    std::vector<LineVertex> lines;  // pairs; cleared each frame, capacity kept

    static Result<DebugLines> create(const std::string& shaderDir);
    void destroy();
    Status reloadShaders(const std::string& shaderDir);

    void clear() { lines.clear(); }
    void add(const glm::vec3& a, const glm::vec3& b, uint32_t rgba);
    void addBox(const Box& box, uint32_t rgba);
    // The 12 edges of a frustum from Frustum::corners().
    void addFrustum(const std::array<glm::vec3, 8>& corners, uint32_t rgba);
    // Uploads and draws everything added since clear(), depth-tested.
    void draw(const glm::mat4& viewProjection);
};

}  // namespace qt
