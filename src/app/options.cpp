// Command-line parsing for the viewer: every value checked, every error one line.
#include "app/options.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

#include "app/folders.h"
#include "core/base/text.h"
#include "core/config.h"
#include "core/terrain/georeference.h"
#include "core/terrain/quadtree.h"

namespace qt {
namespace {

// --steps: at most an hour of simulated time.
constexpr uint64_t kMaxSteps = 216000;

bool parseFloat(const std::string& text, float& out) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (*end != '\0' || errno == ERANGE || !std::isfinite(value) || std::fabs(value) > 3.0e38) {
        return false;
    }
    out = float(value);
    return true;
}

bool parseInt(const std::string& text, int& out) {
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-')) {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || value < -1000000000L || value > 1000000000L) {
        return false;
    }
    out = int(value);
    return true;
}

// A whole number from 0 to `most`, digits only (no sign, no exponent).
bool parseCount(const std::string& text, uint64_t most, uint64_t& out) {
    if (text.empty() || text.size() > 20 || !std::all_of(text.begin(), text.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        })) {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || value > most) {
        return false;
    }
    out = value;
    return true;
}

// Three numbers X,Y,Z, each at most kMaxCameraCoordinate in magnitude.
bool parseVec3(const std::string& text, glm::vec3& out) {
    const size_t a = text.find(',');
    const size_t b = a == std::string::npos ? a : text.find(',', a + 1);
    if (b == std::string::npos || text.find(',', b + 1) != std::string::npos) {
        return false;
    }
    return parseFloat(text.substr(0, a), out.x) &&
           parseFloat(text.substr(a + 1, b - a - 1), out.y) &&
           parseFloat(text.substr(b + 1), out.z) && std::fabs(out.x) <= kMaxCameraCoordinate &&
           std::fabs(out.y) <= kMaxCameraCoordinate && std::fabs(out.z) <= kMaxCameraCoordinate;
}

bool parseSize(const std::string& text, int& width, int& height) {
    const size_t x = text.find_first_of("xX");
    return x != std::string::npos && parseInt(text.substr(0, x), width) &&
           parseInt(text.substr(x + 1), height) && width > 0 && height > 0;
}

using Handler = std::function<Status(ViewerOptions&, const std::string&)>;

// A point option: X,Y,Z, three finite numbers within kMaxCameraCoordinate.
Handler pointOption(std::optional<glm::vec3> ViewerOptions::*field) {
    return [field](ViewerOptions& o, const std::string& v) -> Status {
        glm::vec3 p;
        if (!parseVec3(v, p)) {
            return Status::failure("expected X,Y,Z with three numbers from -1e15 to 1e15");
        }
        o.*field = p;
        return Status{};
    };
}

// A number option that takes any finite value.
Handler finiteOption(std::optional<float> ViewerOptions::*field) {
    return [field](ViewerOptions& o, const std::string& v) -> Status {
        float f = 0;
        if (!parseFloat(v, f)) {
            return Status::failure("expected a finite number");
        }
        o.*field = f;
        return Status{};
    };
}

// An output file option (isPathOption: an empty value is refused before the handler runs).
// A whole number from 0 to `most`, stored as the field's type; `what` names it in the error.
template <typename T>
Handler countOption(T ViewerOptions::*field, uint64_t most, const char* what) {
    return [field, most, what](ViewerOptions& o, const std::string& v) -> Status {
        uint64_t count = 0;
        if (!parseCount(v, most, count)) {
            return Status::failure(std::string("expected a whole number") + what + " from 0 to " +
                                   std::to_string(most));
        }
        o.*field = T(count);
        return Status{};
    };
}

Handler pathOption(std::string ViewerOptions::*field) {
    return [field](ViewerOptions& o, const std::string& v) -> Status {
        o.*field = v;
        return {};
    };
}

