// PairIndex: a pair of token ids -> a small record index, for the BPE trainer.
//
// Records are numbered 0, 1, 2, ... in insertion order.  Open addressing with linear
// probing at load <= 1/2.  A slot holds 32 bits of the key's hash and the record number
// (8 bytes), not the key: the caller keeps each record's pair and passes
// `key_of(record) -> key`, which a probe reads only when the hash bits match, so a hit
// costs the record access the caller makes anyway.  Growing rehashes the records in order.  Records are never erased
// during training (HF's trainer also keeps the count of a merged pair): no tombstones.
#pragma once

#include <cstdint>
#include <vector>

#include "training/byte_level/big_vector.h"
#include "common/byte_hash.h"

namespace tf::train {

class PairIndex {
 public:
  static constexpr uint32_t kMissing = 0xFFFFFFFFu;

  PairIndex() { slots_.resize(1 << 16, Slot{0, kMissing}); }

  static uint64_t key(uint32_t a, uint32_t b) { return (static_cast<uint64_t>(a) << 32) | b; }

  // The record whose key is k, or kMissing.
  template <typename KeyOf>
  uint32_t find(uint64_t k, KeyOf&& key_of) const {
    uint64_t h = mix64(k);
    uint32_t tag = static_cast<uint32_t>(h >> 32);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.value == kMissing) return kMissing;
      if (s.tag == tag && key_of(s.value) == k) return s.value;
    }
  }

  // Adds record number size(), whose key k is not in the index yet; key_of must already
  // know it.
  template <typename KeyOf>
  void insert(uint64_t k, KeyOf&& key_of) {
    place(mix64(k), static_cast<uint32_t>(size_));
    if (++size_ * 2 > slots_.size()) grow(key_of);
  }

  // Starts loading the slot where a probe for k begins.
  void prefetch(uint64_t k) const { __builtin_prefetch(&slots_[mix64(k) & (slots_.size() - 1)]); }

  size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t tag;    // high half of mix64(key)
    uint32_t value;  // kMissing: empty
  };

  void place(uint64_t h, uint32_t value) {
    size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    while (slots_[i].value != kMissing) i = (i + 1) & mask;
    slots_[i] = Slot{static_cast<uint32_t>(h >> 32), value};
  }

  template <typename KeyOf>
  void grow(KeyOf&& key_of) {
    BigVector<Slot>(slots_.size() * 2, Slot{0, kMissing}).swap(slots_);
    for (size_t v = 0; v < size_; ++v) place(mix64(key_of(static_cast<uint32_t>(v))), static_cast<uint32_t>(v));
  }

  BigVector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace tf::train
