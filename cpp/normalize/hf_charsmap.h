// CharsmapShortest: the `Precompiled` normalizer's lookup as `tokenizers` does it: the
// replacement of the SHORTEST charsmap key prefixing the looked-up text (sentencepiece
// takes the longest).  The charsmap is sentencepiece's: uint32 trie size, Darts-clone units,
// NUL-terminated replacements (see common/darts_view.h).  O(key length) per lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/darts_view.h"

namespace tf::hf {

class CharsmapShortest {
 public:
  // Fails on a blob too short to hold its trie.
  bool init(std::string_view blob, std::string* error);

  // The replacement of the shortest key prefixing s[0, n) (*len bytes), or nullptr.
  const char* shortest(const uint8_t* s, size_t n, size_t* len) const;
  // Whether an ASCII byte is a key's start (else it never changes).
  bool ascii_may_change(uint8_t b) const { return ascii_hit_[b & 0x7F]; }
  // The replacements' storage: shortest() returns pointers into it.
  const char* strings() const { return strings_.data(); }

 private:
  DartsView trie_;
  std::string strings_;
  bool ascii_hit_[128] = {};
};

}  // namespace tf::hf
