// A fast 64-bit hash of a short byte string (token bytes, pieces), and the word loads it
// shares with the token table.  Reads 8 bytes at a time and mixes with multiply-xorshift;
// not cryptographic, only for hash tables.  Never reads outside [p, p + n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tf {

// The first min(n, 8) bytes of p as a little-endian word, zero padded.
inline uint64_t load_head(const uint8_t* p, size_t n) {
  uint64_t w = 0;
  if (n >= 8) {
    std::memcpy(&w, p, 8);
    return w;
  }
  if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    // Bytes [0, 4) come from a and [n - 4, n) from b; where they overlap they agree.
    return a | (static_cast<uint64_t>(b) << (8 * (n - 4)));
  }
  if (n >= 1) w = p[0];
  if (n >= 2) w |= static_cast<uint64_t>(p[1]) << 8;
  if (n >= 3) w |= static_cast<uint64_t>(p[2]) << 16;
  return w;
}

inline uint64_t mix64(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  return x;
}

inline uint64_t hash_bytes(const uint8_t* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xff51afd7ed558ccdull);
  while (n > 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  return mix64(h ^ load_head(p, n));
}

}  // namespace tf
