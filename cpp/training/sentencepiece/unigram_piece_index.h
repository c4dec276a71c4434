// UnigramPieceIndex: the pieces of a Unigram model as a trie over code points, for finding
// every piece that starts at a position of a word in one walk.
//
// Edges live in one U64Map keyed by (node, code point); each node records the piece
// ending there (or -1).  Built once per EM step: O(total piece
// length) time and about 24 bytes per trie node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/u64_map.h"

namespace tf::spm_train {

class UnigramPieceIndex {
 public:
  // Indexes pieces[i] (code points) as piece i.
  void build(const std::vector<const std::vector<char32_t>*>& pieces);
  // The child of `node` along c, or -1.  The root is node 0.
  int32_t step(int32_t node, char32_t c) const {
    const int32_t* child = edges_.find((static_cast<uint64_t>(node) << 21) | static_cast<uint64_t>(c & 0x1FFFFF));
    return child != nullptr ? *child : -1;
  }
  // The piece that ends at `node`, or -1.
  int32_t piece_at(int32_t node) const { return piece_of_node_[static_cast<size_t>(node)]; }

 private:
  U64Map<int32_t> edges_;  // (node << 21 | code point) -> child
  std::vector<int32_t> piece_of_node_;
};

}  // namespace tf::spm_train
