#include "models/byte_level/byte_level_bpe.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "models/byte_level/merge/trie_chunk_merge.h"
#include "common/byte_hash.h"

#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

namespace tf::byte_level {

bool ByteLevelBpe::build(std::vector<std::pair<std::string, uint32_t>> ranks, std::string* error) {
  instance_ = new_cache_owner();
  TokenTable table;
  if (!table.build(std::move(ranks), error)) return false;
  shared_ = share_vocab(std::move(table));
  vocab_ = &shared_->table;
  joins_ = &shared_->joins;
  chars_ = &shared_->chars;
  all_bytes_ = true;
  for (int b = 0; b < 256; ++b) {
    uint8_t byte = static_cast<uint8_t>(b);
    byte_token_[b] = vocab_->find(&byte, 1);
    all_bytes_ = all_bytes_ && byte_token_[b] != kNoToken;
  }
  pair_token_ = shared_->pairs.data();
  whole_wide_ = shared_->whole_wide;
  cuts_.build(*vocab_);
  atoms_.build(*vocab_);
  short_.build(*vocab_);
  triples_.build(*vocab_);
  return true;
}

bool ByteLevelBpe::encode_piece_slow(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out,
                                     ByteLevelCache* cache) const {
  uint32_t whole = lookup_hashed(p, n, h);
  if (whole != kNoToken) {
    out->push_back(whole);
    return true;
  }
  return encode_merged(p, n, h, out, cache);
}

namespace {

// Appends the ids the general table of `cache` holds for [p, p + n) (hash h); false if none.
bool from_cache(const uint8_t* p, size_t n, uint64_t h, const ByteLevelCache& cache, std::vector<uint32_t>* out) {
  uint32_t count;
  const uint32_t* ids = cache.find(p, n, h, &count);
  if (ids == nullptr) return false;
  out->insert(out->end(), ids, ids + count);
  return true;
}

// The merge of a string of up to ShortMergeCache::kMaxLen bytes (key k, h its hash) from
// the short table of `cache`; else merge() appends it (false: nothing to store, returned
// as is) and it is stored there.  (Spilling into the general table once the short one is
// full did not pay: benchmarks/README.md.)
template <class Merge>
bool through_short_cache(ShortTokenIndex::Key k, uint64_t h, ByteLevelCache& cache, std::vector<uint32_t>* out,
                         Merge merge) {
  ShortMergeCache& shorts = cache.shorts();
  if (shorts.find(k, h, out)) return true;
  const size_t before = out->size();
  if (!merge()) return false;
  shorts.insert(k, h, out->data() + before, out->size() - before);
  return true;
}

}  // namespace

bool ByteLevelBpe::bytes_are_tokens(const uint8_t* p, size_t n) const {
  if (all_bytes_) return true;  // then no piece can hold a byte that is not a token
  for (size_t i = 0; i < n; ++i) {
    if (byte_token_[p[i]] == kNoToken) return false;
  }
  return true;
}

bool ByteLevelBpe::encode_nontoken(const uint8_t* p, size_t n, std::vector<uint32_t>* out, ByteLevelCache* cache) const {
  if (n == 1) return false;  // a byte that is not a token
  if (n <= ShortTokenIndex::kMaxLen) {
    ShortTokenIndex::Key k = ShortTokenIndex::key_exact(p, n);
    return encode_short_nontoken(p, n, k.lo, k.hi, ShortTokenIndex::hash(k), out, cache);
  }
  return encode_merged(p, n, hash_bytes(p, n), out, cache);
}

// A piece of 2..15 bytes that is not a token (key k, h its hash), by its route.
bool ByteLevelBpe::encode_short_nontoken(const uint8_t* p, size_t n, uint64_t lo, uint64_t hi, uint64_t h,
                                         std::vector<uint32_t>* out, ByteLevelCache* cache) const {
  const ShortTokenIndex::Key k{lo, hi};
  const Route r = short_route(k, n);
  if (r == Route::kTinyAscii) {
    if (!bytes_are_tokens(p, n)) return false;
    merge_tiny_ascii(lo, n, out);
    return true;
  }
  if (r != Route::kShortAscii) {
    return through_short_cache(k, h, *cache, out, [&] {
      if (!bytes_are_tokens(p, n)) return false;
      if (r == Route::kWhole) {
        merge_parts(p, n, out);
      } else {
        merge_chunks(p, n, out, cache, true);  // cannot fail: every byte is a token, n <= kShortPiece
      }
      return true;
    });
  }
  // kShortAscii: while most such pieces are new (random letters), one seen for the first
  // time is merged without the cache, by merge_ascii (FirstSightFilter); merge_ascii only
  // then, since on text its bit table is not in cache for the few new pieces.
  FirstSightFilter& filter = cache->first_sight();
  if (filter.skip(h)) {
    if (!bytes_are_tokens(p, n)) return false;
    merge_ascii(k, n, out);
    return true;
  }
  const bool filtering = filter.on();
  bool merged = false;
  const bool ok = through_short_cache(k, h, *cache, out, [&] {
    merged = true;
    if (!bytes_are_tokens(p, n)) return false;
    if (filtering) {
      merge_ascii(k, n, out);
    } else {
      merge_parts(p, n, out);
    }
    return true;
  });
  filter.looked_up(!merged);
  return ok;
}

// A piece that is not a token (h its hash): the short path up to 15 bytes; else the piece
// cache, then its route.
bool ByteLevelBpe::encode_merged(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out,
                                 ByteLevelCache* cache) const {
  if (n <= ShortTokenIndex::kMaxLen) {
    ShortTokenIndex::Key k = ShortTokenIndex::key_exact(p, n);
    return encode_short_nontoken(p, n, k.lo, k.hi, ShortTokenIndex::hash(k), out, cache);
  }
  if (from_cache(p, n, h, *cache, out)) return true;
  if (!bytes_are_tokens(p, n)) return false;
  size_t before = out->size();
  bool ok = true;
  if (long_route(p, n) == Route::kWhole) {
    merge_parts(p, n, out);
  } else {
    ok = merge_chunks(p, n, out, cache);
  }
  if (ok) cache->insert(p, n, h, out->data() + before, out->size() - before);
  return ok;
}

namespace {

// True if [p + 1, p + n) repeats one byte (n >= 2): a run, maybe after a space as the
// patterns cut " aaaa".
bool is_run(const uint8_t* p, size_t n) {
  uint8_t differ = 0;
  for (size_t i = 2; i < n; ++i) differ |= p[i] ^ p[1];
  return differ == 0;
}

}  // namespace

// A chunk is not looked up whole: tiktoken emits a token directly only for a whole piece,
// and a chunk's merges need not end in the token its bytes spell.  The chunks of a piece
// over kTrieAfter bytes are merged with the TokenTrie (trie_chunk_merge.h) once it is
// wanted: merge_short's scan is quadratic, the trie scan's batched rounds suit runs, so
// such pieces count toward building it; a stream of them gets the trie and a few never
// wait.  A piece of n <= 256 bytes counts n * n / 512: what the scan costs over the trie
// grows with n, and the build pays off only after a few MB of such pieces, so a one-off
// megabyte of them does not build (ski rental).  A chunk that repeats one byte (253
// spaces, or " aaaa") takes the backtracking merge instead once it is built
// (LongPieceTables::backtrack_for_run); on other chunks its pair checks cost more than the
// trie scan.  Chunks of up to ShortMergeCache::kMaxLen bytes of pieces of at most
// kShortPiece bytes keep merge_short and its cache even then: in text such pieces are
// mostly CJK words cut into chunks that recur across pieces, which the cache answers by
// one probe; longer pieces (a megabyte of random letters) keep the trie, whose tables stay
// in cache where first-time chunks would only fill the merge cache.
// Out of line, so that merge_chunks' scan for cuts keeps its registers.
__attribute__((noinline)) void ByteLevelBpe::merge_medium_chunk(const TokenTrie& trie, const uint8_t* q, size_t m,
                                                                std::vector<uint32_t>* out) const {
  const BacktrackMerge* linear = m > kTrieAfter && is_run(q, m) ? shared_->long_tables.backtrack_for_run(*vocab_, m) : nullptr;
  if (linear == nullptr || !linear->encode(q, m, out, instance_)) trie_chunk_merge(trie, q, m, out);
}

bool ByteLevelBpe::merge_chunks(const uint8_t* p, size_t n, std::vector<uint32_t>* out, ByteLevelCache* cache,
                                bool whole_cached) const {
  const size_t weight = n > kShortPiece ? n : n * n / (2 * kShortPiece);
  const TokenTrie* trie = n > kTrieAfter && shared_->long_tables.wanted(weight) ? shared_->long_tables.trie(*vocab_) : nullptr;
  size_t start = 0;
  for (;;) {
    // Runs of three-byte characters (CJK text) are cut at character bounds, and chunks of
    // one character take their merge alone (CharMerges) there (see SafeCuts::char_run).
    size_t b = 0;
    if (n <= kShortPiece && SafeCuts::lead3(p[start])) {
      b = cuts_.char_run(p, n, &start, [&](size_t c) { return chars_->append(p + c, out); });
      if (start == n) break;
    }
    if (b == 0) b = cuts_.next(p, n, start + 1);
    const uint8_t* q = p + start;
    size_t m = b - start;
    if (m == 1) {
      out->push_back(byte_token_[q[0]]);
    } else if (m == 2) {
      uint32_t t = pair_token_[q[0] | (q[1] << 8)];
      if (t != kNoToken) {
        out->push_back(t);
      } else {
        out->push_back(byte_token_[q[0]]);
        out->push_back(byte_token_[q[1]]);
      }
    } else if (m == 3 && chars_->append(q, out)) {
      // One character (most chunks of CJK text in cl100k): its merge alone (CharMerges).
    } else if (trie != nullptr && (n > kShortPiece || m > ShortMergeCache::kMaxLen) && m <= kMaxTrieChunk) {
      merge_medium_chunk(*trie, q, m, out);
    } else if (!(m <= kShortPiece ? merge_short(q, m, out, cache, !(whole_cached && m == n)) : merge_long(q, m, out))) {
      return false;
    }
    start = b;
    if (b == n) break;
  }
  return true;
}

namespace {

#if defined(__SSE4_1__)
// The unsigned minimum of r[0, n) (n a multiple of 4, r 16-byte aligned) in every lane.
TF_ALWAYS_INLINE __m128i lane_min(const uint32_t* r, size_t n) {
  __m128i m = _mm_set1_epi32(-1);
  for (size_t i = 0; i < n; i += 4) m = _mm_min_epu32(m, _mm_load_si128(reinterpret_cast<const __m128i*>(r + i)));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0x4E));
  return _mm_min_epu32(m, _mm_shuffle_epi32(m, 0xB1));
}

