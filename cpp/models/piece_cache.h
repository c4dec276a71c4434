// PieceCache: remembers the ids of pieces that needed merging, so a piece seen before
// costs one hash lookup instead of a BPE merge.
//
// Open addressing (linear probing) on the piece's 64-bit hash; keys and ids live in two
// arenas.  Bounded: when it is half full or its arenas pass a few MB it is cleared, so
// memory stays constant however long the input.  Not thread-safe: each thread owns one
// per vocabulary (see thread_cache()).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tf {

class PieceCache {
 public:
  static constexpr size_t kMaxPiece = 128;  // longer pieces are rare repeats: not cached

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

  // Chunk memo: the merge of a short chunk (see SafeCuts) of at most kChunkMax bytes with at
  // most kChunkIds ids, by its spelling (lo, hi: bytes [0, 8) and [8, 16), zero padded, and
  // the length) in a direct-mapped table of 64-byte entries.  On text in scripts without
  // spaces the same few-byte chunks recur in many distinct pieces (the pieces themselves
  // rarely repeat), so this saves most first-time merges there.  h: a well-mixed hash.
  static constexpr size_t kChunkMax = 15, kChunkIds = 11;  // kChunkMax: ShortTokenIndex::kMaxLen
  bool chunk_find(uint64_t h, uint64_t lo, uint64_t hi, size_t n, std::vector<uint32_t>* out) const {
    const Chunk& c = chunks_[h >> (64 - kChunkBits)];
    if (c.lo != lo || c.hi != hi || c.len != n) return false;
    out->insert(out->end(), c.ids, c.ids + c.count);
    return true;
  }
  void chunk_insert(uint64_t h, uint64_t lo, uint64_t hi, size_t n, const uint32_t* ids, size_t count) {
    if (count > kChunkIds) return;
    Chunk& c = chunks_[h >> (64 - kChunkBits)];
    c.lo = lo;
    c.hi = hi;
    c.len = static_cast<uint8_t>(n);
    c.count = static_cast<uint8_t>(count);
    std::memcpy(c.ids, ids, count * sizeof(uint32_t));
  }

  void insert(const uint8_t* p, size_t n, uint64_t h, const uint32_t* ids, size_t count) {
    if (n > kMaxPiece || count == 0 || count > 0xFFFF) return;
    if (used_ * 2 >= slots_.size() || keys_.size() > (16u << 20)) {
      if (slots_.size() < kMaxSlots && keys_.size() <= (16u << 20)) grow();
      else clear();
    }
    size_t i = h & mask_;
    while (slots_[i].n_ids != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{h, static_cast<uint32_t>(keys_.size()), static_cast<uint32_t>(ids_.size()),
                     static_cast<uint16_t>(n), static_cast<uint16_t>(count)};
    keys_.append(reinterpret_cast<const char*>(p), n);
    ids_.insert(ids_.end(), ids, ids + count);
    ++used_;
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
  struct Chunk {
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint8_t len = 0;  // 0: empty (chunks are never empty)
    uint8_t count = 0;
    uint32_t ids[kChunkIds] = {};
  };
  static_assert(sizeof(Chunk) == 64, "one chunk entry per cache line");
  static constexpr int kChunkBits = 12;
  std::vector<Chunk> chunks_ = std::vector<Chunk>(size_t{1} << kChunkBits);
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

// A new owner number for thread_cache: process-unique, never reused.
uint64_t new_cache_owner();

}  // namespace tf
