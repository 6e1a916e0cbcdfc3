// Instanced terrain drawing: a static strip over one leaf, leaf or node coordinates per instance,
// heights fetched in the vertex shader; no GL call per leaf.
#include "render/terrain_renderer.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include <glm/gtc/type_ptr.hpp>
#include <glm/trigonometric.hpp>

#include "core/base/huge_pages.h"
#include "core/frame/draw_batches.h"
#include "core/frame/frame.h"
#include "core/light/sunlight_job.h"
#include "core/streaming/imagery_streamer.h"
#include "core/streaming/page_streamer.h"
#include "core/terrain/vertex_grid.h"

namespace qt {

EyeInGrid eyeInGrid(const glm::vec3& eye, const WorldMapping& mapping) {
    // Beyond 2^30 columns the integer part stops there and the fraction takes the rest: so far
    // from the map, a unit's rounding is far below a pixel.
    constexpr double kLimit = double(1 << 30);
    const auto split = [&](double at, int& whole, float& fraction) {
        const double clamped = std::clamp(std::floor(at), -kLimit, kLimit);
        whole = int(clamped);
        fraction = float(at - clamped);
    };
    EyeInGrid g;
    split(double(eye.x) / double(mapping.spacingX), g.sampleX, g.fractionX);
    split(double(eye.z) / double(mapping.spacingZ), g.sampleZ, g.fractionZ);
    return g;
}
glm::vec3 sunVector(SunDirection sun) {
    const double azimuth = glm::radians(sun.azimuth);
    const double elevation = glm::radians(sun.elevation);
    const double across = std::cos(elevation);
    return glm::vec3(float(std::sin(azimuth) * across), float(std::sin(elevation)),
                     float(-std::cos(azimuth) * across));
}

namespace {

// The upload's page fills: at most this many threads, each filling this many pages of a chunk.
constexpr int kMaxUploadThreads = 8;
constexpr size_t kUploadChunkPagesPerThread = 16;

// A wait for a batch is retried every second until the batch is done.
constexpr GLuint64 kSyncTimeoutNs = 1000000000;

// Instances the instance buffer holds at first (TerrainGpu::instanceCapacity): 768 KiB of
// DrawNodes; a frame that draws more grows it.
constexpr size_t kFirstInstances = size_t(1) << 16;

// One leaf's strip over its own (leafSize + 1)^2 vertices: the core's strip with the leaf as the
// whole grid, so a local vertex id is j * (leafSize + 1) + i. 16-bit: at most 65 x 65 vertices.
std::vector<GLushort> leafStripIndices(int leafSize) {
    std::vector<uint32_t> strip;
    appendLeafStrip(0, 0, leafSize, leafSize, leafSize + 1, strip);
    return std::vector<GLushort>(strip.begin(), strip.end());
}

// Each local vertex's (i, j), two bytes, in local id order (leafSize <= 64 fits a byte): the
// vertex shader reads them as an attribute rather than dividing gl_VertexID, which llvmpipe
// does lane by lane.
std::vector<GLubyte> localVertices(int leafSize) {
    std::vector<GLubyte> local;
    for (int j = 0; j <= leafSize; ++j) {
        for (int i = 0; i <= leafSize; ++i) {
            local.push_back(GLubyte(i));
            local.push_back(GLubyte(j));
        }
    }
    return local;
}

// Reads the local vertex buffer as attribute 1, (i, j), in the bound vertex array.
void bindLocalVertices(GLuint localBuffer) {
    glBindBuffer(GL_ARRAY_BUFFER, localBuffer);
    glEnableVertexAttribArray(1);
    glVertexAttribIPointer(1, 2, GL_UNSIGNED_BYTE, 2, nullptr);
}

// Byte offset of DrawNode::morph, where attribute 2 starts.
constexpr size_t kMorphOffset = offsetof(DrawNode, morph);
static_assert(kMorphOffset == 6 && offsetof(DrawNode, edgeMorph) == 8,
              "attribute 2 reads morph, pad and the four edge morphs as three uint16");

// Points the instance attributes at instance `first` of the bound instance buffer (GL 3.3 has
// no base instance): attribute 0, and for nodes attribute 2.
void repointInstances(bool nodes, GLsizei stride, size_t first) {
    const size_t offset = first * size_t(stride);
    glVertexAttribIPointer(0, nodes ? 3 : 2, GL_UNSIGNED_SHORT, stride,
                           reinterpret_cast<const void*>(offset));
    if (nodes) {
        glVertexAttribIPointer(2, 3, GL_UNSIGNED_SHORT, stride,
                               reinterpret_cast<const void*>(offset + kMorphOffset));
    }
}

// The most layers of texels^2 R16UI texels, up to `layers`, that the driver takes in one array
// texture (0 when not one), found with proxy textures: GL_MAX_ARRAY_TEXTURE_LAYERS does not say
// that a driver caps a texture's bytes.
int largestPageArray(int texels, int layers) {
    auto fits = [texels](int count) {
        glTexImage3D(GL_PROXY_TEXTURE_2D_ARRAY, 0, GL_R16UI, texels, texels, count, 0,
                     GL_RED_INTEGER, GL_UNSIGNED_SHORT, nullptr);
        GLint width = 0;
        glGetTexLevelParameteriv(GL_PROXY_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_WIDTH, &width);
        return width != 0;
    };
    if (fits(layers)) {
        return layers;
    }
    int lo = 0;       // fits (nothing)
    int hi = layers;  // does not
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

// Texture unit of height array `a`: unit 1 holds the page table.
GLenum heightUnit(int a) {
    return GLenum(GL_TEXTURE0 + (a == 0 ? 0 : a + 1));
}

// A page of the pyramid and the layer it goes into.
struct PageRef {
    int level, px, py, layer;
};

// Uploads a page's texels (pages.texels^2 codes) into its layer; rows of an odd number of
// texels are 2-aligned (GL_UNPACK_ALIGNMENT 2, set by the caller).
void uploadPageLayer(const TerrainGpu& gpu, int layer, const uint16_t* texels) {
    glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.heightPages[layer / gpu.layersPerArray]);
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer % gpu.layersPerArray, gpu.pages.texels,
                    gpu.pages.texels, 1, GL_RED_INTEGER, GL_UNSIGNED_SHORT, texels);
}

// Pages a level's reader fills ahead of the uploads at least (CoarseLevelFill), and the most bytes
// the readers together hold ahead of them: every held level's pages while the levels take at
// most that, as they do when levels 2 and up stream (kHeldLevelsBytes).
constexpr size_t kCoarsePagesAhead = 4;
constexpr size_t kCoarseBytesAhead = size_t(64) << 20;

// The pages of `order` (sorted by level) from `coarse`, each level's filled on a thread of its
// own from construction on, and uploaded by upload() as they come, in whatever order the levels
// give them. A layout's coarse levels are files of their own, read over the network a row of
// tiles a request: read one after another, their requests' latencies add up (an 8193² layout's
// eleven levels, 43 requests, 5.0 s at 100 ms a request), side by side only the longest level's
// do. The readers start before the textures are allocated (llvmpipe zeroes a 65537² layout's
// 1332 layers, 175 MB, in about 0.7 s), so each level fills up to its share of kCoarseBytesAhead
// ahead of the uploads (at least kCoarsePagesAhead pages): what is held is bounded by that, not
// the map. A level that fails ends there and the others go on to their ends: the result is the
// lowest level's failure, whichever thread met its own first, as when they were read in turn.
// Destroyed before upload() (a texture that could not be allocated), it stops the readers.
class CoarseLevelFill {
public:
    CoarseLevelFill(const HeightPages& pages, const std::vector<PageRef>& order,
                    const CoarsePageFill& coarse)
        : pages_(pages), order_(order), texels_(size_t(pages.texels) * size_t(pages.texels)) {
        for (size_t i = 0; i < order.size(); ++i) {
            if (i == 0 || order[i].level != order[i - 1].level) {
                queues_.emplace_back();
                queues_.back().begin = i;
            }
            queues_.back().end = i + 1;
        }
        const size_t bytes = order.size() * texels_ * sizeof(uint16_t);
        size_t slots = 0;
        for (LevelQueue& queue : queues_) {
            const size_t count = queue.end - queue.begin;
            const size_t share =
                bytes <= kCoarseBytesAhead
                    ? count
                    : size_t(double(count) * double(kCoarseBytesAhead) / double(bytes));
            queue.ahead = std::min(count, std::max(kCoarsePagesAhead, share));
            queue.firstSlot = slots;
            slots += queue.ahead;
        }
        resizeHuge(slots_, slots * texels_);
        for (size_t q = 0; q < queues_.size(); ++q) {
            readers_.emplace_back([this, q, &coarse] { read(q, coarse); });
        }
    }

