// to_utf8 (bindings/common.h): the UTF-8 of a str's 1-, 2- or 4-byte code units, made by
// a batch's worker threads without the GIL.
//
// Most text is mostly ASCII, so runs of ASCII are narrowed 16 bytes of input at a time
// (SSE2; 8 bytes with plain 64-bit words elsewhere) and only other characters take the
// per-character path.  A 2-byte str is the common case for English documents: one curly
// quote makes the whole str 2-byte.  O(n); the output is at most 4 bytes per code unit.
#include <cstring>

#include "bindings/common.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tf::py {

namespace {

// Copies the ASCII run at s[i, n) to w while whole blocks are ASCII; returns the new i
// (and advances w).  The remaining code units of a block with a non-ASCII one are left to
// the caller.
template <typename Char>
inline size_t copy_ascii(const Char* s, size_t i, size_t n, char*& w) {
#if defined(__SSE2__)
  constexpr size_t kUnits = 16 / sizeof(Char);  // code units per 16-byte load
  while (i + kUnits <= n) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    if constexpr (sizeof(Char) == 1) {
      if (_mm_movemask_epi8(v) != 0) break;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(w), v);
    } else if constexpr (sizeof(Char) == 2) {
      // Units below 0x80 have no bit above the 7th: then packus is an exact narrowing.
      if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16(static_cast<short>(0xFF80))),
                                            _mm_setzero_si128())) != 0xFFFF)
        break;
      _mm_storel_epi64(reinterpret_cast<__m128i*>(w), _mm_packus_epi16(v, v));
    } else {
      if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(v, _mm_set1_epi32(static_cast<int>(0xFFFFFF80u))),
                                            _mm_setzero_si128())) != 0xFFFF)
        break;
      __m128i narrow = _mm_packus_epi16(_mm_packs_epi32(v, v), v);
      int four = _mm_cvtsi128_si32(narrow);
      std::memcpy(w, &four, 4);
    }
    w += kUnits;
    i += kUnits;
  }
#else
  constexpr size_t kUnits = 8 / sizeof(Char);  // code units per 64-bit load
  constexpr uint64_t kHigh = sizeof(Char) == 1   ? 0x8080808080808080ull
                             : sizeof(Char) == 2 ? 0xFF80FF80FF80FF80ull
                                                 : 0xFFFFFF80FFFFFF80ull;
  while (i + kUnits <= n) {
    uint64_t word;
    std::memcpy(&word, s + i, 8);
    if ((word & kHigh) != 0) break;
    for (size_t k = 0; k < kUnits; ++k) w[k] = static_cast<char>(s[i + k]);
    w += kUnits;
    i += kUnits;
  }
#endif
  return i;
}

template <typename Char>
std::string_view append_utf8(const Char* s, size_t n, Utf8Buffer* buffer) {
  constexpr size_t kMaxPerUnit = sizeof(Char) == 1 ? 2 : sizeof(Char) == 2 ? 3 : 4;
  char* const start = buffer->reserve(n * kMaxPerUnit + 16);  // + room for a 16-byte store
  char* w = start;
  size_t i = 0;
  while (i < n) {
    i = copy_ascii(s, i, n, w);
    // Up to the next block boundary one character at a time (the block that stopped the
    // run holds a non-ASCII unit, or fewer units than a block are left).
    const size_t stop = std::min(n, i + 16 / sizeof(Char));
    while (i < stop) {
      uint32_t c = s[i++];
      if (c < 0x80) {
        *w++ = static_cast<char>(c);
        continue;
      }
      if (c < 0x800) {
        *w++ = static_cast<char>(0xC0 | (c >> 6));
        *w++ = static_cast<char>(0x80 | (c & 0x3F));
        continue;
      }
      if (c >= 0xD800 && c < 0xE000) {
        // A high surrogate and a low one make one character; any other surrogate is U+FFFD.
        if (c < 0xDC00 && i < n && s[i] >= 0xDC00 && s[i] < 0xE000) {
          c = 0x10000 + ((c - 0xD800) << 10) + (static_cast<uint32_t>(s[i]) - 0xDC00);
          ++i;
        } else {
          c = 0xFFFD;
        }
      }
      if (c < 0x10000) {
        *w++ = static_cast<char>(0xE0 | (c >> 12));
        *w++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        *w++ = static_cast<char>(0x80 | (c & 0x3F));
      } else {
        *w++ = static_cast<char>(0xF0 | (c >> 18));
        *w++ = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        *w++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        *w++ = static_cast<char>(0x80 | (c & 0x3F));
      }
    }
  }
  return std::string_view(start, static_cast<size_t>(w - start));
}

}  // namespace

std::string_view to_utf8(const StrView& v, Utf8Buffer* buffer) {
  if (v.kind == PyUnicode_1BYTE_KIND) return append_utf8(static_cast<const uint8_t*>(v.data), v.length, buffer);
  if (v.kind == PyUnicode_2BYTE_KIND) return append_utf8(static_cast<const uint16_t*>(v.data), v.length, buffer);
  return append_utf8(static_cast<const uint32_t*>(v.data), v.length, buffer);
}

}  // namespace tf::py
