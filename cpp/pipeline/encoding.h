// Encoding: the whole tiktoken-style pipeline for one vocabulary.
//
//   text --special tokens--> segments --split scanner--> pieces --ByteLevelBpe--> ids
//
// Allowed special tokens cut the text into ordinary segments; each segment is split on
// its own (so `$` in a pattern matches at a segment's end, as in tiktoken) and every piece
// is merged.  With a CutClass (set_cut: a tokenizer.json's Digits or Punctuation step ahead
// of its regex) each segment is first cut into that class's stretches, each split on its
// own.  Decoding concatenates token bytes.  Thread-safe: all methods are const.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/special_matcher.h"
#include "pretokenize/cut_class.h"
#include "models/byte_level/byte_level_bpe.h"
#include "pretokenize/scanner.h"
#include "common/id_buffer.h"

namespace tf {

class Encoding {
 public:
  // `pattern` < 0 means the split is done by the caller (encode_pieces only).  Special
  // strings may share an id: each encodes to it, and it decodes to the first of them.
  bool build(std::vector<std::pair<std::string, uint32_t>> ranks,
             std::vector<std::pair<std::string, uint32_t>> specials, int pattern, std::string* error);

  bool has_scanner() const { return has_scanner_; }

  // Cuts every segment into the stretches of `cut` before the scanner splits them; set
  // once, before the first encode (the methods below read it unlocked).
  void set_cut(std::shared_ptr<const CutClass> cut) { cut_ = std::move(cut); }

  // Each returns false and sets *error on a byte the vocabulary cannot encode.
  bool encode_ordinary(std::string_view text, std::vector<uint32_t>* out, std::string* error) const;
  bool encode(std::string_view text, const SpecialMatcher& allowed, std::vector<uint32_t>* out,
              std::string* error) const;
  // encode() appending to a malloc'd buffer (for numpy), with a peak memory near the result's size.
  bool encode_to_buffer(std::string_view text, const SpecialMatcher& allowed, IdBuffer* out, std::string* error) const;
  // For text that arrives in chunks: encodes a prefix of `text` whose ids cannot change
  // whatever text follows, appends them and sets *consumed to its length (maybe 0).  It
  // cuts at the last piece boundary between two non-space characters, or end of a special
  // token, at least kStreamMargin bytes (and the longest allowed special's length) before
  // the end; the caller keeps the rest, appends the next chunk and calls again, and ends
  // with encode_to_buffer.  O(text): the rest is encoded and dropped.
  bool encode_prefix(std::string_view text, const SpecialMatcher& allowed, IdBuffer* out, size_t* consumed,
                     std::string* error) const;
  static constexpr size_t kStreamMargin = 256;
  bool count(std::string_view text, const SpecialMatcher& allowed, size_t* n, std::string* error) const;
  bool encode_pieces(const std::vector<std::string_view>& pieces, std::vector<uint32_t>* out,
                     std::string* error) const;
  bool encode_single_piece(std::string_view piece, std::vector<uint32_t>* out, std::string* error) const;

  // Appends the bytes of `ids`; returns the index of the first unknown id, or -1.
  long decode(const uint32_t* ids, size_t n, std::string* out) const;
  // Token bytes of a normal or special id; false if unknown.
  bool token_bytes(uint32_t id, std::string_view* bytes) const;

  const byte_level::ByteLevelBpe& model() const { return model_; }
  const SpecialMatcher& all_specials() const { return all_specials_; }
  uint32_t max_token_value() const;

 private:
  template <typename Sink>
  bool encode_segment(const uint8_t* p, const uint8_t* end, Sink& sink, std::string* error) const;
  template <typename Sink>
  bool encode_stretches(const uint8_t* p, const uint8_t* end, Sink& sink, std::string* error) const;
  template <typename Sink>
  bool encode_one_piece(const uint8_t* p, size_t n, Sink& sink, std::string* error) const;
  template <typename Sink>
  bool encode_with_specials(std::string_view text, const SpecialMatcher& allowed, Sink& sink,
                            std::string* error) const;

  byte_level::ByteLevelBpe model_;
  bool has_scanner_ = false;  // false: the caller splits (encode_pieces only)
  SplitPattern pattern_ = SplitPattern::kGpt2;
  std::shared_ptr<const CutClass> cut_;  // null: segments go to the scanner whole
  byte_level::TokenTable specials_;
  SpecialMatcher all_specials_;
};

}  // namespace tf
