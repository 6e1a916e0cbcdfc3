// The terrain on the GPU (heights as pages of a texture array, one leaf's strip, the instance
// buffer) and
// the program that draws every visible leaf, or node, with one instanced call.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "core/base/result.h"
#include "core/light/sun_position.h"
#include "core/lod/lod.h"
#include "core/streaming/page_streamer.h"
#include "core/terrain/height_pages.h"
#include "core/terrain/heightmap.h"
#include "core/terrain/quadtree.h"
#include "core/terrain/world.h"
#include "core/view/camera.h"
#include "render/fog.h"
#include "render/imagery_gpu.h"
#include "render/shader.h"
#include "render/sky.h"

namespace qt {

class SunlightJob;

// Background and fog colour: terrain fades into it at the far plane.
constexpr float kSkyColour[3] = {0.62f, 0.74f, 0.86f};

// The GL limits the height pages must fit, as this context reports them.
PageLimits queryPageLimits();

// Texture arrays the height pages may span (shaders/terrain.vert has a sampler for each).
constexpr int kMaxHeightArrays = 4;
// Entries of the shaders' pageTableRow: one per level.
constexpr int kMaxPageLevels = 16;
static_assert(kMaxTreeDepth + 1 <= kMaxPageLevels, "a level's table row for every tree level");

// Sets the shaders' pageTableRow, the uniform at `location` of the program in use: each level's
// row of the page table (the terrain's and the objects' shaders read the same table).
void setPageTableRows(GLint location, const HeightPages& pages);

// One terrain's GL objects; create() builds them all or none.
struct TerrainGpu {
    // The height codes as pages (core/terrain/height_pages.h): one R16UI layer of
    // GL_TEXTURE_2D_ARRAYs per page of every level of the pyramid, uploaded once. Page layer L is
    // layer L % layersPerArray of heightPages[L / layersPerArray]: a driver may cap one texture's
    // bytes (llvmpipe does).
    GLuint heightPages[kMaxHeightArrays] = {};
    int heightArrays = 0;
    int layersPerArray = 0;
    // R16UI GL_TEXTURE_2D: (level, page x, page y) to the page's layer (HeightPages::table). The
    // vertex shader finds a node's page here rather than in its instance data, so the instances
    // stay 12 bytes and the pages can move between layers without touching them.
    GLuint pageTable = 0;
    GLuint indexBuffer = 0;     // one full leaf as one strip of local vertex ids
    GLuint localBuffer = 0;     // (i, j) of each local vertex id, two bytes
    GLuint instanceBuffer = 0;  // one LeafCoord or DrawNode per instance (instanceCapacity)
    GLuint vertexArray = 0;     // instances read as LeafCoord
    GLuint nodeArray = 0;       // instances read as DrawNode (level of detail)
    int width = 0;
    int height = 0;
    int leafSize = 0;
    GLsizei indexCount = 0;
    size_t leafCount = 0;  // the tree's leaves: the most instances a frame draws
    // Instances the instance buffer has room for: kFirstInstances or the leaves, grown (by half
    // or to what a frame asks) when a frame draws more than it ever did, so a view that draws a
    // corner never holds a buffer for every leaf of the map (a 65537² map's leaves of 16 would
    // take 201 MB of it).
    mutable size_t instanceCapacity = 0;
    float minSample = 0.0f;
    float maxSample = 0.0f;
    HeightCoding coding;  // codes in heightPages to the map's samples
    bool metres = false;  // samples are metres: the colour ramp is tied to altitude
    HeightPages pages;    // the layout of heightPages and pageTable
    // A map with holes (Heightmap::nodata): its squares with a nodata corner, one bit each, 32 a
    // texel (core/terrain/nodata.h holeSquareWords), as an R32UI GL_TEXTURE_2D_ARRAY of
    // holeRowsPerLayer rows a layer; the terrain is then drawn by the program that leaves them
    // out. 0 without holes.
    GLuint holeSquares = 0;
    int holeRowsPerLayer = 0;
    // The light under a Sun: one byte a sample (core/light/light_byte.h: the share of the Sun's
    // disc seen and of the sky), as an R8 GL_TEXTURE_2D_ARRAY of blocks of shadowColumnsPerLayer
    // x shadowRowsPerLayer map samples, shadowLayersAcross of them side by side across the map
    // and row after row of them down it (a map wider or taller than the driver's largest texture
    // spans layers, of even sizes); read by the program compiled with SUN. 0 while no Sun is
    // given, and for streamed maps.
    GLuint shadows = 0;
    int shadowColumnsPerLayer = 0;
    int shadowRowsPerLayer = 0;
    int shadowLayersAcross = 0;
    // New shadows on their way to `shadows`: a pixel-unpack buffer, mapped while its bytes are
    // copied in a slice a frame (continueShadowUpload), then copied into `shadows` by the GPU at
    // once, so that the shadows shown change whole and no frame copies more than its slice.
    GLuint shadowUpload = 0;
    uint8_t* shadowUploadMapped = nullptr;
    size_t shadowUploadCopied = 0;
    // A streamed map's light under a Sun: one byte a sample as R8 pages mirroring heightPages
    // (the same arrays, layers and texels: fillBytePage), so that terrain.vert reads a vertex's
    // light where it reads its code, from whatever page holds it. Levels 1.. are written at each
    // new light (uploadLightLevels), a level-0 page with its heights. None while no Sun is given
    // and for maps held whole (their light is `shadows`).
    GLuint lightPages[kMaxHeightArrays] = {};
    // Imagery draped over the heights (--imagery, the HUD): none until setImagery.
    ImageryGpu imagery;