// Option name -> handler returning an error ("" when fine). Flags take no value.
const std::map<std::string, Handler>& valueOptions() {
    static const std::map<std::string, Handler> kOptions = {
        {"--spacing",
         [](ViewerOptions& o, const std::string& v) -> Status {
             const size_t comma = v.find(',');
             float x = 0;
             float z = 0;
             if (!parseFloat(v.substr(0, comma), x) || !(x > 0.0f) ||
                 (comma != std::string::npos &&
                  (!parseFloat(v.substr(comma + 1), z) || !(z > 0.0f)))) {
                 return Status::failure("expected a positive finite number, or two as X,Z");
             }
             o.spacingX = x;
             o.spacingZ = comma == std::string::npos ? x : z;
             return {};
         }},
        {"--exaggeration",
         [](ViewerOptions& o, const std::string& v) -> Status {
             float e = 0;
             if (!parseFloat(v, e) || !(e > 0.0f)) {
                 return Status::failure("expected a positive finite number");
             }
             o.exaggeration = e;
             return {};
         }},
        {"--object-scale",
         [](ViewerOptions& o, const std::string& v) -> Status {
             float s = 0;
             if (!parseFloat(v, s) || !(s > 0.0f) || !(s <= kMaxObjectScale)) {
                 return Status::failure("expected a number above 0 and at most " +
                                        std::to_string(int(kMaxObjectScale)));
             }
             o.objectScale = s;
             return {};
         }},
        {"--encoding",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (v == "terrain-rgb") {
                 o.encoding = HeightEncoding::TerrainRgb;
             } else if (v == "terrarium") {
                 o.encoding = HeightEncoding::Terrarium;
             } else {
                 return Status::failure("expected terrain-rgb or terrarium");
             }
             return {};
         }},
        {"--height-scale", finiteOption(&ViewerOptions::heightScale)},
        {"--height-offset", finiteOption(&ViewerOptions::heightOffset)},
        {"--leaf",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseInt(v, o.leafSize) || !isValidLeafSize(o.leafSize)) {
                 return Status::failure("expected a power of two from " +
                                        std::to_string(kMinLeafSize) + " to " +
                                        std::to_string(kMaxLeafSize));
             }
             return {};
         }},
        {"--page-size",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseInt(v, o.pageSize) || o.pageSize < kMinLeafSize ||
                 o.pageSize > kMaxPageSize || (o.pageSize & (o.pageSize - 1)) != 0) {
                 return Status::failure("expected a power of two from " +
                                        std::to_string(kMinLeafSize) + " to " +
                                        std::to_string(kMaxPageSize));
             }
             return {};
         }},
        {"--stream-pool",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseInt(v, o.streamPool) || o.streamPool < 1 || o.streamPool > 65534) {
                 return Status::failure("expected layers from 1 to 65534");
             }
             o.stream = true;
             return {};
         }},
        {"--upload",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (v == "whole") {
                 o.upload = Level0Upload::Whole;
             } else if (v == "on-demand") {
                 o.upload = Level0Upload::OnDemand;
             } else if (v == "auto") {
                 o.upload = Level0Upload::Auto;
             } else {
                 return Status::failure("expected whole, on-demand or auto");
             }
             return {};
         }},
        {"--size",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseSize(v, o.rawWidth, o.rawHeight)) {
                 return Status::failure(
                     "expected WIDTHxHEIGHT with positive integers, like 1025x1025");
             }
             return {};
         }},
        {"--window",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseSize(v, o.windowWidth, o.windowHeight) || o.windowWidth > kMaxWindowSide ||
                 o.windowHeight > kMaxWindowSide ||
                 int64_t(o.windowWidth) * o.windowHeight > kMaxWindowPixels) {
                 return Status::failure(
                     "expected WIDTHxHEIGHT from 1x1 to 16384x16384 and at most 67108864 pixels "
                     "(8192x8192), like 1280x720");
             }
             return {};
         }},
        {"--eye", pointOption(&ViewerOptions::eye)},
        {"--target", pointOption(&ViewerOptions::target)},
        {"--fov",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseFloat(v, o.fovDegrees) || !(o.fovDegrees > 1.0f && o.fovDegrees < 179.0f)) {
                 return Status::failure("expected degrees between 1 and 179 (exclusive)");
             }
             return {};
         }},
        {"--lod",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (v == "auto") {
                 o.lodPixels.reset();
                 return {};
             }
             float pixels = 0.0f;
             if (v != "off" && (!parseFloat(v, pixels) || !(pixels >= 0.0f && pixels <= 64.0f))) {
                 return Status::failure("expected pixels from 0 to 64, off or auto");
             }
             o.lodPixels = pixels;
             return {};
         }},
        {"--sync-draws",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (v != "auto" && v != "on" && v != "off") {
                 return Status::failure("expected auto, on or off");
             }
             o.syncDraws = v == "auto" ? std::nullopt : std::optional<bool>(v == "on");
             return {};
         }},
        {"--georef",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (v.size() != 7 || !hgtGeoreference(v + ".hgt", 1201).present) {
                 return Status::failure("expected an SRTM tile's name, like N47E009 or S12W077");
             }
             o.georef = v;
             return {};
         }},
        {"--fog",
         [](ViewerOptions& o, const std::string& v) -> Status {
             float start = 0.0f;
             if (v == "on" || v == "off") {
                 o.fogOn = v == "on";
                 o.fogStart = -1.0f;
             } else if (parseFloat(v, start) && std::isfinite(start) && start >= 0.0f) {
                 o.fogOn = true;
                 o.fogStart = start;
             } else {
                 return Status::failure("expected on, off or a distance of 0 or more");
             }
             return {};
         }},
        {"--contours",
         [](ViewerOptions& o, const std::string& v) -> Status {
             float interval = 0.0f;
             if (v == "off") {
                 o.contourInterval = 0.0f;
             } else if (parseFloat(v, interval) && std::isfinite(interval) && interval >= 0.0f) {
                 o.contourInterval = interval;
             } else {
                 return Status::failure("expected off or an interval of 0 or more");
             }
             return {};
         }},
        {"--sun",
         [](ViewerOptions& o, const std::string& v) -> Status {
             Result<UtcInstant> instant = parseIsoInstant(v);
             if (!instant) {
                 return Status::failure(instant.error());
             }
             o.sunInstant = instant.value();
             return {};
         }},
        {"--sun-azimuth",
         [](ViewerOptions& o, const std::string& v) -> Status {
             float degrees = 0.0f;
             if (!parseFloat(v, degrees) || !(degrees >= -360.0f && degrees <= 360.0f)) {
                 return Status::failure("expected degrees clockwise from north, -360 to 360");
             }
             o.sunAzimuth = std::fmod(double(degrees) + 360.0, 360.0);
             return {};
         }},
        {"--sun-elevation",
         [](ViewerOptions& o, const std::string& v) -> Status {
             float degrees = 0.0f;
             if (!parseFloat(v, degrees) || !(degrees >= -90.0f && degrees <= 90.0f)) {
                 return Status::failure("expected degrees above the horizon, -90 to 90");
             }
             o.sunElevation = double(degrees);
             return {};
         }},
        {"--imagery", pathOption(&ViewerOptions::imageryPath)},
        {"--imagery-opacity",
         [](ViewerOptions& o, const std::string& v) -> Status {
             float opacity = 0.0f;
             if (!parseFloat(v, opacity) || !(opacity >= 0.0f && opacity <= 1.0f)) {
                 return Status::failure("expected an opacity from 0 to 1");
             }
             o.imageryOpacity = opacity;
             return {};
         }},
        {"--imagery-light",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (v != "on" && v != "off") {
                 return Status::failure("expected on or off");
             }
             o.imageryLit = v == "on";
             return {};
         }},
        {"--imagery-compression",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (v != "none" && v != "bc3") {
                 return Status::failure("expected none or bc3");
             }
             o.imageryCompression = v == "bc3" ? ImageryCompression::Bc3 : ImageryCompression::None;
             return {};
         }},
        {"--back-faces",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (v != "auto" && v != "draw") {
                 return Status::failure("expected auto or draw");
             }
             o.drawBackFaces = v == "draw";
             return {};
         }},
        {"--frames",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseInt(v, o.frames) || o.frames < 1) {
                 return Status::failure("expected a positive whole number of frames");
             }
             return {};
         }},
        {"--soak",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseInt(v, o.soakFrames) || o.soakFrames < 1) {
                 return Status::failure("expected a positive whole number of frames");
             }
             return {};
         }},
        {"--objects", countOption(&ViewerOptions::objects, kMaxObjects, " of objects")},
        {"--moving", countOption(&ViewerOptions::moving, kMaxObjects, " of moving objects")},
        {"--seed", countOption(&ViewerOptions::seed, UINT64_MAX, "")},
        {"--steps", countOption(&ViewerOptions::steps, kMaxSteps, " of steps")},
        {"--memory-budget",
         countOption(&ViewerOptions::memoryBudgetMb, kMaxMemoryBudgetMb, " of MiB")},
        {"--pick",
         [](ViewerOptions& o, const std::string& v) -> Status {
             const size_t comma = v.find(',');
             int x = 0, y = 0;
             if (comma == std::string::npos || !parseInt(v.substr(0, comma), x) ||
                 !parseInt(v.substr(comma + 1), y) || x < 0 || y < 0) {
                 return Status::failure("expected PX,PY: a window pixel, like 640,360");
             }
             o.pick = std::array<int, 2>{x, y};
             return {};
         }},
        {"--max-fps",
         [](ViewerOptions& o, const std::string& v) -> Status {
             if (!parseInt(v, o.maxFps) || o.maxFps < 1 || o.maxFps > 1000) {
                 return Status::failure("expected frames a second from 1 to 1000");
             }
             return {};
         }},
        {"--state-json", pathOption(&ViewerOptions::stateJsonPath)},
        {"--screenshot-dir", pathOption(&ViewerOptions::screenshotDir)},
        {"--cache-dir", pathOption(&ViewerOptions::cacheDir)},
        {"--shaders", pathOption(&ViewerOptions::shaderDir)},
        {"--frame-budget",
         countOption(&ViewerOptions::frameBudgetMs, kMaxFrameBudgetMs, " of milliseconds")},
        {"--cache-size", countOption(&ViewerOptions::cacheSizeMb, kMaxMemoryBudgetMb, " of MiB")},
        {"--freeze-eye", pointOption(&ViewerOptions::freezeEye)},
        {"--freeze-target", pointOption(&ViewerOptions::freezeTarget)},
        {"--window-shot", pathOption(&ViewerOptions::windowShotPath)},
        {"--screenshot", pathOption(&ViewerOptions::screenshotPath)},
        {"--stats-json", pathOption(&ViewerOptions::statsJsonPath)},
        {"--cull-map", pathOption(&ViewerOptions::cullMapPath)},
        {"--bench", pathOption(&ViewerOptions::benchCsvPath)},
    };
    return kOptions;
}

