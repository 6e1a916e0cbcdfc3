// Instanced object drawing: the drawn objects' ids (from the static objects' runs, expanded on the
// GPU or the CPU) and whole instances grouped by mesh into one upload each, then one draw per mesh
// and kind of instance data with the instance attributes pointed at its group (GL 3.3 has no base
// instance).
#include "render/object_renderer.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

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

void pointIds(GLuint idBuffer, size_t first) {
    glBindBuffer(GL_ARRAY_BUFFER, idBuffer);
    glVertexAttribIPointer(5, 1, GL_UNSIGNED_INT, sizeof(uint32_t),
                           reinterpret_cast<const void*>(first * sizeof(uint32_t)));
}

// The unit mesh's attributes 0-2 from `vertexBuffer` into the bound vertex array.
void pointMesh(GLuint vertexBuffer) {
    glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                          reinterpret_cast<const void*>(offsetof(MeshVertex, position)));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                          reinterpret_cast<const void*>(offsetof(MeshVertex, normal)));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(MeshVertex),
                          reinterpret_cast<const void*>(offsetof(MeshVertex, material)));
}

// The record texture's unit while objects draw (the terrain's draw leaves every unit unbound).
constexpr GLint kRecordUnit = 0;
constexpr GLint kObjectLightUnit = 1;  // the terrain's light under a Sun
// A streamed map's light: its page table, and its light pages' arrays on the units after it.
constexpr GLint kPageTableUnit = 2;
constexpr GLint kLightPagesUnit = 3;

// The defines of each ObjectProgram.
const char* const kObjectDefines[kObjectPrograms] = {
    "", "#define SUN\n", "#define SUN\n#define PAGED_LIGHT\n",
    "#define SUN\n#define PAGED_LIGHT\n#define MANY_HEIGHT_ARRAYS\n"};

}  // namespace

Result<ObjectRenderer> ObjectRenderer::create(const std::string& shaderDir) {
    ObjectRenderer r;
    r.shaderDir = shaderDir;
    std::vector<ProgramFamily::Variant> variants(3 * kObjectPrograms);
    for (int v = 0; v < kObjectPrograms; ++v) {
        variants[size_t(v)].defines = kObjectDefines[v];
        variants[size_t(kObjectPrograms + v)].defines =
            std::string("#define IMPOSTOR\n") + kObjectDefines[v];
        variants[size_t(2 * kObjectPrograms + v)].defines =
            std::string("#define BAND\n") + kObjectDefines[v];
    }
    // The others when first drawn (submit); the band's arm is checked here, as the check's
    // defines (the impostor's) do not reach it.
    variants[kObjectsFixedLight].atReload = true;
    variants[2 * kObjectPrograms + kObjectsFixedLight].atReload = true;
    r.programs = ProgramFamily(
        "objects.vert", "objects.frag", std::move(variants),
        std::string("#define IMPOSTOR\n") + kObjectDefines[kObjectsPagedLightManyArrays]);
    if (Status loaded = r.reloadShaders(); !loaded) {
        return Result<ObjectRenderer>::failure(loaded.error());
    }
    glGenBuffers(1, &r.instanceBuffer);
    glGenBuffers(1, &r.idBuffer);
    glGenBuffers(1, &r.recordBuffer);
    glGenTextures(1, &r.recordTexture);
    glGenBuffers(1, &r.runBuffer);
    glGenBuffers(1, &r.selectedBuffer);
    if (computeAvailable()) {
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &r.storageLimit);
    }
    for (int i = 0; i < kObjectMeshes; ++i) {
        const Mesh mesh = objectMesh(ObjectMesh(i));
        MeshGpu& g = r.meshes[size_t(i)];
        glGenVertexArrays(1, &g.vertexArray);
        glGenVertexArrays(1, &g.idVertexArray);
        glGenBuffers(1, &g.vertexBuffer);
        glGenBuffers(1, &g.indexBuffer);
        glBindBuffer(GL_ARRAY_BUFFER, g.vertexBuffer);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(mesh.vertices.size() * sizeof(MeshVertex)),
                     mesh.vertices.data(), GL_STATIC_DRAW);
        glBindVertexArray(g.vertexArray);
        pointMesh(g.vertexBuffer);
        pointInstances(r.instanceBuffer, 0);
        for (GLuint a = 3; a <= 5; ++a) {
            glEnableVertexAttribArray(a);
            glVertexAttribDivisor(a, 1);
        }
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.indexBuffer);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(mesh.indices.size() * sizeof(uint16_t)),
                     mesh.indices.data(), GL_STATIC_DRAW);
        // By id: attribute 5 is the id; 3 and 4 stay off (the shader reads the record).
        glBindVertexArray(g.idVertexArray);
        pointMesh(g.vertexBuffer);
        pointIds(r.idBuffer, 0);
        glEnableVertexAttribArray(5);
        glVertexAttribDivisor(5, 1);
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.indexBuffer);
        g.indexCount = GLsizei(mesh.indices.size());
        glBindVertexArray(0);
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, 0);
    return r;
}

