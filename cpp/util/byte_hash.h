// A fast 64-bit hash of a short byte string (token bytes, pieces).  Reads 8 bytes at a
// time and mixes with multiply-xorshift; not cryptographic, only for hash tables.
#pragma once

#include <cstdint>
#include <cstring>

namespace tf {

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
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix64(h ^ w) + 0x632BE59BD9B4E019ull;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = mix64(h ^ w ^ (static_cast<uint64_t>(n) << 56));
  }
  return h;
}

}  // namespace tf
