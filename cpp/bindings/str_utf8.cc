// to_utf8 (bindings/common.h): the UTF-8 of a str's 1-, 2- or 4-byte code units, made by
// a batch's worker threads without the GIL.
//
// Most text is mostly ASCII, so runs of ASCII are narrowed 16 bytes of input at a time
// (SSE2; 8 bytes with plain 64-bit words elsewhere).  A 2-byte str is the common case for
// English documents: one curly quote makes the whole str 2-byte.  In other scripts a
// per-character loop mispredicted at every switch between letters and ASCII spaces, so on
// x86 with SSSE3 the other blocks of 1- and 2-byte strs are converted 4 units at a time:
// each unit's 1, 2 or 3 UTF-8 bytes are made in a 32-bit lane, then packed by a shuffle
// chosen by the 4 lengths (a 4 KB table).  Measured on the multi corpus's 2-byte strs:
// 1.19 -> 0.63 ns per unit.  Surrogates and 4-byte strs take the per-character path.
// O(n); the output is at most 4 bytes per code unit.
#include <cstring>

#include "bindings/common.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TF_UTF16_SSSE3 1
#include <tmmintrin.h>
#endif

namespace tf::py {

namespace {

// Copies the ASCII run at s[i, n) to w while whole blocks are ASCII; returns the new i
// (and advances w).  The remaining code units of a block with a non-ASCII one are left to
// the caller.
template <typename Char>
inline size_t copy_ascii(const Char* s, size_t i, size_t n, char*& w) {
#if defined(__SSE2__)
  if constexpr (sizeof(Char) == 2) {  // 16 units (two loads) per step while it lasts
    const __m128i above7 = _mm_set1_epi16(static_cast<short>(0xFF80));
    while (i + 16 <= n) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 8));
      if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(_mm_or_si128(a, b), above7), _mm_setzero_si128())) != 0xFFFF)
        break;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(w), _mm_packus_epi16(a, b));
      w += 16;
      i += 16;
    }
  }
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


#if defined(TF_UTF16_SSSE3)
// For 4 units in 32-bit lanes, each holding its UTF-8 bytes from the low end, the pshufb
// indices that pack them, and the packed length.  Index: bit k set if unit k needs 2 or
// more bytes, bit 4 + k if it needs 3.
struct PackShuffles {
  uint8_t index[256][16];
  uint8_t length[256];
};

constexpr PackShuffles make_pack_shuffles() {
  PackShuffles t{};
  for (int m = 0; m < 256; ++m) {
    int o = 0;
    for (int k = 0; k < 4; ++k) {
      const int bytes = 1 + ((m >> k) & 1) + ((m >> (4 + k)) & 1);
      for (int b = 0; b < bytes; ++b) t.index[m][o++] = static_cast<uint8_t>(4 * k + b);
    }
    t.length[m] = static_cast<uint8_t>(o);
    for (; o < 16; ++o) t.index[m][o] = 0x80;
  }
  return t;
}

alignas(16) constexpr PackShuffles kPack = make_pack_shuffles();

// The UTF-8 of 4 units (none a surrogate) in 32-bit lanes c, packed at w; advances w.
__attribute__((target("ssse3"))) inline void put4(__m128i c, char*& w) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i low6 = _mm_set1_epi32(0x3F), cont = _mm_set1_epi32(0x80);
  const __m128i two_plus = _mm_cmpeq_epi32(_mm_and_si128(c, _mm_set1_epi32(0xFF80)), zero);  // lanes: 1 byte
  const __m128i three = _mm_cmpeq_epi32(_mm_and_si128(c, _mm_set1_epi32(0xF800)), zero);     // lanes: <= 2 bytes
  const __m128i last = _mm_or_si128(_mm_and_si128(c, low6), cont);
  const __m128i middle = _mm_or_si128(_mm_and_si128(_mm_srli_epi32(c, 6), low6), cont);
  const __m128i as2 = _mm_or_si128(_mm_or_si128(_mm_srli_epi32(c, 6), _mm_set1_epi32(0xC0)), _mm_slli_epi32(last, 8));
  const __m128i as3 = _mm_or_si128(_mm_or_si128(_mm_srli_epi32(c, 12), _mm_set1_epi32(0xE0)),
                                   _mm_or_si128(_mm_slli_epi32(middle, 8), _mm_slli_epi32(last, 16)));
  const __m128i multi = _mm_or_si128(_mm_and_si128(three, as2), _mm_andnot_si128(three, as3));
  const __m128i lanes = _mm_or_si128(_mm_and_si128(two_plus, c), _mm_andnot_si128(two_plus, multi));
  const int m = (~_mm_movemask_ps(_mm_castsi128_ps(two_plus)) & 0xF) | ((~_mm_movemask_ps(_mm_castsi128_ps(three)) & 0xF) << 4);
  const __m128i index = _mm_load_si128(reinterpret_cast<const __m128i*>(kPack.index[m]));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(w), _mm_shuffle_epi8(lanes, index));
  w += kPack.length[m];
}

