// BacktrackMerge: tiktoken's byte-pair merge of a long chunk in about linear time, for any
// vocabulary with every byte a token and no token over kMaxTokenLen bytes.
//
// A token whose own bytes do not merge into it (an "orphan": 588 in Llama 3, none in
// tiktoken's own vocabularies) never forms in any merge, not even as a passing part: if it
// formed over bytes [i, j), no earlier merge crossed i or j, so the merges inside were
// those of its bytes alone.  Leaving orphans out changes no merge, and then a token
// sequence is the BPE encoding of its bytes iff every two neighbours are compatible, i.e.
// merging the bytes of the two gives back the two (reference/bpe.py, bpe_backtrack, has
// the argument).  So the search below never has two encodings of one prefix: walk left to
// right, at each position try the tokens that start there, longest first (the TokenTrie
// gives the longest and each token's next-shorter one), keep the first compatible with the
// token before; when none fits the position is dead (one bit) and the search steps back
// one token.  Every position is entered and left for good at most once: O(n * L) pair
// checks for the longest token length L.  For "monotone" tokens, whose merge tree has
// ranks growing towards the root (all of tiktoken's), a pair check walks the two merge
// trees' borders (O(L) joins, two or three in practice); a pair with a "tangled" token
// (one that merges into itself, but a merge of its tree has a lower rank than a part: 107
// in Llama 3, at most kMaxOddLen bytes long) merges the pair's bytes, O((L + kMaxOddLen)^2),
// once per pair per thread in practice (the memo).  The idea of the backtracking encoder of
// GitHub's rust-gems `bpe` crate; the pair check is derived from the merge order itself
// (see reference/bpe.py, which holds the same algorithm in Python).
//
// Trade-off: built on first use (each token's split found in rank order, and the joins of
// two tokens into one whose right part is over kWalkMax bytes; its time and memory grow
// with the vocabulary, figures: benchmarks/README.md).  On runs of one byte (no safe cuts)
// it is several times faster than the bucket queue, but on text that does not repeat a
// pair check costs more than a merge step of the trie scan, so chunks of at most kMaxTrieChunk
// bytes keep that scan.  Vocabularies with tokens over kMaxTokenLen bytes (the build is
// O(L^2) per token), or orphan or tangled ones over kMaxOddLen, keep the bucket queue, and
// so does a chunk where the search gives up (see encode()), after wasting at most about
// kWalkPerByte trie steps per byte of it.
#pragma once

#include <cstdint>
#include <vector>

#include "models/byte_level/vocab/token_table.h"
#include "models/byte_level/vocab/token_trie.h"

namespace tf::byte_level {

class BacktrackMerge {
 public:
  static constexpr size_t kMaxTokenLen = 1024;
  // Orphan and tangled tokens are found by merging their bytes, and a pair with a tangled
  // token is checked that way: this bounds both.
  static constexpr size_t kMaxOddLen = 64;

  // False if the vocabulary has too long tokens (then this object must not be used).
  // `trie` must be the vocabulary's and outlive this object.
  bool build(const TokenTable& vocab, const TokenTrie& trie);

  // Appends the BPE ids of [p, p + n) to *out (every byte must be a token).  False, with
  // *out unchanged, if it gives up: when the longest candidates add up to over
  // kWalkPerByte bytes per byte taken (plus kWalkSlack), e.g. Llama 3's b".:.:" run, where
  // each step walks the trie along a 32-byte candidate to take a 2-byte token (slower per
  // byte than the bucket queue there; figures: benchmarks/README.md).  The search itself
  // never fails.
  static constexpr size_t kWalkPerByte = 6, kWalkSlack = 4096;
  // `memo_owner` names the caller's per-thread memo (see Memo): a process-unique number
  // of the model asking, so models sharing this object (SharedVocab) keep their own.
  bool encode(const uint8_t* p, size_t n, std::vector<uint32_t>* out, uint64_t memo_owner) const;

  // What build() found a token to be (kMonotone for a byte).
  enum Kind : uint8_t { kMonotone = 0, kTangled = 1, kOrphan = 2 };
  Kind kind(uint32_t id) const { return static_cast<Kind>(tokens_[id].kind); }

