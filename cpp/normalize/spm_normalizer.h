// SpmNormalizer: SentencePiece's encode-time normalization.
//
// Text is rewritten left to right, one "prefix" at a time: a USER_DEFINED piece is copied
// untouched; else the longest key of the precompiled charsmap (a Darts-clone trie whose
// values index NUL-terminated replacements) is replaced; else one UTF-8 character is
// copied (a malformed byte becomes U+FFFD).  Around that: leading, trailing and repeated
// spaces are dropped (remove_extra_whitespaces), ' ' becomes U+2581 "▁"
// (escape_whitespaces) and one "▁" is put in front (add_dummy_prefix; at the end with
// treat_whitespace_as_suffix).  O(n * longest charsmap key).
//
// Alongside the output it can record, for each output byte, the input byte offset it came
// from (plus one entry for the end), the alignment SentencePiece reports as begin/end.
//
// Format: precompiled_charsmap = uint32 little-endian trie size T, T bytes of Darts-clone
// units, then the replacement strings (NormalizerSpec in sentencepiece_model.proto).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/piece_trie.h"
#include "common/darts_view.h"
#include "common/ascii_stops.h"

namespace tf::spm {

struct SpmNormalizerOptions {
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
  bool treat_whitespace_as_suffix = false;
};

class SpmNormalizer {
 public:
  // Fails on a malformed charsmap.  An empty charsmap is the identity.
  bool init(std::string_view precompiled_charsmap, const SpmNormalizerOptions& options, std::string* error);
  // USER_DEFINED pieces, matched before the charsmap and left as they are (may be null).
  void set_user_defined(const PieceTrie* user_defined) { user_defined_ = user_defined; }

  // Appends the normalized text to *out (cleared first).  If norm_to_orig is not null it
  // receives out->size() + 1 input offsets.
  void normalize(std::string_view text, std::string* out, std::vector<uint32_t>* norm_to_orig) const;
  // The same without alignment, into a reused buffer: the result is a prefix of *buffer,
  // which is only ever grown (no zero-filling it again for every short text).
  std::string_view normalize_view(std::string_view text, std::string* buffer) const;

  // Input cuts (spm_normalizer_cuts.cc): where the input may be cut so that its parts,
  // normalized by normalize_part, concatenate to normalize() of the whole.  prepare_cuts
  // (after set_user_defined, given the USER_DEFINED pieces) builds the table of byte pairs
  // that occur in a charsmap key or a USER_DEFINED piece.
  void prepare_cuts(const std::vector<std::string_view>& user_defined_pieces);
  // Up to parts - 1 increasing input offsets (see spm_normalizer_cuts.cc for the rule).
  std::vector<size_t> input_cut_points(std::string_view text, size_t parts) const;
  // normalize() of one part of an input cut at input_cut_points: only the first part gets
  // the leading-space handling and the dummy prefix, only the last the trailing ones.
  void normalize_part(std::string_view text, bool first, bool last, std::string* out) const {
    out->resize(normalize_to(text, out, nullptr, first, last));
  }

  // Whether every output is well-formed UTF-8 given well-formed USER_DEFINED pieces
  // (malformed input becomes U+FFFD; only a charsmap replacement could be malformed).
  bool output_is_utf8() const { return output_utf8_; }

  // True when normalization is only space handling (no charsmap, no user pieces).
  bool is_identity() const { return trie_.empty(); }

