#include "pipeline/hf_spm_encoder.h"

#include <cstring>

namespace tf::hf {

namespace {

constexpr uint8_t kMarker[3] = {0xE2, 0x96, 0x81};  // U+2581 ▁

inline bool is_marker(const uint8_t* p, const uint8_t* end) {
  return end - p >= 3 && p[0] == 0xE2 && p[1] == 0x96 && p[2] == 0x81;
}

inline uint32_t count_chars(const uint8_t* p, size_t n) {
  uint32_t c = 0;
  for (size_t i = 0; i < n; ++i) c += (p[i] & 0xC0) != 0x80;
  return c;
}

}  // namespace

void SpmStyleEncoder::encode_stretch(const uint8_t* text, size_t n, uint32_t first, uint32_t* word, HfEncoded* out,
                                     bool ids_only) const {
  if (n == 0) return;
  thread_local std::string norm;
  thread_local std::vector<uint32_t> char_of;  // normalized byte -> original character
  thread_local std::vector<HfToken> tokens;
  norm.clear();
  char_of.clear();
  auto marker = [&](uint32_t c) {
    norm.append(reinterpret_cast<const char*>(kMarker), 3);
    char_of.insert(char_of.end(), 3, c);
  };
  if (marking_.prepend) marker(first);
  uint32_t c = first;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = text[i];
    if (b == ' ' && marking_.replace_spaces) {
      marker(c++);
      continue;
    }
    norm.push_back(static_cast<char>(b));
    // A continuation byte belongs to the character its lead byte started.
    if ((b & 0xC0) != 0x80) ++c;
    char_of.push_back(c - 1);
  }
  const uint8_t* s = reinterpret_cast<const uint8_t*>(norm.data());
  if (marking_.metaspace_prepend != 0 && !is_marker(s, s + norm.size()) &&
      (marking_.metaspace_prepend == 1 || first == 0)) {
    norm.insert(0, reinterpret_cast<const char*>(kMarker), 3);
    char_of.insert(char_of.begin(), 3, first);
    s = reinterpret_cast<const uint8_t*>(norm.data());
  }
  const size_t m = norm.size();
  // Pieces: the whole stretch, or with split one starting at each ▁ (MergedWithNext).
  size_t piece = 0;
  while (piece < m) {
    size_t stop = m;
    if (marking_.split) {
      stop = piece + 1;
      while (stop < m && !is_marker(s + stop, s + m)) ++stop;
    }
    tokens.clear();
    model_.encode(std::string_view(norm.data() + piece, stop - piece), static_cast<uint32_t>(piece), &tokens);
    for (const HfToken& t : tokens) {
      out->ids.push_back(t.id);
      if (ids_only) continue;
      out->starts.push_back(char_of[t.begin]);
      out->ends.push_back(char_of[t.end - 1] + 1);
      out->words.push_back(*word);
    }
    ++*word;
    piece = stop;
  }
}

void SpmStyleEncoder::encode(std::string_view text, HfEncoded* out, bool ids_only) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t done = 0;
  uint32_t chars = 0;  // characters in [0, done)
  uint32_t word = 0;
  while (done <= n) {
    const SpecialMatcher::Match m = added_.find(s, n, done);
    const size_t stop = m.found ? m.pos : n;
    const uint32_t stretch_chars = count_chars(s + done, stop - done);
    encode_stretch(s + done, stop - done, chars, &word, out, ids_only);
    chars += stretch_chars;
    if (!m.found) break;
    const uint32_t token_chars = count_chars(s + m.pos, m.len);
    out->ids.push_back(m.id);
    if (!ids_only) {
      out->starts.push_back(chars);
      out->ends.push_back(chars + token_chars);
      out->words.push_back(word);
    }
    ++word;
    chars += token_chars;
    done = m.pos + m.len;
  }
}

}  // namespace tf::hf
