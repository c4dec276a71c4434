// BacktrackMerge: tiktoken's byte-pair merge of a long piece in about linear time, for a
// "merge-closed" vocabulary (tiktoken's own are): every token's bytes merge back into that
// token, and the last merge of that joins two tokens of lower rank.
//
// In such a vocabulary a token sequence is the BPE encoding of its bytes iff every two
// neighbours are compatible, i.e. merging the bytes of the two gives back the two (see
// compatible()).  So the search below never has two encodings of one prefix: walk left to
// right, at each position try the tokens that start there, longest first (a trie gives the
// longest, `shorter` the next ones), keep the first compatible with the token before; when
// none fits the position is dead (one bit) and the search steps back one token.  Every
// position is entered and left for good at most once: O(n * L) pair checks for the longest
// token length L, each walking the two merge trees' borders (O(L) lookups, a few in
// practice).  The idea of the backtracking encoder of GitHub's rust-gems `bpe` crate; the
// pair check here is derived from the merge order itself (see reference/bpe.py).
//
// Trade-off: built on first use (a trie and two tables, ~10-30 MB and tens of ms for a
// 200k vocabulary), and slower than the quadratic scan on short pieces; vocabularies that
// are not merge-closed (or whose tokens exceed kMaxTokenLen bytes) keep the bucket queue.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "models/piece_trie.h"
#include "models/token_table.h"

namespace tf {

class BacktrackMerge {
 public:
  static constexpr size_t kMaxTokenLen = 1024;

  // False if the vocabulary is not merge-closed (then this object must not be used).
  bool build(const TokenTable& vocab);

  // Appends the BPE ids of [p, p + n) to *out (every byte must be a token).  False, with
  // *out unchanged, only if the search fails, which a merge-closed vocabulary rules out.
  bool encode(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const;

  // True if merging the bytes of `left` followed by those of `right` gives [left, right].
  bool compatible(uint32_t left, uint32_t right) const;

 private:
  struct Token {
    uint32_t left = kNoToken, right = kNoToken;  // the last merge of its own bytes; none for a byte
    uint32_t shorter = kNoToken;                 // the longest token that is a proper prefix
    uint32_t len = 0;
  };

  // (x, y) -> the token spelled by x's bytes then y's, open addressing on the id pair.
  class Joins {
   public:
    void init(size_t count);
    void insert(uint32_t x, uint32_t y, uint32_t c);
    uint32_t find(uint32_t x, uint32_t y) const {
      uint64_t key = (uint64_t{x} << 32) | y;
      for (size_t i = slot(key);; i = (i + 1) & mask_) {
        const Entry& e = entries_[i];
        if (e.key == key) return e.token;
        if (e.token == kNoToken) return kNoToken;
      }
    }

   private:
    struct Entry {
      uint64_t key = 0;
      uint32_t token = kNoToken;  // kNoToken: empty
    };
    size_t slot(uint64_t key) const { return ((key * 0x9E3779B97F4A7C15ull) >> 32) & mask_; }
    std::vector<Entry> entries_;
    size_t mask_ = 0;
  };

  // The id of the longest token that is a prefix of [p, p + n).
  uint32_t longest_prefix(const uint8_t* p, size_t n) const;
  // The merge of token t's own bytes; false if they do not merge into t from two lower ranks.
  bool split(uint32_t t, const TokenTable& vocab, std::vector<uint32_t>* parts);

  std::vector<Token> tokens_;  // by id
  PieceTrie trie_;
  Joins joins_;
};

// A BacktrackMerge built on first use, once, from whichever thread asks first; movable.
class LazyBacktrackMerge {
 public:
  void reset() { slot_ = std::make_unique<Slot>(); }
  // The merge for `vocab`, or nullptr if `vocab` is not merge-closed.
  const BacktrackMerge* get(const TokenTable& vocab) const {
    std::call_once(slot_->once, [&] {
      auto m = std::make_unique<BacktrackMerge>();
      if (m->build(vocab)) slot_->merge = std::move(m);
    });
    return slot_->merge.get();
  }

 private:
  struct Slot {
    std::once_flag once;
    std::unique_ptr<BacktrackMerge> merge;
  };
  std::unique_ptr<Slot> slot_ = std::make_unique<Slot>();
};

}  // namespace tf
