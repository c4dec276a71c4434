#include "pretokenize/ascii_splitter.h"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "pretokenize/ascii_split_rules.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TF_ASCII_SPLITTER 1
#include <immintrin.h>
// GCC 12 reads the _mm*_undefined_*() operands inside its own AVX-512 intrinsics as
// maybe-uninitialized once they inline here; they are deliberately undefined.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace tf::scan {

#if TF_ASCII_SPLITTER

namespace {

constexpr uint8_t kL = 1, kU = 2, kN = 4, kNL = 8, kSP = 16, kWS = 32, kQ = 64, kSL = 128;
constexpr uint8_t kSdmt = 1, kRv = 2, kE = 4, kLl = 8, kCtl = 16;  // (kCtl: a control byte, not whitespace)

// Class bits of each ASCII byte, and contraction-letter bits (indexed by the low 7 bits
// of a byte; bytes >= 0x80 are masked out as hard).
struct Tables {
  alignas(64) uint8_t cls[128];
  alignas(64) uint8_t letters[128];
  constexpr Tables() : cls(), letters() {
    for (int c = 0; c < 128; ++c) {
      uint8_t k = 0;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) k |= kL;
      if (c >= 'A' && c <= 'Z') k |= kU;
      if (c >= '0' && c <= '9') k |= kN;
      if (c == '\n' || c == '\r') k |= kNL;
      if (c == ' ') k |= kSP;
      if (c == '\t' || c == '\v' || c == '\f') k |= kWS;
      if (c == '\'') k |= kQ;
      if (c == '/') k |= kSL;
      cls[c] = k;
      const int lc = c | 0x20;
      uint8_t m = 0;
      if (c >= 'A' && (lc == 's' || lc == 'd' || lc == 'm' || lc == 't')) m |= kSdmt;
      if (c >= 'A' && (lc == 'r' || lc == 'v')) m |= kRv;
      if (c >= 'A' && lc == 'e') m |= kE;
      if (c >= 'A' && lc == 'l') m |= kLl;
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r') || c == 0x7F) m |= kCtl;
      letters[c] = m;
    }
  }
};
constexpr Tables kTables{};

TF_ALWAYS_INLINE void finish(AsciiClasses* c) {
  c->O = ~(c->L | c->N | c->NL | c->SP | c->WS | c->Q | c->hard) | c->SL;
}

// The two bytes of each letter U+00C0..U+00FF (Latin-1: the accented letters of French,
// German, Spanish..., C3 80..C3 BF less the signs × and ÷, C3 97 and C3 B7) as masks, all
// of them and the upper-case ones (U+00C0..U+00DE).  The AVX-512 and AVX2 paths classify them as
// letters instead of handing their windows to the scalar scanner: on German and French
// man pages (a fifth of the multilingual corpus), one piece in six went scalar, most for
// such a letter.  A letter's two bytes are both in L (and U), so no rule cuts between
// them: every rule cuts only where the class changes, or at a letter after N|NL|O|Q or a
// contraction, none of which a letter's second byte follows.  A lead byte at a window's
// last byte stays hard.  None of these letters is \p{N} or whitespace, or case-folds to
// an ASCII letter (so the contractions' (?i) letters stay ASCII).
struct Latin1Letters {
  uint64_t all, upper;
};
__attribute__((target("avx512f,avx512bw"))) inline Latin1Letters latin1_letters(__m512i x) {
  const uint64_t lead = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(static_cast<char>(0xC3)));
  const uint64_t cont = _mm512_cmpge_epu8_mask(x, _mm512_set1_epi8(static_cast<char>(0x80))) &
                        _mm512_cmple_epu8_mask(x, _mm512_set1_epi8(static_cast<char>(0xBF))) &
                        ~_mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(static_cast<char>(0x97))) &
                        ~_mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(static_cast<char>(0xB7)));
  const uint64_t upper_cont = cont & _mm512_cmple_epu8_mask(x, _mm512_set1_epi8(static_cast<char>(0x9E)));
  const uint64_t first = lead & (cont >> 1), first_upper = lead & (upper_cont >> 1);
  return Latin1Letters{first | (first << 1), first_upper | (first_upper << 1)};
}

