// Horizon angles by an upper hull per line (sun_lines.h's lines, one band), their ray-march
// reference, and the sky fraction from several azimuths.
#include "core/light/sky_light.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/light/sun_lines.h"

namespace qt {

namespace {

struct Point {
    double u;  // distance along the line towards the azimuth, world units
    double h;  // terrain height
};

SunLines horizonLines(const Heightmap& map, const WorldMapping& mapping, double azimuth) {
    return sunLines(map, mapping, SunDirection{azimuth, 0.0}, 1);
}

// The greatest slope from q to the hull's points, all farther along than q; hull[0] is the
// farthest, hull.back() the nearest. On an upper convex hull seen from a point before it the
// slopes rise, then fall: bisection finds the turn.
double tangentSlope(const std::vector<Point>& hull, Point q) {
    const auto slope = [&](size_t k) { return (hull[k].h - q.h) / (hull[k].u - q.u); };
    size_t lo = 0, hi = hull.size() - 1;  // the nearest is hull.size() - 1
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        // Slopes rise from the nearest (the back) towards the turn.
        if (slope(mid) >= slope(mid + 1)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return slope(lo);
}

// Adds p, nearer than every hull point, keeping the hull upper convex.
void addToHull(std::vector<Point>& hull, Point p) {
    while (hull.size() >= 2) {
        const Point& b = hull[hull.size() - 1];
        const Point& a = hull[hull.size() - 2];
        // b on or below the chord from p to a: not on the upper hull.
        if ((b.h - p.h) * (a.u - p.u) <= (a.h - p.h) * (b.u - p.u)) {
            hull.pop_back();
        } else {
            break;
        }
    }
    hull.push_back(p);
}

// Each line's upper hull of the terrain passed so far, in `hulls` (a view: the sweep copies it to
// each thread), handing store(sample index, horizon angle) each sample a line passes. A line's
// hull goes when the line ends, so the hulls held are those of the lines begun and not ended.
template <class Store>
struct HorizonSweep {
    const Heightmap* map;
    const SunLines* l;
    const Store* store;
    std::vector<Point>* hulls;  // per line

    void step(int j, int i) {
        const SunLines& lines = *l;
        const int r = lines.sampleAt(j, i);
        const bool terrain = lines.isTerrain(j, i);
        if (r < 0 && !terrain)
            return;
        std::vector<Point>& hull = hulls[size_t(j - lines.firstLine)];
        const Point p{double(lines.towardsSun * i) * lines.step, lines.heightAt(*map, j, i)};
        if (r >= 0) {
            const double slope = hull.empty() ? 0.0 : std::max(0.0, tangentSlope(hull, p));
            (*store)(lines.sampleIndex(i, r), float(std::atan(slope)));
        }
        if (terrain)
            addToHull(hull, p);
    }
    void ended(int j) { std::vector<Point>().swap(hulls[size_t(j - l->firstLine)]); }
};

// The lines towards `azimuth`, shared among the pool's threads; each sample is passed by one line.
template <class Store>
void sweepLines(const Heightmap& map, const WorldMapping& mapping, double azimuth,
                const Store& store, WorkerPool* pool, int bandRows = 0, const RowsDone& done = {}) {
    if (map.width <= 0 || map.height <= 0)
        return;
    const SunLines l = horizonLines(map, mapping, azimuth);
    std::vector<std::vector<Point>> hulls(size_t(l.lastLine - l.firstLine + 1));
    HorizonSweep<Store> sweep{&map, &l, &store, hulls.data()};
    sweepInRowBands(l, bandRows, pool, sweep, done);
}

}  // namespace

void horizonAngles(const Heightmap& map, const WorldMapping& mapping, double azimuth, float* out,
                   WorkerPool* pool, int bandRows) {
    sweepLines(
        map, mapping, azimuth, [out](size_t k, float angle) { out[k] = angle; }, pool, bandRows);
}

void horizonAnglesReference(const Heightmap& map, const WorldMapping& mapping, double azimuth,
                            float* out) {
    const SunLines l = horizonLines(map, mapping, azimuth);
    for (int i = 0; i < l.majorCount; ++i) {
        for (int r = 0; r < l.minorCount; ++r) {
            const int j = l.lineOf(i, r);
            const Point q{double(l.towardsSun * i) * l.step, l.heightAt(map, j, i)};
            double slope = 0.0;
            for (int a = i + l.towardsSun; a >= 0 && a < l.majorCount; a += l.towardsSun) {
                if (!l.isTerrain(j, a))
                    continue;
                const Point p{double(l.towardsSun * a) * l.step, l.heightAt(map, j, a)};
                slope = std::max(slope, (p.h - q.h) / (p.u - q.u));
            }
            out[l.sampleIndex(i, r)] = float(std::atan(slope));
        }
    }
}

void skyFraction(const Heightmap& map, const WorldMapping& mapping, int azimuths, uint8_t* out,
                 WorkerPool* pool) {
    std::vector<float> open(size_t(map.sampleCount()));
    skyFraction(map, mapping, azimuths, out, pool, open.data(), 0, {});
}

void skyFraction(const Heightmap& map, const WorldMapping& mapping, int azimuths, uint8_t* out,
                 WorkerPool* pool, float* open, int bandRows, const SkyRowsDone& done) {
    const size_t width = size_t(std::max(map.width, 0));
    const auto rowsOf = [&](int first, int end) {
        return std::make_pair(size_t(first) * width, size_t(end - first) * width);
    };
    // Each azimuth's angles go straight into the sum (1 - sin of the angle horizonAngles gives),
    // the first's setting it (each sample is passed by one line of each azimuth), and the last
    // azimuth's bands turn their rows into bytes.
    for (int d = 0; d < azimuths; ++d) {
        const bool first = d == 0, last = d == azimuths - 1;
        const auto add = [open, first](size_t k, float angle) {
            open[k] = (first ? 0.0f : open[k]) + 1.0f - std::sin(angle);
        };
        const RowsDone band = [&](int firstRow, int endRow) {
            if (last) {
                const auto [from, count] = rowsOf(firstRow, endRow);
                for (size_t k = from; k < from + count; ++k)
                    out[k] = skyByte(open[k], azimuths);
            }
            if (done)
                done(firstRow, endRow, last);
        };
        sweepLines(map, mapping, 360.0 * d / azimuths, add, pool, bandRows, band);
    }
}

}  // namespace qt
