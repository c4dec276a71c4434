#include "models/sentencepiece/spm_cuts.h"

#include <algorithm>

#include "normalize/spm_normalizer.h"

namespace tf::spm {

namespace {

// The bytes of the character at s[0, len) (len <= 4), packed little end first.
uint32_t pack_bytes(const uint8_t* s, size_t len) {
  uint32_t v = 0;
  for (size_t i = 0; i < len; ++i) v |= static_cast<uint32_t>(s[i]) << (8 * i);
  return v;
}

}  // namespace

void SpmCutRule::build(const SpmVocab& vocab) {
  pairs_.clear();
  usable_ = true;
  for (int32_t id = 0; id < vocab.size(); ++id) {
    const SpmType t = vocab.type(id);
    if (t != SpmType::kNormal && t != SpmType::kUserDefined && t != SpmType::kUnused) continue;
    const std::string& piece = vocab.piece(id);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(piece.data());
    uint32_t prev = 0;
    for (size_t i = 0; i < piece.size();) {
      const size_t len = spm_char_len(p[i]);
      if (i + len > piece.size() || utf8_char_len(p + i, len) != len) {
        usable_ = false;
        pairs_.clear();
        return;
      }
      const uint32_t c = pack_bytes(p + i, len);
      if (i > 0) pairs_.insert((static_cast<uint64_t>(prev) << 32) | c);
      prev = c;
      i += len;
    }
  }
}

std::vector<size_t> SpmCutRule::cut_points(std::string_view normalized, size_t parts, bool utf8) const {
  std::vector<size_t> cuts;
  const uint8_t* s = reinterpret_cast<const uint8_t*>(normalized.data());
  const size_t n = normalized.size();
  if (!usable_ || parts < 2 || n < 2) return cuts;
  const size_t step = n / parts;
  if (step == 0) return cuts;
  // i: the start of the current character, prev: the start of the one before (or n).
  size_t i = 0, prev = n;
  auto advance = [&]() {
    prev = i;
    i += std::min(spm_char_len(s[i]), n - i);
  };
  for (size_t k = 1; k < parts && i < n; ++k) {
    const size_t target = k * step, stop = std::min(n, target + step);
    if (utf8 && i + 8 < target) {
      // Jump: the character at the target (or after it) and the one before it.
      i = target;
      while (i < n && (s[i] & 0xC0) == 0x80) ++i;
      prev = i - 1;
      while (prev > 0 && (s[prev] & 0xC0) == 0x80) --prev;
    }
    while (i < target && i < n) advance();
    for (; i < stop; advance()) {
      if (prev == n) continue;
      const size_t len = std::min(spm_char_len(s[i]), n - i);
      if (!joined(pack_bytes(s + prev, i - prev), pack_bytes(s + i, len))) {
        cuts.push_back(i);
        break;
      }
    }
  }
  return cuts;
}

}  // namespace tf::spm