// The options that name a file or folder.
bool isPathOption(const std::string& name) {
    return name == "--window-shot" || name == "--screenshot" || name == "--stats-json" ||
           name == "--state-json" || name == "--cull-map" || name == "--bench" ||
           name == "--screenshot-dir" || name == "--cache-dir" || name == "--shaders";
}

Status checkCombination(const ViewerOptions& o) {
    if (o.eye.has_value() != o.target.has_value()) {
        return Status::failure("--eye and --target go together: give both or neither");
    }
    if (o.eye && *o.eye == *o.target) {
        return Status::failure(
            "--eye and --target are the same point; the camera needs a direction");
    }
    if (o.freezeEye.has_value() != o.freezeTarget.has_value()) {
        return Status::failure(
            "--freeze-eye and --freeze-target go together: give both or neither");
    }
    if (o.freezeEye && *o.freezeEye == *o.freezeTarget) {
        return Status::failure(
            "--freeze-eye and --freeze-target are the same point; the frustum needs a direction");
    }
    if (o.sunInstant && (o.sunAzimuth || o.sunElevation)) {
        return Status::failure(
            "--sun places the Sun by the date; --sun-azimuth and --sun-elevation by direction: "
            "give one or the other");
    }
    if (o.dumpLeaves && o.statsJsonPath.empty()) {
        return Status::failure("--dump-leaves needs --stats-json OUT.json");
    }
    if (o.moving > o.objects) {
        return Status::failure("--moving " + std::to_string(o.moving) + " is more than --objects " +
                               std::to_string(o.objects));
    }
    if (o.dumpObjects && o.statsJsonPath.empty()) {
        return Status::failure("--dump-objects needs --stats-json OUT.json");
    }
    if (Status memory = checkObjectMemory(o.objects, physicalMemoryBytes()); !memory) {
        return memory;
    }
    if (o.pick && o.statsJsonPath.empty()) {
        return Status::failure("--pick needs --stats-json OUT.json");
    }
    if (o.pick && ((*o.pick)[0] >= o.windowWidth || (*o.pick)[1] >= o.windowHeight)) {
        return Status::failure("--pick " + std::to_string((*o.pick)[0]) + "," +
                               std::to_string((*o.pick)[1]) + " is outside the " +
                               std::to_string(o.windowWidth) + "x" +
                               std::to_string(o.windowHeight) + " window");
    }
    if (o.soakRssReportOnly && o.soakFrames == 0) {
        return Status::failure("--soak-rss-report-only needs --soak N");
    }
    if (!o.screenshotDir.empty() && !isDirectory(o.screenshotDir)) {
        return Status::failure("--screenshot-dir " + escapedPath(o.screenshotDir) +
                               ": not a folder");
    }
    return {};
}

}  // namespace

