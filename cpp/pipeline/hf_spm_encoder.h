// SpmStyleEncoder: the whole encode pipeline of a SentencePiece-style `tokenizer.json`
// (Mistral, Gemma, files made by Tokenizer.from_sentencepiece) in one pass, with offsets.
//
//   added tokens (matched in the raw text, leftmost-longest, no lstrip/rstrip/single_word)
//   -> per stretch between them: Prepend("▁") and/or Replace(" " -> "▁") normalizers,
//      optionally Metaspace (spaces -> ▁, ▁ prepended unless present, split before each ▁)
//   -> MergeRankBpe
//
// Each normalized byte keeps the index of the original character it came from (a prepended
// ▁ that of the stretch's first character), so a token's offsets are the characters of its
// first and last bytes, as `tokenizers` reports them.  Word ids number the pieces: each
// added token, each stretch (or, with Metaspace's split, each ▁-led piece of it).
// O(text) plus the model's merging.  What the pipeline leaves to Python: which files match
// (tokenforge/tokenizer/native_spm.py), post-processing, truncation and padding.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/hf/merge_rank_bpe.h"
#include "pipeline/special_matcher.h"

namespace tf::hf {

struct SpaceMarking {
  bool prepend = false;         // the Prepend("▁") normalizer: ▁ before every non-empty stretch
  bool replace_spaces = false;  // U+0020 -> ▁ (the Replace normalizer or Metaspace)
  int metaspace_prepend = 0;    // Metaspace: 0 never, 1 always, 2 only on a stretch at character 0
  bool split = false;           // Metaspace's split: a piece (word) starts at each ▁
};

// The tokens of one text: ids, character offsets into the text, word index.
struct HfEncoded {
  std::vector<uint32_t> ids, starts, ends, words;
  void clear() {
    ids.clear();
    starts.clear();
    ends.clear();
    words.clear();
  }
};

class SpmStyleEncoder {
 public:
  SpmStyleEncoder(MergeRankBpe model, SpaceMarking marking, std::vector<std::pair<std::string, uint32_t>> added)
      : model_(std::move(model)), marking_(marking), added_(std::move(added)) {}

  // Appends the tokens of `text` (valid UTF-8) to *out.  With ids_only, only out->ids.
  void encode(std::string_view text, HfEncoded* out, bool ids_only) const;

 private:
  struct Scratch;
  // One stretch between added tokens: bytes [text, text + n) starting at character `first`.
  void encode_stretch(const uint8_t* text, size_t n, uint32_t first, uint32_t* word, HfEncoded* out,
                      bool ids_only, Scratch& scratch) const;

  MergeRankBpe model_;
  SpaceMarking marking_;
  SpecialMatcher added_;
};

}  // namespace tf::hf
