// The GPT-2 split pattern (r50k, p50k, Whisper):
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (tiktoken's possessive spelling splits identically.)
#pragma once

#include "pretokenize/scan_util.h"

namespace tf::scan {


inline const uint8_t* next_piece_gpt2(const uint8_t* p, const uint8_t* end) {
  // Contractions are case-sensitive here.
  if (*p == '\'' && end - p >= 2) {
    uint8_t c1 = p[1];
    if (c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd') return p + 2;
    if (end - p >= 3) {
      uint8_t c2 = p[2];
      if ((c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l')) return p + 3;
    }
  }
  int len;
  CharClass c0 = class_at(p, end, &len);
  // ` ?X+` for X in letters, numbers, others: the optional space binds to what follows.
  const uint8_t* q = p;
  CharClass cq = c0;
  if (*p == ' ' && p + 1 < end) {
    int len1;
    CharClass c1 = class_at(p + 1, end, &len1);
    if (c1 != kSpace) {
      q = p + 1;
      cq = c1;
    }
  }
  if (is_letter(cq)) return run(q, end, kLetters);
  if (cq == kNumber) return run(q, end, kNumbers);
  if (in(kOthers, cq)) return run(q, end, kOthers);
  // Whitespace: the whole run at the end of text; otherwise all but its last character,
  // which then prefixes the next piece; a single character stands alone.
  SpaceRun r = space_run(p, end);
  if (r.end == end) return end;
  if (r.count >= 2) return r.last_start;
  return r.end;
}

}  // namespace tf::scan

namespace tf {
using scan::next_piece_gpt2;
}  // namespace tf