// A bit per lane of r[0, n) (n <= 32, a multiple of 4) equal to v's.
TF_ALWAYS_INLINE unsigned lanes_equal(const uint32_t* r, size_t n, __m128i v) {
  unsigned mask = 0;
  for (size_t b = 0; b < n; b += 4) {
    mask |= static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(r + b)), v)))) << b;
  }
  return mask;
}
#endif

// The smallest value of r[0, n) (n a multiple of 8, padded with kNoToken) and the first
// index holding it: leftmost_two's way for more than 32 lanes.  With SSE4.1 (the x86-64-v2
// baseline): unsigned minimums four lanes at a time, then the first block of four holding
// it.  (An AVX2 clone gave nothing on typical pieces: benchmarks/README.md.)
TF_ALWAYS_INLINE uint32_t leftmost_min(const uint32_t* r, size_t n, size_t* at) {
#if defined(__SSE4_1__)
  const __m128i m = lane_min(r, n);
  const uint32_t best = static_cast<uint32_t>(_mm_cvtsi128_si32(m));
  if (best == kNoToken) return best;
  for (size_t b = 0;; b += 4) {
    __m128i eq = _mm_cmpeq_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(r + b)), m);
    int hit = _mm_movemask_ps(_mm_castsi128_ps(eq));
    if (hit != 0) {
      *at = b + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(hit)));
      return best;
    }
  }
