// terrain_gen: writes a deterministic, eroded fractal heightmap as a 16-bit grayscale PNG.
//
// Usage: terrain_gen OUT.png [--size N] [--seed S] [--base B]
//        (defaults: size 1025, seed 1; base: the size up to 8193, 4097 above)
// Build: g++ -std=c++17 -O2 -o terrain_gen src/tools/terrain_gen.cpp -lstb -lz
//
// Pipeline: domain-warped fractal + ridged noise -> landscape evolution (uplift, stream-power
// river incision, soil creep) on a grid of at most 513 cells -> bicubic upsampling ->
// droplet hydraulic erosion and a light thermal pass at the base size -> lowest 6 % flattened
// into lakes/sea -> heights normalised to 0..62000 -> 16-bit PNG via zlib.
// A size above the base (2..32769) is refined from the eroded base row by row: bicubic
// resize plus seeded fractal detail below the base's cell size, each band of rows quantised,
// filtered and streamed through zlib into the PNG, so memory stays near two copies of the
// base's floats (2 x 4097^2 x 4 B = 134 MB) and a few rows, whatever the size.
//
// Floating point uses only exactly rounded operations (+ - * / sqrt floor), its own PRNG and
// no std:: distributions, so a seed gives the same file on any IEEE-754 platform built
// without fused multiply-add contraction.

#include <stb/stb_image_write.h>  // stb writes 8-bit PNGs only; the 16-bit encoder is below
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kDefaultSize = 1025;
constexpr int kMinSize = 2;
constexpr int kMaxSize = 32769;
constexpr int kMaxBaseSize = 8193;      // the largest map eroded in one piece
constexpr int kRefinedBaseSize = 4097;  // the base of the maps above kMaxBaseSize
constexpr uint64_t kDefaultSeed = 1;
constexpr int kExitError = 2;

// ---------------------------------------------------------------- errors and arguments

struct ToolError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Options {
    std::string outPath;
    int size = kDefaultSize;
    uint64_t seed = kDefaultSeed;
    int base = 0;  // size of the eroded base; 0: the default for the size
};

int defaultBase(int size) {
    return size <= kMaxBaseSize ? size : kRefinedBaseSize;
}

uint64_t parseUnsigned(const std::string& text, const char* what) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
        throw ToolError(std::string("invalid ") + what + " '" + text + "'");
    }
    errno = 0;
    const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE) {
        throw ToolError(std::string(what) + " out of range '" + text + "'");
    }
    return value;
}

Options parseArgs(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool isOption = arg == "--size" || arg == "--seed" || arg == "--base";
        if (isOption && i + 1 >= argc) {
            throw ToolError("missing value for " + arg);
        }
        if (arg == "--size") {
            const uint64_t size = parseUnsigned(argv[++i], "size");
            if (size < kMinSize || size > kMaxSize) {
                throw ToolError("size must be in 2.." + std::to_string(kMaxSize) + ", got " +
                                std::to_string(size));
            }
            options.size = static_cast<int>(size);
        } else if (arg == "--base") {
            const uint64_t base = parseUnsigned(argv[++i], "base");
            if (base < kMinSize || base > kMaxBaseSize) {
                throw ToolError("base must be in 2.." + std::to_string(kMaxBaseSize) + ", got " +
                                std::to_string(base));
            }
            options.base = static_cast<int>(base);
        } else if (arg == "--seed") {
            options.seed = parseUnsigned(argv[++i], "seed");
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw ToolError("unknown option " + arg);
        } else if (options.outPath.empty()) {
            options.outPath = arg;
        } else {
            throw ToolError("unexpected argument " + arg);
        }
    }
    if (options.outPath.empty()) {
        throw ToolError("usage: terrain_gen OUT.png [--size N] [--seed S] [--base B]");
    }
    if (options.base == 0) {
        options.base = defaultBase(options.size);
    } else if (options.base > options.size) {
        throw ToolError("base " + std::to_string(options.base) + " is larger than the size " +
                        std::to_string(options.size));
    }
    return options;
}

// ---------------------------------------------------------------- random numbers

// SplitMix64: tiny, fast and fully specified, so results never depend on the library.
class Random {
public:
    explicit Random(uint64_t seed) : state_(seed) {}

    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    // Uniform in [0, 1).
    double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

    // Uniform in [0, bound).
    uint32_t below(uint32_t bound) { return static_cast<uint32_t>((next() >> 32) * bound >> 32); }

private:
    uint64_t state_;
};

// ---------------------------------------------------------------- heightfield

struct HeightField {
    int size = 0;
    std::vector<float> cells;

    explicit HeightField(int n) : size(n), cells(static_cast<size_t>(n) * n, 0.0f) {}

    float& at(int x, int y) { return cells[static_cast<size_t>(y) * size + x]; }
    float at(int x, int y) const { return cells[static_cast<size_t>(y) * size + x]; }
};

// ---------------------------------------------------------------- gradient noise

