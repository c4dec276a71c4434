// DeepSeek V3's pre-tokenizer: a Sequence of three Isolated Splits run by Oniguruma, each
// on the pieces of the one before, as one scanner.
//   1. \p{N}{1,3}
//   2. [\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+
//   3. A1 [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+
//     |A2 [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
//     |A3  ?[\p{P}\p{S}]+[\r\n]*
//     |A4 \s*[\r\n]+ |A5 \s+(?!\S) |A6 \s+
// Isolated keeps both the matches and the gaps between them as pieces.
//
// No pattern looks behind, so a piece depends only on the text from its start to the end of
// the enclosing piece of the splits before.  Those enclosing pieces are where a character's
// "segment" changes: a number (split 1 cuts every number run, three characters a piece, and
// splits 2 and 3 leave such a piece whole, since \p{N} is in no other class nor in the CJK
// ranges), a CJK-range character, or anything else.  So every test below asks, besides the
// class, whether the character is still in the segment where the piece began; the segment's
// end is the end of split 3's subject (A5's look-ahead sees the end of text there).  Where no
// alternative matches, the gap runs to the next position where one does.
//
// Classes are Oniguruma's as tokenizers 0.23.3 has them (onig_split_tables.inc).  One
// forward pass per piece plus one character of look-ahead; the readable oracle is the regex
// path of src/tokenforge/tokenizer/native_splits.py.  Stretches of ASCII text are split 64
// bytes at a time by the ASCII splitter instead (deepseek_v3_starts in ascii_split_rules.h);
// this scanner takes the pieces it leaves.
#pragma once

#include <cstdint>

#include "common/inline.h"
#include "common/unicode/unicode.h"

