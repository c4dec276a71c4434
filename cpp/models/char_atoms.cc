#include "models/char_atoms.h"

#include <string>

namespace tf {

namespace {

// The code point of the two- or three-byte character at q[0, n), or 0 if q is not exactly
// one (the same rules as CharAtoms::at).
uint32_t char_code(const uint8_t* q, size_t n) {
  if (n == 2 && q[0] >= 0xC2 && q[0] < 0xE0 && CharAtoms::cont(q[1])) return ((q[0] & 0x1Fu) << 6) | (q[1] & 0x3Fu);
  if (n == 3 && q[0] >= 0xE0 && q[0] < 0xF0 && CharAtoms::cont(q[1]) && CharAtoms::cont(q[2])) {
    uint32_t cp = ((q[0] & 0x0Fu) << 12) | ((q[1] & 0x3Fu) << 6) | (q[2] & 0x3Fu);
    return cp >= 0x800 ? cp : 0;
  }
  return 0;
}

// tiktoken's merge of a few bytes, by the book; *max_rank: the highest rank it applied.
std::vector<uint32_t> merge_few(const TokenTable& vocab, std::string_view s, uint32_t* max_rank) {
  std::vector<std::string> parts;
  for (char c : s) parts.emplace_back(1, c);
  *max_rank = 0;
  while (parts.size() > 1) {
    uint32_t best = kNoToken;
    size_t at = 0;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      uint32_t r = vocab.find(parts[i] + parts[i + 1]);
      if (r < best) best = r, at = i;
    }
    if (best == kNoToken) break;
    *max_rank = std::max(*max_rank, best);
    parts[at] += parts[at + 1];
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  std::vector<uint32_t> ids;
  for (const std::string& p : parts) ids.push_back(vocab.find(p));
  return ids;
}

}  // namespace

void CharAtoms::build(const TokenTable& vocab) {
  std::fill(atom_.begin(), atom_.end(), kNoToken);
  std::fill(keys_.begin(), keys_.end(), 0);
  // The lowest id of a longer token holding each character (condition 3).
  std::vector<uint32_t> held(0x10000, kNoToken);
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) {
    if (!vocab.has(id)) continue;
    std::string_view t = vocab.bytes(id);
    const uint8_t* q = reinterpret_cast<const uint8_t*>(t.data());
    const size_t n = t.size();
    for (size_t i = 0; i + 2 <= n; ++i) {
      for (size_t k = 2; k <= 3 && i + k <= n; ++k) {
        uint32_t cp = char_code(q + i, k);
        if (cp != 0 && k < n && id < held[cp]) held[cp] = id;
      }
    }
    // Edge keys (condition 2): a token beginning with one or two continuation bytes and
    // going on, and one ending in an unfinished character of one or two bytes after
    // another byte.
    size_t lead = 0;
    while (lead < n && cont(q[lead])) ++lead;
    if (lead >= 1 && lead <= 2 && lead < n) set(end_key(q, lead, q[lead]));
    size_t last = n;
    while (last > 0 && cont(q[last - 1])) --last;
    if (last >= 2) {  // q[last - 1] starts the final character, after at least one byte
      const uint8_t b = q[last - 1];
      const size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
      const size_t have = n - (last - 1);
      if (have < need && have <= 2) set(start_key(q[last - 2], q + last - 1, have));
    }
  }
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) {
    if (!vocab.has(id)) continue;
    std::string_view t = vocab.bytes(id);
    uint32_t cp = char_code(reinterpret_cast<const uint8_t*>(t.data()), t.size());
    if (cp == 0) continue;
    uint32_t max_rank;
    std::vector<uint32_t> ids = merge_few(vocab, t, &max_rank);
    if (ids.size() == 1 && ids[0] == id && held[cp] > max_rank) atom_[cp] = id;  // conditions 1 and 3
  }
}

}  // namespace tf