    ~CoarseLevelFill() { stop(); }

    CoarseLevelFill(const CoarseLevelFill&) = delete;
    CoarseLevelFill& operator=(const CoarseLevelFill&) = delete;

    // Uploads every page into its layer as its level's reader fills it; the lowest failed level's
    // result once every reader has ended.
    Status upload(const TerrainGpu& gpu) {
        glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
        {
            const auto waiting = [&] {
                return std::any_of(queues_.begin(), queues_.end(),
                                   [](const LevelQueue& q) { return q.filled > q.uploaded; });
            };
            const auto allDone = [&] {
                return std::all_of(queues_.begin(), queues_.end(),
                                   [](const LevelQueue& q) { return q.done; });
            };
            std::unique_lock<std::mutex> lock(mutex_);
            for (;;) {
                changed_.wait(lock, [&] { return waiting() || allDone(); });
                if (!waiting()) {
                    break;
                }
                for (size_t q = 0; q < queues_.size(); ++q) {
                    LevelQueue& queue = queues_[q];
                    while (queue.filled > queue.uploaded) {
                        // Slot `uploaded` is the GL thread's until the count below moves.
                        const size_t k = queue.uploaded;
                        lock.unlock();
                        uploadPageLayer(gpu, order_[queue.begin + k].layer, slot(q, k));
                        lock.lock();
                        ++queue.uploaded;
                        changed_.notify_all();
                    }
                }
            }
        }
        stop();
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        for (const LevelQueue& queue : queues_) {
            if (!queue.failed) {
                return queue.failed;
            }
        }
        return {};
    }

private:
    struct LevelQueue {
        size_t begin = 0, end = 0;        // its pages in `order`
        size_t ahead = 0;                 // its slots: the most pages filled ahead of the uploads
        size_t firstSlot = 0;             // in slots_
        size_t filled = 0, uploaded = 0;  // of them
        bool done = false;                // filled to its end or to its failure
        Status failed;
    };

    uint16_t* slot(size_t q, size_t k) {
        const LevelQueue& queue = queues_[q];
        return slots_.data() + (queue.firstSlot + k % queue.ahead) * texels_;
    }

    // Level q's thread: its pages in order, each into the next slot once one is free.
    void read(size_t q, const CoarsePageFill& coarse) {
        LevelQueue& queue = queues_[q];
        Status filled;
        for (size_t k = 0; queue.begin + k < queue.end && filled; ++k) {
            {
                std::unique_lock<std::mutex> lock(mutex_);
                changed_.wait(
                    lock, [&] { return stopping_ || queue.filled - queue.uploaded < queue.ahead; });
                if (stopping_) {
                    break;
                }
            }
            // Slot k is this thread's until the count below moves.
            const PageRef& p = order_[queue.begin + k];
            filled = coarse(pages_, p.level, p.px, p.py, slot(q, k));
            if (filled) {
                {
                    const std::lock_guard<std::mutex> lock(mutex_);
                    ++queue.filled;
                }
                changed_.notify_all();
            }
        }
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            queue.failed = std::move(filled);
            queue.done = true;
        }
        changed_.notify_all();
    }

    void stop() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        for (std::thread& reader : readers_) {
            if (reader.joinable()) {
                reader.join();
            }
        }
    }

    const HeightPages pages_;  // a copy: a failed create() destroys the terrain's before this
    const std::vector<PageRef>& order_;
    const size_t texels_;
    std::vector<LevelQueue> queues_;
    std::vector<uint16_t> slots_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool stopping_ = false;
    std::vector<std::thread> readers_;
};

// Fills the pages of `order` (sorted by level, then row) from the map and uploads each into its
// layer: a chunk (a row of pages, or part of one) at a time, filled by every core
// (fillHeightPage only reads the map) and uploaded from the chunk in order; rows of an odd number
// of texels are 2-aligned. Mapped codes: each row of pages first gathers the map rows it reads
// (gatherPageRows, the rows shared out between the cores), and the rows no page after a chunk
// reads leave the process, so a map bigger than memory is never resident whole.
Status fillAndUpload(const TerrainGpu& gpu, const Heightmap& map,
                     const std::vector<PageRef>& order) {
    const HeightPages& pages = gpu.pages;
    const size_t texels = size_t(pages.texels) * size_t(pages.texels);
    const size_t threads = std::clamp(size_t(std::thread::hardware_concurrency()), size_t(1),
                                      size_t(kMaxUploadThreads));
    const size_t chunk = kUploadChunkPagesPerThread * threads;
    std::vector<uint16_t> staging(std::min(chunk, std::max(order.size(), size_t(1))) * texels);
    const bool gather = map.codes.isMapped();
    PageRowSource rows;
    const auto onEveryCore = [threads](size_t tasks, const auto& task) {
        std::vector<std::thread> helpers;
        for (size_t t = 1; t < std::min(threads, tasks); ++t) {
            helpers.emplace_back(task, t);
        }
        task(size_t(0));
        for (std::thread& helper : helpers) {
            helper.join();
        }
    };
    glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
    int released = 0;  // mapped codes: rows [0, released) have left the process
    for (size_t first = 0, count = 0; first < order.size(); first += count) {
        // At most the rest of a row of pages: rows behind it are dropped before the next.
        const PageRef& head = order[first];
        count = 1;
        while (count < chunk && first + count < order.size() &&
               order[first + count].level == head.level && order[first + count].py == head.py) {
            ++count;
        }
        if (gather && (rows.level != head.level || rows.py != head.py)) {
            preparePageRows(pages, head.level, head.py, rows);
            const size_t parts = std::min(threads, size_t(pages.texels));
            onEveryCore(parts, [&](size_t part) {
                gatherPageRows(map, pages, int(size_t(pages.texels) * part / parts),
                               int(size_t(pages.texels) * (part + 1) / parts), rows);
            });
        }
        onEveryCore(count, [&](size_t thread) {
            for (size_t i = thread; i < count; i += threads) {
                const PageRef& p = order[first + i];
                uint16_t* to = staging.data() + i * texels;
                if (gather) {
                    fillHeightPageFromRows(pages, rows, p.px, to);
                } else {
                    fillHeightPage(map, pages, p.level, p.px, p.py, to);
                }
            }
        });
        for (size_t i = 0; i < count; ++i) {
            uploadPageLayer(gpu, order[first + i].layer, staging.data() + i * texels);
        }
        const size_t next = first + count;
        const bool sameLevel = next < order.size() && order[next].level == order[next - 1].level;
        const int upTo = sameLevel
                             ? std::max(order[next].py * pages.pageSize - 1, 0) << order[next].level
                             : map.height;
        if (upTo > released) {
            releaseMapRows(map, released, upTo - 1);
        }
        released = next < order.size() && !sameLevel ? 0 : upTo;
    }
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    return {};
}

}  // namespace

