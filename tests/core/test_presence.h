// Test helper: a map's samples arriving by square tiles, as a layout streamed by tiles gives them
// (core/streaming/layout_tiles.h), some present from the start: the SamplePresence its readers
// see, with the tiles it was asked to read counted.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/terrain/heightmap.h"
#include "core/terrain/sample_presence.h"

namespace qt::test {

class TilesArriving {
public:
    // Tiles of `side` samples over `map`; tile i present when presentAt(i) (row-major).
    template <typename Present>
    TilesArriving(const Heightmap& map, int side, Present presentAt)
        : state_(std::make_shared<State>()) {
        State& s = *state_;
        s.side = side;
        s.tilesX = (map.width + side - 1) / side;
        s.tilesY = (map.height + side - 1) / side;
        s.width = map.width;
        s.height = map.height;
        s.present.resize(size_t(s.tilesX) * size_t(s.tilesY));
        for (size_t i = 0; i < s.present.size(); ++i) {
            s.present[i] = presentAt(i) ? 1 : 0;
        }
    }

    // Reads of absent tiles fail with `line` from now on ("": they succeed).
    void failWith(std::string line) { state_->failure = std::move(line); }
    // Tiles made present by ensure.
    int read() const { return state_->read; }
    // Calls to ensure.
    int asked() const { return state_->asked; }
    bool allPresent() const {
        return std::all_of(state_->present.begin(), state_->present.end(),
                           [](uint8_t p) { return p != 0; });
    }
    bool present(int x0, int y0, int x1, int y1) const { return state_->all(x0, y0, x1, y1); }

    // Shares this object's tiles: what one reader makes present, every other sees.
    SamplePresence presence() const {
        SamplePresence p;
        const std::shared_ptr<State> s = state_;
        p.present = [s](int x0, int y0, int x1, int y1) { return s->all(x0, y0, x1, y1); };
        p.ensure = [s](int x0, int y0, int x1, int y1) -> Status {
            ++s->asked;
            bool absent = false;
            s->each(x0, y0, x1, y1, [&](uint8_t& t) { absent = absent || t == 0; });
            if (absent && !s->failure.empty()) {
                return Status::failure(s->failure);
            }
            s->each(x0, y0, x1, y1, [&](uint8_t& t) {
                s->read += t == 0 ? 1 : 0;
                t = 1;
            });
            return {};
        };
        return p;
    }

private:
    struct State {
        int side = 0, tilesX = 0, tilesY = 0, width = 0, height = 0;
        std::vector<uint8_t> present;
        std::string failure;
        int read = 0, asked = 0;
        template <typename F>
        void each(int x0, int y0, int x1, int y1, F f) {
            x0 = std::max(x0, 0);
            y0 = std::max(y0, 0);
            x1 = std::min(x1, width - 1);
            y1 = std::min(y1, height - 1);
            for (int ty = y0 / side; y0 <= y1 && ty <= y1 / side; ++ty) {
                for (int tx = x0 / side; x0 <= x1 && tx <= x1 / side; ++tx) {
                    f(present[size_t(ty) * size_t(tilesX) + size_t(tx)]);
                }
            }
        }
        bool all(int x0, int y0, int x1, int y1) {
            bool every = true;
            each(x0, y0, x1, y1, [&](uint8_t& t) { every = every && t != 0; });
            return every;
        }
    };
    std::shared_ptr<State> state_;
};

}  // namespace qt::test
