// SentencePieceBpe: SentencePiece's BPE segmentation (Sennrich et al. 2016, as
// sentencepiece's bpe_model.cc applies it).
//
// The normalized text starts as one symbol per character, or per USER_DEFINED piece
// (longest match; such symbols are frozen).  Then, repeatedly, the adjacent pair whose
// concatenation is the highest-scoring piece is merged, the leftmost on ties, until no
// pair forms a piece.  Merged UNUSED pieces are split back into the two symbols they were
// last formed from.  With BPE-dropout (Provilkov et al. 2020) each merge is skipped with
// probability `dropout`.  O(n log n) with a binary heap of candidate pairs.
//
// Merges never cross a point where no piece can span, so when every piece is
// "▁*[^▁]*" (a run of ▁ then none) the text is cut before each such run and the words are
// merged separately, through a cache of recent words.  The result is the same.
#pragma once

#include <cstdint>
#include <random>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "models/spm_vocab.h"

namespace tf {

// One output token: an id and the bytes [begin, end) of the normalized text it covers.
struct SpmToken {
  int32_t id;
  uint32_t begin;
  uint32_t end;
};

class SentencePieceBpe {
 public:
  // `vocab` must outlive this object.
  bool build(const SpmVocab* vocab, std::string* error);

  // Appends the segmentation of `normalized` (offsets relative to its start plus `base`).
  // `rng` is only used when dropout > 0.
  void encode(std::string_view normalized, uint32_t base, std::vector<SpmToken>* out, double dropout,
              std::mt19937_64* rng) const;

  // Whether encode() may cut the text into words (see the class comment).
  bool splits_words() const { return splits_words_; }

 private:
  struct PairValue {
    uint64_t key;  // (left symbol << 32) | right symbol, 0 for an empty slot
    int32_t merged;
    float score;
  };
  struct Symbol {
    int32_t sym;  // symbol id (see char_symbol), -1 if it cannot merge
    int32_t prev, next;
    uint32_t begin, len;
    bool frozen;
  };
  static constexpr size_t kLinearMax = 24;
  void merge_linear(Symbol* symbols, size_t count, double dropout, std::mt19937_64* rng) const;
  // The symbol of one character or piece: its piece id, a number above the vocabulary for a
  // character that only occurs inside pieces, or -1 for text that can never merge.
  int32_t char_symbol(const uint8_t* s, size_t len) const;
  const PairValue* find_pair(int32_t left, int32_t right) const;
  void encode_word(std::string_view text, uint32_t base, std::vector<SpmToken>* out, double dropout,
                   std::mt19937_64* rng) const;

  const SpmVocab* vocab_ = nullptr;
  std::vector<PairValue> pairs_;
  uint64_t pair_mask_ = 0;
  int32_t ascii_symbol_[128];
  std::unordered_map<uint32_t, int32_t> char_symbols_;  // packed UTF-8 bytes -> symbol
  std::vector<uint32_t> symbol_len_;                    // symbol -> byte length
  bool splits_words_ = false;
  uint64_t serial_ = 0;  // identifies this model to the per-thread word cache
};

}  // namespace tf
