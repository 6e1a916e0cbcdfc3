// A 64-bit checksum for files the program writes and reads back (tree sidecars, a baked layout's
// tiles): FNV-1a over 8-byte words, then a final mix. Catches damage, not tampering.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/byte_fields.h"

namespace qt {

constexpr uint64_t kChecksumSeed = 0xcbf29ce484222325ull;

// FNV-1a's step over 8-byte words in the machine's order (then the bytes left), without the final
// mix: hashes of consecutive pieces chain through h.
inline uint64_t hashWords(uint64_t h, const unsigned char* bytes, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        h = (h ^ getField<uint64_t>(bytes + i)) * 0x100000001b3ull;
    }
    for (; i < count; ++i) {
        h = (h ^ bytes[i]) * 0x100000001b3ull;
    }
    return h;
}

// The final mix of a chain of hashWords.
inline uint64_t mixHash(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

}  // namespace qt
