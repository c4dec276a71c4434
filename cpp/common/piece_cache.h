// PieceCache: remembers the ids of pieces that needed merging, so a piece seen before
// costs one hash lookup instead of a merge (byte-level BPE, SentencePiece BPE).
//
// Open addressing (linear probing) on the piece's 64-bit hash; keys and ids live in two
// arenas.  Bounded: when it is half full or its arenas pass a few MB it is cleared, so
// memory stays constant however long the input.  Not thread-safe: each thread owns one
// per vocabulary (see common/thread_cache.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/id_buffer.h"

namespace tf {

class PieceCache {
 public:
  // Longer pieces are not cached.  512, not 128: a rule of box-drawing characters (a 3-byte
  // character repeated, 80 of them = 240 bytes) recurs down a table or a man page and was
  // merged anew at every line.
  static constexpr size_t kMaxPiece = 512;

  // Starts small and doubles while it fills, up to kMaxSlots; then it is cleared instead.
  static constexpr size_t kMaxSlots = size_t{1} << 18;
  PieceCache() : slots_(size_t{1} << 12), mask_((size_t{1} << 12) - 1) {}

  // Starts loading the slot where find(h) begins.
  void prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }

  // The cached ids of piece [p, p + n) with hash h, or nullptr.
  const uint32_t* find(const uint8_t* p, size_t n, uint64_t h, uint32_t* count) const {
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.n_ids == 0) return nullptr;
      if (s.hash == h && s.key_len == n && std::memcmp(keys_.data() + s.key_off, p, n) == 0) {
        *count = s.n_ids;
        return ids_.data() + s.ids_off;
      }
    }
  }

  // Returns true if the table was full and cleared first.
  bool insert(const uint8_t* p, size_t n, uint64_t h, const uint32_t* ids, size_t count) {
    if (n > kMaxPiece || count == 0 || count > 0xFFFF) return false;
    bool cleared = false;
    if (used_ * 2 >= slots_.size() || keys_.size() > (16u << 20)) {
      if (slots_.size() < kMaxSlots && keys_.size() <= (16u << 20)) {
        grow();
      } else {
        clear();
        cleared = true;
      }
    }
    size_t i = h & mask_;
    while (slots_[i].n_ids != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{h, static_cast<uint32_t>(keys_.size()), static_cast<uint32_t>(ids_.size()),
                     static_cast<uint16_t>(n), static_cast<uint16_t>(count)};
    keys_.append(p, n);
    ids_.append(ids, count);
    ++used_;
    return cleared;
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.n_ids == 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].n_ids != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  void clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    keys_.clear();
    ids_.clear();
    used_ = 0;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t key_off = 0;
    uint32_t ids_off = 0;
    uint16_t key_len = 0;
    uint16_t n_ids = 0;  // 0 marks an empty slot
  };
  std::vector<Slot> slots_;
  size_t mask_;
  size_t used_ = 0;
  // The keys' bytes and the ids, appended by a test and a memcpy (std::string::append and
  // vector::insert were out-of-line calls on every insert; figures: benchmarks/README.md).
  GrowBuffer<uint8_t> keys_;
  GrowBuffer<uint32_t> ids_;
};

}  // namespace tf