#else
  uint32_t best = kNoToken;
  for (size_t i = 0; i < n; ++i) best = r[i] < best ? r[i] : best;
  if (best == kNoToken) return best;
  for (size_t b = 0;; b += 8) {
    uint32_t hit = 0;
    for (size_t k = 0; k < 8; ++k) hit |= static_cast<uint32_t>(r[b + k] == best) << k;
    if (hit != 0) {
      *at = b + static_cast<size_t>(__builtin_ctz(hit));
      return best;
    }
  }
#endif
}

// leftmost_min of r[0, n) (n a multiple of 8, padded with kNoToken), the index taken from
// a mask of all lanes holding the minimum (no branch on where it is, which pays on
// merge_joins' unpredictable positions), which also sets *second and *at2 to the
// next key (rank, index) above (best, *at): the same rank further right, or the smallest
// rank above best, leftmost (left unchanged if none, or if n > 32, where the masks do not
// fit).
TF_ALWAYS_INLINE uint32_t leftmost_two(const uint32_t* r, size_t n, size_t* at, uint32_t* second, size_t* at2) {
#if defined(__SSE4_1__)
  if (n <= 32) {
    const __m128i m = lane_min(r, n);
    const uint32_t best = static_cast<uint32_t>(_mm_cvtsi128_si32(m));
    if (best == kNoToken) return best;
    unsigned hits = lanes_equal(r, n, m);
    *at = static_cast<size_t>(__builtin_ctz(hits));
    hits &= hits - 1;
    if (hits != 0) {  // the same rank further right
      *second = best;
      *at2 = static_cast<size_t>(__builtin_ctz(hits));
      return best;
    }
    // The smallest of r - (best + 1): best itself wraps to the top, a padding lane (kNoToken)
    // stays below it, so the result is kNoToken if no rank is above best.
    const __m128i f = _mm_set1_epi32(static_cast<int>(best + 1));
    __m128i s = _mm_set1_epi32(-1);
    for (size_t i = 0; i < n; i += 4) {
      s = _mm_min_epu32(s, _mm_sub_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(r + i)), f));
    }
    s = _mm_min_epu32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_min_epu32(s, _mm_shuffle_epi32(s, 0xB1));
    s = _mm_add_epi32(s, f);
    const uint32_t next = static_cast<uint32_t>(_mm_cvtsi128_si32(s));
    if (next == kNoToken) return best;
    *second = next;
    *at2 = static_cast<size_t>(__builtin_ctz(lanes_equal(r, n, s)));
    return best;
  }
