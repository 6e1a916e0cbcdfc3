// The first object along a ray, by the shapes drawn: each shape is one or two convex solids,
// each the part of a slab (heights) where a quadratic in the ray's distance is not negative.
#include "core/objects/pick.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/objects/mesh.h"

namespace qt {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// The distances [t0, t1] at which o + t d lies in the slab low <= y <= high, clipped to
// [0, maxDistance]; false when empty.
bool slab(float oy, float dy, float low, float high, float maxDistance, double& t0, double& t1) {
    t0 = 0.0;
    t1 = maxDistance;
    if (dy == 0.0f) {
        return low <= oy && oy <= high;
    }
    double a = (double(low) - oy) / dy, b = (double(high) - oy) / dy;
    if (a > b) {
        std::swap(a, b);
    }
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
    return t0 <= t1;
}

// The least t in [t0, t1] where a t^2 + b t + c >= 0, given that the set of such t within
// [t0, t1] is one interval (the solid is convex); none when there is no such t.
std::optional<double> firstInside(double a, double b, double c, double t0, double t1) {
    const auto g = [&](double t) { return (a * t + b) * t + c; };
    if (g(t0) >= 0.0) {
        return t0;
    }
    double entry;
    if (a == 0.0) {
        if (!(b > 0.0)) {
            return std::nullopt;  // never rises to 0 after t0
        }
        entry = -c / b;
    } else {
        const double disc = b * b - 4.0 * a * c;
        if (disc < 0.0) {
            return std::nullopt;
        }
        // The roots without cancellation; with g(t0) < 0 the entry is the lower root when
        // a < 0 (g >= 0 between the roots), the upper when a > 0 (t0 lies between them).
        const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));
        double r1 = q / a, r2 = q != 0.0 ? c / q : r1;
        if (r1 > r2) {
            std::swap(r1, r2);
        }
        entry = a < 0.0 ? r1 : r2;
    }
    if (entry < t0 || entry > t1) {
        return std::nullopt;
    }
    return entry;
}

// A solid of revolution about the vertical through (cx, cz), between heights low and high,
// whose radius at height y is radiusAtLow + slope (y - low) (a cylinder for slope 0, a cone
// narrowing upwards for slope < 0): where the ray enters it.
std::optional<double> revolvedEntry(const PickRay& ray, float maxDistance, float cx, float cz,
                                    float low, float high, float radiusAtLow, float slope) {
    double t0, t1;
    if (!slab(ray.origin.y, ray.direction.y, low, high, maxDistance, t0, t1)) {
        return std::nullopt;
    }
    // radius(t) = k0 + k1 t; horizontal offset (ox + dx t, oz + dz t); inside when
    // radius(t)^2 - offset(t)^2 >= 0, radius >= 0 all over the slab.
    const double k0 = double(radiusAtLow) + double(slope) * (double(ray.origin.y) - low);
    const double k1 = double(slope) * ray.direction.y;
    const double ox = double(ray.origin.x) - cx, oz = double(ray.origin.z) - cz;
    const double dx = ray.direction.x, dz = ray.direction.z;
    const double a = k1 * k1 - (dx * dx + dz * dz);
    const double b = 2.0 * (k0 * k1 - (ox * dx + oz * dz));
    const double c = k0 * k0 - (ox * ox + oz * oz);
    return firstInside(a, b, c, t0, t1);
}

// The solid of radius r about `centre` and half-height halfHeight (a sphere when they are equal).
std::optional<double> ellipsoidEntry(const PickRay& ray, float maxDistance, const glm::vec3& centre,
                                     float r, float halfHeight) {
    if (!(r > 0.0f) || !(halfHeight > 0.0f)) {
        return std::nullopt;
    }
    const double squeeze = double(r) / halfHeight;  // y scaled so that the solid is a sphere
    const double ox = double(ray.origin.x) - centre.x,
                 oy = (double(ray.origin.y) - centre.y) * squeeze,
                 oz = double(ray.origin.z) - centre.z;
    const double dx = ray.direction.x, dy = ray.direction.y * squeeze, dz = ray.direction.z;
    const double a = -(dx * dx + dy * dy + dz * dz);
    const double b = -2.0 * (ox * dx + oy * dy + oz * dz);
    const double c = double(r) * r - (ox * ox + oy * oy + oz * oz);
    return firstInside(a, b, c, 0.0, maxDistance);
}

}  // namespace

std::optional<float> objectShapeEntry(const ObjectScene& scene, uint32_t id, const PickRay& ray,
                                      float maxDistance) {
    const ObjectShape& o = scene.shape(id);
    std::optional<double> t;
    switch (o.kind) {
        case ObjectKind::Tree: {
            const float y0 = o.base.y, h = o.height, r = o.radius;
            const std::optional<double> trunk =
                revolvedEntry(ray, maxDistance, o.base.x, o.base.z, y0, y0 + kTrunkTop * h,
                              kTrunkRadius * r, 0.0f);
            const float coneLow = y0 + kConeBase * h, coneHeight = (1.0f - kConeBase) * h;
            const std::optional<double> cone =
                coneHeight > 0.0f ? revolvedEntry(ray, maxDistance, o.base.x, o.base.z, coneLow,
                                                  y0 + h, r, -r / coneHeight)
                                  : std::nullopt;
            t = trunk && cone ? std::min(*trunk, *cone) : trunk ? trunk : cone;
            break;
        }
        case ObjectKind::Rock:
        case ObjectKind::Ball:
            t = ellipsoidEntry(ray, maxDistance, o.base, o.radius, o.height);
            break;
    }
    if (!t) {
        return std::nullopt;
    }
    return float(*t);
}

std::optional<RayHit> pickObject(const ObjectScene& scene, const PickRay& ray, float maxDistance) {
    const Ray boxRay = Ray::make(ray.origin, ray.direction, maxDistance);
    return scene.index().queryRay(boxRay, [&](uint32_t id, float boxEntry) {
        const std::optional<float> t = objectShapeEntry(scene, id, ray, maxDistance);
        // The shape lies in the box; a rounding step nearer than the box's entry is the box's.
        return t ? std::optional<float>(std::max(*t, boxEntry)) : std::nullopt;
    });
}

std::optional<ObjectPickHit> pickObjectBefore(const ObjectScene& scene, const PickRay& ray,
                                              const PickHit& terrain) {
    const float reach = terrain.hit ? float(terrain.t) : kInfinity;
    const std::optional<RayHit> hit = pickObject(scene, ray, reach);
    if (!hit) {
        return std::nullopt;
    }
    return ObjectPickHit{hit->object, scene.kind(hit->object), hit->distance,
                         ray.origin + hit->distance * ray.direction};
}

std::optional<RayHit> pickObjectBruteForce(const ObjectScene& scene, const PickRay& ray,
                                           float maxDistance) {
    const Ray boxRay = Ray::make(ray.origin, ray.direction, maxDistance);
    if (!boxRay.valid) {
        return std::nullopt;
    }
    // Ids in increasing order: of objects entered at equal distances the lowest id stays.
    std::optional<RayHit> best;
    for (uint32_t id = 0; id < scene.count(); ++id) {
        const std::optional<float> box = rayEntry(boxRay, scene.box(id));
        if (!box) {
            continue;
        }
        if (const std::optional<float> t = objectShapeEntry(scene, id, ray, maxDistance)) {
            const float d = std::max(*t, *box);
            if (!best || d < best->distance) {
                best = RayHit{id, d};
            }
        }
    }
    return best;
}

}  // namespace qt
