#include "models/byte_level/vocab/char_atoms.h"

#include <algorithm>

namespace tf::byte_level {

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

// tiktoken's merge of two or three bytes, by the book; *max_rank: the highest rank it
// applied.  The ids of the parts it ends with go to ids (returns how many).
size_t merge_few(const TokenTable& vocab, const uint8_t* q, size_t n, uint32_t ids[3], uint32_t* max_rank) {
  *max_rank = 0;
  if (n == 2) {
    uint32_t r = vocab.find(q, 2);
    if (r != kNoToken) return *max_rank = r, ids[0] = r, 1;
    ids[0] = vocab.find(q, 1), ids[1] = vocab.find(q + 1, 1);
    return 2;
  }
  // Three bytes: the lower of the two pairs merges first (the left one on a tie), then
  // the whole if it is a token.
  uint32_t left = vocab.find(q, 2), right = vocab.find(q + 1, 2);
  if (left == kNoToken && right == kNoToken) {
    for (size_t i = 0; i < 3; ++i) ids[i] = vocab.find(q + i, 1);
    return 3;
  }
  const bool first = left <= right;
  *max_rank = first ? left : right;
  uint32_t whole = vocab.find(q, 3);
  if (whole != kNoToken) return *max_rank = std::max(*max_rank, whole), ids[0] = whole, 1;
  if (first) return ids[0] = left, ids[1] = vocab.find(q + 2, 1), 2;
  return ids[0] = vocab.find(q, 1), ids[1] = right, 2;
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
      if (q[i] < 0xC2 || q[i] >= 0xF0) continue;  // starts no two- or three-byte character
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
    uint32_t max_rank, ids[3];
    size_t count = merge_few(vocab, reinterpret_cast<const uint8_t*>(t.data()), t.size(), ids, &max_rank);
    if (count == 1 && ids[0] == id && held[cp] > max_rank) atom_[cp] = id;  // conditions 1 and 3
  }
}

}  // namespace tf::byte_level