void setPageTableRows(GLint location, const HeightPages& pages) {
    GLint rows[kMaxPageLevels] = {};
    const size_t levels = std::min(pages.level.size(), size_t(kMaxPageLevels));
    for (size_t k = 0; k < levels; ++k) {
        rows[k] = pages.level[k].tableRow;
    }
    glUniform1iv(location, kMaxPageLevels, rows);
}

PageLimits queryPageLimits() {
    GLint layers = 0;
    GLint side = 0;
    glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &layers);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &side);
    return PageLimits{int(layers), int(side)};
}

Status checkHeightPages(int width, int height, int leafSize, int pageSize,
                        const PagePool& streamPool) {
    return checkHeightPages(width, height, leafSize, pageSize, streamPool, queryPageLimits());
}

Status checkHeightPages(int width, int height, int leafSize, int pageSize,
                        const PagePool& streamPool, const PageLimits& limits) {
    if (width < 2 || height < 2) {
        return {};  // the loader refuses such a map itself
    }
    if (streamPool) {
        pageSize = std::max(pageSize, 2 * leafSize);  // as create() raises it
    }
    Result<HeightPages> pages =
        fitHeightPages(width, height, leafSize, pageSize, limits, streamPool);
    return pages ? Status{} : Status::failure(pages.error());
}

namespace {

// The hole texture (TerrainGpu::holeSquares): rows of squares split into layers no taller than
// the driver's largest texture.
void uploadHoleSquares(TerrainGpu& gpu, const NodataMask& nodata) {
    const std::vector<uint32_t> words = holeSquareWords(nodata);
    const int perRow = (nodata.width - 1 + 31) / 32;
    const int rows = nodata.height - 1;
    GLint largest = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
    gpu.holeRowsPerLayer = std::min(rows, std::max(int(largest), 1));
    const int layers = (rows + gpu.holeRowsPerLayer - 1) / gpu.holeRowsPerLayer;
    glGenTextures(1, &gpu.holeSquares);
    glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.holeSquares);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, 0);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_R32UI, perRow, gpu.holeRowsPerLayer, layers, 0,
                 GL_RED_INTEGER, GL_UNSIGNED_INT, nullptr);
    for (int layer = 0; layer < layers; ++layer) {
        const int first = layer * gpu.holeRowsPerLayer;
        const int count = std::min(gpu.holeRowsPerLayer, rows - first);
        glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer, perRow, count, 1, GL_RED_INTEGER,
                        GL_UNSIGNED_INT, words.data() + size_t(first) * size_t(perRow));
    }
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
}

// The hole texture's unit: after the height arrays (0, 2, 3, 4) and the page table (1).
constexpr int kHoleUnit = 5;
// The shadows' unit: after the holes'.
constexpr int kShadowUnit = 6;
// The imagery's pages' unit: after the shadows'.
constexpr int kImageryUnit = 7;
// A streamed map's light pages' units, one per height array: after the sky table's.
constexpr int kLightPageUnit = kSkyUnit + 1;
// The imagery's page table's unit: after the light pages' (13 of the 16 a fragment shader has).
constexpr int kImageryTableUnit = kLightPageUnit + kMaxHeightArrays;
static_assert(kImageryTableUnit < 16, "OpenGL 3.3 gives a fragment shader 16 texture units");

}  // namespace

Result<TerrainGpu> TerrainGpu::create(const Heightmap& map, const Quadtree& tree, int pageSize,
                                      int maxLayersPerArray, const PagePool& streamPool,
                                      const CoarsePageFill& coarse, uint64_t heldLevelsBytes) {
    if (streamPool) {
        pageSize = std::max(pageSize, 2 * tree.leafSize);
    }
    Result<HeightPages> fitted = fitHeightPages(map.width, map.height, tree.leafSize, pageSize,
                                                queryPageLimits(), streamPool, heldLevelsBytes);
    if (!fitted) {
        return Result<TerrainGpu>::failure(fitted.error());
    }
    TerrainGpu gpu;
    gpu.pages = std::move(fitted).value();
    gpu.width = map.width;
    gpu.height = map.height;
    gpu.leafSize = tree.leafSize;
    gpu.leafCount = tree.leaves.size();
    gpu.minSample = map.minSample;
    gpu.maxSample = map.maxSample;
    gpu.coding = map.coding;
    gpu.metres = map.metres;
    const HeightPages& pages = gpu.pages;

    // The pages in upload order (level by level, row by row; a streamed terrain's level 0 comes
    // later, page by page: uploadPage).
    std::vector<PageRef> order;
    for (int level = pages.pooledLevels; level < int(pages.level.size()); ++level) {
        const PageLevel& l = pages.level[size_t(level)];
        for (int py = 0; py < l.pagesY; ++py) {
            for (int px = 0; px < l.pagesX; ++px) {
                order.push_back({level, px, py, l.firstLayer + py * l.pagesX + px});
            }
        }
    }
    // A layout's coarse levels are read from here on, while the textures are allocated.
    std::optional<CoarseLevelFill> coarseFill;
    if (coarse) {
        coarseFill.emplace(pages, order, coarse);
    }
    while (glGetError() != GL_NO_ERROR) {  // only this allocation's errors below
    }
    const int driverLayers = largestPageArray(pages.texels, pages.layers);
    const int perArray =
        maxLayersPerArray > 0 ? std::min(driverLayers, maxLayersPerArray) : driverLayers;
    const int arrays = perArray > 0 ? (pages.layers + perArray - 1) / perArray : 0;
    if (arrays == 0 || arrays > kMaxHeightArrays) {
        const std::string line =
            "the GPU driver takes at most " + std::to_string(perArray) + " layers of " +
            std::to_string(pages.texels) + "^2 texels in one texture, and the map's " +
            std::to_string(pages.layers) + " height pages would need " + std::to_string(arrays) +
            " textures (at most " + std::to_string(kMaxHeightArrays) + ")";
        gpu.destroy();
        return Result<TerrainGpu>::failure(line);
    }
    gpu.heightArrays = arrays;
    gpu.layersPerArray = (pages.layers + arrays - 1) / arrays;  // balanced
    glGenTextures(arrays, gpu.heightPages);
    for (int a = 0; a < arrays; ++a) {
        glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.heightPages[a]);
        // Integer textures are complete only unfiltered; read with texelFetch alone.
        glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, 0);
        const int layers = std::min(gpu.layersPerArray, pages.layers - a * gpu.layersPerArray);
        glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_R16UI, pages.texels, pages.texels, layers, 0,
                     GL_RED_INTEGER, GL_UNSIGNED_SHORT, nullptr);
    }
    if (glGetError() == GL_OUT_OF_MEMORY) {
        const std::string line = "out of GPU memory allocating " + std::to_string(pages.layers) +
                                 " height pages (" + std::to_string(pages.bytes() >> 20) +
                                 " MiB) for " + std::to_string(map.sampleCount()) + " samples";
        gpu.destroy();
        return Result<TerrainGpu>::failure(line);
    }
    assert(!coarse || pages.poolLayers > 0);
    if (Status filled = coarseFill ? coarseFill->upload(gpu) : fillAndUpload(gpu, map, order);
        !filled) {
        gpu.destroy();
        return Result<TerrainGpu>::failure(filled.error());
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
    const std::vector<uint16_t> table = pages.table();
    glGenTextures(1, &gpu.pageTable);
    glBindTexture(GL_TEXTURE_2D, gpu.pageTable);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R16UI, pages.tableWidth, pages.tableHeight, 0, GL_RED_INTEGER,
                 GL_UNSIGNED_SHORT, table.data());
    glBindTexture(GL_TEXTURE_2D, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);

    const std::vector<GLubyte> local = localVertices(tree.leafSize);
    glGenBuffers(1, &gpu.localBuffer);
    glBindBuffer(GL_ARRAY_BUFFER, gpu.localBuffer);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(local.size()), local.data(), GL_STATIC_DRAW);

    glGenVertexArrays(1, &gpu.vertexArray);
    glBindVertexArray(gpu.vertexArray);
    bindLocalVertices(gpu.localBuffer);
    const std::vector<GLushort> indices = leafStripIndices(tree.leafSize);
    gpu.indexCount = GLsizei(indices.size());
    glGenBuffers(1, &gpu.indexBuffer);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, gpu.indexBuffer);  // recorded in the VAO
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(indices.size() * sizeof(GLushort)),
                 indices.data(), GL_STATIC_DRAW);
    glGenBuffers(1, &gpu.instanceBuffer);
    glBindBuffer(GL_ARRAY_BUFFER, gpu.instanceBuffer);
    // Room for kFirstInstances DrawNodes, the larger instance, grown as frames ask
    // (drawInstances).
    gpu.instanceCapacity = std::min(gpu.leafCount, kFirstInstances);
    glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(gpu.instanceCapacity * sizeof(DrawNode)), nullptr,
                 GL_STREAM_DRAW);
    static_assert(sizeof(LeafCoord) == 4, "two uint16 per instance");
    glEnableVertexAttribArray(0);
    glVertexAttribIPointer(0, 2, GL_UNSIGNED_SHORT, sizeof(LeafCoord), nullptr);
    glVertexAttribDivisor(0, 1);
    // The same strip and buffers, instances read as nodes: (col, row, level | coarser edges << 8).
    glGenVertexArrays(1, &gpu.nodeArray);
    glBindVertexArray(gpu.nodeArray);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, gpu.indexBuffer);
    bindLocalVertices(gpu.localBuffer);
    glBindBuffer(GL_ARRAY_BUFFER, gpu.instanceBuffer);
    glEnableVertexAttribArray(0);
    glVertexAttribIPointer(0, 3, GL_UNSIGNED_SHORT, sizeof(DrawNode), nullptr);
    glVertexAttribDivisor(0, 1);
    // (morph, west | east << 8, north | south << 8); leaves leave attribute 2 off: (0, 0, 0).
    glEnableVertexAttribArray(2);
    glVertexAttribIPointer(2, 3, GL_UNSIGNED_SHORT, sizeof(DrawNode),
                           reinterpret_cast<const void*>(kMorphOffset));
    glVertexAttribDivisor(2, 1);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (map.nodata.holes()) {
        uploadHoleSquares(gpu, map.nodata);
    }
    if (glGetError() == GL_OUT_OF_MEMORY) {
        gpu.destroy();
        return Result<TerrainGpu>::failure("out of GPU memory uploading a map of " +
                                           std::to_string(map.sampleCount()) + " samples");
    }
    return gpu;
}

