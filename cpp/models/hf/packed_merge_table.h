// PackedMergeTable: (left id, right id) -> merge rank for MergeRankBpe, one 64-bit word per
// merge.  A merge lookup on a large vocabulary (Gemma: 256k tokens, 580k merges) is a cache
// miss into a table of several MB; U64Map keeps keys and values in two arrays (two misses
// per hit) at most half full.  Here the key (left << id_bits | right) and the rank share one
// word, so a hit or a miss reads one cache line, and the table is a quarter of the size.
// The merged token of a rank comes from a separate array, read only when a merge is made.
//
// Linear probing over a power-of-two table at most 80% full (eight slots share a cache
// line, so a longer probe rarely reads a second line), one multiply-shift hash; no
// erase; the all-ones word marks an empty slot.  In front of it a bit filter of the keys
// answers most pairs that have no merge.  init() fails (returns false) when two ids and a
// rank do not fit in 64 bits (ids past 2^22 with millions of merges): the caller keeps a
// U64Map then.  The merge order itself is MergeRankBpe's (reference: tokenforge/models/bpe.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tf::hf {

class PackedMergeTable {
 public:
  static constexpr uint32_t kNoRank = 0xFFFFFFFFu;

  // vocab_size: ids are below it; n_merges: ranks are below it.  False when they do not fit.
  bool init(size_t vocab_size, size_t n_merges) {
    id_bits_ = 1;
    while ((size_t{1} << id_bits_) < vocab_size) ++id_bits_;
    if (2 * id_bits_ >= 64) return false;
    rank_bits_ = 64 - 2 * id_bits_;
    // Ranks are at most 2^32 - 2 (kNoRank is reserved) and leave the all-ones word free.
    const uint64_t rank_limit = rank_bits_ >= 32 ? uint64_t{0xFFFFFFFEu} : (uint64_t{1} << rank_bits_) - 1;
    if (n_merges >= rank_limit) return false;
    size_t capacity = 16;
    while (capacity * 4 < n_merges * 5) capacity *= 2;  // at most 80% full
    slots_.assign(capacity, kEmpty);
    size_t bits = 64;
    while (bits < 8 * n_merges) bits *= 2;
    filter_.assign(bits / 64, 0);
    filter_shift_ = 64;
    for (size_t b = bits; b > 1; b >>= 1) --filter_shift_;
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    return true;
  }

  // Maps (left, right) to rank; a pair listed again takes the later rank, as a dict would.
  void set(uint32_t left, uint32_t right, uint32_t rank) {
    const uint64_t key = pack(left, right);
    const uint64_t word = (key << rank_bits_) | rank;
    const uint64_t f = filter_bit(key);
    filter_[f >> 6] |= uint64_t{1} << (f & 63);
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      if (slots_[i] == kEmpty || (slots_[i] >> rank_bits_) == key) {
        slots_[i] = word;
        return;
      }
    }
  }

  // The rank of (left, right), or kNoRank.
  uint32_t rank(uint32_t left, uint32_t right) const {
    const uint64_t key = pack(left, right);
    const uint64_t f = filter_bit(key);
    if (((filter_[f >> 6] >> (f & 63)) & 1) == 0) return kNoRank;
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      const uint64_t w = slots_[i];
      if ((w >> rank_bits_) == key && w != kEmpty) return static_cast<uint32_t>(w & rank_mask());
      if (w == kEmpty) return kNoRank;
    }
  }

  // Starts loading the filter word and the slot where rank(left, right) begins.
  void prefetch(uint32_t left, uint32_t right) const {
    const uint64_t key = pack(left, right);
    __builtin_prefetch(&filter_[filter_bit(key) >> 6]);
    __builtin_prefetch(&slots_[slot(key)]);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  uint64_t pack(uint32_t left, uint32_t right) const { return (static_cast<uint64_t>(left) << id_bits_) | right; }
  uint64_t rank_mask() const { return rank_bits_ >= 64 ? ~uint64_t{0} : (uint64_t{1} << rank_bits_) - 1; }
  size_t slot(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_); }
  uint64_t filter_bit(uint64_t key) const { return (key * 0xD6E8FEB86659FD93ULL) >> filter_shift_; }

  std::vector<uint64_t> slots_;
  // A bit per hash of the merges' keys (8 bits per merge): a clear bit answers a pair with
  // no merge, the most common lookup, from a table that stays in cache.
  std::vector<uint64_t> filter_;
  int filter_shift_ = 64;
  size_t mask_ = 0;
  int shift_ = 64;
  unsigned id_bits_ = 1;
  unsigned rank_bits_ = 62;
};

}  // namespace tf::hf
