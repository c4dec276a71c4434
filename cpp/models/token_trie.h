// TokenTrie: a byte-level vocabulary as a double-array trie (PieceTrie), for the merges of
// long pieces.  Joining two parts of a piece is a walk from the left part's node along the
// right part's bytes, which for the short parts of a merge stays in the few trie units a
// text keeps using, where a hash lookup of the joined bytes would miss the cache on every
// new string (a megabyte of random letters makes hundreds of thousands of them).
//
// Besides the trie: each token's node, length and longest proper prefix that is a token
// (the next-shorter candidate of a longest-match search), and per pair of bytes its token
// and its node (one 8-byte entry, so a merge's first look at a pair is one load and the
// join of two single bytes needs no walk; 512 KB).
// Building is O(total token bytes) plus a sort: tens of ms for a 200k vocabulary, so the
// owner builds it on first use (see LongPieceTables).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/piece_trie.h"
#include "models/token_table.h"

namespace tf {

class TokenTrie {
 public:
  // Ranks fit in 24 bits, so a rank and a position in a 256-byte chunk share one word.
  static constexpr uint32_t kMaxIds = uint32_t{1} << 24;

  // False if the vocabulary has ids >= kMaxIds (then this object must not be used).
  bool build(const TokenTable& vocab);

  // The node of the token spelled by node s's bytes followed by q[0, len), or -1 if that is
  // not a token.
  int32_t extend(int32_t s, const uint8_t* q, size_t len) const {
    for (size_t k = 0; k < len; ++k) {
      s = child(s, q[k]);
      if (s < 0) return -1;
    }
    return values_[s] >= 0 ? s : -1;
  }
  // The node node s's bytes followed by q[0, len) lead to, token or not, or -1 if no token
  // starts with them.  A later walk can go on from it.
  int32_t walk(int32_t s, const uint8_t* q, size_t len) const {
    for (size_t k = 0; k < len && s >= 0; ++k) s = child(s, q[k]);
    return s;
  }
  // The token ending at node s (a node walk() returned), or kNoToken.
  uint32_t token_at(int32_t s) const { return s < 0 ? kNoToken : static_cast<uint32_t>(values_[s]); }
  // The token ending at a node (one extend() returned, or a byte's node).
  uint32_t token(int32_t node) const { return static_cast<uint32_t>(values_[node]); }
  int32_t byte_node(uint8_t b) const { return byte_node_[b]; }
  // The two-byte string a b: its token (or kNoToken) and the node it leads to, token or
  // not (-1 if no token starts with it), as walk() from a's node along b would give.
  struct BytePair {
    uint32_t token;
    int32_t node;
  };
  BytePair byte_pair_entry(uint8_t a, uint8_t b) const { return byte_pairs_[a | (b << 8)]; }
  // The two-byte token a b, or kNoToken.
  uint32_t byte_pair(uint8_t a, uint8_t b) const { return byte_pairs_[a | (b << 8)].token; }

  // The longest token that is a prefix of [p, p + n), or kNoToken.
  uint32_t longest_prefix(const uint8_t* p, size_t n) const {
    uint32_t best = kNoToken;
    int32_t node = 0;
    for (size_t i = 0; i < n; ++i) {
      node = child(node, p[i]);
      if (node < 0) break;
      if (values_[node] >= 0) best = static_cast<uint32_t>(values_[node]);
    }
    return best;
  }
  // Per present id: its node, its byte length, and the longest token that is a proper
  // prefix of it (kNoToken for a single byte).
  int32_t node_of(uint32_t id) const { return nodes_[id]; }
  uint32_t length(uint32_t id) const { return lengths_[id]; }
  uint32_t shorter(uint32_t id) const { return shorter_[id]; }

 private:
  // The node reached from node s by byte c, or -1.  The array is padded so that every
  // base + c + 1 is inside it: no bound check.
  int32_t child(int32_t s, uint8_t c) const {
    const int32_t t = links_[s].base + c + 1;
    return links_[t].check == s ? t : -1;
  }
  // PieceTrie's double array without its values and payloads: 8 bytes a slot instead of
  // 16, the values apart (a walk's value load does not wait for its check), so the slots a
  // text keeps walking take half the cache (random letters: walks ~45% of the merge time,
  // mostly loads that miss L1).
  struct Link {
    int32_t base;
    int32_t check;
  };
  std::vector<Link> links_;
  std::vector<int32_t> values_;
  std::vector<int32_t> nodes_;
  std::vector<uint32_t> lengths_, shorter_;
  std::vector<BytePair> byte_pairs_;  // a | b << 8 -> see byte_pair_entry()
  int32_t byte_node_[256];
};

}  // namespace tf