uint64_t memoryBudgetBytes(const ViewerOptions& options, uint64_t physicalBytes) {
    if (options.memoryBudgetMb) {
        return *options.memoryBudgetMb << 20;
    }
    return defaultMemoryBudgetBytes(physicalBytes);
}

Status checkObjectMemory(uint64_t count, uint64_t physicalBytes) {
    const double allowed = kObjectMemoryShare * double(physicalBytes);
    if (double(count) * double(kObjectBytes) > allowed) {
        return Status::failure("--objects " + std::to_string(count) + " needs about " +
                               std::to_string(count * kObjectBytes / (1u << 20)) +
                               " MiB, more than half of this machine's memory (" +
                               std::to_string(physicalBytes / (1u << 20)) + " MiB)");
    }
    return {};
}

Result<ViewerOptions> parseOptions(const std::vector<std::string>& args) {
    ViewerOptions options;
    bool havePath = false;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string name = args[i];
        std::optional<std::string> inlineValue;
        if (name.rfind("--", 0) == 0 && name.find('=') != std::string::npos) {
            inlineValue = name.substr(name.find('=') + 1);
            name = name.substr(0, name.find('='));
        }
        if (name == "--help" || name == "-h") {
            options.help = true;
            continue;
        }
        if (name == "--no-cull" || name == "--no-occlusion" || name == "--dump-leaves" ||
            name == "--dump-objects" || name == "--soak-rss-report-only" || name == "--water" ||
            name == "--bench-lod-only" || name == "--stream" || name == "--fill-nodata" ||
            name == "--cache-beside") {
            if (inlineValue) {
                return Result<ViewerOptions>::failure(escapedText(name) + " takes no value");
            }
            (name == "--no-cull"          ? options.noCull
             : name == "--no-occlusion"   ? options.noOcclusion
             : name == "--dump-leaves"    ? options.dumpLeaves
             : name == "--dump-objects"   ? options.dumpObjects
             : name == "--water"          ? options.water
             : name == "--bench-lod-only" ? options.benchLodOnly
             : name == "--stream"         ? options.stream
             : name == "--fill-nodata"    ? options.fillNodata
             : name == "--cache-beside"   ? options.cacheBeside
                                          : options.soakRssReportOnly) = true;
            continue;
        }
        const auto& table = valueOptions();
        const auto handler = table.find(name);
        if (handler != table.end()) {
            if (!inlineValue && i + 1 >= args.size()) {
                return Result<ViewerOptions>::failure(escapedText(name) + ": missing value");
            }
            const std::string value = inlineValue ? *inlineValue : args[++i];
            if (value.empty() && isPathOption(name)) {
                return Result<ViewerOptions>::failure(name + ": empty path");
            }
            if (Status problem = handler->second(options, value); !problem) {
                return Result<ViewerOptions>::failure(escapedText(name) + " '" +
                                                      escapedText(value) + "': " + problem.error());
            }
            continue;
        }
        if (name.size() > 1 && name[0] == '-') {
            return Result<ViewerOptions>::failure("unknown option '" + escapedText(name) +
                                                  "' (see --help)");
        }
        if (args[i].empty()) {
            return Result<ViewerOptions>::failure("empty heightmap path");
        }
        if (havePath) {
            return Result<ViewerOptions>::failure("unexpected argument '" + escapedText(name) +
                                                  "': only one heightmap can be given");
        }
        options.heightmapPath = args[i];
        havePath = true;
    }
    if (Status problem = checkCombination(options); !problem) {
        return Result<ViewerOptions>::failure(problem.error());
    }
    return options;
}