void ObjectRenderer::destroy() {
    programs.destroy();
    for (MeshGpu& g : meshes) {
        glDeleteBuffers(1, &g.vertexBuffer);
        glDeleteBuffers(1, &g.indexBuffer);
        glDeleteVertexArrays(1, &g.vertexArray);
        glDeleteVertexArrays(1, &g.idVertexArray);
        g = {};
    }
    const auto drop = [](GLuint& buffer, size_t& capacity) {
        glDeleteBuffers(1, &buffer);
        buffer = 0;
        capacity = 0;
    };
    drop(instanceBuffer, instanceCapacity);
    drop(idBuffer, idCapacity);
    drop(runBuffer, runCapacity);
    drop(selectedBuffer, selectedCapacity);
    glDeleteTextures(1, &recordTexture);
    recordTexture = 0;
    glDeleteBuffers(1, &recordBuffer);
    recordBuffer = 0;
    recordsSerial = 0;
    recordsHeld = false;
    expand.destroy();
    selectedSent = false;
}

bool ObjectRenderer::computeAvailable() {
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    return (major > 4 || (major == 4 && minor >= 3)) && GLAD_GL_ARB_compute_shader &&
           GLAD_GL_ARB_shader_storage_buffer_object && GLAD_GL_ARB_shader_image_load_store;
}

Status ObjectRenderer::reloadShaders() {
    // The compute program first, so that a failure of either changes nothing.
    Result<ShaderProgram> built = ShaderProgram{};
    if (computeAvailable()) {
        built = ShaderProgram::computeFrom(shaderDir, "object_runs.comp");
        if (!built) {
            return Status::failure(built.error());
        }
    }
    if (Status loaded = programs.reload(shaderDir); !loaded) {
        built.value().destroy();
        return loaded;
    }
    expand.destroy();
    expand = built.value();
    return {};
}

namespace {

// The ids the draws read: every mesh's.
size_t idTotal(const ObjectInstances& in) {
    return std::accumulate(in.idCounts.begin(), in.idCounts.end(), size_t(0));
}

// Makes `buffer` hold at least `needed` elements of `bytes` each: the larger of that and half as
// many again as it held, so that frames drawing more objects in the band between mesh and
// impostor than any before (each drawn both ways) grow it rarely.
void holdAtLeast(GLuint buffer, size_t& capacity, size_t needed, size_t bytes) {
    if (needed <= capacity) {
        return;
    }
    capacity = std::max(needed, capacity + capacity / 2);
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(capacity * bytes), nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

}  // namespace

void ObjectRenderer::reserve(uint32_t count) {
    instances.reserve(count);
    runs.reserve(count);
    runEntries.reserve(2 * size_t(count));
    holdAtLeast(instanceBuffer, instanceCapacity, count, sizeof(ObjectInstance));
    holdAtLeast(idBuffer, idCapacity, count, sizeof(uint32_t));
}

bool ObjectRenderer::holdRecords(const ObjectScene& scene) {
    if (recordsSerial == scene.serial()) {
        return recordsHeld;
    }
    recordsSerial = scene.serial();
    GLint texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
    recordsHeld = uint64_t(scene.firstBall()) * kTexelsPerRecord <= uint64_t(std::max(texels, 0));
    if (!recordsHeld) {
        return false;
    }
    std::vector<float> records;  // by place (prepare made the order)
    objectRecordTexels(scene, records, order.ids());
    glBindBuffer(GL_TEXTURE_BUFFER, recordBuffer);
    // At least one texel, so that a scene of balls alone still binds a valid texture.
    glBufferData(GL_TEXTURE_BUFFER, GLsizeiptr(std::max<size_t>(records.size(), 4) * sizeof(float)),
                 records.empty() ? nullptr : records.data(), GL_STATIC_DRAW);
    glBindTexture(GL_TEXTURE_BUFFER, recordTexture);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, recordBuffer);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    return true;
}

