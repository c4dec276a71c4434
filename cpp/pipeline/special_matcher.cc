#include "pipeline/special_matcher.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
  size_t distinct = 0;
  two_bytes_.assign(65536 / 64, 0);
  four_bytes_.assign(65536 / 64, 0);
  for (size_t k = 0; k < specials_.size(); ++k) {
    const std::string& text = specials_[k].first;
    keys.emplace_back(text, static_cast<int32_t>(k));
    max_length_ = std::max(max_length_, text.size());
    const uint8_t* t = reinterpret_cast<const uint8_t*>(text.data());
    if (text.size() == 1) {
      one_byte_[t[0]] = true;
    } else if (text.size() < 4) {
      const uint32_t bit = (uint32_t{t[0]} << 8) | t[1];
      two_bytes_[bit >> 6] |= uint64_t{1} << (bit & 63);
    } else {
      const uint32_t bit = hash4(t);
      four_bytes_[bit >> 6] |= uint64_t{1} << (bit & 63);
    }
    const uint8_t b = t[0];
    if (!first_byte_[b]) {
      first_byte_[b] = true;
      if (distinct < kFewFirsts) firsts_[distinct] = b;
      ++distinct;
    }
  }
  n_firsts_ = distinct;
  trie_.build(std::move(keys));
}

uint32_t SpecialMatcher::hash4(const uint8_t* p) {
  uint32_t x;
  std::memcpy(&x, p, 4);
  return (x * 0x9E3779B1u) >> 16;
}

// Whether some special may start at text[i] (first_byte_ holds there): false only when none can.
bool SpecialMatcher::may_start(const uint8_t* text, size_t n, size_t i) const {
  const uint8_t b = text[i];
  if (one_byte_[b] || i + 1 >= n) return true;
  const uint32_t two = (uint32_t{b} << 8) | text[i + 1];
  if ((two_bytes_[two >> 6] >> (two & 63)) & 1) return true;
  if (i + 4 > n) return false;  // only a special of four bytes or more is left, and it does not fit
  const uint32_t four = hash4(text + i);
  return (four_bytes_[four >> 6] >> (four & 63)) & 1;
}

size_t SpecialMatcher::next_first(const uint8_t* text, size_t n, size_t i) const {
#if defined(__SSE2__)
  if (n_firsts_ <= kFewFirsts) {
    __m128i firsts[kFewFirsts];
    for (size_t k = 0; k < n_firsts_; ++k) firsts[k] = _mm_set1_epi8(static_cast<char>(firsts_[k]));
    for (; i + 16 <= n; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text + i));
      __m128i hit = _mm_cmpeq_epi8(v, firsts[0]);
      for (size_t k = 1; k < n_firsts_; ++k) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, firsts[k]));
      if (const int mask = _mm_movemask_epi8(hit)) return i + static_cast<size_t>(__builtin_ctz(mask));
    }
  }
#endif
  while (i < n && !first_byte_[text[i]]) ++i;
  return i;
}

SpecialMatcher::Match SpecialMatcher::find(const uint8_t* text, size_t n, size_t from) const {
  Match m;
  if (specials_.empty()) return m;
  size_t i = from;
  while (i < n) {
    if (n_firsts_ == 1) {  // every special starts with firsts_[0]
      const void* hit = std::memchr(text + i, firsts_[0], n - i);
      if (hit == nullptr) return m;
      i = static_cast<const uint8_t*>(hit) - text;
    } else {
      i = next_first(text, n, i);
      if (i == n) return m;
    }
    if (!may_start(text, n, i)) {
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
