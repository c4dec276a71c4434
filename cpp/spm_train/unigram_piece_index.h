// UnigramPieceIndex: the pieces of a Unigram model as a trie over code points, for finding
// every piece that starts at a position of a word in one walk.
//
// Edges live in one open-addressing hash table keyed by (node, code point), a power of two
// in size and at most half full, so a step is one multiply and usually one probe; each
// node records the piece ending there (or -1).  Built once per EM step: O(total piece
// length) time and about 24 bytes per trie node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tf::spm_train {

class UnigramPieceIndex {
 public:
  // Indexes pieces[i] (code points) as piece i.
  void build(const std::vector<const std::vector<char32_t>*>& pieces);
  // The child of `node` along c, or -1.  The root is node 0.
  int32_t step(int32_t node, char32_t c) const {
    const uint64_t key = (static_cast<uint64_t>(node) << 21) | static_cast<uint64_t>(c & 0x1FFFFF);
    for (uint64_t slot = (key * 0x9E3779B97F4A7C15ull) >> shift_;; slot = (slot + 1) & mask_) {
      if (keys_[slot] == key) return children_[slot];
      if (keys_[slot] == kEmpty) return -1;
    }
  }
  // The piece that ends at `node`, or -1.
  int32_t piece_at(int32_t node) const { return piece_of_node_[static_cast<size_t>(node)]; }

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  void insert(uint64_t key, int32_t child);
  void grow();
  std::vector<uint64_t> keys_;
  std::vector<int32_t> children_;
  std::vector<int32_t> piece_of_node_;
  size_t used_ = 0;
  uint64_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace tf::spm_train
