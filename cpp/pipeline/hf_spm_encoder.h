// SpmStyleEncoder: the whole encode pipeline of a SentencePiece-style `tokenizer.json`
// (Mistral, Gemma, ruT5, files made by Tokenizer.from_sentencepiece) in one pass, with
// offsets.
//
//   added tokens (matched in the raw text, leftmost-longest, no lstrip/rstrip/single_word)
//   -> per stretch between them: optionally the Precompiled charsmap (per grapheme),
//      Replace(" {2,}" -> " ") and the removal of a space at either end; Prepend("▁") and/or
//      Replace(" " -> "▁"); optionally
//      Metaspace (spaces -> ▁, ▁ prepended unless present, split before each ▁)
//      (optionally each run without whitespace alone, WhitespaceSplit's words)
//   -> MergeRankBpe or ViterbiUnigram
//
// Each normalized byte keeps the index of the original character it came from (a prepended
// ▁ that of the stretch's first character, a collapsed space run the last space's), so a
// token's offsets are the characters of its first and last bytes, as `tokenizers` reports
// them.  Word ids number the pieces: each added token, each stretch (or, with Metaspace's
// split, each ▁-led piece of it).  O(text) plus the model.
//
// The charsmap is applied grapheme by grapheme, as `tokenizers` does: a grapheme of two or
// more characters under six bytes is looked up whole first (common/unicode/grapheme.h finds
// its end), anything else character by character.  A character or grapheme the charsmap
// deletes is charged to the character written before it; where there is none in the
// stretch, or that one is an insertion, `tokenizers`' alignment is not one a byte's single
// original character can hold, and encode() returns false for the caller's readable
// pipeline.
//
// Positions are 32-bit: a text, a normalized stretch or a word count past
// common/offset_limit.h's limit is refused (false with an error), never wrapped.  What
// stays in Python: which files match (tokenforge/tokenizer/native_spm.py), post-processing,
// truncation, padding.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/hf/merge_rank_bpe.h"
#include "models/hf/viterbi_unigram.h"
#include "normalize/charsmap_memo.h"
#include "normalize/hf_charsmap.h"
#include "pipeline/special_matcher.h"
#include "pretokenize/whitespace_classes.h"

namespace tf::hf {

struct SpaceMarking {
  bool prepend = false;         // the Prepend("▁") normalizer: ▁ before every non-empty stretch
  bool replace_spaces = false;  // U+0020 -> ▁ (the Replace normalizer or Metaspace)
  int metaspace_prepend = 0;    // Metaspace: 0 never, 1 always, 2 only on a stretch at character 0
  bool split = false;           // Metaspace's split: a piece (word) starts at each ▁
  bool collapse_spaces = false;  // Replace(" {2,}" -> " "), after the charsmap
  bool strip_edges = false;      // then one U+0020 dropped at each end (from_sentencepiece's regex)
  // Words cut out before the ▁ steps of Metaspace (with none of the normalizer's ▁ steps,
  // which would run before it): 0 none; 1 WhitespaceSplit (T5's and DeBERTa's files), each
  // run of characters without White_Space a stretch of its own, the whitespace dropped;
  // 2 Whitespace (`\w+|[^\w\s]+`: the encoder's WhitespaceClasses), each run of word
  // characters and each run of others a stretch.
  int split_words = 0;
};

// The tokens of one text: ids, character offsets into the text, word index; and the texts
// of the tokens reported as their own text (a Unigram unknown piece): token index and end
// in `surface`.
struct HfEncoded {
  std::vector<uint32_t> ids, starts, ends, words;
  std::vector<uint32_t> surface_at, surface_end;
  std::string surface;
  void clear() {
    ids.clear();
    starts.clear();
    ends.clear();
    words.clear();
    surface_at.clear();
    surface_end.clear();
    surface.clear();
  }
};

class SpmStyleEncoder {
 public:
  // One of bpe/unigram; charsmap may be null.
  SpmStyleEncoder(std::unique_ptr<MergeRankBpe> bpe, std::unique_ptr<ViterbiUnigram> unigram,
                  std::unique_ptr<CharsmapShortest> charsmap, SpaceMarking marking,
                  std::vector<std::pair<std::string, uint32_t>> added,
                  std::shared_ptr<const WhitespaceClasses> whitespace = nullptr)
      : bpe_(std::move(bpe)),
        unigram_(std::move(unigram)),
        charsmap_(std::move(charsmap)),
        charsmap_memo_(charsmap_ != nullptr),
        marking_(marking),
        added_(std::move(added)),
        whitespace_(std::move(whitespace)) {}

  // Appends the tokens of `text` (valid UTF-8) to *out; with ids_only, only out->ids.
  // Returns false (out partly filled) for text the charsmap step cannot take (above), with
  // *error left empty, or for a text too long for 32-bit offsets, with *error set.
  bool encode(std::string_view text, HfEncoded* out, bool ids_only, std::string* error) const;

 private:
  struct Scratch;
  // The charsmap and space collapsing of one stretch into scratch.pre / pre_of (its size is
  // checked by encode_stretch); false when the readable pipeline must take it (a deletion
  // as the header comment says).
  bool prenormalize(const uint8_t* text, size_t n, uint32_t first, Scratch& scratch) const;
  // One stretch between added tokens: bytes [text, text + n), byte i from character of[i]
  // (of == nullptr: counted from `first`).  False (and *error set) past the limit.
  bool encode_stretch(const uint8_t* text, size_t n, const uint32_t* of, uint32_t first, uint32_t* word,
                      HfEncoded* out, bool ids_only, Scratch& scratch, std::string* error) const;
  // encode_stretch's work on one stretch (a word of it with split_words).
  bool encode_marked(const uint8_t* text, size_t n, const uint32_t* of, uint32_t first, uint32_t* word,
                     HfEncoded* out, bool ids_only, Scratch& scratch, std::string* error) const;
  // The size of encode_stretch's normalized form of n bytes (before Metaspace's ▁).
  size_t marked_size(const uint8_t* text, size_t n) const;

  std::unique_ptr<MergeRankBpe> bpe_;
  std::unique_ptr<ViterbiUnigram> unigram_;
  std::unique_ptr<CharsmapShortest> charsmap_;
  CharsmapMemo charsmap_memo_;
  SpaceMarking marking_;
  SpecialMatcher added_;
  std::shared_ptr<const WhitespaceClasses> whitespace_;  // Whitespace's classes (split_words 2)
};

}  // namespace tf::hf
