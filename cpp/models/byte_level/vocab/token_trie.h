// TokenTrie: a byte-level vocabulary as a double-array trie (PieceTrie), for the merges of
// long pieces.  Joining two parts of a piece is a walk from the left part's node along the
// right part's bytes, which for the short parts of a merge stays in the few trie units a
// text keeps using, where a hash lookup of the joined bytes would miss the cache on every
// new string (a megabyte of random letters makes hundreds of thousands of them).
//
// Besides the trie: each token's node, length and longest proper prefix that is a token
// (the next-shorter candidate of a longest-match search), and per pair of bytes its token
// and its walk (one 16-byte entry, so a merge's first look at a pair is one load and the
// join of two single bytes needs no walk; 1 MB).
// Building is O(total token bytes) plus a sort: tens of ms for a 200k vocabulary, so the
// owner builds it on first use (see LongPieceTables).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/piece_trie.h"
#include "models/byte_level/vocab/token_table.h"

namespace tf::byte_level {

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
  // Where a walk is: a node and its base, so a step is one load (the link of the child,
  // whose base the next step needs) instead of two that wait on each other.  A walk that
  // no token continues is in the dead state, node -2 (no slot's check: free ones hold -1)
  // and base 0, so the steps after it stay dead without a branch.
  struct Walk {
    int32_t base;
    int32_t node;
  };
  static constexpr int32_t kDead = -2;
  // w followed by byte c, and in *token the token ending there, or kNoToken.  No branch:
  // the token is read from the slot the step lands on before its check is known, and the
  // check selects by a mask, so a step is one load deep and its outcome (whether a token
  // goes on: on random letters most walks end in none) is never mispredicted.
  Walk step(Walk w, uint8_t c, uint32_t* token) const {
    const int32_t t = w.base + c + 1;
    const Link l = links_[t];
    const uint32_t v = static_cast<uint32_t>(values_[t]);
    const int32_t hit = -static_cast<int32_t>(l.check == w.node);  // all ones or zero
    *token = v | ~static_cast<uint32_t>(hit);
    return Walk{l.base & hit, ((t - kDead) & hit) + kDead};
  }
  // w followed by q[0, len) (len >= 1), and in *token the token ending there, or kNoToken.
  Walk walk(Walk w, const uint8_t* q, size_t len, uint32_t* token) const {
    w = step(w, q[0], token);
    for (size_t k = 1; k < len; ++k) w = step(w, q[k], token);
    return w;
  }
  // The token ending at a node (one extend() returned, or a byte's node).
  uint32_t token(int32_t node) const { return static_cast<uint32_t>(values_[node]); }
  int32_t byte_node(uint8_t b) const { return byte_node_[b]; }
  // The two-byte string a b: its token (or kNoToken) and the walk along it from the root,
  // token or not (dead if no token starts with it), so a merge starts its walks with no
  // load of a base (kept: it shortens every merge's first step; the table takes 1 MB
  // instead of 512 KB).
  struct BytePair {
    uint32_t token;
    uint32_t unused;  // 16 bytes, so an entry is one load from one cache line
    Walk walk;
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
  // text keeps walking take half the cache (on random letters walks are a large part of
  // the merge time, mostly loads that miss L1).  (A 16-byte slot with the value beside the
  // link, one line per step instead of two, was no faster with the Walk steps.)
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

}  // namespace tf::byte_level
