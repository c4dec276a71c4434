// The cl100k_base split pattern, in tiktoken's current (possessive) spelling
//   '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
// and in the older spelling Llama 3 uses
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// They differ only on whitespace that runs to the end of the text: `\s++$` takes all of
// it, while the older spelling first cuts after its last newline.  Qwen 2 / 2.5 / 3 use the
// older spelling with `\p{N}` for `\p{N}{1,3}` (one digit a piece).
#pragma once

#include "pretokenize/scan_util.h"

namespace tf::scan {


namespace detail {

template <bool kWholeTrailingSpace, int kMaxDigits>
__attribute__((noinline)) const uint8_t* next_piece_cl100k_general(const uint8_t* p, const uint8_t* end) {
  // Words of other scripts start with a letter of two bytes (Cyrillic, Greek, accented
  // Latin) or three (kana, ideographs, Hangul), or with an ASCII lead (a space) before
  // one: their run of such letters is taken by run2 or run3 without classifying the lead
  // or decoding the first letter.  A contraction starts there only as `'` before U+017F
  // (lead byte 0xC5), left to the general path below.  The two-byte entry and run2's two
  // letters per load spare Russian words two passes through class_at before run2 (figures:
  // benchmarks/README.md).
  const uint8_t b0 = *p;
  if (b0 >= 0xE0) {
    const uint8_t* r = run3(p, end, unicode_detail::kLetters3);
    if (r != p) return run_after_fast(r, end, kLetters);
  } else if (b0 >= 0xC0) {
    const uint8_t* r = run2(p, end, unicode_detail::kLetters2);
    if (r != p) return run_after_fast(r, end, kLetters);
  } else if (ascii_is(b0, kAsciiLead) && end - p >= 2 && p[1] >= 0xC0) {
    const uint8_t* r = p + 1;
    if (p[1] >= 0xE0) {
      r = run3(p + 1, end, unicode_detail::kLetters3);
    } else if (!(b0 == '\'' && p[1] == 0xC5)) {
      r = run2(p + 1, end, unicode_detail::kLetters2);
    }
    if (r != p + 1) return run_after_fast(r, end, kLetters);
  }
  if (const uint8_t* c = contraction(p, end)) return c;
  int len0;
  CharClass c0 = class_at(p, end, &len0);
  if (is_letter(c0)) return run(p, end, kLetters);
  // `[^\r\n\p{L}\p{N}]?\p{L}+`: one non-letter, non-digit, non-newline character may lead a word.
  if (c0 != kNumber && !is_newline(*p) && p + len0 < end) {
    int len1;
    if (is_letter(class_at(p + len0, end, &len1))) return run(p + len0, end, kLetters);
  }
  if (c0 == kNumber) return run_max(p, end, kNumbers, kMaxDigits);
  // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
  if (const uint8_t* q = punctuation_run(p, end, c0, false)) return q;
  // Whitespace.
  SpaceRun r = space_run(p, end);
  if (kWholeTrailingSpace && r.end == end) return end;   // \s++$
  if (r.after_last_newline != nullptr) return r.after_last_newline;  // \s*[\r\n]+
  if (r.end == end) return end;                           // \s+(?!\S) at the end
  if (r.count >= 2) return r.last_start;                  // \s+(?!\S)
  return r.end;                                           // \s
}

// Fast path for the commonest piece, a word that starts with an ASCII letter, with an
// optional ASCII lead (not `'`, which may start a contraction), inlined into the encoder's
// loop: `[^\r\n\p{L}\p{N}]?+\p{L}++` is then the lead and the whole run of letters, so
// where the ASCII letters stop at a non-ASCII byte (an accented letter: "inválido") the
// run goes on from there (`letters_from`) instead of the general path scanning the word
// again.  The general path takes every other piece.
template <bool kWholeTrailingSpace, int kMaxDigits = 3>
TF_ALWAYS_INLINE const uint8_t* next_piece_cl100k_family(const uint8_t* p, const uint8_t* end) {
  const uint8_t b0 = *p;
  const uint8_t* q;
  if (ascii_is(b0, kAsciiLetter)) {
    q = ascii_run_to(p + 1, end, kLetters, kAsciiLetter);
  } else if (b0 != '\'' && ascii_is(b0, kAsciiLead) && end - p >= 2 && ascii_is(p[1], kAsciiLetter)) {
    q = ascii_run_to(p + 2, end, kLetters, kAsciiLetter);
  } else {
    return next_piece_cl100k_general<kWholeTrailingSpace, kMaxDigits>(p, end);
  }
  return q < end && *q >= 0x80 ? letters_from(q, end) : q;
}

}  // namespace detail

inline const uint8_t* next_piece_cl100k(const uint8_t* p, const uint8_t* end) {
  return detail::next_piece_cl100k_family<true>(p, end);
}

inline const uint8_t* next_piece_llama3(const uint8_t* p, const uint8_t* end) {
  return detail::next_piece_cl100k_family<false>(p, end);
}

inline const uint8_t* next_piece_qwen2(const uint8_t* p, const uint8_t* end) {
  return detail::next_piece_cl100k_family<false, 1>(p, end);
}

}  // namespace tf::scan

namespace tf {
using scan::next_piece_cl100k;
using scan::next_piece_llama3;
using scan::next_piece_qwen2;
}  // namespace tf