double fade(double t) {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

double lerp(double a, double b, double t) {
    return a + (b - a) * t;
}

double smoothStep(double edge0, double edge1, double x) {
    const double t = std::clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

// Classic 2-D Perlin gradient noise with a seeded permutation; output roughly in [-1, 1].
class GradientNoise {
public:
    explicit GradientNoise(Random& random) {
        for (int i = 0; i < kPeriod; ++i) {
            perm_[i] = static_cast<uint8_t>(i);
        }
        for (int i = kPeriod - 1; i > 0; --i) {
            std::swap(perm_[i], perm_[random.below(static_cast<uint32_t>(i + 1))]);
        }
    }

    double sample(double x, double y) const {
        const double fx = std::floor(x);
        const double fy = std::floor(y);
        const int ix = static_cast<int>(fx) & (kPeriod - 1);
        const int iy = static_cast<int>(fy) & (kPeriod - 1);
        const double dx = x - fx;
        const double dy = y - fy;
        const double n00 = corner(ix, iy, dx, dy);
        const double n10 = corner(ix + 1, iy, dx - 1.0, dy);
        const double n01 = corner(ix, iy + 1, dx, dy - 1.0);
        const double n11 = corner(ix + 1, iy + 1, dx - 1.0, dy - 1.0);
        const double u = fade(dx);
        return lerp(lerp(n00, n10, u), lerp(n01, n11, u), fade(dy));
    }

private:
    static constexpr int kPeriod = 256;

    double corner(int ix, int iy, double dx, double dy) const {
        static constexpr double kDiag = 0.70710678118654752;
        static constexpr double kGrad[8][2] = {{1, 0},          {-1, 0},         {0, 1},
                                               {0, -1},         {kDiag, kDiag},  {-kDiag, kDiag},
                                               {kDiag, -kDiag}, {-kDiag, -kDiag}};
        const int hash = perm_[(perm_[ix & (kPeriod - 1)] + iy) & (kPeriod - 1)] & 7;
        return (kGrad[hash][0] * dx + kGrad[hash][1] * dy) * 1.41421356;
    }

    std::array<uint8_t, kPeriod> perm_{};
};

// Rotates octave coordinates by an exact Pythagorean angle (3-4-5) to hide the lattice.
void nextOctave(double& x, double& y, double lacunarity) {
    const double rx = 0.8 * x - 0.6 * y;
    const double ry = 0.6 * x + 0.8 * y;
    x = rx * lacunarity + 17.31;
    y = ry * lacunarity - 5.77;
}

double fbm(const GradientNoise& noise, double x, double y, int octaves, double gain) {
    double sum = 0.0;
    double amplitude = 1.0;
    double norm = 0.0;
    for (int i = 0; i < octaves; ++i) {
        sum += amplitude * noise.sample(x, y);
        norm += amplitude;
        amplitude *= gain;
        nextOctave(x, y, 2.03);
    }
    return sum / norm;
}

// Ridged multifractal: sharp crests where the noise crosses zero, rougher on high ground.
double ridged(const GradientNoise& noise, double x, double y, int octaves) {
    double sum = 0.0;
    double amplitude = 1.0;
    double weight = 1.0;
    double norm = 0.0;
    for (int i = 0; i < octaves; ++i) {
        double ridge = 1.0 - std::fabs(noise.sample(x, y));
        ridge *= ridge * weight;
        sum += amplitude * ridge;
        norm += amplitude;
        weight = std::clamp(ridge * 1.6, 0.0, 1.0);
        amplitude *= 0.5;
        nextOctave(x, y, 2.07);
    }
    return sum / norm;
}

struct NoiseSet {
    GradientNoise continent;
    GradientNoise warpX;
    GradientNoise warpY;
    GradientNoise mountains;
    GradientNoise detail;

    explicit NoiseSet(Random& random)
        : continent(random), warpX(random), warpY(random), mountains(random), detail(random) {}
};

// Height at normalised map coordinates (u, v) in [0, 1]; roughly in [0, 1].
double baseHeight(const NoiseSet& noise, double u, double v) {
    constexpr double kBaseFrequency = 2.2;
    constexpr double kWarpStrength = 0.35;
    const double x = u * kBaseFrequency;
    const double y = v * kBaseFrequency;
    const double warpX = fbm(noise.warpX, x * 0.7 + 3.1, y * 0.7, 3, 0.5);
    const double warpY = fbm(noise.warpY, x * 0.7, y * 0.7 - 7.9, 3, 0.5);
    const double wx = x + kWarpStrength * warpX;
    const double wy = y + kWarpStrength * warpY;

    const double continent = fbm(noise.continent, wx * 0.6, wy * 0.6, 5, 0.5);
    const double mountainMask = smoothStep(-0.25, 0.35, continent);
    const double ridges = ridged(noise.mountains, wx * 1.3, wy * 1.3, 7);
    const double hills = fbm(noise.detail, wx * 3.0, wy * 3.0, 6, 0.5);
    return 0.35 + 0.45 * continent + mountainMask * 0.75 * ridges * ridges +
           (0.05 + 0.08 * mountainMask) * hills;
}

HeightField makeFractalTerrain(int size, Random& random) {
    const NoiseSet noise(random);
    HeightField field(size);
    const double step = 1.0 / std::max(1, size - 1);
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            field.at(x, y) = static_cast<float>(baseHeight(noise, x * step, y * step));
        }
    }
    return field;
}

// ---------------------------------------------------------------- fluvial (stream-power) erosion

// Drainage network of a heightfield: cells in upstream order, each with its downhill
// receiver (-1 for outlets, which drain off the map or into the sea).
struct FlowGraph {
    std::vector<int> order;
    std::vector<int> receiver;
};

constexpr int kNeighbourCount = 8;
constexpr int kNeighbourX[kNeighbourCount] = {1, -1, 0, 0, 1, 1, -1, -1};
constexpr int kNeighbourY[kNeighbourCount] = {0, 0, 1, -1, 1, -1, 1, -1};

std::vector<uint8_t> findOutlets(const HeightField& field, float seaLevel) {
    const int n = field.size;
    std::vector<uint8_t> outlet(field.cells.size(), 0);
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const bool border = x == 0 || y == 0 || x == n - 1 || y == n - 1;
            outlet[static_cast<size_t>(y) * n + x] = border || field.at(x, y) <= seaLevel;
        }
    }
    return outlet;
}

// Priority-flood (Barnes et al. 2014) from the outlets: raises every closed depression to
// its spill level plus a tiny gradient, and lists the cells in the order they were reached,
// which is non-decreasing in height. Ties break on the cell index, so the result is exact.
std::vector<int> floodFromOutlets(HeightField& field, const std::vector<uint8_t>& outlet) {
    using Entry = std::pair<float, int>;
    constexpr float kSpillGradient = 1e-3f;
    const int n = field.size;
    std::vector<int> order;
    order.reserve(field.cells.size());
    std::vector<uint8_t> queued(outlet);
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
    for (size_t i = 0; i < outlet.size(); ++i) {
        if (outlet[i]) {
            open.emplace(field.cells[i], static_cast<int>(i));
        }
    }
    while (!open.empty()) {
        const auto [height, cell] = open.top();
        open.pop();
        order.push_back(cell);
        for (int k = 0; k < kNeighbourCount; ++k) {
            const int x = cell % n + kNeighbourX[k];
            const int y = cell / n + kNeighbourY[k];
            if (x < 0 || y < 0 || x >= n || y >= n || queued[y * n + x]) {
                continue;
            }
            float& next = field.at(x, y);
            next = std::max(next, height + kSpillGradient);
            queued[y * n + x] = 1;
            open.emplace(next, y * n + x);
        }
    }
    return order;
}