#endif
  return leftmost_min(r, n, at);
}

// The merge loop of merge_parts, merge_ascii and merge_joins: the parts a linked list
// (next, prev: Index wide enough for the piece; n parts or positions), rank[i] the token
// joining part i with the next (kNoToken when none, or i starts no part; padded to
// `padded` lanes).  Each scan joins the leftmost smallest and asks join(a, b) for the two
// joins it changed (part a with the part b that follows it); merged(at, right) runs as
// part `at` absorbs `right`, before those joins.  The second smallest key (rank, part) of
// the scan is the next merge too, without a scan, when the merge of the smallest wrote
// only ranks above it and left it in place (as in trie_chunk_merge.cc; reference/bpe.py,
// bpe_merge_second_smallest): the keys it did not write were at least it.  Exact for any
// rank order; its position is known before the first merge's joins are, so its own joins
// need not wait for theirs and a scan.  step(merges) runs before each scan (merge_parts'
// prefetch one length ahead).  Appends the parts' tokens.  Inlined into each caller, so
// each keeps its own code.
template <typename Index, typename Join, typename Merged, typename Step>
TF_ALWAYS_INLINE void merge_linked(uint32_t* rank, size_t padded, uint32_t* token, Index* next, Index* prev,
                                   size_t n, Join join, Merged merged, Step step, std::vector<uint32_t>* out) {
  // Joins part `at` with the next one into `best`; returns the lowest rank it wrote.
  auto merge = [&](size_t at, uint32_t best) __attribute__((always_inline)) {
    const size_t right = next[at];
    const size_t after = next[right];
    token[at] = best;
    merged(at, right);
    rank[right] = kNoToken;
    next[at] = static_cast<Index>(after);
    uint32_t low = kNoToken;
    if (after < n) {
      prev[after] = static_cast<Index>(at);
      low = join(at, after);
    }
    rank[at] = low;
    if (at > 0) {
      const size_t before = prev[at];
      const uint32_t r = join(before, at);
      rank[before] = r;
      low = r < low ? r : low;
    }
    return low;
  };
  for (size_t merges = 0;;) {
    step(merges);
    size_t at = 0, at2 = 0;
    uint32_t second = kNoToken;
    const uint32_t best = leftmost_two(rank, padded, &at, &second, &at2);
    if (best == kNoToken) break;
    ++merges;
    if (merge(at, best) > second && rank[at2] == second) {
      merge(at2, second);
      ++merges;
    }
  }
  for (size_t i = 0; i < n; i = next[i]) out->push_back(token[i]);
}

}  // namespace

