// The breadth-first void fill, its state kept in the samples themselves (NaN payloads).
#include "core/io/voids.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <deque>

namespace qt {

bool fillVoids(float* samples, int width, int height, float voidValue) {
    return fillVoidsWithin(samples, width, height, voidValue, {}) == VoidFill::Done;
}

VoidFill fillVoidsWithin(float* samples, int width, int height, float voidValue,
                         const VoidFillLimits& limits) {
    assert(!std::isnan(voidValue));
    const size_t total = size_t(width) * size_t(height);
    // The samples carry the fill's state, so that it needs no array beside them: the voids become
    // one NaN (not queued yet), then another (queued); every other value is known or filled (a
    // filled value may be anything, voidValue included).
    constexpr uint32_t kWaiting = 0x7FC00001u;
    constexpr uint32_t kQueued = 0x7FC00002u;
    auto bitsOf = [samples](size_t i) {
        uint32_t b;
        std::memcpy(&b, samples + i, sizeof b);
        return b;
    };
    auto mark = [samples](size_t i, uint32_t b) { std::memcpy(samples + i, &b, sizeof b); };
    auto known = [samples](size_t i) { return samples[i] == samples[i]; };
    size_t untilTick = limits.tickEvery;
    auto ticked = [&] {
        if (limits.tickEvery != 0 && --untilTick == 0) {
            untilTick = limits.tickEvery;
            limits.tick();
        }
    };
    auto forNeighbours = [&](uint32_t i, auto&& visit) {
        const int col = int(i % uint32_t(width));
        const int row = int(i / uint32_t(width));
        for (int dr = -1; dr <= 1; ++dr) {
            for (int dc = -1; dc <= 1; ++dc) {
                const int c = col + dc;
                const int r = row + dr;
                if ((dr != 0 || dc != 0) && c >= 0 && r >= 0 && c < width && r < height) {
                    visit(uint32_t(r) * uint32_t(width) + uint32_t(c));
                }
            }
        }
    };
    bool anyKnown = false;
    bool anyVoid = false;
    for (size_t i = 0; i < total; ++i) {
        const bool isVoid = samples[i] == voidValue;
        if (isVoid) {
            mark(i, kWaiting);
        }
        anyKnown |= !isVoid;
        anyVoid |= isVoid;
        ticked();
    }
    if (!anyVoid) {
        return VoidFill::Done;
    }
    if (!anyKnown) {
        std::fill(samples, samples + total, voidValue);
        return VoidFill::AllVoid;
    }
    std::deque<uint32_t> frontier;
    // Seed with the void samples that touch a known one, in raster order.
    for (uint32_t i = 0; i < total; ++i) {
        if (bitsOf(i) == kWaiting) {
            bool touches = false;
            forNeighbours(i, [&](uint32_t n) { touches |= known(n); });
            if (touches) {
                if (frontier.size() == limits.maxQueued) {
                    return VoidFill::TooMany;
                }
                frontier.push_back(i);
                mark(i, kQueued);
            }
        }
        ticked();
    }
    while (!frontier.empty()) {
        const uint32_t i = frontier.front();
        frontier.pop_front();
        double sum = 0.0;
        int count = 0;
        bool full = false;
        forNeighbours(i, [&](uint32_t n) {
            if (known(n)) {
                sum += samples[n];
                ++count;
            } else if (bitsOf(n) == kWaiting && !full) {
                full = frontier.size() == limits.maxQueued;
                if (!full) {
                    frontier.push_back(n);
                    mark(n, kQueued);
                }
            }
        });
        if (full) {
            return VoidFill::TooMany;
        }
        samples[i] = float(std::round(sum / count));
        ticked();
    }
    return VoidFill::Done;
}

}  // namespace qt
