// Small helpers shared by the hand-written split-pattern scanners: read one character's
// class, and consume runs of characters whose class is in a set.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/unicode/unicode.h"
#include "common/inline.h"

namespace tf::scan {

// A set of CharClass values as a bit mask.
using ClassSet = uint16_t;
constexpr ClassSet bit(CharClass c) { return static_cast<ClassSet>(1u << c); }
constexpr ClassSet kLetters = bit(kLu) | bit(kLl) | bit(kLt) | bit(kLm) | bit(kLo);
constexpr ClassSet kNumbers = bit(kNumber);
constexpr ClassSet kSpaces = bit(kSpace);
// `[^\s\p{L}\p{N}]`: punctuation, symbols, marks, controls that are not White_Space.
constexpr ClassSet kOthers = bit(kOther) | bit(kMark);

struct AsciiTable {
  CharClass cls[128];
  constexpr AsciiTable() : cls() {
    for (int c = 0; c < 128; ++c) {
      CharClass k = kOther;
      if (c == ' ' || (c >= 9 && c <= 13)) k = kSpace;
      else if (c >= 'A' && c <= 'Z') k = kLu;
      else if (c >= 'a' && c <= 'z') k = kLl;
      else if (c >= '0' && c <= '9') k = kNumber;
      cls[c] = k;
    }
  }
};
inline constexpr AsciiTable kAscii{};

// Class of the character at p (p < end); its byte length goes to *len.
TF_ALWAYS_INLINE CharClass class_at(const uint8_t* p, const uint8_t* end, int* len) {
  if (*p < 0x80) {
    *len = 1;
    return kAscii.cls[*p];
  }
  return char_class(decode_utf8(p, end, len));
}

inline bool in(ClassSet set, CharClass c) { return (set >> c) & 1u; }

// ASCII bytes of the letter or digit sets can be skipped 16 at a time: one range test per
// byte, then the position of the first miss from a bit mask, instead of a table lookup and
// a branch per byte; likewise o200k's lower-case runs.  Returns p unchanged for other
// sets (upper-case runs are too short on real text for this to pay).
TF_ALWAYS_INLINE const uint8_t* skip_ascii(const uint8_t* p, const uint8_t* end, ClassSet set) {
#if defined(__SSE2__)
  uint8_t lo, span;  // bytes b with (b | fold) - lo < span are in the set
  uint8_t fold = 0;
  if (set == kLetters) {
    fold = 0x20, lo = 'a', span = 26;
  } else if (set == kNumbers) {
    lo = '0', span = 10;
  } else if (set == (bit(kLl) | bit(kLm) | bit(kLo) | bit(kMark))) {  // o200k's lower-case run
    lo = 'a', span = 26;
  } else {
    return p;
  }
  const __m128i vfold = _mm_set1_epi8(static_cast<char>(fold));
  const __m128i vlo = _mm_set1_epi8(static_cast<char>(lo));
  const __m128i vmax = _mm_set1_epi8(static_cast<char>(span - 1));
  while (end - p >= 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i d = _mm_sub_epi8(_mm_or_si128(x, vfold), vlo);
    __m128i in_range = _mm_cmpeq_epi8(_mm_min_epu8(d, vmax), d);
    unsigned miss = ~static_cast<unsigned>(_mm_movemask_epi8(in_range)) & 0xFFFFu;
    if (miss != 0) return p + __builtin_ctz(miss);
    p += 16;
  }
#endif
  return p;
}

// Runs of three-byte characters (CJK ideographs, kana, Hangul, Indic and Thai letters) are
// skipped without decoding: one 4-byte load per character checks the lead/continuation
// pattern and indexes a bitmap of the BMP by the character's bits (cp >> 6 from the first
// two bytes, cp & 63 from the third), where the general path would decode the code point,
// validate it and read the two-stage class table.  `bits` is kLetters3 ({Lm, Lo}) or
// kLettersMarks3 ({Lm, Lo, M}); surrogates and overlong forms have no bit, so invalid
// UTF-8 stops the run and is left to the general path.  Stops 4 bytes short of `end` (the
// load's width): the last character there takes the general path too.  Two characters
// per step while 8 bytes can be read (one load and one pattern test for both, so fewer
// instructions per character; figures: benchmarks/README.md).
TF_ALWAYS_INLINE const uint8_t* run3(const uint8_t* p, const uint8_t* end, const uint64_t* bits) {
  // The bit of the character in the low three bytes of w (little-endian: lead byte lowest).
  auto letter = [bits](uint64_t w) {
    const uint32_t word = static_cast<uint32_t>(((w & 0x0Fu) << 6) | ((w >> 8) & 0x3Fu));
    return ((bits[word] >> ((w >> 16) & 0x3Fu)) & 1u) != 0;
  };
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    if ((w & 0xC0C0F0C0C0F0ull) != 0x8080E08080E0ull) break;
    if (!letter(w)) return p;
    if (!letter(w >> 24)) return p + 3;
    p += 6;
  }
  while (end - p >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    if ((w & 0xC0C0F0u) != 0x8080E0u || !letter(w)) break;
    p += 3;
  }
  return p;
}