// Neighbour of `cell` with the steepest descent, or -1 when none is lower.
int steepestNeighbour(const HeightField& field, int cell) {
    constexpr float kInvDiagonal = 0.70710678f;
    const int n = field.size;
    const float here = field.cells[cell];
    int best = -1;
    float bestSlope = 0.0f;
    for (int k = 0; k < kNeighbourCount; ++k) {
        const int x = cell % n + kNeighbourX[k];
        const int y = cell / n + kNeighbourY[k];
        if (x < 0 || y < 0 || x >= n || y >= n) {
            continue;
        }
        const float slope = (here - field.at(x, y)) * (k < 4 ? 1.0f : kInvDiagonal);
        if (slope > bestSlope) {
            bestSlope = slope;
            best = y * n + x;
        }
    }
    return best;
}

// Fills depressions and routes every non-outlet cell down its steepest slope. Receivers
// are strictly lower, so the flood order lists each receiver before its donors.
FlowGraph routeFlow(HeightField& field, const std::vector<uint8_t>& outlet) {
    FlowGraph graph{floodFromOutlets(field, outlet), std::vector<int>(field.cells.size(), -1)};
    for (const int cell : graph.order) {
        if (!outlet[cell]) {
            graph.receiver[cell] = steepestNeighbour(field, cell);
        }
    }
    return graph;
}

// Drainage area with multiple flow directions (Freeman 1991): each cell passes its water to
// all lower neighbours in proportion to slope squared, which avoids D8's parallel streaks.
void spreadWater(const HeightField& field, int cell, std::vector<float>& area) {
    constexpr float kInvDiagonal = 0.70710678f;
    const int n = field.size;
    const float here = field.cells[cell];
    float weights[kNeighbourCount];
    float total = 0.0f;
    for (int k = 0; k < kNeighbourCount; ++k) {
        const int x = cell % n + kNeighbourX[k];
        const int y = cell / n + kNeighbourY[k];
        const bool inside = x >= 0 && y >= 0 && x < n && y < n;
        const float slope = inside ? (here - field.at(x, y)) * (k < 4 ? 1.0f : kInvDiagonal) : 0;
        weights[k] = slope > 0 ? slope * slope : 0.0f;
        total += weights[k];
    }
    for (int k = 0; k < kNeighbourCount && total > 0; ++k) {
        if (weights[k] > 0) {
            const int next = (cell / n + kNeighbourY[k]) * n + cell % n + kNeighbourX[k];
            area[next] += area[cell] * weights[k] / total;
        }
    }
}

std::vector<float> drainageArea(const HeightField& field, const FlowGraph& graph,
                                const std::vector<uint8_t>& outlet) {
    std::vector<float> area(graph.receiver.size(), 1.0f);
    for (auto it = graph.order.rbegin(); it != graph.order.rend(); ++it) {
        if (!outlet[*it]) {
            spreadWater(field, *it, area);
        }
    }
    return area;
}

struct StreamPowerParams {
    float upliftRate = 2.0f;   // uplift of the highest ground per unit time, in cells
    float erodibility = 0.1f;  // K in the stream-power law
    float creep = 0.1f;        // hillslope diffusion coefficient, cells^2 per unit time
    float timeStep = 2.0f;
    int iterations = 50;
    int routeInterval = 4;  // steps between rebuilding the drainage network
};

// One implicit step of dh/dt = uplift - K * sqrt(area) * slope (Braun & Willett 2013),
// solved downstream-first so every cell sees its receiver's new height.
void streamPowerStep(HeightField& field, const std::vector<float>& uplift, const FlowGraph& graph,
                     const std::vector<float>& area, const StreamPowerParams& params) {
    const int n = field.size;
    for (const int cell : graph.order) {
        const int receiver = graph.receiver[cell];
        if (receiver < 0) {
            continue;
        }
        const bool diagonal = cell % n != receiver % n && cell / n != receiver / n;
        const float distance = diagonal ? 1.41421356f : 1.0f;
        const float f = params.erodibility * params.timeStep * std::sqrt(area[cell]) / distance;
        float& h = field.cells[cell];
        h = (h + params.timeStep * uplift[cell] + f * field.cells[receiver]) / (1.0f + f);
    }
}

// Linear hillslope diffusion (soil creep), explicit and sub-stepped for stability; outlets
// keep their height.
void diffuse(HeightField& field, const std::vector<uint8_t>& outlet, float amount) {
    constexpr float kStableRate = 0.2f;
    const int steps = 1 + static_cast<int>(amount / kStableRate);
    const float rate = amount / static_cast<float>(steps);
    const int n = field.size;
    HeightField next = field;
    for (int step = 0; step < steps; ++step) {
        for (int y = 1; y + 1 < n; ++y) {
            for (int x = 1; x + 1 < n; ++x) {
                const float h = field.at(x, y);
                const float laplacian = field.at(x - 1, y) + field.at(x + 1, y) +
                                        field.at(x, y - 1) + field.at(x, y + 1) - 4.0f * h;
                next.at(x, y) = outlet[static_cast<size_t>(y) * n + x] ? h : h + rate * laplacian;
            }
        }
        std::swap(field.cells, next.cells);
    }
}

// Uplift rate per cell: proportional to the initial height above sea level, tapered towards
// the map border (which is held at base level) so that no cliff forms along the edge.
std::vector<float> upliftRates(const HeightField& field, const std::vector<uint8_t>& outlet,
                               float seaLevel, float rate) {
    constexpr double kEdgeTaper = 0.08;
    const int n = field.size;
    const float top = *std::max_element(field.cells.begin(), field.cells.end());
    const float range = std::max(1e-6f, top - seaLevel);
    std::vector<float> uplift(field.cells.size(), 0.0f);
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const size_t i = static_cast<size_t>(y) * n + x;
            const double edge = std::min(std::min(x, n - 1 - x), std::min(y, n - 1 - y));
            const double taper = 0.25 + 0.75 * smoothStep(0.0, kEdgeTaper * n, edge);
            const float t = std::max(0.0f, (field.cells[i] - seaLevel) / range);
            uplift[i] = outlet[i] ? 0.0f : static_cast<float>(taper) * t * rate;
        }
    }
    return uplift;
}

