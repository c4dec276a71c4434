// PairIndex: a pair of token ids -> a small record index, for the BPE trainer.
//
// Open addressing with linear probing over the packed 64-bit key (left << 32 | right),
// load <= 1/2.  Records are never erased during training (HF's trainer also keeps the
// count of a merged pair), so there are no tombstones.
#pragma once

#include <cstdint>
#include <vector>

#include "util/byte_hash.h"

namespace tf {

class PairIndex {
 public:
  static constexpr uint32_t kMissing = 0xFFFFFFFFu;

  PairIndex() { slots_.resize(1 << 16, Slot{kEmpty, 0}); }

  static uint64_t key(uint32_t a, uint32_t b) { return (static_cast<uint64_t>(a) << 32) | b; }

  uint32_t find(uint64_t k) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = mix64(k) & mask;; i = (i + 1) & mask) {
      if (slots_[i].key == k) return slots_[i].value;
      if (slots_[i].key == kEmpty) return kMissing;
    }
  }

  // Returns the value stored for k, inserting `value` first if k is new (*inserted says which).
  uint32_t find_or_insert(uint64_t k, uint32_t value, bool* inserted) {
    size_t mask = slots_.size() - 1;
    for (size_t i = mix64(k) & mask;; i = (i + 1) & mask) {
      if (slots_[i].key == k) {
        *inserted = false;
        return slots_[i].value;
      }
      if (slots_[i].key == kEmpty) {
        slots_[i] = Slot{k, value};
        *inserted = true;
        if (++size_ * 2 > slots_.size()) grow();
        return value;
      }
    }
  }

  size_t size() const { return size_; }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t key;
    uint32_t value;
  };

  void grow() {
    std::vector<Slot> old(slots_.size() * 2, Slot{kEmpty, 0});
    old.swap(slots_);
    size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.key == kEmpty) continue;
      size_t i = mix64(s.key) & mask;
      while (slots_[i].key != kEmpty) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace tf
