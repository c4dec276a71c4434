// KeyTable: uint64 key -> int32 value, open addressing with linear probing, at most half
// full, no erase.  The trainers' hot lookups: the BPE merger's (left, right) -> symbol and
// the Unigram piece trie's (node, code point) -> child.  One multiply and usually one probe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tf::spm_train {

class KeyTable {
 public:
  // The value stored for key, or nullptr.
  int32_t* find(uint64_t key) { return const_cast<int32_t*>(static_cast<const KeyTable*>(this)->find(key)); }
  const int32_t* find(uint64_t key) const {
    if (keys_.empty()) return nullptr;
    for (uint64_t slot = hash(key);; slot = (slot + 1) & mask_) {
      if (keys_[slot] == key) return &values_[slot];
      if (keys_[slot] == kEmpty) return nullptr;
    }
  }
  void set(uint64_t key, int32_t value);
  void reserve(size_t n);

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  uint64_t hash(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ull) >> shift_; }
  std::vector<uint64_t> keys_;
  std::vector<int32_t> values_;
  size_t used_ = 0;
  uint64_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace tf::spm_train
