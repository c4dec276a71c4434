// JoinIndex: (left token, right token) -> the token t whose own bytes, merged alone, end by
// joining left and right, for every token t holding a byte >= 0x80; the merge of
// non-ASCII chunks takes the rank of joining two parts from it.
//
// Why it is exact (reference/bpe.py, own_joins and merge_by_joins, holds the same rule):
// if a merge joins adjacent parts A = [i, k) and B = [k, j) of a piece, no earlier merge
// crossed i, k or j, so the merges inside [i, j) so far were those of its bytes alone (each
// the lowest, leftmost pair inside), and that merge alone ends in the same join of A and
// B into t = bytes [i, j).  So two parts whose bytes spell a token t but are not t's own
// last join (or spell a token its bytes never merge into) are never joined: their pair is
// never the lowest, leftmost one, and giving it no rank changes no choice.  The merge of
// parts that CharAtoms started as characters makes the same joins (see char_atoms.h), so
// the same holds there.  One entry per such token, and no join needs the bytes of its
// parts: a lookup hashes two ids (no key built from the bytes, no table per length).
//
// Built once per vocabulary (SharedVocab) from each token's own merge (71k tokens for
// o200k); 12-byte entries, five to a 64-byte bucket at a load of about 3/4 (1.1 MB
// for o200k, 80 KB for cl100k), behind a blocked Bloom filter (maybe()).  O(1) per lookup.
// The bucket of a future join is not known before its parts are, so only the joins of
// the first parts can be prefetched; the filter spares most later ones the wait.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "models/byte_level/vocab/token_table.h"
#include "common/inline.h"

#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

namespace tf::byte_level {

class JoinIndex {
 public:
  // Indexes the last join of every token of `vocab` holding a byte >= 0x80 whose bytes
  // merge alone into it; `lookup(p, n)` (n >= 1) is the id of those bytes or kNoToken.
  // std::bad_alloc if the table cannot be allocated.
  template <class Lookup>
  void build(const TokenTable& vocab, Lookup lookup);

  // One product serves the filter and the table.
  static TF_ALWAYS_INLINE uint64_t hash(uint32_t left, uint32_t right) {
    return key(left, right) * 0x9E3779B97F4A7C15ull;
  }
  TF_ALWAYS_INLINE uint64_t bucket_of(uint64_t h) const { return ((h >> 32) * count_) >> 32; }
  // False if no entry has these ids (h = hash(left, right); a few per cent of the pairs
  // that have none answer true): three bits of one word of a filter of ~15 bits per entry
  // (128 KB for o200k), which stays in the L2 cache where the table does not.  Most joins
  // asked for are no tokens (most of the first parts', more still of those after a merge),
  // and those after a merge wait for their lookup.
  TF_ALWAYS_INLINE bool maybe(uint64_t h) const {
    const uint64_t bits = filter_bits(h);
    return (filter_[h >> filter_shift_] & bits) == bits;
  }
  // Starts loading the bucket find() may read (whatever the filter says: asking it here
  // cost more than the loads it saved).
  TF_ALWAYS_INLINE void prefetch(uint32_t left, uint32_t right) const {
    __builtin_prefetch(&buckets_[bucket_of(hash(left, right))]);
  }
  // The token left and right join into, or kNoToken.  With SSE4.1: the five keys in three
  // compares, and the id at the first match read without a branch (slot kWays holds
  // kNoToken, or kMore once the bucket overflowed).
  TF_ALWAYS_INLINE uint32_t find(uint32_t left, uint32_t right) const {
    const uint64_t h = hash(left, right);
    if (!maybe(h)) return kNoToken;
    const uint64_t k = key(left, right);
#if defined(__SSE4_1__)
    const __m128i q = _mm_set1_epi64x(static_cast<long long>(k));
    for (uint64_t b = bucket_of(h);; b = b + 1 == count_ ? 0 : b + 1) {
      const Bucket& s = buckets_[b];
      const __m128i* keys = reinterpret_cast<const __m128i*>(s.key);
      const int m = _mm_movemask_pd(_mm_castsi128_pd(_mm_cmpeq_epi64(_mm_load_si128(keys), q))) |
                    _mm_movemask_pd(_mm_castsi128_pd(_mm_cmpeq_epi64(_mm_load_si128(keys + 1), q))) << 2 |
                    (_mm_movemask_pd(_mm_castsi128_pd(_mm_cmpeq_epi64(_mm_loadl_epi64(keys + 2), q))) & 1) << 4;
      const uint32_t id = s.id[__builtin_ctz(static_cast<unsigned>(m) | (1u << kWays))];
      if (m != 0 || id != kMore) return id;
    }
#else
    for (uint64_t b = bucket_of(h);; b = b + 1 == count_ ? 0 : b + 1) {
      const Bucket& s = buckets_[b];
      uint32_t id = kNoToken;
      for (int i = 0; i < kWays; ++i) id = s.key[i] == k ? s.id[i] : id;
      if (id != kNoToken || s.id[kWays] != kMore) return id;
    }
#endif
  }