__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt,popcnt")))
inline AsciiClasses classify_avx512(const uint8_t* s) {
  const __m512i x = _mm512_loadu_si512(s);
  const __m512i cls = _mm512_permutex2var_epi8(_mm512_load_si512(kTables.cls), x, _mm512_load_si512(kTables.cls + 64));
  const __m512i let =
      _mm512_permutex2var_epi8(_mm512_load_si512(kTables.letters), x, _mm512_load_si512(kTables.letters + 64));
  AsciiClasses c;
  const uint64_t high = _mm512_movepi8_mask(x);
  const uint64_t ascii = ~high;
#define TF_BIT(v, b) (_mm512_test_epi8_mask(v, _mm512_set1_epi8(static_cast<char>(b))) & ascii)
  c.L = TF_BIT(cls, kL), c.U = TF_BIT(cls, kU), c.N = TF_BIT(cls, kN), c.NL = TF_BIT(cls, kNL);
  c.SP = TF_BIT(cls, kSP), c.WS = TF_BIT(cls, kWS), c.Q = TF_BIT(cls, kQ), c.SL = TF_BIT(cls, kSL);
  c.sdmt = TF_BIT(let, kSdmt), c.rv = TF_BIT(let, kRv), c.e = TF_BIT(let, kE), c.l = TF_BIT(let, kLl);
  c.ctl = TF_BIT(let, kCtl);
#undef TF_BIT
  const Latin1Letters latin = latin1_letters(x);
  c.latin = latin.all;
  c.hard = high & ~latin.all;
  c.L |= latin.all;
  c.U |= latin.upper;
  finish(&c);
  return c;
}

// Writes p + i for each set bit i of `keep` (count of them) to out[0..), and up to 15
// spare entries after them.
__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt,popcnt")))
inline void emit_wide(uint64_t keep, const uint8_t* p, const uint8_t** out, size_t count) {
  static constexpr struct Iota {
    alignas(64) uint8_t v[64];
    constexpr Iota() : v() {
      for (int i = 0; i < 64; ++i) v[i] = static_cast<uint8_t>(i);
    }
  } kIota{};
  const __m512i offsets = _mm512_maskz_compress_epi8(keep, _mm512_load_si512(kIota.v));
  const __m512i base = _mm512_set1_epi64(static_cast<long long>(reinterpret_cast<uintptr_t>(p)));
#define TF_PUT16(lane, k)                                                                                  \
  do {                                                                                                    \
    const __m128i b = _mm512_castsi512_si128(_mm512_shuffle_i32x4(offsets, offsets, lane));              \
    _mm512_storeu_si512(out + (k), _mm512_add_epi64(base, _mm512_cvtepu8_epi64(b)));                      \
    _mm512_storeu_si512(out + (k) + 8, _mm512_add_epi64(base, _mm512_cvtepu8_epi64(_mm_srli_si128(b, 8)))); \
  } while (0)
  TF_PUT16(0, 0);
  if (count > 16) {
    TF_PUT16(1, 16);
    if (count > 32) {
      TF_PUT16(2, 32);
      if (count > 48) TF_PUT16(3, 48);
    }
  }
#undef TF_PUT16
}

// The bytes >= 0x80 among the first 16 of a window, and among all 64, as masks.
inline unsigned first_hard_16(const uint8_t* s) {
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s))));
}

inline uint64_t hard_sse(const uint8_t* s) {
  uint64_t m = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * k));
    m |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(x))) << (16 * k);
  }
  return m;
}

// With AVX-512 a Latin-1 letter is not hard (see latin1_letters).
__attribute__((target("avx512f,avx512bw"))) inline uint64_t hard_avx512(const uint8_t* s) {
  const __m512i x = _mm512_loadu_si512(s);
  return _mm512_movepi8_mask(x) & ~latin1_letters(x).all;
}

