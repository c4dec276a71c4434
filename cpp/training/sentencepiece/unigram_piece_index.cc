#include "training/sentencepiece/unigram_piece_index.h"

namespace tf::spm_train {

void UnigramPieceIndex::build(const std::vector<const std::vector<char32_t>*>& pieces) {
  size_t total = 1;
  for (const auto* p : pieces) total += p->size();
  edges_ = U64Map<int32_t>();
  edges_.reserve(total);
  piece_of_node_.assign(1, -1);
  for (size_t i = 0; i < pieces.size(); ++i) {
    int32_t node = 0;
    for (char32_t c : *pieces[i]) {
      int32_t next = step(node, c);
      if (next < 0) {
        next = static_cast<int32_t>(piece_of_node_.size());
        piece_of_node_.push_back(-1);
        edges_.set((static_cast<uint64_t>(node) << 21) | static_cast<uint64_t>(c & 0x1FFFFF), next);
      }
      node = next;
    }
    piece_of_node_[static_cast<size_t>(node)] = static_cast<int32_t>(i);
  }
}

}  // namespace tf::spm_train