// Landscape evolution: tectonic uplift against river incision and soil creep, which turns
// the noise into a dendritic network of ridges and valleys.
void erodeFluvial(HeightField& field, float seaLevel, const StreamPowerParams& params) {
    const std::vector<uint8_t> outlet = findOutlets(field, seaLevel);
    const std::vector<float> uplift = upliftRates(field, outlet, seaLevel, params.upliftRate);
    FlowGraph graph;
    std::vector<float> area;
    for (int it = 0; it < params.iterations; ++it) {
        if (it % params.routeInterval == 0) {
            graph = routeFlow(field, outlet);
            area = drainageArea(field, graph, outlet);
        }
        streamPowerStep(field, uplift, graph, area, params);
        diffuse(field, outlet, params.creep * params.timeStep);
    }
}

// ---------------------------------------------------------------- resampling

float catmullRom(float p0, float p1, float p2, float p3, float t) {
    const float a = -0.5f * p0 + 1.5f * p1 - 1.5f * p2 + 0.5f * p3;
    const float b = p0 - 2.5f * p1 + 2.0f * p2 - 0.5f * p3;
    const float c = -0.5f * p0 + 0.5f * p2;
    return ((a * t + b) * t + c) * t + p1;
}

// Value at fractional position `pos` along a line of `count` samples spaced `stride` apart.
float sampleLine(const float* line, int count, int stride, float pos) {
    const int i = std::min(static_cast<int>(pos), count - 2);
    const float t = pos - i;
    const auto at = [&](int k) { return line[std::clamp(k, 0, count - 1) * stride]; };
    return catmullRom(at(i - 1), at(i), at(i + 1), at(i + 2), t);
}

// Bicubic (Catmull-Rom) resize of a square heightfield, corners mapped onto corners.
HeightField resample(const HeightField& source, int size) {
    const int m = source.size;
    const float scale = static_cast<float>(m - 1) / static_cast<float>(size - 1);
    HeightField rows(1);
    rows.size = size;
    rows.cells.assign(static_cast<size_t>(m) * size, 0.0f);
    for (int y = 0; y < m; ++y) {
        for (int x = 0; x < size; ++x) {
            rows.cells[static_cast<size_t>(y) * size + x] =
                sampleLine(&source.cells[static_cast<size_t>(y) * m], m, 1, x * scale);
        }
    }
    HeightField result(size);
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            result.at(x, y) = sampleLine(&rows.cells[x], m, size, y * scale);
        }
    }
    return result;
}

// ---------------------------------------------------------------- hydraulic erosion

// Particle ("droplet") hydraulic erosion after Hans Theobald Beyer (2015): carves gullies
// and small side valleys at the full output resolution.
// Tuned for heights in "droplet units", where one unit is 40 output cell widths of height
// (see kDropletHeightScale), close to the 0..1 heights on a 256-cell map of the original.
struct ErosionParams {
    float inertia = 0.05f;
    float capacityFactor = 4.0f;
    float minCapacity = 0.01f;
    float minSlope = 0.01f;
    float erodeRate = 0.3f;
    float depositRate = 0.3f;
    float evaporateRate = 0.01f;
    float gravity = 4.0f;
    int maxSteps = 30;
    int brushRadius = 4;
    float dropletsPerCell = 0.5f;
};

struct BrushTap {
    int dx;
    int dy;
    float weight;
};

std::vector<BrushTap> makeBrush(int radius) {
    std::vector<BrushTap> taps;
    float total = 0.0f;
    for (int dy = -radius; dy <= radius; ++dy) {
        for (int dx = -radius; dx <= radius; ++dx) {
            const float distance = std::sqrt(static_cast<float>(dx * dx + dy * dy));
            if (distance < radius) {
                taps.push_back({dx, dy, radius - distance});
                total += radius - distance;
            }
        }
    }
    for (BrushTap& tap : taps) {
        tap.weight /= total;
    }
    return taps;
}

struct Surface {
    float height;
    float gradX;
    float gradY;
};

// Bilinear height and gradient at a position with 0 <= x, y < size - 1.
Surface sampleSurface(const HeightField& field, float x, float y) {
    const int cx = static_cast<int>(x);
    const int cy = static_cast<int>(y);
    const float fx = x - cx;
    const float fy = y - cy;
    const float h00 = field.at(cx, cy);
    const float h10 = field.at(cx + 1, cy);
    const float h01 = field.at(cx, cy + 1);
    const float h11 = field.at(cx + 1, cy + 1);
    Surface surface;
    surface.gradX = (h10 - h00) * (1 - fy) + (h11 - h01) * fy;
    surface.gradY = (h01 - h00) * (1 - fx) + (h11 - h10) * fx;
    surface.height =
        h00 * (1 - fx) * (1 - fy) + h10 * fx * (1 - fy) + h01 * (1 - fx) * fy + h11 * fx * fy;
    return surface;
}

void depositBilinear(HeightField& field, float x, float y, float amount) {
    const int cx = static_cast<int>(x);
    const int cy = static_cast<int>(y);
    const float fx = x - cx;
    const float fy = y - cy;
    field.at(cx, cy) += amount * (1 - fx) * (1 - fy);
    field.at(cx + 1, cy) += amount * fx * (1 - fy);
    field.at(cx, cy + 1) += amount * (1 - fx) * fy;
    field.at(cx + 1, cy + 1) += amount * fx * fy;
}

// Removes up to `amount` around (x, y) with the brush; returns what was actually removed.
float erodeBrush(HeightField& field, const std::vector<BrushTap>& brush, float x, float y,
                 float amount, float floorHeight) {
    const int cx = static_cast<int>(x + 0.5f);
    const int cy = static_cast<int>(y + 0.5f);
    float removed = 0.0f;
    for (const BrushTap& tap : brush) {
        const int px = cx + tap.dx;
        const int py = cy + tap.dy;
        if (px < 0 || py < 0 || px >= field.size || py >= field.size) {
            continue;
        }
        float& cell = field.at(px, py);
        const float take = std::min(amount * tap.weight, std::max(0.0f, cell - floorHeight));
        cell -= take;
        removed += take;
    }
    return removed;
}