// The three-byte bitmap whose classes all lie in `set`, or nullptr.
constexpr const uint64_t* bitmap3_within(ClassSet set) {
  constexpr ClassSet kLmLo = bit(kLm) | bit(kLo);
  if ((set & (kLmLo | bit(kMark))) == (kLmLo | bit(kMark))) return unicode_detail::kLettersMarks3;
  if ((set & kLmLo) == kLmLo) return unicode_detail::kLetters3;
  return nullptr;
}

// Likewise runs of two-byte characters (Latin-1 to Arabic: Cyrillic, Greek words) with a
// 32-word bitmap indexed by the lead byte's low five bits and the continuation byte's six
// (overlong forms, below 0x80, have no bit).  Two characters per 4-byte load while 4 bytes
// can be read (one pattern test for both, and one loop branch per two letters: Russian
// words average ~7 letters), then one per 2-byte load.
TF_ALWAYS_INLINE const uint8_t* run2(const uint8_t* p, const uint8_t* end, const uint64_t* bits) {
  // The bit of the character in the low two bytes of w (little-endian: lead byte lowest).
  auto letter = [bits](uint32_t w) { return (bits[w & 0x1Fu] >> ((w >> 8) & 0x3Fu)) & 1u; };
  while (end - p >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    if ((w & 0xC0E0C0E0u) != 0x80C080C0u) {
      // The second is no two-byte character: the run ends after the first or before it.
      return (w & 0xC0E0u) == 0x80C0u && letter(w) ? p + 2 : p;
    }
    if (!letter(w)) return p;
    if (!letter(w >> 16)) return p + 2;
    p += 4;
  }
  while (end - p >= 2) {
    uint16_t w;
    std::memcpy(&w, p, 2);
    if ((w & 0xC0E0u) != 0x80C0u || !letter(w)) break;
    p += 2;
  }
  return p;
}

// The two-byte bitmap of exactly `set` (the letter runs of the scanners), or nullptr.
constexpr const uint64_t* bitmap2_of(ClassSet set) {
  constexpr ClassSet kLmLo = bit(kLm) | bit(kLo);
  if (set == kLetters) return unicode_detail::kLetters2;
  if (set == (bit(kLu) | bit(kLt) | kLmLo | bit(kMark))) return unicode_detail::kUpper2;
  if (set == (bit(kLl) | kLmLo | bit(kMark))) return unicode_detail::kLower2;
  return nullptr;
}

// Consumes characters while their class is in `set`; returns the first position that is not.
TF_ALWAYS_INLINE const uint8_t* run(const uint8_t* p, const uint8_t* end, ClassSet set) {
  const uint64_t* bits2 = bitmap2_of(set);
  const uint64_t* bits3 = bitmap3_within(set);
  while (p < end) {
    if (*p < 0x80) {
      if (!in(set, kAscii.cls[*p])) break;
      const uint8_t* q = skip_ascii(p, end, set);  // an ASCII run: skip it in blocks
      p = q == p ? p + 1 : q;
      continue;
    }
    if (*p < 0xE0 ? bits2 != nullptr : bits3 != nullptr) {
      const uint8_t* q = *p < 0xE0 ? run2(p, end, bits2) : run3(p, end, bits3);
      if (q != p) {
        p = q;
        continue;
      }
    }
    int len;
    if (!in(set, class_at(p, end, &len))) break;
    p += len;
  }
  return p;
}

// `run` of letters out of line, for the word fast paths inlined into the encoders' loops
// (an accented letter after ASCII ones is rare there, and `run` is long).
__attribute__((noinline)) inline const uint8_t* letters_from(const uint8_t* p, const uint8_t* end) {
  return run(p, end, kLetters);
}

// `run` from p, where run2 or run3 stopped: the character at p is no letter of their
// bitmap, so it is classified first instead of being offered to run2/run3 again (after a
// word of kana or ideographs it is mostly CJK punctuation, which run3 would load and
// test for nothing).
TF_ALWAYS_INLINE const uint8_t* run_after_fast(const uint8_t* p, const uint8_t* end, ClassSet set) {
  if (p >= end) return p;
  int len;
  if (!in(set, class_at(p, end, &len))) return p;
  return run(p + len, end, set);
}

// ASCII byte tests for the word fast paths below.
struct AsciiBits {
  uint8_t bits[256];
  constexpr AsciiBits() : bits() {
    for (int c = 0; c < 128; ++c) {
      uint8_t b = 0;
      if (c >= 'a' && c <= 'z') b |= 1 | 4;
      if (c >= 'A' && c <= 'Z') b |= 1 | 8;
      // May lead a word: `[^\r\n\p{L}\p{N}]`, ASCII.
      if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '\r' && c != '\n')
        b |= 2;
      bits[c] = b;
    }
  }
};
inline constexpr AsciiBits kAsciiBits{};
constexpr uint8_t kAsciiLetter = 1, kAsciiLead = 2, kAsciiLower = 4, kAsciiUpper = 8;
inline bool ascii_is(uint8_t b, uint8_t what) { return kAsciiBits.bits[b] & what; }

