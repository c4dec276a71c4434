// PieceRules: which strings sentencepiece's trainer may learn as a piece.
//
// A candidate (code points) is rejected when it is empty or longer than max_length; holds
// the unknown-character mark U+2585, NUL, U+001F (the boundary the front end puts where a
// meta piece was cut out), a space, or an invalid code point; has "▁" (U+2581) anywhere
// but at its start (at its end with treat_whitespace_as_suffix; in the middle too when
// not split_by_whitespace), unless it is all "▁" and allow_whitespace_only_pieces; mixes
// Unicode scripts (Hiragana and Katakana count as Han, a combining mark takes the script
// before it, and with split_by_number off a digit goes with anything); or, with
// split_digits, is a digit with anything else.  Scripts come from script_table.inc.
// O(length) per candidate.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tf::spm_train {

constexpr char32_t kSpaceMark = 0x2581;    // "▁": a space in normalized text
constexpr char32_t kUnknownMark = 0x2585;  // a character outside the kept alphabet
constexpr char32_t kBoundaryMark = 0x1F;   // U+001F: a cut no piece may cross

struct PieceRules {
  int max_length = 16;
  bool split_by_unicode_script = true;
  bool split_by_whitespace = true;
  bool split_by_number = true;
  bool split_digits = false;
  bool treat_whitespace_as_suffix = false;
  bool allow_whitespace_only_pieces = false;

  bool valid(const char32_t* chars, size_t n) const;
};

// The Unicode script id of c (script_table.inc's numbering; Common when unlisted).
uint16_t script_of(char32_t c);

}  // namespace tf::spm_train
