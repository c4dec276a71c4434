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

// Reused from text to text on one thread: the normalized stretch, the original character
// of each of its bytes, the model's tokens.
struct SpmStyleEncoder::Scratch {
  std::string norm;
  std::vector<uint32_t> char_of;
  std::vector<HfToken> tokens;
  MergeRankBpe::Scratch* bpe = nullptr;
};

void SpmStyleEncoder::encode_stretch(const uint8_t* text, size_t n, uint32_t first, uint32_t* word, HfEncoded* out,
                                     bool ids_only, Scratch& scratch) const {
  if (n == 0) return;
  std::string& norm = scratch.norm;
  std::vector<uint32_t>& char_of = scratch.char_of;  // normalized byte -> original character
  std::vector<HfToken>& tokens = scratch.tokens;
  // At most 3 bytes per input byte (a space becomes ▁) and two ▁ in front.
  norm.resize(3 * n + 6);
  char_of.resize(3 * n + 6);
  uint8_t* w = reinterpret_cast<uint8_t*>(&norm[0]);
  uint32_t* a = char_of.data();
  size_t k = 0;
  auto marker = [&](uint32_t c) {
    std::memcpy(w + k, kMarker, 3);
    a[k] = a[k + 1] = a[k + 2] = c;
    k += 3;
  };
  if (marking_.prepend) marker(first);
  uint32_t c = first;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t b = text[i];
    if (b == ' ' && marking_.replace_spaces) {
      marker(c++);
      continue;
    }
    w[k] = b;
    // A continuation byte belongs to the character its lead byte started.
    c += (b & 0xC0) != 0x80;
    a[k++] = c - 1;
  }
  norm.resize(k);
  char_of.resize(k);
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
    model_.encode(std::string_view(norm.data() + piece, stop - piece), static_cast<uint32_t>(piece), &tokens,
                  *scratch.bpe);
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
  thread_local Scratch scratch;
  scratch.bpe = &model_.scratch();
  while (done <= n) {
    const SpecialMatcher::Match m = added_.find(s, n, done);
    const size_t stop = m.found ? m.pos : n;
    const uint32_t stretch_chars = count_chars(s + done, stop - done);
    encode_stretch(s + done, stop - done, chars, &word, out, ids_only, scratch);
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