// Converts whole blocks of 8 units at s[i, n) while none holds a surrogate; returns the
// new i (unchanged at a block with a surrogate or with fewer than 8 units left).  Stores
// run up to 16 bytes past w's new value.
__attribute__((target("ssse3"))) size_t utf16_blocks(const uint16_t* s, size_t i, size_t n, char*& w) {
  const __m128i zero = _mm_setzero_si128();
  const __m128i above7 = _mm_set1_epi16(static_cast<short>(0xFF80));
  const __m128i above11 = _mm_set1_epi16(static_cast<short>(0xF800));
  const __m128i surrogate = _mm_set1_epi16(static_cast<short>(0xD800));
  while (i + 8 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, above7), zero)) == 0xFFFF) {  // all ASCII
      i = copy_ascii(s, i, n, w);  // the run, in copy_ascii's wider steps
      continue;
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, above11), surrogate)) != 0) break;
    put4(_mm_unpacklo_epi16(v, zero), w);
    put4(_mm_unpackhi_epi16(v, zero), w);
    i += 8;
  }
  return i;
}

// utf16_blocks for a 1-byte str (Latin-1: no surrogates), 16 units at a time.
__attribute__((target("ssse3"))) size_t latin1_blocks(const uint8_t* s, size_t i, size_t n, char*& w) {
  const __m128i zero = _mm_setzero_si128();
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
    if (_mm_movemask_epi8(v) == 0) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(w), v);
      w += 16;
    } else {
      const __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
      put4(_mm_unpacklo_epi16(lo, zero), w);
      put4(_mm_unpackhi_epi16(lo, zero), w);
      put4(_mm_unpacklo_epi16(hi, zero), w);
      put4(_mm_unpackhi_epi16(hi, zero), w);
    }
    i += 16;
  }
  return i;
}

// (A static initializer runs before libgcc has read the CPU features: init first.)
const bool kHasSsse3 = (__builtin_cpu_init(), __builtin_cpu_supports("ssse3"));
#endif

// *first_surrogate: the index of the first surrogate unit met (left as it is if none).
template <typename Char>
std::string_view append_utf8(const Char* s, size_t n, Utf8Buffer* buffer, int64_t* first_surrogate) {
  constexpr size_t kMaxPerUnit = sizeof(Char) == 1 ? 2 : sizeof(Char) == 2 ? 3 : 4;
  char* const start = buffer->reserve(n * kMaxPerUnit + 32);  // + room for 16-byte stores
  char* w = start;
  size_t i = 0;
  while (i < n) {
    i = copy_ascii(s, i, n, w);
#if defined(TF_UTF16_SSSE3)
    if constexpr (sizeof(Char) <= 2) {
      if (kHasSsse3) {
        size_t next;
        if constexpr (sizeof(Char) == 1) {
          next = latin1_blocks(s, i, n, w);
        } else {
          next = utf16_blocks(s, i, n, w);
        }
        if (next != i) {
          i = next;
          continue;
        }
      }
    }
#endif
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
        if (*first_surrogate < 0) *first_surrogate = static_cast<int64_t>(i - 1);
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
  int64_t* first = &buffer->first_surrogate_;
  *first = -1;
  if (v.ascii) return std::string_view(static_cast<const char*>(v.data), v.length);
  if (v.kind == PyUnicode_1BYTE_KIND) return append_utf8(static_cast<const uint8_t*>(v.data), v.length, buffer, first);
  if (v.kind == PyUnicode_2BYTE_KIND) return append_utf8(static_cast<const uint16_t*>(v.data), v.length, buffer, first);
  return append_utf8(static_cast<const uint32_t*>(v.data), v.length, buffer, first);
}

}  // namespace tf::py
