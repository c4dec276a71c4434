// AsciiStops: finds the first byte at or after p that is not ASCII or is in a set of ASCII
// "stop" bytes, 16 bytes per step.  The scans of SpmNormalizer and Unigram go character
// by character with a table lookup and a branch each; on Latin text nearly every character
// is ASCII and passes, so skipping to the next interesting byte in blocks is cheaper.
//
// Membership of 16 bytes at once by two 16-entry shuffles (the set as a low-nibble table
// of high-nibble bits), with SSSE3; without it (or for the last < 16 bytes) byte by byte
// from the same set.  Never reads outside [p, end).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSSE3__)
#include <tmmintrin.h>
#endif

namespace tf {

class AsciiStops {
 public:
  // The set: bit c & 63 of bits[c >> 6] for each ASCII byte c that stops the skip.
  void assign(const uint64_t bits[2]) {
    bits_[0] = bits[0];
    bits_[1] = bits[1];
    for (int i = 0; i < 16; ++i) lo_[i] = 0;
    for (unsigned c = 0; c < 128; ++c) {
      if (contains(static_cast<uint8_t>(c))) lo_[c & 15] = static_cast<uint8_t>(lo_[c & 15] | (1u << (c >> 4)));
    }
  }
  bool contains(uint8_t c) const { return c >= 0x80 || ((bits_[c >> 6] >> (c & 63)) & 1); }

  // The first position in [p, end) holding a byte >= 0x80 or in the set, else end.
  // `begin` <= p is where the readable bytes start: the last < 16 bytes are then read as
  // the block ending at `end` when it fits after begin (short lines end that way).
  const uint8_t* skip(const uint8_t* p, const uint8_t* end, const uint8_t* begin) const {
#if defined(__SSSE3__)
    while (end - p >= 16) {
      const unsigned stop = stops(p);
      if (stop != 0) return p + __builtin_ctz(stop);
      p += 16;
    }
    if (p < end && end - begin >= 16) {
      const unsigned stop = stops(end - 16) >> (16 - (end - p));
      return stop != 0 ? p + __builtin_ctz(stop) : end;
    }
#endif
    (void)begin;
    while (p < end && !contains(*p)) ++p;
    return p;
  }

 private:
#if defined(__SSSE3__)
  // Bit i set when byte p[i] stops the skip.
  unsigned stops(const uint8_t* p) const {
    const __m128i lo_table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(lo_));
    const __m128i hi_table = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, static_cast<char>(128), 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i lo = _mm_shuffle_epi8(lo_table, _mm_and_si128(x, nibble));
    const __m128i hi = _mm_shuffle_epi8(hi_table, _mm_and_si128(_mm_srli_epi16(x, 4), nibble));
    const __m128i miss = _mm_cmpeq_epi8(_mm_and_si128(lo, hi), _mm_setzero_si128());
    return (~static_cast<unsigned>(_mm_movemask_epi8(miss)) | static_cast<unsigned>(_mm_movemask_epi8(x))) & 0xFFFFu;
  }
#endif
  uint64_t bits_[2] = {};
  uint8_t lo_[16] = {};  // for each low nibble, the high nibbles (0-7) of the set's bytes
};

}  // namespace tf