    // Pages of at least `pageSize` squares (more when the map would need more layers than the GPU
    // has), in arrays of at most `maxLayersPerArray` layers when it is positive (else as many as
    // the driver takes). Fails with one line when the pages do not fit the GPU's limits or its
    // memory.
    // With `streamPool` the terrain is streamed: the pages of its pooled levels (streamedLevels
    // with `heldLevelsBytes`: HeightPages::pooledLevels) get the layers it gives for the page
    // size fitted (at most their page count; the fit counts only those), none uploaded here,
    // their table entries kAbsentPage, and pages are at least two leaves a side (so a level-1
    // node lies in one level-0 page, core/lod/lod.h); the page streamer fills them through
    // uploadPage().
    // With `coarse` (a streamed terrain's), the pages of the levels above the pool come from it,
    // a thread a level, and the map's codes are not read; its failure is create()'s.
    static Result<TerrainGpu> create(const Heightmap& map, const Quadtree& tree,
                                     int pageSize = kDefaultPageSize, int maxLayersPerArray = 0,
                                     const PagePool& streamPool = {},
                                     const CoarsePageFill& coarse = {},
                                     uint64_t heldLevelsBytes = kHeldLevelsBytes);
    void destroy();
    bool streamed() const { return pages.poolLayers > 0; }
    // Streamed: writes pooled page `page` (PageLevel::firstPage + py * pagesX + px of a pooled
    // level) into pool layer `layer` and points its table entry there; the entry of `evicted` (the
    // layer's previous page, or -1) goes back to kAbsentPage. (PageStreamer::Upload.)
    void uploadPage(int layer, uint32_t page, const uint16_t* texels, int64_t evicted) const;
    // Binds the pages (arrays on units 0, 2, 3, 4) and the page table (unit 1) and sets the
    // uniforms through which `program` (shaders/terrain.vert) reads them: heightPages, pageTable,
    // pageShift, pageTableRow, layersPerArray, mapSize, leafSize.
    void bindHeights(GLuint program) const;
    // Allocates `shadows` for this map, its contents undefined until uploadShadows; false (and
    // none) when the map needs more layers than the driver has or the GPU has no room. Layers
    // of at most `maxRowsPerLayer` rows and `maxColumnsPerLayer` columns when they are positive
    // (tests split small maps).
    bool createShadows(int maxRowsPerLayer = 0, int maxColumnsPerLayer = 0);
    // Writes width x height shadow bytes (row by row) into `shadows`, which must exist: a
    // sub-image upload per layer, no reallocation.
    void uploadShadows(const uint8_t* bytes) const;
    // The same as uploadShadows in steps, one a frame: begin, then continue with the same bytes
    // (unchanged until it returns true), each call copying at most `sliceBytes` of them into the
    // pixel-unpack buffer; the call that copies the last hands the GPU the copy into `shadows`
    // and returns true. A buffer the driver cannot map: the whole upload at once.
    void beginShadowUpload();
    bool continueShadowUpload(const uint8_t* bytes, size_t sliceBytes);
    bool shadowUploading() const { return shadowUploadMapped != nullptr; }
    void cancelShadowUpload();  // `shadows` keeps what it had
    void destroyShadows();
    // Allocates lightPages (contents undefined until uploaded); false (and none) when the GPU has
    // no room. A streamed terrain's only.
    bool createLightPages();
    bool lightPaged() const { return lightPages[0] != 0; }
    // Writes the light pages of the levels above the pool from `pyramid` (SunlightJob::pyramid:
    // levels 1 and up, page after page from level 1's first page).
    void uploadLightLevels(const uint8_t* pyramid) const;
    // Writes pooled page `page`'s light shown by `light` into pool layer `layer`: its page as the
    // job laid it out (SunlightJob::levelZeroPage, ::upperPage), else gathered from its bytes
    // through `staging` (texels^2 bytes).
    void uploadLightPage(int layer, uint32_t page, const SunlightJob& light,
                         uint8_t* staging) const;
    void destroyLightPages();
    // GPU bytes of the heights (pages, pyramid, borders, page table; a streamed terrain's levels
    // 0 and 1 as its pool) per map sample.
    double bytesPerSample() const;
};

// Fails with one line when a width x height map in leaves of leafSize squares cannot go to this
// GPU as pages of at least pageSize squares (level 0 streamed through `streamPool` when given):
// what create() checks first, for a size known before the map is decoded.
Status checkHeightPages(int width, int height, int leafSize, int pageSize = kDefaultPageSize,
                        const PagePool& streamPool = {});
// The same against `limits` (queryPageLimits' on the GL thread): for a thread without GL.
Status checkHeightPages(int width, int height, int leafSize, int pageSize,
                        const PagePool& streamPool, const PageLimits& limits);

// True for GL_RENDERER strings of software rasterisers (llvmpipe, softpipe, swr, swrast, Apple's
// software renderer): their queued triangles are binned in host memory.
bool isSoftwareRasteriser(const std::string& glRenderer);

// How a frame's terrain is drawn.
struct DrawStyle {
    bool wireframe = false;
    // The frozen frustum's view: the frozen set marks its pixels in the stencil (markStencil);
    // the rest of the map is then drawn only where it left the frame empty (outsideStencil),
    // blended `dim` of the way to the sky colour.
    bool markStencil = false;
    bool outsideStencil = false;
    float dim = 0.0f;
    // Cull the triangles that do not face the eye (GL_CULL_FACE) in every instance; else both
    // sides are drawn (drawsFrontFacesOnly, core/cull/occlusion.h).
    bool cullBackFaces = false;
    // The viewport's height the frame was culled for (the imagery's finest level follows it);
    // 0: the GL's viewport.
    int viewportHeight = 0;
};

// The GPU's time for a frame: GL_TIME_ELAPSED queries round each of the frame's GL sections
// alone (the clear; the pages' uploads; the objects' uploads and runs' expansion; the terrain's
// draws; the objects' draws; the sky), summed, and summed by whose work a section is (the
// objects' or the rest), so that a frame's GPU time splits between terrain and objects. One
// query round the whole frame would also count the CPU's culling between the sections wherever
// the driver submits the first section's commands at once (an upload does): the GPU's clock
// would start at the query's begin and run, idle, until the draws arrived.
enum class GpuWork : uint8_t { Terrain, Objects };

struct GpuSections {
    static constexpr int kSections = 6;
    std::array<GLuint, kSections> queries{};
    std::array<GpuWork, kSections> work{};
    int used = 0;  // sections begun since reset()