void TerrainGpu::uploadPage(int layer, uint32_t page, const uint16_t* texels,
                            int64_t evicted) const {
    assert(streamed() && layer >= 0 && layer < pages.poolLayers);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 2);
    glBindTexture(GL_TEXTURE_2D_ARRAY, heightPages[layer / layersPerArray]);
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer % layersPerArray, pages.texels,
                    pages.texels, 1, GL_RED_INTEGER, GL_UNSIGNED_SHORT, texels);
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glBindTexture(GL_TEXTURE_2D, pageTable);
    int x = 0, y = 0;
    if (evicted >= 0) {
        const GLushort absent = kAbsentPage;
        pages.tableCell(uint32_t(evicted), x, y);
        glTexSubImage2D(GL_TEXTURE_2D, 0, x, y, 1, 1, GL_RED_INTEGER, GL_UNSIGNED_SHORT, &absent);
    }
    const GLushort entry = GLushort(layer);
    pages.tableCell(page, x, y);
    glTexSubImage2D(GL_TEXTURE_2D, 0, x, y, 1, 1, GL_RED_INTEGER, GL_UNSIGNED_SHORT, &entry);
    glBindTexture(GL_TEXTURE_2D, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
}

void TerrainGpu::bindHeights(GLuint program) const {
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, pageTable);
    // Every sampler is set; those past heightArrays read array 0 and are never reached.
    GLint units[kMaxHeightArrays] = {};
    for (int a = kMaxHeightArrays - 1; a >= 0; --a) {
        const int used = a < heightArrays ? a : 0;
        glActiveTexture(heightUnit(used));
        glBindTexture(GL_TEXTURE_2D_ARRAY, heightPages[used]);
        units[a] = GLint(heightUnit(used) - GL_TEXTURE0);
    }
    glUniform1iv(glGetUniformLocation(program, "heightPages"), kMaxHeightArrays, units);
    glUniform1i(glGetUniformLocation(program, "layersPerArray"), layersPerArray);
    glUniform1i(glGetUniformLocation(program, "pageTable"), 1);
    glUniform1i(glGetUniformLocation(program, "pageShift"), pages.pageShift);
    setPageTableRows(glGetUniformLocation(program, "pageTableRow"), pages);
    glUniform2i(glGetUniformLocation(program, "mapSize"), width, height);
    glUniform1i(glGetUniformLocation(program, "leafSize"), leafSize);
}

namespace {

// The map's light, `width` bytes a row, into the layers of `gpu.shadows` block by block from
// `bytes`, or with `bytes` null from the bound pixel-unpack buffer (the GL then takes each
// block's place in it as an offset).
void writeShadowLayers(const TerrainGpu& gpu, const uint8_t* bytes) {
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, gpu.width);
    glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.shadows);
    int layer = 0;
    for (int z = 0; z < gpu.height; z += gpu.shadowRowsPerLayer) {
        const int rows = std::min(gpu.shadowRowsPerLayer, gpu.height - z);
        for (int x = 0; x < gpu.width; x += gpu.shadowColumnsPerLayer, ++layer) {
            const int columns = std::min(gpu.shadowColumnsPerLayer, gpu.width - x);
            const size_t offset = size_t(z) * size_t(gpu.width) + size_t(x);
            const void* from = bytes != nullptr ? static_cast<const void*>(bytes + offset)
                                                : reinterpret_cast<const void*>(uintptr_t(offset));
            glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer, columns, rows, 1, GL_RED,
                            GL_UNSIGNED_BYTE, from);
        }
    }
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
}

// `length` samples in the fewest parts of at most `most`, all but the last of one size, the
// least that many parts take (a map 32769 rows tall in layers of at most 16384 takes three of
// 10923, not 16384, 16384 and one).
int evenPart(int length, int most) {
    const int parts = (length + most - 1) / most;
    return (length + parts - 1) / parts;
}

}  // namespace

bool TerrainGpu::createShadows(int maxRowsPerLayer, int maxColumnsPerLayer) {
    assert(shadows == 0);
    GLint largest = 0;
    GLint maxLayers = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &largest);
    glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &maxLayers);
    if (largest <= 0) {
        return false;
    }
    const int rows =
        evenPart(height, maxRowsPerLayer > 0 ? std::min(maxRowsPerLayer, largest) : largest);
    const int columns =
        evenPart(width, maxColumnsPerLayer > 0 ? std::min(maxColumnsPerLayer, largest) : largest);
    const int across = (width + columns - 1) / columns;
    const int64_t layers = int64_t(across) * ((height + rows - 1) / rows);
    if (layers > maxLayers) {
        return false;
    }
    while (glGetError() != GL_NO_ERROR) {  // only this allocation's errors below
    }
    glGenTextures(1, &shadows);
    glBindTexture(GL_TEXTURE_2D_ARRAY, shadows);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, 0);
    glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_R8, columns, rows, GLsizei(layers), 0, GL_RED,
                 GL_UNSIGNED_BYTE, nullptr);
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    if (glGetError() != GL_NO_ERROR) {
        destroyShadows();
        return false;
    }
    shadowColumnsPerLayer = columns;
    shadowRowsPerLayer = rows;
    shadowLayersAcross = across;
    return true;
}

void TerrainGpu::uploadShadows(const uint8_t* bytes) const {
    assert(shadows != 0 && shadowRowsPerLayer > 0);
    writeShadowLayers(*this, bytes);
}

