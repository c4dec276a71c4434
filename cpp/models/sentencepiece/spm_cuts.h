// SpmCutRule: where a long normalized text may be cut so that its parts, segmented alone,
// give the segmentation of the whole (SentencePieceProcessor's encode on several threads).
//
// Both SentencePiece models lay pieces of the vocabulary over the text: BPE merges two
// adjacent symbols only into a piece, and every Unigram lattice edge is a piece or a single
// character.  So at a point where the character before it and the character at it are
// consecutive in no matchable piece (NORMAL, USER_DEFINED, UNUSED), no piece and no merge
// crosses the point, and each side is segmented as it is inside the whole text.  That is
// before most ▁ (word starts), around a newline in the byte-fallback models, and between
// most CJK characters; inside a run of spaces the Llama pieces "▁▁..." forbid it.  What else
// a model needs (BPE: no UNUSED resegmentation; Unigram: its running float total) is the
// model's business.  The reference is tokenforge/sentencepiece/cuts.py.
//
// Characters are stepped as the models step them (spm_char_len of the lead byte) from the
// start of the text, and a pair is kept as the packed bytes of its two characters, so no
// decoding is needed.  The rule is off when a matchable piece is not well-formed UTF-8
// (the stepping of the text and of the piece could then disagree).
// Cost: a hash set of every piece's adjacent pairs; cut_points walks the text once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "models/sentencepiece/spm_vocab.h"

namespace tf::spm {

class SpmCutRule {
 public:
  void build(const SpmVocab& vocab);
  bool usable() const { return usable_; }
  // Up to parts - 1 increasing byte offsets in (0, normalized.size()) where the text may be
  // cut: for each k the first allowed point at or after k * size / parts and before the
  // next such target (none when the stretch has no allowed point).
  // With `utf8` (the text is known to be well-formed UTF-8, where characters start at the
  // bytes that are not 10xxxxxx) the search starts at each target; else the text is
  // stepped from its start, as the models step it.
  std::vector<size_t> cut_points(std::string_view normalized, size_t parts, bool utf8 = false) const;

 private:
  // The characters a (before the point) and b (at it), as packed bytes, are consecutive in
  // some matchable piece.
  bool joined(uint32_t a, uint32_t b) const { return pairs_.count((static_cast<uint64_t>(a) << 32) | b) != 0; }

  std::unordered_set<uint64_t> pairs_;
  bool usable_ = false;
};

}  // namespace tf::spm
