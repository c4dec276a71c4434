// PieceMap: distinct byte strings (pre-tokenizer pieces) -> occurrence count.
//
// The bytes of every distinct piece are copied once into an arena; the table is open
// addressing with linear probing at load <= 1/2, each slot holding the full 64-bit hash so
// a probe compares bytes only on a hash match.  Memory grows with the number and size of
// distinct pieces, never with how often they occur.  Not thread-safe: each counting
// thread owns one map and the maps are merged at the end (merge_from).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "training/byte_level/big_vector.h"
#include "common/byte_hash.h"

namespace tf::train {

class PieceMap {
 public:
  PieceMap() { slots_.resize(1024); }

  void add(const uint8_t* p, size_t n, uint64_t count) { add_hashed(p, n, hash_bytes(p, n), count); }

  // Adds a piece whose hash_bytes() is already known (see prefetch).
  void add_hashed(const uint8_t* p, size_t n, uint64_t h, uint64_t count) {
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.count == 0) {
        s.hash = h;
        s.offset = arena_.size();
        s.len = static_cast<uint32_t>(n);
        s.count = count;
        arena_.append(p, p + n);
        if (++size_ * 2 > slots_.size()) grow();
        return;
      }
      // n == 0: an empty piece (a pattern's empty match), whose p may be null: memcmp
      // is not called on it (a null pointer is undefined behaviour even for 0 bytes).
      if (s.hash == h && s.len == n && (n == 0 || std::memcmp(arena_.data() + s.offset, p, n) == 0)) {
        s.count += count;
        return;
      }
    }
  }

  // Starts loading the slot where a piece with hash h would be, so a later add_hashed finds
  // it in cache: counting hashes a few pieces ahead and adds them in order.
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & (slots_.size() - 1)]); }

  // Adds every piece of `other` to this map.
  void merge_from(const PieceMap& other) {
    for (const Slot& s : other.slots_)
      if (s.count != 0) add_hashed(other.arena_.data() + s.offset, s.len, s.hash, s.count);
  }

  size_t size() const { return size_; }
  size_t arena_bytes() const { return arena_.size(); }

  // Calls f(bytes, length, count) for every distinct piece, in table order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.count != 0) f(arena_.data() + s.offset, static_cast<size_t>(s.len), s.count);
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint64_t offset = 0;
    uint64_t count = 0;  // 0 marks an empty slot
    uint32_t len = 0;
  };

  void grow() {
    BigVector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.count == 0) continue;
      size_t i = s.hash & mask;
      while (slots_[i].count != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  BigVector<Slot> slots_;   // big tables grow in place, on huge pages (big_vector.h)
  BigVector<uint8_t> arena_;
  size_t size_ = 0;
};

}  // namespace tf::train