void TerrainGpu::beginShadowUpload() {
    assert(shadows != 0 && !shadowUploading());
    const size_t size = size_t(width) * size_t(height);
    if (shadowUpload == 0) {
        glGenBuffers(1, &shadowUpload);
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, shadowUpload);
    // Fresh storage: the last upload's copy may still be reading the old.
    glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(size), nullptr, GL_STREAM_DRAW);
    shadowUploadMapped = static_cast<uint8_t*>(glMapBufferRange(
        GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(size),
        GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT | GL_MAP_UNSYNCHRONIZED_BIT));
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    shadowUploadCopied = 0;
}

bool TerrainGpu::continueShadowUpload(const uint8_t* bytes, size_t sliceBytes) {
    const size_t size = size_t(width) * size_t(height);
    if (!shadowUploading()) {  // the driver would not map it
        uploadShadows(bytes);
        return true;
    }
    const size_t n = std::min(sliceBytes, size - shadowUploadCopied);
    std::memcpy(shadowUploadMapped + shadowUploadCopied, bytes + shadowUploadCopied, n);
    shadowUploadCopied += n;
    if (shadowUploadCopied < size) {
        return false;
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, shadowUpload);
    const bool kept = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER) == GL_TRUE;
    shadowUploadMapped = nullptr;
    if (kept) {
        writeShadowLayers(*this, nullptr);
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if (!kept) {  // the buffer's contents were lost (GL 3.3, 6.3.1): from the bytes themselves
        uploadShadows(bytes);
    }
    return true;
}

void TerrainGpu::cancelShadowUpload() {
    if (shadowUploading()) {
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, shadowUpload);
        glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        shadowUploadMapped = nullptr;
    }
}

void TerrainGpu::destroyShadows() {
    cancelShadowUpload();
    glDeleteBuffers(1, &shadowUpload);
    shadowUpload = 0;
    glDeleteTextures(1, &shadows);
    shadows = 0;
    shadowColumnsPerLayer = 0;
    shadowRowsPerLayer = 0;
    shadowLayersAcross = 0;
}

bool TerrainGpu::createLightPages() {
    assert(!lightPaged() && heightArrays > 0);
    while (glGetError() != GL_NO_ERROR) {  // only this allocation's errors below
    }
    glGenTextures(heightArrays, lightPages);
    for (int a = 0; a < heightArrays; ++a) {
        glBindTexture(GL_TEXTURE_2D_ARRAY, lightPages[a]);
        glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_MAX_LEVEL, 0);
        const int layers = std::min(layersPerArray, pages.layers - a * layersPerArray);
        glTexImage3D(GL_TEXTURE_2D_ARRAY, 0, GL_R8, pages.texels, pages.texels, layers, 0, GL_RED,
                     GL_UNSIGNED_BYTE, nullptr);
    }
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    if (glGetError() == GL_OUT_OF_MEMORY) {
        destroyLightPages();
        return false;
    }
    return true;
}

namespace {

void uploadBytePage(const TerrainGpu& gpu, int layer, const uint8_t* texels) {
    glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.lightPages[layer / gpu.layersPerArray]);
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer % gpu.layersPerArray, gpu.pages.texels,
                    gpu.pages.texels, 1, GL_RED, GL_UNSIGNED_BYTE, texels);
}

}  // namespace

void TerrainGpu::uploadLightLevels(const uint8_t* pyramid) const {
    assert(lightPaged());
    if (pages.level.size() < 2) {
        return;
    }
    // The levels not pooled fill layers [first, pages.layers) in order: one upload per array,
    // from their first page in the pyramid (which starts at level 1).
    const size_t firstFixed = size_t(std::max(pages.pooledLevels, 1));
    if (firstFixed >= pages.level.size()) {
        return;
    }
    const PageLevel& fixed = pages.level[firstFixed];
    const int first = fixed.firstLayer;
    const size_t texels = size_t(pages.texels) * size_t(pages.texels);
    pyramid += size_t(fixed.firstPage - pages.level[1].firstPage) * texels;
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    for (int a = 0; a < heightArrays; ++a) {
        const int begin = std::max(first, a * layersPerArray);
        const int end = std::min(pages.layers, (a + 1) * layersPerArray);
        if (begin < end) {
            glBindTexture(GL_TEXTURE_2D_ARRAY, lightPages[a]);
            glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, begin - a * layersPerArray, pages.texels,
                            pages.texels, end - begin, GL_RED, GL_UNSIGNED_BYTE,
                            pyramid + size_t(begin - first) * texels);
        }
    }
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
}

void TerrainGpu::uploadLightPage(int layer, uint32_t page, const SunlightJob& light,
                                 uint8_t* staging) const {
    assert(lightPaged() && streamed() && layer >= 0 && layer < pages.poolLayers);
    const int level = pages.levelOfPage(page);
    const uint8_t* laid = level == 0 ? light.levelZeroPage(page) : light.upperPage(page);
    if (laid == nullptr) {
        const PageLevel& l = pages.level[size_t(level)];
        const int at = int(page) - l.firstPage;
        fillBytePage(light.bytes().data(), width, height, pages, level, at % l.pagesX,
                     at / l.pagesX, staging);
        laid = staging;
    }
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    uploadBytePage(*this, layer, laid);
    glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
}

void TerrainGpu::destroyLightPages() {
    glDeleteTextures(kMaxHeightArrays, lightPages);
    std::fill(std::begin(lightPages), std::end(lightPages), 0u);
}

double TerrainGpu::bytesPerSample() const {
    const double samples = double(width) * double(height);
    return samples > 0.0 ? double(pages.bytes()) / samples : 0.0;
}

void TerrainGpu::destroy() {
    glDeleteVertexArrays(1, &nodeArray);
    glDeleteVertexArrays(1, &vertexArray);
    glDeleteBuffers(1, &instanceBuffer);
    glDeleteBuffers(1, &indexBuffer);
    glDeleteBuffers(1, &localBuffer);
    glDeleteTextures(1, &pageTable);
    glDeleteTextures(kMaxHeightArrays, heightPages);
    glDeleteTextures(1, &holeSquares);
    destroyShadows();
    destroyLightPages();
    imagery.destroy();
    *this = TerrainGpu{};
}

bool isSoftwareRasteriser(const std::string& glRenderer) {
    for (const char* name : {"llvmpipe", "softpipe", "SWR", "swrast", "Software Rasterizer",
                             "Apple Software Renderer"}) {
        if (glRenderer.find(name) != std::string::npos) {
            return true;
        }
    }
    return false;
}

namespace {

ProgramFamily terrainPrograms() {
    std::vector<ProgramFamily::Variant> variants(kTerrainVariants);
    for (int v = 0; v < kTerrainVariants; ++v) {
        variants[size_t(v)].defines = terrainDefines(v);
        // Paged light is the Sun's.
        variants[size_t(v)].exists = (v & kPagedLightVariant) == 0 || (v & kSunVariant) != 0;
        variants[size_t(v)].atReload =
            (v & (kManyArraysVariant | kCoarseNodesVariant | kMorphingVariant)) == 0;
    }
    return ProgramFamily("terrain.vert", "terrain.frag", std::move(variants),
                         terrainDefines(kTerrainVariants - 1));
}

}  // namespace

Result<TerrainRenderer> TerrainRenderer::create(const std::string& shaderDir) {
    TerrainRenderer renderer;
    renderer.shaderDir = shaderDir;
    renderer.programs = terrainPrograms();
    const GLubyte* name = glGetString(GL_RENDERER);
    const GLubyte* version = glGetString(GL_VERSION);
    renderer.syncDraws = name && isSoftwareRasteriser(reinterpret_cast<const char*>(name));
    renderer.glRenderer = std::string(name ? reinterpret_cast<const char*>(name) : "?") + ", " +
                          (version ? reinterpret_cast<const char*>(version) : "?");
    if (Status loaded = renderer.reloadShaders(); !loaded) {
        renderer.destroy();
        return Result<TerrainRenderer>::failure(loaded.error());
    }
    glGenVertexArrays(1, &renderer.emptyArray);
    renderer.frameTimer.create();
    return renderer;
}

