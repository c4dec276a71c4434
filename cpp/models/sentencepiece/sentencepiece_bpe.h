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

#include <algorithm>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "common/piece_cache.h"
#include "models/sentencepiece/spm_vocab.h"
#include "normalize/spm_normalizer.h"
#include "common/byte_hash.h"
#include "common/inline.h"

namespace tf::spm {



// One output token: an id and the bytes [begin, end) of the normalized text it covers.
struct SpmToken {
  int32_t id;
  uint32_t begin;
  uint32_t end;
};

// Appends a token field by field: a braced temporary is built on the stack and copied
// with a wider load, which stalls on store forwarding.
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
  // (These three are inline, below: called per character, out of line each was a call
  // through the PLT, a quarter of the word-cutting loop.)
  int32_t char_symbol(const uint8_t* s, size_t len) const;
  // char_symbol of the character at s[0, avail) (avail > 0); sets *len to its length.
  int32_t symbol_at(const uint8_t* s, size_t avail, size_t* len) const;
  const PairValue* find_pair(int32_t left, int32_t right) const;
  // Whether the characters with symbols a and b occur consecutively in some piece
  // (pairs of two ASCII characters are looked up in ascii_bigrams_ instead).
  bool joinable(int32_t a, int32_t b) const;
  void encode_word(std::string_view text, uint32_t base, std::vector<SpmToken>* out, double dropout,
                   std::mt19937_64* rng) const;
  void encode_cached(std::string_view word, uint32_t base, std::vector<SpmToken>* out, PieceCache* cache) const;

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
  uint64_t user_first_bytes_[4];             // bit b: some USER_DEFINED piece starts with byte b
  uint64_t ascii_bigrams_[128 * 128 / 64];  // bit a * 128 + b: "ab" occurs in a piece
  std::vector<uint64_t> bigram_slots_;      // other pairs, as (symbol << 32 | symbol), open addressing
  std::vector<uint64_t> bigram_filter_;     // 2^18-bit filter in front of bigram_slots_
  std::vector<uint64_t> bigram_left_;       // bit s: symbol s is the left character of some pair in bigram_slots_
  std::vector<uint64_t> bigram_right_;      // bit s: ... the right character
  uint64_t bigram_mask_ = 0;
  uint64_t serial_ = 0;
  uint32_t rank_count_ = 0;  // identifies this model to the per-thread word cache
};

namespace spm_bpe_detail {

constexpr uint64_t kEmpty = ~0ull;

inline uint32_t pack_char(const uint8_t* s, size_t len) {
  uint32_t v = s[0];
  if (len > 1) v |= static_cast<uint32_t>(s[1]) << 8;
  if (len > 2) v |= static_cast<uint32_t>(s[2]) << 16;
  if (len > 3) v |= static_cast<uint32_t>(s[3]) << 24;
  return v;
}

// The code point of s[0, len) if it is one well-formed 2- or 3-byte UTF-8 character, else 0.
inline uint32_t bmp_code_point(const uint8_t* s, size_t len) {
  if (len == 2) return (s[0] >= 0xC2 && (s[1] & 0xC0) == 0x80) ? ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu) : 0;
  return len == 3 ? utf8_three_byte(s, 3) : 0;
}

inline uint64_t symbol_pair_key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

}  // namespace spm_bpe_detail

TF_ALWAYS_INLINE int32_t SentencePieceBpe::char_symbol(const uint8_t* s, size_t len) const {
  using namespace spm_bpe_detail;
  if (len == 1 && s[0] < 128) return ascii_symbol_[s[0]];
  // A well-formed BMP character: one direct load, no hashing or probing.
  if (const uint32_t cp = bmp_code_point(s, len)) return bmp_symbol_[cp];
  const uint32_t key = pack_char(s, len);
  for (uint64_t h = mix64(key) & char_mask_;; h = (h + 1) & char_mask_) {
    const CharSlot& slot = char_slots_[h];
    if (slot.key == key) return slot.symbol;
    if (slot.key == 0) return -1;
  }
}

TF_ALWAYS_INLINE int32_t SentencePieceBpe::symbol_at(const uint8_t* s, size_t avail, size_t* len) const {
  if (s[0] < 0x80) {
    *len = 1;
    return ascii_symbol_[s[0]];
  }
  const size_t l = std::min(spm_char_len(s[0]), avail);
  *len = l;
  return char_symbol(s, l);
}

TF_ALWAYS_INLINE bool SentencePieceBpe::joinable(int32_t a, int32_t b) const {
  using namespace spm_bpe_detail;
  if (a < 0 || b < 0) return false;  // a character in no piece joins nothing
  if (!((bigram_left_[static_cast<uint32_t>(a) >> 6] >> (a & 63)) & 1)) return false;
  if (!((bigram_right_[static_cast<uint32_t>(b) >> 6] >> (b & 63)) & 1)) return false;
  const uint64_t key = symbol_pair_key(a, b);
  const uint64_t hash = mix64(key);
  const uint32_t bit = static_cast<uint32_t>(hash >> 46);  // 18 bits for the filter
  if (!((bigram_filter_[bit >> 6] >> (bit & 63)) & 1)) return false;
  for (uint64_t h = hash & bigram_mask_;; h = (h + 1) & bigram_mask_) {
    if (bigram_slots_[h] == key) return true;
    if (bigram_slots_[h] == kEmpty) return false;
  }
}

TF_ALWAYS_INLINE const SentencePieceBpe::PairValue* SentencePieceBpe::find_pair(int32_t left, int32_t right) const {
  using namespace spm_bpe_detail;
  const uint64_t key = symbol_pair_key(left, right);
  for (uint64_t h = mix64(key) & pair_mask_;; h = (h + 1) & pair_mask_) {
    const PairValue& e = pairs_[h];
    if (e.key == key) return &e;
    if (e.key == kEmpty) return nullptr;
  }
}

}  // namespace tf::spm
