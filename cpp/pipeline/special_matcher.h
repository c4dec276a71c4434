// SpecialMatcher: finds the next occurrence of any of a set of special-token strings.
//
// The scan jumps with memchr when every special starts with the same byte (the usual '<'),
// compares 16 bytes at a time with each first byte when the specials start with a few
// distinct ones (Gemma's '<', '\n', '▁' and '['), otherwise it tests a 256-entry first-byte
// set byte by byte.  A candidate position is then filtered by
// the specials' first bytes: any one-byte special starting there, the first two bytes of the
// two- and three-byte ones (a bit set), and a hash of the first four of the longer ones (a
// bit filter).  Files whose specials are runs of spaces or newlines ("▁▁", "\n\n\n") would
// otherwise walk the trie at every space.  Where the filter lets it through, a walk of a trie
// of the specials finds the longest one that matches there.  O(text) plus, at each
// candidate position, the length of the longest special that starts alike.  A text listed
// twice keeps its first id.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/piece_trie.h"

namespace tf {

class SpecialMatcher {
 public:
  struct Match {
    size_t pos = 0;
    size_t len = 0;
    uint32_t id = 0;
    bool found = false;
  };

  SpecialMatcher() = default;
  explicit SpecialMatcher(std::vector<std::pair<std::string, uint32_t>> specials);

  bool empty() const { return specials_.empty(); }
  // Bytes in the longest special.
  size_t max_length() const { return max_length_; }
  // The first special at or after `from` in [text, text + n).
  Match find(const uint8_t* text, size_t n, size_t from) const;

 private:
  std::vector<std::pair<std::string, uint32_t>> specials_;  // sorted by text, one per text
  PieceTrie trie_;                                           // text -> its index in specials_
  bool first_byte_[256] = {};
  bool one_byte_[256] = {};                                  // a special of one byte
  std::vector<uint64_t> two_bytes_;                          // first two bytes of a 2- or 3-byte special
  std::vector<uint64_t> four_bytes_;                         // hashed first four of a longer one
  static uint32_t hash4(const uint8_t* p);
  bool may_start(const uint8_t* text, size_t n, size_t i) const;
  // The first position at or after i where some special may start (first_byte_), or n.
  size_t next_first(const uint8_t* text, size_t n, size_t i) const;
  static constexpr size_t kFewFirsts = 8;                    // compared 16 bytes at a time up to this many
  uint8_t firsts_[kFewFirsts] = {};                          // the distinct first bytes, when that few
  size_t n_firsts_ = 0;                                      // how many distinct first bytes
  size_t max_length_ = 0;
};

}  // namespace tf
