// PieceCache: remembers the ids of pieces that needed merging, so a piece seen before
// costs one hash lookup instead of a BPE merge.
//
// Open addressing (linear probing) on the piece's 64-bit hash; keys and ids live in two
// arenas.  Bounded: when it is half full or its arenas pass a few MB it is cleared, so
// memory stays constant however long the input.  Not thread-safe: each thread owns one
// per vocabulary (see thread_cache()).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tf {

class PieceCache {
 public:
  static constexpr size_t kMaxPiece = 128;  // longer pieces are rare repeats: not cached

  explicit PieceCache(size_t slots = 1u << 15) : slots_(slots), mask_(slots - 1) {}

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

  void insert(const uint8_t* p, size_t n, uint64_t h, const uint32_t* ids, size_t count) {
    if (n > kMaxPiece || count == 0 || count > 0xFFFF) return;
    if (used_ * 2 >= slots_.size() || keys_.size() > (4u << 20)) clear();
    size_t i = h & mask_;
    while (slots_[i].n_ids != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{h, static_cast<uint32_t>(keys_.size()), static_cast<uint32_t>(ids_.size()),
                     static_cast<uint16_t>(n), static_cast<uint16_t>(count)};
    keys_.append(reinterpret_cast<const char*>(p), n);
    ids_.insert(ids_.end(), ids, ids + count);
    ++used_;
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
  std::string keys_;
  std::vector<uint32_t> ids_;
};

// This thread's cache for the vocabulary with identity `owner` (a process-unique number,
// never reused, so a cache cannot outlive its vocabulary's meaning).  A thread keeps the
// caches of its few most recently used vocabularies.
PieceCache& thread_cache(uint64_t owner);

}  // namespace tf
