// A small hand-written JSON emitter for the stats report and the viewer's state (no dependency for
// twenty keys).
#include "app/stats_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include <glm/trigonometric.hpp>

namespace qt {
namespace {

// Shortest text that reads back as the same float.
std::string number(float value) {
    if (!std::isfinite(value)) {
        return "null";
    }
    char text[40];
    const std::to_chars_result end = std::to_chars(text, text + sizeof(text), value);
    std::string result(text, end.ptr);
    if (result.find_first_of(".eE") == std::string::npos) {
        result += ".0";  // keep floats recognisable as floats
    }
    return result;
}

// Shortest text that reads back as the same double (coordinates of a georeference).
std::string number(double value) {
    if (!std::isfinite(value)) {
        return "null";
    }
    char text[40];
    const std::to_chars_result end = std::to_chars(text, text + sizeof(text), value);
    return std::string(text, end.ptr);
}

// The map's georeference (null without one) and heights: range, quantisation step, unit.
std::string georeferenceJson(const Heightmap& map) {
    const Georeference& g = map.geo;
    std::string j;
    if (g.present) {
        j += "  \"georeference\": {\"crs\": " + jsonString(g.crsName) +
             ", \"geographic\": " + (g.geographic ? "true" : "false") +
             ", \"west\": " + number(g.west) + ", \"east\": " + number(g.east) +
             ", \"north\": " + number(g.north) + ", \"south\": " + number(g.south) +
             ", \"metres_per_sample_x\": " + number(g.metresX) +
             ", \"metres_per_sample_z\": " + number(g.metresZ) + "},\n";
    } else {
        j += "  \"georeference\": null,\n";
    }
    j += "  \"heights\": {\"min\": " + number(map.minSample) +
         ", \"max\": " + number(map.maxSample) + ", \"step\": " + number(map.coding.step) +
         ", \"metres\": " + (map.metres ? "true" : "false") + "},\n";
    // Nodata samples: how many, their share of the map, and whether they are drawn as their fill
    // (--fill-nodata) rather than as holes.
    const NodataMask& n = map.nodata;
    j += "  \"nodata\": {\"samples\": " + std::to_string(n.samples) +
         ", \"share\": " + number(n.share()) + ", \"filled\": " + (n.filled ? "true" : "false") +
         "},\n";
    return j;
}

std::string milliseconds(double value) {
    char text[40];
    std::snprintf(text, sizeof(text), "%.4f", std::isfinite(value) ? value : 0.0);
    return text;
}

std::string vec3(const glm::vec3& v) {
    return "[" + number(v.x) + ", " + number(v.y) + ", " + number(v.z) + "]";
}

}  // namespace

std::string jsonString(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (u < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof(escape), "\\u%04x", u);
            out += escape;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string pickJson(const PickHit& hit, double height, const std::optional<GeoPoint>& geo,
                     const std::optional<ObjectPickHit>& object) {
    const std::string objectJson = object ? "{\"id\": " + std::to_string(object->id) +
                                                ", \"kind\": \"" + objectKindName(object->kind) +
                                                "\", \"world\": " + vec3(object->world) + "}"
                                          : "null";
    if (!hit.hit) {
        return "{\"hit\": false, \"world\": null, \"sample\": null, \"height\": null, "
               "\"lonlat\": null, \"crs_xy\": null, \"object\": " +
               objectJson + "}";
    }
    const std::string lonLat =
        geo && geo->hasLonLat ? "[" + number(geo->lon) + ", " + number(geo->lat) + "]" : "null";
    const std::string crs = geo ? "[" + number(geo->crsX) + ", " + number(geo->crsY) + "]" : "null";
    return "{\"hit\": true, \"world\": " + vec3(hit.world) + ", \"sample\": [" +
           std::to_string(hit.col) + ", " + std::to_string(hit.row) +
           "], \"height\": " + number(float(height)) + ", \"lonlat\": " + lonLat +
           ", \"crs_xy\": " + crs + ", \"object\": " + objectJson + "}";
}

std::string viewerStateJson(const ViewerState& s) {
    const Camera& c = s.camera;
    std::string j = "{\n";
    j += "  \"map\": " + jsonString(s.path) + ",\n";
    j += "  \"camera\": {\"eye\": " + vec3(c.position) + ", \"forward\": " + vec3(c.forward()) +
         ", \"yaw\": " + number(c.yaw) + ", \"pitch\": " + number(c.pitch) + "},\n";
    j += "  \"speed\": " + number(s.speed) + ",\n";
    j += "  \"flying\": " + std::string(s.flying ? "true" : "false") + ",\n";
    j += "  \"follow\": {\"on\": " + std::string(s.follow ? "true" : "false") +
         ", \"height\": " + number(s.followHeight) + "},\n";
    j += "  \"frames\": " + std::to_string(s.frames) + ",\n";
    j += "  \"seconds\": " + milliseconds(s.seconds) + ",\n";
    j += "  \"message\": " + jsonString(s.message) + ",\n";
    j += "  \"screenshot\": " + jsonString(s.screenshot) + ",\n";
    j += "  \"cursor\": " + pickJson(s.cursor, s.cursorHeight, s.cursorGeo, s.cursorObject) + ",\n";
    j += "  \"toggles\": {\"cull\": " + std::string(s.cull ? "true" : "false") +
         ", \"occlusion\": " + std::string(s.occlusion ? "true" : "false") +
         ", \"lod\": " + std::string(s.lod ? "true" : "false") +
         ", \"freeze\": " + std::string(s.freeze ? "true" : "false") +
         ", \"wireframe\": " + std::string(s.wireframe ? "true" : "false") +
         ", \"boxes\": " + std::string(s.boxes ? "true" : "false") +
         ", \"objects_paused\": " + std::string(s.objectsPaused ? "true" : "false") +
         ", \"hud\": " + std::string(s.hudVisible ? "true" : "false") + "},\n";
    j += "  \"lod_pixels\": " + number(s.lodPixels) +
         ", \"frame_budget_ms\": " + std::to_string(s.frameBudgetMs) + ",\n";
    j += "  \"sun\": " +
         (s.sun ? "{\"azimuth\": " + number(s.sun->azimuth) +
                      ", \"elevation\": " + number(s.sun->elevation) + "}"
                : std::string("null")) +
         ",\n";
    j += "  \"shader_reloads\": " + std::to_string(s.shaderReloads) + ",\n";
    j += "  \"path_box\": {\"text\": " + jsonString(s.pathBox) + ", \"rect\": [" +
         number(s.pathBoxRect[0]) + ", " + number(s.pathBoxRect[1]) + ", " +
         number(s.pathBoxRect[2]) + ", " + number(s.pathBoxRect[3]) + "]},\n";
    j += "  \"text_field_active\": " + std::string(s.textFieldActive ? "true" : "false") + ",\n";
    j += "  \"minimap\": [" + number(s.minimapSquare[0]) + ", " + number(s.minimapSquare[1]) +
         ", " + number(s.minimapSquare[2]) + "],\n";
    j += "  \"objects\": {\"count\": " + std::to_string(s.objects) +
         ", \"scattering\": " + std::string(s.scattering ? "true" : "false") + "},\n";
    j += "  \"selected_objects\": [";
    for (size_t k = 0; k < s.selectedObjects.size(); ++k) {
        j += (k == 0 ? "" : ", ") + std::to_string(s.selectedObjects[k]);
    }
    j += "],\n";
    j += "  \"hud_windows\": [";
    for (size_t k = 0; k < s.hudWindows.size(); ++k) {
        const HudWindowRecord& w = s.hudWindows[k];
        j += std::string(k == 0 ? "" : ", ") + "{\"name\": " + jsonString(w.name) +
             ", \"rect\": [" + number(w.rect[0]) + ", " + number(w.rect[1]) + ", " +
             number(w.rect[2]) + ", " + number(w.rect[3]) + "], \"overflow\": [" +
             number(w.overflow[0]) + ", " + number(w.overflow[1]) + "]}";
    }
    j += "],\n";
    j += "  \"measure\": ";
    j += s.measured ? "{\"a\": " + vec3(s.measureA) + ", \"b\": " + vec3(s.measureB) + "}" : "null";
    return j + "\n}\n";
}

namespace {

// A path as a JSON string, or null for "".
std::string pathOrNull(const std::string& path) {
    return path.empty() ? std::string("null") : jsonString(path);
}

}  // namespace

std::string statsJson(const StatsReport& r) {
    const Camera& c = r.camera;
    const FrameStats& s = r.stats;
    std::string j = "{\n";
    j += "  \"map\": {\"path\": " + jsonString(r.path) + ", \"width\": " + std::to_string(r.width) +
         ", \"height\": " + std::to_string(r.height) + "},\n";
    j += "  \"world\": {\"spacing_x\": " + number(r.mapping.spacingX) +
         ", \"spacing_z\": " + number(r.mapping.spacingZ) +
         ", \"height_scale\": " + number(r.mapping.heightScale) +
         ", \"height_offset\": " + number(r.mapping.heightOffset) + "},\n";
    if (r.map != nullptr) {
        j += georeferenceJson(*r.map);
    }
    if (r.sun) {
        j += "  \"sun\": {\"azimuth\": " + number(r.sun->azimuth) +
             ", \"elevation\": " + number(r.sun->elevation) +
             ", \"shadows\": " + (r.shadows ? "true" : "false") + "},\n";
    }
    j += "  \"camera\": {\"eye\": " + vec3(c.position) + ", \"target\": " + vec3(r.target) +
         ", \"fov_y\": " + number(glm::degrees(c.fovY)) + ", \"aspect\": " + number(c.aspect) +
         ", \"near\": " + number(c.nearPlane) + ", \"far\": " + number(c.farPlane) + "},\n";
    j += "  \"leaf_size\": " + std::to_string(r.leafSize) + ",\n";
    if (r.gpu != nullptr) {
        const HeightPages& p = r.gpu->pages;
        j += "  \"gpu_heights\": {\"bytes\": " + std::to_string(p.bytes()) +
             ", \"bytes_per_sample\": " + number(r.gpu->bytesPerSample()) +
             ", \"page_size\": " + std::to_string(p.pageSize) +
             ", \"page_texels\": " + std::to_string(p.texels) +
             ", \"pages\": " + std::to_string(p.layers) +
             ", \"arrays\": " + std::to_string(r.gpu->heightArrays) +
             ", \"layers_per_array\": " + std::to_string(r.gpu->layersPerArray) +
             ", \"levels\": " + std::to_string(p.level.size()) + "},\n";
    }
    if (r.imagery != nullptr && r.gpu != nullptr && r.gpu->imagery.present()) {
        // Texels per map sample on each axis; the pyramid's pages and the pool of GPU layers
        // they stream into, with what the pool holds and what the last frame asked for; the
        // bytes the whole pyramid's pages (borders included, as stored: RGBA8 or BC3) take over
        // those of level 0's RGBA8 texels.
        const ImageryInfo& m = *r.imagery;
        const ImageryGpu& t = r.gpu->imagery;
        const ImageryPlan& plan = t.plan;
        const double pageBytes = double(imageryPageBytes(plan.side(), t.compression));
        const double texelBytes = 4.0 * double(m.width) * m.height;
        j += "  \"imagery\": {\"source\": " + jsonString(m.source) + ", \"source_size\": [" +
             std::to_string(m.sourceWidth) + ", " + std::to_string(m.sourceHeight) +
             "], \"bands\": " + std::to_string(m.bands) + ", \"type\": " + jsonString(m.type) +
             ", \"georeferenced\": " + (m.georeferenced ? "true" : "false") +
             ", \"crs\": " + (m.georeferenced ? jsonString(m.crsName) : std::string("null")) +
             ", \"texels\": [" + std::to_string(m.width) + ", " + std::to_string(m.height) +
             "], \"texels_per_sample\": [" + number(m.texelsPerSampleX) + ", " +
             number(m.texelsPerSampleY) + "], \"native_texels_per_sample\": [" +
             number(m.nativeTexelsPerSampleX) + ", " + number(m.nativeTexelsPerSampleY) +
             "], \"coverage\": " + number(m.coverage) +
             ", \"levels\": " + std::to_string(plan.level.size()) +
             ", \"page_texels\": " + std::to_string(plan.pageTexels) +
             ", \"pages\": " + std::to_string(plan.pages) +
             ", \"pyramid_bytes_per_texel_byte\": " + number(plan.pages * pageBytes / texelBytes) +
             ", \"compression\": " +
             (t.compression == ImageryCompression::Bc3 ? "\"bc3\"" : "\"none\"") +
             ", \"pool_layers\": " + std::to_string(t.layers) +
             ", \"gpu_bytes\": " + std::to_string(t.bytes) +
             ", \"anisotropy\": " + number(t.anisotropy) +
             ", \"pages_resident\": " + std::to_string(r.imageryStream.resident) +
             ", \"pages_wanted\": " + std::to_string(r.imageryStream.wanted) +
             ", \"pages_failed\": " + std::to_string(r.imageryStream.failed) +
             ", \"shown\": " + (r.imageryStyle.on ? "true" : "false") +
             ", \"opacity\": " + number(r.imageryStyle.opacity) +
             ", \"lit\": " + (r.imageryStyle.lit ? "true" : "false") + "},\n";
    } else {
        j += "  \"imagery\": null,\n";
    }
    if (r.streaming != nullptr && r.gpu != nullptr) {
        // The pool's GPU bytes: its layers of texels^2 two-byte codes.
        const StreamStats& st = *r.streaming;
        const uint64_t texels = uint64_t(r.gpu->pages.texels);
        j += "  \"streaming\": {\"pool\": " + std::to_string(st.pool) +
             ", \"resident\": " + std::to_string(st.resident) +
             ", \"requested\": " + std::to_string(st.requested) +
             ", \"uploaded\": " + std::to_string(st.uploaded) +
             ", \"bytes\": " + std::to_string(uint64_t(st.pool) * texels * texels * 2u) +
             ", \"mapped\": " + (r.mapped ? "true" : "false") +
             // Where the mapped codes are: the map's own file, or the raster's code cache.
             ", \"codes\": " +
             (!r.mapped             ? std::string("null")
              : r.codeCache.empty() ? std::string("\"map file\"")
                                    : std::string("\"code cache\"")) +
             ", \"code_cache\": " +
             (r.codeCache.empty() ? std::string("null") : "\"" + r.codeCache + "\"") +
             ", \"on_demand\": " + (r.onDemand ? "true" : "false") + ", \"sidecar\": " +
             (r.sidecar.empty() ? std::string("null") : "\"" + r.sidecar + "\"") +
             // Where the program keeps them: the cache folder, or beside the map.
             ", \"cache\": {\"codes\": " + pathOrNull(r.codeCachePath) +
             ", \"tree\": " + pathOrNull(r.sidecarPath) + "}";
        if (r.tiles) {  // a layout streamed by tiles: those that arrived, and the cache kept
            const LayoutTileCounts& t = *r.tiles;
            j += ", \"tiles\": {\"present\": " + std::to_string(t.present) +
                 ", \"total\": " + std::to_string(t.total) +
                 ", \"read\": " + std::to_string(t.read) + ", \"kept\": " + std::to_string(t.kept) +
                 ", \"failed\": " + std::to_string(t.failed) +
                 ", \"cache_kept\": " + (r.tilesKept ? "true" : "false") + "}";
        }
        j += "},\n";
    }
    j += "  \"load\": {\"decode_ms\": " + milliseconds(r.times.decodeMs) +
         ", \"tree_ms\": " + milliseconds(r.times.treeMs) +
         ", \"upload_ms\": " + milliseconds(r.times.uploadMs) +
         ", \"pages_ms\": " + milliseconds(r.times.pagesMs) +
         ", \"imagery_ms\": " + milliseconds(r.times.imageryMs) +
         ", \"first_frame_ms\": " + milliseconds(r.times.totalMs()) +
         ", \"errors_ms\": " + milliseconds(r.times.errorsMs) + "},\n";
    j += "  \"lod_errors\": \"" + std::string(lodErrorsName(r.lodErrors)) + "\",\n";
    j += "  \"culling\": " + std::string(r.culling ? "true" : "false") + ",\n";
    j += "  \"nodes_total\": " + std::to_string(s.nodesTotal) + ",\n";
    j += "  \"leaves_total\": " + std::to_string(s.leavesTotal) + ",\n";
    j += "  \"nodes_tested\": " + std::to_string(s.cull.nodesTested) + ",\n";
    j += "  \"leaves_drawn\": " + std::to_string(s.cull.leavesDrawn) + ",\n";
    j += "  \"leaves_culled\": " + std::to_string(s.cull.leavesCulled) + ",\n";
    j += "  \"leaves_occluded\": " + std::to_string(s.cull.leavesOccluded) + ",\n";
    j += "  \"subtrees_accepted\": " + std::to_string(s.cull.subtreesAccepted) + ",\n";
    j += "  \"instances_empty\": " + std::to_string(s.instancesEmpty) + ",\n";
    j += "  \"draw_calls\": " + std::to_string(s.drawCalls) + ",\n";
    j += "  \"gl_renderer\": " + jsonString(r.glRenderer) + ",\n";
    j += "  \"synced_draws\": " + std::string(s.syncedDraws ? "true" : "false") + ",\n";
    j += "  \"back_faces_culled\": " + std::string(s.backFacesCulled ? "true" : "false") + ",\n";
    j += "  \"triangles_drawn\": " + std::to_string(s.cull.triangles) + ",\n";
    if (s.lod) {  // drawn by level of detail: the nodes, and the leaves under them
        j += "  \"lod\": {\"nodes_drawn\": " + std::to_string(s.lodStats.nodesDrawn) +
             ", \"leaves_covered\": " + std::to_string(s.lodStats.leavesCovered) +
             ", \"nodes_tested\": " + std::to_string(s.lodStats.nodesTested) +
             ", \"deepest_level\": " + std::to_string(int(s.lodStats.deepestLevel)) + "},\n";
    }
    if (r.objects) {
        const ObjectFrameStats& o = s.objects;
        j += "  \"objects\": {\"total\": " + std::to_string(o.total) +
             ", \"moving\": " + std::to_string(r.objects->movingCount()) +
             ", \"size_scale\": " + number(r.objects->sizeScale()) +
             ", \"size_unit\": " + number(r.objects->sizing().unit) +
             ", \"size_unit_in_metres\": " + (r.objects->sizing().metres ? "true" : "false") +
             ", \"object_scale\": " + number(r.objects->sizing().scale) +
             ", \"drawn\": " + std::to_string(o.drawn) +
             ", \"culled\": " + std::to_string(o.culled) +
             ", \"occluded\": " + std::to_string(o.occluded) +
             ", \"nodes_tested\": " + std::to_string(o.nodesTested) +
             ", \"objects_tested\": " + std::to_string(o.objectsTested) +
             ", \"pairs_tested\": " + std::to_string(r.lastStep.pairsTested) +
             ", \"contacts\": " + std::to_string(r.lastStep.contacts) +
             ", \"steps\": " + std::to_string(r.objects->steps()) +
             ", \"update_ms\": " + milliseconds(r.lastStep.updateMs) +
             ", \"collide_ms\": " + milliseconds(r.lastStep.collideMs) +
             ", \"cull_ms\": " + milliseconds(o.cullMs) +
             ", \"draw_calls\": " + std::to_string(s.objectDrawCalls) +
             ", \"triangles\": " + std::to_string(s.objectTriangles) +
             ", \"triangles_without_impostors\": " +
             std::to_string(r.frame ? meshOnlyTriangles(*r.objects, r.frame->objectsDrawn, r.camera,
                                                        r.viewportHeight)
                                    : 0) +
             ", \"upload_bytes\": " + std::to_string(s.objectUploadBytes) + "},\n";
        if (r.dumpObjects && r.frame) {
            j += "  \"object_list\": [";
            // Per object: 0 culled, 1 occluded, 2 drawn (the frame's lists are in tree order).
            std::vector<uint8_t> state(r.objects->count(), 0);
            for (uint32_t id : r.frame->objectsInFrustum) {
                state[id] = 1;
            }
            for (uint32_t id : r.frame->objectsDrawn) {
                state[id] = 2;
            }
            for (uint32_t id = 0; id < r.objects->count(); ++id) {
                const bool isDrawn = state[id] == 2;
                const bool seen = state[id] >= 1;
                const Box b = r.objects->box(id);
                j += id == 0 ? "\n    " : ",\n    ";
                j += "[" + std::to_string(id) + ", " + vec3(b.min) + ", " + vec3(b.max) + ", " +
                     (isDrawn ? "\"drawn\""
                      : seen  ? "\"occluded\""
                              : "\"culled\"") +
                     "]";
            }
            j += "\n  ],\n";
        }
    }
    j += "  \"cull_ms\": " + milliseconds(s.cullMs) + ",\n";
    j += "  \"frame_ms\": " + milliseconds(s.frameMs);
    if (r.pick) {
        j += ",\n  \"pick\": " + pickJson(*r.pick, r.pickHeight, r.pickGeo, r.pickObject);
    }
    if (r.visibleLeaves) {
        j += ",\n  \"visible_leaves\": [";
        bool first = true;
        for (const LeafCoord& leaf : *r.visibleLeaves) {
            j += first ? "" : ", ";
            j += "[" + std::to_string(leaf.col) + ", " + std::to_string(leaf.row) + "]";
            first = false;
        }
        j += "]";
    }
    return j + "\n}\n";
}

}  // namespace qt
