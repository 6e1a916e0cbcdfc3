// The Python module `quadterrain` (pybind11 and numpy): maps opened as the viewer opens them,
// cameras, the frame pipeline's counts and visible leaves, picking, objects, and pictures
// rendered headless into numpy arrays. Built on the installed headers only
// (src/public_headers.txt): the module is a program using the library like any other.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cull/pick.h"
#include "core/frame/frame.h"
#include "core/io/load.h"
#include "core/io/memory_budget.h"
#include "core/lod/lod.h"
#include "core/objects/pick.h"
#include "core/objects/scene.h"
#include "core/streaming/open_map.h"
#include "core/terrain/world.h"
#include "core/view/camera_fit.h"
#include "render/offscreen.h"

namespace py = pybind11;

namespace qt {
namespace {

constexpr float kDefaultFovDegrees = 60.0f;

[[noreturn]] void fail(const std::string& message) {
    throw std::runtime_error(message);
}

// The viewer's budget: --memory-budget's MiB when given (0: none), else half the machine's
// memory.
LoadOptions loadOptions(std::optional<uint64_t> memoryBudgetMb) {
    LoadOptions load;
    load.memory.limitBytes =
        memoryBudgetMb ? *memoryBudgetMb * 1024 * 1024 : defaultMemoryBudgetBytes();
    return load;
}

// What the queries read, wherever the map lives (a Map here, or a Renderer's terrain).
struct Scene {
    const Heightmap* map;
    const Quadtree* tree;
    const WorldMapping* mapping;
    const ObjectScene* objects;
};

py::dict georeferenceDict(const Georeference& g) {
    py::dict d;
    d["crs"] = g.crsName;
    d["geographic"] = g.geographic;
    d["west"] = g.west;
    d["east"] = g.east;
    d["north"] = g.north;
    d["south"] = g.south;
    d["metres_x"] = g.metresX;
    d["metres_z"] = g.metresZ;
    return d;
}

py::dict mappingDict(const WorldMapping& m) {
    py::dict d;
    d["spacing_x"] = m.spacingX;
    d["spacing_z"] = m.spacingZ;
    d["height_scale"] = m.heightScale;
    d["height_offset"] = m.heightOffset;
    return d;
}

py::dict statsDict(const FrameStats& s) {
    py::dict d;
    d["leaves_total"] = s.leavesTotal;
    d["leaves_drawn"] = s.cull.leavesDrawn;
    d["leaves_culled"] = s.cull.leavesCulled;
    d["leaves_occluded"] = s.cull.leavesOccluded;
    d["nodes_tested"] = s.cull.nodesTested;
    d["subtrees_accepted"] = s.cull.subtreesAccepted;
    d["triangles"] = s.cull.triangles;
    d["lod"] = s.lod;
    d["lod_nodes_drawn"] = s.lodStats.nodesDrawn;
    d["lod_deepest_level"] = s.lodStats.deepestLevel;
    d["cull_ms"] = s.cullMs;
    py::dict objects;
    objects["total"] = s.objects.total;
    objects["drawn"] = s.objects.drawn;
    objects["culled"] = s.objects.culled;
    objects["occluded"] = s.objects.occluded;
    objects["nodes_tested"] = s.objects.nodesTested;
    objects["cull_ms"] = s.objects.cullMs;
    d["objects"] = objects;
    d["draw_calls"] = s.drawCalls + s.objectDrawCalls;
    d["frame_ms"] = s.frameMs;
    return d;
}

// The frame's drawn boxes (leaves, or nodes with level of detail) as [x0, z0, x1, z1] samples,
// the drawn leaves as [col, row], and the drawn objects' ids.
py::dict frameDict(const Scene& scene, const FrameBuffers& frame, const FrameStats& stats) {
    py::dict d = statsDict(stats);
    const Quadtree& tree = *scene.tree;
    std::vector<LeafCoord> leaves;
    std::vector<int32_t> boxes;
    if (stats.lod) {
        for (const DrawNode& n : frame.lod.nodes) {
            const SampleBox box = levelNodeBox(tree, n.level, n.col, n.row);
            boxes.insert(boxes.end(), {box.x0, box.z0, box.x1, box.z1});
        }
    } else {
        for (const LeafRange& run : frame.drawn) {
            for (uint32_t i = run.first; i < run.first + run.count; ++i) {
                leaves.push_back(tree.leaves[i]);
                const QuadtreeNode& node = tree.nodes[tree.leafNodes[i]];
                boxes.insert(boxes.end(), {node.x0, node.z0, node.x1(), node.z1()});
            }
        }
    }
    py::array_t<int32_t> leafArray({py::ssize_t(leaves.size()), py::ssize_t(2)});
    auto l = leafArray.mutable_unchecked<2>();
    for (size_t i = 0; i < leaves.size(); ++i) {
        l(py::ssize_t(i), 0) = leaves[i].col;
        l(py::ssize_t(i), 1) = leaves[i].row;
    }
    py::array_t<int32_t> boxArray({py::ssize_t(boxes.size() / 4), py::ssize_t(4)});
    auto b = boxArray.mutable_unchecked<2>();
    for (size_t i = 0; i < boxes.size(); ++i) {
        b(py::ssize_t(i / 4), py::ssize_t(i % 4)) = boxes[i];
    }
    d["leaves"] = leafArray;
    d["boxes"] = boxArray;
    d["objects_drawn"] =
        py::array_t<uint32_t>(py::ssize_t(frame.objectsDrawn.size()), frame.objectsDrawn.data());
    return d;
}

float lodPixelsOf(const Scene& scene, std::optional<float> lod) {
    return lod ? *lod : autoLodPixels(scene.map->width, scene.map->height);
}

void checkViewport(int width, int height) {
    if (width < 1 || height < 1 || width > 16384 || height > 16384) {
        fail("viewport " + std::to_string(width) + "x" + std::to_string(height) +
             " is not between 1x1 and 16384x16384");
    }
}

py::object pickAt(const Scene& scene, const Camera& camera, float x, float y, int width,
                  int height) {
    checkViewport(width, height);
    const PickRay ray = pixelRay(camera, x, y, width, height);
    const PickHit hit = pickTerrain(*scene.map, *scene.tree, *scene.mapping, ray);
    std::optional<ObjectPickHit> object;
    if (scene.objects != nullptr) {
        object = pickObjectBefore(*scene.objects, ray, hit);
    }
    if (!hit.hit && !object) {
        return py::none();
    }
    py::dict d;
    d["hit"] = hit.hit;
    if (hit.hit) {
        d["world"] = py::make_tuple(hit.world.x, hit.world.y, hit.world.z);
        d["sample"] = py::make_tuple(hit.col, hit.row);
        d["height"] = scene.map->at(hit.col, hit.row);
    }
    if (object) {
        py::dict o;
        o["id"] = object->id;
        o["kind"] = objectKindName(object->kind);
        o["world"] = py::make_tuple(object->world.x, object->world.y, object->world.z);
        d["object"] = o;
    } else {
        d["object"] = py::none();
    }
    return d;
}

py::dict objectsDict(const ObjectScene* objects) {
    const uint32_t count = objects ? objects->count() : 0;
    py::array_t<float> boxes({py::ssize_t(count), py::ssize_t(2), py::ssize_t(3)});
    py::list kinds;
    auto b = boxes.mutable_unchecked<3>();
    for (uint32_t id = 0; id < count; ++id) {
        const Box box = objects->box(id);
        for (int k = 0; k < 3; ++k) {
            b(id, 0, k) = box.min[k];
            b(id, 1, k) = box.max[k];
        }
        kinds.append(objectKindName(objects->kind(id)));
    }
    py::dict d;
    d["count"] = count;
    d["moving"] = objects ? objects->movingCount() : 0u;
    d["size_scale"] = objects ? objects->sizeScale() : 1.0f;
    d["boxes"] = boxes;
    d["kinds"] = kinds;
    return d;
}

Camera makeCamera(const Heightmap& map, const WorldMapping& mapping,
                  const std::array<float, 3>& eye, const std::array<float, 3>& target,
                  float fovDegrees, int width, int height) {
    checkViewport(width, height);
    if (!(fovDegrees > 0.0f && fovDegrees < 180.0f)) {
        fail("fov " + std::to_string(fovDegrees) + " is not between 0 and 180 degrees");
    }
    const glm::vec3 e(eye[0], eye[1], eye[2]), t(target[0], target[1], target[2]);
    if (!std::isfinite(e.x + e.y + e.z + t.x + t.y + t.z) || e == t) {
        fail("eye and target must be finite and apart");
    }
    Camera camera;
    camera.fovY = fovDegrees * 3.14159265f / 180.0f;
    camera.aspect = float(width) / float(height);
    camera.lookAt(e, t);
    fitClipPlanes(camera, map, mapping);
    return camera;
}

// A map opened as the viewer opens it (whole, or streamed when over the memory budget or asked),
// with its tree's exact errors and the frame pipeline's buffers: everything but pictures.
class Map {
public:
    Map(const std::string& path, int leafSize, bool stream,
        std::optional<uint64_t> memoryBudgetMb) {
        Result<OpenedMap> opened =
            openMapWithTree(path, loadOptions(memoryBudgetMb), leafSize, stream);
        if (!opened) {
            fail(opened.error());
        }
        path_ = path;
        streamed_ = opened.value().streamed;
        map_ = std::move(opened.value().map);
        tree_ = std::move(opened.value().tree);
        mapping_ = defaultMapping(map_);
        frame_.reserveFor(tree_);
    }