  // True if merging the bytes of `left` followed by those of `right` gives [left, right]
  // (counting only tokens of rank below `below`, which only monotone pairs may give).
  bool compatible(uint32_t left, uint32_t right, uint32_t below = kNoToken) const;

 private:
  // The trie's per-token facts copied beside the split, so a pair check reads one record.
  struct Token {
    uint32_t left = kNoToken, right = kNoToken;  // the last merge of its own bytes; none for a byte
    uint32_t shorter = kNoToken;                 // the longest non-orphan token that is a proper prefix
    int32_t node = 0;                            // where its bytes end in the trie
    uint64_t head = 0;                           // its first 8 bytes, little-endian
    uint32_t len = 0;
    uint8_t kind = kMonotone;
  };

  // join() walks the trie along right parts of at most this many bytes (held in Token::head).
  static constexpr uint32_t kWalkMax = 8;

  // (x, y) -> the token spelled by x's bytes then y's, for y longer than kWalkMax bytes;
  // open addressing on the id pair.
  class Joins {
   public:
    void init(size_t count);
    void insert(uint32_t x, uint32_t y, uint32_t c);
    uint32_t find(uint32_t x, uint32_t y) const {
      uint64_t key = (uint64_t{x} << 32) | y;
      uint64_t f = filter_bit(key);
      if (!((filter_[f >> 6] >> (f & 63)) & 1)) return kNoToken;
      for (size_t i = slot(key);; i = (i + 1) & mask_) {
        const Entry& e = entries_[i];
        if (e.key == key) return e.token;
        if (e.token == kNoToken) return kNoToken;
      }
    }

   private:
    // One bit per hash value of the pairs present (16 bits per pair, at most 512 KB): most
    // pairs tried are not joins, and this answers them from the L2 cache.
    int filter_bits_ = 10;
    std::vector<uint64_t> filter_;
    struct Entry {
      uint64_t key = 0;
      uint32_t token = kNoToken;  // kNoToken: empty
    };
    size_t slot(uint64_t key) const { return ((key * 0x9E3779B97F4A7C15ull) >> 32) & mask_; }
    uint64_t filter_bit(uint64_t key) const { return (key * 0xD6E8FEB86659FD93ull) >> (64 - filter_bits_); }
    std::vector<Entry> entries_;
    size_t mask_ = 0;
  };

  // compatible() through a small per-thread memo (ids < 2^24, see TokenTrie): the search
  // asks about the same pairs again and again on the repetitive chunks that come here.
  // And the first token compatible with `prev` in the chain of candidates from `t` (t, its
  // next-shorter, ...; orphans passed over), memoized too: on a run where the long
  // candidates keep failing (Llama 3's b".:.:" run: tangled tokens of 4 to 32 bytes), one
  // lookup instead of one per candidate.  Dead ends do not enter it: encode() goes on
  // down the chain from a fit that ends on one.
  static constexpr int kMemoBits = 10;
  struct Memo {
    uint64_t owner = 0;
    std::vector<uint64_t> pairs;  // bit 0: filled, bit 1: the answer, above: the two ids
    struct Fit {
      uint64_t key = ~uint64_t{0};  // prev << 32 | t
      uint32_t fit = kNoToken;
    };
    std::vector<Fit> fits;
  };
  static Memo& thread_memo(uint64_t owner);
  bool compatible_memo(Memo& memo, uint32_t left, uint32_t right) const;
  uint32_t first_fit(Memo& memo, uint32_t prev, uint32_t t) const;
  // tiktoken's merge of [p, p + n) (n <= 2 * kMaxTokenLen; O(n^2)), into *parts.
  void merge_bytes(const uint8_t* p, size_t n, std::vector<uint32_t>* parts) const;
  // The token spelled by x's bytes then y's, or kNoToken.
  uint32_t join(uint32_t x, const Token& tx, uint32_t y, const Token& ty) const;

  const TokenTable* vocab_ = nullptr;
  const TokenTrie* trie_ = nullptr;
  std::vector<Token> tokens_;  // by id
  Joins joins_;
  bool all_joins_ = false;  // joins_ holds every join (only while building)
};

}  // namespace tf::byte_level