void TerrainRenderer::destroy() {
    programs.destroy();
    waterProgram.destroy();
    skyProgram.destroy();
    skyTable.destroy();
    glDeleteVertexArrays(1, &emptyArray);
    emptyArray = 0;
    frameTimer.destroy();
}

void GpuSections::create() {
    glGenQueries(kSections, queries.data());
    used = 0;
}

void GpuSections::destroy() {
    if (queries[0] != 0) {
        glDeleteQueries(kSections, queries.data());
    }
    queries.fill(0);
    used = 0;
}

void GpuSections::begin(GpuWork of) {
    assert(used < kSections);
    work[size_t(used)] = of;
    glBeginQuery(GL_TIME_ELAPSED, queries[size_t(used)]);
}

void GpuSections::end() {
    glEndQuery(GL_TIME_ELAPSED);
    ++used;
}

double GpuSections::milliseconds() const {
    return milliseconds(GpuWork::Terrain) + milliseconds(GpuWork::Objects);
}

double GpuSections::milliseconds(GpuWork of) const {
    GLuint64 total = 0;
    for (int i = 0; i < used; ++i) {
        if (work[size_t(i)] != of) {
            continue;
        }
        GLuint64 ns = 0;
        glGetQueryObjectui64v(queries[size_t(i)], GL_QUERY_RESULT, &ns);
        total += ns;
    }
    return double(total) * 1e-6;
}

std::string terrainDefines(int variant) {
    std::string defines;
    defines += (variant & kHolesVariant) != 0 ? "#define HOLES\n" : "";
    defines += (variant & kSunVariant) != 0 ? "#define SUN\n" : "";
    defines += (variant & kImageryVariant) != 0 ? "#define IMAGERY\n" : "";
    defines += (variant & kPagedLightVariant) != 0 ? "#define PAGED_LIGHT\n" : "";
    defines += (variant & kManyArraysVariant) != 0 ? "#define MANY_HEIGHT_ARRAYS\n" : "";
    defines += (variant & kCoarseNodesVariant) != 0 ? "#define COARSE_NODES\n" : "";
    defines += (variant & kMorphingVariant) != 0 ? "#define MORPHING\n" : "";
    return defines;
}

int pagesVariant(const TerrainGpu& gpu) {
    return gpu.heightArrays > 1 ? kManyArraysVariant : 0;
}

Status TerrainRenderer::reloadShaders() {
    const Status terrain = programs.reload(shaderDir);
    const Status plane = waterProgram.replaceFrom(shaderDir, "water.vert", "water.frag");
    const Status sky = skyProgram.replaceFrom(shaderDir, "sky.vert", "sky.frag");
    return !terrain ? terrain : !plane ? plane : sky;
}

int TerrainRenderer::drawWater(const TerrainGpu& gpu, const WorldMapping& mapping,
                               const Camera& camera) const {
    if (!water || !gpu.metres || !(gpu.minSample < 0.0f) || waterProgram.id == 0) {
        return 0;
    }
    // Half a metre above sea level: SRTM and Copernicus tiles store the sea as 0 m, which the
    // plane then covers instead of fighting it for depth.
    constexpr float kWaterMetres = 0.5f;
    glUseProgram(waterProgram.id);
    glUniform2f(waterProgram.uniform("size"), float(gpu.width - 1) * mapping.spacingX,
                float(gpu.height - 1) * mapping.spacingZ);
    glUniform3f(waterProgram.uniform("origin"), float(-double(camera.position.x)),
                float(double(mapping.worldHeight(kWaterMetres)) - double(camera.position.y)),
                float(-double(camera.position.z)));
    const glm::mat4 viewProjection = camera.viewProjectionFromEye();
    glUniformMatrix4fv(waterProgram.uniform("viewProjection"), 1, GL_FALSE,
                       glm::value_ptr(viewProjection));
    glUniform1f(waterProgram.uniform("farPlane"), camera.farPlane);
    glUniform1f(waterProgram.uniform("fogStart"), fog.startFor(camera.farPlane));
    glUniform3f(waterProgram.uniform("fogColour"), kSkyColour[0], kSkyColour[1], kSkyColour[2]);
    const std::optional<SkyFrame> sky = skyFrameFor(gpu, mapping, camera);
    glUniform1i(waterProgram.uniform("daylight"), sky ? 1 : 0);
    glUniform1i(waterProgram.uniform("skyTable"), kSkyUnit);
    if (sky) {
        setSkyUniforms(waterProgram, *sky);
    }
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDisable(GL_CULL_FACE);  // seen from below too
    glBindVertexArray(emptyArray);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindVertexArray(0);
    glUseProgram(0);
    return 1;
}

std::optional<SkyFrame> TerrainRenderer::skyFrameFor(const TerrainGpu& gpu,
                                                     const WorldMapping& mapping,
                                                     const Camera& camera) const {
    if (!sun) {
        return std::nullopt;
    }
    const float lo = mapping.worldHeight(gpu.minSample);
    const float hi = mapping.worldHeight(gpu.maxSample);
    const float longer = std::max(float(std::max(gpu.width - 1, 1)) * mapping.spacingX,
                                  float(std::max(gpu.height - 1, 1)) * mapping.spacingZ);
    const Atmosphere atmosphere =
        atmosphereFor(gpu.metres, mapping.heightScale, mapping.heightOffset, std::min(lo, hi),
                      std::max(lo, hi), longer);
    skyTable.update(*sun);
    return skyFrame(*sun, skyTable.texture, camera, atmosphere, fog);
}

int TerrainRenderer::drawSky(const TerrainGpu& gpu, const WorldMapping& mapping,
                             const Camera& camera) const {
    const std::optional<SkyFrame> sky = skyFrameFor(gpu, mapping, camera);
    if (!sky || skyProgram.id == 0) {
        return 0;
    }
    glUseProgram(skyProgram.id);
    setSkyUniforms(skyProgram, *sky);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_FALSE);
    glDisable(GL_CULL_FACE);
    glBindVertexArray(emptyArray);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glDepthMask(GL_TRUE);
    glDepthFunc(GL_LESS);
    glUseProgram(0);
    return 1;
}

void TerrainRenderer::clear(int width, int height) {
    glViewport(0, 0, width, height);
    glClearColor(kSkyColour[0], kSkyColour[1], kSkyColour[2], 1.0f);
    glClearDepth(1.0);
    glClearStencil(0);
    glDepthMask(GL_TRUE);
    glStencilMask(0xFF);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
}

int TerrainRenderer::draw(const TerrainGpu& gpu, const WorldMapping& mapping, const Camera& camera,
                          const std::vector<LeafCoord>& visible, size_t holesFrom,
                          const DrawStyle& style) const {
    return drawInstances(gpu, mapping, camera, false, visible.data(), GLsizei(visible.size()),
                         GLsizei(std::min(holesFrom, visible.size())), style);
}

int TerrainRenderer::draw(const TerrainGpu& gpu, const WorldMapping& mapping, const Camera& camera,
                          const std::vector<DrawNode>& visible, size_t holesFrom,
                          const DrawStyle& style) const {
    return drawInstances(gpu, mapping, camera, true, visible.data(), GLsizei(visible.size()),
                         GLsizei(std::min(holesFrom, visible.size())), style);
}