    void create();
    void destroy();
    void reset() { used = 0; }
    void begin(GpuWork of);  // the next section; at most kSections a frame
    void end();
    double milliseconds() const;            // the sections' sum, waiting for the GPU
    double milliseconds(GpuWork of) const;  // the sum of `of`'s sections
};

// Begins a section of `sections` (when not null) for its scope.
class GpuSection {
public:
    explicit GpuSection(GpuSections* sections, GpuWork of = GpuWork::Terrain)
        : sections_(sections) {
        if (sections_) {
            sections_->begin(of);
        }
    }
    ~GpuSection() {
        if (sections_) {
            sections_->end();
        }
    }
    GpuSection(const GpuSection&) = delete;
    GpuSection& operator=(const GpuSection&) = delete;

private:
    GpuSections* sections_;
};

// The eye in the map's grid, for positions taken relative to it (terrain.vert): column
// sampleX + fractionX and row sampleZ + fractionZ, the integer parts subtracted exactly.
struct EyeInGrid {
    int sampleX = 0;
    int sampleZ = 0;
    float fractionX = 0.0f;
    float fractionZ = 0.0f;
};
EyeInGrid eyeInGrid(const glm::vec3& eye, const WorldMapping& mapping);

// The unit direction towards `sun` in world axes: azimuth clockwise from north (-z) through
// east (+x), elevation above the horizon (+y).
glm::vec3 sunVector(SunDirection sun);

// The terrain program's variants: terrain.vert/terrain.frag compiled with these defines.
enum TerrainVariant : int {
    kPlainVariant = 0,
    kHolesVariant = 1,    // HOLES: fragments over a square with a nodata corner discarded
    kSunVariant = 2,      // SUN: lit from TerrainRenderer::sun, shadowed by TerrainGpu::shadows
    kImageryVariant = 4,  // IMAGERY: coloured by the terrain's imagery (render/imagery_gpu.h)
    // PAGED_LIGHT, with SUN only: the light read from TerrainGpu::lightPages (a streamed map's),
    // a variant of its own so that a map held whole never pays for the pages' branches.
    kPagedLightVariant = 8,
    // MANY_HEIGHT_ARRAYS: the height (and light) pages span several arrays (TerrainGpu::
    // heightArrays > 1), read through a branch over them; without it, from the first alone.
    kManyArraysVariant = 16,
    // COARSE_NODES: nodes whose fragments may take finer normals than their vertices' (qt::
    // takesFinerNormals); without it, leaves and the finest nodes, shaded by their vertices'
    // normals alone.
    kCoarseNodesVariant = 32,
    // MORPHING: nodes part way through a morph (qt::morphsPartWay), each odd vertex blended
    // between its sample and its target; without it, one sample's fetches a vertex.
    kMorphingVariant = 64,
    kTerrainVariants = 128,
};

// The defines of a variant's program (they go after terrain.vert's and terrain.frag's #version).
std::string terrainDefines(int variant);
// The variant bits `gpu`'s pages ask for: kManyArraysVariant where they span several arrays.
int pagesVariant(const TerrainGpu& gpu);

// How imagery is shown over the terrain's own colours.
struct ImageryStyle {
    bool on = true;        // drawn when the terrain has imagery
    float opacity = 1.0f;  // over the hypsometric colours, 0 to 1
    // Lit by the terrain's light like its own colours; off for imagery with its shading baked in
    // (most orthophotos, a hillshade render), shown as it is.
    bool lit = true;
    // Whether a frame waits for every imagery page it asks for before it is drawn (scripted runs
    // and tests: the same picture however fast the pages come); the interactive viewer does not,
    // and draws coarser levels meanwhile.
    bool waitForPages = true;
};

struct TerrainRenderer {
    // Indexed by TerrainVariant bits. programs.program(kPlainVariant) draws a map without holes,
    // Sun or imagery; maps without holes never pay for the hole test, and the Sun's and the
    // imagery's variants are drawn only while they are shown, so the fixed light's picture stays
    // the plain programs'. Those with kPagedLightVariant and no kSunVariant are never made (id 0).
    // Those with kManyArraysVariant, kCoarseNodesVariant or kMorphingVariant are made when first
    // drawn, so that a driver holds only the programs a session draws with.
    ProgramFamily programs;
    ShaderProgram waterProgram;  // the flat water plane (shaders/water.*)
    ShaderProgram skyProgram;    // the daylight sky behind everything under a Sun (shaders/sky.*)
    // The sky's table for the Sun shown: a cache of `sun` alone, made again by skyFrameFor when
    // the Sun has moved (so mutable, as drawing is const).
    mutable SkyTable skyTable;
    GLuint emptyArray = 0;   // the water plane's vertex array: corners come from vertex ids
    GpuSections frameTimer;  // the GPU's time for a scripted frame
    std::string shaderDir;   // where the shaders are read from; "": the ones compiled in
    std::string glRenderer;  // GL_RENDERER and GL_VERSION, for the HUD, the bench and --stats-json
    // Draw in batches (core/frame/draw_batches.h), a fence after each, and wait for the oldest
    // before queuing more than batchesInFlight(), so the driver holds two batches, at most about
    // kQueuedTriangles triangles (one batch when the draw limit makes batches larger than half
    // of that). create() turns it on for
    // software rasterisers, where a frame's queued triangles would otherwise take host memory in
    // proportion to the view (llvmpipe: about 190 bytes a triangle, as many scenes as its
    // rasteriser threads fall behind).
    bool syncDraws = false;
    // Cull back faces wherever drawsFrontFacesOnly() holds (renderTerrain decides per frame);
    // off, both sides are always drawn (--back-faces draw).
    bool backFaceCulling = true;
    // Draw instances with no morph part way by the programs without MORPHING (one sample's
    // fetches a vertex); off, every instance by those with it (the render tests compare the two).
    bool settledPrograms = true;
    // World units from the eye within which coarse nodes' fragments take level 1's normals
    // (terrain.frag's fineNormal); negative: fineShadingReach for the frame's viewport, the reach
    // its level-1 pages were asked for with (the render tests compare a frame drawn from pages
    // partly resident with the same nodes drawn from every page at 0: level 2's normals in both).
    float shadingReach = -1.0f;
    Fog fog;  // distance fog (--fog); the objects' renderer has its own copy
    // Contour lines every this many of the map's height units (metres when the map is in metres;
    // --contours); 0: none.
    float contourInterval = 0.0f;
    // Draw a flat water plane at sea level over maps in metres that reach below it (--water).
    bool water = false;
    // A Sun given (--sun, --sun-azimuth, --sun-elevation, the HUD): the terrain lit from it and
    // shadowed by the terrain's shadows when it has some (render/terrain_sun.h keeps the two in
    // step); none: the fixed light (terrain.frag's kSunDirection).
    std::optional<SunDirection> sun;
    ImageryStyle imagery;