    Scene scene() const { return {&map_, &tree_, &mapping_, objects_.get()}; }
    const Heightmap& map() const { return map_; }
    const Quadtree& tree() const { return tree_; }
    const WorldMapping& mapping() const { return mapping_; }
    const std::string& path() const { return path_; }
    bool streamed() const { return streamed_; }

    py::dict cull(const Camera& camera, int width, int height, bool occlusion,
                  std::optional<float> lod) {
        checkViewport(width, height);
        const Scene s = scene();
        const CullView view{camera, height, true, occlusion, lodPixelsOf(s, lod)};
        const FrameStats stats =
            runFrame(map_, tree_, mapping_, view, frame_, objects_ ? &objects_->index() : nullptr);
        return frameDict(s, frame_, stats);
    }

    void scatterObjects(uint32_t count, uint32_t moving, uint64_t seed) {
        objects_.reset();
        if (count == 0) {
            return;
        }
        Result<ObjectScene> scene = ObjectScene::scatter(map_, mapping_, count, moving, seed);
        if (!scene) {
            fail(scene.error());
        }
        objects_ = std::make_unique<ObjectScene>(std::move(scene).value());
        frame_.reserveObjects(count);
    }

    void stepObjects(int steps) {
        for (int i = 0; objects_ && objects_->movingCount() > 0 && i < steps; ++i) {
            objects_->step(map_, mapping_);
        }
    }

