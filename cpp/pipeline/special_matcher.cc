#include "pipeline/special_matcher.h"

#include <algorithm>
#include <cstring>

namespace tf {

SpecialMatcher::SpecialMatcher(std::vector<std::pair<std::string, uint32_t>> specials) {
  specials.erase(std::remove_if(specials.begin(), specials.end(), [](auto& s) { return s.first.empty(); }),
                 specials.end());
  std::sort(specials.begin(), specials.end(), [](const auto& a, const auto& b) {
    uint8_t fa = static_cast<uint8_t>(a.first[0]), fb = static_cast<uint8_t>(b.first[0]);
    if (fa != fb) return fa < fb;
    if (a.first.size() != b.first.size()) return a.first.size() > b.first.size();
    return a.first < b.first;
  });
  specials_ = std::move(specials);
  for (auto& sp : specials_) max_length_ = std::max(max_length_, sp.first.size());
  std::fill(std::begin(first_index_), std::end(first_index_), 0);
  for (auto& s : specials_) first_index_[static_cast<uint8_t>(s.first[0]) + 1]++;
  for (int b = 0; b < 256; ++b) first_index_[b + 1] += first_index_[b];
  int distinct = 0;
  for (int b = 0; b < 256; ++b) {
    first_byte_[b] = first_index_[b + 1] > first_index_[b];
    if (first_byte_[b]) {
      ++distinct;
      only_first_byte_ = b;
    }
  }
  if (distinct != 1) only_first_byte_ = -1;
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
    uint8_t b = text[i];
    for (uint32_t k = first_index_[b]; k < first_index_[b + 1]; ++k) {
      const std::string& s = specials_[k].first;
      if (s.size() <= n - i && std::memcmp(text + i, s.data(), s.size()) == 0) {
        m.pos = i;
        m.len = s.size();
        m.id = specials_[k].second;
        m.found = true;
        return m;
      }
    }
    ++i;
  }
  return m;
}

}  // namespace tf