// The 64-byte test only where the first byte >= 0x80 may lead a Latin-1 letter: other
// scripts' windows are handed over as cheaply as before.
__attribute__((target("avx512f,avx512bw"))) inline unsigned first_hard_16_avx512(const uint8_t* s) {
  const unsigned m = first_hard_16(s);
  if (m == 0 || s[__builtin_ctz(m)] != 0xC3) return m;
  return static_cast<unsigned>(hard_avx512(s) & 0xFFFF);
}

inline AsciiClasses classify_sse(const uint8_t* s) {
  AsciiClasses c{};
  for (int k = 0; k < 4; ++k) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * k));
    const __m128i xl = _mm_or_si128(x, _mm_set1_epi8(0x20));
    auto eq = [](__m128i v, char b) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(b)); };
    auto range = [](__m128i v, char lo, char span) {
      const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8(lo));
      return _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(static_cast<char>(span - 1))), d);
    };
    auto put = [&](uint64_t* m, __m128i v) {
      *m |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(v))) << (16 * k);
    };
    put(&c.hard, x);
    put(&c.L, range(xl, 'a', 26));
    put(&c.U, range(x, 'A', 26));
    put(&c.N, range(x, '0', 10));
    put(&c.NL, _mm_or_si128(eq(x, '\n'), eq(x, '\r')));
    put(&c.SP, eq(x, ' '));
    put(&c.WS, _mm_or_si128(eq(x, '\t'), _mm_or_si128(eq(x, '\v'), eq(x, '\f'))));
    put(&c.Q, eq(x, '\''));
    put(&c.SL, eq(x, '/'));
    put(&c.sdmt, _mm_or_si128(_mm_or_si128(eq(xl, 's'), eq(xl, 'd')), _mm_or_si128(eq(xl, 'm'), eq(xl, 't'))));
    put(&c.rv, _mm_or_si128(eq(xl, 'r'), eq(xl, 'v')));
    put(&c.e, eq(xl, 'e'));
    put(&c.l, eq(xl, 'l'));
    // Controls: below 0x20 (signed compares: bytes >= 0x80 are hard anyway) but \t..\r, and DEL.
    const __m128i low = _mm_andnot_si128(range(x, '\t', 5), _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
    put(&c.ctl, _mm_or_si128(low, eq(x, 0x7F)));
  }
  finish(&c);
  return c;
}

// AVX2 (x86-64-v3: Haswell on, every AMD Zen): the SSE2 compares 32 bytes at a time, and
// the Latin-1 letters classified as letters as in the AVX-512 path (latin1_letters), from
// signed compares: 0x80..0xBF are the bytes below -64, the upper-case ones (..0x9E) those
// below -97.
struct Avx2Masks {
  uint64_t high, lead, cont, upper_cont;
};

__attribute__((target("avx2,popcnt"))) inline Latin1Letters latin1_letters_of(const Avx2Masks& m) {
  const uint64_t first = m.lead & (m.cont >> 1), first_upper = m.lead & (m.upper_cont >> 1);
  return Latin1Letters{first | (first << 1), first_upper | (first_upper << 1)};
}

__attribute__((target("avx2,popcnt"))) inline uint32_t movemask32(__m256i v) {
  return static_cast<uint32_t>(_mm256_movemask_epi8(v));
}

// (Helpers, not lambdas: a lambda does not take its function's target.)
__attribute__((target("avx2,popcnt"))) inline __m256i eq32(__m256i v, int b) {
  return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(static_cast<char>(b)));
}

// The bytes of v in [lo, lo + span).
__attribute__((target("avx2,popcnt"))) inline __m256i range32(__m256i v, char lo, char span) {
  const __m256i d = _mm256_sub_epi8(v, _mm256_set1_epi8(lo));
  return _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(static_cast<char>(span - 1))), d);
}

__attribute__((target("avx2,popcnt"))) inline void high_masks_avx2(__m256i x, int k, Avx2Masks* m) {
  const __m256i cont = _mm256_andnot_si256(_mm256_or_si256(eq32(x, 0x97), eq32(x, 0xB7)),
                                           _mm256_cmpgt_epi8(_mm256_set1_epi8(-64), x));
  const __m256i upper = _mm256_and_si256(cont, _mm256_cmpgt_epi8(_mm256_set1_epi8(-97), x));
  m->high |= static_cast<uint64_t>(movemask32(x)) << (32 * k);
  m->lead |= static_cast<uint64_t>(movemask32(eq32(x, 0xC3))) << (32 * k);
  m->cont |= static_cast<uint64_t>(movemask32(cont)) << (32 * k);
  m->upper_cont |= static_cast<uint64_t>(movemask32(upper)) << (32 * k);
}

