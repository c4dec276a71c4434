// DartsView: a read-only view of a Darts-clone double-array trie, the structure inside a
// SentencePiece precompiled charsmap.
//
// Format (darts-clone 0.32): an array of little-endian uint32 units.  For a unit u,
//   has_leaf = bit 8, value = u & 0x7FFFFFFF (on the leaf unit), label = u & 0x800000FF
//   (a leaf's label has bit 31 set, so it never equals a byte), and
//   offset = (u >> 10) << ((u & 0x200) >> 6).
// Walking byte c from node p: p ^= offset(unit[p]) ^ c; the step is valid iff
// label(unit[p]) == c.  Every index is bounds-checked, so a corrupt blob gives "no match"
// rather than a read out of bounds.  O(length of the match) per search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tf {

class DartsView {
 public:
  // Copies the units out of `blob` (its size must be a multiple of 4).
  void assign(const uint8_t* blob, size_t size) {
    units_.resize(size / 4);
    if (!units_.empty()) std::memcpy(units_.data(), blob, units_.size() * 4);
  }
  bool empty() const { return units_.empty(); }
  size_t units() const { return units_.size(); }
  bool operator==(const DartsView& other) const { return units_ == other.units_; }

  // The longest of the first `max_matches` keys that prefix s[0, n) (sentencepiece reads
  // at most 32): sets *value and returns its length, or returns 0 when no key matches.
  size_t longest_prefix(const uint8_t* s, size_t n, uint32_t* value, size_t max_matches = 32) const {
    if (units_.empty()) return 0;
    size_t best = 0, matches = 0;
    uint32_t pos = offset(units_[0]);
    const size_t size = units_.size();
    for (size_t i = 0; i < n; ++i) {
      pos ^= s[i];
      if (pos >= size) return best;
      uint32_t unit = units_[pos];
      if ((unit & 0x800000FFu) != s[i]) return best;
      pos ^= offset(unit);
      if (unit & 0x100u) {
        if (pos >= size) return best;
        *value = units_[pos] & 0x7FFFFFFFu;
        best = i + 1;
        if (++matches == max_matches) return best;
      }
    }
    return best;
  }

  // Walks s[0, n) from the root: the node reached (its children's base), or -1 when the walk
  // leaves the trie; *hit is set when a key ends on the way.
  int64_t walk(const uint8_t* s, size_t n, bool* hit) const {
    *hit = false;
    if (units_.empty()) return -1;
    uint32_t pos = offset(units_[0]);
    for (size_t i = 0; i < n; ++i) {
      pos ^= s[i];
      if (pos >= units_.size() || (units_[pos] & 0x800000FFu) != s[i]) return -1;
      const uint32_t unit = units_[pos];
      pos ^= offset(unit);
      if (unit & 0x100u) *hit = true;
    }
    return pos;
  }
  // The node reached from node `base` (from walk) by byte b, or -1; *leaf: a key ends there.
  int64_t step(int64_t base, uint8_t b, bool* leaf) const {
    const uint64_t pos = static_cast<uint64_t>(base) ^ b;
    if (pos >= units_.size() || (units_[pos] & 0x800000FFu) != b) return -1;
    *leaf = (units_[pos] & 0x100u) != 0;
    return static_cast<int64_t>(pos ^ offset(units_[pos]));
  }
  // Whether node `base` (from walk) has a child labelled with a byte in [lo, hi).
  bool has_child(int64_t base, unsigned lo, unsigned hi) const {
    for (unsigned b = lo; b < hi; ++b) {
      const uint64_t pos = static_cast<uint64_t>(base) ^ b;
      if (pos < units_.size() && (units_[pos] & 0x800000FFu) == b) return true;
    }
    return false;
  }

  // Whether some key starts with byte b (used to skip the search for common bytes).
  bool has_first_byte(uint8_t b) const {
    if (units_.empty()) return false;
    uint32_t pos = offset(units_[0]) ^ b;
    return pos < units_.size() && (units_[pos] & 0x800000FFu) == b;
  }

 private:
  static uint32_t offset(uint32_t unit) { return (unit >> 10) << ((unit & 0x200u) >> 6); }
  std::vector<uint32_t> units_;
};

}  // namespace tf