    // Loads terrain.vert/terrain.frag and water.vert/water.frag from shaderDir (compiled in when
    // it is "").
    static Result<TerrainRenderer> create(const std::string& shaderDir);
    void destroy();
    // Reloads the shaders; on failure the old program stays and the error is returned.
    Status reloadShaders();

    // Viewport, sky colour and depth clear for a width x height target.
    static void clear(int width, int height);
    // Uploads `visible` and draws it with instanced calls, one a run of alike instances (the
    // same program and face culling: the instances before `holesFrom` with the plain programs,
    // those from it on (FrameBuffers::holesFrom) with the hole programs, and nodes that take
    // finer normals with their own), or with syncDraws in batches sized for the whole frame, at
    // most kMaxTerrainDraws over a run's count; on a map with holes, 0 draws every instance with
    // the hole test. Returns the draw calls issued.
    int draw(const TerrainGpu& gpu, const WorldMapping& mapping, const Camera& camera,
             const std::vector<LeafCoord>& visible, size_t holesFrom, const DrawStyle& style) const;
    // The same for nodes chosen by level of detail, each at its own stride.
    int draw(const TerrainGpu& gpu, const WorldMapping& mapping, const Camera& camera,
             const std::vector<DrawNode>& visible, size_t holesFrom, const DrawStyle& style) const;

