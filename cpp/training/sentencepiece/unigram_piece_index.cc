#include "training/sentencepiece/unigram_piece_index.h"

namespace tf::spm_train {

UnigramPieceIndex::Step* UnigramPieceIndex::find_or_add(int32_t node, char32_t c, int32_t* nodes) {
  if (node == 0 && c < kRootDirect) {
    Step& s = root_[c];
    if (s.node < 0) s.node = (*nodes)++;
    return &s;
  }
  const uint64_t key = key_of(node, c);
  size_t i = slot_of(key);
  for (; slots_[i].key != kEmpty; i = (i + 1) & mask_)
    if (slots_[i].key == key) return &slots_[i].step;
  if (2 * (used_ + 1) > slots_.size()) {
    grow();
    for (i = slot_of(key); slots_[i].key != kEmpty;) i = (i + 1) & mask_;
  }
  ++used_;
  slots_[i] = {key, {(*nodes)++, -1}};
  return &slots_[i].step;
}

void UnigramPieceIndex::resize(size_t capacity) {
  std::vector<Slot> old(capacity, Slot{kEmpty, {-1, -1}});
  old.swap(slots_);
  mask_ = capacity - 1;
  shift_ = 64;
  for (size_t c = capacity; c > 1; c >>= 1) --shift_;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    size_t i = slot_of(s.key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void UnigramPieceIndex::grow() { resize(slots_.size() * 2); }

void UnigramPieceIndex::build(const std::vector<const std::vector<char32_t>*>& pieces) {
  // Room for about one node per piece at first (long pieces share prefixes); grows by doubling.
  size_t capacity = 16;
  while (capacity < 2 * pieces.size()) capacity *= 2;
  slots_.clear();
  used_ = 0;
  resize(capacity);
  root_.assign(kRootDirect, Step{-1, -1});
  int32_t nodes = 1;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const auto& chars = *pieces[i];
    int32_t node = 0;
    Step* s = nullptr;
    for (char32_t c : chars) {
      s = find_or_add(node, c, &nodes);
      node = s->node;
    }
    if (s != nullptr) s->piece = static_cast<int32_t>(i);
  }
}

}  // namespace tf::spm_train