// tiktoken's merge order with fixed arrays indexed by byte position: rank[i] is the token
// for the part starting at i joined with the next part (kNoToken when that is not a token
// or i no longer starts a part).  Each step takes the minimum over all n positions (a
// branch-free loop the compiler vectorizes), merges the leftmost part having it and
// refreshes two ranks; nothing is shifted.  O(n^2 / vector width) per piece.
bool ByteLevelBpe::merge_short(const uint8_t* p, size_t n, std::vector<uint32_t>* out, ByteLevelCache* cache,
                               bool cached) const {
  if (cached && n <= ShortMergeCache::kMaxLen) {
    ShortTokenIndex::Key k = ShortTokenIndex::key_exact(p, n);
    return through_short_cache(k, ShortTokenIndex::hash(k), *cache, out, [&] {
      merge_parts(p, n, out);
      return true;
    });
  }
  merge_parts(p, n, out);
  return true;
}

// merge_short without the cache.
void ByteLevelBpe::merge_parts(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const {
  // The parts' ids come from the short index by key_wide, which reads 16 bytes whatever the
  // part's length (no branch on it): a copy of the piece padded for that.
  // (And a zero byte before it, for CharAtoms::at.)
  uint8_t buffer[1 + kShortPiece + 16];
  uint8_t* bytes = buffer + 1;
  buffer[0] = 0;
  std::memcpy(bytes, p, n);
  std::memset(bytes + n, 0, 16);
  uint64_t high = 0;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes + i, 8);
    high |= w;
  }
  if ((high & 0x8080808080808080ull) != 0) {
    merge_joins(p, n, bytes, out);
    return;
  }
  alignas(32) uint32_t rank[kShortPiece];
  uint32_t token[kShortPiece];  // token of the part starting at i
  uint16_t next[kShortPiece];   // start of the following part (n at the end)
  uint16_t prev[kShortPiece];   // start of the preceding part
  const size_t padded = (n + 7) & ~size_t{7};
  for (size_t i = 0; i < n; ++i) {
    next[i] = static_cast<uint16_t>(i + 1);
    prev[i] = static_cast<uint16_t>(i == 0 ? 0 : i - 1);
    token[i] = byte_token_[p[i]];
    rank[i] = i + 1 < n ? pair_token_[p[i] | (p[i + 1] << 8)] : kNoToken;
  }
  for (size_t i = n; i < padded; ++i) rank[i] = kNoToken;
  // Each merge step probes the index for the parts it joined and the next step waits
  // for those probes, so a first-time merge is a chain of cache misses.  The parts are
  // substrings of the chunk, so their buckets are prefetched, one length per merge: k
  // merges make parts of at most k + 1 bytes, so the merges after them look up spans of
  // at most k + 3 bytes (a scan may make two); those of 3 bytes are prefetched here and,
  // before the scan after k merges, those of up to k + 4 bytes (the loop below), a merge
  // before any can be wanted.  Issuing them all here instead fills the queue of misses in
  // flight and fetches lengths no step reaches.  (The alternatives tried, and what they
  // gave, are in benchmarks/README.md.)
  size_t ahead_len = kShortPiece;
  if (n <= kPrefetchChunk) {
    for (size_t i = 0; i + 3 <= n; ++i) short_.prefetch(ShortTokenIndex::key_wide(bytes + i, 3));
    ahead_len = 4;
  }
  // rank[i] is the token for the part starting at i joined with the next part (kNoToken
  // when that is not a token or i no longer starts a part).
  auto part_rank = [&](size_t start, size_t len) {
    if (len <= ShortTokenIndex::kMaxLen) return short_.find(ShortTokenIndex::key_wide(bytes + start, len));
    return lookup(p + start, len);
  };
  // Parts are byte positions: part a and the part b after it span [a, next[b]).
  auto join = [&](size_t a, size_t b) { return part_rank(a, next[b] - a); };
  merge_linked(rank, padded, token, next, prev, n, join, [](size_t, size_t) {}, [&](size_t merges) {
    for (; ahead_len <= merges + 4 && ahead_len <= n && ahead_len <= ShortTokenIndex::kMaxLen; ++ahead_len) {
      for (size_t i = 0; i + ahead_len <= n; ++i) short_.prefetch(ShortTokenIndex::key_wide(bytes + i, ahead_len));
    }
  }, out);
}

