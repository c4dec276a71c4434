// ByteLevelCache: a thread's memory of merges for one byte-level vocabulary.
//
// The general PieceCache holds pieces of up to kMaxPiece bytes; strings of up to 15
// bytes (whole pieces that are not tokens, and the short chunks of longer pieces) go first
// to a ShortMergeCache of one cache line per string, and to the general table once that is
// full.  Two FirstSightFilters decide whether a new short ASCII piece, or a long piece led
// by a three-byte character, is worth looking up and storing at all.  Clearing the general
// table (when it is full) clears the short one too, so both stay bounded together.
#pragma once

#include "common/piece_cache.h"
#include "models/byte_level/cache/first_sight_filter.h"
#include "models/byte_level/cache/short_merge_cache.h"

namespace tf::byte_level {

class ByteLevelCache : public PieceCache {
 public:
  ShortMergeCache& shorts() { return shorts_; }
  const ShortMergeCache& shorts() const { return shorts_; }
  // Whether a short ASCII piece is cached on first sight (see ByteLevelBpe::encode_short_nontoken).
  FirstSightFilter& first_sight() { return first_sight_; }
  // Whether a long piece led by a three-byte character is (see ByteLevelBpe::encode_merged).
  FirstSightFilter& long_first_sight() { return long_first_sight_; }
  // Pieces of kLongFiltered + 1 .. kMaxPiece bytes whose first byte leads a three-byte
  // character (CJK runs) go through long_first_sight().
  static constexpr size_t kLongFiltered = 15;
  static bool long_filtered(const uint8_t* p, size_t n) {
    return n - (kLongFiltered + 1) < kMaxPiece - kLongFiltered && (p[0] & 0xF0u) == 0xE0u;
  }

  void insert(const uint8_t* p, size_t n, uint64_t h, const uint32_t* ids, size_t count) {
    if (PieceCache::insert(p, n, h, ids, count)) shorts_.clear();
  }
  void clear() {
    PieceCache::clear();
    shorts_.clear();
  }

 private:
  ShortMergeCache shorts_;
  FirstSightFilter first_sight_{FirstSightFilter::kShortStart, 20};
  FirstSightFilter long_first_sight_{FirstSightFilter::kOn - 64, 16};
};

}  // namespace tf::byte_level