    // The water plane over the map's footprint at sea level, after the terrain (depth-tested
    // against it); not culled, so culled and unculled frames draw it alike. Returns the draw
    // calls issued: one, or none when water is off or the map has no heights below sea level.
    int drawWater(const TerrainGpu& gpu, const WorldMapping& mapping, const Camera& camera) const;
    // Under a Sun, the daylight sky over every pixel nothing was drawn on (after the terrain,
    // objects and water: depth-tested at the far plane); returns the draw calls issued, one or
    // none. Without a Sun the clear colour is the sky.
    int drawSky(const TerrainGpu& gpu, const WorldMapping& mapping, const Camera& camera) const;
    // The frame's sky and haze under the Sun over this map (render/sky.h); none without a Sun.
    std::optional<SkyFrame> skyFrameFor(const TerrainGpu& gpu, const WorldMapping& mapping,
                                        const Camera& camera) const;

private:
    int drawInstances(const TerrainGpu& gpu, const WorldMapping& mapping, const Camera& camera,
                      bool nodes, const void* instances, GLsizei count, GLsizei holesFrom,
                      const DrawStyle& style) const;
    // Makes variant `variant`'s program current with the frame's uniforms (and the hole texture
    // for the hole programs, the Sun and the shadows for the sun programs, the imagery for the
    // imagery programs); false, and nothing made current, when that program failed to compile.
    bool useTerrainProgram(int variant, const TerrainGpu& gpu, const WorldMapping& mapping,
                           const Camera& camera, const DrawStyle& style) const;
    // Instances [first, first + count) of the bound instance buffer in batches of `perDraw`
    // (instancesPerDraw of the frame's instances: all of them without syncDraws); returns the
    // draw calls.
    int drawBatches(const TerrainGpu& gpu, bool nodes, GLsizei first, GLsizei count,
                    GLsizei perDraw) const;
};

}  // namespace qt
