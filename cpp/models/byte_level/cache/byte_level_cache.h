// ByteLevelCache: a thread's memory of merges for one byte-level vocabulary.
//
// The general PieceCache holds pieces of 16 to kMaxPiece bytes; strings of up to 15 bytes
// (whole pieces that are not tokens, and the short chunks of longer pieces) go to a
// ShortMergeCache of one cache line per string.  A FirstSightFilter decides whether a new
// short ASCII piece is worth looking up and storing at all.  Clearing the general table
// (when it is full) clears the short one too, so both stay bounded together.
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
};

}  // namespace tf::byte_level