__attribute__((target("avx2,popcnt"))) inline uint64_t hard_avx2(const uint8_t* s) {
  Avx2Masks m{};
  for (int k = 0; k < 2; ++k) {
    high_masks_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32 * k)), k, &m);
  }
  return m.high & ~latin1_letters_of(m).all;
}

__attribute__((target("avx2,popcnt"))) inline unsigned first_hard_16_avx2(const uint8_t* s) {
  const unsigned m = first_hard_16(s);
  if (m == 0 || s[__builtin_ctz(m)] != 0xC3) return m;
  return static_cast<unsigned>(hard_avx2(s) & 0xFFFF);
}

__attribute__((target("avx2,popcnt"))) inline AsciiClasses classify_avx2(const uint8_t* s) {
  AsciiClasses c{};
  Avx2Masks m{};
  for (int k = 0; k < 2; ++k) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32 * k));
    const __m256i xl = _mm256_or_si256(x, _mm256_set1_epi8(0x20));
    const int at = 32 * k;
#define TF_PUT(mask, v) ((mask) |= static_cast<uint64_t>(movemask32(v)) << at)
    high_masks_avx2(x, k, &m);
    TF_PUT(c.L, range32(xl, 'a', 26));
    TF_PUT(c.U, range32(x, 'A', 26));
    TF_PUT(c.N, range32(x, '0', 10));
    TF_PUT(c.NL, _mm256_or_si256(eq32(x, '\n'), eq32(x, '\r')));
    TF_PUT(c.SP, eq32(x, ' '));
    TF_PUT(c.WS, _mm256_or_si256(eq32(x, '\t'), _mm256_or_si256(eq32(x, '\v'), eq32(x, '\f'))));
    TF_PUT(c.Q, eq32(x, '\''));
    TF_PUT(c.SL, eq32(x, '/'));
    TF_PUT(c.sdmt, _mm256_or_si256(_mm256_or_si256(eq32(xl, 's'), eq32(xl, 'd')),
                                   _mm256_or_si256(eq32(xl, 'm'), eq32(xl, 't'))));
    TF_PUT(c.rv, _mm256_or_si256(eq32(xl, 'r'), eq32(xl, 'v')));
    TF_PUT(c.e, eq32(xl, 'e'));
    TF_PUT(c.l, eq32(xl, 'l'));
    // Controls: below 0x20 (signed: bytes >= 0x80 are hard anyway) but \t..\r, and DEL.
    TF_PUT(c.ctl, _mm256_or_si256(_mm256_andnot_si256(range32(x, '\t', 5), _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), x)),
                                  eq32(x, 0x7F)));
#undef TF_PUT
  }
  const Latin1Letters latin = latin1_letters_of(m);
  c.latin = latin.all;
  c.hard = m.high & ~latin.all;
  c.L |= latin.all;
  c.U |= latin.upper;
  finish(&c);
  return c;
}

// Writes p + i for each set bit i of `keep`, in order, to out[0..), and up to 7 spare
// entries after them: per byte of the mask, the positions of its set bits from a table,
// eight pointers written whatever their count (as emit_wide, no branch per piece).
__attribute__((target("avx2,popcnt"))) inline void emit_table(uint64_t keep, const uint8_t* p, const uint8_t** out) {
  static constexpr struct BitPositions {
    alignas(64) uint8_t v[256][8];
    constexpr BitPositions() : v() {
      for (int b = 0; b < 256; ++b) {
        int k = 0;
        for (int i = 0; i < 8; ++i) {
          if (b >> i & 1) v[b][k++] = static_cast<uint8_t>(i);
        }
      }
    }
  } kPositions{};
  const __m256i base = _mm256_set1_epi64x(static_cast<long long>(reinterpret_cast<uintptr_t>(p)));
  const int bytes = (64 - __builtin_clzll(keep) + 7) / 8;
  size_t k = 0;
  for (int j = 0; j < bytes; ++j) {
    const unsigned b = static_cast<unsigned>(keep >> (8 * j)) & 0xFF;
    const __m128i at = _mm_add_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kPositions.v[b])),
                                    _mm_set1_epi8(static_cast<char>(8 * j)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k), _mm256_add_epi64(base, _mm256_cvtepu8_epi64(at)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + k + 4),
                        _mm256_add_epi64(base, _mm256_cvtepu8_epi64(_mm_srli_si128(at, 4))));
    k += static_cast<size_t>(__builtin_popcount(b));
  }
}