struct Droplet {
    float x;
    float y;
    float dirX = 0.0f;
    float dirY = 0.0f;
    float speed = 1.0f;
    float water = 1.0f;
    float sediment = 0.0f;
};

// Turns the droplet downhill and moves it one cell; false when it stops or leaves the map.
bool moveDroplet(Droplet& drop, const Surface& surface, const ErosionParams& params, float limit) {
    drop.dirX = drop.dirX * params.inertia - surface.gradX * (1 - params.inertia);
    drop.dirY = drop.dirY * params.inertia - surface.gradY * (1 - params.inertia);
    const float length = std::sqrt(drop.dirX * drop.dirX + drop.dirY * drop.dirY);
    if (length < 1e-6f) {
        return false;
    }
    drop.dirX /= length;
    drop.dirY /= length;
    drop.x += drop.dirX;
    drop.y += drop.dirY;
    return drop.x >= 0 && drop.y >= 0 && drop.x < limit && drop.y < limit;
}

// Erodes or deposits at the droplet's previous position after a step of height change dh.
void exchangeSediment(HeightField& field, const std::vector<BrushTap>& brush, Droplet& drop,
                      float oldX, float oldY, float dh, const ErosionParams& params,
                      float seaFloor) {
    const float slope = std::max(-dh, params.minSlope);
    const float capacity =
        std::max(slope * drop.speed * drop.water * params.capacityFactor, params.minCapacity);
    if (dh > 0 || drop.sediment > capacity) {
        const float deposit =
            dh > 0 ? std::min(dh, drop.sediment) : (drop.sediment - capacity) * params.depositRate;
        drop.sediment -= deposit;
        depositBilinear(field, oldX, oldY, deposit);
    } else {
        const float want = std::min((capacity - drop.sediment) * params.erodeRate, -dh);
        drop.sediment += erodeBrush(field, brush, oldX, oldY, want, seaFloor);
    }
}

void runDroplet(HeightField& field, const std::vector<BrushTap>& brush, Droplet drop,
                const ErosionParams& params, float seaFloor) {
    const float limit = static_cast<float>(field.size - 1);
    for (int step = 0; step < params.maxSteps; ++step) {
        const float oldX = drop.x;
        const float oldY = drop.y;
        const Surface surface = sampleSurface(field, oldX, oldY);
        if (!moveDroplet(drop, surface, params, limit)) {
            return;
        }
        const float dh = sampleSurface(field, drop.x, drop.y).height - surface.height;
        exchangeSediment(field, brush, drop, oldX, oldY, dh, params, seaFloor);
        drop.speed = std::sqrt(std::max(0.0f, drop.speed * drop.speed - dh * params.gravity));
        drop.water *= 1 - params.evaporateRate;
    }
}

void erodeHydraulic(HeightField& field, Random& random, const ErosionParams& params,
                    float seaFloor) {
    if (field.size < 4) {
        return;
    }
    const std::vector<BrushTap> brush = makeBrush(params.brushRadius);
    const double cells = static_cast<double>(field.size) * field.size;
    const long long droplets = static_cast<long long>(cells * params.dropletsPerCell);
    const double span = field.size - 1;
    for (long long i = 0; i < droplets; ++i) {
        Droplet drop{static_cast<float>(random.unit() * span),
                     static_cast<float>(random.unit() * span)};
        drop.x = std::min(drop.x, static_cast<float>(span) - 1e-3f);
        drop.y = std::min(drop.y, static_cast<float>(span) - 1e-3f);
        runDroplet(field, brush, drop, params, seaFloor);
    }
}

// ---------------------------------------------------------------- thermal erosion

// Moves material from cells steeper than the talus slope to their lowest neighbour; it
// softens the sharp pits and spikes that droplets leave behind.
void erodeThermal(HeightField& field, int iterations, float talus) {
    static constexpr int kOffsets[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    const int n = field.size;
    for (int it = 0; it < iterations; ++it) {
        for (int y = 1; y + 1 < n; ++y) {
            for (int x = 1; x + 1 < n; ++x) {
                float& here = field.at(x, y);
                float* lowest = nullptr;
                float drop = talus;
                for (const auto& offset : kOffsets) {
                    float& there = field.at(x + offset[0], y + offset[1]);
                    if (here - there > drop) {
                        drop = here - there;
                        lowest = &there;
                    }
                }
                if (lowest != nullptr) {
                    const float moved = 0.5f * (drop - talus);
                    here -= moved;
                    *lowest += moved;
                }
            }
        }
    }
}

// ---------------------------------------------------------------- shaping and output

void scaleHeights(HeightField& field, float factor) {
    for (float& h : field.cells) {
        h *= factor;
    }
}

// Value below which `fraction` of the cells lie.
float percentile(const HeightField& field, double fraction) {
    std::vector<float> sorted = field.cells;
    const size_t index = static_cast<size_t>(fraction * (sorted.size() - 1));
    std::nth_element(sorted.begin(), sorted.begin() + index, sorted.end());
    return sorted[index];
}

// Lowers everything below `level` onto a flat plateau (lakes and lowland plains).
void flattenBelow(HeightField& field, float level) {
    for (float& h : field.cells) {
        h = std::max(h, level);
    }
}

// A height in [lo, lo + range] as a 16-bit code in 0..62000 (about 5 % headroom below 65535).
uint16_t quantiseHeight(float height, float lo, double range) {
    constexpr double kTop = 62000.0;
    const double t = (height - lo) / range;
    return static_cast<uint16_t>(std::lround(t * kTop));
}

std::vector<uint16_t> quantise(const HeightField& field) {
    const auto [lo, hi] = std::minmax_element(field.cells.begin(), field.cells.end());
    const double range = std::max(1e-6, static_cast<double>(*hi - *lo));
    std::vector<uint16_t> samples(field.cells.size());
    for (size_t i = 0; i < samples.size(); ++i) {
        samples[i] = quantiseHeight(field.cells[i], *lo, range);
    }
    return samples;
}

// ---------------------------------------------------------------- 16-bit PNG encoding

using Bytes = std::vector<uint8_t>;

void putBigEndian32(Bytes& out, uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) {
        out.push_back(static_cast<uint8_t>(value >> shift));
    }
}