    const ObjectScene* objects() const { return objects_.get(); }

private:
    std::string path_;
    bool streamed_ = false;
    Heightmap map_;
    Quadtree tree_;
    WorldMapping mapping_;
    FrameBuffers frame_;
    std::unique_ptr<ObjectScene> objects_;
};

// The map as a numpy array of its 16-bit codes, sharing the map's memory (read-only), kept alive
// by the Python object that owns the map.
py::array codesArray(const Heightmap& map, py::handle owner) {
    py::array_t<uint16_t> a(
        {py::ssize_t(map.height), py::ssize_t(map.width)},
        {py::ssize_t(map.width) * py::ssize_t(sizeof(uint16_t)), py::ssize_t(sizeof(uint16_t))},
        map.codes.data(), owner);
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return std::move(a);
}

// World heights y of every sample, as float32 (a copy).
py::array_t<float> heightsArray(const Heightmap& map, const WorldMapping& mapping) {
    py::array_t<float> a({py::ssize_t(map.height), py::ssize_t(map.width)});
    auto h = a.mutable_unchecked<2>();
    const HeightTransform t = heightTransform(map.coding, mapping);
    for (int row = 0; row < map.height; ++row) {
        for (int col = 0; col < map.width; ++col) {
            h(row, col) = t.worldHeight(float(map.codeAt(col, row)));
        }
    }
    return a;
}

template <class Owner>
void addMapProperties(py::class_<Owner>& c) {
    c.def_property_readonly("width", [](const Owner& o) { return o.map().width; })
        .def_property_readonly("height", [](const Owner& o) { return o.map().height; })
        .def_property_readonly("leaf_size", [](const Owner& o) { return o.tree().leafSize; })
        .def_property_readonly("streamed", &Owner::streamed)
        .def_property_readonly("metres", [](const Owner& o) { return o.map().metres; })
        .def_property_readonly("mapping", [](const Owner& o) { return mappingDict(o.mapping()); })
        .def_property_readonly("georeference",
                               [](const Owner& o) -> py::object {
                                   const Georeference& g = o.map().geo;
                                   return g.present ? py::object(georeferenceDict(g)) : py::none();
                               })
        .def_property_readonly("lod_errors",
                               [](const Owner& o) { return lodErrorsName(o.tree().lodErrors); })
        .def_property_readonly(
            "codes", [](py::object self) { return codesArray(self.cast<Owner&>().map(), self); },
            "The samples' 16-bit codes, rows first, sharing the map's memory (read-only).")
        .def(
            "heights", [](const Owner& o) { return heightsArray(o.map(), o.mapping()); },
            "World heights y of every sample (float32 copy, rows first).")
        .def(
            "camera",
            [](const Owner& o, std::array<float, 3> eye, std::array<float, 3> target, float fov,
               int width, int height) {
                return makeCamera(o.map(), o.mapping(), eye, target, fov, width, height);
            },
            py::arg("eye"), py::arg("target"), py::arg("fov") = kDefaultFovDegrees,
            py::arg("width") = 1280, py::arg("height") = 720,
            "A camera at `eye` looking at `target`, clip planes fitted to the map.")
        .def(
            "overview_camera",
            [](const Owner& o, float fov, int width, int height) {
                checkViewport(width, height);
                return overviewCamera(o.map(), o.mapping(), float(width) / float(height),
                                      fov * 3.14159265f / 180.0f);
            },
            py::arg("fov") = kDefaultFovDegrees, py::arg("width") = 1280, py::arg("height") = 720,
            "The whole map in view.")
        .def(
            "pick",
            [](const Owner& o, const Camera& camera, float x, float y, int width, int height) {
                return pickAt(o.scene(), camera, x, y, width, height);
            },
            py::arg("camera"), py::arg("x"), py::arg("y"), py::arg("width") = 1280,
            py::arg("height") = 720,
            "What window pixel (x, y) (origin top-left, centres at +0.5) shows: the terrain point "
            "and the object in front of it, or None.")
        .def_property_readonly("objects", [](const Owner& o) { return objectsDict(o.objects()); });
}

class Renderer {
public:
    Renderer(const std::string& path, int width, int height, int leafSize, bool stream,
             std::optional<uint64_t> memoryBudgetMb) {
        checkViewport(width, height);
        OffscreenOptions options;
        options.width = width;
        options.height = height;
        options.view.leafSize = leafSize;
        options.view.stream = stream;
        options.view.load = loadOptions(memoryBudgetMb);
        Result<OffscreenRenderer> opened = OffscreenRenderer::open(path, options);
        if (!opened) {
            fail(opened.error());
        }
        r_ = std::make_unique<OffscreenRenderer>(std::move(opened).value());
    }