std::string usageText() {
    return R"(usage: quadterrain [HEIGHTMAP] [options]

Flies a camera over a heightmap and draws only the quadtree leaves inside the view frustum.
HEIGHTMAP: .png (8/16-bit) .jpg .bmp .tga .pgm .gif .psd .hdr, SRTM .hgt, 16-bit
little-endian .r16/.raw (square, or give --size), or through GDAL: GeoTIFF .tif/.tiff, ESRI
ASCII grid .asc, .vrt mosaics, .dem .bil .flt .img .ter .bt, gzipped (.gz) or zipped SRTM
tiles (.hgt.zip); a GDAL raster by URL (https://host/dem.tif, /vsicurl/, /vsis3/, /vsigs/,
/vsiaz/), read whole. Georeferenced maps come in metres on each axis.
Default: data/default_1025.png.
Limits: files up to 2147483647 bytes, 65537 samples a side and 1073807361 in all; the world
(map extent and heights, from --spacing, --height-scale, --height-offset) within 1e9 units,
spacing at least 1e-6; camera points (--eye, --target, ...) within 1e15.

  --spacing X[,Z]      world units between neighbouring columns (X) and rows (Z, default X)
                       (default: metres from the georeference, else 1)
  --height-scale S     world height per stored sample unit (y = sample * S + offset; default 1
                       for heights in metres, else the map's range an eighth of its side)
  --exaggeration F     multiply the height scale by F (default 1)
  --encoding E         terrain-rgb or terrarium: a PNG's red, green and blue hold a height
                       (-10000 + (R 65536 + G 256 + B) / 10, or R 256 + G + B / 256 - 32768 m)
  --water              draw a flat water plane at sea level (maps in metres)
  --height-offset S    added to every height (default 0)
  --leaf N             grid squares per leaf side: 2, 4, 8, 16, 32 or 64 (default 4)
  --page-size N        grid squares per side of a GPU height page: a power of two from 2 to
                       4096 (default 256; raised to the leaf size, and further where the map
                       needs more pages than the GPU has layers)
  --stream             stream the full-detail (level-0) height pages to the GPU as the eye
                       nears them, from a background thread, drawing the next coarser level
                       where a page has not arrived yet; always drawn by level of detail
                       (--lod off or 0 means 1 pixel on a streamed map). A .r16/.raw or a
                       raster read through GDAL (its codes kept in a code cache, written on
                       its first open); each keeps its tree in a sidecar (.qtree)
  --frame-budget MS    with --lod auto, the viewer's level of detail holds frames to MS: the
                       bound rises a step (to 8 px at most) while frames are slower and falls
                       back when there is time; 0: a fixed bound (default 33 in the viewer
                       flown by hand, a fixed bound in scripted runs; --bench holds it too
                       when given)
  --cache-dir DIR      where streamed maps' code caches and sidecars go (default:
                       $XDG_CACHE_HOME/quadterrain, else ~/.cache/quadterrain)
  --cache-beside       put them beside each map instead (MAP.qtcodes, MAP.qtree)
  --shaders DIR        read the GLSL shaders from DIR (R, F5 and the HUD reload them from
                       there; default: shaders/ beside the executable)
  --cache-size MB      keep the cache folder's own files within MB: the least recently used
                       code caches are removed to make room for a new one (default 0: no bound)
  --stream-pool N      with --stream: GPU layers for the pages of the streamed levels (0 and
                       1, more from about 19000^2; default: enough for the window at --fov
                       and 1 pixel of level of detail, grown when the window grows); implies
                       --stream
  --upload MODE        how a map read into memory sends its full-detail (level-0) height
                       pages to the GPU: whole (all at load), on-demand (as views need them,
                       through a pool of layers sized for the window, the first view waiting
                       for its own; a frame without level of detail first uploads them all)
                       or auto, the default: on-demand for maps of more than 8192x8192 samples
                       unless --lod is off
  --georef TILE        the SRTM tile an .hgt lies on (N47E009), whatever the file is called
  --fill-nodata        draw nodata samples (a raster's nodata value, NaN, masked, SRTM voids)
                       as terrain filled from their neighbours, not as holes
  --size WxH           size of a headerless .r16/.raw file
  --window WxH         window and screenshot size (default 1280x720): at most 16384 a side
                       and 67108864 pixels (8192x8192), and what the OpenGL driver allows
  --eye X,Y,Z          camera position (with --target)
  --target X,Y,Z       point the camera looks at (with --eye)
  --fov DEGREES        vertical field of view, between 1 and 179 (default 60)
  --no-cull            draw every leaf (the reference image for culling tests)
  --no-occlusion       cull by the frustum only, keeping leaves that nearer terrain hides
  --lod PIXELS         level of detail: far nodes drawn at coarser strides of the grid, the
                       surface at most PIXELS off the full-detail one on screen (e.g. 1 or 2;
                       0 or off: full detail). auto, the default: 1 for maps of more than
                       4,000,000 triangles (2 per grid square, about 1415x1415 samples), else
                       off; --bench draws by level of detail only when --lod gives PIXELS
  --sync-draws MODE    auto, on or off: draw the terrain in at most 16 batches, waiting for the
                       oldest so that the driver holds at most 786432 triangles queued
                       (auto, the default: on for software rasterisers such as llvmpipe,
                       which keep queued triangles in host memory)
  --back-faces MODE    auto or draw: cull the triangles facing away from the eye whenever the
                       eye is over the map and clear above the terrain, where none can be seen
                       (auto, the default), or always draw them (draw)
  --screenshot OUT.png render one frame without the HUD, write it, exit
  --stats-json OUT.json  write the last frame's camera, mapping and culling counts, exit
  --dump-leaves        with --stats-json: also list the visible leaves as [column, row]
  --pick PX,PY         with --stats-json: the terrain under window pixel PX,PY (origin top-left)
                       for the frame's camera: "pick": {"hit", "world", "sample", "height",
                       "object"}, the object the pixel shows in front of the terrain or null
  --cull-map OUT.png   write the top-down culling picture (drawn, culled, frustum), exit
  --bench OUT.csv      fly a fixed path culled and unculled, one CSV row per frame, print a summary
  --bench-lod-only     with --bench and --lod (or --frame-budget): fly the level-of-detail
                       mode alone (maps whose full-detail frames take too long)
  --frames N           render N frames, then exit
  --soak N             N frames of random teleports, turns, resizes to 0x0, toggles and good
                       and bad reloads, checking NaNs, culled == unculled and memory drift
                       (resident and own heap, under 1% after warm-up, else exit 1)
  --soak-rss-report-only  with --soak: print the resident-memory drift without failing on it
                       (llvmpipe's rasterizer threads keep a varying amount of scene memory)
  --window-shot OUT.png  run the viewer for --frames frames (default 5), save the window with
                       its HUD, exit
  --objects N          scatter N objects on the terrain (trees, rocks and balls; 0 to 50000000)
  --moving M           M of them are balls that roll downhill and collide (default 0)
  --seed S             the scatter's seed: the same seed, the same scene (default 1)
  --object-scale F     objects F times their size: trees 12-27 m tall on maps in metres,
                       else 4-9 sample spacings (default 1, at most 1000)
  --steps K            with --stats-json or --screenshot: K simulation steps of 1/60 s first
  --dump-objects       with --stats-json: also list every object as [id, [min], [max], state]
  --fog on|off|DISTANCE  distance fog into the sky colour up to the far plane: on from 40% of
                       the far plane (default), off, or from DISTANCE (world units) from the eye
  --contours METRES|off  contour lines every METRES (map units when the map is not in metres);
                       0 or off: none (default); the HUD has the same switch and interval
  --sun DATE           the Sun over a georeferenced map's centre at DATE, local time with its
                       offset from UTC: 2026-06-21T09:00+02:00 (seconds optional, Z for UTC)
  --sun-azimuth DEG    the Sun's direction in degrees clockwise from north (the map's first
                       row, towards -z; east is +x), where the light comes from
  --sun-elevation DEG  the Sun's height above the horizon, -90 to 90; either alone keeps the
                       other of the fixed light (azimuth 307.9, elevation 52.8)
  --imagery PATH       drape an image over the heights: a georeferenced raster (GeoTIFF, COG,
                       VRT, a JPEG or PNG with a world file) lands where it belongs, a plain
                       image covers the map's extent; 1-4 bands of 8 or 16 bits
  --imagery-opacity F  the imagery over the terrain's own colours, 0 to 1 (default 1)
  --imagery-light on|off  light the imagery like the terrain (default on); off for imagery with
                       its shading baked in
  --imagery-compression none|bc3  the imagery's GPU pages as they are (default) or as BC3
                       blocks: a quarter of the GPU bytes, four times the pages in a pool, about
                       1-2 levels of error (needs S3TC, which llvmpipe and desktop GPUs have)
  --screenshot-dir DIR  the folder F12 saves into (default: $XDG_PICTURES_DIR, else the
                       pictures folder of user-dirs.dirs, else ~/Pictures, else the current one)
  --state-json OUT.json  the interactive viewer writes its camera, the terrain under the cursor,
                       the measurement and the last screenshot at exit, and prints
                       "quadterrain: ready" after its first frame (for tests driving the window)
  --memory-budget MB   refuse a map whose estimated peak memory loaded (12 bytes a sample,
                       16 through GDAL) is over MB MiB, before reading it, counting the map
                       already shown when another is opened (default: half of this machine's
                       memory; 0: no budget); a .r16/.raw or GDAL raster over it streams
                       (--stream) instead
  --max-fps N          at most N frames a second, taking input between frames (to try the
                       viewer at low frame rates)
  --freeze-eye X,Y,Z   start with the culling frustum frozen at this camera (with
  --freeze-target X,Y,Z  --freeze-target); --eye/--target then place the viewing camera
  --help               this text
)";
}

}  // namespace qt