void appendChunk(Bytes& png, const char* type, const Bytes& data) {
    putBigEndian32(png, static_cast<uint32_t>(data.size()));
    const size_t typeStart = png.size();
    png.insert(png.end(), type, type + 4);
    png.insert(png.end(), data.begin(), data.end());
    const uLong crc = crc32(0L, png.data() + typeStart, static_cast<uInt>(png.size() - typeStart));
    putBigEndian32(png, static_cast<uint32_t>(crc));
}

int paeth(int a, int b, int c) {
    const int p = a + b - c;
    const int pa = std::abs(p - a);
    const int pb = std::abs(p - b);
    const int pc = std::abs(p - c);
    if (pa <= pb && pa <= pc) {
        return a;
    }
    return pb <= pc ? b : c;
}

// Applies PNG filter `type` (0..4) to one row; bpp is bytes per pixel.
Bytes filterRow(const Bytes& row, const Bytes& prior, int type, int bpp) {
    Bytes out(row.size());
    for (size_t i = 0; i < row.size(); ++i) {
        const int a = i >= static_cast<size_t>(bpp) ? row[i - bpp] : 0;
        const int b = prior[i];
        const int c = i >= static_cast<size_t>(bpp) ? prior[i - bpp] : 0;
        const int predictor[5] = {0, a, b, (a + b) / 2, paeth(a, b, c)};
        out[i] = static_cast<uint8_t>(row[i] - predictor[type]);
    }
    return out;
}

long filterCost(const Bytes& filtered) {
    long cost = 0;
    for (uint8_t byte : filtered) {
        cost += byte < 128 ? byte : 256 - byte;
    }
    return cost;
}

// Appends the filter type byte and `row` filtered with the filter (0..4) that minimises the sum
// of absolute differences against the row above, `prior`.
void appendBestFilteredRow(const Bytes& row, const Bytes& prior, Bytes& out) {
    const int bpp = 2;
    Bytes best;
    int bestType = 0;
    for (int type = 0; type < 5; ++type) {
        Bytes candidate = filterRow(row, prior, type, bpp);
        if (best.empty() || filterCost(candidate) < filterCost(best)) {
            best = std::move(candidate);
            bestType = type;
        }
    }
    out.push_back(static_cast<uint8_t>(bestType));
    out.insert(out.end(), best.begin(), best.end());
}

// Big-endian bytes of one row of samples.
void packRow(const uint16_t* samples, int size, Bytes& row) {
    row.resize(static_cast<size_t>(size) * 2);
    for (int x = 0; x < size; ++x) {
        row[2 * x] = static_cast<uint8_t>(samples[x] >> 8);
        row[2 * x + 1] = static_cast<uint8_t>(samples[x] & 0xFF);
    }
}

Bytes filterImage(const std::vector<uint16_t>& samples, int size) {
    const size_t rowBytes = static_cast<size_t>(size) * 2;
    Bytes filtered;
    filtered.reserve((rowBytes + 1) * size);
    Bytes prior(rowBytes, 0);
    Bytes row(rowBytes);
    for (int y = 0; y < size; ++y) {
        packRow(&samples[static_cast<size_t>(y) * size], size, row);
        appendBestFilteredRow(row, prior, filtered);
        prior = row;
    }
    return filtered;
}

Bytes deflate(const Bytes& raw) {
    uLongf length = compressBound(static_cast<uLong>(raw.size()));
    Bytes out(length);
    if (compress2(out.data(), &length, raw.data(), static_cast<uLong>(raw.size()), 9) != Z_OK) {
        throw ToolError("zlib compression failed");
    }
    out.resize(length);
    return out;
}

// The PNG signature and the IHDR chunk of a size x size 16-bit grayscale image.
Bytes pngStart(int size) {
    static constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    Bytes png(kSignature, kSignature + 8);
    Bytes header;
    putBigEndian32(header, static_cast<uint32_t>(size));
    putBigEndian32(header, static_cast<uint32_t>(size));
    header.insert(header.end(), {16, 0, 0, 0, 0});  // depth, gray, deflate, filter, no interlace
    appendChunk(png, "IHDR", header);
    return png;
}

Bytes encodeGray16Png(const std::vector<uint16_t>& samples, int size) {
    Bytes png = pngStart(size);
    appendChunk(png, "IDAT", deflate(filterImage(samples, size)));
    appendChunk(png, "IEND", {});
    return png;
}

void writeFile(const std::string& path, const Bytes& data) {
    FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) {
        throw ToolError("cannot open '" + path + "' for writing");
    }
    const bool written = std::fwrite(data.data(), 1, data.size(), file) == data.size();
    const bool closed = std::fclose(file) == 0;
    if (!written || !closed) {
        throw ToolError("failed writing '" + path + "'");
    }
}

// A 16-bit grayscale PNG written row by row: each row filtered, deflated as it comes and the
// compressed bytes written out in IDAT chunks of at most kChunkBytes, so memory holds two rows
// and one chunk. A stream that is not finished removes its partial file.
class Gray16PngStream {
public:
    static constexpr size_t kChunkBytes = size_t(1) << 20;

    Gray16PngStream(const std::string& path, int size, int level) : path_(path), size_(size) {
        file_ = std::fopen(path.c_str(), "wb");
        if (file_ == nullptr) {
            throw ToolError("cannot open '" + path + "' for writing");
        }
        if (deflateInit(&zlib_, level) != Z_OK) {
            std::fclose(file_);
            std::remove(path.c_str());
            throw ToolError("zlib initialisation failed");
        }
        put(pngStart(size));
        prior_.assign(static_cast<size_t>(size) * 2, 0);
        chunk_.resize(kChunkBytes);
    }

    Gray16PngStream(const Gray16PngStream&) = delete;
    Gray16PngStream& operator=(const Gray16PngStream&) = delete;

