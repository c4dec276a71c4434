// BertEncoder: a BERT tokenizer.json pipeline in one pass — added tokens, BertNormalizer,
// BertPreTokenizer (or Whitespace), WordPiece (or a BPE of words: word_model.h) — giving ids, character offsets and word ids
// as `tokenizers`.
//
// Added tokens (none normalized, no lstrip/rstrip/single_word: the caller checks) are found
// leftmost-longest in the raw text (pipeline/special_matcher.h); each stretch between them
// is normalized one character at a time through the BertCharTable (each output character
// remembers its source character), cut at whitespace and around punctuation, and each word
// goes through WordPiece.  A token's offsets are the first and last source characters of its
// normalized characters; added tokens and words are numbered in order (word ids).
// A text holding a character whose alignment NFD's reordering could change (kReorder,
// bert_chars.h) sets `fallback` and the caller runs the readable pipeline.
// Character offsets, word ids and a word's byte spans are 32-bit: a text, a word count or a
// normalized word past common/offset_limit.h's limit sets `error` (the binding raises it),
// never wraps.
// Post-processing (the [CLS]/[SEP] template), truncation and padding stay with the caller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/wordpiece/word_model.h"
#include "normalize/bert_chars.h"
#include "pipeline/special_matcher.h"
#include "pretokenize/whitespace_classes.h"

namespace tf::wordpiece {

struct BertResult {
  std::vector<int32_t> ids;
  std::vector<uint32_t> starts;  // characters of the text
  std::vector<uint32_t> ends;
  std::vector<uint32_t> words;
  bool fallback = false;
  std::string error;  // set (and the arrays empty) for a text too long for 32-bit offsets
  void clear() {
    ids.clear();
    starts.clear();
    ends.clear();
    words.clear();
    fallback = false;
    error.clear();
  }
};

class BertEncoder {
 public:
  // With `whitespace`, the pre-tokenizer is Whitespace (each run of word characters and each
  // run of other non-space characters a word) instead of BertPreTokenizer.
  BertEncoder(std::shared_ptr<const WordModel> model, std::shared_ptr<const BertCharTable> table,
              std::vector<std::pair<std::string, uint32_t>> added,
              std::shared_ptr<const WhitespaceClasses> whitespace = nullptr);

  // Encodes UTF-8 `text` into `out` (cleared first).  Thread-safe.
  void encode(std::string_view text, BertResult& out) const;

 private:
  struct Scratch;
  // One stretch between added tokens; false when it needs the readable pipeline, or (with
  // out.error set) when it is too long.
  bool stretch(const uint8_t* p, size_t n, uint32_t char_base, uint32_t* word, BertResult& out, Scratch& s) const;
  // False (and out.error set) for a word too long for 32-bit byte spans.
  bool word_pieces(size_t a, size_t b, uint32_t word, BertResult& out, Scratch& s) const;

  std::shared_ptr<const WordModel> model_;
  std::shared_ptr<const BertCharTable> table_;
  SpecialMatcher added_;
  std::shared_ptr<const WhitespaceClasses> whitespace_;  // or none (BertPreTokenizer)
};

}  // namespace tf::wordpiece