// The windows from p on; see ascii_split().  Past the text's end a window is padded with
// 0x80 bytes, which are hard, so the pieces at the end (where `$` and `(?!\S)` look at
// the end) are left to the scalar scanner.
// How a window's kept starts become ends: one at a time (count-trailing-zeros loop), all
// at once by vpcompressb (AVX-512), or eight bit positions at a time from a table (AVX2).
enum class Emit { kLoop, kCompress, kTable };

template <WindowStarts (*kRules)(const AsciiClasses&), Emit kEmit, unsigned (*FirstHard16)(const uint8_t*),
          uint64_t (*HardMask)(const uint8_t*), typename Classify>
TF_ALWAYS_INLINE AsciiSplit split_windows(const uint8_t* p, const uint8_t* end, const uint8_t** ends, size_t room,
                                          Classify classify) {
  size_t n = 0;
  alignas(64) uint8_t pad[64];
  while (room - n >= 64 + (kEmit == Emit::kTable ? 8 : 0) && p < end) {
    const uint8_t* src = p;
    if (end - p < 64) {
      const size_t left = static_cast<size_t>(end - p);
      std::memcpy(pad, p, left);
      std::memset(pad + left, 0x80, 64 - left);
      src = pad;
    }
    // A window with a non-ASCII byte among its first three decides nothing (decided_limit),
    // and one among its first 16 little: on text of other scripts most windows have one,
    // and the scalar scanner splits on past the window's last such byte without the cost
    // of classifying it (windows that decided only a few ASCII pieces went scalar, so it
    // runs fewer instructions; figures: benchmarks/README.md).
    if (FirstHard16(src) != 0) {
      const uint64_t hard = HardMask(src);
      const uint8_t* resume = p + 64 - __builtin_clzll(hard);
      return AsciiSplit{n, resume < end ? resume : end};
    }
    const AsciiClasses c = classify(src);
    const WindowStarts w = kRules(c);
    uint64_t keep = w.starts & ((uint64_t{1} << w.limit) - 1) & ~uint64_t{1};
    if (keep == 0) {
      // Undecided: split on with the scalar scanner past the window's last hard byte
      // (or past the one long piece at p).
      const uint8_t* resume = c.hard ? p + 64 - __builtin_clzll(c.hard) : p + 1;
      return AsciiSplit{n, resume < end ? resume : end};
    }
    if constexpr (kEmit != Emit::kLoop) {
      // All of the window's ends written at once whatever their count (the spare writes
      // land in `room`): the count varies at random between windows, so a loop exit per
      // piece would mispredict.  AVX-512: the byte offsets of the starts in order
      // (vpcompressb), widened to pointers 16 at a time; AVX2: from a table, per byte.
      const size_t count = static_cast<size_t>(__builtin_popcountll(keep));
      const uint8_t* const last = p + (63 - __builtin_clzll(keep));
      if constexpr (kEmit == Emit::kTable) {
        emit_table(keep, p, ends + n);
      } else {
        emit_wide(keep, p, ends + n, count);
      }
      n += count;
      p = last;
    } else {
      do {
        ends[n++] = p + __builtin_ctzll(keep);
        keep &= keep - 1;
      } while (keep != 0);
      p = ends[n - 1];
    }
  }
  return AsciiSplit{n, p};
}