    ~Gray16PngStream() {
        deflateEnd(&zlib_);
        if (file_ != nullptr) {
            std::fclose(file_);
            std::remove(path_.c_str());
        }
    }

    void addRow(const uint16_t* samples) {
        packRow(samples, size_, row_);
        filtered_.clear();
        appendBestFilteredRow(row_, prior_, filtered_);
        std::swap(prior_, row_);
        compress(filtered_.data(), filtered_.size(), Z_NO_FLUSH);
    }

    void finish() {
        compress(nullptr, 0, Z_FINISH);
        writeIdat();
        Bytes end;
        appendChunk(end, "IEND", {});
        put(end);
        FILE* file = file_;
        file_ = nullptr;
        if (std::fclose(file) != 0) {
            std::remove(path_.c_str());
            throw ToolError("failed writing '" + path_ + "'");
        }
    }

private:
    void compress(const uint8_t* data, size_t count, int flush) {
        zlib_.next_in = const_cast<Bytef*>(data);
        zlib_.avail_in = static_cast<uInt>(count);
        for (;;) {
            zlib_.next_out = chunk_.data() + used_;
            zlib_.avail_out = static_cast<uInt>(kChunkBytes - used_);
            const int status = deflate(&zlib_, flush);
            if (status == Z_STREAM_ERROR) {
                throw ToolError("zlib compression failed");
            }
            used_ = kChunkBytes - zlib_.avail_out;
            if (used_ == kChunkBytes) {
                writeIdat();
                continue;
            }
            if (flush == Z_FINISH ? status == Z_STREAM_END : zlib_.avail_in == 0) {
                return;
            }
        }
    }

    void writeIdat() {
        if (used_ == 0) {
            return;
        }
        Bytes chunk;
        chunk.reserve(used_ + 12);
        putBigEndian32(chunk, static_cast<uint32_t>(used_));
        chunk.insert(chunk.end(), {'I', 'D', 'A', 'T'});
        chunk.insert(chunk.end(), chunk_.begin(), chunk_.begin() + static_cast<long>(used_));
        const uLong crc = crc32(0L, chunk.data() + 4, static_cast<uInt>(used_ + 4));
        putBigEndian32(chunk, static_cast<uint32_t>(crc));
        put(chunk);
        used_ = 0;
    }

    void put(const Bytes& bytes) {
        if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
            throw ToolError("failed writing '" + path_ + "'");
        }
    }

    std::string path_;
    int size_;
    FILE* file_ = nullptr;
    z_stream zlib_{};
    Bytes row_;
    Bytes prior_;
    Bytes filtered_;
    Bytes chunk_;
    size_t used_ = 0;
};

// ---------------------------------------------------------------- pipeline

constexpr int kSimulationMaxSize = 513;        // landscape evolution runs at most at this size
constexpr float kInitialRelief = 0.02f;        // noise relief before uplift, in map widths
constexpr float kDropletHeightScale = 0.025f;  // heights (output cells) -> droplet units
constexpr double kLowlandShare = 0.06;         // share of the map that is flat lake or sea

// Fractal noise evolved by uplift, river incision and creep on a grid of at most
// kSimulationMaxSize cells; heights are in that grid's cell units.
HeightField simulateLandscape(int simSize, Random& random, float& seaLevel) {
    HeightField field = makeFractalTerrain(simSize, random);
    scaleHeights(field, kInitialRelief * static_cast<float>(simSize));
    seaLevel = percentile(field, kLowlandShare);
    erodeFluvial(field, seaLevel, StreamPowerParams{});
    return field;
}

HeightField generateTerrain(int size, uint64_t seed) {
    Random random(seed);
    const int simSize = std::min(size, kSimulationMaxSize);
    float seaLevel = 0.0f;
    HeightField field = simulateLandscape(simSize, random, seaLevel);
    if (simSize < size) {
        field = resample(field, size);
    }
    const float toDropletUnits =
        kDropletHeightScale * static_cast<float>(size - 1) / static_cast<float>(simSize - 1);
    scaleHeights(field, toDropletUnits);
    erodeHydraulic(field, random, ErosionParams{}, seaLevel * toDropletUnits);
    erodeThermal(field, 2, 0.05f);
    flattenBelow(field, percentile(field, kLowlandShare));
    return field;
}

// ---------------------------------------------------------------- refinement above the base

// Gradient noise whose corner gradients hash the integer lattice point with a seed: it has no
// period, so the finest octaves of a 32769-cell map repeat nowhere. Output roughly in [-1, 1].
class LatticeNoise {
public:
    explicit LatticeNoise(uint64_t seed) : seed_(seed) {}

    double sample(double x, double y) const {
        const double fx = std::floor(x);
        const double fy = std::floor(y);
        const auto ix = static_cast<int64_t>(fx);
        const auto iy = static_cast<int64_t>(fy);
        const double dx = x - fx;
        const double dy = y - fy;
        const double n00 = corner(ix, iy, dx, dy);
        const double n10 = corner(ix + 1, iy, dx - 1.0, dy);
        const double n01 = corner(ix, iy + 1, dx, dy - 1.0);
        const double n11 = corner(ix + 1, iy + 1, dx - 1.0, dy - 1.0);
        const double u = fade(dx);
        return lerp(lerp(n00, n10, u), lerp(n01, n11, u), fade(dy));
    }

private:
    double corner(int64_t ix, int64_t iy, double dx, double dy) const {
        static constexpr double kDiag = 0.70710678118654752;
        static constexpr double kGrad[8][2] = {{1, 0},          {-1, 0},         {0, 1},
                                               {0, -1},         {kDiag, kDiag},  {-kDiag, kDiag},
                                               {kDiag, -kDiag}, {-kDiag, -kDiag}};
        Random hash(seed_ ^ (static_cast<uint64_t>(ix) * 0x9E3779B97F4A7C15ULL) ^
                    (static_cast<uint64_t>(iy) * 0xC2B2AE3D27D4EB4FULL));
        const auto k = static_cast<int>(hash.next() >> 61);
        return (kGrad[k][0] * dx + kGrad[k][1] * dy) * 1.41421356;
    }

    uint64_t seed_;
};