 private:
  static TF_ALWAYS_INLINE uint64_t key(uint32_t left, uint32_t right) {
    return left | static_cast<uint64_t>(right) << 32;
  }
  // The filter's bits for hash h: bits of the product below those that pick the word.
  static TF_ALWAYS_INLINE uint64_t filter_bits(uint64_t h) {
    return (uint64_t{1} << ((h >> 24) & 63)) | (uint64_t{1} << ((h >> 30) & 63)) | (uint64_t{1} << ((h >> 36) & 63));
  }
  void allocate(size_t entries);
  void insert(uint32_t left, uint32_t right, uint32_t id);
  // The last join of the merge of [q, q + n) alone, if it ends in one part (else false).
  // rank and next: working memory.
  template <class Lookup>
  static bool last_join(const uint8_t* q, size_t n, Lookup lookup, uint32_t* left, uint32_t* right,
                        std::vector<uint32_t>& rank, std::vector<uint32_t>& next);

  static constexpr int kWays = 5;
  // Marks a bucket that a key went on from (to the next one); any value but kNoToken,
  // since it is told from a match by the match mask.
  static constexpr uint32_t kMore = 0;
  struct alignas(64) Bucket {
    uint64_t key[kWays];     // kEmpty: no entry
    uint32_t id[kWays + 1];  // id[kWays]: kNoToken, or kMore if a key went on to the next bucket
  };
  static_assert(sizeof(Bucket) == 64, "one bucket per cache line");
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // (kNoToken, kNoToken) joins nothing

  struct Free {
    void operator()(Bucket* b) const { std::free(b); }
  };
  std::unique_ptr<Bucket[], Free> owner_;
  const Bucket* buckets_ = nullptr;
  uint64_t count_ = 0;
  std::vector<uint64_t> filter_ = std::vector<uint64_t>(2, 0);  // before build(): says no to all
  int filter_shift_ = 63;  // filter_ has 2^(64 - filter_shift_) words
};

template <class Lookup>
bool JoinIndex::last_join(const uint8_t* q, size_t n, Lookup lookup, uint32_t* left, uint32_t* right,
                          std::vector<uint32_t>& rank, std::vector<uint32_t>& next) {
  // tiktoken's merge of the token's bytes: ranks of each part joined with the next one,
  // two refreshed per join.  O(n^2), tokens are short.
  rank.resize(n);
  next.resize(n + 1);
  for (size_t i = 0; i < n; ++i) {
    next[i] = static_cast<uint32_t>(i + 1);
    rank[i] = i + 1 < n ? lookup(q + i, 2) : kNoToken;
  }
  for (size_t parts = n; parts > 1; --parts) {
    uint32_t best = kNoToken;
    size_t at = 0;
    for (size_t i = 0; i < n; i = next[i]) {
      if (rank[i] < best) best = rank[i], at = i;
    }
    if (best == kNoToken) return false;
    const size_t right_at = next[at];
    if (parts == 2) {  // the last join, into the token
      *left = lookup(q, right_at);
      *right = lookup(q + right_at, n - right_at);
      return true;
    }
    const size_t after = next[right_at];
    next[at] = static_cast<uint32_t>(after);
    rank[at] = after < n ? lookup(q + at, next[after] - at) : kNoToken;
    if (at > 0) {
      size_t before = 0;
      while (next[before] != at) before = next[before];
      rank[before] = lookup(q + before, after - before);
    }
  }
  return false;
}

template <class Lookup>
void JoinIndex::build(const TokenTable& vocab, Lookup lookup) {
  struct Entry {
    uint32_t left, right, id;
  };
  std::vector<Entry> entries;
  std::vector<uint32_t> rank, next;
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) {
    if (!vocab.has(id)) continue;
    std::string_view s = vocab.bytes(id);
    const uint8_t* q = reinterpret_cast<const uint8_t*>(s.data());
    bool high = false;
    for (size_t i = 0; i < s.size(); ++i) high = high || q[i] >= 0x80;
    uint32_t left, right;
    if (!high || s.size() < 2 || !last_join(q, s.size(), lookup, &left, &right, rank, next)) continue;
    if (left != kNoToken && right != kNoToken) entries.push_back({left, right, id});  // else a byte is no token
  }
  allocate(entries.size());
  for (const Entry& e : entries) insert(e.left, e.right, e.id);
}

}  // namespace tf::byte_level