// split_windows with the rules of `pattern`, at one level (its emit, hard masks and
// classification); inlined into each level's function, which carries the level's target.
template <Emit kEmit, unsigned (*FirstHard16)(const uint8_t*), uint64_t (*HardMask)(const uint8_t*),
          typename Classify>
TF_ALWAYS_INLINE AsciiSplit split_level(SplitPattern pattern, const uint8_t* p, const uint8_t* end,
                                        const uint8_t** ends, size_t room, Classify classify) {
  switch (pattern) {
    case SplitPattern::kO200k:
      return split_windows<o200k_starts, kEmit, FirstHard16, HardMask>(p, end, ends, room, classify);
    case SplitPattern::kGpt2:
      return split_windows<gpt2_starts, kEmit, FirstHard16, HardMask>(p, end, ends, room, classify);
    case SplitPattern::kQwen2:
      return split_windows<qwen2_starts, kEmit, FirstHard16, HardMask>(p, end, ends, room, classify);
    case SplitPattern::kDeepSeekV3:
      return split_windows<deepseek_v3_starts, kEmit, FirstHard16, HardMask>(p, end, ends, room, classify);
    default:
      return split_windows<cl100k_starts, kEmit, FirstHard16, HardMask>(p, end, ends, room, classify);
  }
}

__attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt,popcnt"), noinline))
AsciiSplit split_avx512(SplitPattern pattern, const uint8_t* p, const uint8_t* end, const uint8_t** ends,
                        size_t room) {
  return split_level<Emit::kCompress, first_hard_16_avx512, hard_avx512>(pattern, p, end, ends, room, classify_avx512);
}

__attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt"), noinline))
AsciiSplit split_avx2(SplitPattern pattern, const uint8_t* p, const uint8_t* end, const uint8_t** ends,
                      size_t room) {
  return split_level<Emit::kTable, first_hard_16_avx2, hard_avx2>(pattern, p, end, ends, room, classify_avx2);
}

__attribute__((noinline)) AsciiSplit split_sse(SplitPattern pattern, const uint8_t* p, const uint8_t* end,
                                               const uint8_t** ends, size_t room) {
  return split_level<Emit::kLoop, first_hard_16, hard_sse>(pattern, p, end, ends, room, classify_sse);
}

SplitLevel detect() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("lzcnt")) {
    return SplitLevel::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("lzcnt") &&
      __builtin_cpu_supports("popcnt")) {
    return SplitLevel::kAvx2;
  }
  return SplitLevel::kSse;
}

}  // namespace

SplitLevel best_ascii_split_level() {
  static const SplitLevel best = detect();
  return best;
}

#else  // not x86-64: the scalar scanner only

SplitLevel best_ascii_split_level() { return SplitLevel::kOff; }

#endif

namespace {
std::atomic<int> g_level{-1};
}

SplitLevel ascii_split_level() {
  int v = g_level.load(std::memory_order_relaxed);
  if (v < 0) {
    v = static_cast<int>(best_ascii_split_level());
    g_level.store(v, std::memory_order_relaxed);
  }
  return static_cast<SplitLevel>(v);
}

SplitLevel set_ascii_split_level(SplitLevel level) {
  const SplitLevel old = ascii_split_level();
  int v = static_cast<int>(level);
  if (v < 0) v = 0;
  if (v > static_cast<int>(best_ascii_split_level())) v = static_cast<int>(best_ascii_split_level());
  g_level.store(v, std::memory_order_relaxed);
  return old;
}

AsciiSplit ascii_split(SplitPattern pattern, const uint8_t* p, const uint8_t* end, const uint8_t** ends,
                       size_t room) {
#if TF_ASCII_SPLITTER
  const SplitLevel level = ascii_split_level();
  if (level == SplitLevel::kAvx512) return split_avx512(pattern, p, end, ends, room);
  if (level == SplitLevel::kAvx2) return split_avx2(pattern, p, end, ends, room);
  return split_sse(pattern, p, end, ends, room);
#else
  (void)pattern, (void)end, (void)ends, (void)room;
  return AsciiSplit{0, p + 1};
#endif
}

}  // namespace tf::scan
