// UnigramPieceIndex: the pieces of a Unigram model as a trie over code points, for finding
// every piece that starts at a position of a word in one walk.
//
// A step reads one 16-byte slot that holds both the child node and the piece ending there:
// the root's BMP children sit in a direct table (every walk starts there), the other edges
// in an open-addressing table keyed by (node, code point), linear probing, at most half
// full, grown by doubling.  Built once per EM step: O(total piece length) time, 32-64 bytes
// per trie node (plus the 512 KiB root table).  No erase.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tf::spm_train {

class UnigramPieceIndex {
 public:
  struct Step {
    int32_t node;   // the child, or -1
    int32_t piece;  // the piece that ends at the child, or -1
  };
  // Indexes pieces[i] (code points) as piece i.
  void build(const std::vector<const std::vector<char32_t>*>& pieces);
  // The child of `node` (the root is node 0) along c.
  Step step(int32_t node, char32_t c) const {
    if (node == 0 && c < kRootDirect) return root_[c];
    if (slots_.empty()) return {-1, -1};
    const uint64_t key = key_of(node, c);
    for (size_t i = slot_of(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return s.step;
      if (s.key == kEmpty) return {-1, -1};
    }
  }

 private:
  struct Slot {
    uint64_t key;
    Step step;
  };
  static constexpr char32_t kRootDirect = 0x10000;
  static constexpr uint64_t kEmpty = ~0ull;
  static uint64_t key_of(int32_t node, char32_t c) {
    return (static_cast<uint64_t>(node) << 21) | static_cast<uint64_t>(c & 0x1FFFFF);
  }
  size_t slot_of(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  // The slot of (node, c), made (as a child without a piece) if absent.
  Step* find_or_add(int32_t node, char32_t c, int32_t* nodes);
  void resize(size_t capacity);  // rehashes into `capacity` (a power of two) slots
  void grow();

  std::vector<Step> root_;  // the root's child per BMP code point
  std::vector<Slot> slots_;
  size_t used_ = 0;  // slots in use
  size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace tf::spm_train
