#include "spm_train/unigram_piece_index.h"

namespace tf::spm_train {

void UnigramPieceIndex::build(const std::vector<const std::vector<char32_t>*>& pieces) {
  size_t total = 1;
  for (const auto* p : pieces) total += p->size();
  size_t cap = 16;
  while (cap < 2 * total) cap <<= 1;
  keys_.assign(cap, kEmpty);
  children_.assign(cap, -1);
  mask_ = cap - 1;
  shift_ = 64;
  for (size_t c = cap; c > 1; c >>= 1) --shift_;
  used_ = 0;
  piece_of_node_.assign(1, -1);
  for (size_t i = 0; i < pieces.size(); ++i) {
    int32_t node = 0;
    for (char32_t c : *pieces[i]) {
      int32_t next = step(node, c);
      if (next < 0) {
        next = static_cast<int32_t>(piece_of_node_.size());
        piece_of_node_.push_back(-1);
        insert((static_cast<uint64_t>(node) << 21) | static_cast<uint64_t>(c & 0x1FFFFF), next);
      }
      node = next;
    }
    piece_of_node_[static_cast<size_t>(node)] = static_cast<int32_t>(i);
  }
}

void UnigramPieceIndex::insert(uint64_t key, int32_t child) {
  if (2 * (used_ + 1) > keys_.size()) grow();
  uint64_t slot = (key * 0x9E3779B97F4A7C15ull) >> shift_;
  while (keys_[slot] != kEmpty) slot = (slot + 1) & mask_;
  keys_[slot] = key;
  children_[slot] = child;
  ++used_;
}

void UnigramPieceIndex::grow() {
  std::vector<uint64_t> keys = std::move(keys_);
  std::vector<int32_t> children = std::move(children_);
  const size_t cap = keys.size() * 2;
  keys_.assign(cap, kEmpty);
  children_.assign(cap, -1);
  mask_ = cap - 1;
  --shift_;
  used_ = 0;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] != kEmpty) insert(keys[i], children[i]);
}

}  // namespace tf::spm_train