bool TerrainRenderer::useTerrainProgram(int variant, const TerrainGpu& gpu,
                                        const WorldMapping& mapping, const Camera& camera,
                                        const DrawStyle& style) const {
    const ShaderProgram& shader = programs.program(variant);
    if (shader.id == 0) {
        return false;
    }
    const bool holes = (variant & kHolesVariant) != 0;
    glUseProgram(shader.id);
    gpu.bindHeights(shader.id);
    if (holes) {
        glActiveTexture(GL_TEXTURE0 + kHoleUnit);
        glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.holeSquares);
        glUniform1i(shader.uniform("holeSquares"), kHoleUnit);
        glUniform1i(shader.uniform("holeRowsPerLayer"), gpu.holeRowsPerLayer);
    }
    if (sun) {
        if (const std::optional<SkyFrame> sky = skyFrameFor(gpu, mapping, camera)) {
            setSkyUniforms(shader, *sky);
        }
        const glm::vec3 towards = sunVector(*sun);
        glUniform3f(shader.uniform("sunDirection"), towards.x, towards.y, towards.z);
        glActiveTexture(GL_TEXTURE0 + kShadowUnit);
        glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.shadows);
        glUniform1i(shader.uniform("shadows"), kShadowUnit);
        glUniform2i(shader.uniform("shadowLayerSize"), std::max(gpu.shadowColumnsPerLayer, 1),
                    std::max(gpu.shadowRowsPerLayer, 1));
        glUniform1i(shader.uniform("shadowLayersAcross"), std::max(gpu.shadowLayersAcross, 1));
        glUniform1i(shader.uniform("shadowed"), gpu.shadows != 0 || gpu.lightPaged() ? 1 : 0);
        if ((variant & kPagedLightVariant) != 0) {
            // Every sampler is set; those past heightArrays read array 0 and are never reached.
            GLint units[kMaxHeightArrays] = {};
            for (int a = kMaxHeightArrays - 1; a >= 0; --a) {
                const int used = a < gpu.heightArrays ? a : 0;
                glActiveTexture(GLenum(GL_TEXTURE0 + kLightPageUnit + used));
                glBindTexture(GL_TEXTURE_2D_ARRAY, gpu.lightPages[used]);
                units[a] = kLightPageUnit + used;
            }
            glUniform1iv(shader.uniform("lightPages"), kMaxHeightArrays, units);
        }
    }
    if ((variant & kImageryVariant) != 0) {
        const ImageryGpu& im = gpu.imagery;
        const ImageryPlan& plan = im.plan;
        glActiveTexture(GL_TEXTURE0 + kImageryUnit);
        glBindTexture(GL_TEXTURE_2D_ARRAY, im.pages);
        glUniform1i(shader.uniform("imageryPages"), kImageryUnit);
        glActiveTexture(GL_TEXTURE0 + kImageryTableUnit);
        glBindTexture(GL_TEXTURE_2D, im.table);
        glUniform1i(shader.uniform("imageryTable"), kImageryTableUnit);
        glUniform1i(shader.uniform("imageryTop"), plan.top());
        glUniform1i(shader.uniform("imageryTail"), plan.tail);
        GLint rows[kImageryMaxLevels] = {};
        GLfloat origins[2 * kImageryMaxLevels] = {};
        for (int k = 0; k <= plan.top(); ++k) {
            rows[k] = plan.level[size_t(k)].tableRow;
            origins[2 * k] = float(plan.level[size_t(k)].originX);
            origins[2 * k + 1] = float(plan.level[size_t(k)].originY);
        }
        glUniform1iv(shader.uniform("imageryTableRow"), kImageryMaxLevels, rows);
        glUniform2fv(shader.uniform("imageryOrigin"), kImageryMaxLevels, origins);
        glUniform2f(shader.uniform("imageryDensity"), float(plan.densityX()),
                    float(plan.densityY()));
        glUniform2f(shader.uniform("imageryExtent"), float(plan.level[0].texelsX),
                    float(plan.level[0].texelsY));
        glUniform1f(shader.uniform("imageryPageTexels"), float(plan.pageTexels));
        glUniform1f(shader.uniform("imageryBorder"), float(plan.border));
        glUniform1f(shader.uniform("imagerySide"), float(plan.side()));
        glUniform1f(shader.uniform("imageryAnisotropy"), im.anisotropy);
        // The floor the frame's pages were asked for with (core/streaming/imagery_streamer.h).
        GLint viewport[4] = {0, 0, 0, 0};
        if (style.viewportHeight <= 0) {
            glGetIntegerv(GL_VIEWPORT, viewport);
        }
        const int height = style.viewportHeight > 0 ? style.viewportHeight : viewport[3];
        const ImageryView at = imageryView(plan, mapping, camera, height, 0.0f, 0.0f);
        glUniform1f(shader.uniform("imageryFloorScale"), float(at.floorScale));
        glUniform1f(shader.uniform("imageryOpacity"), std::clamp(imagery.opacity, 0.0f, 1.0f));
        glUniform1i(shader.uniform("imageryLit"), imagery.lit ? 1 : 0);
    }
    glUniform2f(shader.uniform("spacing"), mapping.spacingX, mapping.spacingZ);
    {
        // Level 1's normals near the eye alone (terrain.frag's fineNormal), for the viewport the
        // frame's pages were asked for (LodOutput::shadingPages).
        GLint viewport[4] = {0, 0, 0, 0};
        if (style.viewportHeight <= 0) {
            glGetIntegerv(GL_VIEWPORT, viewport);
        }
        const int rows = style.viewportHeight > 0 ? style.viewportHeight : viewport[3];
        glUniform2f(shader.uniform("shadingEye"), camera.position.x, camera.position.z);
        glUniform1f(
            shader.uniform("shadingReach"),
            shadingReach >= 0.0f ? shadingReach : fineShadingReach(mapping, camera.fovY, rows));
    }
    const HeightTransform height = heightTransform(gpu.coding, mapping);
    glUniform1f(shader.uniform("heightScale"), height.scale);
    // Positions relative to the eye (terrain.vert): the eye's column and row as an integer and a
    // fraction, its height taken from the bias in double.
    const EyeInGrid at = eyeInGrid(camera.position, mapping);
    glUniform2i(shader.uniform("eyeSample"), at.sampleX, at.sampleZ);
    glUniform2f(shader.uniform("eyeFraction"), at.fractionX, at.fractionZ);
    glUniform1f(shader.uniform("heightBiasFromEye"),
                float(double(height.bias) - double(camera.position.y)));
    const glm::mat4 viewProjection = camera.viewProjectionFromEye();
    glUniformMatrix4fv(shader.uniform("viewProjection"), 1, GL_FALSE,
                       glm::value_ptr(viewProjection));
    glUniform1f(shader.uniform("farPlane"), camera.farPlane);
    glUniform1f(shader.uniform("fogStart"), fog.startFor(camera.farPlane));
    const float lo = mapping.worldHeight(gpu.minSample);
    const float hi = mapping.worldHeight(gpu.maxSample);
    glUniform2f(shader.uniform("heightRange"), std::min(lo, hi), std::max(lo, hi));
    glUniform1f(shader.uniform("heightBiasFromLow"),
                float(double(height.bias) - double(std::min(lo, hi))));
    // Metres from world heights, for the altitude ramp: (y - offset) / scale.
    const bool altitude = gpu.metres && mapping.heightScale != 0.0f;
    glUniform1i(shader.uniform("altitudeRamp"), altitude ? 1 : 0);
    glUniform2f(shader.uniform("toMetres"), altitude ? 1.0f / mapping.heightScale : 0.0f,
                altitude ? -mapping.heightOffset / mapping.heightScale : 0.0f);
    // The map's heights from world heights, for contour lines in its units: (y - offset) / scale.
    const bool contours = contourInterval > 0.0f && mapping.heightScale != 0.0f;
    glUniform1f(shader.uniform("contourInterval"), contours ? contourInterval : 0.0f);
    glUniform2f(shader.uniform("toMapHeight"), contours ? 1.0f / mapping.heightScale : 0.0f,
                contours ? -mapping.heightOffset / mapping.heightScale : 0.0f);
    glUniform3f(shader.uniform("fogColour"), kSkyColour[0], kSkyColour[1], kSkyColour[2]);
    glUniform1i(shader.uniform("wireframe"), style.wireframe ? 1 : 0);
    glUniform1f(shader.uniform("dim"), style.dim);
    return true;
}

