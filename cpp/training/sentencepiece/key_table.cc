#include "training/sentencepiece/key_table.h"

namespace tf::spm_train {

void KeyTable::reserve(size_t n) {
  size_t cap = 16;
  while (cap < 2 * n) cap <<= 1;
  if (cap <= keys_.size()) return;
  std::vector<uint64_t> keys = std::move(keys_);
  std::vector<int32_t> values = std::move(values_);
  keys_.assign(cap, kEmpty);
  values_.assign(cap, -1);
  mask_ = cap - 1;
  shift_ = 64;
  for (size_t c = cap; c > 1; c >>= 1) --shift_;
  used_ = 0;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] != kEmpty) set(keys[i], values[i]);
}

void KeyTable::set(uint64_t key, int32_t value) {
  if (int32_t* v = find(key)) {
    *v = value;
    return;
  }
  if (2 * (used_ + 1) > keys_.size()) reserve(keys_.size() + 16);
  uint64_t slot = hash(key);
  while (keys_[slot] != kEmpty) slot = (slot + 1) & mask_;
  keys_[slot] = key;
  values_[slot] = value;
  ++used_;
}

}  // namespace tf::spm_train