// merge_parts for a whole ASCII piece of n <= 15 bytes (key k), whose bytes the key holds:
// a lookup is asked of the short index only if AsciiTriples lets it be a token (exact), and
// only those 3-byte spans are prefetched.  In a first-time piece of random letters most
// lookups are of no token, and each was a cache miss on the index.
void ByteLevelBpe::merge_ascii(ShortTokenIndex::Key k, size_t n, std::vector<uint32_t>* out) const {
  // The bytes, zero padded so that a key_wide (16 bytes) read at any of them stays inside.
  if (n > ShortTokenIndex::kMaxLen) __builtin_unreachable();
  alignas(16) uint8_t b[32];
  const uint64_t hi = k.hi & ~(uint64_t{0xFF} << 56);  // without the length tag
  std::memcpy(b, &k.lo, 8);
  std::memcpy(b + 8, &hi, 8);
  std::memset(b + 16, 0, 16);
  alignas(16) uint32_t rank[16];
  uint32_t token[16];
  uint8_t next[16], prev[16];
  std::fill(rank, rank + 16, kNoToken);
  for (size_t i = 0; i < n; ++i) {
    token[i] = byte_token_[b[i]];
    next[i] = static_cast<uint8_t>(i + 1);
    prev[i] = static_cast<uint8_t>(i - 1);
  }
  for (size_t i = 0; i + 1 < n; ++i) rank[i] = pair_token_[b[i] | (b[i + 1] << 8)];
  for (size_t i = 0; i + 3 <= n; ++i) {
    if (triples_.may_be_token(b + i, 3)) short_.prefetch(ShortTokenIndex::key_wide(b + i, 3));
  }
  auto part_rank = [&](size_t start, size_t len) -> uint32_t {
    if (!triples_.may_be_token(b + start, len)) return kNoToken;
    return short_.find(ShortTokenIndex::key_wide(b + start, len));
  };
  const size_t padded = n <= 8 ? 8 : 16;
  auto join = [&](size_t a, size_t b) { return part_rank(a, next[b] - a); };
  merge_linked(rank, padded, token, next, prev, n, join, [](size_t, size_t) {}, [](size_t) {}, out);
}

