// MergeRankBpe: the BPE model of HF `tokenizer.json` files (Sennrich et al. 2016, as
// `tokenizers`' models/bpe applies it) over code points, for SentencePiece-style files
// (Mistral, Gemma, converted `.model`s): no continuing-subword prefix, no end-of-word suffix.
//
// A word starts as one symbol per character: the character's own token, or with
// byte_fallback its `<0xXX>` byte tokens, or the unknown token (consecutive ones fused with
// fuse_unk).  Then the adjacent pair of lowest merge rank, leftmost on ties, is merged until
// no pair has a merge.  This is not sentencepiece's rule (the pair whose merged piece scores
// highest): two merges making the same token have distinct ranks here.
//
// No merge can join two characters x, y unless some merge's left token ends with x's last
// symbol character and its right token starts with y's first one, so the text is cut at
// every other boundary (before most ▁) and the pieces between cuts ("words") are merged
// separately, through a per-thread cache of recent words; the result is the same.  Short
// words find their lowest pair by a scan over cached pair ranks, O(n^2) in the worst case;
// long ones use a heap, O(n log n).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/u64_map.h"
#include "models/hf/packed_merge_table.h"

namespace tf::hf {

// One output token: its id and the bytes [begin, end) of the normalized text it covers.
struct HfToken {
  uint32_t id;
  uint32_t begin;
  uint32_t end;
};

class MergeRankBpe {
 public:
  struct Merge {
    uint32_t left, right, merged;  // token ids
  };
  // tokens: id -> token text ("" for an id no token has); merges in rank order;
  // unk_id: the unknown token's id or -1.  Fails (false, *error) unless every character
  // becomes symbols: byte_fallback with the byte tokens any character may need, or an
  // unknown token.
  bool build(const std::vector<std::string>& tokens, const std::vector<Merge>& merges, int64_t unk_id,
             bool fuse_unk, bool byte_fallback, std::string* error);

  struct Symbol {
    uint32_t id;
    uint32_t len;  // bytes
  };
  // A character of the text in encode(): its byte offset, the first and last characters of
  // the text of its first and last symbols, whether it is the unknown token.
  struct CharAt {
    uint32_t at;
    uint32_t first, last;
    bool unk;
  };
  // What encode() reuses from call to call; one per thread (see scratch()).
  struct Scratch {
    std::vector<Symbol> syms;
    std::vector<uint32_t> packed;
    std::vector<uint32_t> cuts;  // word starts of the text in encode(), then its end
    std::vector<CharAt> chars;   // the characters of the text in encode()
    void* cache = nullptr;  // the thread's PieceCache of this model
  };
  // The calling thread's Scratch, set up for this model; valid until another model's
  // scratch() on this thread (call it once per text).
  Scratch& scratch() const;

  // Appends the tokens of `text` (valid UTF-8), offsets relative to its start plus `base`.
  void encode(std::string_view text, uint32_t base, std::vector<HfToken>* out, Scratch& scratch) const;

 private:
  // How one character enters a word: `id` is its token, or kBytes (its byte tokens) or
  // the unknown token; `first`/`last` are the first and last characters of the text of its
  // first and last symbols (what a merge across a boundary would have to join).
  struct CharInfo {
    uint32_t id;
    uint32_t first, last;
  };
  static constexpr uint32_t kBytes = 0xFFFFFFFFu;
  static constexpr uint32_t kUnk = 0xFFFFFFFEu;

  CharInfo char_info(uint32_t cp) const;
  // char_info of the character at p (p < end); sets *len to its byte length.
  CharInfo char_at(const uint8_t* p, const uint8_t* end, int* len) const;
  bool joinable(uint32_t last, uint32_t first) const;
  void initial_symbols(std::string_view word, std::vector<Symbol>* syms) const;
  void merge_short(std::vector<Symbol>* syms) const;
  void merge_long(std::vector<Symbol>* syms) const;
  // h: hash_bytes of the word.
  void encode_word(std::string_view word, uint64_t h, uint32_t base, std::vector<HfToken>* out,
                   Scratch& scratch) const;
  // The rank of the merge of (left, right), or kNoRank.
  uint32_t rank_of(uint32_t left, uint32_t right) const {
    if (packed_) return ranks_.rank(left, right);
    const uint32_t* v = wide_ranks_.find(pack_pair(left, right));
    return v ? *v : kNoRank;
  }
  static constexpr uint32_t kNoRank = PackedMergeTable::kNoRank;

  PackedMergeTable ranks_;                // (left, right) -> rank
  U64Map<uint32_t> wide_ranks_;           // the same when ids and ranks do not fit one word
  bool packed_ = true;
  std::vector<uint32_t> merged_;          // rank -> merged token
  std::vector<uint32_t> bmp_id_;          // BMP code point -> its token, or kNone
  U64Map<uint32_t> astral_id_;            // other code points -> token
  // (last char, first char) across some merge, as a bit filter: a set bit may be a
  // collision (the boundary is then kept inside a word, which changes no result), a clear
  // bit is never a joinable pair.  Sized at 32 bits per pair, so it stays in cache.
  std::vector<uint64_t> join_filter_;
  uint64_t join_mask_ = 0;
  static uint64_t join_hash(uint32_t last, uint32_t first) {
    return (pack_pair(last, first) * 0x9E3779B97F4A7C15ULL) >> 20;
  }
  std::vector<uint64_t> small_joinable_;  // the same for two characters of ASCII and ▁, as bits
  CharInfo ascii_info_[128];
  uint32_t byte_id_[256];
  uint32_t unk_id_ = kUnk;
  uint32_t unk_first_ = 0, unk_last_ = 0;
  bool has_unk_ = false;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  uint64_t owner_ = 0;  // identifies this model to the per-thread word cache
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
};

}  // namespace tf::hf
