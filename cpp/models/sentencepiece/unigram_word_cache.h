// UnigramWordCache: per-thread memory of word segmentations for Unigram::encode, laid out
// so that a hit costs at most two cache misses and both can be prefetched ahead: an
// open-addressing slot array (8 bytes: 32-bit hash tag, record offset) and one arena in
// which a record holds the key, the safe bound on the prefix total (see unigram_words.cc)
// and the pieces (id | length << 24, float score) side by side.
//
// Bounded: cleared once the arena passes 8 MB or the slots are half full at the maximum
// size, so memory stays constant however long the input.  Not thread-safe: see
// thread_cache<UnigramWordCache>(owner) (common/thread_cache.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace tf::spm {

// A float stored in the cache's uint32_t words (bounds, scores).
inline float float_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}


class UnigramWordCache {
 public:
  static constexpr size_t kMaxWord = 128;  // longer words are segmented in place
  static constexpr size_t kMaxPieces = kMaxWord;

  UnigramWordCache() : slots_(size_t{1} << 12, 0), mask_((size_t{1} << 12) - 1) {}

  void prefetch_slot(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  // Prefetches the record the slot for h points at, if the slot is taken (a guess: the
  // first slot of the probe sequence).
  void prefetch_record(uint64_t h) const {
    const uint64_t s = slots_[h & mask_];
    if (s != 0) __builtin_prefetch(&arena_[static_cast<uint32_t>(s) - 1]);
  }

  // The record of word [p, p + n) with hash h, or nullptr.  Record layout: [0] n | pieces
  // << 16, [1] bound (float bits), key in (n + 3) / 4 words, then two words per piece.
  const uint32_t* find(const uint8_t* p, size_t n, uint64_t h) const {
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const uint64_t s = slots_[i];
      if (s == 0) return nullptr;
      if (static_cast<uint32_t>(s >> 32) != tag) continue;
      const uint32_t* r = &arena_[static_cast<uint32_t>(s) - 1];
      if ((r[0] & 0xFFFF) == n && same_bytes(reinterpret_cast<const uint8_t*>(r + 2), p, n)) return r;
    }
  }
  // a[0, n) == b[0, n) without a library call: words are short (most under 16 bytes), and
  // a call to memcmp per lookup costs more than the compare.
  static bool same_bytes(const uint8_t* a, const uint8_t* b, size_t n) {
    auto load8 = [](const uint8_t* q) {
      uint64_t v;
      std::memcpy(&v, q, 8);
      return v;
    };
    auto load4 = [](const uint8_t* q) {
      uint32_t v;
      std::memcpy(&v, q, 4);
      return v;
    };
    if (n >= 8) {
      // 8-byte blocks, the last one overlapping the one before it.
      for (size_t i = 0; i + 8 < n; i += 8) {
        if (load8(a + i) != load8(b + i)) return false;
      }
      return load8(a + n - 8) == load8(b + n - 8);
    }
    if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  static size_t pieces_of(const uint32_t* record) { return record[0] >> 16; }
  static const uint32_t* pieces(const uint32_t* record) { return record + 2 + ((record[0] & 0xFFFF) + 3) / 4; }

  // Adds a record: `bound`, then `count` pieces as (id | length << 24, score bits) pairs.
  const uint32_t* insert(const uint8_t* p, size_t n, uint64_t h, uint32_t bound, const uint32_t* pieces,
                         size_t count) {
    if (used_ * 2 >= slots_.size()) {
      if (slots_.size() < kMaxSlots) grow();
      else clear();
    }
    if (arena_.size() > (size_t{8} << 20) / 4) clear();
    const size_t at = arena_.size();
    arena_.push_back(static_cast<uint32_t>(n | (count << 16)));
    arena_.push_back(bound);
    const size_t key_words = (n + 3) / 4;
    arena_.resize(arena_.size() + key_words, 0);
    std::memcpy(&arena_[at + 2], p, n);
    arena_.insert(arena_.end(), pieces, pieces + 2 * count);
    size_t i = h & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = (static_cast<uint64_t>(h >> 32) << 32) | static_cast<uint32_t>(at + 1);
    ++used_;
    return &arena_[at];
  }

 private:
  static constexpr size_t kMaxSlots = size_t{1} << 18;
  void grow() {
    std::vector<uint64_t> old(slots_.size() * 2, 0);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (uint64_t s : old) {
      if (s == 0) continue;
      const uint32_t* r = &arena_[static_cast<uint32_t>(s) - 1];
      // The slot keeps only the top half of the hash, so rehash the key.
      size_t i = rehash(r) & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  void clear() {
    std::fill(slots_.begin(), slots_.end(), 0);
    arena_.clear();
    used_ = 0;
  }
  static uint64_t rehash(const uint32_t* record);

  std::vector<uint64_t> slots_;
  size_t mask_;
  size_t used_ = 0;
  std::vector<uint32_t> arena_;
};


}  // namespace tf::spm
