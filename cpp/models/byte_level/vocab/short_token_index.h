// ShortTokenIndex: token bytes of 1 to 15 bytes -> id, answered from one 64-byte cache line
// with no data-dependent branch on the usual path.
//
// A string of at most 15 bytes is spelled exactly by two words (Key): its bytes [0, 8)
// zero padded, and its bytes [8, 15) zero padded with its length in the top byte (which
// no byte of the string reaches).  So an entry needs no pointer to the token's bytes, and
// no length beside the key.  Entries sit three to a 64-byte bucket; a key hashes to one
// bucket and overflows into the next ones only if that bucket is full (rare at the ~1/2
// load used here).
//
// Why it looks like this: on real text most pieces are whole tokens of a few bytes, and
// the encoder's loop is bound by instructions, branch mispredictions and cache misses.
// Piece lengths vary at random, so key() builds the words with masks from a table instead
// of branching on the length (when 16 bytes can be read at the piece), and find() tests
// the three entries of a bucket without branching on which one matches; the bucket's
// address is known from the key alone, so the encoder prefetches it pieces ahead.
// O(1) per lookup; ~40 bytes per token (4 MB for cl100k, 8 MB for o200k).  Longer tokens
// are left to TokenTable.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "models/byte_level/vocab/token_table.h"
#include "common/byte_hash.h"
#include "common/inline.h"

namespace tf::byte_level {

// For each length n <= 15: masks keeping the bytes [0, min(n, 8)) of a word (lo) and
// [8, n) of the next (hi), and the length tag of the second word.
struct ShortKeyMasks {
  uint64_t lo[16];
  uint64_t hi[16];
  uint64_t tag[16];
  constexpr ShortKeyMasks() : lo(), hi(), tag() {
    for (size_t n = 0; n < 16; ++n) {
      size_t a = n < 8 ? n : 8, b = n > 8 ? n - 8 : 0;
      lo[n] = a == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * a)) - 1;
      hi[n] = (uint64_t{1} << (8 * b)) - 1;
      tag[n] = static_cast<uint64_t>(n) << 56;
    }
  }
};
inline constexpr ShortKeyMasks kShortKeyMasks{};

class ShortTokenIndex {
 public:
  static constexpr size_t kMaxLen = 15;

  struct Key {
    uint64_t lo;  // bytes [0, min(n, 8)), zero padded
    uint64_t hi;  // bytes [8, n), zero padded, | n << 56

    // True if a byte of the string is >= 0x80 (the length tag, <= 15, has no high bit).
    bool has_high_byte() const { return ((lo | hi) & 0x8080808080808080ull) != 0; }
  };

  // The key of n (1..kMaxLen) bytes at p, where 16 bytes can be read at p.
  static TF_ALWAYS_INLINE Key key_wide(const uint8_t* p, size_t n) {
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    return Key{a & kShortKeyMasks.lo[n], (b & kShortKeyMasks.hi[n]) | kShortKeyMasks.tag[n]};
  }
  // The key of n (1..kMaxLen) bytes at p, reading nothing past p + n.
  static TF_ALWAYS_INLINE Key key_exact(const uint8_t* p, size_t n) {
    const uint64_t tag = static_cast<uint64_t>(n) << 56;
    return n <= 8 ? Key{load_head(p, n), tag} : Key{load_head(p, 8), load_head(p + 8, n - 8) | tag};
  }
  // key_wide when [p, p + 16) lies before `limit`, else key_exact.
  static TF_ALWAYS_INLINE Key key(const uint8_t* p, size_t n, const uint8_t* limit) {
    return limit - p >= 16 ? key_wide(p, n) : key_exact(p, n);
  }

  // Indexes the tokens of 1..kMaxLen bytes of `vocab`; std::bad_alloc if the table cannot
  // be allocated (every byte-level model has one).
  void build(const TokenTable& vocab);

  // A hash of a key whose high bits are well mixed (tables take their slot from them).
  static TF_ALWAYS_INLINE uint64_t hash(Key k) {
    uint64_t h = k.lo * 0x9E3779B97F4A7C15ull + k.hi * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 29);
  }
  // The bucket of a key whose hash h = hash(k) the caller has (the encoder keeps it for
  // the short merge cache too), and of a key.
  TF_ALWAYS_INLINE uint64_t bucket_of_hash(uint64_t h) const { return h >> shift_; }
  TF_ALWAYS_INLINE uint64_t bucket_of(Key k) const { return bucket_of_hash(hash(k)); }
  TF_ALWAYS_INLINE void prefetch(Key k) const { prefetch_bucket(bucket_of(k)); }
  TF_ALWAYS_INLINE void prefetch_bucket(uint64_t b) const { __builtin_prefetch(&buckets_[b]); }

  // The id of the string with key k, or kNoToken.
  TF_ALWAYS_INLINE uint32_t find(Key k) const { return find_in(k, bucket_of(k)); }
  // find() with b = bucket_of(k) (a caller that prefetched the bucket has it).
  TF_ALWAYS_INLINE uint32_t find_in(Key k, uint64_t b) const {
    for (;; b = (b + 1) & mask_) {
      const Bucket& s = buckets_[b];
      uint32_t id = kNoToken;
      for (int i = 0; i < kWays; ++i) id = (s.lo[i] == k.lo) & (s.hi[i] == k.hi) ? s.id[i] : id;
      if (id != kNoToken || !s.overflow) return id;
    }
  }

 private:
  static constexpr int kWays = 3;
  struct alignas(64) Bucket {
    uint64_t lo[kWays];
    uint64_t hi[kWays];  // 0 marks an empty entry (a key's hi holds its length, >= 1)
    uint32_t id[kWays];
    uint32_t overflow;   // nonzero: a key of this bucket went on to the next one
  };
  static_assert(sizeof(Bucket) == 64, "one bucket per cache line");

  struct Free {
    void operator()(Bucket* b) const { std::free(b); }
  };
  std::unique_ptr<Bucket[], Free> owner_;
  const Bucket* buckets_ = nullptr;
  uint64_t mask_ = 0;
  int shift_ = 63;
};

}  // namespace tf::byte_level
