// Debug line batching: vertices collected on the CPU, uploaded and drawn once per frame.
#include "render/debug_lines.h"

#include <cstddef>

#include <glm/gtc/type_ptr.hpp>

namespace qt {

Result<DebugLines> DebugLines::create(const std::string& shaderDir) {
    DebugLines result;
    if (Status loaded = result.reloadShaders(shaderDir); !loaded) {
        return Result<DebugLines>::failure(loaded.error());
    }
    glGenVertexArrays(1, &result.vertexArray);
    glGenBuffers(1, &result.vertexBuffer);
    glBindVertexArray(result.vertexArray);
    glBindBuffer(GL_ARRAY_BUFFER, result.vertexBuffer);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(LineVertex),
                          reinterpret_cast<const void*>(offsetof(LineVertex, position)));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(LineVertex),
                          reinterpret_cast<const void*>(offsetof(LineVertex, rgba)));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return result;
}

void DebugLines::destroy() {
    program.destroy();
    glDeleteBuffers(1, &vertexBuffer);
    glDeleteVertexArrays(1, &vertexArray);
    vertexBuffer = 0;
    vertexArray = 0;
    bufferCapacity = 0;
    lines.clear();
}

Status DebugLines::reloadShaders(const std::string& shaderDir) {
    return program.replaceFrom(shaderDir, "lines.vert", "lines.frag");
}

void DebugLines::add(const glm::vec3& a, const glm::vec3& b, uint32_t rgba) {
    lines.push_back({a, rgba});
    lines.push_back({b, rgba});
}

void DebugLines::addBox(const Box& box, uint32_t rgba) {
    const glm::vec3& p = box.min;
    const glm::vec3& q = box.max;
    const glm::vec3 c[8] = {{p.x, p.y, p.z}, {q.x, p.y, p.z}, {q.x, p.y, q.z}, {p.x, p.y, q.z},
                            {p.x, q.y, p.z}, {q.x, q.y, p.z}, {q.x, q.y, q.z}, {p.x, q.y, q.z}};
    for (int i = 0; i < 4; ++i) {
        add(c[i], c[(i + 1) % 4], rgba);          // bottom
        add(c[4 + i], c[4 + (i + 1) % 4], rgba);  // top
        add(c[i], c[4 + i], rgba);                // sides
    }
}

void DebugLines::addFrustum(const std::array<glm::vec3, 8>& c, uint32_t rgba) {
    for (const auto& edge : Frustum::kEdges) {
        add(c[size_t(edge[0])], c[size_t(edge[1])], rgba);
    }
}

void DebugLines::draw(const glm::mat4& viewProjection) {
    if (lines.empty()) {
        return;
    }
    glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer);
    if (lines.size() > bufferCapacity) {
        bufferCapacity = lines.capacity();
    }
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bufferCapacity * sizeof(LineVertex)), nullptr,
                 GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(lines.size() * sizeof(LineVertex)),
                    lines.data());
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glUseProgram(program.id);
    glUniformMatrix4fv(program.uniform("viewProjection"), 1, GL_FALSE,
                       glm::value_ptr(viewProjection));
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glBindVertexArray(vertexArray);
    glDrawArrays(GL_LINES, 0, GLsizei(lines.size()));
    glBindVertexArray(0);
    glDepthFunc(GL_LESS);
    glUseProgram(0);
}

}  // namespace qt