namespace {

// The end of a merge with three parts left (tokens u0 u1 u2) whose two joins are `left`
// (u0 with u1) and `right` (u1 with u2), all three together being no token: the smaller
// join (the left one of equal ranks), or the parts as they are if neither is a token.
void three_parts(uint32_t u0, uint32_t u1, uint32_t u2, uint32_t left, uint32_t right, std::vector<uint32_t>* out) {
  if (left == kNoToken && right == kNoToken) {
    out->push_back(u0);
    out->push_back(u1);
    out->push_back(u2);
  } else if (left <= right) {
    out->push_back(left);
    out->push_back(u2);
  } else {
    out->push_back(u0);
    out->push_back(right);
  }
}

}  // namespace

// The merge of an ASCII piece of 2..4 bytes that is no token, lo holding its bytes: a few
// pair ranks and at most two lookups of three bytes decide it, no cache and no merge loop.
// On random mixed-case letters (o200k cuts them into pieces of a few bytes, most of them
// new and no token) the loop's setup and its exits, which the branch predictor cannot
// learn, cost more than the lookups.  Exact: the merge of the whole piece is never a token, and each case
// is tiktoken's order of merges (the smallest rank first, the leftmost of equal ones): three
// bytes are three parts; four bytes are three parts after their first merge.
void ByteLevelBpe::merge_tiny_ascii(uint64_t lo, size_t n, std::vector<uint32_t>* out) const {
  const uint8_t b0 = static_cast<uint8_t>(lo), b1 = static_cast<uint8_t>(lo >> 8), b2 = static_cast<uint8_t>(lo >> 16),
                b3 = static_cast<uint8_t>(lo >> 24);
  const uint32_t t0 = byte_token_[b0], t1 = byte_token_[b1];
  if (n == 2) {  // the two bytes are no token
    out->push_back(t0);
    out->push_back(t1);
    return;
  }
  const uint32_t t2 = byte_token_[b2];
  const uint32_t r01 = pair_token_[b0 | (b1 << 8)], r12 = pair_token_[b1 | (b2 << 8)];
  if (n == 3) return three_parts(t0, t1, t2, r01, r12, out);
  const uint32_t t3 = byte_token_[b3], r23 = pair_token_[b2 | (b3 << 8)];
  // The token of the three bytes from byte `at` (0 or 1), or kNoToken.
  auto triple = [&](unsigned at) {
    const uint64_t w = lo >> (8 * at);
    if (!triples_.may_be_token_word(static_cast<uint32_t>(w), 3)) return kNoToken;
    return short_.find(ShortTokenIndex::Key{w & 0xFFFFFF, uint64_t{3} << 56});
  };
  if (r01 == kNoToken && r12 == kNoToken && r23 == kNoToken) {
    out->insert(out->end(), {t0, t1, t2, t3});
  } else if (r01 <= r12 && r01 <= r23) {  // [b0 b1][b2][b3]
    three_parts(r01, t2, t3, triple(0), r23, out);
  } else if (r12 <= r23) {  // [b0][b1 b2][b3]
    three_parts(t0, r12, t3, triple(0), triple(1), out);
  } else {  // [b0][b1][b2 b3]
    three_parts(t0, t1, r23, r01, triple(1), out);
  }
}

