// SpecialMatcher: finds the next occurrence of any of a set of special-token strings.
//
// Candidates are grouped by first byte; the scan jumps with memchr when every special
// starts with the same byte (the usual '<'), otherwise it tests a 256-bit first-byte set.
// At a candidate position the longest matching special wins.  O(text) plus the specials
// tried at each candidate position.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
  std::vector<std::pair<std::string, uint32_t>> specials_;  // sorted by first byte, then longest first
  uint32_t first_index_[257] = {};                           // first byte -> range in specials_
  bool first_byte_[256] = {};
  int only_first_byte_ = -1;                                 // >= 0 when all specials share it
  size_t max_length_ = 0;
};

}  // namespace tf