namespace tf::scan {

namespace onig_detail {
#include "pretokenize/onig_split_tables.inc"
}  // namespace onig_detail

constexpr uint8_t kOnigL = 1, kOnigM = 2, kOnigN = 4, kOnigP = 8, kOnigS = 16, kOnigSpace = 32, kOnigCjk = 64;
constexpr uint8_t kOnigSegment = kOnigN | kOnigCjk;  // the bits that tell the segment

// Oniguruma's class bits of the character at p (p < end); its byte length goes to *len.
TF_ALWAYS_INLINE uint8_t onig_bits_at(const uint8_t* p, const uint8_t* end, int* len) {
  using namespace onig_detail;
  if (*p < 0x80) {  // block 0 is stage 2's first
    *len = 1;
    return kOnigStage2[*p];
  }
  uint32_t cp = decode_utf8(p, end, len);
  if (cp >= 0x110000) return 0;
  return kOnigStage2[(static_cast<uint32_t>(kOnigStage1[cp >> kOnigBlockShift]) << kOnigBlockShift) |
                     (cp & ((1u << kOnigBlockShift) - 1))];
}

namespace dsv3 {

inline bool ascii_alpha(uint8_t b) { return static_cast<uint8_t>((b | 0x20) - 'a') < 26; }
// A1's first character: exactly the 32 ASCII punctuation and symbol characters.
inline bool ascii_punct(uint8_t b) {
  return (b >= 0x21 && b <= 0x2F) || (b >= 0x3A && b <= 0x40) || (b >= 0x5B && b <= 0x60) || (b >= 0x7B && b <= 0x7E);
}
inline bool newline(uint8_t b) { return b == '\r' || b == '\n'; }

// The end of the run from p of characters with a bit of `want`, within segment `seg`.
TF_ALWAYS_INLINE const uint8_t* run(const uint8_t* p, const uint8_t* end, uint8_t want, uint8_t seg) {
  while (p < end) {
    if (seg == 0 && want & kOnigL && ascii_alpha(*p)) {  // ASCII letters: no table
      ++p;
      continue;
    }
    int len;
    uint8_t b = onig_bits_at(p, end, &len);
    if (!(b & want) || (b & kOnigSegment) != seg) break;
    p += len;
  }
  return p;
}

// Whether the character at q (not p's first) is in segment `seg` with a bit of `want`.
TF_ALWAYS_INLINE bool next_is(const uint8_t* q, const uint8_t* end, uint8_t want, uint8_t seg, int* len) {
  if (q >= end) return false;
  uint8_t b = onig_bits_at(q, end, len);
  return (b & want) && (b & kOnigSegment) == seg;
}

// Split 3 at p (whose bits are b0, length len0), within segment `seg`: the end of the match,
// or nullptr when no alternative matches there.
inline const uint8_t* match_at(const uint8_t* p, const uint8_t* end, uint8_t b0, int len0, uint8_t seg) {
  int len1;
  // A1: ASCII punctuation then ASCII letters (both in segment 0).
  if (ascii_punct(*p) && p + 1 < end && ascii_alpha(p[1])) {
    const uint8_t* q = p + 2;
    while (q < end && ascii_alpha(*q)) ++q;
    return q;
  }
  // A2: an optional leading character that is no L, P, S, CR or LF, then L|M+ (the
  // leading character is tried first; without it p itself must be L or M).
  const uint8_t* after0 = p + len0;
  if (!(b0 & (kOnigL | kOnigP | kOnigS)) && !newline(*p) && next_is(after0, end, kOnigL | kOnigM, seg, &len1)) {
    return run(after0 + len1, end, kOnigL | kOnigM, seg);
  }
  if (b0 & (kOnigL | kOnigM)) return run(after0, end, kOnigL | kOnigM, seg);
  // A3: an optional space, P|S+, then CR/LF* (CR and LF are of segment 0).
  const uint8_t* q = nullptr;
  if (b0 & (kOnigP | kOnigS)) {
    q = after0;
  } else if (*p == ' ' && next_is(after0, end, kOnigP | kOnigS, seg, &len1)) {
    q = after0 + len1;
  }
  if (q != nullptr) {
    q = run(q, end, kOnigP | kOnigS, seg);
    if (seg == 0) {
      while (q < end && newline(*q)) ++q;
    }
    return q;
  }
  if (!(b0 & kOnigSpace)) return nullptr;
  // A4-A6 on the run of \s from p.
  const uint8_t* after_newline = nullptr;
  const uint8_t* last_start = p;
  int count = 0;
  q = p;
  while (q < end) {
    int len;
    uint8_t b = onig_bits_at(q, end, &len);
    if (!(b & kOnigSpace) || (b & kOnigSegment) != seg) break;
    if (newline(*q)) after_newline = q + 1;
    last_start = q;
    ++count;
    q += len;
  }
  if (after_newline != nullptr) return after_newline;  // A4 ends at the run's last CR/LF
  int len;
  if (q == end || (onig_bits_at(q, end, &len) & kOnigSegment) != seg) return q;  // A5 at the subject's end
  return count >= 2 ? last_start : q;  // A5 gives back one character; else A6
}

// Whether split 3 matches at q (in segment `seg`, bits b): every L, M, P, S or \s character
// starts a match; another one does when an L or M of the segment follows (A2's lead).
TF_ALWAYS_INLINE bool starts_match(const uint8_t* q, const uint8_t* end, uint8_t b, int len, uint8_t seg) {
  if (b & (kOnigL | kOnigM | kOnigP | kOnigS | kOnigSpace)) return true;
  int len1;
  return next_is(q + len, end, kOnigL | kOnigM, seg, &len1);
}

}  // namespace dsv3

// The end of the piece that starts at p (p < end).
inline const uint8_t* next_piece_deepseek_v3(const uint8_t* p, const uint8_t* end) {
  int len0;
  uint8_t b0 = onig_bits_at(p, end, &len0);
  const uint8_t* q = p + len0;
  if (b0 & kOnigN) {  // split 1: at most three numbers, a piece the later splits keep whole
    for (int i = 1; i < 3 && q < end; ++i) {
      int len;
      if (!(onig_bits_at(q, end, &len) & kOnigN)) break;
      q += len;
    }
    return q;
  }
  const uint8_t seg = b0 & kOnigSegment;
  if (const uint8_t* m = dsv3::match_at(p, end, b0, len0, seg)) return m;
  while (q < end) {  // a gap: up to the segment's end or the next match
    int len;
    uint8_t b = onig_bits_at(q, end, &len);
    if ((b & kOnigSegment) != seg || dsv3::starts_match(q, end, b, len, seg)) break;
    q += len;
  }
  return q;
}

}  // namespace tf::scan

namespace tf {
using scan::next_piece_deepseek_v3;
}  // namespace tf
