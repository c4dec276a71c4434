// FirstSightFilter: an admission policy for the piece caches.  While most short
// pieces that need merging are new (random letters, base64), it answers whether a piece is
// seen for the first time, so that it is merged without asking or filling the cache, and
// only a piece met again is looked up and stored.
//
// Why: a piece met once never pays back its cache line.  On a megabyte of random
// mixed-case letters (o200k: first-time pieces of a few bytes) the cache's probe misses
// on every new piece, its inserts grow it to 8 MB, and that table pushes the short token
// index out of the caches; merging those pieces without the cache was much faster.  On
// text most such pieces recur (on English most short ASCII pieces that are not tokens
// are found in the cache), so there it stays off and costs a counter update per lookup:
// off, every piece is cached on first sight as before.
//
// The policy follows how many pieces recur: off, a cache hit counts as recurring; on, a
// piece the bits have seen does (the cache may miss it, its first sighting not stored).
// A score rises by 2 on a piece not recurring and falls by 3 on one recurring, so it
// climbs while fewer than 2 in 5 recur; past kOn the filter is on, below kOff off again.  The filter is a bit per hash
// (2^20 bits, 128 KB, allocated when first on), set on first sight and cleared when an eighth are set, so a piece is
// taken as new falsely at most ~1 time in 8 (then it is merely looked up and cached).
// A piece cached before the filter came on, or before a clear, is merged once more on its
// next sighting and found after.  O(1) per piece.  Not thread-safe (inside PieceCache).
//
// Used for whole short ASCII pieces (ByteLevelBpe::encode_short_nontoken).  A second
// instance for long pieces led by a three-byte character (CJK runs) did not pay and was
// removed (benchmarks/README.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tf::byte_level {

class FirstSightFilter {
 public:
  static constexpr int32_t kMax = 4096, kOn = 2048, kOff = 1024;

  // start: the score a new filter starts from; bits: log2 of its bit count (>= 6).
  FirstSightFilter(int32_t start, int bits)
      : shift_(64 - bits), clear_at_(uint32_t{1} << (bits - 3)), words_(size_t{1} << (bits - 6)), score_(start) {}

  // The start of the filter of short ASCII pieces: in a fresh cache every piece misses at
  // first, text or not, so it waits for ~5000 more misses than hits before it can come on.
  static constexpr int32_t kShortStart = -3 * kOn;

  bool on() const { return on_; }

  // The protocol of both users, per piece: skip(h) is true for a piece met for the first
  // time while the filter is on (merge it without the cache); otherwise the caller asks
  // its cache and reports with looked_up(hit).  While filtering, a piece seen before counts
  // as recurring even if the cache misses it (its first sighting was not stored): counting
  // cache hits alone, text whose cold start turned the filter on could not turn it off
  // again (cl100k English stayed filtered).
  bool skip(uint64_t h) {
    if (!on_ || !first_sight(h)) return false;
    note(false);
    return true;
  }
  void looked_up(bool hit) { note(on_ || hit); }

 private:
  // With on(): true if no piece with hash h was seen since the last clear (h is
  // ShortTokenIndex::hash of its key); marks it seen.
  bool first_sight(uint64_t h) {
    const uint64_t i = (h * 0xD6E8FEB86659FD93ull) >> shift_;
    uint64_t& word = bits_[i >> 6];
    const uint64_t bit = uint64_t{1} << (i & 63);
    if ((word & bit) != 0) return false;
    word |= bit;
    if (++set_ == clear_at_) clear_bits();
    return true;
  }

  // Records whether a whole piece recurred (see above).
  void note(bool hit) {
    score_ = hit ? (score_ > 3 ? score_ - 3 : std::min(score_, int32_t{0})) : (score_ < kMax ? score_ + 2 : kMax);
    if (!on_ && score_ >= kOn) {
      turn_on();
    } else if (on_ && score_ < kOff) {
      on_ = false;
    }
  }

  void turn_on() {
    if (bits_.empty()) bits_.resize(words_);
    clear_bits();
    on_ = true;
  }
  void clear_bits() {
    std::fill(bits_.begin(), bits_.end(), 0);
    set_ = 0;
  }

  int shift_;          // 64 - log2 of the bit count
  uint32_t clear_at_;  // an eighth of the bits
  size_t words_;       // the bits' size in words, allocated when first on
  std::vector<uint64_t> bits_;
  uint32_t set_ = 0;
  int32_t score_;
  bool on_ = false;
};

}  // namespace tf::byte_level