void ObjectRenderer::prepare(const ObjectScene& scene, const std::vector<uint32_t>& drawn,
                             const ObjectGroups* groups, const std::vector<uint8_t>& selected,
                             uint64_t selectionVersion, const Camera& camera, int viewportHeight) {
    gpuRuns = false;
    staticWhole.clear();
    if (drawn.empty() || viewportHeight <= 0) {
        instances.idCounts.fill(0);
        instances.counts.fill(0);
        instances.bandIds.fill(0);
        instances.bandWhole.fill(0);
        instances.sorted.clear();
        return;
    }
    reserve(scene.count());
    if (order.serial() != scene.serial()) {
        order = StaticOrder(scene);  // once per scene
        selectionShown = ~uint64_t(0);
    }
    const bool byId = staticById && holdRecords(scene);
    const MeshChoice choice(camera, viewportHeight, detail);
    bandBeyond = {choice.fineBeyond, choice.impostorBeyond};
    buildObjectInstances(scene, drawn, groups, selected, camera, viewportHeight,
                         StaticsSent::AsRuns, instances, detail);
    buildStaticRuns(order, scene, drawn, groups, camera, viewportHeight, runs, detail);
    countStaticRuns(runs, instances);
    if (selectionVersion != selectionShown) {  // a new selection: its places, once
        selectionShown = selectionVersion;
        selectedSent = false;
        selectedPlaces.clear();
        const size_t statics = std::min<size_t>(selected.size(), order.count());
        for (uint32_t id = 0; id < statics; ++id) {
            if (selected[id]) {
                selectedPlaces.push_back(order.place(id));
            }
        }
        std::sort(selectedPlaces.begin(), selectedPlaces.end());
    }
    if (!byId) {
        staticRunInstances(runs, order, scene, selectedPlaces, staticWhole);
        return;
    }
    gpuRuns = runsForGpu();
    if (!gpuRuns) {
        expandStaticRuns(runs, selectedPlaces, instances);
    }
}

bool ObjectRenderer::runsForGpu() {
    if (!expandOnGpu || expand.id == 0) {
        return false;
    }
    // The runs in the id lists' order, each with its first entry: a fine mesh's band list's
    // runs marked as the impostors' band runs are.
    runEntries.clear();
    uint32_t entry = 0;
    for (int list = 0; list < kStaticLists; ++list) {
        const bool fineBand =
            list == int(StaticList::TreeFineBand) || list == int(StaticList::RockFineBand);
        for (const StaticRun& run : runs.runs[size_t(list)]) {
            runEntries.push_back(run.first | (fineBand ? kBandRun : 0u));
            runEntries.push_back(entry);
            entry += run.count;
        }
    }
    const auto fits = [this](size_t words) {
        return GLint64(words * sizeof(uint32_t)) <= storageLimit;
    };
    return !runEntries.empty() && fits(runEntries.size()) && fits(entry) &&
           fits(selectedPlaces.size());
}

void ObjectRenderer::expandRunsOnGpu(size_t ids) {
    const size_t runCount = runEntries.size() / 2;
    if (runCount > runCapacity) {
        runCapacity = std::max(runCount, runCapacity + runCapacity / 2);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, runBuffer);
        glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(runCapacity * 2 * sizeof(uint32_t)),
                     nullptr, GL_STREAM_DRAW);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, runBuffer);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(runEntries.size() * sizeof(uint32_t)),
                    runEntries.data());
    uploadBytes += runEntries.size() * sizeof(uint32_t);
    if (!selectedSent) {  // at least one entry, so that the buffer binds
        const size_t count = std::max<size_t>(selectedPlaces.size(), 1);
        glBindBuffer(GL_SHADER_STORAGE_BUFFER, selectedBuffer);
        if (count > selectedCapacity) {
            selectedCapacity = count;
            glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(count * sizeof(uint32_t)), nullptr,
                         GL_STATIC_DRAW);
        }
        if (!selectedPlaces.empty()) {
            glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0,
                            GLsizeiptr(selectedPlaces.size() * sizeof(uint32_t)),
                            selectedPlaces.data());
            uploadBytes += selectedPlaces.size() * sizeof(uint32_t);
        }
        selectedSent = true;
    }
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, runBuffer);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, selectedBuffer);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 2, idBuffer, 0, GLsizeiptr(ids * sizeof(uint32_t)));
    glUseProgram(expand.id);
    glUniform1ui(expand.uniform("runCount"), GLuint(runCount));
    glUniform1ui(expand.uniform("total"), GLuint(ids));
    glUniform1ui(expand.uniform("selectedCount"), GLuint(selectedPlaces.size()));
    glDispatchCompute(GLuint((runCount + 63) / 64), 1, 1);
    // The draws read the ids as instance attributes.
    glMemoryBarrier(GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT);
    for (GLuint binding = 0; binding < 3; ++binding) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, 0);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    glUseProgram(0);
}