 private:
  // normalize() into *out from its start; returns the length (out may be longer).
  // (first / last: whether the text starts / ends the whole input, see normalize_part.)
  size_t normalize_to(std::string_view text, std::string* out, std::vector<uint32_t>* norm_to_orig, bool first = true,
                      bool last = true) const;
  // normalize() for a model without rules that keeps spaces, without alignment.
  void normalize_identity(const uint8_t* s, size_t n, std::string* out, bool first, bool last) const;
  // Whether the input may be cut before s[at] (spm_normalizer_cuts.cc).
  bool can_cut_input(const uint8_t* s, size_t n, size_t at) const;
  bool in_key_(uint8_t a, uint8_t b) const { return (key_pairs_[(a << 8 | b) >> 6] >> (b & 63)) & 1; }
  void build_key_pairs() const;
  bool output_utf8_ = true;
  uint64_t charsmap_hash_ = 0;        // hash of the precompiled charsmap (the key of build_key_pairs' cache)
  std::vector<uint64_t> user_pairs_;  // bit a << 8 | b: the bytes a, b are consecutive in a user piece
  // ... or in a charsmap key (built once, on first use, under key_pairs_once_).
  mutable std::vector<uint64_t> key_pairs_;
  std::shared_ptr<std::once_flag> key_pairs_once_ = std::make_shared<std::once_flag>();
  bool ascii_cut_after_[128] = {};    // the character's own output is not empty and holds no space
  // How the charsmap treats a character (ASCII or BMP): kPlain, no key starts with it;
  // kPlainUnlessContinued, no key ends inside it but longer ones start with it (NFKC's
  // base letter + combining mark), so it stays as it is unless the next character is one
  // such a key continues with (bit set in continues_, over all such characters; a
  // continuation that is not a BMP character marks its first byte in continues_byte_);
  // kRule, anything else (looked up in the trie).
  enum CharClass : uint8_t { kPlain = 0, kPlainUnlessContinued = 1, kRule = 2 };
  CharClass classify(const uint8_t* bytes, size_t len);
  CharClass bmp_class(uint32_t cp) const { return static_cast<CharClass>((bmp_class_[cp >> 2] >> ((cp & 3) * 2)) & 3); }
  // The end of the run of plain characters other than ' ' that starts at s[pos] (pos if none).
  size_t plain_run(const uint8_t* s, size_t pos, size_t n) const;
  // The replacement for the longest rule at s[0, n) and how many input bytes it consumes.
  std::pair<std::string_view, size_t> normalize_prefix(const uint8_t* s, size_t n) const;

  SpmNormalizerOptions options_;
  DartsView trie_;
  std::string replacements_;      // NUL-terminated strings, indexed by trie values
  bool first_byte_hit_[256] = {};  // some charsmap key starts with this byte
  uint8_t ascii_class_[128] = {};   // CharClass of each ASCII character
  std::vector<uint64_t> continues_;  // BMP characters a key goes on with after a kPlainUnlessContinued one
  bool continues_byte_[256] = {};    // ... or a first byte it goes on with, when not a BMP character
  // Whether the character at s[0, n) (n >= 1) may continue a key (see CharClass).
  bool may_continue(const uint8_t* s, size_t n) const;
  // may_continue with the ASCII case inline: the hot loops ask it after nearly every letter
  // of NFKC text (a letter may start a key with a combining mark).
  bool may_continue_fast(const uint8_t* s, size_t n) const {
    return s[0] < 0x80 ? ((ascii_continues_[s[0] >> 6] >> (s[0] & 63)) & 1) != 0 : may_continue(s, n);
  }
  uint64_t ascii_continues_[2] = {};  // continues_ of the ASCII characters
  std::vector<uint8_t> bmp_class_;  // CharClass of each BMP code point, 2 bits each
  // What plain_run needs of each 2- and 3-byte character, 2 bits each, indexed by its
  // bytes without decoding ((lead & 0x1F) << 6 | (b1 & 0x3F) for 2 bytes, (lead & 0x0F)
  // << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F) for 3, which is the code point): kPlain or
  // kPlainUnlessContinued when no key continues with it, kRule (also overlongs and
  // surrogates), else kContinues (looked at again).  One load per character and no branch
  // on its kind: Japanese alternates plain ideographs and kana too often to predict.
  static constexpr uint8_t kContinues = 3;
  std::vector<uint8_t> char2_, char3_;
  // 4-byte characters (emoji, rare CJK) by rows of 64 ((lead & 7) << 12 | (b1 & 0x3F) << 6
  // | (b2 & 0x3F), which is cp >> 6): bit set when no key starts with any character of the
  // row, so each is kPlain.  Overlong and too-large rows stay clear.
  std::vector<uint64_t> plain4_rows_;
  uint8_t char_info(const std::vector<uint8_t>& table, uint32_t index) const {
    return (table[index >> 2] >> ((index & 3) * 2)) & 3;
  }
  // ASCII characters a run of plain ones skips over: not ' ', no rule starts with them and
  // no key continues with them (so the one before stays plain).
  AsciiStops ascii_stops_;
  void set_run_tables();
  const PieceTrie* user_defined_ = nullptr;
};

// The code point of the well-formed 3-byte UTF-8 character at s[0, n), or 0 if s does not
// start with one (inline: the hot loops test every character).
inline uint32_t utf8_three_byte(const uint8_t* s, size_t n) {
  if (n < 3 || (s[0] & 0xF0) != 0xE0 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
  const uint32_t cp = ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
  return (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) ? cp : 0;
}

// Length of the well-formed UTF-8 character at s[0, n) (no surrogates, no overlongs,
// <= U+10FFFF), or 0 if malformed.
size_t utf8_char_len(const uint8_t* s, size_t n);

}  // namespace tf::spm