// The end of the run of ASCII letters of `set` (kLetters, or o200k's lower-case set: a-z)
// from s: the first byte not in it (end at the end of the text).  The byte there may be a
// non-ASCII one, which may continue the run (the callers go on with `run` from there).
TF_ALWAYS_INLINE const uint8_t* ascii_run_to(const uint8_t* s, const uint8_t* end, ClassSet set, uint8_t what) {
  const uint8_t* q = s;
#if defined(__SSE2__)
  const bool letters = set == kLetters;
  const __m128i vfold = _mm_set1_epi8(static_cast<char>(letters ? 0x20 : 0));
  const __m128i vlo = _mm_set1_epi8('a');
  const __m128i vmax = _mm_set1_epi8(25);
  while (end - q >= 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    __m128i d = _mm_sub_epi8(_mm_or_si128(x, vfold), vlo);
    __m128i in_range = _mm_cmpeq_epi8(_mm_min_epu8(d, vmax), d);
    unsigned miss = ~static_cast<unsigned>(_mm_movemask_epi8(in_range)) & 0xFFFFu;
    if (miss != 0) return q + __builtin_ctz(miss);
    q += 16;
  }
#endif
  while (q < end && ascii_is(*q, what)) ++q;
  return q;
}

// Consumes at most `max` characters whose class is in `set`.
inline const uint8_t* run_max(const uint8_t* p, const uint8_t* end, ClassSet set, int max) {
  for (int i = 0; i < max && p < end; ++i) {
    int len;
    if (!in(set, class_at(p, end, &len))) break;
    p += len;
  }
  return p;
}

inline bool is_newline(uint8_t b) { return b == '\r' || b == '\n'; }

// A run of White_Space starting at p (p must be whitespace).  Reports the end of the run,
// the start of its last character, how many characters it has (capped at 2), and the end
// of its last '\r' or '\n' (nullptr if it has none).
struct SpaceRun {
  const uint8_t* end;
  const uint8_t* last_start;
  const uint8_t* after_last_newline;
  int count;
};

// The end of the run of ' ' bytes at p (*p == ' '), 16 bytes at a time where it can.
TF_ALWAYS_INLINE const uint8_t* skip_blanks(const uint8_t* p, const uint8_t* end) {
#if defined(__SSE2__)
  const __m128i blank = _mm_set1_epi8(' ');
  while (end - p >= 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    unsigned miss = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, blank))) & 0xFFFFu;
    if (miss != 0) return p + __builtin_ctz(miss);
    p += 16;
  }
#endif
  while (p < end && *p == ' ') ++p;
  return p;
}

inline SpaceRun space_run(const uint8_t* p, const uint8_t* end) {
  SpaceRun r{p, p, nullptr, 0};
  while (p < end) {
    if (*p == ' ') {  // runs of blanks (indentation) are skipped in blocks
      const uint8_t* q = skip_blanks(p, end);
      r.last_start = q - 1;
      r.count = q - p >= 2 ? 2 : (r.count < 2 ? r.count + 1 : 2);
      p = q;
      continue;
    }
    int len;
    if (class_at(p, end, &len) != kSpace) break;
    if (is_newline(*p)) r.after_last_newline = p + 1;
    r.last_start = p;
    if (r.count < 2) ++r.count;
    p += len;
  }
  r.end = p;
  return r;
}

// ` ?[^\s\p{L}\p{N}]+` followed by any run of '\r', '\n' (and '/' if `slash`), at p whose
// class is c0; nullptr if it does not match there.
inline const uint8_t* punctuation_run(const uint8_t* p, const uint8_t* end, CharClass c0, bool slash) {
  const uint8_t* q = nullptr;
  if (in(kOthers, c0)) {
    q = p;
  } else if (*p == ' ' && p + 1 < end) {
    int len1;
    if (in(kOthers, class_at(p + 1, end, &len1))) q = p + 1;
  }
  if (q == nullptr) return nullptr;
  q = run(q, end, kOthers);
  while (q < end && (is_newline(*q) || (slash && *q == '/'))) ++q;
  return q;
}

// `'s|'t|'re|'ve|'m|'ll|'d` case-insensitively (Unicode simple folding, so U+017F LONG S
// counts as s), at p.  Returns the end of the contraction, or nullptr.
inline const uint8_t* contraction(const uint8_t* p, const uint8_t* end) {
  if (p >= end || *p != '\'' || end - p < 2) return nullptr;
  uint8_t c1 = p[1] | 0x20;  // ASCII lower case for letters
  if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') return p + 2;
  if (p[1] == 0xC5 && end - p >= 3 && p[2] == 0xBF) return p + 3;  // U+017F
  if (end - p >= 3) {
    uint8_t c2 = p[2] | 0x20;
    if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l')) return p + 3;
  }
  return nullptr;
}

}  // namespace tf::scan
