#include "pipeline/special_matcher.h"

#include <algorithm>
#include <cstring>

namespace tf {

SpecialMatcher::SpecialMatcher(std::vector<std::pair<std::string, uint32_t>> specials) {
  specials.erase(std::remove_if(specials.begin(), specials.end(), [](auto& s) { return s.first.empty(); }),
                 specials.end());
  std::stable_sort(specials.begin(), specials.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  specials.erase(std::unique(specials.begin(), specials.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
                 specials.end());
  specials_ = std::move(specials);
  std::vector<std::pair<std::string, int32_t>> keys;
  keys.reserve(specials_.size());
  int distinct = 0;
  for (size_t k = 0; k < specials_.size(); ++k) {
    const std::string& text = specials_[k].first;
    keys.emplace_back(text, static_cast<int32_t>(k));
    max_length_ = std::max(max_length_, text.size());
    const uint8_t b = static_cast<uint8_t>(text[0]);
    if (!first_byte_[b]) {
      first_byte_[b] = true;
      ++distinct;
      only_first_byte_ = b;
    }
  }
  if (distinct != 1) only_first_byte_ = -1;
  trie_.build(std::move(keys));
}

SpecialMatcher::Match SpecialMatcher::find(const uint8_t* text, size_t n, size_t from) const {
  Match m;
  if (specials_.empty()) return m;
  size_t i = from;
  while (i < n) {
    if (only_first_byte_ >= 0) {
      const void* hit = std::memchr(text + i, only_first_byte_, n - i);
      if (hit == nullptr) return m;
      i = static_cast<const uint8_t*>(hit) - text;
    } else if (!first_byte_[text[i]]) {
      ++i;
      continue;
    }
    int32_t k = -1;
    const size_t len = trie_.longest_prefix(text + i, std::min(n - i, max_length_), &k);
    if (len > 0) {
      m.pos = i;
      m.len = len;
      m.id = specials_[static_cast<size_t>(k)].second;
      m.found = true;
      return m;
    }
    ++i;
  }
  return m;
}

}  // namespace tf