int TerrainRenderer::drawBatches(const TerrainGpu& gpu, bool nodes, GLsizei first, GLsizei count,
                                 GLsizei perDraw) const {
    // Batches: the instance attribute re-pointed at each batch's first instance (GL 3.3 has no
    // base instance). With syncDraws, a fence after each batch but the last; before a batch is
    // queued, the one batchesInFlight back is waited for.
    const GLsizei stride = nodes ? GLsizei(sizeof(DrawNode)) : GLsizei(sizeof(LeafCoord));
    const uint32_t trianglesPerInstance = 2u * uint32_t(gpu.leafSize) * uint32_t(gpu.leafSize);
    const int inFlight = batchesInFlight(uint32_t(perDraw), trianglesPerInstance);
    GLsync fences[kMaxTerrainDraws] = {};
    int draws = 0;
    for (GLsizei done = 0; done < count; done += perDraw, ++draws) {
        assert(draws < kMaxTerrainDraws || !syncDraws);
        if (syncDraws && draws >= inFlight && fences[draws - inFlight]) {
            GLsync& oldest = fences[draws - inFlight];
            while (glClientWaitSync(oldest, GL_SYNC_FLUSH_COMMANDS_BIT, kSyncTimeoutNs) ==
                   GL_TIMEOUT_EXPIRED) {
            }
            glDeleteSync(oldest);
            oldest = nullptr;
        }
        if (first + done > 0) {
            repointInstances(nodes, stride, size_t(first + done));
        }
        glDrawElementsInstanced(GL_TRIANGLE_STRIP, gpu.indexCount, GL_UNSIGNED_SHORT, nullptr,
                                std::min(perDraw, count - done));
        if (syncDraws && done + perDraw < count) {
            fences[draws] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        }
    }
    for (GLsync fence : fences) {
        if (fence) {
            glDeleteSync(fence);
        }
    }
    if (first > 0 || draws > 1) {
        repointInstances(nodes, stride, 0);
    }
    return draws;
}

int TerrainRenderer::drawInstances(const TerrainGpu& gpu, const WorldMapping& mapping,
                                   const Camera& camera, bool nodes, const void* instances,
                                   GLsizei count, GLsizei holesFrom, const DrawStyle& style) const {
    const GLuint vertexArray = nodes ? gpu.nodeArray : gpu.vertexArray;
    if (count <= 0 || vertexArray == 0) {
        return 0;
    }
    const GLsizei stride = nodes ? GLsizei(sizeof(DrawNode)) : GLsizei(sizeof(LeafCoord));
    glBindBuffer(GL_ARRAY_BUFFER, gpu.instanceBuffer);
    if (size_t(count) > gpu.instanceCapacity) {
        // More than any frame drew before: room for half as many again (the leaves at most), so
        // the buffer grows a few times over a session, never frame after frame. The vertex
        // arrays name the buffer, not its storage, so they stay as they are.
        gpu.instanceCapacity =
            std::min(gpu.leafCount, std::max(size_t(count), gpu.instanceCapacity * 3 / 2));
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(gpu.instanceCapacity * sizeof(DrawNode)), nullptr,
                     GL_STREAM_DRAW);
    }
    // Only the visible instances' bytes; re-specifying the buffer (orphaning) each frame would
    // make the driver allocate its storage each frame.
    glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(count) * stride, instances);
    // Maps without holes draw every instance with the plain program.
    const GLsizei plain = gpu.holeSquares != 0 ? holesFrom : count;

    if (style.markStencil || style.outsideStencil) {
        glEnable(GL_STENCIL_TEST);
        glStencilFunc(style.markStencil ? GL_ALWAYS : GL_EQUAL, style.markStencil ? 1 : 0, 0xFF);
        glStencilOp(GL_KEEP, GL_KEEP, style.markStencil ? GL_REPLACE : GL_KEEP);
    }

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    // The strip's triangles face up in GL's winding (appendLeafStrip): counter-clockwise seen
    // from above.
    glCullFace(GL_BACK);
    glFrontFace(GL_CCW);
    glDisable(GL_BLEND);
    if (style.wireframe) {
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
    }
    glBindVertexArray(vertexArray);
    const bool imageryShown = imagery.on && gpu.imagery.present() && !style.wireframe;
    const int lit = (sun ? kSunVariant | (gpu.lightPaged() ? kPagedLightVariant : 0) : 0) |
                    (imageryShown ? kImageryVariant : 0) | pagesVariant(gpu);
    if (style.cullBackFaces) {
        glEnable(GL_CULL_FACE);
    } else {
        glDisable(GL_CULL_FACE);
    }
    const DrawNode* list = nodes ? static_cast<const DrawNode*>(instances) : nullptr;
    const GLsizei perDraw = GLsizei(instancesPerDraw(
        uint32_t(count), 2u * uint32_t(gpu.leafSize) * uint32_t(gpu.leafSize), syncDraws));
    int draws = 0;
    // Instances [first, end) with program `variant`: in runs of nodes drawn by one program
    // (programKey; groupByProgram leaves at most kProgramKeys runs a part; leaves are one, by the
    // programs without MORPHING and COARSE_NODES).
    auto drawPart = [&](int variant, GLsizei first, GLsizei end) {
        if (list != nullptr && first < end) {
            // Every program a node may take made at once, at the first frame that draws any:
            // which keys a frame holds varies frame by frame, and a program made later, mid-
            // flight, would hold up that frame.
            for (const int key : {int(kCoarseNodesVariant), int(kMorphingVariant),
                                  kCoarseNodesVariant | kMorphingVariant}) {
                programs.program(variant | key);
            }
        }
        for (GLsizei at = first, runEnd = first; at < end; at = runEnd) {
            const int key = list != nullptr ? programKey(list[at]) : 0;
            runEnd = list != nullptr ? at + 1 : end;
            while (runEnd < end && programKey(list[runEnd]) == key) {
                ++runEnd;
            }
            const bool morphing = (key & kKeyMorphing) != 0 || !settledPrograms;
            const int keyVariant = ((key & kKeyFinerNormals) != 0 ? kCoarseNodesVariant : 0) |
                                   (morphing ? kMorphingVariant : 0);
            if (!useTerrainProgram(variant | keyVariant, gpu, mapping, camera, style)) {
                continue;  // its program failed to compile (ProgramFamily::lateFailure)
            }
            draws += drawBatches(gpu, nodes, at, runEnd - at, perDraw);
        }
    };
    drawPart(lit, 0, plain);
    // Instances over a hole: the programs that leave its squares out.
    drawPart(lit | kHolesVariant, plain, count);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glDisable(GL_CULL_FACE);
    glDisable(GL_STENCIL_TEST);
    if (gpu.holeSquares != 0) {
        glActiveTexture(GL_TEXTURE0 + kHoleUnit);
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    }
    if (sun) {
        glActiveTexture(GL_TEXTURE0 + kShadowUnit);
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        for (int a = 0; a < kMaxHeightArrays; ++a) {
            glActiveTexture(GLenum(GL_TEXTURE0 + kLightPageUnit + a));
            glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        }
    }
    if (imageryShown) {
        glActiveTexture(GL_TEXTURE0 + kImageryUnit);
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
        glActiveTexture(GL_TEXTURE0 + kImageryTableUnit);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, 0);
    for (int a = kMaxHeightArrays - 1; a >= 0; --a) {
        glActiveTexture(heightUnit(a));
        glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
    }
    glUseProgram(0);
    return draws;
}

}  // namespace qt