void ObjectRenderer::upload() {
    const size_t ids = idTotal(instances);
    uploadBytes = 0;
    expandedOnGpu = false;
    if (ids + instances.sorted.size() + staticWhole.size() == 0) {
        return;
    }
    // The static objects whole (staticWhole) follow the balls in instanceBuffer.
    const size_t whole = instances.sorted.size() + staticWhole.size();
    const bool staticsWhole = !staticWhole.empty();
    holdAtLeast(instanceBuffer, instanceCapacity, whole, sizeof(ObjectInstance));
    holdAtLeast(idBuffer, idCapacity, ids, sizeof(uint32_t));
    glBindBuffer(GL_ARRAY_BUFFER, instanceBuffer);
    glBufferSubData(GL_ARRAY_BUFFER, 0,
                    GLsizeiptr(instances.sorted.size() * sizeof(ObjectInstance)),
                    instances.sorted.data());
    if (staticsWhole) {
        glBufferSubData(GL_ARRAY_BUFFER, GLintptr(instances.sorted.size() * sizeof(ObjectInstance)),
                        GLsizeiptr(staticWhole.size() * sizeof(ObjectInstance)),
                        staticWhole.data());
    }
    uploadBytes = whole * sizeof(ObjectInstance);
    expandedOnGpu = gpuRuns;
    if (expandedOnGpu) {
        expandRunsOnGpu(ids);
    } else if (!staticsWhole) {
        glBindBuffer(GL_ARRAY_BUFFER, idBuffer);
        size_t idFirst = 0;
        for (int i = 0; i < kObjectMeshes; ++i) {
            const size_t count = instances.idCounts[size_t(i)];
            if (count > 0) {
                glBufferSubData(GL_ARRAY_BUFFER, GLintptr(idFirst * sizeof(uint32_t)),
                                GLsizeiptr(count * sizeof(uint32_t)), instances.ids(i));
            }
            idFirst += count;
        }
        uploadBytes += ids * sizeof(uint32_t);
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
}

int ObjectRenderer::submit(const Camera& camera) {
    const size_t ids = idTotal(instances);
    if (ids + instances.sorted.size() + staticWhole.size() == 0) {
        return 0;
    }
    const bool staticsWhole = !staticWhole.empty();
    const TerrainGpu* paged =
        sun && sun->pages != nullptr && sun->pages->lightPaged() ? sun->pages : nullptr;
    const int light =
        !sun     ? kObjectsFixedLight
        : !paged ? kObjectsSunLight
                 : (paged->heightArrays > 1 ? kObjectsPagedLightManyArrays : kObjectsPagedLight);
    // The meshes', the impostors' and the band's meshes' programs, each made ready as it is
    // first used.
    const ShaderProgram* inUse = nullptr;
    const auto use = [&](bool impostor, bool band) {
        const ShaderProgram& program = programs.program(light + (impostor ? kObjectPrograms
                                                                 : band   ? 2 * kObjectPrograms
                                                                          : 0));
        if (&program == inUse) {
            return true;
        }
        if (program.id == 0) {
            return false;  // it failed to compile (ProgramFamily::lateFailure): not drawn
        }
        inUse = &program;
        glUseProgram(program.id);
        const glm::mat4 viewProjection = camera.viewProjectionFromEye();
        glUniformMatrix4fv(program.uniform("viewProjection"), 1, GL_FALSE,
                           glm::value_ptr(viewProjection));
        glUniform3f(program.uniform("eye"), camera.position.x, camera.position.y,
                    camera.position.z);
        glUniform1f(program.uniform("farPlane"), camera.farPlane);
        glUniform2f(program.uniform("bandBeyond"), bandBeyond.x, bandBeyond.y);
        glUniform1f(program.uniform("fogStart"), fog.startFor(camera.farPlane));
        glUniform3f(program.uniform("fogColour"), kSkyColour[0], kSkyColour[1], kSkyColour[2]);
        glUniform1i(program.uniform("daylight"), sky ? 1 : 0);
        // The sky's table has a unit of its own even unused: two sampler types on one unit (the
        // records' buffer on unit 0) make the draw fail.
        glUniform1i(program.uniform("skyTable"), kSkyUnit);
        glUniform1i(program.uniform("shadows"), kObjectLightUnit);
        // Every sampler on a unit of its own, used or not (see the sky's table above).
        glUniform1i(program.uniform("pageTable"), kPageTableUnit);
        GLint pageUnits[kMaxHeightArrays];
        for (int a = 0; a < kMaxHeightArrays; ++a) {
            pageUnits[a] = kLightPagesUnit + a;
        }
        glUniform1iv(program.uniform("lightPages"), kMaxHeightArrays, pageUnits);
        if (paged != nullptr) {
            glActiveTexture(GLenum(GL_TEXTURE0 + kPageTableUnit));
            glBindTexture(GL_TEXTURE_2D, paged->pageTable);
            for (int a = 0; a < kMaxHeightArrays; ++a) {
                glActiveTexture(GLenum(GL_TEXTURE0 + kLightPagesUnit + a));
                glBindTexture(GL_TEXTURE_2D_ARRAY,
                              paged->lightPages[a < paged->heightArrays ? a : 0]);
            }
            setPageTableRows(program.uniform("pageTableRow"), paged->pages);
            glUniform1i(program.uniform("pageLevels"), GLint(paged->pages.level.size()));
            glUniform1i(program.uniform("pageShift"), paged->pages.pageShift);
            glUniform1i(program.uniform("layersPerArray"), paged->layersPerArray);
        }
        if (sun) {
            glUniform3f(program.uniform("sunDirection"), sun->towards.x, sun->towards.y,
                        sun->towards.z);
            glUniform1i(program.uniform("lightShown"), sun->light != 0 || paged != nullptr ? 1 : 0);
            glUniform2i(program.uniform("shadowLayerSize"), std::max(sun->layerSize.x, 1),
                        std::max(sun->layerSize.y, 1));
            glUniform1i(program.uniform("shadowLayersAcross"), std::max(sun->layersAcross, 1));
            glUniform2f(program.uniform("spacing"), sun->spacing.x, sun->spacing.y);
            glUniform2i(program.uniform("mapSize"), sun->mapSize.x, sun->mapSize.y);
            glActiveTexture(GLenum(GL_TEXTURE0 + kObjectLightUnit));
            glBindTexture(GL_TEXTURE_2D_ARRAY, sun->light);
        }
        if (sky) {
            setSkyUniforms(program, *sky);
        }
        glUniform1i(program.uniform("records"), kRecordUnit);
        glActiveTexture(GLenum(GL_TEXTURE0 + kRecordUnit));
        glBindTexture(GL_TEXTURE_BUFFER, recordTexture);
        return true;
    };
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    int draws = 0;
    // The whole instances first, then those by id (or the static objects whole in their place,
    // on a GPU that cannot hold their records): the same order in every frame, so that objects
    // meeting at equal depth win the same pixels in culled and unculled frames. A fine mesh's
    // list in two draws: its objects out of the band, then those in it (at its end).
    for (const bool fromIds : {false, true}) {
        size_t first = 0;
        for (int i = 0; i < kObjectMeshes; ++i) {
            const MeshGpu& g = meshes[size_t(i)];
            const uint32_t count =
                fromIds ? instances.idCounts[size_t(i)] : instances.counts[size_t(i)];
            const bool impostor = isImpostor(ObjectMesh(i));
            const size_t shape = i == int(ObjectMesh::TreeFine) ? 0 : 1;
            const uint32_t band =
                impostor ? 0u : (fromIds ? instances.bandIds[shape] : instances.bandWhole[shape]);
            for (const bool inBand : {false, true}) {
                const uint32_t part = inBand ? band : count - band;
                if (part > 0 && use(impostor, inBand)) {
                    const bool readIds = fromIds && !staticsWhole;
                    glUniform1i(inUse->uniform("byId"), readIds ? 1 : 0);
                    glBindVertexArray(readIds ? g.idVertexArray : g.vertexArray);
                    if (readIds) {
                        pointIds(idBuffer, first);
                    } else {
                        pointInstances(instanceBuffer,
                                       first + (fromIds ? instances.sorted.size() : 0));
                    }
                    glDrawElementsInstanced(GL_TRIANGLES, g.indexCount, GL_UNSIGNED_SHORT, nullptr,
                                            GLsizei(part));
                    ++draws;
                }
                first += part;
            }
        }
    }
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    if (paged != nullptr) {
        for (int a = 0; a < kMaxHeightArrays; ++a) {
            glActiveTexture(GLenum(GL_TEXTURE0 + kLightPagesUnit + a));
            glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        }
        glActiveTexture(GLenum(GL_TEXTURE0 + kPageTableUnit));
        glBindTexture(GL_TEXTURE_2D, 0);
        glActiveTexture(GL_TEXTURE0);
    }
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glUseProgram(0);
    return draws;
}

}  // namespace qt