// The merge of merge_parts over parts instead of bytes, for a chunk holding a byte >= 0x80.
// Characters that CharAtoms admits start as their token, the rest as bytes: a third of
// the parts and merge steps on CJK text.  Two parts of which one holds a byte >= 0x80 join
// into the token JoinIndex gives for their ids (exact, see join_index.h): no key is built
// from the bytes; two ASCII parts are looked up by their bytes as in merge_parts.  Each
// join of the first parts is prefetched as soon as its two parts are known; a join after
// a merge waits for its lookup, which JoinIndex's filter answers for most.  (Other
// prefetches tried here, and what they gave, are in benchmarks/README.md.)
void ByteLevelBpe::merge_joins(const uint8_t* p, size_t n, const uint8_t* bytes, std::vector<uint32_t>* out) const {
  alignas(16) uint32_t rank[kShortPiece];  // part j joined with the next part, or kNoToken
  uint32_t token[kShortPiece];
  uint16_t start[kShortPiece + 1];  // byte where part j starts; start[parts] = n
  uint16_t next[kShortPiece];       // the following part (parts at the end)
  uint16_t prev[kShortPiece];
  uint8_t wide[kShortPiece];        // 1: the part holds a byte >= 0x80
  // Part j is set up, and the join of parts j - 1 and j prefetched, as soon as it is known.
  auto prefetch_join = [&](size_t a, size_t b, size_t end) {
    if ((wide[a] | wide[b]) != 0) {
      joins_->prefetch(token[a], token[b]);
    } else if (end - start[a] <= ShortTokenIndex::kMaxLen) {
      short_.prefetch(ShortTokenIndex::key_wide(bytes + start[a], end - start[a]));
    }
  };
  size_t parts = 0;
  for (size_t i = 0; i < n;) {
    uint32_t id = kNoToken;
    size_t k = atoms_.at(bytes, n, i, &id);
    token[parts] = k == 1 ? byte_token_[p[i]] : id;
    wide[parts] = static_cast<uint8_t>((k > 1) | (p[i] >> 7));
    start[parts] = static_cast<uint16_t>(i);
    next[parts] = static_cast<uint16_t>(parts + 1);
    prev[parts] = static_cast<uint16_t>(parts == 0 ? 0 : parts - 1);
    i += k;
    if (parts > 0) prefetch_join(parts - 1, parts, i);
    ++parts;
  }
  start[parts] = static_cast<uint16_t>(n);
  // Two ASCII parts joined: bytes [s, s + len).  Out of line, as the rarer case.
  auto join_ascii = [&](size_t s, size_t len) __attribute__((noinline)) -> uint32_t {
    if (len <= ShortTokenIndex::kMaxLen) return short_.find(ShortTokenIndex::key_wide(bytes + s, len));
    return lookup(p + s, len);
  };
  // Part a joined with the following part b, whose bytes end at `end`.  Inlined: it runs
  // once per merge step, and a call would cost more than its body.
  auto join = [&](size_t a, size_t b, size_t end) __attribute__((always_inline)) -> uint32_t {
    if ((wide[a] | wide[b]) != 0) return joins_->find(token[a], token[b]);
    return join_ascii(start[a], end - start[a]);
  };
  for (size_t j = 0; j + 1 < parts; ++j) rank[j] = join(j, j + 1, start[j + 2]);
  const size_t padded = (parts + 7) & ~size_t{7};
  for (size_t j = parts - 1; j < padded; ++j) rank[j] = kNoToken;
  merge_linked(
      rank, padded, token, next, prev, parts, [&](size_t a, size_t b) { return join(a, b, start[next[b]]); },
      [&](size_t at, size_t right) { wide[at] = static_cast<uint8_t>(wide[at] | wide[right]); }, [](size_t) {}, out);
}

}  // namespace tf::byte_level
