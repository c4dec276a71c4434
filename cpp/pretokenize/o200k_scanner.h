// The o200k_base split pattern:
//   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//  |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//  |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Call U = [Lu Lt Lm Lo M] ("upper") and W = [Ll Lm Lo M] ("lower").  The regex engine tries
// each word alternative first with the optional leading character and then without it;
// this matters because a mark is both a possible leading character and a member of U and W.
// For `U*W+`, backtracking out of a maximal U-run ends the match after the run's last
// character that is also in W.
//
// Mistral's Tekken pattern (its tokenizer.json's Split) is the same without the contraction
// suffixes and with one digit a piece (`\p{N}` for `\p{N}{1,3}`): the same code, templated
// on those two (kContractions, kDigits); next_piece_tekken.
#pragma once

#include "pretokenize/scan_util.h"

namespace tf::scan {


namespace detail {

constexpr ClassSet kUpper = bit(kLu) | bit(kLt) | bit(kLm) | bit(kLo) | bit(kMark);
constexpr ClassSet kLower = bit(kLl) | bit(kLm) | bit(kLo) | bit(kMark);

template <bool kContractions>
inline const uint8_t* with_contraction(const uint8_t* q, const uint8_t* end) {
  if constexpr (!kContractions) return q;
  const uint8_t* c = contraction(q, end);
  return c != nullptr ? c : q;
}

// W+ and a contraction, going on from q inside a run of W (out of line: see letters_from).
template <bool kContractions>
__attribute__((noinline)) inline const uint8_t* lower_run_from(const uint8_t* q, const uint8_t* end) {
  return with_contraction<kContractions>(run(q, end, kLower), end);
}

// `U*W+` from q, or nullptr.  After run3 the character where it stopped is classified
// directly (it is no letter or mark of the bitmap: offering it to run3 again would test
// it for nothing), which spares a test per run in every script (figures:
// benchmarks/README.md).
template <bool kContractions>
inline const uint8_t* upper_star_lower_plus(const uint8_t* q, const uint8_t* end) {
  const uint8_t* after_last_lower = nullptr;
  while (q < end) {
    if (*q >= 0xE0) {  // a run of three-byte characters of U and W (Lm, Lo, M)
      const uint8_t* r = run3(q, end, unicode_detail::kLettersMarks3);
      if (r != q) {
        q = after_last_lower = r;
        if (q == end) break;
      }
    }
    int len;
    CharClass c = class_at(q, end, &len);
    if (!in(kUpper, c)) {
      if (in(kLower, c)) return with_contraction<kContractions>(run(q + len, end, kLower), end);
      break;
    }
    q += len;
    if (in(kLower, c)) after_last_lower = q;
  }
  return after_last_lower != nullptr ? with_contraction<kContractions>(after_last_lower, end) : nullptr;
}

// `U+W*` from q, or nullptr.
template <bool kContractions>
inline const uint8_t* upper_plus_lower_star(const uint8_t* q, const uint8_t* end) {
  const uint8_t* u = run(q, end, kUpper);
  if (u == q) return nullptr;
  return with_contraction<kContractions>(run(u, end, kLower), end);
}

}  // namespace detail

// Fast path for a word `lead? [A-Z]* [a-z]* contraction?` with at least one ASCII letter,
// ended by an ASCII byte or the end of the text, or going on through non-ASCII letters of
// W after a lower-case one; nullptr otherwise.  For ASCII letters the
// upper and lower classes are disjoint, so neither word alternative needs backtracking and
// both end where these runs end.
template <bool kContractions>
TF_ALWAYS_INLINE const uint8_t* ascii_word_o200k(const uint8_t* p, const uint8_t* end) {
  const uint8_t* s = p;
  if (!ascii_is(*s, kAsciiLetter)) {
    if (!ascii_is(*s, kAsciiLead) || end - s < 2 || !ascii_is(s[1], kAsciiLetter)) return nullptr;
    ++s;
  }
  while (s < end && ascii_is(*s, kAsciiUpper)) ++s;
  const uint8_t* q = ascii_run_to(s, end, detail::kLower, kAsciiLower);
  if (q < end && *q >= 0x80) {
    // After at least one lower-case letter, W+ goes on through the non-ASCII ones
    // ("décision"): U* ended at an ASCII letter that is not in U, so nothing backtracks.
    return q == s ? nullptr : detail::lower_run_from<kContractions>(q, end);
  }
  return detail::with_contraction<kContractions>(q, end);
}

template <bool kContractions, int kDigits>
__attribute__((noinline)) inline const uint8_t* next_piece_o200k_general(const uint8_t* p, const uint8_t* end) {
  int len0;
  CharClass c0 = class_at(p, end, &len0);
  bool may_lead = !is_letter(c0) && c0 != kNumber && !is_newline(*p);
  const uint8_t* after_lead = p + len0;
  // The word alternatives need a character of U or W at p, or after a leading character;
  // checking that first spares punctuation, spaces and digits four failed attempts.
  constexpr ClassSet kWordClasses = detail::kUpper | detail::kLower;
  bool word = in(kWordClasses, c0);
  if (!word && may_lead && after_lead < end) {
    int len1;
    word = in(kWordClasses, class_at(after_lead, end, &len1));
  }
  const uint8_t* m;
  if (word) {
    if (may_lead && (m = detail::upper_star_lower_plus<kContractions>(after_lead, end))) return m;
    if ((m = detail::upper_star_lower_plus<kContractions>(p, end))) return m;
    if (may_lead && (m = detail::upper_plus_lower_star<kContractions>(after_lead, end))) return m;
    if ((m = detail::upper_plus_lower_star<kContractions>(p, end))) return m;
  }
  if (c0 == kNumber) return run_max(p, end, kNumbers, kDigits);
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  if (const uint8_t* q = punctuation_run(p, end, c0, true)) return q;
  SpaceRun r = space_run(p, end);
  if (r.after_last_newline != nullptr) return r.after_last_newline;  // \s*[\r\n]+
  if (r.end == end) return end;                                      // \s+(?!\S)
  if (r.count >= 2) return r.last_start;
  return r.end;                                                      // \s+
}

// The ASCII word fast path inlined into the encoder's loop, the rest out of line.
TF_ALWAYS_INLINE const uint8_t* next_piece_o200k(const uint8_t* p, const uint8_t* end) {
  if (const uint8_t* q = ascii_word_o200k<true>(p, end)) return q;
  return next_piece_o200k_general<true, 3>(p, end);
}

TF_ALWAYS_INLINE const uint8_t* next_piece_tekken(const uint8_t* p, const uint8_t* end) {
  if (const uint8_t* q = ascii_word_o200k<false>(p, end)) return q;
  return next_piece_o200k_general<false, 1>(p, end);
}

}  // namespace tf::scan

namespace tf {
using scan::next_piece_o200k;
using scan::next_piece_tekken;
}  // namespace tf