    const TerrainView& view() const { return r_->view(); }
    Scene scene() const {
        return {&view().map(), &view().tree(), &view().mapping(), view().objects()};
    }
    const Heightmap& map() const { return view().map(); }
    const Quadtree& tree() const { return view().tree(); }
    const WorldMapping& mapping() const { return view().mapping(); }
    bool streamed() const { return view().streamed(); }
    const ObjectScene* objects() const { return view().objects(); }
    OffscreenRenderer& offscreen() { return *r_; }

    py::array_t<uint8_t> render(const Camera& camera, bool cull, bool occlusion,
                                std::optional<float> lod) {
        ViewFrame frame;
        frame.cull = cull;
        frame.occlusion = occlusion;
        frame.lodPixels = lod ? std::max(*lod, 0.0f) : -1.0f;
        Result<FrameStats> stats = r_->render(camera, rgba_, frame);
        if (!stats) {
            fail(stats.error());
        }
        last_ = stats.value();
        const int w = r_->width(), h = r_->height();
        py::array_t<uint8_t> image({py::ssize_t(h), py::ssize_t(w), py::ssize_t(3)});
        auto out = image.mutable_unchecked<3>();
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const uint8_t* p = &rgba_[(size_t(y) * size_t(w) + size_t(x)) * 4];
                out(y, x, 0) = p[0];
                out(y, x, 1) = p[1];
                out(y, x, 2) = p[2];
            }
        }
        return image;
    }

    py::dict lastFrame() const { return frameDict(scene(), view().lastFrame(), last_); }

private:
    std::unique_ptr<OffscreenRenderer> r_;
    std::vector<uint8_t> rgba_;
    FrameStats last_;
};

}  // namespace
}  // namespace qt

