// SentencePieceBpe: SentencePiece's BPE segmentation (Sennrich et al. 2016, as
// sentencepiece's bpe_model.cc applies it).
//
// The normalized text starts as one symbol per character, or per USER_DEFINED piece
// (longest match; such symbols are frozen).  Then, repeatedly, the adjacent pair whose
// concatenation is the highest-scoring piece is merged, the leftmost on ties, until no
// pair forms a piece.  Merged UNUSED pieces are split back into the two symbols they were
// last formed from.  With BPE-dropout (Provilkov et al. 2020) each merge is skipped with
// probability `dropout`.  Short words scan their pairs (merge_linear); long ones keep
// candidates in per-score buckets (merge_long, sentencepiece_bpe_long.cc), about O(n).
//
// A merge never joins two characters that are consecutive in no piece, so the text is cut
// at every such point (before most ▁, between most CJK characters) and the pieces between
// cuts ("words") are merged separately, through a per-thread cache of recent words.  The
// result is the same; only UNUSED pieces, whose resegmentation looks at the whole text,
// turn the cutting off.
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

// Appends a token field by field: a braced temporary is built on the stack and copied
// with a wider load, which stalls on store forwarding (it was 40% of some encode loops).
inline void push_token(std::vector<SpmToken>* out, int32_t id, uint32_t begin, uint32_t end) {
  out->emplace_back();
  SpmToken& t = out->back();
  t.id = id;
  t.begin = begin;
  t.end = end;
}

class SentencePieceBpe {
 public:
  // `vocab` must outlive this object.
  bool build(const SpmVocab* vocab, std::string* error);

  // Appends the segmentation of `normalized` (offsets relative to its start plus `base`).
  // `rng` is only used when dropout > 0.  With merge_unknown, consecutive characters in no
  // piece come out as one <unk> token spanning them (enough for ids), not one each.
  void encode(std::string_view normalized, uint32_t base, std::vector<SpmToken>* out, double dropout,
              std::mt19937_64* rng, bool merge_unknown = false) const;

  // Whether encode() may cut the text into words (see the class comment).
  bool splits_words() const { return splits_words_; }

 private:
  struct PairValue {
    uint64_t key;  // (left symbol << 32) | right symbol, ~0 for an empty slot
    int32_t merged;
    float score;
    uint32_t rank;  // position of `score` among the distinct scores, best first
  };
  struct Symbol {
    int32_t sym;  // symbol id (see char_symbol), -1 if it cannot merge
    int32_t prev, next;
    uint32_t begin, len;
    bool frozen;
  };
  static constexpr size_t kLinearMax = 24;
  static constexpr int kMaxResegmentDepth = 100;
  void merge_linear(Symbol* symbols, size_t count, double dropout, std::mt19937_64* rng) const;
  // Merging for long words (sentencepiece_bpe_long.cc); records UNUSED merges in last_split.
  void merge_long(std::vector<Symbol>& symbols, double dropout, std::mt19937_64* rng,
                  std::unordered_map<int32_t, std::pair<int32_t, int32_t>>* last_split) const;
  // The symbol of one character or piece: its piece id, a number above the vocabulary for a
  // character that only occurs inside pieces, or -1 for text that can never merge.
  int32_t char_symbol(const uint8_t* s, size_t len) const;
  const PairValue* find_pair(int32_t left, int32_t right) const;
  // Whether the characters with symbols a and b occur consecutively in some piece
  // (pairs of two ASCII characters are looked up in ascii_bigrams_ instead).
  bool joinable(int32_t a, int32_t b) const;
  void encode_word(std::string_view text, uint32_t base, std::vector<SpmToken>* out, double dropout,
                   std::mt19937_64* rng) const;

  const SpmVocab* vocab_ = nullptr;
  std::vector<PairValue> pairs_;
  uint64_t pair_mask_ = 0;
  int32_t ascii_symbol_[128];
  std::unordered_map<uint32_t, int32_t> char_symbols_;  // packed UTF-8 bytes -> symbol (while building)
  struct CharSlot {
    uint32_t key;
    int32_t symbol;
  };
  std::vector<CharSlot> char_slots_;  // char_symbols_ as open addressing, for encoding
  std::vector<int32_t> bmp_symbol_;   // BMP code point -> its symbol, or -1 (256 KB, saves a probe per character)
  uint64_t char_mask_ = 0;
  std::vector<uint32_t> symbol_len_;                    // symbol -> byte length
  bool splits_words_ = false;
  uint64_t ascii_bigrams_[128 * 128 / 64];  // bit a * 128 + b: "ab" occurs in a piece
  std::vector<uint64_t> bigram_slots_;      // other pairs, as (symbol << 32 | symbol), open addressing
  std::vector<uint64_t> bigram_filter_;     // 2^18-bit filter in front of bigram_slots_
  uint64_t bigram_mask_ = 0;
  uint64_t serial_ = 0;
  uint32_t rank_count_ = 0;  // identifies this model to the per-thread word cache
};

}  // namespace tf