// Heights of the full-size map, one row at a time in increasing order: the base's bicubic
// (Catmull-Rom) resize exactly as resample() computes it, plus fractal detail at wavelengths from
// two base cells down to two output cells. The detail fades out towards the lake level, which
// stays flat. Holds the base and four resized base rows.
class RefinedRows {
public:
    RefinedRows(const HeightField& base, int size, uint64_t seed, float lakeLevel)
        : base_(base),
          size_(size),
          scale_(static_cast<float>(base.size - 1) / static_cast<float>(size - 1)),
          noise_(seed),
          lakeLevel_(lakeLevel) {
        // Wavelengths in output cells: 2 / scale, then divided by the lacunarity per octave.
        double wavelength = 2.0 / scale_;
        double amplitude = kFirstAmplitude;
        while (wavelength >= 2.0) {
            detailBound_ += amplitude;
            amplitude *= kGain;
            wavelength /= kLacunarity;
            ++octaves_;
        }
        const float top = *std::max_element(base.cells.begin(), base.cells.end());
        highest_ = top + static_cast<float>(detailBound_) + kOvershoot * (top - lakeLevel);
        for (Slot& slot : slots_) {
            slot.cells.assign(static_cast<size_t>(size), 0.0f);
        }
    }

    float lowest() const { return lakeLevel_; }
    float highest() const { return highest_; }

    void row(int y, float* out) {
        const int m = base_.size;
        const float pos = static_cast<float>(y) * scale_;
        const int i = std::min(static_cast<int>(pos), m - 2);
        const float t = pos - static_cast<float>(i);
        const float* rows[4];
        for (int k = 0; k < 4; ++k) {
            rows[k] = resized(std::clamp(i - 1 + k, 0, m - 1));
        }
        const double fadeSpan = 4.0 * kFirstAmplitude;
        for (int x = 0; x < size_; ++x) {
            const float smooth = catmullRom(rows[0][x], rows[1][x], rows[2][x], rows[3][x], t);
            const double weight = smoothStep(lakeLevel_, lakeLevel_ + fadeSpan, smooth);
            const double h = smooth + (weight > 0.0 ? weight * detail(x, y) : 0.0);
            out[x] = std::clamp(static_cast<float>(h), lakeLevel_, highest_);
        }
    }

private:
    // Detail relief: the first octave (wavelength two base cells) is 0.3 base cells high in
    // droplet units; each finer octave is kGain as high, close to natural terrain's roughness.
    static constexpr double kFirstAmplitude = 0.3 * kDropletHeightScale;
    static constexpr double kGain = 0.55;
    static constexpr double kLacunarity = 2.03;
    // Catmull-Rom overshoot allowance above the base's top, as a share of its relief.
    static constexpr float kOvershoot = 0.02f;

    struct Slot {
        int baseRow = -1;
        std::vector<float> cells;
    };

    double detail(int x, int y) const {
        // Noise coordinates in base cells, halved: the first octave's wavelength is two cells.
        double u = static_cast<double>(x) * scale_ * 0.5;
        double v = static_cast<double>(y) * scale_ * 0.5;
        double sum = 0.0;
        double amplitude = kFirstAmplitude;
        for (int k = 0; k < octaves_; ++k) {
            sum += amplitude * noise_.sample(u, v);
            amplitude *= kGain;
            nextOctave(u, v, kLacunarity);
        }
        return sum;
    }

    // Base row `baseRow` resized to the output width, computed once while it is in use.
    const float* resized(int baseRow) {
        Slot& slot = slots_[static_cast<size_t>(baseRow) & 3];
        if (slot.baseRow != baseRow) {
            const int m = base_.size;
            const float* line = &base_.cells[static_cast<size_t>(baseRow) * m];
            for (int x = 0; x < size_; ++x) {
                slot.cells[x] = sampleLine(line, m, 1, static_cast<float>(x) * scale_);
            }
            slot.baseRow = baseRow;
        }
        return slot.cells.data();
    }

    const HeightField& base_;
    int size_;
    float scale_;
    LatticeNoise noise_;
    float lakeLevel_;
    int octaves_ = 0;
    double detailBound_ = 0.0;
    float highest_ = 0.0f;
    std::array<Slot, 4> slots_;
};

// A map larger than its base: the base eroded in one piece, then refined and written band by
// band. zlib level 6: on gigabytes of rows level 9 costs twice the time for about 1 % smaller.
void writeRefined(const Options& options) {
    constexpr int kBandRows = 64;
    constexpr int kStreamLevel = 6;
    Gray16PngStream png(options.outPath, options.size, kStreamLevel);
    const HeightField base = generateTerrain(options.base, options.seed);
    const float lakeLevel = *std::min_element(base.cells.begin(), base.cells.end());
    // The detail's own seed, apart from the stream that made the base.
    RefinedRows rows(base, options.size, Random(options.seed ^ 0x5DEECE66DULL).next(), lakeLevel);
    const double range = std::max(1e-6, static_cast<double>(rows.highest() - rows.lowest()));
    const size_t width = static_cast<size_t>(options.size);
    std::vector<float> heights(width * kBandRows);
    std::vector<uint16_t> codes(width * kBandRows);
    for (int y0 = 0; y0 < options.size; y0 += kBandRows) {
        const int count = std::min(kBandRows, options.size - y0);
        for (int r = 0; r < count; ++r) {
            rows.row(y0 + r, &heights[static_cast<size_t>(r) * width]);
        }
        for (size_t i = 0; i < static_cast<size_t>(count) * width; ++i) {
            codes[i] = quantiseHeight(heights[i], rows.lowest(), range);
        }
        for (int r = 0; r < count; ++r) {
            png.addRow(&codes[static_cast<size_t>(r) * width]);
        }
    }
    png.finish();
}

void run(const Options& options) {
    if (options.base < options.size) {
        writeRefined(options);
        return;
    }
    const HeightField field = generateTerrain(options.size, options.seed);
    writeFile(options.outPath, encodeGray16Png(quantise(field), options.size));
}

}  // namespace

int main(int argc, char** argv) {
    try {
        run(parseArgs(argc, argv));
    } catch (const std::exception& error) {
        std::fprintf(stderr, "terrain_gen: %s\n", error.what());
        return kExitError;
    }
    return 0;
}