PYBIND11_MODULE(_quadterrain, m) {
    using namespace qt;
    m.doc() = "quadterrain: heightmaps as quadtrees, culled exactly, rendered headless.";
    py::register_exception<std::runtime_error>(m, "Error", PyExc_RuntimeError);

    py::class_<Camera>(m, "Camera", "A fly camera: position, yaw and pitch, clip planes.")
        .def_property_readonly("position",
                               [](const Camera& c) {
                                   return py::make_tuple(c.position.x, c.position.y, c.position.z);
                               })
        .def_property_readonly("forward",
                               [](const Camera& c) {
                                   const glm::vec3 f = c.forward();
                                   return py::make_tuple(f.x, f.y, f.z);
                               })
        .def_readonly("yaw", &Camera::yaw)
        .def_readonly("pitch", &Camera::pitch)
        .def_readonly("fov_y", &Camera::fovY)
        .def_readonly("aspect", &Camera::aspect)
        .def_readonly("near", &Camera::nearPlane)
        .def_readonly("far", &Camera::farPlane)
        .def("__repr__", [](const Camera& c) {
            return "<quadterrain.Camera at (" + std::to_string(c.position.x) + ", " +
                   std::to_string(c.position.y) + ", " + std::to_string(c.position.z) + ")>";
        });

    py::class_<Map> map(m, "Map",
                        "A heightmap opened as the viewer opens it (whole or streamed), with its "
                        "quadtree: cull, pick and objects, no GL.");
    map.def(py::init<const std::string&, int, bool, std::optional<uint64_t>>(), py::arg("path"),
            py::arg("leaf_size") = kDefaultLeafSize, py::arg("stream") = false,
            py::arg("memory_budget_mb") = py::none())
        .def_property_readonly("path", &Map::path)
        .def(
            "cull",
            [](Map& self, const Camera& camera, int width, int height, bool occlusion,
               std::optional<float> lod) {
                return self.cull(camera, width, height, occlusion, lod);
            },
            py::arg("camera"), py::arg("width") = 1280, py::arg("height") = 720,
            py::arg("occlusion") = true, py::arg("lod") = py::none(),
            "Runs the frame pipeline for the camera: counts, the drawn leaves [col, row], the "
            "drawn boxes [x0, z0, x1, z1] in samples, the drawn objects' ids. lod: pixels of "
            "level of detail (0 full detail; None the viewer's default for the map's size).")
        .def(
            "scatter_objects",
            [](Map& self, uint32_t count, uint32_t moving, uint64_t seed) {
                self.scatterObjects(count, moving, seed);
            },
            py::arg("count"), py::arg("moving") = 0, py::arg("seed") = 1)
        .def("step_objects", &Map::stepObjects, py::arg("steps") = 1);
    addMapProperties(map);

    py::class_<Renderer> renderer(
        m, "Renderer",
        "A map drawn headless (EGL, no display): pictures as numpy arrays of height x width x 3 "
        "bytes. Its context is current on the thread that made it.");
    renderer
        .def(py::init<const std::string&, int, int, int, bool, std::optional<uint64_t>>(),
             py::arg("path"), py::arg("width") = 1280, py::arg("height") = 720,
             py::arg("leaf_size") = kDefaultLeafSize, py::arg("stream") = false,
             py::arg("memory_budget_mb") = py::none())
        .def("render", &Renderer::render, py::arg("camera"), py::arg("cull") = true,
             py::arg("occlusion") = true, py::arg("lod") = py::none(),
             "Culls and draws one frame; returns the picture (rows top first).")
        .def_property_readonly("last_frame", &Renderer::lastFrame,
                               "The last render's counts, drawn leaves, boxes and objects.")
        .def_property_readonly("gl_renderer",
                               [](Renderer& self) { return self.view().glRenderer(); })
        .def(
            "scatter_objects",
            [](Renderer& self, uint32_t count, uint32_t moving, uint64_t seed) {
                if (Status s = self.offscreen().view().scatterObjects(count, moving, seed); !s) {
                    fail(s.error());
                }
            },
            py::arg("count"), py::arg("moving") = 0, py::arg("seed") = 1)
        .def(
            "step_objects",
            [](Renderer& self, int steps) { self.offscreen().view().stepObjects(steps); },
            py::arg("steps") = 1);
    addMapProperties(renderer);
}
